//! [`TraceSummary`]: counts and extents of a record stream, gathered in one pass.
//!
//! The simulator uses it for address scaling (`max_end_bytes`) and for the run summary;
//! tests use it to check readers against the trace catalog.

use crate::{Op, Record, RecordSource, TraceError};

/// What one pass over a record stream found. Empty streams leave the `Option`s `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceSummary {
    /// The source's [`format_name`](RecordSource::format_name) (`""` when built by hand).
    pub format: &'static str,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Sum of all request sizes (saturating).
    pub total_bytes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Largest `offset + size`: the address span a device must cover to hold the trace.
    pub max_end_bytes: u64,
    /// Smallest offset.
    pub min_offset_bytes: Option<u64>,
    /// Arrival time of the first record in stream order.
    pub first_arrival_ns: Option<u64>,
    /// Arrival time of the last record in stream order.
    pub last_arrival_ns: Option<u64>,
    /// Largest device number seen.
    pub max_device: Option<u32>,
    /// The source's [`skipped`](RecordSource::skipped) count at the end of the pass.
    pub skipped: u64,
}

impl TraceSummary {
    /// Accounts for one record.
    pub fn add(&mut self, r: &Record) {
        self.requests += 1;
        match r.op {
            Op::Read => {
                self.reads += 1;
                self.read_bytes = self.read_bytes.saturating_add(r.size_bytes);
            }
            Op::Write | Op::ZoneAppend => {
                self.writes += 1;
                self.write_bytes = self.write_bytes.saturating_add(r.size_bytes);
            }
            // (A sanitise discards its range as a trim does.)
            Op::Trim | Op::Sanitize | Op::ZoneManagement(_) => self.trims += 1,
        }
        self.total_bytes = self.total_bytes.saturating_add(r.size_bytes);
        self.max_end_bytes = self.max_end_bytes.max(r.offset_bytes.saturating_add(r.size_bytes));
        self.min_offset_bytes = Some(self.min_offset_bytes.map_or(r.offset_bytes, |m| m.min(r.offset_bytes)));
        self.first_arrival_ns.get_or_insert(r.arrival_ns);
        self.last_arrival_ns = Some(r.arrival_ns);
        self.max_device = Some(self.max_device.map_or(r.device, |d| d.max(r.device)));
    }

    /// Reads as a fraction of all requests (0 for an empty stream).
    pub fn read_share(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.reads as f64 / self.requests as f64
        }
    }

    /// Mean request size in bytes (0 for an empty stream).
    pub fn mean_size_bytes(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.total_bytes as f64 / self.requests as f64
        }
    }

    /// Last minus first arrival time (saturating at 0 if the clock goes backwards).
    pub fn duration_ns(&self) -> Option<u64> {
        Some(self.last_arrival_ns?.saturating_sub(self.first_arrival_ns?))
    }
}

/// Drains `source` into a summary. Stops at, and returns, the first error.
pub fn summarize<S: RecordSource + ?Sized>(source: &mut S) -> Result<TraceSummary, TraceError> {
    let mut summary = TraceSummary { format: source.format_name(), ..TraceSummary::default() };
    for item in &mut *source {
        summary.add(&item?);
    }
    summary.skipped = source.skipped();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(arrival_ns: u64, offset_bytes: u64, size_bytes: u64, op: Op) -> Record {
        Record { arrival_ns, device: 2, offset_bytes, size_bytes, op, hint: None }
    }

    #[test]
    fn accumulates() {
        let mut s = TraceSummary::default();
        assert_eq!(s.read_share(), 0.0);
        assert_eq!(s.duration_ns(), None);
        s.add(&rec(10, 4096, 512, Op::Read));
        s.add(&rec(5, 0, 1024, Op::Write));
        s.add(&rec(30, 8192, 4096, Op::Trim));
        assert_eq!((s.requests, s.reads, s.writes, s.trims), (3, 1, 1, 1));
        assert_eq!((s.total_bytes, s.read_bytes, s.write_bytes), (5632, 512, 1024));
        assert_eq!(s.max_end_bytes, 12288);
        assert_eq!(s.min_offset_bytes, Some(0));
        assert_eq!((s.first_arrival_ns, s.last_arrival_ns), (Some(10), Some(30)));
        assert_eq!(s.duration_ns(), Some(20));
        assert_eq!(s.max_device, Some(2));
        assert!((s.read_share() - 1.0 / 3.0).abs() < 1e-12);
    }
}
