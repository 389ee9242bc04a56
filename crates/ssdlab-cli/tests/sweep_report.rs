//! `ssdlab sweep` (issue 18 item 2) and `ssdlab report` / `--html` (item 3): the table's
//! shape, resuming, failed points, determinism across job counts, errors that name the
//! file, line and key; the HTML report's plots from each kind of input.

mod common;
use common::{fails, ok, ssdlab, trace, traces};
use std::path::Path;

const SWEEP: &str = r#"# a 2 x 3 sweep of a small synthetic workload
[base]
preset = "small-tlc"
synthetic = { count = 1500, read_fraction = 0.5 }

[[axis]]
key = "ftl.gc_victim"
values = ["greedy", "fifo"]

[[axis]]
key = "seed"
range = { from = 1, to = 3 }
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn sweep_writes_one_row_per_run_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "s.toml", SWEEP);
    let out2 = dir.path().join("two.csv").display().to_string();
    let (stdout, _) = ok(&["sweep", &file, "-o", &out2, "--jobs", "2"]);
    assert!(stdout.contains("6 runs"), "{stdout}");
    let table = read(&out2);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 7, "{table}");
    assert!(lines[0].starts_with("point,repetition,ftl.gc_victim,seed,status,error,requests,simulated_s,iops"));
    // The first axis varies slowest; every run succeeded and completed its requests.
    let rows: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split(',').collect()).collect();
    let axes: Vec<(&str, &str)> = rows.iter().map(|r| (r[2], r[3])).collect();
    assert_eq!(axes, [("greedy", "1"), ("greedy", "2"), ("greedy", "3"), ("fifo", "1"), ("fifo", "2"), ("fifo", "3")]);
    assert!(rows.iter().all(|r| r[4] == "ok" && r[6] == "1500"), "{table}");
    // Seeds change the results (the sweep really varies something).
    assert_ne!(rows[0][7..], rows[1][7..]);

    // The same sweep on one job gives the same bytes.
    let out1 = dir.path().join("one.csv").display().to_string();
    ok(&["sweep", &file, "-o", &out1, "--jobs", "1"]);
    assert_eq!(read(&out1), table);

    // A rerun keeps everything; a row lost (a killed sweep) is run again, and the table
    // comes out the same.
    let (stdout, stderr) = ok(&["sweep", &file, "-o", &out2]);
    assert!(stdout.contains("6 kept from before"), "{stdout}{stderr}");
    let cut: String = table.lines().filter(|l| !l.starts_with("4,")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&out2, cut).unwrap();
    let (stdout, _) = ok(&["sweep", &file, "-o", &out2]);
    assert!(stdout.contains("5 kept from before"), "{stdout}");
    assert_eq!(read(&out2), table);

    // Repetitions: each point twice, the second under the next seeds.
    let reps = write(dir.path(), "r.toml", &format!("repetitions = 2\n{SWEEP}"));
    let out = dir.path().join("r.csv").display().to_string();
    ok(&["sweep", &reps, "-o", &out]);
    let text = read(&out);
    assert_eq!(text.lines().count(), 13);
    assert!(text.lines().nth(2).unwrap().starts_with("0,1,greedy,1,ok"), "{text}");
    // Repetition 1 runs under the next root and workload seeds: other results.
    let metrics = |line: &str| line.split(',').skip(6).collect::<Vec<_>>().join(",");
    assert_ne!(metrics(text.lines().nth(1).unwrap()), metrics(text.lines().nth(2).unwrap()));
}

#[test]
fn a_failed_point_is_a_row_not_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"output = "w.csv"
[base]
preset = "small-tlc"
closed_loop = 8

[[axis]]
key = "workload"
values = [
  {{ name = "fin", trace = "{}", format = "ssdsim" }},
  {{ name = "missing", trace = "no-such-trace.csv", format = "msr" }},
  {{ name = "synthetic", synthetic = {{ count = 500 }} }},
]
"#,
        trace("umass_spc/example.ascii")
    );
    let file = write(dir.path(), "w.toml", &text);
    // Every point runs and the table holds them all, but the sweep fails (exit status 2,
    // for scripts) unless --allow-failures says failed points are expected.
    let out = ssdlab(&["sweep", &file]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stdout.contains("3 runs") && stdout.contains("1 failed"), "{stdout}");
    assert!(stderr.contains("run 1 failed"), "{stderr}");
    assert!(stderr.contains("error: sweep: 1 of 3 runs failed") && stderr.contains("--allow-failures"), "{stderr}");
    std::fs::remove_file(dir.path().join("w.csv")).unwrap();
    let (stdout, _) = ok(&["sweep", &file, "--allow-failures"]);
    assert!(stdout.contains("3 runs") && stdout.contains("1 failed"), "{stdout}");
    let table = read(&dir.path().join("w.csv").display().to_string());
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[1].starts_with("0,0,fin,ok,,10000,"), "{table}");
    assert!(lines[2].starts_with("1,0,missing,error,"), "{table}");
    assert!(lines[2].contains("no-such-trace.csv"), "the error names the file: {table}");
    assert!(lines[3].starts_with("2,0,synthetic,ok,,500,"), "{table}");
}

#[test]
fn bad_sweep_files_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "[base]\npreset = \"small-tlc\"\npresett = 3\n",
            ":3: [base]: unknown setup key 'presett' (did you mean 'preset'?)",
        ),
        (
            "[[axis]]\nkey = \"ftl.gc_victm\"\nvalues = [\"fifo\"]\n",
            ":3: axis 'ftl.gc_victm': --set ftl.gc_victm: unknown key 'gc_victm' (did you mean 'gc_victim'?)",
        ),
        ("[[axis]]\nkey = \"ftl.gc_victim\"\nvalues = [\"fifo\", \"oldest\"]\n", ":3: axis 'ftl.gc_victim'"),
        ("[[axis]]\nkey = \"seed\"\n", ":1: axis 'seed': give either values"),
        (
            "[[axis]]\nkey = \"seed\"\nrange = { from = 5, to = 1 }\n",
            ":3: axis 'seed': range: from (5) is above to (1)",
        ),
        ("[[axis]]\nkey = \"seed\"\nvalues = [\"x\"]\n", ":3: axis 'seed': invalid value 'x' for '--seed <SEED>'"),
        ("[[axis]]\nkey = \"workload\"\nvalues = [{ trace = \"t\" }]\n", ":3: axis 'workload': a value needs name"),
        ("repetitions = 0\n", ":1: repetitions = 0: must be 1 to 10000"),
        ("[base]\npreset = \"small-tlc\"\n[base2]\n", ":3: unknown field `base2`"),
        ("[base\n", ":1: "),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = write(dir.path(), &format!("bad{i}.toml"), text);
        let stderr = fails(&["sweep", &file]);
        assert!(stderr.contains(&format!("bad{i}.toml{expected}")), "case {i}: expected '{expected}' in: {stderr}");
    }
    // An output holding another sweep's table is refused, not overwritten.
    let file = write(dir.path(), "s.toml", SWEEP);
    let other = write(dir.path(), "other.csv", "a,b\n1,2\n");
    let stderr = fails(&["sweep", &file, "-o", &other]);
    assert!(stderr.contains("other.csv: its columns (a,b) are not this sweep's"), "{stderr}");
    assert_eq!(read(&other), "a,b\n1,2\n");
}

fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[test]
fn report_draws_every_plot_from_a_run_with_its_csvs() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let fin = trace("umass_spc/example.ascii");
    ok(&[
        "run",
        "--quiet",
        "--preset",
        "small-tlc",
        "--trace",
        &fin,
        "--format",
        "ssdsim",
        "--speed",
        "20",
        "--json",
        &p("a.json"),
        "--series",
        &p("a.csv"),
        "--requests",
        &p("a-req.csv"),
        "--interval-ms",
        "500",
    ]);
    ok(&["report", &p("a.json"), "--series", &p("a.csv"), "--requests", &p("a-req.csv"), "-o", &p("a.html")]);
    let html = read(&p("a.html"));
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert!(!html.contains("<script") && !html.contains("http://") || !html.contains("src=\"http"));
    // Latency CDFs (read, write), six plots over time, two page-type and one erase plot.
    assert_eq!(count(&html, "<svg class=\"plot\""), 11, "{html}");
    assert!(!html.contains("no data"), "every plot has data");
    assert!(!html.contains("(percentiles)"), "the CDFs come from the per-request rows");
    for label in ["latency (µs, log scale)", "simulated time (s)", "MiB/s", "erases/s", "page type", "blocks"] {
        assert!(html.contains(&format!(">{label}</text>")), "axis label {label}");
    }
    // The run's numbers are in the summary table.
    let json: serde_json::Value = serde_json::from_str(&read(&p("a.json"))).unwrap();
    assert!(html.contains(&format!("<td>{}</td>", json["host"]["requests"])));

    // From the JSON alone: CDFs through the percentiles, and a note instead of time plots.
    ok(&["report", &p("a.json"), "-o", &p("b.html")]);
    let html = read(&p("b.html"));
    assert!(html.contains("(percentiles)") && html.contains("No time series"));
    assert_eq!(count(&html, "<svg class=\"plot\""), 5);

    // run --html writes the same kind of page in one step.
    ok(&["run", "--quiet", "--synthetic", "count=3000", "--html", &p("r.html"), "--requests", &p("r.csv")]);
    let html = read(&p("r.html"));
    assert_eq!(count(&html, "<svg class=\"plot\""), 11);
    assert!(!html.contains("(percentiles)"));
    assert_eq!(read(&p("r.csv")).lines().count(), 3001, "--requests is still written in full");
}

#[test]
fn compare_html_overlays_the_variants() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    ok(&[
        "compare",
        "--synthetic",
        "count=4000,read_fraction=0.5",
        "--variant",
        "greedy",
        "--variant",
        "fifo:ftl.gc_victim=fifo",
        "--html",
        &p("c.html"),
        "--json",
        &p("c.json"),
    ]);
    let html = read(&p("c.html"));
    assert!(html.contains(">greedy</text>") && html.contains(">fifo</text>"), "both variants in the legends");
    // Two lines per CDF (read, write).
    let cdfs = html
        .split("latency CDF</text>")
        .skip(1)
        .map(|part| count(part.split("</svg>").next().unwrap(), "class=\"line\""));
    assert_eq!(cdfs.collect::<Vec<_>>(), [2, 2]);
    // `report` on the compare JSON takes each variant as a run.
    ok(&["report", &p("c.json"), "-o", &p("d.html")]);
    let html = read(&p("d.html"));
    assert!(html.contains("<th>greedy</th><th>fifo</th>"), "{html}");
}

#[test]
fn report_refuses_bad_inputs_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    write(dir.path(), "bad.json", "{\n  \"a\": 1,\n  oops\n}\n");
    let stderr = fails(&["report", &p("bad.json"), "-o", &p("x.html")]);
    assert!(stderr.contains("bad.json:3:"), "{stderr}");
    write(dir.path(), "other.json", "{\"a\": 1}");
    let stderr = fails(&["report", &p("other.json"), "-o", &p("x.html")]);
    assert!(stderr.contains("other.json: run 'other': no 'schema_version'"), "{stderr}");
    ok(&["run", "--quiet", "--synthetic", "count=500", "--json", &p("a.json")]);
    let stderr =
        fails(&["report", &p("a.json"), "--series", &p("a.json"), "--series", &p("a.json"), "-o", &p("x.html")]);
    assert!(stderr.contains("--series: 2 files for 1 runs"), "{stderr}");
    let stderr = fails(&["report", &p("a.json"), "--series", &p("a.json"), "-o", &p("x.html")]);
    assert!(stderr.contains("a.json: no column 'start_ns'"), "{stderr}");
    write(dir.path(), "bad.csv", "start_ns,end_ns,bandwidth_mib_s,erases\n0,1,x,0\n");
    let stderr = fails(&["report", &p("a.json"), "--series", &p("bad.csv"), "-o", &p("x.html")]);
    assert!(stderr.contains("bad.csv:2: column bandwidth_mib_s: 'x' is not a number"), "{stderr}");
    // One page per run: an MQSim workload of three scenarios needs --scenario (or report on its JSON).
    let configs = common::traces().join("../configs/mqsim");
    let (device, workload) = (configs.join("ssdconfig.xml"), configs.join("workload.xml"));
    let stderr = fails(&[
        "run",
        "--quiet",
        "--config",
        device.to_str().unwrap(),
        "--workload",
        workload.to_str().unwrap(),
        "--html",
        &p("m.html"),
    ]);
    assert!(stderr.contains("3 scenarios: --series, --requests and --html write one run's data"), "{stderr}");
}

/// Issue 45 item 15: docs/sweep.md's example, run as its reader runs it: the TOML block
/// saved as sweep.toml in a project folder beside shared/traces, and the page's first
/// command (`ssdlab sweep sweep.toml`) run there. Every run must succeed (the example
/// gave fin1.trace the wrong format: half its runs failed and the sweep exited 0). The
/// whole example runs (144 short runs, about 15 s on two cores).
#[test]
fn the_sweep_doc_example_runs_as_written() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/sweep.md")).unwrap();
    let block = |fence: &str| -> String {
        let start = doc.find(fence).unwrap_or_else(|| panic!("docs/sweep.md has no {fence} block")) + fence.len();
        doc[start..].split("```").next().unwrap().to_string()
    };
    let toml = block("```toml\n");
    let command: Vec<String> = block("```sh\n")
        .lines()
        .next()
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(command[..2], ["ssdlab", "sweep"], "{command:?}");
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    std::fs::create_dir_all(root.path().join("shared")).unwrap();
    std::os::unix::fs::symlink(traces(), root.path().join("shared/traces")).unwrap();
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join(&command[2]), &toml).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(&command[1..])
        .current_dir(&project)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "the example failed:\n{stdout}\n{}",
        stderr.lines().rev().take(5).collect::<Vec<_>>().join("\n")
    );
    assert!(stdout.contains("144 runs") && stdout.contains(", 0 failed)"), "{stdout}");
    let table = std::fs::read_to_string(project.join("gc-sweep.csv")).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 144);
    assert!(rows.iter().all(|r| r.contains(",ok,,")), "{table}");
    // fin1.trace holds 50,000 requests; every fin1 run replayed them all.
    let fin: Vec<&&str> = rows.iter().filter(|r| r.split(',').nth(5) == Some("fin1")).collect();
    assert!(fin.len() == 72 && fin.iter().all(|r| r.split(',').nth(8) == Some("50000")), "{table}");
}

/// Issue 46: the over-provisioning sweep of docs/sweep.md ("Sweeping over-provisioning"),
/// saved and run as written, gives WAF decreasing in OP and within 5 % of Desnoyers'
/// greedy model for the preset's planes (spare factor as the page derives it).
#[test]
fn the_op_sweep_doc_example_gives_the_greedy_model() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/sweep.md")).unwrap();
    let section = &doc[doc.find("## Sweeping over-provisioning").expect("the section")..];
    let start = section.find("```toml\n").expect("its sweep file") + "```toml\n".len();
    let toml = section[start..].split("```").next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("op-sweep.toml"), toml).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["sweep", "op-sweep.toml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = std::fs::read_to_string(dir.path().join("op-sweep.csv")).unwrap();
    let header: Vec<&str> = table.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut last = f64::INFINITY;
    for row in table.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        let op: f64 = cells[column("ftl.over_provisioning")].parse().unwrap();
        let waf: f64 = cells[column("waf")].parse().unwrap();
        let mut c = ssdlab_core::presets::preset("small-tlc").unwrap();
        c.ftl.over_provisioning = op;
        let g = &c.geometry;
        let planes = (g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die) as f64;
        let (b, p) = (g.blocks_per_plane as f64, g.pages_per_block as f64);
        let reserve = (b * 0.03).ceil();
        let data_pages = (b - reserve - 1.0) * p - (p - 1.0);
        let sf = ssdlab_core::theory::spare_factor(data_pages, c.logical_pages() as f64 / planes);
        let model = ssdlab_core::theory::waf_greedy_uniform(sf, g.pages_per_block);
        assert!((waf - model).abs() < 0.05 * model, "OP {op}: WAF {waf}, model {model:.4}\n{table}");
        assert!(waf < last, "OP {op}: WAF {waf} not below {last}\n{table}");
        last = waf;
    }
    assert_eq!(table.lines().count(), 4, "{table}");
}

/// Issue 45 item 5, for sweeps: the runs' warnings reach stderr, each distinct one once
/// with the runs it came from (the table's `warnings` column only counts them).
#[test]
fn a_sweep_prints_its_runs_warnings_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"[base]
preset = "small-tlc"
trace = "{}"
set = {{ "host.speed_factor" = 1000 }}

[[axis]]
key = "energy.erase_nj"
values = [1.0, 2.0]
"#,
        trace("umass_spc/fin1.trace")
    );
    let file = write(dir.path(), "w.toml", &text);
    let (_, stderr) = ok(&["sweep", &file]);
    let saturated: Vec<&str> = stderr.lines().filter(|l| l.contains("saturated")).collect();
    assert_eq!(saturated.len(), 1, "{stderr}");
    assert!(saturated[0].starts_with("warning (runs 0, 1): the device was saturated"), "{stderr}");
}
