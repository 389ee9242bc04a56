//! Format auto-detection from a trace's first data lines.
//!
//! Each of the first [`DETECT_LINES`] data lines (after decompression; blank lines,
//! comments and all-empty CSV rows are passed over) is classified on its own into the set
//! of formats whose reader would accept its layout and field types; the sets are
//! intersected. A fio iolog header decides at once. Then:
//!
//! - one format left: that format;
//! - nothing left: an error naming the line that does not fit;
//! - several left: the known ambiguities are resolved by an explicit rule, and the message
//!   says which format was **assumed** or **inferred** and why, so a wrong guess is
//!   impossible to miss.
//!
//! Five numeric whitespace-separated columns fit formats whose offset and size units
//! differ: `bytes5` (bytes), `disksim`, `ssdsim`, `mqsim` (512-B sectors) and `flashsim`
//! (sizes in 4 KiB pages). These are never guessed from a few lines: detection reads on,
//! up to [`EVIDENCE_LINES`] data lines, and decides from what the offsets and sizes show,
//! or refuses (naming the candidates and the evidence) and asks for `--format`:
//!
//! 1. **Bytes or not** (when `bytes5` is a candidate). Byte addresses of a block device
//!    are multiples of 512. If at most half of the lines have offset and size both
//!    multiples of 512, the units are not bytes. If at least 95% do, over at least
//!    [`MIN_BYTE_LINES`] lines, and the median size is at least 2048 (as 512-B sectors
//!    every request would be a multiple of 256 KiB and the median at least 1 MiB), the
//!    file is `bytes5`. Anything else (a mix, too few lines, or sizes plausible as either
//!    unit) is refused.
//! 2. **512-B sectors or 4 KiB pages** (DiskSim vs FlashSim). Sequential runs decide:
//!    count the requests (whose predecessor on the same device has size ≥ 2) that start
//!    exactly where that predecessor ends, reading sizes as sectors and as pages; one
//!    reading needs at least 3 such requests and 4 times as many as the other. Without
//!    runs, alignment over at least 32 lines: offsets mostly (≥ 90%) multiples of 8
//!    sectors with sizes mostly (≥ 90%) multiples of 8 is sectors (as pages every request
//!    would be a multiple of 32 KiB), with sizes mostly (≥ 90%) *not* multiples of 8 is
//!    pages. A median size of 256 or more is sectors (as pages the median request would
//!    be 1 MiB). Otherwise the evidence is weak and detection refuses.
//! 3. With an integer first column (SSDSim / MQSim ns time) and units not bytes: `mqsim`
//!    is **assumed** (SSDSim and MQSim read identically) unless rule 2 finds 4 KiB pages,
//!    which only FlashSim (ms time) has.

use crate::open::{open_decompressed, Compression, Format};
use crate::readers::blkparse::{is_major_minor, opens_summary};
use crate::readers::LineReader;
use crate::TraceError;
use std::path::Path;

/// How many data lines [`detect_format`] classifies (every one must fit the format).
pub const DETECT_LINES: usize = 32;

/// How many data lines detection reads, at most, for evidence about the units when the
/// first [`DETECT_LINES`] fit several five-column layouts (see the [module docs](self)).
pub const EVIDENCE_LINES: usize = 100_000;

/// Fewest lines on which detection decides that offsets and sizes are bytes.
pub const MIN_BYTE_LINES: u64 = 16;

type Mask = u32;

fn bit(f: Format) -> Mask {
    1 << Format::ALL.iter().position(|&g| g == f).unwrap_or(0)
}

fn bits(fs: &[Format]) -> Mask {
    fs.iter().fold(0, |m, &f| m | bit(f))
}

fn names(mask: Mask) -> String {
    let list: Vec<&str> = Format::ALL.iter().filter(|&&f| mask & bit(f) != 0).map(|f| f.name()).collect();
    match list.len() {
        0 => "no format".to_string(),
        1 => list[0].to_string(),
        n => format!("{} or {}", list[..n - 1].join(", "), list[n - 1]),
    }
}

fn is_uint(f: &[u8]) -> bool {
    !f.is_empty() && f.iter().all(u8::is_ascii_digit)
}

fn is_decimal(f: &[u8]) -> bool {
    let dots = f.iter().filter(|&&b| b == b'.').count();
    dots <= 1 && f.iter().any(u8::is_ascii_digit) && f.iter().all(|b| b.is_ascii_digit() || *b == b'.')
}

fn uint(f: &[u8]) -> Option<u64> {
    std::str::from_utf8(f).ok()?.parse().ok()
}

fn is_rw_letter(f: &[u8]) -> bool {
    matches!(f, b"r" | b"R" | b"w" | b"W")
}

fn is_rw_word(f: &[u8]) -> bool {
    f.eq_ignore_ascii_case(b"read") || f.eq_ignore_ascii_case(b"write")
}

/// Known CSV headers, lower case.
const HEADERS: [(Format, &str); 5] = [
    (Format::Msr, "timestamp,hostname,disknumber,type,offset,size,responsetime"),
    (Format::Systor, "timestamp,response,iotype,lun,offset,size"),
    (Format::Tencent, "timestamp,offset,size,iotype,volumeid"),
    (Format::Alibaba, "device_id,opcode,offset,length,timestamp"),
    (Format::Spc, "asu,lba,size,opcode,timestamp"),
];

/// What one line says.
enum Class {
    /// Says nothing (all-empty CSV row, an unknown header).
    Ignore,
    /// Decides the format on its own (fio header, a known CSV header).
    Certain(Format, String),
    /// The formats whose reader accepts this line, and the line's shape in words.
    Fits(Mask, String),
}

fn classify(text: &[u8], first: bool) -> Class {
    if text.contains(&0) || std::str::from_utf8(text).is_err() {
        return Class::Fits(0, "binary data".to_string());
    }
    let trimmed = text.trim_ascii();
    if first {
        for (v, f) in [(2, Format::FioV2), (3, Format::FioV3)] {
            if trimmed == format!("fio version {v} iolog").as_bytes() {
                return Class::Certain(f, format!("the first line is the header 'fio version {v} iolog'"));
            }
        }
    }
    let ws: Vec<&[u8]> = text.split(u8::is_ascii_whitespace).filter(|f| !f.is_empty()).collect();
    if ws.len() >= 6 && is_major_minor(ws[0]) {
        return Class::Fits(
            bit(Format::Blkparse),
            "a blkparse event line (major,minor cpu seq time pid action ...)".into(),
        );
    }
    if opens_summary(text) {
        return Class::Fits(bit(Format::Blkparse), "a blkparse summary line".into());
    }
    if text.contains(&b',') {
        let csv: Vec<&[u8]> = text.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
        if csv.iter().all(|f| f.is_empty()) {
            return Class::Ignore;
        }
        let shape = format!("{} comma-separated fields", csv.len());
        if first && crate::readers::line_looks_like_header(&csv) {
            let lower = String::from_utf8_lossy(trimmed).to_ascii_lowercase().replace(' ', "");
            for (f, h) in HEADERS {
                if lower == h || (f == Format::Spc && lower.starts_with(h)) {
                    return Class::Certain(f, format!("the header line names the {} columns ({})", f.name(), h));
                }
            }
            return Class::Ignore;
        }
        let mut mask = 0;
        if csv.len() == 7
            && is_uint(csv[0])
            && is_uint(csv[2])
            && is_rw_word(csv[3])
            && is_uint(csv[4])
            && is_uint(csv[5])
        {
            mask |= bit(Format::Msr);
        }
        if csv.len() >= 5
            && is_uint(csv[0])
            && is_uint(csv[1])
            && is_uint(csv[2])
            && is_rw_letter(csv[3])
            && is_decimal(csv[4])
        {
            mask |= bit(Format::Spc);
        }
        if csv.len() == 6
            && is_decimal(csv[0])
            && (csv[1].is_empty() || is_decimal(csv[1]))
            && (is_rw_letter(csv[2]) || is_rw_word(csv[2]))
            && is_uint(csv[3])
            && is_uint(csv[4])
            && is_uint(csv[5])
        {
            mask |= bit(Format::Systor);
        }
        if csv.len() == 5
            && is_decimal(csv[0])
            && is_uint(csv[1])
            && is_uint(csv[2])
            && matches!(csv[3], b"0" | b"1")
            && is_uint(csv[4])
        {
            mask |= bit(Format::Tencent);
        }
        if csv.len() == 5
            && is_uint(csv[0])
            && is_rw_letter(csv[1])
            && is_uint(csv[2])
            && is_uint(csv[3])
            && is_uint(csv[4])
        {
            mask |= bit(Format::Alibaba);
        }
        return Class::Fits(mask, shape);
    }
    let shape = format!("{} whitespace-separated fields", ws.len());
    let mut mask = 0;
    match ws.len() {
        5 if is_decimal(ws[0]) && ws[1..].iter().all(|f| is_uint(f)) => {
            let op = uint(ws[4]).unwrap_or(u64::MAX);
            mask |= bit(Format::Disksim);
            if op <= 1 {
                mask |= bits(&[Format::Flashsim, Format::Bytes5]);
                if is_uint(ws[0]) {
                    mask |= bits(&[Format::Ssdsim, Format::Mqsim]);
                }
            }
        }
        4 if ws.iter().all(|f| is_uint(f)) => mask |= bit(Format::Arc),
        n if n >= 9 => {
            let t = &ws[n - 6..];
            if is_uint(ws[0])
                && is_uint(ws[1])
                && is_uint(t[0])
                && is_uint(t[1])
                && is_rw_letter(t[2])
                && is_uint(t[3])
                && is_uint(t[4])
            {
                mask |= bit(Format::Fiu);
            }
        }
        _ => {}
    }
    Class::Fits(mask, shape)
}

/// The one format of `mask`, if it holds exactly one.
fn single(mask: Mask) -> Option<Format> {
    (mask.count_ones() == 1).then(|| Format::ALL.into_iter().find(|&f| mask & bit(f) != 0)).flatten()
}

/// What the reader of `format` says of line `number` (`text`): its error without the
/// location (`field 'Offset': invalid number '12x4'`), or `None` when it reads the line.
fn complaint(format: Format, text: &[u8], number: u64, file: &str) -> Option<String> {
    let mut line = text.to_vec();
    line.push(b'\n');
    let e = format.reader(std::io::Cursor::new(line), file).next()?.err()?;
    let e = TraceError { line: number, ..e };
    let located = e.to_string();
    let prefix = format!("{file}:{number}: ");
    Some(located.strip_prefix(&prefix).unwrap_or(&located).to_string())
}

/// Why the single remaining format was chosen.
fn reason_for(format: Format, looked: usize) -> String {
    let lines = if looked == 1 { "the first data line".to_string() } else { format!("the first {looked} data lines") };
    match format {
        Format::Msr => format!(
            "7 comma-separated fields per line on {lines}, as in MSR Cambridge CSV \
             (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)"
        ),
        _ => format!("{lines} fit the {} layout and no other", format.name()),
    }
}

/// The five-column layouts whose units differ (see the [module docs](self)).
const FIVE: [Format; 5] = [Format::Ssdsim, Format::Mqsim, Format::Disksim, Format::Flashsim, Format::Bytes5];

/// Most devices whose previous request [`Evidence`] remembers (a bound for hostile input).
const MAX_DEVICES: usize = 4096;

/// What the offset and size columns of five-column lines show about their units.
#[derive(Default)]
struct Evidence {
    lines: u64,
    /// Offset and size both multiples of 512.
    byte_aligned: u64,
    /// Offset a multiple of 8 (4 KiB-aligned when it counts sectors).
    offset_8: u64,
    /// Size a multiple of 8.
    size_8: u64,
    /// Requests starting where the previous one of their device (size >= 2) ends, with
    /// sizes read as sectors / as 4 KiB pages (8 sectors).
    seq_sectors: u64,
    seq_pages: u64,
    sizes: Vec<u64>,
    last: std::collections::HashMap<u32, (u64, u64)>,
}

/// What the evidence says.
enum Verdict {
    Yes(String),
    No(String),
    Unclear(String),
}

impl Evidence {
    fn add(&mut self, text: &[u8]) {
        let ws: Vec<&[u8]> = text.split(u8::is_ascii_whitespace).filter(|f| !f.is_empty()).collect();
        let [_, dev, off, size, _] = ws[..] else { return };
        let (Some(dev), Some(off), Some(size)) = (uint(dev).and_then(|d| u32::try_from(d).ok()), uint(off), uint(size))
        else {
            return;
        };
        self.lines += 1;
        self.byte_aligned += u64::from(off % 512 == 0 && size % 512 == 0 && size > 0);
        self.offset_8 += u64::from(off % 8 == 0);
        self.size_8 += u64::from(size % 8 == 0);
        self.sizes.push(size);
        if let Some(&(prev_off, prev_size)) = self.last.get(&dev) {
            if prev_size >= 2 {
                self.seq_sectors += u64::from(prev_off.checked_add(prev_size) == Some(off));
                self.seq_pages +=
                    u64::from(prev_size.checked_mul(8).and_then(|s| prev_off.checked_add(s)) == Some(off));
            }
        }
        if self.last.len() < MAX_DEVICES || self.last.contains_key(&dev) {
            self.last.insert(dev, (off, size));
        }
    }

    fn median(&mut self) -> u64 {
        self.sizes.sort_unstable();
        self.sizes.get(self.sizes.len() / 2).copied().unwrap_or(0)
    }

    fn summary(&mut self) -> String {
        let n = self.lines;
        let median = self.median();
        format!(
            "over {n} lines: offset and size multiples of 512 on {}, offsets multiples of 8 on {}, sizes multiples \
             of 8 on {}, median size {median}, sequential runs {} reading sizes as 512-B sectors and {} as 4 KiB pages",
            self.byte_aligned, self.offset_8, self.size_8, self.seq_sectors, self.seq_pages
        )
    }

    /// Are offsets and sizes bytes? (rule 1)
    fn bytes(&mut self) -> Verdict {
        let (n, aligned) = (self.lines, self.byte_aligned);
        let median = self.median();
        if aligned * 2 <= n {
            return Verdict::No(format!(
                "{} of {n} lines have an offset or size that is not a multiple of 512, so they are not bytes",
                n - aligned
            ));
        }
        if aligned * 100 < n * 95 {
            return Verdict::Unclear(format!(
                "{aligned} of {n} lines have offset and size in multiples of 512 (bytes?) but the others do not"
            ));
        }
        if n < MIN_BYTE_LINES {
            return Verdict::Unclear(format!(
                "every offset and size is a multiple of 512 (bytes?), but {n} line(s) are too few to tell \
                 (at least {MIN_BYTE_LINES} are needed)"
            ));
        }
        if median < 2048 {
            return Verdict::Unclear(format!(
                "{aligned} of {n} lines have offset and size in multiples of 512 and the median size is {median}: \
                 plausible as bytes and as 512-B sectors ({} KiB)",
                median / 2
            ));
        }
        Verdict::Yes(format!(
            "{aligned} of {n} lines have offset and size in multiples of 512 and the median size is {median}: \
             {median} B as bytes, while as 512-B sectors every request would be a multiple of 256 KiB and the median \
             {} MiB",
            median / 2048
        ))
    }

    /// Are sizes 512-B sectors (`Yes`) or 4 KiB pages (`No`)? (rule 2)
    fn sectors(&mut self) -> Verdict {
        let (s, p, n) = (self.seq_sectors, self.seq_pages, self.lines);
        let runs = format!(
            "{s} requests start where the previous one of their device ends reading sizes as 512-B sectors, \
             {p} reading them as 4 KiB pages"
        );
        if s >= 3 && s >= 4 * p {
            return Verdict::Yes(runs);
        }
        if p >= 3 && p >= 4 * s {
            return Verdict::No(runs);
        }
        if s >= 3 || p >= 3 {
            return Verdict::Unclear(format!("the sequential runs disagree: {runs}"));
        }
        if n >= 32 && self.offset_8 * 10 >= n * 9 {
            if self.size_8 * 10 >= n * 9 {
                return Verdict::Yes(format!(
                    "{} of {n} offsets and {} sizes are multiples of 8: whole 4 KiB blocks as sectors, while as \
                     4 KiB pages every request would be a multiple of 32 KiB",
                    self.offset_8, self.size_8
                ));
            }
            if self.size_8 * 10 <= n {
                return Verdict::No(format!(
                    "{} of {n} offsets are multiples of 8 (4 KiB-aligned sectors) but only {} sizes are: as sectors \
                     most requests would be partial 4 KiB blocks at aligned offsets",
                    self.offset_8, self.size_8
                ));
            }
        }
        let median = self.median();
        if median >= 256 {
            return Verdict::Yes(format!(
                "the median size is {median}: as 4 KiB pages the median request would be {} MiB",
                median / 256
            ));
        }
        Verdict::Unclear(format!("nothing tells 512-B sectors from 4 KiB pages ({runs}; median size {median})"))
    }
}

/// Guesses the format of a trace from its first data lines (after decompression, skipping
/// blank lines, comments and all-empty CSV rows). Returns the format and a sentence
/// saying how it was chosen, starting with the compression when there is one
/// (`"zstd-compressed, ..."`). See the [module docs](self) for the rules.
///
/// SSDSim and MQSim traces are textually identical: such a file is reported as `mqsim`
/// with a message that says so (both readers give the same records). Five-column files
/// whose units the data do not decide are an error that names the candidates.
///
/// A data line that fits no format at all, after lines that fit one, is passed over (its
/// reader reports it, naming the field at fault, or skips it with `--lenient`); the
/// message then names it.
pub fn detect_format(path: &Path) -> Result<(Format, String), TraceError> {
    let mut passed = (0, 0);
    let (format, why) = detect_passing_over(path, &mut passed)?;
    Ok(match passed {
        (0, _) => (format, why),
        (1, line) => (format, format!("{why} (line {line} fits no format: the reader reports it)")),
        (n, line) => (format, format!("{why} (line {line} and {} more fit no format: the reader reports them)", n - 1)),
    })
}

/// [`detect_format`], counting the lines passed over and the first one's number in `passed`.
fn detect_passing_over(path: &Path, passed: &mut (u64, u64)) -> Result<(Format, String), TraceError> {
    let name = path.display().to_string();
    let (input, compression) = open_decompressed(path)?;
    let mut lines = LineReader::new(input, name.clone());
    let gz =
        if compression == Compression::None { String::new() } else { format!("{}-compressed, ", compression.name()) };
    let mut blank = 0;
    let mut mask: Mask = Mask::MAX;
    let mut first_fit: Option<(u64, String)> = None;
    let mut looked = 0;
    let mut evidence = Evidence::default();
    let five = bits(&FIVE);
    while looked < EVIDENCE_LINES {
        // Past the first lines, read on only while five-column layouts remain to tell apart.
        let reading_on = looked >= DETECT_LINES;
        if reading_on && (mask & !five != 0 || mask.count_ones() < 2) {
            break;
        }
        let l = match lines.next_data_line(&mut blank) {
            None => break,
            Some(Err(_)) if reading_on => break,
            Some(Err(e)) => return Err(e),
            Some(Ok(l)) => l,
        };
        let first = first_fit.is_none() && looked == 0;
        match classify(l.text, first) {
            Class::Ignore => continue,
            Class::Certain(format, why) => return Ok((format, format!("{gz}{why}"))),
            Class::Fits(fits, shape) => {
                let next = mask & fits;
                if next == 0 && reading_on {
                    // The reader will report this line; the evidence so far stands.
                    break;
                }
                if fits == 0 && first_fit.is_some() {
                    // A line no format reads, after lines that fit: a malformed line of the
                    // file's format, which its reader reports with the field at fault (or
                    // skips with --lenient). Detection decides on the other lines.
                    if passed.0 == 0 {
                        passed.1 = l.number;
                    }
                    passed.0 += 1;
                    if passed.0 >= DETECT_LINES as u64 {
                        break;
                    }
                    continue;
                }
                looked += 1;
                if next == 0 {
                    let why = match &first_fit {
                        None if shape == "binary data" => "the data does not look like text".to_string(),
                        None => format!(
                            "line {} has {shape}, which matches no supported format ({})",
                            l.number,
                            Format::ALL.map(|f| f.name()).join(", ")
                        ),
                        Some((n, first_shape)) => {
                            let complaint = match single(mask) {
                                Some(f) => complaint(f, l.text, l.number, &name)
                                    .map(|e| format!(" (read as {f}, line {}: {e})", l.number))
                                    .unwrap_or_default(),
                                None => String::new(),
                            };
                            format!(
                                "line {n} has {first_shape} ({}) but line {} has {shape} ({}){complaint}",
                                names(mask),
                                l.number,
                                names(fits)
                            )
                        }
                    };
                    return Err(TraceError::new(
                        &name,
                        l.number,
                        "",
                        format!("cannot detect the format: {why}; pass --format"),
                    ));
                }
                mask = next;
                if mask & five != 0 {
                    evidence.add(l.text);
                }
                first_fit.get_or_insert((l.number, shape));
            }
        }
    }
    if first_fit.is_none() {
        return Err(TraceError::new(&name, 0, "", "cannot detect the format: no data lines"));
    }
    let lines_word =
        if looked == 1 { "the first data line".to_string() } else { format!("the first {looked} data lines") };
    let have = if looked == 1 { "has" } else { "have" };
    let refuse = |mask: Mask, why: String| {
        let flags: Vec<String> =
            Format::ALL.iter().filter(|&&f| mask & bit(f) != 0).map(|f| format!("--format {f}")).collect();
        TraceError::new(
            &name,
            0,
            "",
            format!(
                "cannot detect the format: {lines_word} {have} 5 numeric whitespace-separated columns, the layout of \
                 {}, whose offset and size units differ (bytes5: bytes; disksim, ssdsim, mqsim: 512-B sectors; \
                 flashsim: sizes in 4 KiB pages), and the data do not decide: {why}; pass {}",
                names(mask),
                flags.join(" or ")
            ),
        )
    };
    let only: Vec<Format> = Format::ALL.into_iter().filter(|&f| mask & bit(f) != 0).collect();
    if only.len() == 1 {
        return Ok((only[0], format!("{gz}{}", reason_for(only[0], looked))));
    }
    if mask & !five != 0 {
        // No other overlap is known; take the first candidate and say so.
        return Ok((only[0], format!("{gz}ASSUMED {}: {lines_word} fit {}", only[0].name(), names(mask))));
    }
    let mut not_bytes = String::new();
    if mask & bit(Format::Bytes5) != 0 {
        match evidence.bytes() {
            Verdict::Yes(why) => {
                let why = format!(
                    "{gz}INFERRED bytes5: {lines_word} {have} 5 numeric whitespace-separated columns (time_ms device \
                     offset size op), the layout of {}; offsets and sizes are bytes: {why}; pass --format disksim if \
                     they are 512-B sectors",
                    names(mask)
                );
                return Ok((Format::Bytes5, why));
            }
            Verdict::Unclear(why) => return Err(refuse(mask, format!("{why} ({})", evidence.summary()))),
            Verdict::No(why) => {
                mask &= !bit(Format::Bytes5);
                not_bytes = format!("{why}; ");
            }
        }
    }
    let sectors = evidence.sectors();
    if mask & bit(Format::Mqsim) != 0 {
        // Only sequential runs count here: integer five-column files are mostly SSDSim / MQSim.
        let runs_say_pages = evidence.seq_pages >= 3 && evidence.seq_pages >= 4 * evidence.seq_sectors;
        if let (Verdict::No(why), true) = (&sectors, runs_say_pages && mask & bit(Format::Flashsim) != 0) {
            return Ok((
                Format::Flashsim,
                format!(
                    "{gz}INFERRED flashsim: {lines_word} {have} 5 integer columns, the layout of {}; {not_bytes}sizes \
                     are 4 KiB pages ({why}), which only FlashSim has (time in ms); pass --format mqsim or ssdsim if \
                     they are 512-B sectors with time in ns",
                    names(mask)
                ),
            ));
        }
        return Ok((
            Format::Mqsim,
            format!(
                "{gz}ASSUMED mqsim: {lines_word} {have} 5 whitespace-separated integer columns \
                 (time device offset_sectors size_sectors op), the layout of both SSDSim and MQSim ASCII \
                 traces, which read identically (time in ns, 512-B sectors, 1 = read); {not_bytes}pass --format \
                 ssdsim to label it SSDSim, or --format disksim / flashsim if the first column is milliseconds"
            ),
        ));
    }
    if mask == bits(&[Format::Disksim, Format::Flashsim]) {
        let fractional = "5 whitespace-separated columns with a fractional first column (milliseconds), the \
                          layout of both DiskSim and FlashSim ASCII traces";
        return match sectors {
            Verdict::Yes(why) => Ok((
                Format::Disksim,
                format!(
                    "{gz}INFERRED disksim: {lines_word} {have} {fractional}; {not_bytes}sizes are 512-B sectors: {why}; \
                     pass --format flashsim if they are 4 KiB pages"
                ),
            )),
            Verdict::No(why) => Ok((
                Format::Flashsim,
                format!(
                    "{gz}INFERRED flashsim: {lines_word} {have} {fractional}; {not_bytes}sizes are 4 KiB pages: {why}; \
                     pass --format disksim if they are 512-B sectors"
                ),
            )),
            Verdict::Unclear(why) => Err(refuse(mask, format!("{not_bytes}{why}"))),
        };
    }
    Err(refuse(mask, format!("{not_bytes}{}", evidence.summary())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn detect(content: &[u8]) -> Result<(Format, String), TraceError> {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(content).unwrap();
        f.flush().unwrap();
        detect_format(f.path())
    }

    #[test]
    fn every_format_from_its_first_lines() {
        let cases: &[(Format, &str)] = &[
            (Format::Mqsim, "0 0 303567 7 0\n26214000 1 55590 6 1\n"),
            (Format::Msr, "128166385295514663,hm,0,Write,9056014336,2048,2833\n"),
            (Format::Spc, "0,303567,3584,w,0.000000\n1,55596,3072,R,0.078643\n"),
            (Format::Spc, "ASU,LBA,Size,Opcode,Timestamp\n0,303567,3584,w,0.000000\n"),
            (Format::Disksim, "26.214 0 303574 8 0\n27.5 0 303582 16 1\n28.0 0 100 64 3\n"),
            (
                Format::Flashsim,
                "26.214000\t0\t303574\t2\t0\n27.5\t0\t303590\t2\t0\n28\t0\t303606\t2\t0\n29\t0\t303622\t1\t0\n",
            ),
            (Format::Fiu, "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n"),
            (
                Format::Systor,
                "Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.133076000,0.000806000,R,0,899056122368,131072\n",
            ),
            (Format::Systor, "1456095145.133076000,0.000806000,R,0,899056122368,131072\n"),
            (Format::Blkparse, "  8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\n"),
            (Format::FioV2, "fio version 2 iolog\n/dev/sda add\n"),
            (Format::FioV3, "fio version 3 iolog\n0 /dev/sda add\n"),
            (Format::Tencent, "1538323200,126227368,8,1,1283\n1538323200,0,8,0,12\n"),
            (Format::Alibaba, "419,W,8792731648,4096,1577808000000162\n"),
            (Format::Arc, "303567 7 0 0\n55590 6 0 1\n"),
        ];
        for &(want, text) in cases {
            let (got, why) = detect(text.as_bytes()).unwrap_or_else(|e| panic!("{want}: {e}"));
            assert_eq!(got, want, "{text}: {why}");
        }
    }

    #[test]
    fn assumptions_and_inferences_are_spelled_out() {
        let (f, why) = detect(b"# a comment\n\n0 0 0 8 1\n").unwrap();
        assert_eq!(f, Format::Mqsim);
        assert!(why.starts_with("ASSUMED mqsim") && why.contains("SSDSim") && why.contains("not bytes"), "{why}");
        // Three sequential runs in sectors.
        let (f, why) = detect(b"1.5 0 0 8 1\n2.5 0 8 16 0\n3.5 0 24 16 0\n4.5 0 40 6 0\n").unwrap();
        assert_eq!(f, Format::Disksim);
        assert!(why.contains("INFERRED disksim") && why.contains("--format flashsim"), "{why}");
        // Too little to tell sectors from pages: refused, naming both.
        let e = detect(b"1.5 0 0 1 1\n").unwrap_err();
        assert!(e.message.contains("--format disksim or --format flashsim"), "{e}");
    }

    #[test]
    fn integer_first_lines_then_a_fractional_one_is_disksim_or_flashsim() {
        let (f, _) = detect(b"0 0 0 8 1\n0.5 0 8 8 0\n1 0 16 8 0\n2 0 24 8 0\n").unwrap();
        assert_eq!(f, Format::Disksim);
    }

    /// Issue 45, item 8: one line no format reads is the reader's to report (with its
    /// field), not a reason to refuse the format the other lines agree on.
    #[test]
    fn a_line_that_fits_no_format_is_passed_over() {
        let good = "128166385295514663,hm,0,Write,4096,4096,100\n";
        let text = format!("{}128166385295514663,hm,0,Write,12x4,4096,100\n{good}", good.repeat(5));
        let (f, why) = detect(text.as_bytes()).unwrap();
        assert_eq!(f, Format::Msr);
        assert!(why.ends_with("(line 6 fits no format: the reader reports it)"), "{why}");
        // A line of another format is still a mix, and says what the first format's reader
        // makes of it.
        let text = format!("{}0,1,2,r,0.5\n", good.repeat(2));
        let e = detect(text.as_bytes()).unwrap_err();
        assert!(
            e.message.contains("line 3 has 5 comma-separated fields (spc) (read as msr, line 3: field 'size': missing"),
            "{e}"
        );
    }
}
