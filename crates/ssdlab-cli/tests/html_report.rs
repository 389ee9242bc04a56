//! The HTML report on real and idle-rich runs (issue 45 items 8, 9, 11 and 13): time axes in
//! units that suit the span, captions that say how wide a plotted bin is, rates with
//! their significant digits, and the configuration of every run on the page.

mod common;
use common::{fails, ok, trace};

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The figure (SVG and caption) whose title is `title`.
fn figure<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html.find(&format!("<title>{title}</title>")).unwrap_or_else(|| panic!("no plot '{title}'"));
    let start = html[..at].rfind("<figure>").unwrap();
    let end = at + html[at..].find("</figure>").unwrap();
    &html[start..end]
}

/// A value with four significant digits, as the summary prints rates.
fn four_digits(v: f64) -> String {
    let decimals = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

/// hm_1: 11,067 requests over 26.8 hours, mostly idle (a few bursts). The page's time
/// axes are in hours, each plot over time says how wide its bins are, and the IOPS
/// (about 0.11) keeps its digits.
#[test]
fn idle_trace_page_in_hours_with_bin_widths_and_small_rates() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let hm1 = trace("msr_cambridge/hm_1_short.csv");
    ok(&[
        "run",
        "--quiet",
        "--preset",
        "small-tlc",
        "--trace",
        &hm1,
        "--format",
        "msr",
        "--lenient",
        "--html",
        &p("hm1.html"),
        "--json",
        &p("hm1.json"),
    ]);
    let html = read(&p("hm1.html"));
    let json = common::json(std::path::Path::new(&p("hm1.json")));
    assert_eq!(json["host"]["requests"], 11067);
    assert!(html.contains(">simulated time (h)</text>"), "a day-long run is drawn in hours");
    assert!(!html.contains(">simulated time (s)</text>"));
    for title in ["IOPS", "throughput", "GC activity", "free blocks"] {
        let fig = figure(&html, title);
        assert!(fig.contains("bins of 2 min"), "{title}: the caption gives the bin width: {fig}");
    }
    assert!(figure(&html, "GC activity").contains(">erases/s</text>"), "erases as a rate");
    let iops = json["all"]["iops"].as_f64().unwrap();
    assert!(iops > 0.1 && iops < 0.2, "{iops}");
    assert!(html.contains(&format!("<td>{}</td>", four_digits(iops))), "IOPS {iops} with its digits");
}

/// `--set` shows on the page: the command line and the keys that differ from the preset.
#[test]
fn run_page_shows_the_command_line_and_keys_set() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    ok(&[
        "run",
        "--quiet",
        "--preset",
        "small-tlc",
        "--synthetic",
        "count=1500",
        "--set",
        "precondition.used_fraction=0.9",
        "--html",
        &p("r.html"),
    ]);
    let html = read(&p("r.html"));
    assert!(html.contains("--preset small-tlc --synthetic count=1500 --set precondition.used_fraction=0.9 --html"));
    let row = html.split("<td>precondition.used_fraction</td>").nth(1).expect("the key set is listed");
    let row = row.split("</tr>").next().unwrap();
    assert!(row.contains(">0.9</td>"), "with its value: {row}");
    assert!(!html.contains("<td>geometry.channels</td>"), "keys as in the preset are not listed");
}

/// Each variant of `compare --html` shows its overrides, and `report` on the compare
/// JSON still does (without a command line: `compare --json` keeps none).
#[test]
fn compare_page_lists_each_variants_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    ok(&[
        "compare",
        "--preset",
        "small-tlc",
        "--synthetic",
        "count=1500,read_fraction=0.5",
        "--variant",
        "greedy:ftl.gc_victim=greedy",
        "--variant",
        "fifo:ftl.gc_victim=fifo",
        "--html",
        &p("c.html"),
        "--json",
        &p("c.json"),
    ]);
    let html = read(&p("c.html"));
    assert!(html.contains("--variant fifo:ftl.gc_victim=fifo"), "the command line");
    let check = |html: &str| {
        let row = html.split("<td>ftl.gc_victim</td>").nth(1).expect("the key that differs is listed");
        let row = row.split("</tr>").next().unwrap();
        assert!(row.contains(">greedy</td>") && row.contains(">fifo</td>"), "each variant's value: {row}");
    };
    check(&html);
    ok(&["report", &p("c.json"), "-o", &p("d.html")]);
    let html = read(&p("d.html"));
    check(&html);
}

#[test]
fn a_file_that_is_not_a_json_report_is_named_with_what_report_reads() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("notjson");
    std::fs::write(&bad, "hello\n").unwrap();
    let out = dir.path().join("r.html");
    let e = fails(&["report", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(e.contains("notjson:1:1: it is not JSON (expected value)"), "{e}");
    assert!(e.contains("reads the JSON reports of `ssdlab run --json FILE`"), "{e}");
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, "{\"schema_version\": 1,\n \"device\": {").unwrap();
    let e = fails(&["report", cut.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(e.contains("cut.json:2:") && e.contains("the JSON ends too early"), "{e}");
}
