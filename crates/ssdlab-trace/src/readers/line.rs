//! Line splitting and field parsing shared by the text readers.
//!
//! [`LineReader`] turns a `BufRead` into numbered lines with BOM, CRLF, blank-line and
//! comment handling; the free functions parse and quote fields. Readers own the meaning of
//! the fields; this module owns only the mechanics.

use crate::{Op, Record, TraceError};
use std::io::{self, BufRead};

/// Longest line a reader accepts, terminator excluded. Longer lines are reported as an
/// error (and skipped) instead of being buffered: a binary file fed by mistake cannot make
/// a reader allocate without bound.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How many bytes of bad text an error message quotes.
const QUOTE_BYTES: usize = 60;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line that carries data: neither blank nor a comment.
pub(crate) struct DataLine<'a> {
    pub file: &'a str,
    /// 1-based line number.
    pub number: u64,
    /// The line without its terminator (`\n` or `\r\n`) and without a leading BOM.
    pub text: &'a [u8],
}

/// Numbered lines from a `BufRead`, read one at a time into a reused buffer.
pub(crate) struct LineReader<R> {
    inner: R,
    file: String,
    buf: Vec<u8>,
    /// Number of the line last read (0 before the first).
    number: u64,
    /// Set after EOF or an I/O error: the stream is over.
    done: bool,
}

enum RawLine {
    Eof,
    /// A line is in `buf`.
    Line,
    /// The line was longer than [`MAX_LINE_BYTES`]; `buf` holds its start.
    TooLong,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, file: impl Into<String>) -> Self {
        LineReader { inner, file: file.into(), buf: Vec::with_capacity(256), number: 0, done: false }
    }

    /// Reads the next line into `buf` (terminator not included).
    fn read_raw(&mut self) -> io::Result<RawLine> {
        self.buf.clear();
        let mut any = false;
        let mut too_long = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(avail) => avail,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(match (any, too_long) {
                    (false, _) => RawLine::Eof,
                    (true, false) => RawLine::Line,
                    (true, true) => RawLine::TooLong,
                });
            }
            any = true;
            let (chunk, used, end) = match memchr::memchr(b'\n', avail) {
                Some(i) => (&avail[..i], i + 1, true),
                None => (avail, avail.len(), false),
            };
            if !too_long {
                if self.buf.len() + chunk.len() > MAX_LINE_BYTES {
                    too_long = true;
                    let keep = QUOTE_BYTES.saturating_sub(self.buf.len()).min(chunk.len());
                    self.buf.extend_from_slice(&chunk[..keep]);
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            self.inner.consume(used);
            if end {
                return Ok(if too_long { RawLine::TooLong } else { RawLine::Line });
            }
        }
    }

    /// The next line that carries data. Blank lines are skipped and added to `blank`;
    /// comment lines (`#` first) are skipped silently. `None` at the end of the input.
    pub fn next_data_line(&mut self, blank: &mut u64) -> Option<Result<DataLine<'_>, TraceError>> {
        if self.done {
            return None;
        }
        loop {
            let raw = match self.read_raw() {
                Ok(raw) => raw,
                Err(e) => {
                    self.done = true;
                    let line = self.number + 1;
                    return Some(Err(TraceError::new(&self.file, line, "", format!("read error: {e}"))));
                }
            };
            match raw {
                RawLine::Eof => {
                    self.done = true;
                    return None;
                }
                RawLine::TooLong => {
                    self.number += 1;
                    let msg = format!(
                        "line longer than {MAX_LINE_BYTES} bytes (starts '{}'); is this a text trace?",
                        quote(&self.buf)
                    );
                    return Some(Err(TraceError::new(&self.file, self.number, "", msg)));
                }
                RawLine::Line => {}
            }
            self.number += 1;
            // Work with indices so no borrow of `buf` outlives a loop iteration.
            let mut start = 0;
            let mut end = self.buf.len();
            if self.number == 1 && self.buf.starts_with(BOM) {
                start = BOM.len();
            }
            if end > start && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
            match self.buf[start..end].iter().position(|b| !b.is_ascii_whitespace()) {
                None => *blank += 1,
                Some(i) if self.buf[start + i] == b'#' => {}
                Some(_) => {
                    return Some(Ok(DataLine { file: &self.file, number: self.number, text: &self.buf[start..end] }));
                }
            }
        }
    }
}

/// The bad text as it appears in an error message: lossily decoded, control characters
/// escaped, cut to a readable length.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(QUOTE_BYTES)];
    let mut s: String = String::from_utf8_lossy(cut).chars().flat_map(char::escape_debug).collect();
    if bytes.len() > QUOTE_BYTES {
        s.push('…');
    }
    s
}

/// Parses an unsigned decimal integer. The error message quotes the text.
pub(crate) fn parse_u64(field: &[u8]) -> Result<u64, String> {
    if field.is_empty() {
        return Err("is empty".to_string());
    }
    if field[0] == b'-' {
        return Err(format!("negative number '{}'", quote(field)));
    }
    let mut value: u64 = 0;
    for &b in field {
        if !b.is_ascii_digit() {
            return Err(format!("expected a non-negative integer, got '{}'", quote(field)));
        }
        value = match value.checked_mul(10).and_then(|v| v.checked_add(u64::from(b - b'0'))) {
            Some(v) => v,
            None => return Err(format!("'{}' does not fit in 64 bits", quote(field))),
        };
    }
    Ok(value)
}

/// Parses a device number.
pub(crate) fn parse_device(field: &[u8]) -> Result<u32, String> {
    let value = parse_u64(field)?;
    u32::try_from(value).map_err(|_| format!("device number '{}' does not fit in 32 bits", quote(field)))
}

/// `value * unit` as bytes, for fields counted in sectors or ticks.
pub(crate) fn scale(field: &[u8], value: u64, unit: u64, what: &str) -> Result<u64, String> {
    value.checked_mul(unit).ok_or_else(|| format!("'{}' {what} overflows 64 bits when converted", quote(field)))
}

/// Checks what every record must satisfy (non-zero size, end fits in 64 bits) and builds it.
pub(crate) fn finish(
    line: &DataLine<'_>,
    arrival_ns: u64,
    device: u32,
    offset_bytes: u64,
    size_bytes: u64,
    op: Op,
) -> Result<Record, TraceError> {
    if size_bytes == 0 {
        return Err(line.error("size", "zero-size request"));
    }
    if offset_bytes.checked_add(size_bytes).is_none() {
        return Err(line
            .error("size", format!("offset {offset_bytes} + size {size_bytes} bytes exceeds 64-bit byte addresses")));
    }
    Ok(Record { arrival_ns, device, offset_bytes, size_bytes, op, hint: None })
}

impl DataLine<'_> {
    pub fn error(&self, field: &'static str, message: impl Into<String>) -> TraceError {
        TraceError::new(self.file, self.number, field, message)
    }

    /// Splits on runs of ASCII whitespace.
    pub fn whitespace_fields(&self) -> impl Iterator<Item = &[u8]> {
        self.text.split(u8::is_ascii_whitespace).filter(|f| !f.is_empty())
    }

    /// Splits on commas and trims ASCII whitespace around each field.
    pub fn comma_fields(&self) -> impl Iterator<Item = &[u8]> {
        self.text.split(|&b| b == b',').map(<[u8]>::trim_ascii)
    }
}

/// Parses the five whitespace-separated columns `time_ns device offset_sectors
/// size_sectors op` shared by SSDSim and MQSim ASCII traces. `op_of` maps the op code.
pub(crate) fn parse_sector_columns(
    line: &DataLine<'_>,
    format: &str,
    op_of: fn(u64) -> Option<Op>,
    op_help: &str,
) -> Result<Record, TraceError> {
    const NAMES: [&str; 5] = ["time", "device", "offset", "size", "op"];
    let mut fields: [&[u8]; 5] = [b""; 5];
    let mut n = 0;
    for field in line.whitespace_fields() {
        if n == 5 {
            let count = 5 + 1 + line.whitespace_fields().skip(6).count();
            return Err(line.error(
                "",
                format!(
                    "expected 5 whitespace-separated fields for {format} \
                     (time_ns device offset_sectors size_sectors op), found {count}"
                ),
            ));
        }
        fields[n] = field;
        n += 1;
    }
    if n < 5 {
        return Err(line.error(
            NAMES[n],
            format!(
                "missing: expected 5 whitespace-separated fields for {format} \
                 (time_ns device offset_sectors size_sectors op), found {n}"
            ),
        ));
    }
    let [time, device, offset, size, op] = fields;
    let arrival_ns = parse_u64(time).map_err(|m| line.error("time", m))?;
    let device = parse_device(device).map_err(|m| line.error("device", m))?;
    let offset_sectors = parse_u64(offset).map_err(|m| line.error("offset", m))?;
    let offset_bytes = scale(offset, offset_sectors, 512, "sectors").map_err(|m| line.error("offset", m))?;
    let size_sectors = parse_u64(size).map_err(|m| line.error("size", m))?;
    let size_bytes = scale(size, size_sectors, 512, "sectors").map_err(|m| line.error("size", m))?;
    let code = parse_u64(op).map_err(|m| line.error("op", m))?;
    let op = op_of(code).ok_or_else(|| line.error("op", format!("unknown op code '{}' ({op_help})", quote(op))))?;
    finish(line, arrival_ns, device, offset_bytes, size_bytes, op)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Numbered = Result<(u64, Vec<u8>), TraceError>;

    fn lines(input: &[u8]) -> (Vec<Numbered>, u64) {
        let mut reader = LineReader::new(input, "t");
        let mut blank = 0;
        let mut out = Vec::new();
        while let Some(item) = reader.next_data_line(&mut blank) {
            out.push(item.map(|l| (l.number, l.text.to_vec())));
        }
        (out, blank)
    }

    #[test]
    fn crlf_bom_blank_and_comments() {
        let (out, blank) = lines(b"\xEF\xBB\xBFa b\r\n\r\n  \n# note\n  # indented note\nc\n\nd");
        let got: Vec<_> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(got, vec![(1, b"a b".to_vec()), (6, b"c".to_vec()), (8, b"d".to_vec())]);
        assert_eq!(blank, 3);
    }

    #[test]
    fn bom_only_stripped_on_first_line() {
        let (out, _) = lines(b"x\n\xEF\xBB\xBFy\n");
        let got: Vec<_> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(got[1].1, b"\xEF\xBB\xBFy".to_vec());
    }

    #[test]
    fn overlong_line_is_an_error_then_reading_goes_on() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nok\n");
        let (out, _) = lines(&input);
        assert_eq!(out.len(), 2);
        let err = out[0].as_ref().unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.message.contains("longer than"), "{err}");
        assert_eq!(out[1].as_ref().unwrap(), &(2, b"ok".to_vec()));
    }

    #[test]
    fn line_of_exactly_max_length_is_accepted() {
        let input = vec![b'7'; MAX_LINE_BYTES];
        let (out, _) = lines(&input);
        assert_eq!(out[0].as_ref().unwrap().1.len(), MAX_LINE_BYTES);
    }

    #[test]
    fn io_error_ends_the_stream() {
        struct Failing;
        impl io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut reader = LineReader::new(io::BufReader::new(Failing), "f");
        let mut blank = 0;
        let err = reader.next_data_line(&mut blank).unwrap().err().unwrap();
        assert_eq!(err.line, 1);
        assert!(err.message.contains("disk on fire"));
        assert!(reader.next_data_line(&mut blank).is_none());
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(b"0"), Ok(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert!(parse_u64(b"18446744073709551616").unwrap_err().contains("64 bits"));
        assert!(parse_u64(b"-3").unwrap_err().contains("negative number '-3'"));
        assert!(parse_u64(b"1.5").unwrap_err().contains("'1.5'"));
        assert!(parse_u64(b"+1").is_err());
        assert!(parse_u64(b"").unwrap_err().contains("empty"));
        assert!(parse_device(b"4294967296").is_err());
        assert_eq!(parse_device(b"4294967295"), Ok(u32::MAX));
    }

    #[test]
    fn quoting_escapes_and_cuts() {
        assert_eq!(quote(b"a\tb"), "a\\tb");
        assert_eq!(quote(b"\xff"), "\u{FFFD}");
        assert!(quote(&[b'z'; 200]).ends_with('…'));
    }
}
