//! Hostile input, end to end: every row of `docs/input-errors.md` is one test here. Each
//! runs the built `ssdlab` binary on an input written to a temporary folder (mostly real
//! trace lines, from `$SSDLAB_TRACES`, then damaged) and checks the exit status, that
//! nothing panicked and the exact error text: file, line and field.
//!
//! The inputs are named as in the table and the binary runs inside the temporary folder,
//! so the messages carry the same short file names as the document.
//!
//! The property tests that feed arbitrary TOML-ish text and `--set` overrides to the
//! config loader are in `config_fuzz.rs`.

mod common;
use common::*;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No case may take longer than this (a hang is a failure, not a stuck test run).
const TIMEOUT: Duration = Duration::from_secs(300);

/// The first `n` lines of a real trace.
fn real_lines(rel: &str, n: usize) -> Vec<String> {
    let path = traces().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<String> = text.lines().take(n).map(str::to_string).collect();
    assert_eq!(lines.len(), n, "{} is shorter than {n} lines", path.display());
    lines
}

/// Financial1 in SSDSim ASCII (`time_ns device lsn size_sectors op`), 20 lines.
fn fin() -> Vec<String> {
    real_lines("umass_spc/example.ascii", 20)
}

/// MSR Cambridge CSV, 20 lines.
fn msr() -> Vec<String> {
    real_lines("msr_cambridge/msr-cambridge1-sample.csv", 20)
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `lines` with line `n` (1-based) replaced.
fn with_line(mut lines: Vec<String>, n: usize, text: &str) -> String {
    lines[n - 1] = text.to_string();
    join(&lines)
}

/// `lines` with field `i` (0-based) of line `n` (1-based) replaced; `sep` splits fields.
fn with_field(lines: Vec<String>, n: usize, i: usize, sep: char, value: &str) -> String {
    with_fields(lines, n, sep, &[(i, value)])
}

/// `lines` with several fields of line `n` replaced.
fn with_fields(lines: Vec<String>, n: usize, sep: char, values: &[(usize, &str)]) -> String {
    let mut fields: Vec<String> = lines[n - 1].split(sep).map(str::to_string).collect();
    for &(i, value) in values {
        fields[i] = value.to_string();
    }
    let line = fields.join(&sep.to_string());
    with_line(lines, n, &line)
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A temporary folder to write inputs to and run `ssdlab` in.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Self {
        Lab { dir: tempfile::tempdir().expect("temporary folder") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) -> &Self {
        std::fs::write(self.path(name), content).expect("write input");
        self
    }

    /// Runs `ssdlab ARGS` in the folder, killing it after [`TIMEOUT`].
    fn run(&self, args: &[&str]) -> Run {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ssdlab");
        let drain = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                pipe.read_to_end(&mut bytes).ok();
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let out = drain(Box::new(child.stdout.take().expect("stdout")));
        let err = drain(Box::new(child.stderr.take().expect("stderr")));
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for ssdlab") {
                break status;
            }
            if started.elapsed() > TIMEOUT {
                child.kill().ok();
                child.wait().ok();
                panic!("ssdlab {args:?} still running after {TIMEOUT:?}: it hangs on this input");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Run { code: status.code(), stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
    }

    /// Runs a command that must fail cleanly; returns its error message: stderr from the
    /// first `error: ` on (earlier lines are notes such as the detected format).
    fn fails(&self, args: &[&str]) -> String {
        let run = self.run(args);
        assert!(!run.stderr.contains("panicked"), "ssdlab {args:?} panicked:\n{}", run.stderr);
        assert!(
            run.code.is_some_and(|c| c != 0),
            "ssdlab {args:?} should fail, exited {:?}:\n{}\n{}",
            run.code,
            run.stdout,
            run.stderr
        );
        let at = run.stderr.find("error: ").unwrap_or_else(|| panic!("no 'error: ' in stderr:\n{}", run.stderr));
        run.stderr[at..].trim_end().to_string()
    }

    /// Runs a command that must succeed; returns the JSON report it wrote (`--json out.json`
    /// is appended to the arguments).
    fn report(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend(["--quiet", "--no-wall-clock", "--json", "out.json"]);
        let run = self.run(&all);
        assert!(!run.stderr.contains("panicked"), "ssdlab {all:?} panicked:\n{}", run.stderr);
        assert_eq!(run.code, Some(0), "ssdlab {all:?} failed:\n{}", run.stderr);
        let text = std::fs::read_to_string(self.path("out.json")).expect("JSON report");
        serde_json::from_str(&text).expect("valid JSON")
    }
}

/// Asserts the message of a failing command.
fn expect_error(lab: &Lab, args: &[&str], message: &str) {
    assert_eq!(lab.fails(args), message, "ssdlab {args:?}");
}

const SSDSIM_LAYOUT: &str = "(time_ns device offset_sectors size_sectors op)";

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

// ---------------------------------------------------------------------------------------
// Configs

fn check(lab: &Lab, name: &str, toml: &str, message: &str) {
    lab.write(name, toml);
    expect_error(lab, &["check-config", name], message);
}

#[test]
fn zero_geometry() {
    check(
        &Lab::new(),
        "zero.toml",
        "[geometry]\nchannels = 0\n",
        "error: invalid configuration:\n  zero.toml: geometry.channels: must be at least 1",
    );
}

#[test]
fn zero_pages_per_block() {
    check(
        &Lab::new(),
        "zero.toml",
        "[geometry]\npages_per_block = 0\n",
        "error: invalid configuration:\n  zero.toml: geometry.pages_per_block: must be at least 1",
    );
}

#[test]
fn zero_geometry_in_a_run() {
    let lab = Lab::new();
    lab.write("zero.toml", "[geometry]\nplanes_per_die = 0\n");
    expect_error(
        &lab,
        &["run", "--config", "zero.toml"],
        "error: invalid configuration:\n  zero.toml: geometry.planes_per_die: must be at least 1",
    );
}

#[test]
fn pages_per_block_not_whole_wordlines() {
    check(
        &Lab::new(),
        "wordlines.toml",
        "[geometry]\npages_per_block = 100\n\n[flash]\ncell = \"tlc\"\n",
        "error: invalid configuration:\n  wordlines.toml: geometry.pages_per_block: must be a multiple of the 3 bits \
         per cell (whole wordlines)",
    );
}

#[test]
fn latencies_do_not_match_the_cell() {
    check(
        &Lab::new(),
        "mlc.toml",
        "[flash]\ncell = \"mlc\"\n",
        "error: invalid configuration:\n  mlc.toml: flash.read_latency_ns: needs 2 entries (one per page type of Mlc), \
         has 3\n  mlc.toml: flash.program_latency_ns: needs 2 entries (one per page type of Mlc), has 3",
    );
}

#[test]
fn subpages_do_not_divide_the_page() {
    check(
        &Lab::new(),
        "subpages.toml",
        "[geometry]\nsubpages_per_page = 3\n",
        "error: invalid configuration:\n  subpages.toml: geometry.subpages_per_page: must divide \
         geometry.page_size_bytes",
    );
}

#[test]
fn geometry_too_large() {
    check(
        &Lab::new(),
        "huge.toml",
        "[geometry]\nchannels = 4294967295\nchips_per_channel = 4294967295\nblocks_per_plane = 4294967295\n",
        "error: invalid configuration:\n  huge.toml: geometry: 60847228768453712935910551584000 physical pages exceed \
         the 2^32-1 addressable by the model",
    );
}

/// All four plane-count fields at u32::MAX: their product overflows 64 bits, which the
/// SLC layout's plane count once did before the range checks (found by the fuzz test).
#[test]
fn plane_count_beyond_64_bits() {
    let text = "[geometry]\nchannels = 4294967295\nchips_per_channel = 4294967295\ndies_per_chip = 4294967295\n\
                planes_per_die = 4294967295\n";
    let lab = Lab::new();
    lab.write("planes.toml", text);
    let err = lab.fails(&["check-config", "planes.toml"]);
    assert!(err.contains("planes.toml: geometry: ") && err.contains("exceed the 2^32-1"), "{err}");
}

#[test]
fn over_provisioning_too_small_for_gc() {
    check(
        &Lab::new(),
        "op.toml",
        "[ftl]\nover_provisioning = 0.05\ngc_emergency_free_fraction = 0.05\n",
        "error: invalid configuration:\n  op.toml: ftl.over_provisioning: 25.6 spare blocks per plane cannot cover the \
         26 free blocks emergency GC keeps (gc_emergency_free_fraction, at least 2) plus two write points; raise \
         over_provisioning or blocks_per_plane, or lower the emergency threshold",
    );
}

#[test]
fn emergency_threshold_above_background() {
    check(
        &Lab::new(),
        "gc.toml",
        "[ftl]\ngc_background_free_fraction = 0.02\ngc_emergency_free_fraction = 0.05\n",
        "error: invalid configuration:\n  gc.toml: ftl.gc_emergency_free_fraction: must not exceed \
         ftl.gc_background_free_fraction",
    );
}

#[test]
fn zero_latency() {
    check(
        &Lab::new(),
        "lat.toml",
        "[flash]\nread_latency_ns = [0, 90000, 120000]\nerase_latency_ns = 0\n",
        "error: invalid configuration:\n  lat.toml: flash.read_latency_ns: latencies must be positive\n  lat.toml: \
         flash.erase_latency_ns: must be positive",
    );
}

#[test]
fn absurd_latency() {
    // 10 s per MSB program: a unit mix-up (ms written as ns, or µs as ps).
    check(
        &Lab::new(),
        "lat.toml",
        "[flash]\nprogram_latency_ns = [500000, 2000000, 10000000000]\n",
        "error: invalid configuration:\n  lat.toml: flash.program_latency_ns: 10000000000 ns is implausible (at most \
         1000000000 ns, one second)",
    );
}

#[test]
fn absurd_latency_override() {
    let lab = Lab::new();
    expect_error(
        &lab,
        &["run", "--set", "flash.erase_latency_ns=9223372036854775807"],
        "error: invalid configuration:\n  preset small-tlc: flash.erase_latency_ns: 9223372036854775807 ns is \
         implausible (at most 1000000000 ns, one second)",
    );
}

#[test]
fn absurd_transfer_time() {
    let lab = Lab::new();
    expect_error(
        &lab,
        &["run", "--set", "flash.transfer_ns_per_byte=1e300"],
        "error: invalid configuration:\n  preset small-tlc: flash.transfer_ns_per_byte: 1e300 ns per byte is \
         implausible (at most 1000, a 1 MB/s channel)",
    );
}

#[test]
fn unknown_key_with_suggestion() {
    check(
        &Lab::new(),
        "typo.toml",
        "[geometry]\nchannels = 4\nchanels = 4\n",
        "error: typo.toml:3: unknown key 'chanels' (did you mean 'channels'?)",
    );
}

#[test]
fn unknown_section_with_suggestion() {
    check(
        &Lab::new(),
        "typo.toml",
        "seed = 3\n\n[geometri]\nchannels = 4\n",
        "error: typo.toml:3: unknown key 'geometri' (did you mean 'geometry'?)",
    );
}

#[test]
fn unknown_key_without_suggestion() {
    check(
        &Lab::new(),
        "typo.toml",
        "[host]\nwarp_drive = true\n",
        "error: typo.toml:2: unknown key 'warp_drive'; valid keys here: replay, queue_depth, speed_factor, runs, \
         address_overflow, trace_span_bytes, unwritten_reads, request_overhead_ns, burst_gap_ns, \
         time_unit",
    );
}

#[test]
fn unknown_key_in_an_override() {
    let lab = Lab::new();
    expect_error(
        &lab,
        &["run", "--set", "ftl.gc_victm=fifo"],
        "error: --set ftl.gc_victm: unknown key 'gc_victm' (did you mean 'gc_victim'?)",
    );
}

#[test]
fn string_where_a_number_is_expected() {
    check(
        &Lab::new(),
        "type.toml",
        "[geometry]\nchannels = \"eight\"\n",
        "error: type.toml:2: geometry.channels: invalid type: string \"eight\", expected u32",
    );
}

#[test]
fn string_in_a_latency_array() {
    check(
        &Lab::new(),
        "type.toml",
        "[flash]\nread_latency_ns = [\n  60000,\n  \"90us\",\n  120000,\n]\n",
        "error: type.toml:4: flash.read_latency_ns: invalid type: string \"90us\", expected u64",
    );
}

#[test]
fn string_where_a_number_is_expected_override() {
    let lab = Lab::new();
    expect_error(
        &lab,
        &["run", "--set", "geometry.channels=eight"],
        "error: --set geometry.channels: invalid type: string \"eight\", expected u32",
    );
}

#[test]
fn negative_number_in_config() {
    check(
        &Lab::new(),
        "neg.toml",
        "[geometry]\nblocks_per_plane = -512\n",
        "error: neg.toml:2: geometry.blocks_per_plane: invalid value: integer `-512`, expected u32",
    );
}

#[test]
fn unknown_enum_value() {
    check(
        &Lab::new(),
        "cell.toml",
        "[flash]\ncell = \"plc\"\n",
        "error: cell.toml:2: flash.cell: unknown variant `plc`, expected one of `slc`, `mlc`, `tlc`, `qlc`",
    );
}

#[test]
fn invalid_pa_scheme() {
    check(
        &Lab::new(),
        "pa.toml",
        "[pa]\nscheme = \"fastest\"\n",
        "error: invalid configuration:\n  pa.toml: pa.scheme: \"fastest\": unknown scheme 'fastest'",
    );
}

#[test]
fn invalid_pa_scheme_complement() {
    let lab = Lab::new();
    expect_error(
        &lab,
        &["run", "--preset", "pa-ssd-tlc", "--set", "pa.scheme=qds+hgs"],
        "error: invalid configuration:\n  preset pa-ssd-tlc: pa.scheme: \"qds+hgs\": the complement must decide every \
         request: us, lfs or ubs",
    );
}

#[test]
fn toml_syntax_error() {
    check(
        &Lab::new(),
        "syntax.toml",
        "[geometry\nchannels = 4\n",
        "error: syntax.toml:1: unclosed table, expected `]`",
    );
}

#[test]
fn missing_config_file() {
    let lab = Lab::new();
    expect_error(
        &lab,
        &["check-config", "nowhere.toml"],
        "error: cannot read config nowhere.toml: No such file or directory (os error 2)",
    );
}
