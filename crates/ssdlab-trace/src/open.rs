//! Opening a trace file by path: format names, transparent decompression, format
//! detection, [`TraceOptions`] and the one-pass [`scan_span`] summary.
//!
//! Decompression is chosen from the file's first bytes, never from its name, in one place:
//! [`Compression`]. Adding a codec means adding a variant, its magic bytes in
//! [`Compression::detect`] and its decoder in `Compression::decoder`; nothing else changes.

use crate::options::{apply_options, RequireRecords, TimeUnit, TraceOptions};
use crate::readers::{
    AlibabaReader, ArcReader, BlkparseReader, Bytes5Reader, DisksimReader, FioIologReader, FiuReader, FlashsimReader,
    MqsimReader, MsrReader, SpcReader, SsdsimReader, SystorReader, TencentReader,
};
use crate::stats::TraceStats;
use crate::summary::{summarize, TraceSummary};
use crate::{RecordSource, TraceError};
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::str::FromStr;

pub use crate::detect::detect_format;

/// Buffer size for reading trace files.
const BUF_BYTES: usize = 128 * 1024;

/// A format's parser of a whole common line ([`Format::fast_line`]).
pub(crate) type FastLine = fn(&[u8]) -> Option<(crate::Record, usize)>;

/// A supported text trace format. Each reader's module in [`crate::readers`] documents
/// its columns, units and device column; `docs/trace-formats.md` has them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// SSDSim ASCII: `time_ns device lsn_sectors size_sectors op(1=read,0=write)`.
    Ssdsim,
    /// MQSim ASCII: `time_ns device lba_sectors size_sectors type(0=write,1=read)`.
    Mqsim,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// UMass SPC CSV: `ASU,LBA,Size,Opcode,Timestamp[,...]`.
    Spc,
    /// DiskSim ASCII: `arrival_ms devno blkno bcount flags(bit0 1=read)`.
    Disksim,
    /// FlashSim ASCII: `time_ms dev lba_sectors size_4KiB_pages op(1=read)`.
    Flashsim,
    /// FIU IODedup: `ts_ns pid process lba nsectors R|W major minor md5`.
    Fiu,
    /// SNIA SYSTOR '17 CSV: `Timestamp,Response,IOType,LUN,Offset,Size` (with header).
    Systor,
    /// blkparse default text output; D (issue) events are replayed.
    Blkparse,
    /// fio iolog version 2 (`fio version 2 iolog`).
    FioV2,
    /// fio iolog version 3 (`fio version 3 iolog`), timestamps in µs.
    FioV3,
    /// SNIA Tencent CBS CSV: `Timestamp,Offset,Size,IOType,VolumeID`.
    Tencent,
    /// SNIA Alibaba block CSV: `device_id,opcode,offset,length,timestamp`.
    Alibaba,
    /// ARC `.lis`: `start_block nblocks ignore request_no`, reads only, no time.
    Arc,
    /// Byte-unit five columns: `time_ms device offset_bytes size_bytes op(1=read,0=write)`.
    Bytes5,
}

impl Format {
    pub const ALL: [Format; 15] = [
        Format::Ssdsim,
        Format::Mqsim,
        Format::Msr,
        Format::Spc,
        Format::Disksim,
        Format::Flashsim,
        Format::Fiu,
        Format::Systor,
        Format::Blkparse,
        Format::FioV2,
        Format::FioV3,
        Format::Tencent,
        Format::Alibaba,
        Format::Arc,
        Format::Bytes5,
    ];

    /// The name used on the command line and in [`RecordSource::format_name`].
    /// The parser of a whole common line, for the formats that have one: the line at the
    /// start of the bytes given, made into the record its reader gives for it, and the
    /// index of its end (`\n` or the end of the bytes); `None` for any line the reader
    /// parses otherwise, skips or reports (`crate::prepass`).
    pub(crate) fn fast_line(self) -> Option<FastLine> {
        match self {
            Format::Ssdsim => Some(crate::readers::ssdsim::fast_line),
            Format::Mqsim => Some(crate::readers::mqsim::fast_line),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Ssdsim => "ssdsim",
            Format::Mqsim => "mqsim",
            Format::Msr => "msr",
            Format::Spc => "spc",
            Format::Disksim => "disksim",
            Format::Flashsim => "flashsim",
            Format::Fiu => "fiu",
            Format::Systor => "systor",
            Format::Blkparse => "blkparse",
            Format::FioV2 => "fio-v2",
            Format::FioV3 => "fio-v3",
            Format::Tencent => "tencent",
            Format::Alibaba => "alibaba",
            Format::Arc => "arc",
            Format::Bytes5 => "bytes5",
        }
    }

    /// One line describing the layout, for help texts.
    pub fn description(self) -> &'static str {
        match self {
            Format::Ssdsim => "SSDSim ASCII: time_ns device lsn_sectors size_sectors op (1=read, 0=write)",
            Format::Mqsim => "MQSim ASCII: time_ns device lba_sectors size_sectors type (0=write, 1=read)",
            Format::Msr => "MSR Cambridge CSV: Timestamp(100ns),Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
            Format::Spc => "UMass SPC CSV: ASU,LBA(sectors),Size(bytes),Opcode(r/w),Timestamp(s)",
            Format::Disksim => "DiskSim ASCII: arrival_ms devno blkno(sectors) bcount(sectors) flags(bit0 1=read)",
            Format::Flashsim => "FlashSim ASCII: time_ms dev lba(sectors) size(4 KiB pages) op(1=read, 0=write)",
            Format::Fiu => "FIU text: ts_ns pid process lba(sectors) nsectors R|W major minor md5",
            Format::Systor => "SYSTOR'17 CSV: Timestamp(Unix s),Response,IOType(R/W),LUN,Offset(bytes),Size(bytes)",
            Format::Blkparse => {
                "blkparse text: maj,min cpu seq time_s pid action rwbs sector + nsectors [proc] (D events)"
            }
            Format::FioV2 => "fio iolog v2: file read|write|trim offset length (bytes); wait usec",
            Format::FioV3 => "fio iolog v3: time_us file read|write|trim offset length (bytes)",
            Format::Tencent => {
                "Tencent CBS CSV: Timestamp(Unix s),Offset(sectors),Size(sectors),IOType(0=read),VolumeID"
            }
            Format::Alibaba => "Alibaba CSV: device_id,opcode(R/W),offset(bytes),length(bytes),timestamp(Unix us)",
            Format::Arc => "ARC .lis: start_block nblocks(512 B) ignore request_no (reads only, no time)",
            Format::Bytes5 => "byte-unit 5 columns: time_ms device offset(bytes) size(bytes) op (1=read, 0=write)",
        }
    }

    /// The column that becomes [`Record::device`](crate::Record::device), or `None` when the
    /// format has none (every record is device 0).
    pub fn device_column(self) -> Option<&'static str> {
        match self {
            Format::Ssdsim | Format::Mqsim | Format::Bytes5 => Some("device"),
            Format::Msr => Some("DiskNumber"),
            Format::Spc => Some("ASU"),
            Format::Disksim => Some("devno"),
            Format::Flashsim => Some("dev"),
            Format::Fiu => Some("major,minor (as major << 20 | minor)"),
            Format::Systor => Some("LUN"),
            Format::Blkparse => Some("maj,min (as major << 20 | minor)"),
            Format::FioV2 | Format::FioV3 => Some("file name (numbered in order of appearance)"),
            Format::Tencent => Some("VolumeID"),
            Format::Alibaba => Some("device_id"),
            Format::Arc => None,
        }
    }

    /// False for formats whose records carry no meaningful arrival time: `arc` (every record
    /// at 0) and `fio-v2` (the clock only moves at optional `wait` lines). Replay those
    /// closed-loop.
    pub fn has_timestamps(self) -> bool {
        !matches!(self, Format::Arc | Format::FioV2)
    }

    /// A reader of this format over any buffered input (a decompressed file, stdin, a
    /// byte slice). `file` names the input in error messages.
    pub fn reader<R: BufRead + Send + 'static>(self, input: R, file: impl Into<String>) -> Box<dyn RecordSource> {
        self.reader_with(input, file, false)
    }

    /// Like [`reader`](Format::reader), with lenient mode on or off (malformed lines and
    /// zero-size requests skipped and counted instead of errors).
    pub fn reader_with<R: BufRead + Send + 'static>(
        self,
        input: R,
        file: impl Into<String>,
        lenient: bool,
    ) -> Box<dyn RecordSource> {
        self.build(input, file, lenient, None)
    }

    /// A reader with the reader-level [`TraceOptions`] applied: lenient mode and the time
    /// unit. (The device, sort and time-window filters go on top:
    /// [`TraceOptions::apply`], or [`open_trace_with`] for a file.)
    pub fn reader_with_options<R: BufRead + Send + 'static>(
        self,
        input: R,
        file: impl Into<String>,
        options: &TraceOptions,
    ) -> Box<dyn RecordSource> {
        self.build(input, file, options.lenient, options.time_unit)
    }

    fn build<R: BufRead + Send + 'static>(
        self,
        input: R,
        file: impl Into<String>,
        lenient: bool,
        unit: Option<TimeUnit>,
    ) -> Box<dyn RecordSource> {
        match self {
            Format::Ssdsim => Box::new(SsdsimReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Mqsim => Box::new(MqsimReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Msr => Box::new(MsrReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Spc => Box::new(SpcReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Disksim => Box::new(DisksimReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Flashsim => Box::new(FlashsimReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Fiu => Box::new(FiuReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Systor => Box::new(SystorReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Blkparse => Box::new(BlkparseReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::FioV2 => Box::new(FioIologReader::new(input, file, 2).lenient(lenient).time_unit(unit)),
            Format::FioV3 => Box::new(FioIologReader::new(input, file, 3).lenient(lenient).time_unit(unit)),
            Format::Tencent => Box::new(TencentReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Alibaba => Box::new(AlibabaReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Arc => Box::new(ArcReader::new(input, file).lenient(lenient).time_unit(unit)),
            Format::Bytes5 => Box::new(Bytes5Reader::new(input, file).lenient(lenient).time_unit(unit)),
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

    /// Accepts the [`name`](Format::name)s in any letter case, with `_` for `-`, and the
    /// aliases `fio2`/`fiov2`, `fio3`/`fiov3`, `umass` (spc), `lis` (arc), `cbs`
    /// (tencent), `blktrace` (blkparse), `bytes` / `byte5` (bytes5).
    fn from_str(s: &str) -> Result<Self, String> {
        let key = s.trim().to_ascii_lowercase().replace('_', "-");
        let alias = match key.as_str() {
            "fio2" | "fiov2" => Some(Format::FioV2),
            "fio3" | "fiov3" => Some(Format::FioV3),
            "umass" => Some(Format::Spc),
            "lis" => Some(Format::Arc),
            "cbs" => Some(Format::Tencent),
            "blktrace" => Some(Format::Blkparse),
            "bytes" | "byte5" => Some(Format::Bytes5),
            _ => None,
        };
        alias.or_else(|| Format::ALL.into_iter().find(|f| f.name() == key)).ok_or_else(|| {
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
    /// Zstandard (`28 b5 2f fd`, or a skippable frame `5? 2a 4d 18`), multi-frame.
    Zstd,
    /// bzip2 (`BZh1`..`BZh9`), including concatenated streams.
    Bzip2,
    /// xz (`fd 37 7a 58 5a 00`), including concatenated streams.
    Xz,
}

impl Compression {
    /// How many leading bytes [`detect`](Compression::detect) may look at (enough for the
    /// magic numbers of gzip, zstd, bzip2 and xz).
    pub const MAGIC_BYTES: usize = 6;

    /// The compression whose magic number `prefix` starts with.
    pub fn detect(prefix: &[u8]) -> Compression {
        if prefix.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if prefix.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            || (prefix.len() >= 4 && prefix[0] & 0xf0 == 0x50 && prefix[1..4] == [0x2a, 0x4d, 0x18])
        {
            Compression::Zstd
        } else if prefix.len() >= 4 && prefix.starts_with(b"BZh") && (b'1'..=b'9').contains(&prefix[3]) {
            Compression::Bzip2
        } else if prefix.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }

    /// The decompressed stream, buffered. Corrupt data surfaces later as an I/O error from
    /// the stream, which the readers report as a `read error` and stop.
    fn decoder(self, raw: impl Read + Send + 'static) -> io::Result<Box<dyn BufRead + Send>> {
        Ok(match self {
            Compression::None => Box::new(BufReader::with_capacity(BUF_BYTES, raw)),
            Compression::Gzip => Box::new(BufReader::with_capacity(BUF_BYTES, flate2::read::MultiGzDecoder::new(raw))),
            Compression::Zstd => Box::new(BufReader::with_capacity(BUF_BYTES, zstd::stream::read::Decoder::new(raw)?)),
            Compression::Bzip2 => Box::new(BufReader::with_capacity(BUF_BYTES, bzip2::read::MultiBzDecoder::new(raw))),
            Compression::Xz => {
                Box::new(BufReader::with_capacity(BUF_BYTES, liblzma::read::XzDecoder::new_multi_decoder(raw)))
            }
        })
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
    let input = compression
        .decoder(raw)
        .map_err(|e| TraceError::new(&name, 0, "", format!("cannot start the {} decoder: {e}", compression.name())))?;
    Ok((input, compression))
}

/// The compression of the file at `path`, from its magic bytes.
pub fn detect_compression(path: &Path) -> Result<Compression, TraceError> {
    open_decompressed(path).map(|(_, c)| c)
}

/// Opens a trace of the given format, decompressing it if needed.
pub fn open_trace(path: &Path, format: Format) -> Result<Box<dyn RecordSource>, TraceError> {
    let (input, _) = open_decompressed(path)?;
    Ok(format.reader(input, display(path)))
}

/// Checks `options` on their own and for `format` (a time unit needs a time column).
pub fn validate_options_for(format: Format, options: &TraceOptions) -> Result<(), String> {
    options.validate()?;
    match (options.time_unit, format.has_timestamps()) {
        (Some(unit), false) => Err(format!("time unit {unit}: the {format} format has no time column to read in it")),
        _ => Ok(()),
    }
}

/// Opens a trace of the given format with [`TraceOptions`] applied: lenient parsing, then
/// the device filter, then the sort window, then the time window (see [`TraceOptions`]).
/// Invalid options are an error on field `"options"`. A trace that yields no request at
/// all ends with an error (`no requests in the trace (…)`, line 0) instead of an empty run.
pub fn open_trace_with(
    path: &Path,
    format: Format,
    options: &TraceOptions,
) -> Result<Box<dyn RecordSource>, TraceError> {
    let name = display(path);
    validate_options_for(format, options).map_err(|m| TraceError::new(&name, 0, "options", m))?;
    let (input, _) = open_decompressed(path)?;
    let source = apply_options(format.reader_with_options(input, name.clone(), options), options);
    Ok(Box::new(RequireRecords::new(source, name)))
}

/// One streaming pass over a trace: counts and extents (see [`TraceSummary`]).
/// Stops at the first malformed line and returns its error.
pub fn scan_span(path: &Path, format: Format) -> Result<TraceSummary, TraceError> {
    summarize(&mut *open_trace(path, format)?)
}

/// [`scan_span`] with [`TraceOptions`] applied.
pub fn scan_span_with(path: &Path, format: Format, options: &TraceOptions) -> Result<TraceSummary, TraceError> {
    summarize(&mut *open_trace_with(path, format, options)?)
}

/// One streaming pass computing the full [`TraceStats`] (for `ssdlab trace-stats`).
pub fn scan_stats(path: &Path, format: Format, options: &TraceOptions) -> Result<TraceStats, TraceError> {
    TraceStats::collect(&mut *open_trace_with(path, format, options)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TraceOptions;
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
        assert_eq!("fio_v2".parse::<Format>(), Ok(Format::FioV2));
        assert_eq!("FIO3".parse::<Format>(), Ok(Format::FioV3));
        assert_eq!("lis".parse::<Format>(), Ok(Format::Arc));
        let e = "blktrace2".parse::<Format>().unwrap_err();
        assert!(e.contains("'blktrace2'") && e.contains("ssdsim, mqsim, msr, spc"), "{e}");
        assert!(!Format::Arc.has_timestamps() && !Format::FioV2.has_timestamps() && Format::FioV3.has_timestamps());
        assert_eq!(Format::Arc.device_column(), None);
    }

    #[test]
    fn compression_by_magic() {
        assert_eq!(Compression::detect(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Compression::Zstd);
        assert_eq!(Compression::detect(&[0x5e, 0x2a, 0x4d, 0x18]), Compression::Zstd);
        assert_eq!(Compression::detect(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(Compression::detect(b"BZh0"), Compression::None);
        assert_eq!(Compression::detect(&[0xfd, b'7', b'z', b'X', b'Z', 0]), Compression::Xz);
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

    fn compress(c: Compression, data: &[u8]) -> Vec<u8> {
        match c {
            Compression::Gzip => gzip(data),
            Compression::Zstd => zstd::encode_all(data, 1).unwrap(),
            Compression::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            _ => data.to_vec(),
        }
    }

    const CODECS: [Compression; 4] = [Compression::Gzip, Compression::Zstd, Compression::Bzip2, Compression::Xz];

    #[test]
    fn every_codec_single_and_concatenated() {
        let text = b"0 0 0 8 1\n10 1 8 8 0\n";
        let want: Vec<_> = Format::Ssdsim.reader(&text[..], "x").map(Result::unwrap).collect();
        let read = |p: &Path| open_trace(p, Format::Ssdsim).unwrap().map(Result::unwrap).collect::<Vec<_>>();
        for c in CODECS {
            let one = temp(&compress(c, text));
            assert_eq!(open_decompressed(one.path()).unwrap().1, c);
            assert_eq!(read(one.path()), want, "{c}");
            let mut two = compress(c, b"0 0 0 8 1\n");
            two.extend(compress(c, b"10 1 8 8 0\n"));
            let multi = temp(&two);
            assert_eq!(read(multi.path()), want, "{c} concatenated");
        }
    }

    #[test]
    fn truncated_or_corrupt_compressed_data_is_a_read_error() {
        let text = b"0 0 0 8 1\n".repeat(5000);
        for c in CODECS {
            let full = compress(c, &text);
            let mut corrupt = full.clone();
            let n = corrupt.len();
            corrupt[n / 3..2 * n / 3].iter_mut().for_each(|b| *b ^= 0x5a);
            for (what, data) in [("truncated", &full[..full.len() / 2]), ("corrupt", &corrupt[..])] {
                let f = temp(data);
                let out: Vec<_> = open_trace(f.path(), Format::Ssdsim).unwrap().collect();
                let last = out.last().unwrap().as_ref().unwrap_err();
                assert!(last.message.contains("read error"), "{c} {what}: {last}");
                assert!(out.len() < 5001, "{c} {what}");
                // Lenient mode does not hide a broken file.
                let o = TraceOptions { lenient: true, ..TraceOptions::default() };
                let out: Vec<_> = open_trace_with(f.path(), Format::Ssdsim, &o).unwrap().collect();
                assert!(out.last().unwrap().as_ref().is_err_and(|e| e.message.contains("read error")), "{c} {what}");
            }
        }
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
    fn a_trace_without_requests_is_an_error() {
        let o = TraceOptions::default();
        for (content, detail) in [
            (&b""[..], "the file has no data lines"),
            (b"# only a comment\n", "the file has no data lines"),
            (b"\n\n", "skipped blank line: 2"),
        ] {
            let f = temp(content);
            let out: Vec<_> = open_trace_with(f.path(), Format::Ssdsim, &o).unwrap().collect();
            assert_eq!(out.len(), 1);
            let e = out[0].as_ref().unwrap_err();
            assert_eq!((e.line, e.message.as_str()), (0, format!("no requests in the trace ({detail})").as_str()));
        }
        let f = temp(b"0 3 0 8 1\n");
        let o = TraceOptions { device: Some(1), ..TraceOptions::default() };
        let out: Vec<_> = open_trace_with(f.path(), Format::Ssdsim, &o).unwrap().collect();
        assert!(out[0].as_ref().unwrap_err().message.contains("other device (device filter): 1"), "{out:?}");
        // A trace with requests ends normally.
        let f = temp(b"0 0 0 8 1\n");
        assert_eq!(open_trace_with(f.path(), Format::Ssdsim, &TraceOptions::default()).unwrap().count(), 1);
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
        assert!(why.contains("header line names the msr columns"), "{why}");
        let g = temp(&gzip(b",,,,,,\n1,hm,0,Read,0,512,1\n"));
        let (format, why) = detect_format(g.path()).unwrap();
        assert_eq!(format, Format::Msr);
        assert!(why.starts_with("gzip-compressed") && why.contains("7 comma-separated"), "{why}");
    }

    #[test]
    fn five_columns_are_assumed_mqsim_and_say_so() {
        let f = temp(b"# a comment\n\n0 0 0 8 1\n");
        let (format, why) = detect_format(f.path()).unwrap();
        assert_eq!(format, Format::Mqsim);
        assert!(why.contains("ASSUMED mqsim") && why.contains("--format ssdsim"), "{why}");
    }

    #[test]
    fn undetectable_inputs() {
        for (content, needle) in [
            (&b""[..], "no data lines"),
            (b",,,,,,\n", "no data lines"),
            (b"1,2,3\n", "3 comma-separated"),
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
