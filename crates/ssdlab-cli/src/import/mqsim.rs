//! MQSim's XML files: reading them (conflict markers and malformed XML named by line) and
//! the device file (`ssdconfig.xml`: `<Execution_Parameter_Set>` or a bare
//! `<Device_Parameter_Set>`), each element mapped onto ssdlab's keys with its fate
//! recorded. The workload file is [`super::mqsim_workload`]'s.

use super::{boolean, count, fraction, origin, whole, Fate, Item, Items, Mapping, Vocabulary};
use anyhow::{anyhow, bail, Result};
use std::path::Path;

pub use super::mqsim_workload::{check_every_scenario, scenario, scenario_count, Context};

/// Parses XML after refusing merge-conflict markers, with errors naming file and line.
pub(super) fn parse_xml<'a>(text: &'a str, file: &str) -> Result<roxmltree::Document<'a>> {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if ["<<<<<<<", "=======", ">>>>>>>", "|||||||"].iter().any(|m| t.starts_with(m)) {
            bail!(
                "{file}:{}: a merge-conflict marker ('{}'): the file was committed in the middle of a merge; keep one \
                 side and delete the marker lines",
                i + 1,
                t.chars().take(20).collect::<String>()
            );
        }
    }
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..roxmltree::ParsingOptions::default() };
    roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        anyhow!("{file}:{}:{}: malformed XML: {e}", pos.row, pos.col)
    })
}

pub(super) fn line_of(doc: &roxmltree::Document, node: roxmltree::Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

pub(super) fn elements<'a, 'i>(node: roxmltree::Node<'a, 'i>) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(|n| n.is_element())
}

/// Pushes every leaf element under `node` (parameter sets nest; leaves are parameters).
pub(super) fn leaves(doc: &roxmltree::Document, node: roxmltree::Node, items: &mut Items) {
    for child in elements(node) {
        if elements(child).next().is_some() {
            leaves(doc, child, items);
        } else {
            items.push(line_of(doc, child), child.tag_name().name(), child.text().unwrap_or("").trim());
        }
    }
}

/// The elements of MQSim's device file (its reference version's readers:
/// Execution_, Host_, Device_ and Flash_Parameter_Set.cpp), as written in its shipped
/// ssdconfig.xml and as its reader spells them (`Prefered_suspend_erase_time_for_read`).
pub const DEVICE: Vocabulary = Vocabulary {
    simulator: "MQSim",
    noun: "element",
    names: &[
        "Host_Parameter_Set",
        "Device_Parameter_Set",
        "Flash_Parameter_Set",
        // Host.
        "PCIe_Lane_Bandwidth",
        "PCIe_Lane_Count",
        "SATA_Processing_Delay",
        "Enable_ResponseTime_Logging",
        "ResponseTime_Logging_Period_Length",
        // Device.
        "Seed",
        "Enabled_Preconditioning",
        "Memory_Type",
        "HostInterface_Type",
        "IO_Queue_Depth",
        "Queue_Fetch_Size",
        "Caching_Mechanism",
        "Data_Cache_Sharing_Mode",
        "Data_Cache_Capacity",
        "Data_Cache_DRAM_Row_Size",
        "Data_Cache_DRAM_Data_Rate",
        "Data_Cache_DRAM_Data_Busrt_Size",
        "Data_Cache_DRAM_tRCD",
        "Data_Cache_DRAM_tCL",
        "Data_Cache_DRAM_tRP",
        "Address_Mapping",
        "Ideal_Mapping_Table",
        "CMT_Capacity",
        "CMT_Sharing_Mode",
        "Plane_Allocation_Scheme",
        "Transaction_Scheduling_Policy",
        "Overprovisioning_Ratio",
        "GC_Exec_Threshold",
        "GC_Block_Selection_Policy",
        "Use_Copyback_for_GC",
        "Preemptible_GC_Enabled",
        "GC_Hard_Threshold",
        "Dynamic_Wearleveling_Enabled",
        "Static_Wearleveling_Enabled",
        "Static_Wearleveling_Threshold",
        "Preferred_suspend_erase_time_for_read",
        "Prefered_suspend_erase_time_for_read",
        "Preferred_suspend_erase_time_for_write",
        "Preferred_suspend_write_time_for_read",
        "Flash_Channel_Count",
        "Flash_Channel_Width",
        "Channel_Transfer_Rate",
        "Chip_No_Per_Channel",
        "Flash_Comm_Protocol",
        // Flash.
        "Flash_Technology",
        "CMD_Suspension_Support",
        "Page_Read_Latency_LSB",
        "Page_Read_Latency_CSB",
        "Page_Read_Latency_MSB",
        "Page_Program_Latency_LSB",
        "Page_Program_Latency_CSB",
        "Page_Program_Latency_MSB",
        "Block_Erase_Latency",
        "Block_PE_Cycles_Limit",
        "Suspend_Erase_Time",
        "Suspend_Program_Time",
        "Die_No_Per_Chip",
        "Plane_No_Per_Die",
        "Block_No_Per_Plane",
        "Page_No_Per_Block",
        "Page_Capacity",
        "Page_Metadat_Capacity",
    ],
};

/// Names that would change the device's shape if a fork added them.
fn shape_name(name: &str) -> bool {
    name.contains("_No_Per_") || name.ends_with("Channel_Count") || name.starts_with("Page_Capacity")
}

/// The device file. Returns the mapping and `Enabled_Preconditioning`.
pub fn device(bytes: &[u8], file: &str) -> Result<(Mapping, bool)> {
    let text = super::decode_text(bytes);
    let doc = parse_xml(&text, file)?;
    let root = doc.root_element();
    let mut items = Items::new(file);
    match root.tag_name().name() {
        "Execution_Parameter_Set" | "Device_Parameter_Set" => leaves(&doc, root, &mut items),
        other => bail!(
            "{file}:{}: the root element is <{other}>; an MQSim device file has <Execution_Parameter_Set> or \
             <Device_Parameter_Set>",
            line_of(&doc, root)
        ),
    }
    let mut m = Mapping::default();
    m.report.format = "mqsim".into();
    m.report.files.push(file.to_string());
    let preconditioning = map_device(&mut items, &mut m)?;
    items.finish(&mut m, &DEVICE, shape_name)?;
    m.report.recount();
    Ok((m, preconditioning))
}

fn map_device(items: &mut Items, m: &mut Mapping) -> Result<bool> {
    let file = items.file.clone();
    let name = Path::new(&file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    m.set("name", format!("mqsim-{}", name.trim_end_matches(".xml")), "the device file's name");
    m.set("description", format!("imported from MQSim's {name}"), "ssdlab import");
    m.set("source", format!("MQSim device file {name} (ssdlab import mqsim)"), "ssdlab import");
    let need = |items: &mut Items, key: &str| -> Result<Item> {
        match items.take(key) {
            Some(item) => Ok(item),
            None => Err(items.missing(
                key,
                &DEVICE,
                format!(
                    "{file}: no <{key}> element: ssdlab needs it from the file (MQSim would use a built-in default)"
                ),
            )),
        }
    };
    let exact = |m: &mut Mapping, item: &Item, key: &str, value: toml::Value| {
        m.set(key, value, &origin(item));
        m.param(item, Fate::Mapped, &[key], "");
    };

    // Geometry.
    for (element, key) in [
        ("Flash_Channel_Count", "geometry.channels"),
        ("Chip_No_Per_Channel", "geometry.chips_per_channel"),
        ("Die_No_Per_Chip", "geometry.dies_per_chip"),
        ("Plane_No_Per_Die", "geometry.planes_per_die"),
        ("Block_No_Per_Plane", "geometry.blocks_per_plane"),
        ("Page_No_Per_Block", "geometry.pages_per_block"),
        ("Page_Capacity", "geometry.page_size_bytes"),
    ] {
        let item = need(items, element)?;
        exact(m, &item, key, i64::from(count(&item)?).into());
    }
    let pages_per_block =
        m.assigns.iter().find(|a| a.key == "geometry.pages_per_block").and_then(|a| a.value.as_integer()).unwrap_or(0);

    // Flash technology and latencies (Flash_Chip: MLC page p is LSB when p is even).
    let tech = need(items, "Flash_Technology")?;
    let (cell, bits) = match tech.value.as_str() {
        "SLC" => ("slc", 1),
        "MLC" => ("mlc", 2),
        "TLC" => ("tlc", 3),
        other => bail!("{}:{}: Flash_Technology: unknown value '{other}' (MQSim: SLC, MLC, TLC)", tech.file, tech.line),
    };
    m.set("flash.cell", cell, &origin(&tech));
    if bits == 3 {
        // Flash_Chip::Get_command_execution_latency: pages 0-5 LSB, 6-7 CSB, then pairs cycling.
        let types: Vec<toml::Value> = (0..pages_per_block)
            .map(|p| {
                if p <= 5 {
                    0
                } else if p <= 7 {
                    1
                } else {
                    ((p - 8) >> 1) % 3
                }
            })
            .map(toml::Value::Integer)
            .collect();
        let wordlines: Vec<toml::Value> = (0..pages_per_block).map(|p| toml::Value::Integer(p / 3)).collect();
        m.set("flash.layout", "custom", "MQSim's TLC page types (Flash_Chip)");
        m.set(
            "flash.custom_types",
            toml::Value::Array(types),
            "pages 0-5 LSB, 6-7 CSB, then pairs cycling LSB, CSB, MSB (MQSim's Flash_Chip)",
        );
        m.set(
            "flash.custom_wordlines",
            toml::Value::Array(wordlines),
            "not in MQSim: three pages per wordline in page order",
        );
        m.param(
            &tech,
            Fate::Mapped,
            &["flash.cell", "flash.layout", "flash.custom_types"],
            "page types as MQSim assigns them; wordlines (not in MQSim) are three pages each in page order",
        );
    } else {
        m.set("flash.layout", "sequential", "page p has type p % bits, as MQSim's Flash_Chip");
        m.param(&tech, Fate::Mapped, &["flash.cell", "flash.layout"], "page p has type p % bits per cell, as in MQSim");
    }
    let types = ["LSB", "CSB", "MSB"];
    for (what, key) in [("Read", "flash.read_latency_ns"), ("Program", "flash.program_latency_ns")] {
        let mut values = Vec::new();
        for (t, name) in types.iter().enumerate() {
            let element = format!("Page_{what}_Latency_{name}");
            let used = match bits {
                1 => t == 0,
                2 => t != 1,
                _ => true,
            };
            match items.take(&element) {
                Some(item) if used => {
                    values.push(toml::Value::Integer(whole(&item)? as i64));
                    m.param(&item, Fate::Mapped, &[key], "");
                }
                Some(item) => {
                    whole(&item)?;
                    m.param(&item, Fate::Mapped, &[], format!("unused for {cell} cells, as in MQSim"));
                }
                None if used => {
                    return Err(items.missing(
                        &element,
                        &DEVICE,
                        format!("{file}: no <{element}> element: the {cell} latencies need it"),
                    ))
                }
                None => {}
            }
        }
        m.set(key, toml::Value::Array(values), &format!("Page_{what}_Latency_* ({name})"));
    }
    let erase = need(items, "Block_Erase_Latency")?;
    exact(m, &erase, "flash.erase_latency_ns", (whole(&erase)? as i64).into());

    // Channel.
    let width = items.take("Flash_Channel_Width");
    let rate = items.take("Channel_Transfer_Rate");
    if let (Some(w), Some(r)) = (&width, &rate) {
        let (bytes, mts) = (count(w)?, count(r)?);
        let per_byte = 1000.0 / (f64::from(bytes) * f64::from(mts));
        m.set(
            "flash.transfer_ns_per_byte",
            per_byte,
            &format!("1000 / (Flash_Channel_Width {bytes} B x Channel_Transfer_Rate {mts} MT/s) ({name})"),
        );
        let note = "transfer time per byte = 1 / (width x rate)";
        m.param(w, Fate::Mapped, &["flash.transfer_ns_per_byte"], note);
        m.param(r, Fate::Mapped, &["flash.transfer_ns_per_byte"], note);
    } else {
        for item in width.iter().chain(&rate) {
            m.param(
                item,
                Fate::Approximated,
                &[],
                "needs both Flash_Channel_Width and Channel_Transfer_Rate; ssdlab's default transfer time kept",
            );
        }
    }
    if let Some(item) = items.take("Flash_Comm_Protocol") {
        m.set("flash.command_overhead_ns", 300i64, &origin(&item));
        m.param(
            &item,
            Fate::Approximated,
            &["flash.transfer_ns_per_byte", "flash.command_overhead_ns"],
            "data moves at the channel's rate; 300 ns of command and address cycles per transfer (MQSim's ONFI \
             NV-DDR2 read and program commands take 290 and 361 ns)",
        );
    }

    // FTL.
    if let Some(item) = items.take("Seed") {
        m.set("seed", whole(&item)? as i64, &origin(&item));
        m.param(&item, Fate::Mapped, &["seed"], "seeds ssdlab's own generators (their streams differ from MQSim's)");
    }
    if let Some(item) = items.take("Overprovisioning_Ratio") {
        exact(m, &item, "ftl.over_provisioning", fraction(&item)?.into());
    }
    if let Some(item) = items.take("Plane_Allocation_Scheme") {
        let order = item.value.to_ascii_lowercase();
        let mut letters: Vec<char> = order.chars().collect();
        letters.sort_unstable();
        if letters != ['c', 'd', 'p', 'w'] {
            bail!(
                "{}:{}: Plane_Allocation_Scheme: '{}' is not one of MQSim's static schemes (a permutation of C, W, D, \
                 P such as CWDP or PDWC)",
                item.file,
                item.line,
                item.value
            );
        }
        m.set("ftl.plane_allocation", "static", &origin(&item));
        m.set("ftl.allocation_order", order.as_str(), &origin(&item));
        m.param(
            &item,
            Fate::Mapped,
            &["ftl.plane_allocation", "ftl.allocation_order"],
            "static striping of logical pages, first letter fastest",
        );
    }
    let background = match items.take("GC_Exec_Threshold") {
        Some(item) => {
            let v = fraction(&item)?;
            m.set("ftl.gc_background_free_fraction", v, &origin(&item));
            m.set("ftl.gc_idle_ns", 0, "MQSim starts GC as soon as a plane is below GC_Exec_Threshold");
            m.param(&item, Fate::Approximated, &["ftl.gc_background_free_fraction", "ftl.gc_idle_ns"], "MQSim starts GC on a plane once its free blocks fall below this share; ssdlab's background GC then runs whenever the die has no user work (gc_idle_ns = 0)");
            v
        }
        None => ssdlab_core::config::Ftl::default().gc_background_free_fraction,
    };
    if let Some(item) = items.take("GC_Hard_Threshold") {
        let v = fraction(&item)?.min(background);
        m.set("ftl.gc_emergency_free_fraction", v, &origin(&item));
        m.param(
            &item,
            Fate::Approximated,
            &["ftl.gc_emergency_free_fraction"],
            "below it GC runs before further user writes of the plane (ssdlab keeps at least two blocks)",
        );
    }
    if let Some(item) = items.take("GC_Block_Selection_Policy") {
        let (policy, fate, note) = match item.value.as_str() {
            "GREEDY" => ("greedy", Fate::Mapped, "fewest valid pages"),
            "FIFO" => ("fifo", Fate::Mapped, "oldest block first"),
            "RANDOM" => ("random", Fate::Mapped, "uniformly random block"),
            "RGA" => (
                "greedy",
                Fate::Approximated,
                "randomized greedy (the best of a random sample) as plain greedy over all blocks",
            ),
            "RANDOM_P" | "RANDOM_PP" => {
                ("random", Fate::Approximated, "random among blocks with invalid pages, as a random block")
            }
            other => bail!(
                "{}:{}: GC_Block_Selection_Policy: unknown value '{other}' (MQSim: GREEDY, RGA, RANDOM, RANDOM_P, \
                 RANDOM_PP, FIFO)",
                item.file,
                item.line
            ),
        };
        m.set("ftl.gc_victim", policy, &origin(&item));
        m.param(&item, fate, &["ftl.gc_victim"], note);
    }
    if let Some(item) = items.take("Use_Copyback_for_GC") {
        exact(m, &item, "flash.copyback", boolean(&item)?.into());
    }
    if let Some(item) = items.take("Preemptible_GC_Enabled") {
        boolean(&item)?;
        m.param(&item, Fate::Approximated, &["ftl.queue_priority"], "ssdlab's GC works one flash operation at a time behind user reads and writes (except emergency GC), either way");
    }
    if let Some(item) = items.take("Transaction_Scheduling_Policy") {
        let from = origin(&item);
        m.set(
            "ftl.queue_priority",
            toml::Value::Array(vec!["user-read".into(), "user-write".into(), "gc".into()]),
            &from,
        );
        // How MQSim's schedulers issue commands, whichever the policy.
        m.set("flash.die_scheduling", "chip-serial", &from);
        m.set("flash.multi_plane_same_block", false, &from);
        m.set("flash.transfer_requested_bytes", true, &from);
        m.set("flash.issue_on_idle_channel", true, &from);
        let keys = [
            "ftl.queue_priority",
            "flash.die_scheduling",
            "flash.multi_plane_same_block",
            "flash.transfer_requested_bytes",
            "flash.issue_on_idle_channel",
            "arbitration.scheme",
        ];
        let common = "each chip runs one die's command at a time, reads before writes before GC; multi-plane \
                      commands at the same page; transactions move only their sectors";
        // MQSim's TSU issues a command only while the chip's channel is idle, after the read
        // data waiting on that channel (issue_on_idle_channel). What still differs:
        let channel = "commands wait for an idle channel as in MQSim's TSU, but their command and address \
                       cycles are charged with each transfer, and read data waiting for a channel leaves in \
                       the order it became ready (MQSim: mapping reads first, then user reads, then GC)";
        let (scheme, rule) = match item.value.as_str() {
            "OUT_OF_ORDER" => (
                "oldest-first",
                format!("one read and one write queue per chip shared by all flows, oldest first (TSU_OutOfOrder); {channel}"),
            ),
            "PRIORITY_OUT_OF_ORDER" => (
                "weighted",
                format!(
                    "per chip one queue per priority class, urgent first, then the classes by weighted round robin \
                     (4/2/1), oldest first within a class (TSU_Priority_OutOfOrder); {channel}"
                ),
            ),
            "FLIN" => (
                "weighted",
                "as PRIORITY_OUT_OF_ORDER: FLIN's fairness control (reordering by each flow's slowdown) is not modelled"
                    .to_string(),
            ),
            other => bail!(
                "{}:{}: Transaction_Scheduling_Policy: unknown value '{other}' (MQSim: OUT_OF_ORDER, \
                 PRIORITY_OUT_OF_ORDER, FLIN)",
                item.file,
                item.line
            ),
        };
        m.set("arbitration.scheme", scheme, &from);
        m.param(&item, Fate::Approximated, &keys, format!("{common}; {rule}"));
    }
    for key in ["Dynamic_Wearleveling_Enabled", "Static_Wearleveling_Enabled", "Static_Wearleveling_Threshold"] {
        if let Some(item) = items.take(key) {
            m.param(&item, Fate::NotModelled, &[], "no wear leveling in ssdlab");
        }
    }
    for key in [
        "Preferred_suspend_erase_time_for_read",
        // How MQSim's reader spells it (its shipped file has the spelling above).
        "Prefered_suspend_erase_time_for_read",
        "Preferred_suspend_erase_time_for_write",
        "Preferred_suspend_write_time_for_read",
        "CMD_Suspension_Support",
        "Suspend_Erase_Time",
        "Suspend_Program_Time",
    ] {
        if let Some(item) = items.take(key) {
            m.param(
                &item,
                Fate::NotModelled,
                &[],
                "program/erase suspension is not modelled: a read waits for the die's command to end",
            );
        }
    }
    if let Some(item) = items.take("Block_PE_Cycles_Limit") {
        whole(&item)?;
        m.param(&item, Fate::NotModelled, &[], "blocks never wear out in ssdlab (erase counts are reported)");
    }
    if let Some(item) = items.take("Page_Metadat_Capacity") {
        whole(&item)?;
        m.param(&item, Fate::NotModelled, &[], "the spare area takes no transfer time in ssdlab");
    }

    // Mapping table and cache.
    let ideal = items.take("Ideal_Mapping_Table");
    let is_ideal = ideal.as_ref().map(boolean).transpose()?.unwrap_or(false);
    if let Some(item) = &ideal {
        if is_ideal {
            m.set("cmt.capacity_bytes", 0i64, &origin(item));
            m.param(item, Fate::Mapped, &["cmt.capacity_bytes"], "the whole map in DRAM");
        } else {
            m.set("cmt.read_bytes", 512i64, &origin(item));
            m.set("cmt.write_back", "mqsim", &origin(item));
            m.param(
                item,
                Fate::Approximated,
                &["cmt.read_bytes", "cmt.write_back"],
                "a cached mapping table: a miss reads one sector of its translation page; a dirty eviction reads the \
                 page and never programs it, as MQSim's scheduler never serves mapping writes (cmt.write_back = \
                 \"mqsim\"; \"program\" for a real write-back)",
            );
        }
    }
    if let Some(item) = items.take("CMT_Capacity") {
        let bytes = whole(&item)?;
        if is_ideal {
            m.param(&item, Fate::Mapped, &[], "unused with an ideal mapping table, as in MQSim");
        } else {
            m.set("cmt.capacity_bytes", bytes as i64, &origin(&item));
            m.param(&item, Fate::Mapped, &["cmt.capacity_bytes"], "entries of MQSim's size (cmt.entry_bytes = 0)");
        }
    }
    if let Some(item) = items.take("CMT_Sharing_Mode") {
        m.param(
            &item,
            Fate::Approximated,
            &[],
            "one table for all flows (MQSim's SHARED gives every flow its own table of the full size)",
        );
    }
    if let Some(item) = items.take("Address_Mapping") {
        match item.value.as_str() {
            "PAGE_LEVEL" => m.param(&item, Fate::Mapped, &[], "page-level mapping"),
            _ => m.param(&item, Fate::Approximated, &[], "ssdlab maps pages"),
        }
    }
    let dram = |items: &mut Items, key: &str| -> Result<Option<(Item, u64)>> {
        match items.take(key) {
            Some(item) => {
                let v = whole(&item)?;
                Ok(Some((item, v)))
            }
            None => Ok(None),
        }
    };
    if let Some(item) = items.take("Caching_Mechanism") {
        let (flush, note) = match item.value.as_str() {
            "ADVANCED" => ("cold-eager", "the first write of a page within a second goes to flash at once"),
            _ => ("evict", "write-back: dirty pages go to flash when evicted"),
        };
        m.set("cache.flush", flush, &origin(&item));
        m.set("cache.mode", "write", &origin(&item));
        m.param(
            &item,
            Fate::Approximated,
            &["cache.flush", "cache.mode"],
            format!("{note}; each flow's Device_Level_Data_Caching_Mode sets the mode"),
        );
    }
    if let Some((item, bytes)) = dram(items, "Data_Cache_Capacity")? {
        m.set("cache.capacity_bytes", bytes as i64, &origin(&item));
        m.param(&item, Fate::Mapped, &["cache.capacity_bytes"], "page-sized slots");
    }
    if let Some(item) = items.take("Data_Cache_Sharing_Mode") {
        m.param(&item, Fate::Approximated, &[], "one cache shared by all flows");
    }
    let trcd = dram(items, "Data_Cache_DRAM_tRCD")?;
    let tcl = dram(items, "Data_Cache_DRAM_tCL")?;
    if let (Some((a, rcd)), Some((b, cl))) = (&trcd, &tcl) {
        m.set("cache.dram_access_ns", (rcd + cl) as i64, &format!("tRCD + tCL ({name})"));
        for item in [a, b] {
            m.param(item, Fate::Mapped, &["cache.dram_access_ns"], "tRCD + tCL per DRAM transfer");
        }
    }
    let rate = dram(items, "Data_Cache_DRAM_Data_Rate")?;
    let burst = dram(items, "Data_Cache_DRAM_Data_Busrt_Size")?;
    if let (Some((a, mts)), Some((b, burst))) = (&rate, &burst) {
        // MQSim: (bytes / burst / 2) bursts of 1000 / rate ns.
        let per_byte = 1000.0 / (*mts).max(1) as f64 / (2.0 * (*burst).max(1) as f64);
        m.set("cache.dram_ns_per_byte", per_byte, &format!("1000 / rate / (2 x burst) ({name})"));
        for item in [a, b] {
            m.param(item, Fate::Mapped, &["cache.dram_ns_per_byte"], "MQSim's time per byte on its one DRAM channel");
        }
    }
    for (key, note) in [
        (
            "Data_Cache_DRAM_Row_Size",
            "one formula for every size (MQSim's above one row has quirks: docs/validation/mqsim.md)",
        ),
        ("Data_Cache_DRAM_tRP", "precharge is not charged"),
    ] {
        if let Some((item, _)) = dram(items, key)? {
            m.param(&item, Fate::Approximated, &[], note);
        }
    }
    for (item, _) in trcd.iter().chain(&tcl).chain(&rate).chain(&burst) {
        if !m.report.parameters.iter().any(|p| p.line == item.line && p.file == item.file) {
            m.param(
                item,
                Fate::Approximated,
                &[],
                "needs its partner (tRCD with tCL, rate with burst size); default kept",
            );
        }
    }

    // Host interface.
    if let Some(item) = items.take("Memory_Type") {
        if item.value != "FLASH" {
            bail!("{}:{}: Memory_Type: '{}': ssdlab simulates flash only", item.file, item.line, item.value);
        }
        m.param(&item, Fate::Mapped, &[], "");
    }
    let interface = items.take("HostInterface_Type");
    let sata = interface.as_ref().is_some_and(|i| i.value == "SATA");
    if let Some(item) = &interface {
        match item.value.as_str() {
            "NVME" => {
                m.set("link.command_bytes", 72i64, &origin(item));
                m.param(
                    item,
                    Fate::Approximated,
                    &["link.command_bytes"],
                    "commands (MQSim's 72-byte entry), data and completions cross the PCIe link; doorbells and \
                     command fetches are not modelled",
                )
            }
            "SATA" => m.param(
                item,
                Fate::Approximated,
                &["host.request_overhead_ns"],
                "SATA's processing delay is added to every request",
            ),
            other => {
                bail!("{}:{}: HostInterface_Type: unknown value '{other}' (MQSim: NVME, SATA)", item.file, item.line)
            }
        }
    }
    if let Some(item) = items.take("SATA_Processing_Delay") {
        let ns = whole(&item)?;
        if sata {
            m.set("host.request_overhead_ns", ns as i64, &origin(&item));
            m.param(&item, Fate::Approximated, &["host.request_overhead_ns"], "a fixed delay per request");
        } else {
            m.param(&item, Fate::Mapped, &[], "unused with NVMe, as in MQSim");
        }
    }
    if let Some(item) = items.take("IO_Queue_Depth") {
        let n = count(&item)?;
        m.set("host.queue_depth", n, &origin(&item));
        m.param(
            &item,
            Fate::Approximated,
            &["host.queue_depth"],
            "open loop: requests beyond this many outstanding wait in the host (the submission queue's size)",
        );
    }
    if let Some(item) = items.take("Queue_Fetch_Size") {
        let n = count(&item)?;
        m.set("host.queue_fetch_size", n, &origin(&item));
        m.param(
            &item,
            Fate::Approximated,
            &["host.queue_fetch_size"],
            "the device holds at most this many commands of a flow at a time, the rest wait in its submission \
             queue (host flows, as MQSim's); a scenario of one flow runs as the single workload, whose requests \
             the device takes as they arrive",
        );
    }
    if let Some(item) = items.take("PCIe_Lane_Bandwidth") {
        let gb = item.value.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0).ok_or_else(|| {
            anyhow!("{}:{}: PCIe_Lane_Bandwidth: '{}' is not a positive number", item.file, item.line, item.value)
        })?;
        m.set("link.lane_gb_per_s", gb, &origin(&item));
        m.param(&item, Fate::Mapped, &["link.lane_gb_per_s"], "");
    }
    if let Some(item) = items.take("PCIe_Lane_Count") {
        m.set("link.lanes", count(&item)? as i64, &origin(&item));
        m.param(&item, Fate::Mapped, &["link.lanes"], "128-byte packets with 28 bytes of overhead, as MQSim's");
    }
    let logging = items.take("Enable_ResponseTime_Logging");
    let logging_on = logging.as_ref().map(boolean).transpose()?.unwrap_or(false);
    if let Some(item) = &logging {
        m.param(item, Fate::Mapped, &[], if logging_on { "ssdlab's time series (--series)" } else { "off" });
    }
    if let Some(item) = items.take("ResponseTime_Logging_Period_Length") {
        let ns = whole(&item)?;
        if logging_on {
            m.set("output.series_interval_ns", ns as i64, &origin(&item));
            m.param(
                &item,
                Fate::Approximated,
                &["output.series_interval_ns"],
                "the time series interval (--series writes it)",
            );
        } else {
            m.param(&item, Fate::Mapped, &[], "unused: response-time logging is off");
        }
    }
    let preconditioning = match items.take("Enabled_Preconditioning") {
        Some(item) => {
            let on = boolean(&item)?;
            m.param(
                &item,
                Fate::Mapped,
                &["precondition.used_fraction"],
                if on {
                    "the workload's Initial_Occupancy_Percentage fills the drive"
                } else {
                    "off: the workload's Initial_Occupancy_Percentage is unused, as in MQSim"
                },
            );
            on
        }
        None => true,
    };
    Ok(preconditioning)
}
