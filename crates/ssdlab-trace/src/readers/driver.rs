//! The loop every reader shares: pull the next data line, let the format parse it, and
//! either yield a record, skip the line with a reason, or report an error — or, in lenient
//! mode, skip a malformed line and count it instead.

use super::line::{looks_binary, DataLine, LineReader};
use crate::{Record, TimeUnit, TraceError};
use std::io::BufRead;

/// Why lines were skipped; the keys of [`RecordSource::skip_reasons`](crate::RecordSource::skip_reasons).
pub mod reason {
    /// An empty or all-whitespace line.
    pub const BLANK: &str = "blank line";
    /// A column header line.
    pub const HEADER: &str = "header line";
    /// A CSV row whose fields are all empty (`,,,,,,`).
    pub const EMPTY_ROW: &str = "all-empty row";
    /// A malformed line skipped in lenient mode.
    pub const MALFORMED: &str = "malformed line (lenient)";
    /// A zero-size request skipped in lenient mode.
    pub const ZERO_SIZE: &str = "zero-size request (lenient)";
}

/// What a format made of one data line.
pub(crate) enum Parsed {
    Record(Record),
    /// Not a request, on purpose (header, non-issue event, file action...): skipped and
    /// counted under this reason.
    Skip(&'static str),
}

/// Lines plus the skip bookkeeping and the lenient switch.
pub(crate) struct Driver<R> {
    lines: LineReader<R>,
    lenient: bool,
    blank: u64,
    /// Skip counts by reason, in order of first occurrence (a handful of entries).
    counts: Vec<(&'static str, u64)>,
}

impl<R: BufRead> Driver<R> {
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        Driver { lines: LineReader::new(reader, file), lenient: false, blank: 0, counts: Vec::new() }
    }

    pub fn set_lenient(&mut self, on: bool) {
        self.lenient = on;
    }

    pub fn set_time_unit(&mut self, unit: Option<TimeUnit>) {
        self.lines.time_unit = unit;
    }

    /// Counts one skipped line under `reason`.
    pub fn skip(&mut self, reason: &'static str) {
        match self.counts.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((reason, 1)),
        }
    }

    /// The next record: data lines are handed to `parse` until one yields a record or an
    /// error (which lenient mode skips and counts, unless it is an I/O error).
    pub fn next_record(
        &mut self,
        mut parse: impl FnMut(&DataLine<'_>) -> Result<Parsed, TraceError>,
    ) -> Option<Result<Record, TraceError>> {
        loop {
            let parsed = match self.lines.next_data_line(&mut self.blank)? {
                // A line the format rejects because it is binary data says so, instead of
                // reporting its field count or a garbled number.
                Ok(l) => parse(&l).map_err(|e| if looks_binary(l.text) { binary_error(&l) } else { e }),
                Err(e) => Err(e),
            };
            match parsed {
                Ok(Parsed::Record(r)) => return Some(Ok(r)),
                Ok(Parsed::Skip(why)) => self.skip(why),
                Err(e) if self.lenient && !self.lines.failed() => {
                    let zero = e.field == "size" && e.message.starts_with("zero-size");
                    self.skip(if zero { reason::ZERO_SIZE } else { reason::MALFORMED });
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// [`next_record`](Driver::next_record) with a fast path first: a line `fast` makes a
    /// record of is that record (`fast` must accept only lines `parse` gives the same
    /// record for, and no line `parse` skips).
    pub fn next_record_fast(
        &mut self,
        fast: fn(&[u8]) -> Option<Record>,
        parse: impl FnMut(&DataLine<'_>) -> Result<Parsed, TraceError>,
    ) -> Option<Result<Record, TraceError>> {
        if let Some(r) = self.lines.next_fast(fast) {
            return Some(Ok(r));
        }
        self.next_record(parse)
    }

    /// Every line skipped so far (blank lines included).
    pub fn skipped(&self) -> u64 {
        self.blank + self.counts.iter().map(|(_, n)| n).sum::<u64>()
    }

    /// The skip counts by reason, blank lines first.
    pub fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
        let blank = (self.blank > 0).then_some((reason::BLANK, self.blank));
        blank.into_iter().chain(self.counts.iter().copied()).collect()
    }
}

fn binary_error(l: &DataLine<'_>) -> TraceError {
    l.error(
        "",
        "binary data, not a line of text (NUL or control bytes, or invalid UTF-8); this reader needs a text \
         trace, plain or gzip / zstd / bzip2 / xz-compressed",
    )
}

/// `lenient()`, `RecordSource` and `Iterator` for a reader struct with a `d: Driver<R>`
/// field and a `fn parse(&mut self.state, &DataLine) -> Result<Parsed, TraceError>`; the
/// format name is a literal or a function of the state.
/// With `fast = F` the lines go to `F: fn(&[u8]) -> Option<Record>` first (see
/// [`Driver::next_record_fast`]).
macro_rules! reader_impls {
    ($ty:ident, $name:literal, $state:ident, $parse:path, fast = $fast:path) => {
        reader_impls!(@impl $ty, |_| $name, $state, $parse, Some($fast));
    };
    ($ty:ident, $name:literal, $state:ident, $parse:path) => {
        reader_impls!(@impl $ty, |_| $name, $state, $parse, None);
    };
    ($ty:ident, $name_of:path, $state:ident, $parse:path) => {
        reader_impls!(@impl $ty, $name_of, $state, $parse, None);
    };
    (@impl $ty:ident, $name_of:expr, $state:ident, $parse:path, $fast:expr) => {
        impl<R: std::io::BufRead> $ty<R> {
            /// Lenient mode: malformed lines and zero-size requests are skipped and counted
            /// in [`skipped()`](crate::RecordSource::skipped) instead of being errors. I/O
            /// errors (corrupt compressed data) still end the stream with an error.
            pub fn lenient(mut self, on: bool) -> Self {
                self.d.set_lenient(on);
                self
            }

            /// Reads the time column in `unit` instead of the format's own unit (see
            /// [`TraceOptions::time_unit`](crate::TraceOptions::time_unit)); `None` keeps it.
            pub fn time_unit(mut self, unit: Option<crate::TimeUnit>) -> Self {
                self.d.set_time_unit(unit);
                self
            }
        }

        impl<R: std::io::BufRead + Send> Iterator for $ty<R> {
            type Item = Result<crate::Record, crate::TraceError>;

            fn next(&mut self) -> Option<Self::Item> {
                let state = &mut self.$state;
                let fast: Option<fn(&[u8]) -> Option<crate::Record>> = $fast;
                match fast {
                    Some(fast) => self.d.next_record_fast(fast, |l| $parse(state, l)),
                    None => self.d.next_record(|l| $parse(state, l)),
                }
            }
        }

        impl<R: std::io::BufRead + Send> crate::RecordSource for $ty<R> {
            fn format_name(&self) -> &'static str {
                ($name_of)(&self.$state)
            }

            fn skipped(&self) -> u64 {
                self.d.skipped()
            }

            fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
                self.d.skip_reasons()
            }
        }
    };
}

pub(crate) use reader_impls;
