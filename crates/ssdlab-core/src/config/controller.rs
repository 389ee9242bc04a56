//! The controller's own resources between the host and the flash (issue 19): its DRAM
//! data cache (`[cache]`), its cached mapping table (`[cmt]`), the host link (`[link]`)
//! and how a chip's dies share it (`flash.die_scheduling`, in `sections.rs`). Every one is
//! off by default: the presets' papers model neither a cache, a link nor a mapping table
//! smaller than the drive's (they assume an ideal map), and their numbers stay as they
//! were.

use super::{err, ConfigError};
use serde::{Deserialize, Serialize};

/// What the DRAM data cache holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMode {
    /// Written data only (MQSim's WRITE_CACHE): reads hit what was written and not yet
    /// evicted; a read miss goes to flash and is not kept.
    Write,
    /// Written data and the data of read misses (MQSim's WRITE_READ_CACHE): a read miss
    /// is kept (clean) once flash returned it.
    ReadWrite,
}

/// When dirty cached data goes to flash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheFlush {
    /// Write-back: dirty data stays until it is the least recently used page and the
    /// cache needs its slot.
    Evict,
    /// MQSim's Data_Cache_Manager_Flash_Advanced: the first write of a page within a hot
    /// window (`hot_window_ns`) goes to flash at once (cold data); rewrites within the
    /// window stay dirty until evicted (hot data). The window's set is cleared when a
    /// write arrives after it ends.
    ColdEager,
    /// SSDSim's DRAM buffer (`buffer_management`, `insert2buffer`): room is counted in
    /// sectors (a page holds only the sectors written to it), the least recently used
    /// page leaves whole when a write needs room, and the write that needed it completes
    /// only when that page's program does; there is no flush limit, and a transfer costs
    /// `dram_access_ns` without queueing on the DRAM channel.
    Ssdsim,
}

/// The controller's DRAM data cache (`[cache]`): write-back with a capacity in pages,
/// LRU replacement, overwrites coalesced in DRAM, read hits served from DRAM, a limit on
/// the data being flushed at once (back-pressure: writes wait when it is reached) and one
/// DRAM channel whose transfers queue in order. Writes are acknowledged when their data is
/// in DRAM; at a power loss dirty data is flushed on capacitor power (PLP).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Cache {
    /// DRAM set aside for data, in bytes (0 = no cache). Counted in page-sized slots:
    /// a slot holds one logical page, however little of it was written.
    pub capacity_bytes: u64,
    pub mode: CacheMode,
    pub flush: CacheFlush,
    /// `flush = "cold-eager"`: how long a written page counts as hot (MQSim: 1 s).
    pub hot_window_ns: u64,
    /// Data being programmed out of the cache at once, in bytes; a write that would go
    /// beyond it waits (0 = one page per plane, MQSim's back-pressure depth).
    pub flush_limit_bytes: u64,
    /// Fixed cost of one DRAM transfer (row activation and CAS latency: MQSim's tRCD +
    /// tCL = 26 ns).
    pub dram_access_ns: u64,
    /// Cost per byte on the DRAM channel (MQSim's 100 MT/s, 1-byte bursts: 5 ns/B).
    pub dram_ns_per_byte: f64,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            capacity_bytes: 0,
            mode: CacheMode::Write,
            flush: CacheFlush::Evict,
            hot_window_ns: 1_000_000_000,
            flush_limit_bytes: 0,
            // LPDDR4-class controller DRAM: ~10 GB/s, ~40 ns to open a row.
            dram_access_ns: 40,
            dram_ns_per_byte: 0.1,
        }
    }
}

impl Cache {
    pub fn enabled(&self) -> bool {
        self.capacity_bytes > 0
    }

    pub(crate) fn validate(&self, page_size_bytes: u32, errors: &mut Vec<ConfigError>) {
        if !self.enabled() {
            return;
        }
        check_slots("cache", self.capacity_bytes, page_size_bytes, ("page", "page slots"), "no cache", errors);
        if self.flush == CacheFlush::ColdEager && self.hot_window_ns == 0 {
            errors.push(err("cache.hot_window_ns", "must be positive with flush = \"cold-eager\""));
        }
        if self.flush_limit_bytes != 0 && self.flush_limit_bytes < page_size_bytes as u64 {
            errors.push(err(
                "cache.flush_limit_bytes",
                format!("must allow one page ({page_size_bytes} bytes) to be flushed, or be 0 (one page per plane)"),
            ));
        }
        if self.dram_access_ns > super::MAX_STEP_NS {
            errors.push(err("cache.dram_access_ns", "must be at most one second"));
        }
        if !(self.dram_ns_per_byte.is_finite() && (0.0..=1000.0).contains(&self.dram_ns_per_byte)) {
            errors.push(err("cache.dram_ns_per_byte", "must be between 0 and 1000"));
        }
    }
}

/// The host link (`[link]`): PCIe lanes carrying commands, data and completions, one
/// transfer at a time in each direction (full duplex), as MQSim's PCIe_Link. A request's
/// command (and a write's data) crosses before the device sees it; a read's data and the
/// completion cross before the host does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Link {
    /// Lanes (0 = no link: requests reach the device when they arrive).
    pub lanes: u32,
    /// Bandwidth of one lane, GB/s (10^9 bytes per second: PCIe 3.0 ≈ 0.985).
    pub lane_gb_per_s: f64,
    /// Largest payload of one transaction-layer packet (TLP).
    pub max_payload_bytes: u32,
    /// Header and framing bytes per packet (MQSim: 20 TLP + 6 DLLP + 2 PHY = 28).
    pub packet_overhead_bytes: u32,
    /// The command the device fetches (NVMe submission entry; MQSim sends 72).
    pub command_bytes: u32,
    /// The completion entry the device posts (NVMe: 16).
    pub completion_bytes: u32,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            lanes: 0,
            lane_gb_per_s: 1.0,
            max_payload_bytes: 128,
            packet_overhead_bytes: 28,
            command_bytes: 64,
            completion_bytes: 16,
        }
    }
}

impl Link {
    pub fn enabled(&self) -> bool {
        self.lanes > 0
    }

    /// Time to carry `payload` bytes (split into packets, each with its overhead).
    pub fn transfer_ns(&self, payload: u64) -> u64 {
        let max = self.max_payload_bytes.max(1) as u64;
        let overhead = self.packet_overhead_bytes as u64;
        let full = payload / max;
        let rest = payload % max;
        let bytes = full * (max + overhead) + if rest > 0 { rest + overhead } else { 0 };
        let per_ns = self.lanes as f64 * self.lane_gb_per_s;
        (bytes as f64 / per_ns).ceil() as u64
    }

    pub(crate) fn validate(&self, errors: &mut Vec<ConfigError>) {
        if !self.enabled() {
            return;
        }
        if self.lanes > 64 {
            errors.push(err("link.lanes", "must be at most 64 (0 = no link model)"));
        }
        if !(self.lane_gb_per_s.is_finite() && self.lane_gb_per_s >= 0.01 && self.lane_gb_per_s <= 1000.0) {
            errors.push(err("link.lane_gb_per_s", "must be between 0.01 and 1000 GB/s"));
        }
        if !(16..=4096).contains(&self.max_payload_bytes) {
            errors.push(err("link.max_payload_bytes", "must be between 16 and 4096"));
        }
        if self.packet_overhead_bytes > 256 {
            errors.push(err("link.packet_overhead_bytes", "must be at most 256"));
        }
        if self.command_bytes > 4096 || self.completion_bytes > 4096 {
            let key = if self.command_bytes > 4096 { "link.command_bytes" } else { "link.completion_bytes" };
            errors.push(err(key, "must be at most 4096"));
        }
    }
}

/// What a dirty entry evicted from the cached mapping table costs (`cmt.write_back`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CmtWriteBack {
    /// DFTL: the translation page is read, updated with every dirty entry of it in DRAM,
    /// and programmed to a new page (read-modify-write); the old page becomes invalid.
    Program,
    /// MQSim at 7ec40e3: the read is issued but the program never runs (its transaction
    /// scheduler does not serve the mapping-write queue, CMU-SAFARI/MQSim#65), and the
    /// translation page's entries are served from DRAM from then on. Only for matching
    /// MQSim's numbers.
    Mqsim,
}

/// The cached mapping table (`[cmt]`; DFTL, MQSim's CMT): DRAM holds the mapping entries
/// of a configured size, one logical page each, least recently used out first; the full
/// map lives on flash in translation pages (`entries_per_translation_page` logical pages
/// each). A read or write whose entry is not cached first reads its translation page
/// (misses of one translation page in flight share the read); a dirty entry evicted is
/// written back with every other dirty entry of its translation page (`write_back`).
/// Translation pages are placed before the run, programmed on their own write point, and
/// moved by GC like data. Off (0) by default: an ideal map, all in DRAM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Cmt {
    /// DRAM for mapping entries, bytes (0 = the whole map in DRAM: no translation reads).
    pub capacity_bytes: u64,
    /// Bytes one cached entry takes (0 = MQSim's: ⌈(2·log2(physical pages) + sectors per
    /// page) / 8⌉, 9 bytes for its shipped drive).
    pub entry_bytes: u32,
    /// Logical pages one translation page maps (0 = MQSim's: page bytes / ⌈(log2(physical
    /// pages) + sectors per page) / 8⌉, 1365 for its shipped drive).
    pub entries_per_translation_page: u32,
    /// Bytes a miss transfers out of the translation page (MQSim: one 512-byte sector;
    /// 0 = the whole page). A write-back always reads the whole page.
    pub read_bytes: u32,
    pub write_back: CmtWriteBack,
}

impl Default for Cmt {
    fn default() -> Self {
        Cmt {
            capacity_bytes: 0,
            entry_bytes: 0,
            entries_per_translation_page: 0,
            read_bytes: 512,
            write_back: CmtWriteBack::Program,
        }
    }
}

impl Cmt {
    /// Spare blocks per plane the table takes (0 without one): its translation pages are
    /// valid pages beyond the logical ones, striped over the planes, on a write point of
    /// their own. (Not counted, GC of a drive this full makes no headway once translation
    /// pages are written back: swarm seed 200383 ran at a write amplification of 400.)
    pub(crate) fn spare_blocks_per_plane(&self, c: &super::Config, normal_blocks: f64) -> f64 {
        if !self.enabled() {
            return 0.0;
        }
        let g = &c.geometry;
        let physical = u64::try_from(g.physical_pages()).unwrap_or(u64::MAX);
        let (_, per_page) = self.sizes(physical, g.page_size_bytes);
        let data_pages = g.pages_per_block.saturating_sub(c.summary_pages_per_block()).max(1) as f64;
        let logical_per_plane = normal_blocks * data_pages * (1.0 - c.ftl.over_provisioning);
        (logical_per_plane / per_page as f64).ceil() / data_pages + 1.0
    }

    pub fn enabled(&self) -> bool {
        self.capacity_bytes > 0
    }

    /// (entry bytes, entries per translation page) for a drive of `physical_pages` pages
    /// of `page_bytes` bytes: the configured values, or MQSim's formulas.
    pub fn sizes(&self, physical_pages: u64, page_bytes: u32) -> (u32, u32) {
        let bits = 64 - physical_pages.max(2).saturating_sub(1).leading_zeros();
        let sectors = page_bytes.div_ceil(512);
        let entry = if self.entry_bytes > 0 { self.entry_bytes } else { (2 * bits + sectors).div_ceil(8) };
        let per_page = if self.entries_per_translation_page > 0 {
            self.entries_per_translation_page
        } else {
            (page_bytes / (bits + sectors).div_ceil(8)).max(1)
        };
        (entry, per_page)
    }

    pub(crate) fn validate(&self, physical_pages: u64, page_bytes: u32, errors: &mut Vec<ConfigError>) {
        if !self.enabled() {
            return;
        }
        let (entry, _) = self.sizes(physical_pages, page_bytes);
        check_slots("cmt", self.capacity_bytes, entry, ("entry", "entries"), "an ideal map", errors);
        if self.entry_bytes > 64 {
            errors.push(err("cmt.entry_bytes", "must be at most 64 (0 = MQSim's formula)"));
        }
        if self.read_bytes > page_bytes {
            errors.push(err("cmt.read_bytes", format!("must be at most one page ({page_bytes} bytes; 0 = the page)")));
        }
    }
}

/// How the dies of one chip share it (`flash.die_scheduling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DieScheduling {
    /// Each die runs its own commands; dies of a chip overlap (die interleaving), as
    /// real chips do.
    Independent,
    /// A command starts only when no die of its chip is busy (MQSim's TSU issues to a
    /// chip only when the whole chip is idle): dies of a chip never overlap.
    ChipSerial,
}

/// A DRAM table of `capacity` bytes in slots of `slot` bytes (`names`: one slot, many):
/// at least one slot (0 turns it off: `off`), at most 2^31.
fn check_slots(section: &str, capacity: u64, slot: u32, names: (&str, &str), off: &str, errors: &mut Vec<ConfigError>) {
    let key = format!("{section}.capacity_bytes");
    if capacity < slot as u64 {
        errors.push(err(&key, format!("must hold at least one {} ({slot} bytes), or be 0 for {off}", names.0)));
    }
    if capacity / slot.max(1) as u64 > u32::MAX as u64 / 2 {
        errors.push(err(&key, format!("more than 2^31 {} are not modelled", names.1)));
    }
}
