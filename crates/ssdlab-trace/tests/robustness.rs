//! Property tests: no input makes a reader, a decompressor, format detection or the fio
//! job parser panic or loop, and well-formed lines round-trip. Plus: a malformed line in
//! every format names file, line and field.

use proptest::prelude::*;
use ssdlab_trace::{detect_format, open_trace_with, FioJob, Format, Op, Record, RecordSource, TraceOptions};
use std::io::Write;

fn drain(format: Format, bytes: Vec<u8>) -> (usize, u64) {
    drain_with(format, bytes, false)
}

fn drain_with(format: Format, bytes: Vec<u8>, lenient: bool) -> (usize, u64) {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    let mut src: Box<dyn RecordSource> = format.reader_with(std::io::Cursor::new(bytes), "fuzz", lenient);
    let mut items = 0;
    for item in &mut src {
        items += 1;
        // One item (record or error) per line at most: the reader always makes progress.
        assert!(items <= lines, "more items than lines");
        if let Err(e) = item {
            assert!(e.line >= 1 && e.line as usize <= lines, "{e}");
            assert_eq!(e.file, "fuzz");
        }
    }
    assert!(src.next().is_none(), "a finished reader stays finished");
    let reasons: u64 = src.skip_reasons().iter().map(|r| r.1).sum();
    assert_eq!(reasons, src.skipped(), "skip reasons add up");
    (items, src.skipped())
}

fn temp(content: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(content).unwrap();
    f.flush().unwrap();
    f
}

/// A good line and a bad one (line 2, or 3 after a header) per format, with the field the
/// error must name.
const MALFORMED: &[(Format, &str, u64, &str)] = &[
    (Format::Ssdsim, "0 0 0 8 1\n0 0 0 8 7\n", 2, "op"),
    (Format::Mqsim, "0 0 0 8 1\n0 0 x 8 1\n", 2, "offset"),
    (Format::Msr, "1,hm,0,Read,0,512,1\n1,hm,0,Read,0,0,1\n", 2, "size"),
    (Format::Spc, "0,1,512,r,0.1\n0,1,512,r,1e4\n", 2, "time"),
    (Format::Disksim, "0.5 0 0 8 1\n0.5 0 0 8 x\n", 2, "flags"),
    (Format::Flashsim, "0.5 0 0 1 1\n0.5 0 0 1 9\n", 2, "op"),
    (Format::Fiu, "1 1 p 0 8 W 6 0 h\n1 1 p 0 8 W six 0 h\n", 2, "device"),
    (Format::Systor, "Timestamp,Response,IOType,LUN,Offset,Size\n1.0,0,R,0,0,512\n1.0,0,X,0,0,512\n", 3, "op"),
    (Format::Blkparse, "8,0 1 1 0.1 5 D R 0 + 8 [p]\n8,0 1 2 0.2 5 D RQ 0 + 8 [p]\n", 2, "rwbs"),
    (Format::FioV2, "fio version 2 iolog\nf add\nf read 0 4096\nf move 0 4096\n", 4, "action"),
    (Format::FioV3, "fio version 3 iolog\n0 f add\n1 f read 0 4096\nsoon f read 0 4096\n", 4, "time"),
    (Format::Tencent, "1,0,8,1,1\n1,0,8,1,vol\n", 2, "device"),
    (Format::Alibaba, "1,W,0,4096,1\n1,W,0,4096,-1\n", 2, "time"),
    (Format::Arc, "0 8 0 0\n0 eight 0 1\n", 2, "size"),
    (Format::Bytes5, "0.5 0 0 4096 1\n0.5 0 0 4096 2\n", 2, "op"),
];

#[test]
fn a_malformed_line_in_every_format_names_file_line_and_field() {
    assert_eq!(MALFORMED.len(), Format::ALL.len());
    for &(format, text, line, field) in MALFORMED {
        let f = temp(text.as_bytes());
        let name = f.path().display().to_string();
        let out: Vec<_> = open_trace_with(f.path(), format, &TraceOptions::default()).unwrap().collect();
        assert!(out[0].is_ok(), "{format}: {:?}", out[0]);
        let e = out.iter().find_map(|r| r.as_ref().err()).unwrap_or_else(|| panic!("{format}: no error"));
        assert_eq!((e.file.as_str(), e.line, e.field), (name.as_str(), line, field), "{format}: {e}");
        assert!(e.to_string().starts_with(&format!("{name}:{line}: field '{field}': ")), "{format}: {e}");
        // Lenient mode skips and counts it instead.
        let o = TraceOptions { lenient: true, ..TraceOptions::default() };
        let mut src = open_trace_with(f.path(), format, &o).unwrap();
        assert!(src.by_ref().all(|r| r.is_ok()), "{format}");
        assert!(src.skip_reasons().iter().any(|r| r.0.contains("lenient")), "{format}: {:?}", src.skip_reasons());
    }
}

fn compressed(codec: u8, data: &[u8]) -> Vec<u8> {
    match codec {
        0 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        1 => zstd::encode_all(data, 1).unwrap(),
        2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        _ => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

/// Bytes that look a little like traces, so the parsers get past the first checks.
fn tracey_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(b'0'),
            Just(b'1'),
            Just(b'9'),
            Just(b' '),
            Just(b','),
            Just(b'\n'),
            Just(b'\r'),
            Just(b'-'),
            Just(b'#'),
            Just(b'R'),
            Just(b'W'),
            Just(b'D'),
            Just(b'.'),
            Just(b'+'),
            Just(b'\t'),
            any::<u8>()
        ],
        0..600,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        for format in Format::ALL {
            drain(format, bytes.clone());
        }
    }

    #[test]
    fn trace_like_bytes_never_panic(bytes in tracey_bytes()) {
        for format in Format::ALL {
            drain(format, bytes.clone());
            drain_with(format, bytes.clone(), true);
        }
    }

    #[test]
    fn lenient_readers_never_yield_a_parse_error(bytes in tracey_bytes()) {
        for format in Format::ALL {
            let src = format.reader_with(std::io::Cursor::new(bytes.clone()), "fuzz", true);
            for item in src {
                // Without I/O errors, lenient mode yields records only.
                prop_assert!(item.is_ok(), "{}: {:?}", format, item);
            }
        }
    }


    #[test]
    fn corrupt_compressed_input_is_an_error_never_a_panic(
        codec in 0u8..4,
        text in "[0-9 ]{0,400}",
        cut in 0usize..1000,
        flips in prop::collection::vec((0usize..1000, any::<u8>()), 0..4),
    ) {
        let mut data = compressed(codec, text.as_bytes());
        let keep = cut.min(data.len()).max(6.min(data.len()));
        data.truncate(keep);
        for (at, byte) in flips {
            if data.len() > 6 {
                let i = 6 + at % (data.len() - 6);
                data[i] ^= byte;
            }
        }
        let f = temp(&data);
        for format in [Format::Mqsim, Format::Arc] {
            if let Ok(src) = open_trace_with(f.path(), format, &TraceOptions { lenient: true, ..TraceOptions::default() }) {
                for item in src.take(10_000) {
                    if let Err(e) = item {
                        let empty = e.message.starts_with("no requests in the trace");
                        prop_assert!(e.message.contains("read error") || e.line >= 1 || empty, "{}", e);
                    }
                }
            }
        }
        let _ = detect_format(f.path());
    }

    #[test]
    fn detection_never_panics(bytes in tracey_bytes()) {
        let f = temp(&bytes);
        if let Ok((format, why)) = detect_format(f.path()) {
            prop_assert!(!why.is_empty(), "{}", format);
        }
    }

    #[test]
    fn fio_job_parser_never_panics(lines in prop::collection::vec("[a-z_=0-9kmg%:/,. \\[\\];#-]{0,30}", 0..12)) {
        let text = lines.join("\n");
        if let Ok(job) = FioJob::parse_ini(&text, "fuzz.fio") {
            if let Ok(src) = job.source(1 << 30) {
                let (start, len) = src.region();
                for r in src.take(200) {
                    let r = r.unwrap();
                    prop_assert!(r.offset_bytes >= start && r.offset_bytes + r.size_bytes <= start + len, "{:?}", r);
                }
            }
        }
        let _ = FioJob::parse_toml(&text, "fuzz.toml");
    }

    #[test]
    fn arbitrary_csv_rows_never_panic(rows in prop::collection::vec(prop::collection::vec("[-0-9a-zA-Z ]{0,22}", 0..10), 0..20)) {
        let text: String = rows.iter().map(|r| r.join(",") + "\r\n").collect();
        for format in [Format::Msr, Format::Spc, Format::Systor, Format::Tencent, Format::Alibaba] {
            drain(format, text.clone().into_bytes());
        }
    }

    #[test]
    fn sector_lines_round_trip(
        recs in prop::collection::vec((any::<u64>(), any::<u32>(), 0u64..(1 << 40), 1u64..(1 << 20), any::<bool>()), 1..50),
        crlf: bool,
        mqsim: bool,
    ) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let text: String = recs
            .iter()
            .map(|(t, d, o, s, read)| format!("{t} {d}\t{o}  {s} {}{eol}", u8::from(*read)))
            .collect();
        let format = if mqsim { Format::Mqsim } else { Format::Ssdsim };
        let got: Vec<Record> = format.reader(std::io::Cursor::new(text.into_bytes()), "rt").map(Result::unwrap).collect();
        let want: Vec<Record> = recs
            .iter()
            .map(|&(t, d, o, s, read)| Record {
                arrival_ns: t,
                device: d,
                offset_bytes: o * 512,
                size_bytes: s * 512,
                op: if read { Op::Read } else { Op::Write },
                hint: None,
            })
            .collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn msr_rows_round_trip(
        recs in prop::collection::vec((0u64..(u64::MAX / 100), any::<u32>(), 0u64..(1 << 50), 1u64..(1 << 24), any::<bool>()), 1..50),
        empty_tail in 0usize..5,
    ) {
        let mut text: String = recs
            .iter()
            .map(|(t, d, o, s, read)| format!("{t},host,{d},{},{o},{s},123\n", if *read { "Read" } else { "write" }))
            .collect();
        text.push_str(&",,,,,,\r\n".repeat(empty_tail));
        let mut src = Format::Msr.reader(std::io::Cursor::new(text.into_bytes()), "rt");
        let got: Vec<Record> = src.by_ref().map(Result::unwrap).collect();
        prop_assert_eq!(src.skipped(), empty_tail as u64);
        let want: Vec<Record> = recs
            .iter()
            .map(|&(t, d, o, s, read)| Record {
                arrival_ns: t * 100,
                device: d,
                offset_bytes: o,
                size_bytes: s,
                op: if read { Op::Read } else { Op::Write },
                hint: None,
            })
            .collect();
        prop_assert_eq!(got, want);
    }
}
