//! Opening a trace file by path: format names, transparent decompression, format
//! detection and the one-pass [`scan_span`] summary.
//!
//! Decompression is chosen from the file's first bytes, never from its name, in one place:
//! [`Compression`]. Adding zstd, bzip2 or xz means adding a variant, its magic bytes in
//! [`Compression::detect`] and its decoder in `Compression::decoder`; nothing else changes.

use crate::readers::{LineReader, MqsimReader, MsrReader, SsdsimReader};
use crate::summary::{summarize, TraceSummary};
use crate::{RecordSource, TraceError};
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::str::FromStr;

/// Buffer size for reading trace files.
const BUF_BYTES: usize = 128 * 1024;

/// How many data lines [`detect_format`] looks at.
const DETECT_LINES: usize = 16;

/// A supported text trace format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// SSDSim ASCII: `time_ns device lsn_sectors size_sectors op(1=read,0=write)`.
    Ssdsim,
    /// MQSim ASCII: `time_ns device lba_sectors size_sectors type(0=write,1=read)`.
    Mqsim,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Ssdsim, Format::Mqsim, Format::Msr];

    /// The name used on the command line and in [`RecordSource::format_name`].
    pub fn name(self) -> &'static str {
        match self {
            Format::Ssdsim => "ssdsim",
            Format::Mqsim => "mqsim",
            Format::Msr => "msr",
        }
    }

    /// One line describing the layout, for help texts.
    pub fn description(self) -> &'static str {
        match self {
            Format::Ssdsim => "SSDSim ASCII: time_ns device lsn_sectors size_sectors op (1=read, 0=write)",
            Format::Mqsim => "MQSim ASCII: time_ns device lba_sectors size_sectors type (0=write, 1=read)",
            Format::Msr => "MSR Cambridge CSV: Timestamp(100ns),Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
        }
    }

    /// A reader of this format over any buffered input (a decompressed file, stdin, a
    /// byte slice). `file` names the input in error messages.
    pub fn reader<R: BufRead + Send + 'static>(self, input: R, file: impl Into<String>) -> Box<dyn RecordSource> {
        match self {
            Format::Ssdsim => Box::new(SsdsimReader::new(input, file)),
            Format::Mqsim => Box::new(MqsimReader::new(input, file)),
            Format::Msr => Box::new(MsrReader::new(input, file)),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    /// Accepts the [`name`](Format::name)s, in any letter case.
    fn from_str(s: &str) -> Result<Self, String> {
        Format::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(s.trim())).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            format!("unknown trace format '{s}' (expected one of: {})", names.join(", "))
        })
    }
}

/// How a trace file's bytes are compressed, recognised by magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    None,
    /// gzip (`1f 8b`), including concatenated multi-member files.
    Gzip,
}

impl Compression {
    /// How many leading bytes [`detect`](Compression::detect) may look at (enough for the
    /// magic numbers of gzip, zstd, bzip2 and xz).
    pub const MAGIC_BYTES: usize = 6;

    /// The compression whose magic number `prefix` starts with.
    pub fn detect(prefix: &[u8]) -> Compression {
        if prefix.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else {
            Compression::None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
        }
    }

    /// The decompressed stream, buffered.
    fn decoder(self, raw: impl Read + Send + 'static) -> Box<dyn BufRead + Send> {
        match self {
            Compression::None => Box::new(BufReader::with_capacity(BUF_BYTES, raw)),
            Compression::Gzip => Box::new(BufReader::with_capacity(BUF_BYTES, flate2::read::MultiGzDecoder::new(raw))),
        }
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Opens `path` and returns its decompressed contents as a buffered stream, with the
/// compression that was detected. Errors carry line 0.
pub fn open_decompressed(path: &Path) -> Result<(Box<dyn BufRead + Send>, Compression), TraceError> {
    let name = display(path);
    let open_err = |e: io::Error| TraceError::new(&name, 0, "", format!("cannot open: {e}"));
    let mut file = File::open(path).map_err(open_err)?;
    if file.metadata().map_err(open_err)?.is_dir() {
        return Err(TraceError::new(&name, 0, "", "is a directory, not a trace file"));
    }
    let mut magic = [0u8; Compression::MAGIC_BYTES];
    let mut got = 0;
    while got < magic.len() {
        match file.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(TraceError::new(&name, 0, "", format!("cannot read: {e}"))),
        }
    }
    let compression = Compression::detect(&magic[..got]);
    // Put the magic bytes back in front of the rest of the file.
    let raw = Cursor::new(magic[..got].to_vec()).chain(file);
    Ok((compression.decoder(raw), compression))
}

/// Opens a trace of the given format, decompressing it if needed.
pub fn open_trace(path: &Path, format: Format) -> Result<Box<dyn RecordSource>, TraceError> {
    let (input, _) = open_decompressed(path)?;
    Ok(format.reader(input, display(path)))
}

/// One streaming pass over a trace: counts and extents (see [`TraceSummary`]).
/// Stops at the first malformed line and returns its error.
pub fn scan_span(path: &Path, format: Format) -> Result<TraceSummary, TraceError> {
    summarize(&mut *open_trace(path, format)?)
}

/// The layout of one line, as far as format detection cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Fields separated by commas (count).
    Csv(usize),
    /// Fields separated by whitespace (count).
    Whitespace(usize),
    /// Not text.
    Binary,
}

impl Shape {
    fn of(text: &[u8]) -> Shape {
        if text.contains(&0) || std::str::from_utf8(text).is_err() {
            Shape::Binary
        } else if text.contains(&b',') {
            Shape::Csv(text.split(|&b| b == b',').count())
        } else {
            Shape::Whitespace(text.split(u8::is_ascii_whitespace).filter(|f| !f.is_empty()).count())
        }
    }

    fn describe(self) -> String {
        match self {
            Shape::Csv(n) => format!("{n} comma-separated fields"),
            Shape::Whitespace(n) => format!("{n} whitespace-separated fields"),
            Shape::Binary => "binary data".to_string(),
        }
    }
}

/// Guesses the format of a trace from its first data lines (after decompression, skipping
/// blank lines, comments and all-empty CSV rows). Returns the format and the reason.
///
/// SSDSim and MQSim traces have the same five-column layout and cannot be told apart, so a
/// five-column file is an error whose message asks for `--format ssdsim` or
/// `--format mqsim`; so is anything unrecognised or inconsistent.
pub fn detect_format(path: &Path) -> Result<(Format, String), TraceError> {
    let name = display(path);
    let (input, compression) = open_decompressed(path)?;
    let mut lines = LineReader::new(input, name.clone());
    let mut blank = 0;
    let mut seen: Option<(Shape, u64)> = None;
    let mut looked = 0;
    while looked < DETECT_LINES {
        let l = match lines.next_data_line(&mut blank) {
            None => break,
            Some(Err(e)) => return Err(e),
            Some(Ok(l)) => l,
        };
        if l.text.iter().all(|&b| b == b',' || b.is_ascii_whitespace()) {
            continue; // an all-empty CSV row
        }
        let shape = Shape::of(l.text);
        looked += 1;
        match seen {
            None => seen = Some((shape, l.number)),
            Some((first, first_line)) if first != shape => {
                return Err(TraceError::new(
                    &name,
                    l.number,
                    "",
                    format!(
                        "cannot detect the format: line {first_line} has {} but line {} has {}; \
                         pass --format",
                        first.describe(),
                        l.number,
                        shape.describe()
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    let gz =
        if compression == Compression::None { String::new() } else { format!("{}-compressed, ", compression.name()) };
    let (shape, line) = seen.ok_or_else(|| TraceError::new(&name, 0, "", "cannot detect the format: no data lines"))?;
    let fail = |why: String| Err(TraceError::new(&name, line, "", format!("cannot detect the format: {why}")));
    match shape {
        Shape::Csv(7) => Ok((
            Format::Msr,
            format!(
                "{gz}7 comma-separated fields per line, as in MSR Cambridge CSV \
                 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)"
            ),
        )),
        Shape::Whitespace(5) => fail(
            "5 whitespace-separated columns (time device offset_sectors size_sectors op) is the \
             layout of both SSDSim and MQSim ASCII traces, which cannot be told apart from the \
             text; pass --format ssdsim or --format mqsim"
                .to_string(),
        ),
        Shape::Csv(n) => fail(format!("{n} comma-separated fields; the supported CSV format (msr) has 7")),
        Shape::Whitespace(n) => {
            fail(format!("{n} whitespace-separated fields; the supported whitespace formats (ssdsim, mqsim) have 5"))
        }
        Shape::Binary => fail("the data does not look like text".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn temp(content: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(content).unwrap();
        f.flush().unwrap();
        f
    }

    fn gzip(content: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(content).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            assert_eq!(f.to_string(), f.name());
            assert_eq!(f.reader(&b""[..], "x").format_name(), f.name());
        }
        assert_eq!("MSR".parse::<Format>(), Ok(Format::Msr));
        let e = "blkparse".parse::<Format>().unwrap_err();
        assert!(e.contains("'blkparse'") && e.contains("ssdsim, mqsim, msr"), "{e}");
    }

    #[test]
    fn compression_by_magic() {
        assert_eq!(Compression::detect(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::detect(&[0x1f]), Compression::None);
        assert_eq!(Compression::detect(b"0 0 1 8 1"), Compression::None);
        assert_eq!(Compression::detect(b""), Compression::None);
    }

    #[test]
    fn plain_gzip_and_multi_member_gzip_read_the_same() {
        let text = b"0 0 0 8 1\n10 1 8 8 0\n";
        let plain = temp(text);
        let gz = temp(&gzip(text));
        let mut two = gzip(b"0 0 0 8 1\n");
        two.extend(gzip(b"10 1 8 8 0\n"));
        let multi = temp(&two);
        let read = |p: &Path| open_trace(p, Format::Ssdsim).unwrap().map(Result::unwrap).collect::<Vec<_>>();
        let want = read(plain.path());
        assert_eq!(want.len(), 2);
        assert_eq!(read(gz.path()), want);
        assert_eq!(read(multi.path()), want);
        assert_eq!(open_decompressed(gz.path()).unwrap().1, Compression::Gzip);
    }

    #[test]
    fn tiny_and_empty_files() {
        for content in [&b""[..], b"\n", b"5"] {
            let f = temp(content);
            let out: Vec<_> = open_trace(f.path(), Format::Mqsim).unwrap().collect();
            assert!(out.len() <= 1);
        }
    }

    #[test]
    fn corrupt_gzip_is_an_error_and_ends_the_stream() {
        let mut data = gzip(&b"0 0 0 8 1\n".repeat(1000));
        let n = data.len();
        data[n / 2..].fill(0xAA);
        let f = temp(&data);
        let out: Vec<_> = open_trace(f.path(), Format::Ssdsim).unwrap().collect();
        let last = out.last().unwrap().as_ref().unwrap_err();
        assert!(last.message.contains("read error"), "{last}");
    }

    #[test]
    fn missing_file_and_directory() {
        let e = open_trace(Path::new("/nonexistent/trace.csv"), Format::Msr).err().unwrap();
        assert_eq!((e.line, e.file.as_str()), (0, "/nonexistent/trace.csv"));
        assert!(e.message.starts_with("cannot open"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = open_trace(dir.path(), Format::Msr).err().unwrap();
        assert!(e.message.contains("directory"), "{e}");
    }

    #[test]
    fn detects_msr_with_header_and_empty_rows() {
        let f = temp(b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,hm,0,Read,0,512,1\n,,,,,,\n");
        let (format, why) = detect_format(f.path()).unwrap();
        assert_eq!(format, Format::Msr);
        assert!(why.contains("7 comma-separated"), "{why}");
        let g = temp(&gzip(b"1,hm,0,Read,0,512,1\n"));
        let (format, why) = detect_format(g.path()).unwrap();
        assert_eq!(format, Format::Msr);
        assert!(why.starts_with("gzip-compressed"), "{why}");
    }

    #[test]
    fn five_columns_are_ambiguous() {
        let f = temp(b"# a comment\n\n0 0 0 8 1\n");
        let e = detect_format(f.path()).unwrap_err();
        assert!(e.message.contains("--format ssdsim or --format mqsim"), "{e}");
        assert_eq!(e.line, 3);
    }

    #[test]
    fn undetectable_inputs() {
        for (content, needle) in [
            (&b""[..], "no data lines"),
            (b",,,,,,\n", "no data lines"),
            (b"a,b,c\n", "3 comma-separated"),
            (b"1 2 3\n", "3 whitespace-separated"),
            (b"0 0 0 8 1\n1,hm,0,Read,0,512,1\n", "line 1 has 5 whitespace"),
            (b"\x00\x01\x02\n", "not look like text"),
        ] {
            let f = temp(content);
            let e = detect_format(f.path()).unwrap_err();
            assert!(e.message.contains(needle), "{needle}: {e}");
        }
    }

    #[test]
    fn scan_span_summarises() {
        let f = temp(b"100 0 16 8 1\n200 0 0 8 0\n150 3 4 4 1\n");
        let s = scan_span(f.path(), Format::Mqsim).unwrap();
        assert_eq!(s.format, "mqsim");
        assert_eq!((s.requests, s.reads, s.writes), (3, 2, 1));
        assert_eq!(s.total_bytes, 20 * 512);
        assert_eq!(s.max_end_bytes, 24 * 512);
        assert_eq!(s.min_offset_bytes, Some(0));
        assert_eq!((s.first_arrival_ns, s.last_arrival_ns), (Some(100), Some(150)));
        let bad = temp(b"100 0 16 8 1\n200 0 0 0 0\n");
        let e = scan_span(bad.path(), Format::Mqsim).unwrap_err();
        assert_eq!((e.line, e.field), (2, "size"));
    }
}
