//! An in-memory record source, for tests, examples and library users who build
//! workloads in code.

use ssdlab_trace::{Record, RecordSource, TraceError};

pub struct VecSource {
    records: std::vec::IntoIter<Record>,
}

impl VecSource {
    pub fn new(records: Vec<Record>) -> Self {
        VecSource { records: records.into_iter() }
    }
}

impl Iterator for VecSource {
    type Item = Result<Record, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.records.next().map(Ok)
    }
}

impl RecordSource for VecSource {
    fn format_name(&self) -> &'static str {
        "in-memory"
    }
}
