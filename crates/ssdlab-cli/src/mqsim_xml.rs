//! `--mqsim-xml FILE`: the run's results in the shape of MQSim's result file (its
//! `Report_results_in_XML`: a `<MQSim_Results>` root, a `<Host>` with one
//! `<Host.IO_Flow>` per flow, each statistic a child element; times in µs truncated to
//! integers, rates per second), so that scripts written for MQSim read ssdlab's results.
//!
//! One flow per host flow (`[[flows]]`); the differences from MQSim's values are
//! documented in docs/import.md ("Results for MQSim scripts").

use anyhow::{Context, Result};
use ssdlab_core::stats::{OpSummary, Report};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file of scenario `k` of a several-scenario MQSim workload: `NAME_scenario_K.EXT`
/// (MQSim names its result files the same way).
pub fn scenario_path(path: &Path, k: usize) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}_scenario_{k}.{}", ext.to_string_lossy()),
        None => format!("{stem}_scenario_{k}"),
    };
    path.with_file_name(name)
}

/// MQSim's XmlWriter layout: an open tag at its depth in tabs, each value one tab deeper
/// plus a space.
struct Writer {
    out: String,
    depth: usize,
    open: Vec<&'static str>,
}

impl Writer {
    fn open(&mut self, tag: &'static str) {
        self.out.push_str(&"\t".repeat(self.depth));
        self.out.push_str(&format!("<{tag}>\n"));
        self.open.push(tag);
        self.depth += 1;
    }

    fn value(&mut self, name: &str, value: impl std::fmt::Display) {
        self.out.push_str(&"\t".repeat(self.depth + 1));
        self.out.push_str(&format!(" <{name}>{value}</{name}>\n"));
    }

    fn close(&mut self) {
        self.depth -= 1;
        let tag = self.open.pop().expect("an open tag");
        self.out.push_str(&"\t".repeat(self.depth));
        self.out.push_str(&format!("</{tag}>\n"));
    }
}

/// MQSim prints doubles with `std::to_string` (six decimals).
fn real(x: f64) -> String {
    format!("{x:.6}")
}

/// Nanoseconds as MQSim's integer microseconds (truncated).
fn us(ns: f64) -> u64 {
    (ns / 1000.0) as u64
}

/// The text of the result file for `report`: one `Host.IO_Flow` per host flow
/// (`[[flows]]`), or one for the single workload. Rates are per second of the run's
/// simulated time, as MQSim's are per second of its whole simulation.
pub fn render(report: &Report) -> String {
    let mut w = Writer { out: String::from("<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n"), depth: 0, open: vec![] };
    w.open("MQSim_Results");
    w.open("Host");
    let seconds = report.simulated_ns as f64 / 1e9;
    if report.flows.is_empty() {
        flow(&mut w, &format!("IO_Flow.{}", report.workload), (&report.all, &report.read, &report.write), seconds);
    }
    for f in &report.flows {
        flow(&mut w, &format!("IO_Flow.{}", f.name), (&f.all, &f.read, &f.write), seconds);
    }
    w.close();
    w.close();
    w.out
}

fn flow(w: &mut Writer, name: &str, (all, read, write): (&OpSummary, &OpSummary, &OpSummary), seconds: f64) {
    let rate = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
    w.open("Host.IO_Flow");
    w.value("Name", name);
    w.value("Request_Count", all.requests);
    w.value("Read_Request_Count", read.requests);
    w.value("Write_Request_Count", write.requests);
    w.value("IOPS", real(rate(all.requests as f64)));
    w.value("IOPS_Read", real(rate(read.requests as f64)));
    w.value("IOPS_Write", real(rate(write.requests as f64)));
    w.value("Bytes_Transferred", real(all.bytes as f64));
    w.value("Bytes_Transferred_Read", real(read.bytes as f64));
    w.value("Bytes_Transferred_Write", real(write.bytes as f64));
    w.value("Bandwidth", real(rate(all.bytes as f64)));
    w.value("Bandwidth_Read", real(rate(read.bytes as f64)));
    w.value("Bandwidth_Write", real(rate(write.bytes as f64)));
    // ssdlab measures each request from its arrival: with a host queue limit that
    // includes the wait for a slot, so device response time and end-to-end delay agree.
    let l = &all.latency_ns;
    for prefix in ["Device_Response_Time", "End_to_End_Request_Delay"] {
        w.value(prefix, us(l.mean));
        w.value(&format!("Min_{prefix}"), us(l.min as f64));
        w.value(&format!("Max_{prefix}"), us(l.max as f64));
    }
    w.close();
}

pub fn write(file: std::fs::File, path: &Path, report: &Report) -> Result<()> {
    let mut file = file;
    file.write_all(render(report).as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_files_are_named_like_mqsims() {
        assert_eq!(scenario_path(Path::new("out/res.xml"), 2), PathBuf::from("out/res_scenario_2.xml"));
        assert_eq!(scenario_path(Path::new("res"), 10), PathBuf::from("res_scenario_10"));
    }
}
