//! Property tests: no input makes a reader panic or loop, and well-formed lines round-trip.

use proptest::prelude::*;
use ssdlab_trace::{Format, Op, Record, RecordSource};

fn drain(format: Format, bytes: Vec<u8>) -> (usize, u64) {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    let mut src: Box<dyn RecordSource> = format.reader(std::io::Cursor::new(bytes), "fuzz");
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
    (items, src.skipped())
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
        }
    }

    #[test]
    fn arbitrary_csv_rows_never_panic(rows in prop::collection::vec(prop::collection::vec("[-0-9a-zA-Z ]{0,22}", 0..10), 0..20)) {
        let text: String = rows.iter().map(|r| r.join(",") + "\r\n").collect();
        drain(Format::Msr, text.into_bytes());
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
