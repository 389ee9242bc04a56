//! Streaming block I/O trace readers and synthetic workload generators for ssdlab.
//!
//! Everything here produces [`Record`]s through the [`RecordSource`] trait, one record at
//! a time, so memory never grows with the length of a trace.
//!
//! - [`record`]: the record type, the error type and the source trait (shared with the core).
//! - [`readers`]: one streaming reader per text trace format (SSDSim, MQSim, MSR Cambridge,
//!   SPC, DiskSim, FlashSim, FIU, SYSTOR '17, blkparse, fio iolog v2/v3, Tencent CBS,
//!   Alibaba, ARC, the byte-unit five-column layout).
//! - [`open`]: opening a trace file by path: transparent decompression (gzip, zstd, bzip2,
//!   xz by magic bytes), format names, [`open_trace_with`] and the one-pass summaries.
//! - [`detect`]: format auto-detection from the first lines ([`detect_format`]).
//! - [`options`]: [`TraceOptions`] (device filter, lenient parsing, sort window, time window).
//! - [`prepass`]: the pass a run makes before simulating ([`Prepass`]: span, gaps, order,
//!   devices, skips).
//! - [`summary`]: [`TraceSummary`], the counts and extents of a record stream.
//! - [`stats`]: [`TraceStats`], the full statistics behind `ssdlab trace-stats`.
//! - [`synthetic`]: the seeded synthetic workload generator ([`SyntheticSpec`]) and the
//!   address distributions (uniform, Zipf, Pareto, normal, zoned).
//! - [`fio`]: fio-style job files ([`FioJob`]) and their generator ([`FioSource`]).

pub mod detect;
pub mod distribution;
pub mod fio;
pub mod mix;
pub mod open;
pub mod options;
pub mod prepass;
pub mod readers;
pub mod record;
pub mod stats;
pub mod summary;
pub mod synthetic;
pub mod units;
pub mod zoned;

pub use detect::detect_format;
pub use distribution::{AddressDistribution, SlotSampler, Zone};
pub use fio::{FioError, FioJob, FioSource, RwMode};
pub use mix::{place_in_range, MixSource, MixSpec, Reopen};
pub use open::{
    detect_compression, open_decompressed, open_trace, open_trace_with, scan_span, scan_span_with, scan_stats,
    validate_options_for, Compression, Format,
};
pub use options::{merge_skip_reasons, parse_device_selector, parse_time_window, SkipKind, TimeUnit, TraceOptions};
pub use prepass::{prepass, prepass_keeping, Gap, KeptRecords, Prepass};
pub use readers::{
    device_number, write_mqsim, AlibabaReader, ArcReader, BlkparseReader, Bytes5Reader, DisksimReader, FioIologReader,
    FiuReader, FlashsimReader, MqsimReader, MsrReader, SpcReader, SsdsimReader, SystorReader, TencentReader,
    MAX_LINE_BYTES,
};
pub use record::*;
pub use stats::{Footprint, GapSummary, TraceStats};
pub use summary::{summarize, TraceSummary};
pub use synthetic::{Pattern, SpecError, SyntheticSource, SyntheticSpec};
