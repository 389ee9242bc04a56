//! The one record type every workload source yields, and the error every reader reports.

use std::fmt;

/// What a host request asks of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Read,
    Write,
    /// Discard / TRIM / deallocate: the range's data is no longer needed.
    Trim,
    /// Sanitise the range (thesis §6.2.2, scan-based scrubbing): its data is discarded and
    /// every copy the device still holds of it, stale ones included, is destroyed. No
    /// trace format expresses it; workloads built in code and `scrub.sanitize_*` do.
    Sanitize,
    /// NVMe Zone Append (Zoned Namespace Command Set): the record's offset is the zone's
    /// first byte (its ZSLBA); the device picks where in the zone the data goes, at the
    /// zone's write pointer, and returns that address. Only a zoned drive accepts it.
    ZoneAppend,
    /// An NVMe Zone Management Send action on the zone starting at the record's offset
    /// (its ZSLBA); the size is ignored. Only a zoned drive accepts it.
    ZoneManagement(ZoneAction),
}

/// A Zone Management Send action (NVMe ZNS "Zone Send Action").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ZoneAction {
    Open,
    Close,
    Finish,
    Reset,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Sanitize => "sanitize",
            Op::ZoneAppend => "zone-append",
            Op::ZoneManagement(ZoneAction::Open) => "zone-open",
            Op::ZoneManagement(ZoneAction::Close) => "zone-close",
            Op::ZoneManagement(ZoneAction::Finish) => "zone-finish",
            Op::ZoneManagement(ZoneAction::Reset) => "zone-reset",
        }
    }
}

/// One host I/O request as read from a trace or made by a generator.
///
/// Units are normalised by the reader: time in nanoseconds from the trace's own origin
/// (readers do not rebase; the host model does), offsets and sizes in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Arrival time in ns on the trace's clock. Closed-loop replay ignores it.
    pub arrival_ns: u64,
    /// Device / volume / ASU number as given by the trace (0 when the format has none).
    pub device: u32,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub op: Op,
    /// Optional access-latency hint or priority (NVMe "Access Latency", thesis priority
    /// bit): smaller means more urgent. `None` when the source carries no hint.
    pub hint: Option<u8>,
}

/// A malformed input, located precisely enough for a user to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// File path as the user gave it (or a description such as `<synthetic>`).
    pub file: String,
    /// 1-based line number; 0 when the error is not tied to a line (e.g. cannot open).
    pub line: u64,
    /// Name of the offending field (`"size"`, `"op"`, ...) or `""` for whole-line errors.
    pub field: &'static str,
    pub message: String,
}

impl TraceError {
    pub fn new(file: &str, line: u64, field: &'static str, message: impl Into<String>) -> Self {
        TraceError { file: file.to_string(), line, field, message: message.into() }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.field.is_empty()) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (line, true) => write!(f, "{}:{}: {}", self.file, line, self.message),
            (line, false) => write!(f, "{}:{}: field '{}': {}", self.file, line, self.field, self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// Every workload source — trace reader or synthetic generator — is a stream of records.
/// Sources are pulled one record at a time so memory never grows with trace length.
pub trait RecordSource: Iterator<Item = Result<Record, TraceError>> + Send {
    /// Short name of the format or generator, printed in the summary (e.g. `"msr"`).
    fn format_name(&self) -> &'static str;
    /// Lines or items skipped on purpose (e.g. trailing empty rows), reported in the summary.
    fn skipped(&self) -> u64 {
        0
    }
    /// [`skipped`](RecordSource::skipped) broken down by reason (`("blank line", 3)`, ...),
    /// in order of first occurrence. The counts add up to `skipped()`. Sources that keep no
    /// breakdown return an empty list.
    fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// A new, unbounded stream of requests from the same distribution as this generator's
    /// (same op mix, sizes and address distribution, a skewed distribution's hot set
    /// included), drawn from a different random stream keyed by `stream_seed`: what
    /// steady-state preconditioning writes so that the measured run meets the steady
    /// state of the distribution, not of its exact addresses. Arrival times are not
    /// meaningful. `None` (the default) for sources that are not generators (traces).
    fn reseeded(&self, stream_seed: u64) -> Option<Box<dyn RecordSource>> {
        let _ = stream_seed;
        None
    }
}

impl<S: RecordSource + ?Sized> RecordSource for Box<S> {
    fn format_name(&self) -> &'static str {
        (**self).format_name()
    }
    fn skipped(&self) -> u64 {
        (**self).skipped()
    }
    fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
        (**self).skip_reasons()
    }
    fn reseeded(&self, stream_seed: u64) -> Option<Box<dyn RecordSource>> {
        (**self).reseeded(stream_seed)
    }
}

/// The seed of a generator's fresh stream (`RecordSource::reseeded`): its own seed mixed
/// with the stream's (splitmix64 finaliser), so that neither alone decides it.
pub fn stream_seed(own_seed: u64, stream_seed: u64) -> u64 {
    let mut z = own_seed.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ stream_seed.rotate_left(29);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How much later a trace's next replay starts than this one (trace time): one mean
/// inter-arrival gap after its last record, i.e. its span plus that gap, for a replay of
/// `records` records stamped `first_ns ..= last_ns` (multi-run replays, MQSim's
/// `Relay_Count`).
pub fn replay_period_ns(first_ns: u64, last_ns: u64, records: u64) -> u64 {
    let span = last_ns.saturating_sub(first_ns);
    let gap = if records > 1 { span / (records - 1) } else { 0 };
    span + gap
}
