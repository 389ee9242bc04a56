//! Line splitting and field parsing shared by the text readers.
//!
//! [`LineReader`] turns a `BufRead` into numbered lines with BOM, CRLF, blank-line and
//! comment handling; the free functions parse and quote fields. Readers own the meaning of
//! the fields; this module owns only the mechanics.

use crate::{Op, Record, TimeUnit, TraceError};
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
    /// The time unit forced by [`TraceOptions::time_unit`](crate::TraceOptions::time_unit).
    pub time_unit: Option<TimeUnit>,
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
    /// Set after an I/O error (including corrupt compressed data).
    failed: bool,
    /// An I/O error [`next_fast`](LineReader::next_fast) met, which the next line read
    /// returns as if it had met it there.
    deferred: Option<io::Error>,
    /// Handed to every [`DataLine`]: the forced time unit, if any.
    pub time_unit: Option<TimeUnit>,
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
        LineReader {
            inner,
            file: file.into(),
            buf: Vec::with_capacity(256),
            number: 0,
            done: false,
            failed: false,
            deferred: None,
            time_unit: None,
        }
    }

    /// The next line made into a value by `fast`, if it lies whole in the input's buffer
    /// and `fast` accepts it; else `None` with nothing consumed, and the line is read as
    /// usual by [`next_data_line`](LineReader::next_data_line). No copy and no
    /// [`DataLine`]: the common line of a simple format costs its parse and little more.
    /// Not for the first line (which may start with a BOM) nor under a forced time unit;
    /// `fast` sees the line without its `\n` (a `\r` before it is `fast`'s to accept as
    /// the whitespace it is, as the general path strips it).
    pub fn next_fast<T>(&mut self, fast: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
        if self.done || self.number == 0 || self.time_unit.is_some() || self.deferred.is_some() {
            return None;
        }
        let avail = match self.inner.fill_buf() {
            Ok(avail) => avail,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return None,
            Err(e) => {
                self.deferred = Some(e);
                return None;
            }
        };
        let end = memchr::memchr(b'\n', avail)?;
        if end > MAX_LINE_BYTES {
            return None;
        }
        let value = fast(&avail[..end])?;
        self.inner.consume(end + 1);
        self.number += 1;
        Some(value)
    }

    /// Reads the next line into `buf` (terminator not included).
    fn read_raw(&mut self) -> io::Result<RawLine> {
        self.buf.clear();
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
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
                    // One byte more than is quoted, so the quote shows it was cut ('…').
                    let keep = (QUOTE_BYTES + 1).saturating_sub(self.buf.len()).min(chunk.len());
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

    /// True once an I/O error (a read error or corrupt compressed data) ended the stream:
    /// such an error is never skipped, even in lenient mode.
    pub fn failed(&self) -> bool {
        self.failed
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
                    self.failed = true;
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
                    return Some(Ok(DataLine {
                        file: &self.file,
                        number: self.number,
                        text: &self.buf[start..end],
                        time_unit: self.time_unit,
                    }));
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

    /// The arrival time in ns from the time column `field`: `own` (the format's own
    /// unit and syntax) unless [`TraceOptions::time_unit`](crate::TraceOptions::time_unit)
    /// forces a unit, in which case the field is a decimal number of that unit
    /// ([`parse_time_in`]). Errors are on field `"time"`.
    pub fn time(&self, field: &[u8], own: impl FnOnce(&[u8]) -> Result<u64, String>) -> Result<u64, TraceError> {
        match self.time_unit {
            None => own(field),
            Some(unit) => parse_time_in(field, unit),
        }
        .map_err(|m| self.error("time", m))
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
    if line.time_unit.is_none() {
        if let Some(record) = sector_columns_fast(line.text, op_of) {
            return Ok(record);
        }
    }
    sector_columns_general(line, format, op_of, op_help)
}

fn sector_columns_general(
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
    let arrival_ns = line.time(time, parse_u64)?;
    let device = parse_device(device).map_err(|m| line.error("device", m))?;
    let offset_sectors = parse_u64(offset).map_err(|m| line.error("offset", m))?;
    let offset_bytes = scale(offset, offset_sectors, 512, "sectors").map_err(|m| line.error("offset", m))?;
    let size_sectors = parse_u64(size).map_err(|m| line.error("size", m))?;
    let size_bytes = scale(size, size_sectors, 512, "sectors").map_err(|m| line.error("size", m))?;
    let code = parse_u64(op).map_err(|m| line.error("op", m))?;
    let op = op_of(code).ok_or_else(|| line.error("op", format!("unknown op code '{}' ({op_help})", quote(op))))?;
    finish(line, arrival_ns, device, offset_bytes, size_bytes, op)
}

/// The common case of [`parse_sector_columns`] in one pass over the bytes: five fields of
/// 1 to 19 decimal digits (fewer cannot overflow 64 bits) separated by ASCII whitespace,
/// forming a valid record. `None` for anything else, which the general path then parses
/// (and reports) as before: the same records, at a fraction of the instructions (the
/// general path splits through iterators and checks each field for each error; a replay
/// of SSDSim's example trace parses every line three times, issue 48).
pub(crate) fn sector_columns_fast(text: &[u8], op_of: fn(u64) -> Option<Op>) -> Option<Record> {
    // A `\n` inside `text` (none of the callers passes one) is left to the general path.
    sector_columns_line(text, op_of).and_then(|(record, end)| (end == text.len()).then_some(record))
}

/// [`sector_columns_fast`] of the line that starts `text` and ends at its first `\n` (or
/// at the end of `text`), and where it ends (the `\n`'s index, or `text.len()`): the
/// pre-pass finds a line's end as it parses it instead of searching for it first.
pub(crate) fn sector_columns_line(text: &[u8], op_of: fn(u64) -> Option<Op>) -> Option<(Record, usize)> {
    let mut values = [0u64; 5];
    let n = text.len();
    let mut i = 0;
    // Field by field: skip whitespace (`b' ' | b'\t' | ...` is `u8::is_ascii_whitespace`
    // but the line's end), then fold digits until a non-digit, without overflow checks (a
    // field of more than 19 digits is refused after its loop). Measured on SSDSim's trace
    // (dev-opt, a line of about 27 bytes): 497 instructions a line for one state machine
    // over all bytes (a branch on the byte's class per byte), about 220 for this.
    for value in &mut values {
        while i < n && matches!(text[i], b' ' | b'\t' | b'\x0C' | b'\r') {
            i += 1;
        }
        let start = i;
        let mut v = 0u64;
        while i < n {
            let digit = text[i].wrapping_sub(b'0');
            if digit >= 10 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(digit));
            i += 1;
        }
        // Empty (the end, or a byte that is neither whitespace nor a digit) or too long.
        if i == start || i - start > 19 {
            return None;
        }
        *value = v;
        // A field ends at whitespace or the end of the line.
        if i < n && !matches!(text[i], b' ' | b'\t' | b'\n' | b'\x0C' | b'\r') {
            return None;
        }
    }
    // Only whitespace may follow the fifth field.
    while i < n && matches!(text[i], b' ' | b'\t' | b'\x0C' | b'\r') {
        i += 1;
    }
    if i < n && text[i] != b'\n' {
        return None;
    }
    let [arrival_ns, device, offset, size, code] = values;
    let device = u32::try_from(device).ok()?;
    let offset_bytes = offset.checked_mul(512)?;
    let size_bytes = size.checked_mul(512)?;
    if size_bytes == 0 {
        return None;
    }
    offset_bytes.checked_add(size_bytes)?;
    Some((Record { arrival_ns, device, offset_bytes, size_bytes, op: op_of(code)?, hint: None }, i))
}

/// Parses a non-negative decimal number `int[.frac]` (no sign, no exponent) and returns it
/// multiplied by `10^exp`, truncated to an integer: `parse_decimal(b"26.214", 6)` reads
/// milliseconds as nanoseconds (26,214,000). Digits beyond the resolution are dropped, not
/// rounded. Exact: no floating point is involved.
pub(crate) fn parse_decimal(field: &[u8], exp: u32) -> Result<u64, String> {
    if field.is_empty() {
        return Err("is empty".to_string());
    }
    if field[0] == b'-' {
        return Err(format!("negative number '{}'", quote(field)));
    }
    let bad = || format!("expected a non-negative decimal number, got '{}'", quote(field));
    let (int, frac) = match memchr::memchr(b'.', field) {
        Some(i) => (&field[..i], &field[i + 1..]),
        None => (field, &b""[..]),
    };
    if (int.is_empty() && frac.is_empty()) || !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let overflow = || format!("'{}' does not fit in 64 bits when converted", quote(field));
    let mut value: u64 = 0;
    for &b in int {
        value = value.checked_mul(10).and_then(|v| v.checked_add(u64::from(b - b'0'))).ok_or_else(overflow)?;
    }
    for i in 0..exp as usize {
        let digit = frac.get(i).map_or(0, |&b| u64::from(b - b'0'));
        value = value.checked_mul(10).and_then(|v| v.checked_add(digit)).ok_or_else(overflow)?;
    }
    Ok(value)
}

/// Parses a non-negative decimal `int[.frac]` counted in `unit` and returns it in ns,
/// rounded down, exactly (integer arithmetic on picoseconds; fraction digits past the 15th
/// cannot change the result and are ignored).
pub(crate) fn parse_time_in(field: &[u8], unit: TimeUnit) -> Result<u64, String> {
    if field.is_empty() {
        return Err("is empty".to_string());
    }
    if field[0] == b'-' {
        return Err(format!("negative number '{}'", quote(field)));
    }
    let (int, frac) = match memchr::memchr(b'.', field) {
        Some(i) => (&field[..i], &field[i + 1..]),
        None => (field, &b""[..]),
    };
    if (int.is_empty() && frac.is_empty()) || !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return Err(format!("expected a non-negative decimal number of {unit}, got '{}'", quote(field)));
    }
    let overflow = || format!("'{}' {unit} does not fit in 64 bits of nanoseconds", quote(field));
    let ps = u128::from(unit.picoseconds());
    let mut whole: u128 = 0;
    for &b in int {
        whole = whole.checked_mul(10).and_then(|v| v.checked_add(u128::from(b - b'0'))).ok_or_else(overflow)?;
        if whole > u128::from(u64::MAX) << 10 {
            return Err(overflow());
        }
    }
    let digits = &frac[..frac.len().min(15)];
    let mut part: u128 = 0;
    for &b in digits {
        part = part * 10 + u128::from(b - b'0');
    }
    // whole <= 2^74 and ps <= 10^12: the product fits in 128 bits.
    let total_ps = whole * ps + part * ps / 10u128.pow(digits.len() as u32);
    u64::try_from(total_ps / 1000).map_err(|_| overflow())
}

/// `r`/`w`/`read`/`write` in any letter case.
pub(crate) fn parse_rw(field: &[u8]) -> Option<Op> {
    if field.eq_ignore_ascii_case(b"r") || field.eq_ignore_ascii_case(b"read") {
        Some(Op::Read)
    } else if field.eq_ignore_ascii_case(b"w") || field.eq_ignore_ascii_case(b"write") {
        Some(Op::Write)
    } else {
        None
    }
}

/// True for a line that cannot be text: a NUL byte, an ASCII control character other
/// than whitespace, or invalid UTF-8.
pub(crate) fn looks_binary(text: &[u8]) -> bool {
    text.iter().any(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\r' | 0x0b | 0x0c)) || b == 0x7f)
        || std::str::from_utf8(text).is_err()
}

/// True for a line that is a column header rather than a malformed record: its first
/// field starts with a letter and none of its fields is a number.
pub(crate) fn looks_like_header(fields: &[&[u8]]) -> bool {
    fields.first().is_some_and(|t| t.first().is_some_and(u8::is_ascii_alphabetic))
        && fields.iter().all(|f| parse_decimal(f, 0).is_err())
}

/// The Linux device number `MKDEV(major, minor)` = `major << 20 | minor`, as a `u32`.
/// This is how the blkparse and FIU readers turn a `major,minor` pair into
/// [`Record::device`](crate::Record::device).
pub fn device_number(major: u32, minor: u32) -> Option<u32> {
    (major < (1 << 12) && minor < (1 << 20)).then_some((major << 20) | minor)
}

/// Parses a `major` / `minor` pair into [`device_number`].
pub(crate) fn parse_major_minor(major: &[u8], minor: &[u8]) -> Result<u32, String> {
    let ma = parse_device(major)?;
    let mi = parse_device(minor)?;
    device_number(ma, mi).ok_or_else(|| format!("device {ma},{mi} is out of range (major < 4096, minor < 1048576)"))
}

/// Splits a line into exactly `N` fields (or at least `N` when `extra_ok`), naming the
/// first missing field or reporting the surplus. `layout` describes the expected columns.
pub(crate) fn split_fields<'a, const N: usize>(
    line: &DataLine<'_>,
    fields: impl Iterator<Item = &'a [u8]>,
    names: &[&'static str; N],
    what: &str,
    layout: &str,
    extra_ok: bool,
) -> Result<[&'a [u8]; N], TraceError> {
    let mut out: [&[u8]; N] = [b""; N];
    let mut n = 0;
    for field in fields {
        if n < N {
            out[n] = field;
        }
        n += 1;
    }
    if n < N {
        return Err(line.error(names[n], format!("missing: expected {N} {what} ({layout}), found {n}")));
    }
    if n > N && !extra_ok {
        return Err(line.error("", format!("expected {N} {what} ({layout}), found {n}")));
    }
    Ok(out)
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
    fn decimals() {
        assert_eq!(parse_decimal(b"26.214000", 6), Ok(26_214_000));
        assert_eq!(parse_decimal(b"1456095145.133076000", 9), Ok(1_456_095_145_133_076_000));
        assert_eq!(parse_decimal(b"0.0000000019", 9), Ok(1));
        assert_eq!(parse_decimal(b"7", 3), Ok(7000));
        assert_eq!(parse_decimal(b".5", 3), Ok(500));
        assert_eq!(parse_decimal(b"5.", 3), Ok(5000));
        assert!(parse_decimal(b".", 3).is_err());
        assert!(parse_decimal(b"1.2.3", 3).unwrap_err().contains("'1.2.3'"));
        assert!(parse_decimal(b"1e3", 3).is_err());
        assert!(parse_decimal(b"-1.0", 3).unwrap_err().contains("negative"));
        assert!(parse_decimal(b"", 3).unwrap_err().contains("empty"));
        assert!(parse_decimal(b"18446744073.709551616", 9).unwrap_err().contains("64 bits"));
        assert_eq!(parse_decimal(b"18446744073.709551615", 9), Ok(u64::MAX));
    }

    #[test]
    fn times_in_a_forced_unit() {
        assert_eq!(parse_time_in(b"26.214", TimeUnit::Ms), Ok(26_214_000));
        assert_eq!(parse_time_in(b"26.214", TimeUnit::S), Ok(26_214_000_000));
        assert_eq!(parse_time_in(b"1500", TimeUnit::Ps), Ok(1));
        assert_eq!(parse_time_in(b"999", TimeUnit::Ps), Ok(0));
        assert_eq!(parse_time_in(b"7", TimeUnit::Ns), Ok(7));
        assert_eq!(parse_time_in(b"0.000000001", TimeUnit::S), Ok(1));
        assert_eq!(parse_time_in(b"0.0000000009999999999999999", TimeUnit::S), Ok(0));
        assert_eq!(parse_time_in(b"0.1234567891", TimeUnit::Ms), Ok(123_456));
        assert_eq!(parse_time_in(b"18446744073.709551615", TimeUnit::S), Ok(u64::MAX));
        assert!(parse_time_in(b"18446744073.709551616", TimeUnit::S).unwrap_err().contains("64 bits"));
        assert!(parse_time_in(&[b'9'; 60], TimeUnit::Ps).unwrap_err().contains("64 bits"));
        assert_eq!(parse_time_in(b"18446744073709551615999", TimeUnit::Ps), Ok(u64::MAX));
        assert!(parse_time_in(b"-1", TimeUnit::S).unwrap_err().contains("negative"));
        assert!(parse_time_in(b"1e3", TimeUnit::S).unwrap_err().contains("decimal number of s"));
        assert!(parse_time_in(b".", TimeUnit::S).is_err());
        assert!(parse_time_in(b"", TimeUnit::S).is_err());
        // Agrees with the formats' own decimal parser wherever both apply.
        for t in ["0", "1", "26.214000", "1456095145.133076999", ".5", "5."] {
            assert_eq!(parse_time_in(t.as_bytes(), TimeUnit::S), parse_decimal(t.as_bytes(), 9), "{t}");
            assert_eq!(parse_time_in(t.as_bytes(), TimeUnit::Ms), parse_decimal(t.as_bytes(), 6), "{t}");
        }
    }

    #[test]
    fn device_numbers() {
        assert_eq!(device_number(8, 16), Some((8 << 20) | 16));
        assert_eq!(device_number(4096, 0), None);
        assert!(parse_major_minor(b"8", b"x").is_err());
        assert!(parse_major_minor(b"1", b"1048576").unwrap_err().contains("out of range"));
    }

    #[test]
    fn quoting_escapes_and_cuts() {
        assert_eq!(quote(b"a\tb"), "a\\tb");
        assert_eq!(quote(b"\xff"), "\u{FFFD}");
        assert!(quote(&[b'z'; 200]).ends_with('…'));
    }

    /// The one-pass parse of SSDSim / MQSim lines gives what the general path gives, and
    /// declines (leaving the general path's error) whatever that path refuses.
    #[test]
    fn sector_columns_fast_path_agrees_with_the_general_path() {
        use rand::{Rng, SeedableRng};
        let tokens: &[&str] = &[
            "0",
            "1",
            "2",
            "7",
            "8",
            "0007",
            "303574",
            "26214000",
            "4294967295",
            "4294967296",
            "36028797018963967",
            "36028797018963968",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "00000000000000000001",
            "-4",
            "x",
            "1.5",
            "+3",
            "1e3",
            "",
        ];
        let seps: &[&str] = &[" ", "  ", "\t", " \t ", "\x0c", ""];
        let mut rng = rand_pcg::Pcg64::seed_from_u64(48);
        let op = crate::readers::ssdsim::ssdsim_op;
        let (mut fast, mut total) = (0, 0);
        for _ in 0..20_000 {
            let fields = if rng.random_bool(0.8) { 5 } else { rng.random_range(3..=7) };
            let mut text = String::new();
            if rng.random_bool(0.2) {
                text.push_str(seps[rng.random_range(0..seps.len())]);
            }
            for f in 0..fields {
                if f > 0 {
                    // (Rarely none: two fields run together.)
                    let n = if rng.random_bool(0.05) { seps.len() } else { seps.len() - 1 };
                    text.push_str(seps[rng.random_range(0..n)]);
                }
                // Mostly plausible records, so that both paths' successes are compared.
                let t = match rng.random_range(0..10) {
                    0 => rng.random_range(0..tokens.len()),
                    _ if f == 4 => rng.random_range(0..2),
                    _ => rng.random_range(0..6),
                };
                text.push_str(tokens[t]);
            }
            if rng.random_bool(0.2) {
                text.push(' ');
            }
            let line = DataLine { file: "t", number: 1, text: text.as_bytes(), time_unit: None };
            let general = sector_columns_general(&line, "SSDSim", op, "help");
            if let Some(r) = sector_columns_fast(line.text, op) {
                assert_eq!(Ok(r), general, "{text:?}");
                fast += 1;
            }
            assert_eq!(parse_sector_columns(&line, "SSDSim", op, "help"), general, "{text:?}");
            total += 1;
        }
        assert!(fast > total / 5, "{fast} of {total} lines took the fast path");
    }

    /// A reader with the fast line path gives what the general path gives, line numbers
    /// of errors and skip counts included, whatever the buffer's size (lines split across
    /// refills, a last line without `\n`, a BOM, CRLF, blank and comment lines, errors).
    #[test]
    fn fast_lines_agree_with_the_general_path() {
        use crate::readers::driver::{Driver, Parsed};
        use rand::{Rng, SeedableRng};
        let kinds: &[&str] = &[
            "26214000 0 303574 7 0",
            "0 1 55590 6 1",
            "  7788016466500\t14 591867 6 0  ",
            "5 0 10 8 1\r",
            "",
            "   ",
            "# comment",
            "5 0 10 0 1",
            "5 0 x 8 1",
            "5 0 10 8 7",
            "5 0 10 8",
            "5 0 10 8 1 9",
            "00000000000000000001 0 1 1 0",
        ];
        let op = crate::readers::ssdsim::ssdsim_op;
        let parse = |l: &DataLine<'_>| parse_sector_columns(l, "SSDSim", op, "help").map(Parsed::Record);
        let fast: fn(&[u8]) -> Option<Record> = |t| sector_columns_fast(t, crate::readers::ssdsim::ssdsim_op);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(4848);
        for round in 0..200 {
            let mut text = String::new();
            if rng.random_bool(0.3) {
                text.push('\u{FEFF}');
            }
            for i in 0..rng.random_range(1..60) {
                if i > 0 {
                    text.push('\n');
                }
                let k = if rng.random_bool(0.7) { rng.random_range(0..4) } else { rng.random_range(0..kinds.len()) };
                text.push_str(kinds[k]);
            }
            if rng.random_bool(0.5) {
                text.push('\n');
            }
            let capacity = rng.random_range(1..80);
            let lenient = round % 2 == 0;
            let run = |with_fast: bool| {
                let mut d = Driver::new(io::BufReader::with_capacity(capacity, text.as_bytes()), "t");
                d.set_lenient(lenient);
                let mut out = Vec::new();
                loop {
                    let next = if with_fast { d.next_record_fast(fast, parse) } else { d.next_record(parse) };
                    match next {
                        Some(item) => out.push(item),
                        None => break,
                    }
                }
                (out, d.skip_reasons())
            };
            let general = run(false);
            assert!(!general.0.is_empty());
            assert_eq!(run(true), general, "{text:?}, buffer {capacity}");
        }
    }
}
