//! Streaming block I/O trace readers and synthetic workload generators for ssdlab.
//!
//! Everything here produces [`Record`]s through the [`RecordSource`] trait, one record at
//! a time, so memory never grows with the length of a trace.
//!
//! - [`record`]: the record type, the error type and the source trait (shared with the core).
//! - [`readers`]: one streaming reader per text trace format (SSDSim, MQSim, MSR Cambridge).
//! - [`open`]: opening a trace file by path: transparent decompression, format names,
//!   format detection and a one-pass [`scan_span`] summary.
//! - [`summary`]: [`TraceSummary`], the counts and extents of a record stream.
//! - [`synthetic`]: the seeded synthetic workload generator ([`SyntheticSpec`]).

pub mod open;
pub mod readers;
pub mod record;
pub mod summary;
pub mod synthetic;

pub use open::{detect_format, open_decompressed, open_trace, scan_span, Compression, Format};
pub use readers::{MqsimReader, MsrReader, SsdsimReader, MAX_LINE_BYTES};
pub use record::*;
pub use summary::{summarize, TraceSummary};
pub use synthetic::{AddressDistribution, Pattern, SpecError, SyntheticSource, SyntheticSpec};
