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
//!   says which format was **assumed** and why, so a wrong guess is impossible to miss:
//!   - SSDSim vs MQSim (5 integer columns, identical layout, both 1 = read): `mqsim`;
//!   - DiskSim vs FlashSim (fractional first column): by the size column — median below 8
//!     means 4 KiB pages (`flashsim`), else 512-B sectors (`disksim`);
//!   - integer first column that could also be DiskSim/FlashSim milliseconds: `mqsim`.

use crate::open::{open_decompressed, Compression, Format};
use crate::readers::blkparse::{is_major_minor, opens_summary};
use crate::readers::LineReader;
use crate::TraceError;
use std::path::Path;

/// How many data lines [`detect_format`] looks at.
pub const DETECT_LINES: usize = 32;

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

fn classify(text: &[u8], first: bool, sizes: &mut Vec<u64>) -> Class {
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
            if let Some(size) = uint(ws[3]) {
                sizes.push(size);
            }
            mask |= bit(Format::Disksim);
            if op <= 1 {
                mask |= bit(Format::Flashsim);
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

/// Guesses the format of a trace from its first data lines (after decompression, skipping
/// blank lines, comments and all-empty CSV rows). Returns the format and a sentence
/// saying how it was chosen, starting with the compression when there is one
/// (`"zstd-compressed, ..."`). See the [module docs](self) for the rules.
///
/// SSDSim and MQSim traces are textually identical: such a file is reported as `mqsim`
/// with a message that says so (both readers give the same records).
pub fn detect_format(path: &Path) -> Result<(Format, String), TraceError> {
    let name = path.display().to_string();
    let (input, compression) = open_decompressed(path)?;
    let mut lines = LineReader::new(input, name.clone());
    let gz =
        if compression == Compression::None { String::new() } else { format!("{}-compressed, ", compression.name()) };
    let mut blank = 0;
    let mut mask: Mask = Mask::MAX;
    let mut first_fit: Option<(u64, String)> = None;
    let mut looked = 0;
    let mut sizes = Vec::new();
    while looked < DETECT_LINES {
        let l = match lines.next_data_line(&mut blank) {
            None => break,
            Some(Err(e)) => return Err(e),
            Some(Ok(l)) => l,
        };
        let first = first_fit.is_none() && looked == 0;
        match classify(l.text, first, &mut sizes) {
            Class::Ignore => continue,
            Class::Certain(format, why) => return Ok((format, format!("{gz}{why}"))),
            Class::Fits(fits, shape) => {
                looked += 1;
                let next = mask & fits;
                if next == 0 {
                    let why = match &first_fit {
                        None if shape == "binary data" => "the data does not look like text".to_string(),
                        None => format!(
                            "line {} has {shape}, which matches no supported format ({})",
                            l.number,
                            Format::ALL.map(|f| f.name()).join(", ")
                        ),
                        Some((n, first_shape)) => format!(
                            "line {n} has {first_shape} ({}) but line {} has {shape} ({})",
                            names(mask),
                            l.number,
                            names(fits)
                        ),
                    };
                    return Err(TraceError::new(
                        &name,
                        l.number,
                        "",
                        format!("cannot detect the format: {why}; pass --format"),
                    ));
                }
                mask = next;
                first_fit.get_or_insert((l.number, shape));
            }
        }
    }
    if first_fit.is_none() {
        return Err(TraceError::new(&name, 0, "", "cannot detect the format: no data lines"));
    }
    let only: Vec<Format> = Format::ALL.into_iter().filter(|&f| mask & bit(f) != 0).collect();
    let lines_word =
        if looked == 1 { "the first data line".to_string() } else { format!("the first {looked} data lines") };
    let (format, why) = if only.len() == 1 {
        (only[0], reason_for(only[0], looked))
    } else if mask & bit(Format::Mqsim) != 0 {
        (
            Format::Mqsim,
            format!(
                "ASSUMED mqsim: {lines_word} have 5 whitespace-separated integer columns \
                 (time device offset_sectors size_sectors op), the layout of both SSDSim and MQSim ASCII \
                 traces, which read identically (time in ns, 512-B sectors, 1 = read); pass --format ssdsim to \
                 label it SSDSim, or --format disksim / flashsim if the first column is milliseconds"
            ),
        )
    } else if mask & bits(&[Format::Disksim, Format::Flashsim]) == bits(&[Format::Disksim, Format::Flashsim]) {
        sizes.sort_unstable();
        let median = sizes.get(sizes.len() / 2).copied().unwrap_or(0);
        let (f, unit, other) = if median < 8 {
            (Format::Flashsim, "4 KiB pages (FlashSim)", "disksim if they are 512-B sectors")
        } else {
            (Format::Disksim, "512-B sectors (DiskSim)", "flashsim if they are 4 KiB pages")
        };
        (
            f,
            format!(
                "ASSUMED {}: {lines_word} have 5 whitespace-separated columns with a fractional first column \
                 (milliseconds), the layout of both DiskSim and FlashSim ASCII traces; the size column's median \
                 is {median}, so sizes were read as {unit}; pass --format {other}",
                f.name()
            ),
        )
    } else {
        // No other overlap is known; take the first candidate and say so.
        (only[0], format!("ASSUMED {}: {lines_word} fit {}", only[0].name(), names(mask)))
    };
    Ok((format, format!("{gz}{why}")))
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
            (Format::Flashsim, "26.214000\t0\t303574\t1\t0\n78.643000\t0\t55596\t2\t1\n"),
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
    fn assumptions_are_spelled_out() {
        let (f, why) = detect(b"# a comment\n\n0 0 0 8 1\n").unwrap();
        assert_eq!(f, Format::Mqsim);
        assert!(why.starts_with("ASSUMED mqsim") && why.contains("SSDSim"), "{why}");
        let (f, why) = detect(b"1.5 0 0 8 1\n2.5 0 8 16 0\n3.5 0 8 16 0\n").unwrap();
        assert_eq!(f, Format::Disksim);
        assert!(why.contains("ASSUMED disksim") && why.contains("median is 16"), "{why}");
        let (f, why) = detect(b"1.5 0 0 1 1\n").unwrap();
        assert_eq!(f, Format::Flashsim);
        assert!(why.contains("--format disksim"), "{why}");
    }

    #[test]
    fn integer_first_lines_then_a_fractional_one_is_disksim_or_flashsim() {
        let (f, _) = detect(b"0 0 0 8 1\n0.5 0 8 8 0\n").unwrap();
        assert_eq!(f, Format::Disksim);
    }
}
