//! Streaming readers, one per text trace format, each a [`RecordSource`](crate::RecordSource).
//!
//! This module owns the parsing of trace *text*; opening files, decompression and format
//! names live in [`crate::open`].
//!
//! Conventions shared by every reader (implemented once in the private `line` module):
//!
//! - Input is read line by line through a [`BufRead`](std::io::BufRead); a file is never
//!   loaded whole. A line longer than [`MAX_LINE_BYTES`] is reported as an error and
//!   skipped without being buffered.
//! - LF and CRLF line endings are accepted, as is a UTF-8 byte-order mark at the start of
//!   the first line. The last line needs no terminator.
//! - Blank lines (empty or only whitespace) are skipped and counted in
//!   [`skipped()`](crate::RecordSource::skipped). Lines whose first non-blank character is
//!   `#` are comments: skipped and *not* counted.
//! - Numbers are unsigned decimal integers (no sign, no fraction, no exponent).
//! - Every malformed line yields one `Err(TraceError)` carrying the file name, the 1-based
//!   line number, the offending field (`"time"`, `"device"`, `"offset"`, `"size"`, `"op"`;
//!   `""` when the line as a whole is wrong, e.g. too many fields) and the bad text quoted.
//! - **After a malformed line the reader continues** with the next line, so a caller may
//!   either stop at the first error or count errors and go on. An I/O error (including
//!   corrupt compressed data) is reported once and then ends the stream.
//! - A zero-size request, and a request whose end (offset + size) does not fit in 64 bits,
//!   are errors on field `"size"`.

mod line;
pub mod mqsim;
pub mod msr;
pub mod ssdsim;

pub use line::MAX_LINE_BYTES;
pub use mqsim::MqsimReader;
pub use msr::MsrReader;
pub use ssdsim::SsdsimReader;

pub(crate) use line::{DataLine, LineReader};
