//! SSDSim's `page.parameters`: `key = value; #comment` lines read as SSDSim's
//! `load_parameters` reads them (a line that starts with `#` or a space is skipped, the key
//! is everything before `=`, the value a number after it; `;` optional), mapped onto
//! ssdlab's keys with the fate of every key recorded.

use super::{boolean, count, fraction, number, origin, whole, Fate, Item, Items, Mapping, Vocabulary};

/// The keys SSDSim's `load_parameters` reads (huaicheng/ssdsim, initialize.c), besides
/// `chip number[i]`.
const KEYS: Vocabulary = Vocabulary {
    simulator: "SSDSim",
    noun: "parameter",
    names: &[
        "active write",
        "active write threshold",
        "address mapping",
        "advanced command",
        "advanced command priority",
        "advanced command priority2",
        "aged",
        "aged ratio",
        "allocation",
        "block number",
        "buffer management",
        "channel number",
        "chip number",
        "clean in background",
        "cpu sdram",
        "die number",
        "dram active current",
        "dram capacity",
        "dram refresh current",
        "dram standby current",
        "dram voltage",
        "dynamic_allocation",
        "erase limit",
        "flash operating current",
        "flash supply voltage",
        "gc",
        "gc hard threshold",
        "gc threshold",
        "greed CB command",
        "greed MPW command",
        "interleaving",
        "overprovide",
        "page capacity",
        "page number",
        "pipelining",
        "plane number",
        "queue_length",
        "quick table radio",
        "related mapping",
        "scheduling algorithm",
        "small large write",
        "static_allocation",
        "striping",
        "subpage capacity",
        "subpage page",
        "t_ADL",
        "t_ALH",
        "t_ALS",
        "t_AR",
        "t_BERS",
        "t_CEA",
        "t_CH",
        "t_CHZ",
        "t_CLH",
        "t_CLR",
        "t_CLS",
        "t_COH",
        "t_CS",
        "t_DBSY",
        "t_DH",
        "t_DS",
        "t_IR",
        "t_PROG",
        "t_R",
        "t_RC",
        "t_REA",
        "t_REH",
        "t_RHOH",
        "t_RHW",
        "t_RHZ",
        "t_RLOH",
        "t_RP",
        "t_RR",
        "t_RST",
        "t_WB",
        "t_WC",
        "t_WH",
        "t_WHR",
        "t_WP",
        "threshold value",
        "time_step",
        "wear leveling",
    ],
};
use anyhow::{anyhow, bail, Result};

/// Keys that SSDSim forks read and SSDSim does not: 3Dsim (zuoerfeng/3Dsim,
/// swang-hust/3Dsim-Linux, `load_parameters` in initialize.c), with what each means there.
/// They are not likely typos of SSDSim's keys (`t_PROGO` is one edit from `t_PROG`): they
/// are listed as not modelled, with a warning (`--strict` refuses them).
const FORK_KEYS: &[(&str, &str)] = &[
    ("t_PROGO", "3Dsim's one-shot (TLC) program time"),
    ("t_ERSL", "3Dsim's erase suspend/resume time"),
    ("data dram capacity", "3Dsim's data buffer size (its own buffer rules)"),
    ("mapping dram capacity", "3Dsim's mapping-table DRAM"),
    ("mapping entry size", "3Dsim's mapping entry size"),
    ("requset queue depth", "3Dsim's request queue depth (spelled so in 3Dsim)"),
    ("gc soft threshold", "3Dsim's soft GC threshold (GC when the device is idle)"),
    ("warm flash", "3Dsim's flash preconditioning switch"),
    ("flash mode", "3Dsim's SLC / TLC mode"),
];

/// A fork's value of a key SSDSim knows: run with `nearest`, listed as approximated and
/// warned about; `--strict` refuses it.
fn fork_value(m: &mut Mapping, item: &Item, keys: &[&str], nearest: String) {
    let message = format!(
        "{}:{}: {} = {}: SSDSim has no such value (a fork's?); run as {nearest}",
        item.file, item.line, item.key, item.value
    );
    m.report.warnings.push(message.clone());
    m.report.fork_extensions.push(message);
    m.param(item, Fate::Approximated, keys, format!("not an SSDSim value (a fork's); run as {nearest}"));
}

/// Reads the bytes of a parameter file. Comments may be in any encoding (SSDSim's own file
/// has GBK comments); keys and values must be ASCII text.
pub fn parameters(bytes: &[u8], file: &str) -> Result<Mapping> {
    let decoded;
    let mut bytes = bytes;
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        decoded = super::decode_text(bytes).into_bytes();
        bytes = &decoded;
    }
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    let mut m = Mapping::default();
    m.report.format = "ssdsim".into();
    m.report.files.push(file.to_string());
    let mut items = Items::new(file);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = (i + 1) as u32;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let content = raw.split(|&b| b == b'#').next().unwrap_or(&[]);
        if content.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = std::str::from_utf8(content).map_err(|_| {
            anyhow!("{file}:{line}: the key or value is not text (only comments after '#' may be in another encoding)")
        })?;
        let Some((key, value)) = text.split_once('=') else {
            m.report.warnings.push(format!("{file}:{line}: '{}' has no '=': skipped, as SSDSim skips it", text.trim()));
            continue;
        };
        if raw.first().is_some_and(|b| *b == b' ' || *b == b'\t') {
            m.report.warnings.push(format!(
                "{file}:{line}: '{}' starts with a space: SSDSim skips such lines, and so does ssdlab",
                key.trim()
            ));
            continue;
        }
        let value = value.split(';').next().unwrap_or("").trim();
        let key = key.trim_end();
        if value.is_empty() {
            bail!("{file}:{line}: {key}: no value after '='");
        }
        items.push(line, key, value);
    }
    map(&mut items, &mut m)?;
    for (key, what) in FORK_KEYS {
        if let Some(item) = items.take(key) {
            let message = format!(
                "{}:{}: '{}' is not an SSDSim parameter but {what}: not modelled, ignored",
                item.file, item.line, item.key
            );
            m.report.warnings.push(message.clone());
            m.report.fork_extensions.push(message);
            m.param(&item, Fate::NotModelled, &[], format!("{what}; not an SSDSim parameter, ignored"));
        }
    }
    items.finish(&mut m, &KEYS, |key| key.contains("number"))?;
    m.report.recount();
    Ok(m)
}

fn map(items: &mut Items, m: &mut Mapping) -> Result<()> {
    let file = items.file.clone();
    let name = std::path::Path::new(&file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    m.set("name", format!("ssdsim-{}", name.trim_end_matches(".parameters")), "the parameter file's name");
    m.set("description", format!("imported from SSDSim's {name}"), "ssdlab import");
    m.set("source", format!("SSDSim parameter file {name} (ssdlab import ssdsim)"), "ssdlab import");
    let need = |items: &mut Items, key: &str| -> Result<Item> {
        match items.take(key) {
            Some(item) => Ok(item),
            None => Err(items.missing(
                key,
                &KEYS,
                format!("{file}: no '{key}' line: SSDSim needs it for the device's shape"),
            )),
        }
    };

    // Geometry. SSDSim builds each channel from `chip number[i]`; ssdlab's channels are alike.
    let channels_item = need(items, "channel number")?;
    let channels = count(&channels_item)?;
    m.set("geometry.channels", channels, &origin(&channels_item));
    m.param(&channels_item, Fate::Mapped, &["geometry.channels"], "");
    let mut per_channel: Vec<(u32, Item)> = Vec::new();
    for item in items.take_prefixed("chip number[") {
        let index = item
            .key
            .strip_prefix("chip number[")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|i| i.trim().parse::<u32>().ok())
            .ok_or_else(|| anyhow!("{}:{}: '{}': expected chip number[INDEX]", item.file, item.line, item.key))?;
        per_channel.retain(|(i, _)| *i != index);
        per_channel.push((index, item));
    }
    let total = items.take("chip number");
    let chips_per_channel = if per_channel.is_empty() {
        let total = total.ok_or_else(|| anyhow!("{file}: neither 'chip number' nor 'chip number[i]' lines"))?;
        let n = count(&total)?;
        if n % channels != 0 {
            bail!(
                "{}:{}: chip number: {n} chips cannot be spread evenly over {channels} channels (ssdlab's channels \
                 all have the same number of chips)",
                total.file,
                total.line
            );
        }
        m.param(&total, Fate::Mapped, &["geometry.chips_per_channel"], format!("{n} / {channels} channels"));
        n / channels
    } else {
        let mut counts = Vec::new();
        for c in 0..channels {
            let item = per_channel
                .iter()
                .find(|(i, _)| *i == c)
                .map(|(_, item)| item)
                .ok_or_else(|| anyhow!("{file}: no 'chip number[{c}]' line: channel {c} would have no chips"))?;
            counts.push((whole(item)?, item.clone()));
        }
        let first = counts[0].0;
        if let Some((n, item)) = counts.iter().find(|(n, _)| *n != first) {
            bail!(
                "{}:{}: {} = {n}, but chip number[0] = {first}: ssdlab's channels all have the same number of chips, \
                 so this device's shape cannot be imported",
                item.file,
                item.line,
                item.key
            );
        }
        if first == 0 {
            let item = &counts[0].1;
            bail!("{}:{}: {}: a channel needs at least one chip", item.file, item.line, item.key);
        }
        for (index, item) in &per_channel {
            if *index < channels {
                m.param(item, Fate::Mapped, &["geometry.chips_per_channel"], "");
            } else {
                m.param(
                    item,
                    Fate::Mapped,
                    &[],
                    format!("channel {index} does not exist (channel number = {channels}): unused, as in SSDSim"),
                );
            }
        }
        let sum = first * channels as u64;
        if let Some(total) = total {
            let n = whole(&total)?;
            if n == sum {
                m.param(&total, Fate::Mapped, &[], "the total of chip number[i]");
            } else {
                m.report.warnings.push(format!(
                    "{}:{}: chip number = {n}, but the chip number[i] lines add up to {sum}: the device is built from \
                     chip number[i], as SSDSim builds its channels",
                    total.file, total.line
                ));
                m.param(
                    &total,
                    Fate::Approximated,
                    &[],
                    format!("disagrees with chip number[i] (sum {sum}), which SSDSim and ssdlab use"),
                );
            }
        }
        first as u32
    };
    m.set("geometry.chips_per_channel", chips_per_channel, &format!("chip number[i] ({name})"));
    for (key, target) in [
        ("die number", "geometry.dies_per_chip"),
        ("plane number", "geometry.planes_per_die"),
        ("block number", "geometry.blocks_per_plane"),
        ("page number", "geometry.pages_per_block"),
        ("page capacity", "geometry.page_size_bytes"),
    ] {
        let item = need(items, key)?;
        m.set(target, count(&item)?, &origin(&item));
        m.param(&item, Fate::Mapped, &[target], "");
    }
    let page = items.take("page capacity").map(|i| whole(&i)).transpose()?.unwrap_or(0);
    let subpages = items.take("subpage page");
    let subpage_bytes = items.take("subpage capacity");
    let note = "SSDSim tracks which sectors of a page hold data, reads the old page before a write only when it \
                holds sectors the write does not cover, and moves only a sub-request's sectors over the channel; \
                ssdlab does the same (ftl.partial_page_writes = read-uncovered, flash.transfer_requested_bytes), \
                tracking eighths of a page (a sector or less up to 4 KiB pages)";
    if let (Some(s), Some(b)) = (&subpages, &subpage_bytes) {
        let (ns, nb) = (whole(s)?, whole(b)?);
        if ns * nb != page {
            m.report.warnings.push(format!(
                "{}:{}: subpage page ({ns}) x subpage capacity ({nb}) is not the page capacity ({page})",
                s.file, s.line
            ));
        }
    }
    if subpages.is_some() || subpage_bytes.is_some() {
        m.set(
            "ftl.partial_page_writes",
            "read-uncovered",
            &format!("SSDSim reads the old page only for the sectors a write leaves behind ({name})"),
        );
    }
    if subpage_bytes.is_some() {
        m.set(
            "flash.transfer_requested_bytes",
            true,
            &format!("SSDSim moves a sub-request's sectors only: size x subpage capacity x t_WC or t_RC ({name})"),
        );
    }
    for item in subpages.iter().chain(&subpage_bytes) {
        let fate = if page <= 4096 { Fate::Mapped } else { Fate::Approximated };
        m.param(item, fate, &["ftl.partial_page_writes", "flash.transfer_requested_bytes"], note);
    }

    // Timing: SSDSim has one read and one program latency, i.e. SLC-like page types.
    m.set("flash.cell", "slc", "SSDSim has one read and one program latency (no page types)");
    m.set("flash.layout", "sequential", "one page type");
    let t_r = need(items, "t_R")?;
    let t_prog = need(items, "t_PROG")?;
    let t_bers = need(items, "t_BERS")?;
    let (read, program, erase) = (whole(&t_r)?, whole(&t_prog)?, whole(&t_bers)?);
    m.set("flash.read_latency_ns", toml::Value::Array(vec![(read as i64).into()]), &origin(&t_r));
    m.set("flash.program_latency_ns", toml::Value::Array(vec![(program as i64).into()]), &origin(&t_prog));
    m.set("flash.erase_latency_ns", erase as i64, &origin(&t_bers));
    m.param(&t_r, Fate::Mapped, &["flash.read_latency_ns"], "");
    m.param(&t_prog, Fate::Mapped, &["flash.program_latency_ns"], "");
    m.param(&t_bers, Fate::Mapped, &["flash.erase_latency_ns"], "");
    let t_wc = items.take("t_WC");
    let t_rc = items.take("t_RC");
    match (&t_wc, &t_rc) {
        (Some(wc), Some(rc)) => {
            let (w, r) = (whole(wc)?, whole(rc)?);
            let per_byte = (w + r) as f64 / 2.0;
            m.set("flash.transfer_ns_per_byte", per_byte, &format!("t_WC = {w}, t_RC = {r} ({name})"));
            m.set("flash.command_overhead_ns", (7 * w) as i64, &format!("7 command/address cycles of t_WC ({name})"));
            let (fate, how) = if w == r {
                (Fate::Mapped, "SSDSim moves data in at t_WC and out at t_RC per byte".to_string())
            } else {
                (
                    Fate::Approximated,
                    format!("t_WC and t_RC differ: ssdlab's channel has one rate, their mean {per_byte} ns/B"),
                )
            };
            m.param(
                wc,
                fate,
                &["flash.transfer_ns_per_byte", "flash.command_overhead_ns"],
                format!("{how}; 7 x t_WC per command for SSDSim's command and address cycles"),
            );
            m.param(rc, fate, &["flash.transfer_ns_per_byte"], how);
        }
        _ => {
            for item in t_wc.iter().chain(&t_rc) {
                m.param(
                    item,
                    Fate::Approximated,
                    &[],
                    "needs both t_WC and t_RC for the transfer time; ssdlab's default (3 ns/B) kept",
                );
            }
        }
    }
    if let Some(item) = items.take("t_DBSY") {
        m.param(
            &item,
            Fate::NotModelled,
            &[],
            "the dummy busy time between the planes of a two-plane program (tens of ns) is not modelled",
        );
    }
    for key in [
        "t_CLS", "t_CLH", "t_CS", "t_CH", "t_WP", "t_ALS", "t_ALH", "t_DS", "t_DH", "t_WH", "t_ADL", "t_AR", "t_CLR",
        "t_RR", "t_RP", "t_WB", "t_REA", "t_CEA", "t_RHZ", "t_CHZ", "t_RHOH", "t_RLOH", "t_COH", "t_REH", "t_IR",
        "t_RHW", "t_WHR", "t_RST",
    ] {
        if let Some(item) = items.take(key) {
            whole(&item)?;
            m.param(&item, Fate::NotModelled, &[], "an ONFI interface timing below ssdlab's channel model (transfer time per byte plus a command overhead); SSDSim's own timing uses t_WC, t_RC, t_R, t_PROG and t_BERS");
        }
    }

    // Energy: SSDSim charges operating current x supply voltage over each operation.
    let current = items.take("flash operating current");
    let voltage = items.take("flash supply voltage");
    match (&current, &voltage) {
        (Some(c), Some(v)) => {
            let (ua, volts) = (number(c)?, number(v)?);
            if ua < 0.0 || volts < 0.0 {
                bail!("{}:{}: {}: must not be negative", c.file, c.line, c.key);
            }
            let nj = |ns: u64| (ua * 1e-6 * volts * ns as f64 * 1000.0).round() / 1000.0;
            let from = format!("flash operating current {ua} uA x supply voltage {volts} V x latency ({name})");
            m.set("energy.read_nj", toml::Value::Array(vec![nj(read).into()]), &from);
            m.set("energy.program_nj", toml::Value::Array(vec![nj(program).into()]), &from);
            m.set("energy.erase_nj", nj(erase), &from);
            let how = "energy per operation = current x voltage x the operation's latency (read, program, erase); transfers and idle time cost nothing";
            m.param(c, Fate::Approximated, &["energy.read_nj", "energy.program_nj", "energy.erase_nj"], how);
            m.param(v, Fate::Approximated, &["energy.read_nj", "energy.program_nj", "energy.erase_nj"], how);
        }
        _ => {
            for item in current.iter().chain(&voltage) {
                m.param(item, Fate::NotModelled, &[], "needs both the flash operating current and the supply voltage");
            }
        }
    }
    for key in ["dram active current", "dram standby current", "dram refresh current", "dram voltage"] {
        if let Some(item) = items.take(key) {
            number(&item)?;
            m.param(&item, Fate::NotModelled, &[], "DRAM energy is not modelled");
        }
    }
    if let Some(item) = items.take("erase limit") {
        whole(&item)?;
        m.param(
            &item,
            Fate::NotModelled,
            &[],
            "blocks never wear out in ssdlab (erase counts are reported: erase_counts)",
        );
    }

    // Cache and mapping. SSDSim's buffer is on whenever `dram capacity` is not 0
    // (simulate() calls buffer_management); `buffer management` is read but never used.
    if let Some(item) = items.take("dram capacity") {
        let bytes = whole(&item)?;
        if bytes == 0 {
            m.param(&item, Fate::Mapped, &[], "no DRAM data buffer, as ssdlab");
        } else if bytes < page.max(1) {
            m.param(&item, Fate::NotModelled, &[], format!("less than one page ({page} bytes): no DRAM buffer"));
        } else {
            let from = origin(&item);
            m.set("cache.capacity_bytes", bytes as i64, &from);
            m.set("cache.mode", "write", "SSDSim's buffer holds written data; a read miss is not kept");
            m.set("cache.flush", "ssdsim", "SSDSim's buffer_management / insert2buffer");
            m.set("cache.dram_access_ns", 1000, "SSDSim answers a request served from its buffer in 1000 ns");
            m.set("cache.dram_ns_per_byte", 0.0, "SSDSim charges no DRAM time per byte");
            m.param(
                &item,
                Fate::Mapped,
                &[
                    "cache.capacity_bytes",
                    "cache.mode",
                    "cache.flush",
                    "cache.dram_access_ns",
                    "cache.dram_ns_per_byte",
                ],
                format!(
                    "SSDSim's DRAM buffer: {} sectors of 512 bytes; a page holds only the sectors written; a write \
                     that needs room evicts the least recently used pages whole and completes when their programs \
                     do; a request served wholly from DRAM takes 1000 ns",
                    bytes / 512
                ),
            );
        }
    }
    if let Some(item) = items.take("buffer management") {
        whole(&item)?;
        m.param(&item, Fate::Mapped, &[], "read but not used by SSDSim (its buffer is on whenever dram capacity > 0)");
    }
    if let Some(item) = items.take("address mapping") {
        match whole(&item)? {
            1 => m.param(&item, Fate::Mapped, &[], "page-level mapping"),
            n => {
                m.param(&item, Fate::Approximated, &[], format!("mode {n} (block or FAST mapping): ssdlab maps pages"))
            }
        }
    }
    if let Some(item) = items.take("wear leveling") {
        whole(&item)?;
        m.param(&item, Fate::NotModelled, &[], "no wear leveling in ssdlab");
    }

    // Over-provisioning and GC.
    let op = items.take("overprovide");
    let op_value = match &op {
        Some(item) => {
            let v = fraction(item)?;
            m.set("ftl.over_provisioning", v, &origin(item));
            m.param(item, Fate::Mapped, &["ftl.over_provisioning"], "");
            v
        }
        None => ssdlab_core::config::Ftl::default().over_provisioning,
    };
    if let Some(item) = items.take("gc") {
        whole(&item)?;
        m.param(&item, Fate::Approximated, &[], "SSDSim's GC mode: ssdlab's GC runs by the thresholds below, one flash operation at a time, behind user reads and writes");
    }
    let background = match items.take("gc threshold") {
        Some(item) => {
            let v = fraction(&item)?;
            m.set("ftl.gc_background_free_fraction", v, &origin(&item));
            m.set(
                "ftl.gc_background",
                "one-victim-per-block",
                "SSDSim queues a GC request for every page written below the threshold, each reclaiming a block",
            );
            m.set("ftl.gc_free_space", "pages", "SSDSim's threshold counts a plane's free pages (free_page)");
            m.set("ftl.gc_idle_ns", 0, "SSDSim starts a queued GC as soon as the channel is idle");
            m.param(
                &item,
                Fate::Mapped,
                &["ftl.gc_background_free_fraction", "ftl.gc_background", "ftl.gc_free_space", "ftl.gc_idle_ns"],
                "a plane at or below this share of free pages reclaims one victim per block's worth of pages written",
            );
            v
        }
        None => ssdlab_core::config::Ftl::default().gc_background_free_fraction,
    };
    if let Some(item) = items.take("gc hard threshold") {
        let v = fraction(&item)?;
        let blocks = m
            .assigns
            .iter()
            .find(|a| a.key == "geometry.blocks_per_plane")
            .and_then(|a| a.value.as_integer())
            .unwrap_or(1) as f64;
        let room = blocks * op_value >= (blocks * v).ceil().max(2.0) + 2.0;
        if v <= background && room {
            m.set("ftl.gc_emergency_free_fraction", v, &origin(&item));
            m.param(
                &item,
                Fate::Approximated,
                &["ftl.gc_emergency_free_fraction"],
                "below it GC runs before further user writes of the plane",
            );
        } else {
            let default = ssdlab_core::config::Ftl::default().gc_emergency_free_fraction.min(background);
            m.set("ftl.gc_emergency_free_fraction", default, &format!("not {v}: see the import report ({name})"));
            m.param(
                &item,
                Fate::Approximated,
                &["ftl.gc_emergency_free_fraction"],
                format!(
                "ssdlab's emergency threshold keeps that many blocks free out of the over-provisioned space, which {v} \
                 would exceed (or it is above the gc threshold); {default} used"
            ),
            );
        }
    }
    if let Some(item) = items.take("scheduling algorithm") {
        whole(&item)?;
        m.param(
            &item,
            Fate::Approximated,
            &["ftl.queue_priority"],
            "each die serves its queues in arrival order, user reads before user writes before GC",
        );
    }
    if let Some(item) = items.take("queue_length") {
        let n = count(&item)?;
        m.set("host.queue_depth", n, &origin(&item));
        m.param(
            &item,
            Fate::Approximated,
            &["host.queue_depth"],
            "requests beyond this many outstanding wait in the host",
        );
    }

    // Allocation (Hu et al., ICS '11): static modes 0-5 are plane orders, fastest-varying first.
    let allocation = items.take("allocation");
    let static_mode = items.take("static_allocation");
    let dynamic_mode = items.take("dynamic_allocation");
    let dynamic_priority = items.take("dynamic_allocation_priority");
    let is_static = match &allocation {
        Some(item) => match whole(item)? {
            0 => false,
            1 => true,
            // 3Dsim: 2 load-aware, 3 superblock (a write striped over every plane): both
            // spread writes over the planes as they come, as SSDSim's dynamic allocation.
            _ => {
                let nearest = "SSDSim's dynamic allocation (0): each write waits for a die to take it".to_string();
                fork_value(m, item, &["ftl.plane_allocation"], nearest);
                false
            }
        },
        None => false,
    };
    let allocation = allocation.filter(|item| whole(item).is_ok_and(|n| n <= 1));
    if is_static {
        let mode = static_mode.as_ref().map(whole).transpose()?.unwrap_or(0);
        let order = match mode {
            0 => "wdpc",
            1 => "cwdp",
            2 => "cpwd",
            3 => "cdwp",
            4 => "cpdw",
            5 => "cdpw",
            _ => {
                let item = static_mode.as_ref().expect("a mode other than 0 was read from a line");
                fork_value(m, item, &["ftl.allocation_order"], "SSDSim's static mode 0 (wdpc)".to_string());
                "wdpc"
            }
        };
        let static_mode = static_mode.filter(|item| whole(item).is_ok_and(|n| n <= 5));
        m.set("ftl.plane_allocation", "static", &format!("allocation = 1 ({name})"));
        m.set("ftl.allocation_order", order, &format!("static_allocation = {mode} ({name})"));
        if let Some(item) = &allocation {
            m.param(
                item,
                Fate::Mapped,
                &["ftl.plane_allocation"],
                "static: the plane is a function of the logical page",
            );
        }
        if let Some(item) = &static_mode {
            m.param(
                item,
                Fate::Mapped,
                &["ftl.allocation_order"],
                format!("mode {mode} stripes {order} (fastest first)"),
            );
        }
        for item in dynamic_mode.iter().chain(&dynamic_priority) {
            m.param(item, Fate::Mapped, &[], "unused: allocation = 1 (static), as in SSDSim");
        }
    } else {
        let mode = dynamic_mode.as_ref().map(whole).transpose()?.unwrap_or(0);
        m.set("ftl.plane_allocation", "at-service", &format!("allocation = 0, dynamic_allocation = {mode} ({name})"));
        m.set("ftl.allocation_order", "cwdp", "SSDSim's tokens: channel fastest, then chip, die, plane");
        if let Some(item) = &allocation {
            m.param(
                item,
                Fate::Mapped,
                &["ftl.plane_allocation"],
                "dynamic: a write is bound to a plane when a chip on an idle channel takes it (at-service)",
            );
        }
        if let Some(item) = &dynamic_mode {
            if mode == 0 {
                m.param(
                    item,
                    Fate::Mapped,
                    &["ftl.plane_allocation", "ftl.allocation_order"],
                    "all dynamic: one queue of waiting writes; an idle chip on an idle channel takes up to one \
                     per plane, dies first (interleaved, then multi-plane programs), the chips in turn",
                );
            } else {
                m.param(
                    item,
                    Fate::Approximated,
                    &["ftl.plane_allocation"],
                    format!(
                        "mode {mode} fixes the channel (or more) by the logical page; ssdlab's waiting writes go to \
                         any idle chip"
                    ),
                );
            }
        }
        if let Some(item) = &dynamic_priority {
            m.param(item, Fate::Approximated, &["ftl.allocation_order"], "ssdlab's round-robin order is cwdp");
        }
        if let Some(item) = &static_mode {
            m.param(item, Fate::Mapped, &[], "unused: allocation = 0 (dynamic), as in SSDSim");
        }
    }

    // Advanced commands: bit 0 random, 1 copyback, 2 two-plane program, 3 interleave, 4 two-plane read.
    let advanced = items.take("advanced command");
    let bits = advanced.as_ref().map(whole).transpose()?.unwrap_or(0);
    let copyback = bits & 0b10 != 0;
    let (mp_write, mp_read) = (bits & 0b100 != 0, bits & 0b10000 != 0);
    if let Some(item) = &advanced {
        m.set("flash.copyback", copyback, &format!("advanced command bit 00010 ({name})"));
        m.set("flash.multi_plane", mp_write || mp_read, &format!("advanced command bits 00100, 10000 ({name})"));
        let mut notes = Vec::new();
        let mut fate = Fate::Mapped;
        if mp_write != mp_read {
            fate = Fate::Approximated;
            notes.push("two-plane program and read are one switch in ssdlab (on if either is)".to_string());
        }
        if bits & 0b1000 == 0 {
            fate = Fate::Approximated;
            notes.push("interleave off: ssdlab always runs the dies of a chip in parallel".to_string());
        }
        if bits & 0b1 != 0 {
            notes.push("the 'random' bit has no counterpart (ssdlab writes pages in order)".to_string());
        }
        m.param(item, fate, &["flash.copyback", "flash.multi_plane"], notes.join("; "));
    }
    for key in ["advanced command priority", "advanced command priority2"] {
        if let Some(item) = items.take(key) {
            whole(&item)?;
            m.param(&item, Fate::NotModelled, &[], "ssdlab has no choice between interleave and two-plane: it runs dies in parallel and forms a multi-plane command whenever the planes' addresses match");
        }
    }
    if let Some(item) = items.take("greed CB command") {
        let greedy = boolean(&item)?;
        let (fate, note) = match (copyback, greedy) {
            (false, _) => (Fate::Mapped, "unused: copyback is off"),
            (true, true) => (Fate::Mapped, "ssdlab uses copyback for every GC move within a plane"),
            (true, false) => {
                (Fate::Approximated, "ssdlab uses copyback for every GC move within a plane whenever it is on")
            }
        };
        m.param(&item, fate, &["flash.copyback"], note);
    }
    if let Some(item) = items.take("greed MPW command") {
        let greedy = boolean(&item)?;
        let (fate, note) = match (mp_write, greedy) {
            (false, _) => (Fate::Mapped, "unused: two-plane program is off"),
            (true, true) => (Fate::Mapped, "ssdlab forms a multi-plane program whenever queued writes allow"),
            (true, false) => (Fate::Approximated, "ssdlab forms multi-plane programs greedily whenever they are on"),
        };
        m.param(&item, fate, &["flash.multi_plane"], note);
    }

    // Aging (make_aged): the aged ratio of every plane is programmed and invalid.
    let aged = items.take("aged");
    let ratio = items.take("aged ratio");
    let is_aged = aged.as_ref().map(boolean).transpose()?.unwrap_or(false);
    m.set("precondition.fill_invalid_to_gc_threshold", false, "SSDSim ages (or not) by its own rule");
    if is_aged {
        let ratio = ratio.as_ref().ok_or_else(|| anyhow!("{file}: aged = 1 needs an 'aged ratio' line"))?;
        let v = fraction(ratio)?;
        m.set("precondition.aged_invalid_fraction", v, &origin(ratio));
        m.param(
            aged.as_ref().expect("aged is set"),
            Fate::Mapped,
            &["precondition.aged_invalid_fraction"],
            "SSDSim-style aging before the run",
        );
        m.param(
            ratio,
            Fate::Mapped,
            &["precondition.aged_invalid_fraction"],
            "this share of each plane's blocks starts programmed with invalid data",
        );
    } else {
        if let Some(item) = &aged {
            m.param(item, Fate::Mapped, &[], "a fresh drive");
        }
        if let Some(item) = &ratio {
            fraction(item)?;
            m.param(item, Fate::Mapped, &[], "unused: aged = 0, as in SSDSim");
        }
    }
    Ok(())
}
