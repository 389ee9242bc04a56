//! Streaming readers, one per text trace format, each a [`RecordSource`](crate::RecordSource).
//!
//! This module owns the parsing of trace *text*; opening files, decompression and format
//! names live in [`crate::open`]. Each reader's module documents its columns, units,
//! which device/volume column it honours and its quirks:
//!
//! | format | module | device column | time |
//! |---|---|---|---|
//! | `ssdsim` | [`ssdsim`] | device | ns |
//! | `mqsim` | [`mqsim`] | device | ns |
//! | `msr` | [`msr`] | DiskNumber | FILETIME 100-ns ticks |
//! | `spc` | [`spc`] | ASU | s (decimal) |
//! | `disksim` | [`disksim`] | devno | ms (decimal) |
//! | `flashsim` | [`flashsim`] | dev | ms (decimal) |
//! | `fiu` | [`fiu`] | major, minor | ns |
//! | `systor` | [`systor`] | LUN | Unix s (decimal) |
//! | `blkparse` | [`blkparse`] | maj,min | s (decimal) |
//! | `fio-v2`, `fio-v3` | [`fio_iolog`] | file name (numbered) | v2: `wait` µs; v3: µs |
//! | `tencent` | [`tencent`] | VolumeID | Unix s |
//! | `alibaba` | [`alibaba`] | device_id | Unix µs |
//! | `arc` | [`arc`] | none (0) | none (all 0) |
//! | `bytes5` | [`bytes5`] | device | ms (decimal) |
//!
//! Conventions shared by every reader (implemented once in the private `line` and
//! `driver` modules):
//!
//! - Input is read line by line through a [`BufRead`](std::io::BufRead); a file is never
//!   loaded whole. A line longer than [`MAX_LINE_BYTES`] is reported as an error and
//!   skipped without being buffered.
//! - LF and CRLF line endings are accepted, as is a UTF-8 byte-order mark at the start of
//!   the first line. The last line needs no terminator.
//! - Blank lines (empty or only whitespace) are skipped and counted in
//!   [`skipped()`](crate::RecordSource::skipped). Lines whose first non-blank character is
//!   `#` are comments: skipped and *not* counted. Lines skipped on purpose (headers,
//!   non-issue blkparse events, fio file actions...) are counted too, and
//!   [`skip_reasons()`](crate::RecordSource::skip_reasons) breaks the count down.
//! - [`TraceOptions::time_unit`](crate::TraceOptions::time_unit) (each reader's
//!   `time_unit(Some(unit))`) replaces the format's own time unit: the time column is then
//!   read as a decimal `int[.frac]` of that unit, in every format with a time column.
//! - A line the format rejects that holds binary data (NUL or control bytes, invalid
//!   UTF-8) is reported as `binary data, not a line of text`, not by its field count.
//! - Integers are unsigned decimal (no sign, no exponent); time columns documented as
//!   decimal accept `int[.frac]` and are converted exactly (no floating point), dropping
//!   digits below 1 ns.
//! - Every malformed line yields one `Err(TraceError)` carrying the file name, the 1-based
//!   line number, the offending field (`"time"`, `"device"`, `"offset"`, `"size"`, `"op"`,
//!   format-specific names such as `"rwbs"` or `"action"`; `""` when the line as a whole
//!   is wrong, e.g. too many fields) and the bad text quoted.
//! - **After a malformed line the reader continues** with the next line, so a caller may
//!   either stop at the first error or count errors and go on. An I/O error (including
//!   corrupt compressed data) is reported once and then ends the stream.
//! - A zero-size request, and a request whose end (offset + size) does not fit in 64 bits,
//!   are errors on field `"size"`.
//! - **Lenient mode** (each reader's `lenient(true)`, or
//!   [`TraceOptions::lenient`](crate::TraceOptions)): malformed lines and zero-size
//!   requests are skipped and counted ([`reason::MALFORMED`], [`reason::ZERO_SIZE`])
//!   instead of being errors. I/O errors still end the stream with an error.
//! - Readers never reorder, rebase, filter by device or check alignment: see
//!   [`TraceOptions`](crate::TraceOptions) for the first three; alignment is the engine's.

pub mod alibaba;
pub mod arc;
pub mod blkparse;
pub mod bytes5;
pub mod disksim;
mod driver;
pub mod fio_iolog;
pub mod fiu;
mod five_columns;
pub mod flashsim;
mod line;
pub mod mqsim;
pub mod msr;
pub mod spc;
pub mod ssdsim;
pub mod systor;
pub mod tencent;

pub use alibaba::AlibabaReader;
pub use arc::ArcReader;
pub use blkparse::BlkparseReader;
pub use bytes5::Bytes5Reader;
pub use disksim::DisksimReader;
pub use driver::reason;
pub use fio_iolog::FioIologReader;
pub use fiu::FiuReader;
pub use flashsim::FlashsimReader;
pub use line::{device_number, MAX_LINE_BYTES};
pub use mqsim::{write_mqsim, MqsimReader};
pub use msr::MsrReader;
pub use spc::SpcReader;
pub use ssdsim::SsdsimReader;
pub use systor::SystorReader;
pub use tencent::TencentReader;

pub(crate) use line::{looks_like_header as line_looks_like_header, LineReader};
