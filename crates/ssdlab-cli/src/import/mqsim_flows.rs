//! An MQSim scenario's flows as ssdlab's `[[flows]]` (the multi-queue host): each flow its
//! own synthetic workload or trace, queue depth and priority class, and its own logical
//! range as MQSim lays them out — a flow gets, over each plane it may use, that plane's
//! logical capacity divided by the number of flows using the plane, and the flows follow
//! one another in the logical space in their order — confined to its channels, chips,
//! dies and planes when its `*_IDs` elements name only some (`flows[k].channels` ...).

use super::mqsim_workload::{common, priority, queue_depth, synthetic, trace_flow, Context, Flow, PARTS};
use super::{Assign, Fate, Items, Mapping};
use anyhow::Result;
use std::path::Path;

/// Parameters ssdlab has once per device: the first flow's value applies.
const DEVICE_WIDE: [&str; 2] = ["Device_Level_Data_Caching_Mode", "Initial_Occupancy_Percentage"];

/// Sets `[[flows]]` in `m` from the scenario's `flows`, confined to `lists` (each flow's
/// channels, chips, dies and planes from `mqsim_workload::pinned`; empty = all).
pub(super) fn flows(
    flows: &mut [Flow],
    lists: &[[Vec<u32>; 4]],
    m: &mut Mapping,
    workload: &Path,
    ctx: &Context,
) -> Result<()> {
    let c = ctx.device;
    let g = &c.geometry;
    // MQSim's address partitioning: plane p's logical capacity is shared equally by the
    // flows that use it.
    let refs: Vec<[&[u32]; 4]> = lists.iter().map(|l| [&l[0][..], &l[1][..], &l[2][..], &l[3][..]]).collect();
    let ranges = ssdlab_core::config::partitioned_sizes(&refs, g, c.logical_bytes());
    let page = u64::from(g.page_size_bytes).max(1);
    let first_device_wide: Vec<(String, String)> = flows[0]
        .items
        .all()
        .filter(|i| DEVICE_WIDE.contains(&i.key.as_str()))
        .map(|i| (i.key.clone(), i.value.clone()))
        .collect();
    let closed = |items: &Items| items.all().any(|i| i.key == "Synthetic_Generator_Type" && i.value == "QUEUE_DEPTH");
    let count = flows.len();
    let mut offset = 0u64;
    for (k, flow) in flows.iter_mut().enumerate() {
        let prefix = format!("flows[{k}]");
        let mut fm = Mapping::default();
        let size = ranges[k];
        let layout = format!(
            "flow {} of {count}: bytes {offset}..{} of the logical space (MQSim's partitioning: each plane's \
             capacity shared by the flows that use it)",
            k + 1,
            offset + size
        );
        fm.set(&format!("{prefix}.offset_bytes"), offset as i64, &layout);
        fm.set(&format!("{prefix}.size_bytes"), size as i64, &layout);
        for (d, (element, key, what)) in PARTS.into_iter().enumerate() {
            let Some(item) = flow.items.take(element) else { continue };
            if lists[k][d].is_empty() {
                fm.param(&item, Fate::Mapped, &[], format!("every {what} of the device"));
            } else {
                let ids: Vec<toml::Value> = lists[k][d].iter().map(|&id| toml::Value::Integer(i64::from(id))).collect();
                let flow_key = format!("{prefix}.{key}");
                fm.set(&flow_key, toml::Value::Array(ids), &super::origin(&item));
                fm.param(
                    &item,
                    Fate::Mapped,
                    &[flow_key.as_str()],
                    format!("the flow's data is placed on these {what}s only (within them as ftl.plane_allocation places it)"),
                );
            }
        }
        if k == 0 {
            common(&mut flow.items, &mut fm, ctx)?;
        } else {
            for key in DEVICE_WIDE {
                if let Some(item) = flow.items.take(key) {
                    let first = first_device_wide.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
                    if first == Some(item.value.as_str()) {
                        fm.param(&item, Fate::Mapped, &[], "as flows[0]'s (one setting for the device in ssdlab)");
                    } else {
                        fm.param(
                            &item,
                            Fate::Approximated,
                            &[],
                            format!(
                                "ssdlab has one setting for the device: flows[0]'s ({}) applies to every flow",
                                first.unwrap_or("its default")
                            ),
                        );
                    }
                }
            }
        }
        if let Some(item) = flow.items.take("Priority_Class") {
            let class = priority(&item)?;
            let key = format!("{prefix}.priority");
            fm.set(&key, class, &super::origin(&item));
            fm.param(&item, Fate::Mapped, &[key.as_str()], "the flow's class in the dies' arbitration ([arbitration])");
        }
        if flow.trace {
            let t = trace_flow(&mut flow.items, &mut fm, workload, ctx)?;
            // Absolute: the written config may be run from another folder.
            let path = std::fs::canonicalize(&t.path).unwrap_or(t.path.clone());
            fm.set(&format!("{prefix}.trace"), path.display().to_string(), "File_Path");
            fm.set(&format!("{prefix}.format"), "mqsim", "MQSim's ASCII trace format");
            fm.set(&format!("{prefix}.time_unit"), t.time_unit.name(), "Time_Unit (MQSim's default: ns)");
            if t.percent < 100 {
                fm.set(&format!("{prefix}.replay_percent"), i64::from(t.percent), "Percentage_To_Be_Executed");
            }
            for p in &mut fm.report.parameters {
                let key = match p.source.as_str() {
                    "File_Path" => "trace",
                    "Time_Unit" => "time_unit",
                    "Percentage_To_Be_Executed" => "replay_percent",
                    _ => continue,
                };
                p.ssdlab = vec![format!("{prefix}.{key}")];
            }
        } else {
            let depth = if closed(&flow.items) { queue_depth(&flow.items)? } else { 0 };
            synthetic(&mut flow.items, &mut fm, ctx, depth)?;
        }
        let empty = Items::new(&flow.items.file);
        let items = std::mem::replace(&mut flow.items, empty);
        items.finish(&mut fm, &super::mqsim_workload::FLOW, |_| false)?;
        // The single-workload keys the flow's parts set, as the flow's own.
        let rename = |key: &str| -> Option<String> {
            match key {
                "host.replay" => None,
                "host.queue_depth" => Some(format!("{prefix}.queue_depth")),
                "host.runs" => Some(format!("{prefix}.runs")),
                "host.stop_ns" => Some(format!("{prefix}.stop_ns")),
                "precondition.working_set_fraction" => Some(format!("{prefix}.synthetic.address_space_bytes")),
                _ => Some(match key.strip_prefix("workload.") {
                    Some(rest) => format!("{prefix}.synthetic.{rest}"),
                    None => key.to_string(),
                }),
            }
        };
        for a in fm.assigns {
            let Some(key) = rename(&a.key) else { continue };
            let value = if a.key == "precondition.working_set_fraction" {
                // A share of the flow's own range (MQSim's working set is the flow's).
                let share = a.value.as_float().unwrap_or(1.0);
                toml::Value::Integer(((size as f64 * share / page as f64).floor() as u64 * page) as i64)
            } else {
                a.value
            };
            m.set(&key, value, &a.from);
        }
        for mut p in fm.report.parameters {
            if p.ssdlab.iter().any(|k| k == "precondition.working_set_fraction") {
                p.note = "requests address the first this share of the flow's logical range".into();
            }
            p.ssdlab = p.ssdlab.iter().filter_map(|key| rename(key)).collect();
            p.source = format!("flows[{k}] (line {}): {}", flow.line, p.source);
            m.report.parameters.push(p);
        }
        m.report.warnings.extend(fm.report.warnings);
        m.report.typos.extend(fm.report.typos);
        offset += size;
    }
    // A closed-loop synthetic flow's working set may not be set: then its whole range.
    for (k, &range) in ranges.iter().enumerate() {
        let key = format!("flows[{k}].synthetic.address_space_bytes");
        let synthetic = m.assigns.iter().any(|a| a.key.starts_with(&format!("flows[{k}].synthetic.")));
        if synthetic && !m.assigns.iter().any(|a: &Assign| a.key == key) {
            m.set(&key, range as i64, "the flow's logical range");
        }
    }
    Ok(())
}
