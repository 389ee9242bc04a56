//! Hostile traces: the trace rows of docs/input-errors.md.

use super::*;

// ---------------------------------------------------------------------------------------
// Traces: malformed lines

#[test]
fn truncated_line() {
    let lab = Lab::new();
    lab.write("trunc.txt", with_line(fin(), 7, "117963996 1 55596 6"));
    expect_error(
        &lab,
        &["run", "--trace", "trunc.txt", "--format", "ssdsim"],
        &format!(
            "error: trunc.txt:7: field 'op': missing: expected 5 whitespace-separated fields for SSDSim \
             {SSDSIM_LAYOUT}, found 4"
        ),
    );
}

#[test]
fn truncated_file_mid_line() {
    // As `head -c` leaves it: the last line cut short, without a newline.
    let lab = Lab::new();
    let mut text = join(&fin());
    text.truncate(text.len() - 9);
    assert!(text.ends_with("\n1028915039 0 30"), "{text:?}");
    lab.write("cut.txt", &text);
    expect_error(
        &lab,
        &["run", "--trace", "cut.txt", "--format", "ssdsim"],
        &format!(
            "error: cut.txt:20: field 'size': missing: expected 5 whitespace-separated fields for SSDSim \
             {SSDSIM_LAYOUT}, found 3"
        ),
    );
}

#[test]
fn extra_field() {
    let lab = Lab::new();
    lab.write("extra.txt", with_line(fin(), 4, "26214000 1 240840 6 0 0"));
    expect_error(
        &lab,
        &["run", "--trace", "extra.txt", "--format", "ssdsim"],
        &format!("error: extra.txt:4: expected 5 whitespace-separated fields for SSDSim {SSDSIM_LAYOUT}, found 6"),
    );
}

#[test]
fn non_numeric_field() {
    let lab = Lab::new();
    lab.write("nonnum.txt", with_field(fin(), 5, 2, ' ', "0x3F"));
    expect_error(
        &lab,
        &["run", "--trace", "nonnum.txt", "--format", "ssdsim"],
        "error: nonnum.txt:5: field 'offset': expected a non-negative integer, got '0x3F'",
    );
}

#[test]
fn non_numeric_field_csv() {
    let lab = Lab::new();
    lab.write("nonnum.csv", with_field(msr(), 3, 5, ',', "4k"));
    expect_error(
        &lab,
        &["run", "--trace", "nonnum.csv", "--format", "msr"],
        "error: nonnum.csv:3: field 'size': expected a non-negative integer, got '4k'",
    );
}

#[test]
fn non_numeric_time_with_exponent() {
    let lab = Lab::new();
    lab.write("exp.csv", "0,303567,3584,w,0.000000\n0,303574,3584,w,1e-3\n");
    expect_error(
        &lab,
        &["run", "--trace", "exp.csv", "--format", "spc"],
        "error: exp.csv:2: field 'time': expected a non-negative decimal number, got '1e-3'",
    );
}

#[test]
fn negative_offset() {
    let lab = Lab::new();
    lab.write("neg.txt", with_field(fin(), 6, 2, ' ', "-303581"));
    expect_error(
        &lab,
        &["run", "--trace", "neg.txt", "--format", "ssdsim"],
        "error: neg.txt:6: field 'offset': negative number '-303581'",
    );
}

#[test]
fn negative_size_csv() {
    let lab = Lab::new();
    lab.write("neg.csv", with_field(msr(), 2, 5, ',', "-512"));
    expect_error(
        &lab,
        &["run", "--trace", "neg.csv", "--format", "msr"],
        "error: neg.csv:2: field 'size': negative number '-512'",
    );
}

#[test]
fn negative_decimal_time() {
    let lab = Lab::new();
    lab.write("negtime.csv", "0,303567,3584,w,0.000000\n0,303574,3584,w,-0.5\n");
    expect_error(
        &lab,
        &["run", "--trace", "negtime.csv", "--format", "spc"],
        "error: negtime.csv:2: field 'time': negative number '-0.5'",
    );
}

#[test]
fn zero_size() {
    let lab = Lab::new();
    lab.write("zero.txt", with_field(fin(), 3, 3, ' ', "0"));
    expect_error(
        &lab,
        &["run", "--trace", "zero.txt", "--format", "ssdsim"],
        "error: zero.txt:3: field 'size': zero-size request",
    );
}

#[test]
fn zero_size_lenient_is_skipped_and_counted() {
    let lab = Lab::new();
    lab.write("zero.txt", with_field(fin(), 3, 3, ' ', "0"));
    let v = lab.report(&["run", "--trace", "zero.txt", "--format", "ssdsim", "--lenient"]);
    assert_eq!(v["host"]["requests"], 19);
    assert_eq!(v["host"]["skipped_records"], 1);
}

#[test]
fn malformed_lines_lenient_are_skipped_and_counted() {
    let lab = Lab::new();
    let mut lines = fin();
    lines[1] = "0 1 55590".into();
    lines[9] = "garbage".into();
    lab.write("bad.txt", join(&lines));
    let v = lab.report(&["run", "--trace", "bad.txt", "--format", "ssdsim", "--lenient"]);
    assert_eq!(v["host"]["requests"], 18);
    assert_eq!(v["host"]["skipped_records"], 2);
}

#[test]
fn size_overflowing_64_bits() {
    let lab = Lab::new();
    // 2^55 sectors = 2^64 bytes.
    lab.write("huge.txt", with_field(fin(), 2, 3, ' ', "36028797018963968"));
    expect_error(
        &lab,
        &["run", "--trace", "huge.txt", "--format", "ssdsim"],
        "error: huge.txt:2: field 'size': '36028797018963968' sectors overflows 64 bits when converted",
    );
}

#[test]
fn number_beyond_64_bits() {
    let lab = Lab::new();
    lab.write("big.txt", with_field(fin(), 2, 0, ' ', "18446744073709551616"));
    expect_error(
        &lab,
        &["run", "--trace", "big.txt", "--format", "ssdsim"],
        "error: big.txt:2: field 'time': '18446744073709551616' does not fit in 64 bits",
    );
}

#[test]
fn request_end_beyond_64_bit_addresses() {
    let lab = Lab::new();
    // Offset 2^63 bytes, size 2^63 bytes.
    let half = "9223372036854775808";
    lab.write("end.csv", with_fields(msr(), 2, ',', &[(4, half), (5, half)]));
    expect_error(
        &lab,
        &["run", "--trace", "end.csv", "--format", "msr"],
        "error: end.csv:2: field 'size': offset 9223372036854775808 + size 9223372036854775808 bytes exceeds \
         64-bit byte addresses",
    );
}

#[test]
fn huge_size_beyond_the_device() {
    // 2^53 sectors = 2^62 bytes, far beyond the 1.3 GiB of small-tlc.
    let lab = Lab::new();
    lab.write("huge.txt", with_field(fin(), 2, 3, ' ', "9007199254740992"));
    expect_error(
        &lab,
        &["run", "--trace", "huge.txt", "--format", "ssdsim", "--set", "host.address_overflow=error"],
        "error: huge.txt:2: request 1 (write at byte 28462080): is 4611686018427387904 bytes, larger than the logical capacity of \
         1369014272 bytes",
    );
}

#[test]
fn huge_size_with_wrapping() {
    let lab = Lab::new();
    lab.write("huge.txt", with_field(fin(), 2, 3, ' ', "9007199254740992"));
    let message = lab.fails(&["run", "--trace", "huge.txt", "--format", "ssdsim"]);
    assert!(message.contains("logical capacity"), "{message}");
}

#[test]
fn offset_beyond_the_device() {
    let lab = Lab::new();
    lab.write("beyond.txt", with_field(fin(), 4, 2, ' ', "99999999999"));
    expect_error(
        &lab,
        &["run", "--trace", "beyond.txt", "--format", "ssdsim", "--set", "host.address_overflow=error"],
        "error: beyond.txt:4: request 3 (write at byte 51199999999488): ends at byte 51200000002560, beyond the logical capacity \
         of 1369014272 bytes (host.address_overflow = \"error\")",
    );
}

#[test]
fn offset_beyond_the_device_wraps_by_default() {
    let lab = Lab::new();
    lab.write("beyond.txt", with_field(fin(), 4, 2, ' ', "99999999999"));
    let v = lab.report(&["run", "--trace", "beyond.txt", "--format", "ssdsim"]);
    assert_eq!(v["host"]["requests"], 20);
    assert_eq!(v["host"]["address_remapped"], 1);
    assert_eq!(v["host"]["address_policy"], "modulo");
}

#[test]
fn unknown_opcode() {
    let lab = Lab::new();
    lab.write("op.txt", with_field(fin(), 8, 4, ' ', "2"));
    expect_error(
        &lab,
        &["run", "--trace", "op.txt", "--format", "ssdsim"],
        "error: op.txt:8: field 'op': unknown op code '2' (SSDSim uses 1 = read, 0 = write)",
    );
}

#[test]
fn unknown_opcode_csv() {
    let lab = Lab::new();
    lab.write("op.csv", with_field(msr(), 5, 3, ',', "Trim"));
    expect_error(
        &lab,
        &["run", "--trace", "op.csv", "--format", "msr"],
        "error: op.csv:5: field 'op': unknown type 'Trim' (expected Read or Write)",
    );
}

// ---------------------------------------------------------------------------------------
// Traces: timestamps

/// Financial lines 1-20 with line 10's timestamp moved before line 9's.
fn unsorted() -> String {
    let lines = fin();
    let earlier = lines[2].split(' ').next().unwrap().to_string();
    with_field(lines, 10, 0, ' ', &earlier)
}

#[test]
fn unsorted_timestamps_are_counted_and_served_at_once() {
    let lab = Lab::new();
    lab.write("unsorted.txt", unsorted());
    let v = lab.report(&["run", "--trace", "unsorted.txt", "--format", "ssdsim"]);
    assert_eq!(v["host"]["requests"], 20);
    assert_eq!(v["host"]["out_of_order"], 1);
}

#[test]
fn unsorted_timestamps_with_a_sort_window() {
    let lab = Lab::new();
    lab.write("unsorted.txt", unsorted());
    let v = lab.report(&["run", "--trace", "unsorted.txt", "--format", "ssdsim", "--sort-window", "16"]);
    assert_eq!(v["host"]["requests"], 20);
    assert_eq!(v["host"]["out_of_order"], 0);
}

#[test]
fn an_arrival_past_the_clocks_horizon() {
    // blktrace's last event on a CPU whose clock was never set reads 40 years; slowed
    // 1000-fold it would overflow the u64 nanosecond clock.
    let lab = Lab::new();
    lab.write("bogus.txt", "0 0 0 8 0\n1266874889708668759 0 8 8 1\n");
    let e = lab.fails(&["run", "--trace", "bogus.txt", "--format", "ssdsim", "--speed", "0.001"]);
    assert!(e.starts_with("error: bogus.txt:2: request 1 (read at byte 4096): arrives 1266874889709 s"), "{e}");
    assert!(e.contains("horizon of 146 years") && e.contains("--time-window"), "{e}");
    let v =
        lab.report(&["run", "--trace", "bogus.txt", "--format", "ssdsim", "--speed", "0.001", "--time-window", "0:1"]);
    assert_eq!(v["host"]["requests"], 1);
}

#[test]
fn real_unsorted_trace_systor() {
    // SYSTOR '17 rows are in completion order: arrivals go backwards.
    let lab = Lab::new();
    let t = traces().join("systor17_vdi/systor-traces-sample.csv").display().to_string();
    let v = lab.report(&["run", "--trace", &t, "--format", "systor"]);
    let backwards = v["host"]["out_of_order"].as_u64().unwrap();
    assert!(backwards > 100, "{backwards}");
    let v = lab.report(&["run", "--trace", &t, "--format", "systor", "--sort-window", "1000"]);
    assert_eq!(v["host"]["out_of_order"], 0);
    assert_eq!(v["host"]["requests"], 999);
}

// ---------------------------------------------------------------------------------------
// Traces: whole files

#[test]
fn empty_file() {
    let lab = Lab::new();
    lab.write("empty.txt", "");
    expect_error(
        &lab,
        &["run", "--trace", "empty.txt", "--format", "ssdsim"],
        "error: empty.txt: no requests in the trace (the file has no data lines)",
    );
}

#[test]
fn empty_file_detection() {
    let lab = Lab::new();
    lab.write("empty.txt", "");
    expect_error(&lab, &["run", "--trace", "empty.txt"], "error: empty.txt: cannot detect the format: no data lines");
}

#[test]
fn blank_lines_only() {
    let lab = Lab::new();
    lab.write("blank.txt", "\n  \r\n# a comment\n\n");
    expect_error(
        &lab,
        &["run", "--trace", "blank.txt", "--format", "ssdsim"],
        "error: blank.txt: no requests in the trace (skipped blank line: 3)",
    );
}

#[test]
fn header_only() {
    let lab = Lab::new();
    lab.write("header.csv", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n");
    expect_error(
        &lab,
        &["run", "--trace", "header.csv", "--format", "msr"],
        "error: header.csv: no requests in the trace (skipped header line: 1)",
    );
}

#[test]
fn every_line_skipped_by_lenient_mode() {
    let lab = Lab::new();
    lab.write("allbad.txt", "0 0 0 0 1\nnonsense\n");
    expect_error(
        &lab,
        &["run", "--trace", "allbad.txt", "--format", "ssdsim", "--lenient"],
        "error: allbad.txt: no requests in the trace (skipped zero-size request (lenient): 1, malformed line \
         (lenient): 1)",
    );
}

#[test]
fn device_filter_keeps_nothing() {
    let lab = Lab::new();
    lab.write("fin.txt", join(&fin()));
    expect_error(
        &lab,
        &["run", "--trace", "fin.txt", "--format", "ssdsim", "--device", "7"],
        "error: fin.txt: no requests in the trace (skipped other device (device filter): 20)",
    );
}

/// Deterministic binary garbage (xorshift), with a few newlines.
fn garbage(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn binary_garbage() {
    let lab = Lab::new();
    lab.write("garbage.bin", garbage(4096));
    expect_error(
        &lab,
        &["run", "--trace", "garbage.bin", "--format", "ssdsim"],
        "error: garbage.bin:1: binary data, not a line of text (NUL or control bytes, or invalid UTF-8); \
         this reader needs a text trace, plain or gzip / zstd / bzip2 / xz-compressed",
    );
}

#[test]
fn binary_garbage_detection() {
    let lab = Lab::new();
    lab.write("garbage.bin", garbage(4096));
    expect_error(
        &lab,
        &["run", "--trace", "garbage.bin"],
        "error: garbage.bin:1: cannot detect the format: the data does not look like text; pass --format",
    );
}

#[test]
fn binary_without_newlines() {
    // 100 KiB of zero bytes: one "line" longer than the reader's 64 KiB limit.
    let lab = Lab::new();
    lab.write("zeros.bin", vec![0u8; 100 * 1024]);
    expect_error(
        &lab,
        &["run", "--trace", "zeros.bin", "--format", "msr"],
        &format!(
            "error: zeros.bin:1: line longer than 65536 bytes (starts '{}…'); is this a text trace?",
            "\\0".repeat(60)
        ),
    );
}

// ---------------------------------------------------------------------------------------
// Traces: corrupt compressed files

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[test]
fn gzip_truncated() {
    let lab = Lab::new();
    let mut data = gzip(join(&fin()).as_bytes());
    data.truncate(data.len() / 2);
    lab.write("cut.gz", data);
    expect_error(
        &lab,
        &["run", "--trace", "cut.gz", "--format", "ssdsim"],
        "error: cut.gz:8: read error: incomplete deflate stream",
    );
}

#[test]
fn gzip_checksum_mismatch() {
    let lab = Lab::new();
    let mut data = gzip(join(&fin()).as_bytes());
    let n = data.len();
    data[n - 8] ^= 0xFF; // first byte of the CRC-32 trailer
    lab.write("crc.gz", data);
    expect_error(
        &lab,
        &["run", "--trace", "crc.gz", "--format", "ssdsim"],
        "error: crc.gz:21: read error: corrupt gzip stream does not have a matching checksum",
    );
}

#[test]
fn gzip_corrupt_deflate_block() {
    let lab = Lab::new();
    let mut data = gzip(join(&fin()).as_bytes());
    data[10] |= 0b110; // the first block's type becomes 3 (reserved)
    lab.write("block.gz", data);
    expect_error(
        &lab,
        &["run", "--trace", "block.gz", "--format", "ssdsim"],
        "error: block.gz:1: read error: corrupt deflate stream",
    );
}

/// XXH64 with seed 0: zstd's content checksum is its low 32 bits.
fn xxh64(data: &[u8]) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    const P4: u64 = 0x85EB_CA77_C2B2_AE63;
    const P5: u64 = 0x27D4_EB2F_1656_67C5;
    let round = |acc: u64, lane: u64| acc.wrapping_add(lane.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
    let merge = |h: u64, v: u64| (h ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4);
    let u64_at = |b: &[u8]| u64::from_le_bytes(b[..8].try_into().unwrap());
    let mut rest = data;
    let mut h = if data.len() >= 32 {
        let mut v = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)];
        while rest.len() >= 32 {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, u64_at(&rest[i * 8..]));
            }
            rest = &rest[32..];
        }
        let h = v[0].rotate_left(1).wrapping_add(v[1].rotate_left(7)).wrapping_add(v[2].rotate_left(12));
        v.iter().fold(h.wrapping_add(v[3].rotate_left(18)), |h, &lane| merge(h, lane))
    } else {
        P5
    };
    h = h.wrapping_add(data.len() as u64);
    while rest.len() >= 8 {
        h = (h ^ round(0, u64_at(rest))).rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        rest = &rest[8..];
    }
    if rest.len() >= 4 {
        let lane = u32::from_le_bytes(rest[..4].try_into().unwrap()) as u64;
        h = (h ^ lane.wrapping_mul(P1)).rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = &rest[4..];
    }
    for &byte in rest {
        h = (h ^ (byte as u64).wrapping_mul(P5)).rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// A valid zstd frame (RFC 8878) holding `data` in raw (stored) blocks, with the content
/// checksum: what `zstd` writes for incompressible data, built here so the test needs no
/// zstd encoder.
fn zstd_stored(data: &[u8]) -> Vec<u8> {
    const MAX_BLOCK: usize = 128 * 1024;
    // Magic; frame header: checksum flag, window descriptor 2^17 bytes.
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD, 0b0000_0100, 7 << 3];
    let chunks: Vec<&[u8]> = if data.is_empty() { vec![data] } else { data.chunks(MAX_BLOCK).collect() };
    for (i, chunk) in chunks.iter().enumerate() {
        let last = u32::from(i + 1 == chunks.len());
        let header = last | ((chunk.len() as u32) << 3); // block type 0 = raw
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&(xxh64(data) as u32).to_le_bytes());
    out
}

#[test]
fn zstd_stored_frame_is_valid() {
    // The uncorrupted frame replays: the builder above is right.
    let lab = Lab::new();
    lab.write("fin.zst", zstd_stored(join(&fin()).as_bytes()));
    let v = lab.report(&["run", "--trace", "fin.zst", "--format", "ssdsim"]);
    assert_eq!(v["host"]["requests"], 20);
}

#[test]
fn zstd_truncated() {
    let lab = Lab::new();
    let mut data = zstd_stored(join(&fin()).as_bytes());
    data.truncate(data.len() / 2);
    lab.write("cut.zst", data);
    expect_error(
        &lab,
        &["run", "--trace", "cut.zst", "--format", "ssdsim"],
        "error: cut.zst:11: read error: incomplete frame",
    );
}

#[test]
fn zstd_checksum_mismatch() {
    let lab = Lab::new();
    let text = join(&fin());
    let mut data = zstd_stored(text.as_bytes());
    // A digit of line 5's offset becomes another digit: the line would still parse, but
    // the frame's checksum does not match (checked before any of this small frame is
    // passed on, hence line 1).
    let at = text.match_indices('\n').nth(3).unwrap().0 + 12;
    assert!(text.as_bytes()[at].is_ascii_digit());
    data[9 + at] ^= 1;
    lab.write("flip.zst", data);
    expect_error(
        &lab,
        &["run", "--trace", "flip.zst", "--format", "ssdsim"],
        "error: flip.zst:1: read error: Restored data doesn't match checksum",
    );
}

#[test]
fn zstd_corrupt_block_header() {
    let lab = Lab::new();
    let mut data = zstd_stored(join(&fin()).as_bytes());
    data[6] |= 0b110; // block type 3 (reserved)
    lab.write("block.zst", data);
    expect_error(
        &lab,
        &["run", "--trace", "block.zst", "--format", "ssdsim"],
        "error: block.zst:1: read error: Data corruption detected",
    );
}

// ---------------------------------------------------------------------------------------
// Traces: line ends and byte-order marks parse fine

#[test]
fn crlf_line_ends() {
    let lab = Lab::new();
    let text: String = fin().iter().map(|l| format!("{l}\r\n")).collect();
    lab.write("crlf.txt", text);
    assert_eq!(lab.report(&["run", "--trace", "crlf.txt", "--format", "ssdsim"])["host"]["requests"], 20);
    assert_eq!(lab.report(&["run", "--trace", "crlf.txt"])["host"]["requests"], 20);
}

#[test]
fn crlf_line_ends_csv() {
    let lab = Lab::new();
    let text: String = msr().iter().map(|l| format!("{l}\r\n")).collect();
    lab.write("crlf.csv", text);
    assert_eq!(lab.report(&["run", "--trace", "crlf.csv", "--format", "msr"])["host"]["requests"], 20);
}

#[test]
fn utf8_bom() {
    let lab = Lab::new();
    lab.write("bom.txt", format!("\u{FEFF}{}", join(&fin())));
    assert_eq!(lab.report(&["run", "--trace", "bom.txt", "--format", "ssdsim"])["host"]["requests"], 20);
    assert_eq!(lab.report(&["run", "--trace", "bom.txt"])["host"]["requests"], 20);
}

#[test]
fn utf8_bom_crlf_and_header_csv() {
    let lab = Lab::new();
    let mut text = "\u{FEFF}Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\r\n".to_string();
    text.extend(msr().iter().map(|l| format!("{l}\r\n")));
    lab.write("bom.csv", text);
    let v = lab.report(&["run", "--trace", "bom.csv"]);
    assert_eq!(v["host"]["requests"], 20);
    assert_eq!(v["host"]["skipped_records"], 1);
}
