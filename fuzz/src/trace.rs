//! What the trace fuzz targets do with one input: the AFL binaries in `fuzz/src/bin` call
//! these functions, and `crates/ssdlab-trace/tests/fuzz_corpus.rs` includes this file to
//! replay the committed corpus through exactly the same code in `cargo test`.
//!
//! The first input byte chooses what to run; the rest is the payload. Errors from the
//! code under test are fine: only a panic (including a failed check below) or a hang is a
//! finding. Every record source is drained to its end.

use ssdlab_trace::{
    detect_format, open_decompressed, open_trace_with, Compression, FioJob, Format, Record, RecordSource, TraceOptions,
};
use std::io::{Cursor, Read};
use std::path::Path;

/// Decompressed bytes [`trace_open`] reads through a reader at most: a few hundred bytes
/// of zstd or bzip2 can expand to gigabytes, which is slow, not wrong.
pub const MAX_DECOMPRESSED_BYTES: u64 = 4 << 20;

/// Records taken from a fio job's generator at most (a `time_based` job never ends by
/// itself, by design).
pub const MAX_FIO_RECORDS: usize = 2000;

/// Device capacities a fio job is resolved against (`size=50%` etc. depend on it).
const FIO_CAPACITIES: [u64; 4] = [1 << 30, 1 << 20, 1 << 40, 12_345 * 512];

/// The format chosen by a mode byte: its low four bits, modulo the number of formats.
pub fn format_of(mode: u8) -> Format {
    Format::ALL[usize::from(mode & 0x0f) % Format::ALL.len()]
}

/// The [`TraceOptions`] chosen by a mode byte's high bits (lenient is bit 4).
pub fn options_of(mode: u8) -> TraceOptions {
    TraceOptions {
        lenient: mode & 0x10 != 0,
        device: (mode & 0x20 != 0).then_some(0),
        sort_window: if mode & 0x40 != 0 { 3 } else { 0 },
        time_window_ns: (mode & 0x80 != 0).then_some((0, 1_000_000_000)),
        ..TraceOptions::default()
    }
}

/// Pulls every item out of `src` and checks what every source promises: a record has a
/// non-zero size and an end that fits in 64 bits, a source makes progress (at most
/// `max_items` items, when given), stays finished, and its skip reasons add up.
pub fn drain(src: &mut dyn RecordSource, max_items: Option<usize>) -> usize {
    let mut items = 0;
    for item in &mut *src {
        items += 1;
        if let Some(max) = max_items {
            assert!(items <= max, "{}: more than {max} items from {max} lines", src.format_name());
        }
        match item {
            Ok(r) => {
                assert!(r.size_bytes > 0, "{}: zero-size record {r:?}", src.format_name());
                assert!(
                    r.offset_bytes.checked_add(r.size_bytes).is_some(),
                    "{}: end overflows {r:?}",
                    src.format_name()
                );
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    assert!(src.next().is_none(), "{}: a finished source yielded again", src.format_name());
    let reasons: u64 = src.skip_reasons().iter().map(|r| r.1).sum();
    assert_eq!(reasons, src.skipped(), "{}: skip reasons do not add up", src.format_name());
    items
}

/// Target `trace_reader`: the reader of [`format_of`]`(mode)` over the payload in memory,
/// lenient or not, with the device filter, sort window and time window of
/// [`options_of`]`(mode)` on top.
pub fn trace_reader(data: &[u8]) {
    let Some((&mode, payload)) = data.split_first() else { return };
    let format = format_of(mode);
    let options = options_of(mode);
    let lines = payload.iter().filter(|&&b| b == b'\n').count() + 1;
    let src = format.reader_with(Cursor::new(payload.to_vec()), "fuzz", options.lenient);
    let mut src = options.apply(src);
    drain(&mut *src, Some(lines));
    strict_matches_lenient(format, payload);
}

/// Strict and lenient mode yield the same records, and lenient mode skips exactly the
/// lines strict mode reports as errors (in memory there are no I/O errors).
fn strict_matches_lenient(format: Format, payload: &[u8]) {
    let mut strict = format.reader_with(Cursor::new(payload.to_vec()), "fuzz", false);
    let mut records = Vec::new();
    let mut errors = 0;
    for item in &mut strict {
        match item {
            Ok(r) => records.push(r),
            Err(_) => errors += 1,
        }
    }
    let mut lenient = format.reader_with(Cursor::new(payload.to_vec()), "fuzz", true);
    let lenient_records: Vec<Record> =
        lenient.by_ref().map(|item| item.expect("lenient mode in memory yields records only")).collect();
    assert!(records == lenient_records, "{format}: strict and lenient mode read different records");
    assert_eq!(strict.skipped() + errors, lenient.skipped(), "{format}: lenient skips other lines than strict rejects");
}

/// Target `trace_open`: the payload as a file at `scratch`, then what `ssdlab` does with a
/// trace path: compression sniffing and decompression, format detection, and the reader
/// of the detected format (or of [`format_of`]`(mode)` when detection fails) through
/// `open_trace_with` with [`options_of`]`(mode)`.
pub fn trace_open(data: &[u8], scratch: &Path) {
    let Some((&mode, payload)) = data.split_first() else { return };
    std::fs::write(scratch, payload).expect("cannot write the scratch file");
    let magic = &payload[..payload.len().min(Compression::MAGIC_BYTES)];
    let mut size = 0;
    if let Ok((input, compression)) = open_decompressed(scratch) {
        assert_eq!(compression, Compression::detect(magic));
        let mut limited = input.take(MAX_DECOMPRESSED_BYTES + 1);
        let mut sink = Vec::new();
        // A read error (corrupt data) ends the stream; the readers must report it.
        size = limited.read_to_end(&mut sink).map_or(sink.len() as u64, |n| n as u64);
    }
    let format = match detect_format(scratch) {
        Ok((format, why)) => {
            assert!(!why.is_empty(), "detection of {format} gave no reason");
            format
        }
        Err(e) => {
            let _ = e.to_string();
            format_of(mode)
        }
    };
    if size > MAX_DECOMPRESSED_BYTES {
        return;
    }
    if let Ok(mut src) = open_trace_with(scratch, format, &options_of(mode)) {
        drain(&mut *src, None);
    }
}

/// Target `fio_job`: the payload as a fio job file, INI (mode bit 0 clear) or TOML (set);
/// a job that parses is resolved against a capacity chosen by mode bits 1-2 and up to
/// [`MAX_FIO_RECORDS`] of its requests are generated, each inside the job's region.
pub fn fio_job(data: &[u8]) {
    let Some((&mode, payload)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(payload);
    let job = if mode & 1 == 0 { FioJob::parse_ini(&text, "fuzz.fio") } else { FioJob::parse_toml(&text, "fuzz.toml") };
    let job = match job {
        Ok(job) => job,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = (job.iodepth(), job.has_timestamps(), job.is_unbounded(), job.thinktime_ns());
    let capacity = FIO_CAPACITIES[usize::from(mode >> 1) % FIO_CAPACITIES.len()];
    let src = match job.source(capacity) {
        Ok(src) => src,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let (start, len) = src.region();
    assert!(start.checked_add(len).is_some_and(|end| end <= capacity), "region {start}+{len} > {capacity}");
    for item in src.take(MAX_FIO_RECORDS) {
        let r = item.expect("a fio generator yields records only");
        assert!(r.size_bytes > 0, "zero-size request {r:?}");
        assert!(r.offset_bytes >= start && r.offset_bytes + r.size_bytes <= start + len, "{r:?} outside the region");
    }
}
