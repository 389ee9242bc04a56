//! Importing MQSim's and SSDSim's configuration files (issue 24, items 1-4): the shipped
//! files of ../shared/configs map to the right device, every parameter is accounted for,
//! runs finish, messy files are read as the original simulators read them, broken ones
//! fail with file and line, and `ssdlab import -o` writes a config that runs the same.

mod common;
use common::*;

use serde_json::Value;
use ssdlab_cli::bench::thousands;
use std::path::PathBuf;

fn shared(rel: &str) -> PathBuf {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).join(rel);
    assert!(path.exists(), "{} missing: the tests need ../shared beside the repository", path.display());
    path
}

fn mqsim_device() -> String {
    shared("configs/mqsim/ssdconfig.xml").display().to_string()
}
fn mqsim_workload() -> String {
    shared("configs/mqsim/workload.xml").display().to_string()
}
fn ssdsim_file() -> String {
    shared("configs/ssdsim/page.parameters").display().to_string()
}
fn trace_dir() -> String {
    shared("traces/ms_production").display().to_string()
}

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (line, key) of every `key = value` line SSDSim reads (not a comment, not indented).
fn ssdsim_lines(bytes: &[u8]) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let content = line.split(|&b| b == b'#').next().unwrap();
        let text = String::from_utf8_lossy(content);
        if let Some((key, _)) = text.split_once('=') {
            out.push((i as u64 + 1, key.trim().to_string()));
        }
    }
    out
}

/// (line, element) of every `<X>value</X>` line of an MQSim file.
fn xml_leaves(text: &str) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('<') {
            if let Some((name, tail)) = rest.split_once('>') {
                if tail.ends_with(&format!("</{name}>")) {
                    out.push((i as u64 + 1, name.to_string()));
                }
            }
        }
    }
    out
}

fn params(report: &Value) -> &Vec<Value> {
    report["import"]["parameters"].as_array().expect("import.parameters")
}

fn has_param(report: &Value, file_end: &str, line: u64, name: &str) -> bool {
    params(report).iter().any(|p| {
        p["file"].as_str().unwrap().ends_with(file_end)
            && p["line"].as_u64() == Some(line)
            && p["source"].as_str().unwrap().ends_with(name)
    })
}

#[test]
fn mqsim_device_imports_with_its_shape_latencies_and_every_element() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mqsim.toml");
    let (_, stderr) = ok(&["import", "mqsim", &mqsim_device(), "-o", out.to_str().unwrap()]);
    assert!(stderr.contains("not modelled:") && stderr.contains("PCIe_Lane_Count"), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    for line in [
        "channels = 8",
        "chips_per_channel = 4",
        "dies_per_chip = 2",
        "planes_per_die = 2",
        "blocks_per_plane = 2048",
        "pages_per_block = 256",
        "page_size_bytes = 8192",
        "cell = \"mlc\"",
        "read_latency_ns = [75000, 75000]",
        "program_latency_ns = [750000, 750000]",
        "erase_latency_ns = 3800000",
        "over_provisioning = 0.07",
        "allocation_order = \"cwdp\"",
        "seed = 321",
        // The controller as MQSim's (issue 19): its data cache, mapping table, link and
        // scheduler.
        "capacity_bytes = 268435456",
        "flush = \"cold-eager\"",
        "dram_access_ns = 26",
        "dram_ns_per_byte = 5",
        "capacity_bytes = 2097152",
        "write_back = \"mqsim\"",
        "lanes = 4",
        "lane_gb_per_s = 1",
        "command_bytes = 72",
        "die_scheduling = \"chip-serial\"",
        "multi_plane_same_block = false",
        "transfer_requested_bytes = true",
        "scheme = \"weighted\"",
    ] {
        assert!(text.lines().any(|l| l.starts_with(line)), "{line} missing in:\n{text}");
    }
    assert!(text.contains("# Flash_Channel_Count = 8 (ssdconfig.xml:44)"), "keys say where they came from:\n{text}");
    let (stdout, _) = ok(&["check-config", out.to_str().unwrap()]);
    assert!(stdout.contains("ok (mqsim-ssdconfig)"), "{stdout}");
    // The XML itself is a config too, recognised by content under any name.
    let renamed = dir.path().join("device.cfg");
    std::fs::copy(mqsim_device(), &renamed).unwrap();
    ok(&["check-config", renamed.to_str().unwrap()]);

    // Every element of the file is in the run's JSON with a fate.
    let report = dir.path().join("r.json");
    let wl = mqsim_workload();
    let args = ["run", "--config", &mqsim_device(), "--workload", &wl, "--scenario", "1"];
    let (stdout, stderr) =
        ok(&[&args[..], &["--synthetic", "count=300", "--json", report.to_str().unwrap(), "--no-wall-clock"]].concat());
    assert!(stdout.contains("import: ") && stdout.contains("scenario 1 of 3"), "{stdout}");
    assert!(stderr.contains("  approximated:"), "the listing goes to stderr: {stderr}");
    assert!(stderr.contains("note: --synthetic count with 2 flows"), "the count rule is said: {stderr}");
    let r = json(&report);
    let device = std::fs::read_to_string(mqsim_device()).unwrap();
    for (line, name) in xml_leaves(&device) {
        assert!(has_param(&r, "ssdconfig.xml", line, &name), "{name} (line {line}) missing from the import report");
    }
    let workload = std::fs::read_to_string(mqsim_workload()).unwrap();
    // Scenario 1: the two flows of lines 4-53.
    for (line, name) in xml_leaves(&workload).into_iter().filter(|(l, _)| *l < 54) {
        assert!(has_param(&r, "workload.xml", line, &name), "{name} (line {line}) missing from the import report");
    }
    let counts = &r["import"]["counts"];
    assert!(counts["not_modelled"].as_u64().unwrap() > 10 && counts["unknown"].as_u64() == Some(0), "{counts}");
    let c = &r["config"];
    // The scenario's two flows are host flows, each with its half of the logical space
    // (MQSim's partitioning) and its working set inside it.
    let flows = c["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    assert_eq!((flows[0]["queue_depth"].as_u64(), flows[1]["queue_depth"].as_u64()), (Some(16), Some(2)));
    let size = flows[0]["size_bytes"].as_u64().unwrap();
    let logical = r["device"]["logical_bytes"].as_u64().unwrap_or(0);
    assert!(size > 0 && (logical == 0 || size <= logical / 2), "{size} of {logical}");
    assert_eq!(flows[1]["offset_bytes"].as_u64(), Some(size));
    assert_eq!(flows[0]["synthetic"]["address_space_bytes"].as_u64(), Some(size / 2 / 8192 * 8192));
    assert_eq!(
        (flows[0]["synthetic"]["seed"].as_u64(), flows[1]["synthetic"]["seed"].as_u64()),
        (Some(798), Some(6533))
    );
    assert_eq!(c["precondition"]["used_fraction"], 0.0, "Enabled_Preconditioning is false");
    assert_eq!(c["arbitration"]["scheme"], "weighted", "PRIORITY_OUT_OF_ORDER");
    // --synthetic count=300 gave each flow 300 and stopped both once the first had
    // submitted its 300 (host.flows_end = "first"): the other has at most as many.
    let per_flow: Vec<u64> =
        r["flows"].as_array().unwrap().iter().map(|f| f["all"]["requests"].as_u64().unwrap()).collect();
    assert_eq!(per_flow.iter().max(), Some(&300), "{per_flow:?}");
    assert!(per_flow.iter().all(|&n| n > 0), "{per_flow:?}");
    assert_eq!(r["host"]["requests"].as_u64(), Some(per_flow.iter().sum()));
    assert_eq!(c["host"]["flows_end"], "first");
}

#[test]
fn mqsim_run_of_every_scenario_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("all.json");
    let (stdout, _) = ok(&[
        "run",
        "--config",
        &mqsim_device(),
        "--workload",
        &mqsim_workload(),
        "--trace-dir",
        &trace_dir(),
        "--synthetic",
        "count=500",
        // Each flow to its own count (not stopped with the first).
        "--set",
        "host.flows_end=each",
        "--json",
        report.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(stdout.is_empty(), "--quiet: {stdout}");
    let r = json(&report);
    let runs = r["scenarios"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    // Two flows each in scenarios 1 and 2, each shortened to 500 requests.
    assert_eq!(runs[0]["write"]["requests"], 1000);
    assert_eq!(runs[1]["read"]["requests"], 1000);
    // tpcc-small, Windows or Unix separator, found through --trace-dir.
    assert_eq!(runs[2]["host"]["requests"], 6999, "{}", runs[2]["host"]);
    assert!(runs[2]["workload_description"].as_str().unwrap().contains("tpcc-small.trace"));
    assert_eq!(runs[2]["import"]["scenario"], "3 of 3");
}

#[test]
fn mqsim_trace_flows_take_the_unit_share_replays_and_either_separator() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("traces")).unwrap();
    std::fs::write(dir.path().join("traces/t.trace"), "0 0 0 8 1\n1 0 8 8 0\n2 0 16 8 0\n3 0 24 8 1\n").unwrap();
    let workload = dir.path().join("w.xml");
    std::fs::write(
        &workload,
        "<?xml version=\"1.0\"?>\r\n<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>\r\n\
         <File_Path>traces\\t.trace</File_Path>\r\n<Percentage_To_Be_Executed>50</Percentage_To_Be_Executed>\r\n\
         <Relay_Count>2</Relay_Count>\r\n<Time_Unit>MICROSECOND</Time_Unit>\r\n<Odd_Fork_Element>1</Odd_Fork_Element>\r\n\
         </IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>\r\n",
    )
    .unwrap();
    let report = dir.path().join("r.json");
    ok(&["run", "--workload", workload.to_str().unwrap(), "--json", report.to_str().unwrap()]);
    let r = json(&report);
    assert_eq!(r["host"]["runs"], 2);
    assert_eq!(r["host"]["requests"], 4, "half of 4 records, twice");
    assert!(r["workload_description"].as_str().unwrap().contains("time unit us"), "{}", r["workload_description"]);
    let unknown: Vec<&Value> = params(&r).iter().filter(|p| p["fate"] == "unknown").collect();
    assert_eq!(unknown.len(), 1, "the fork's element is listed: {unknown:?}");
    assert_eq!(unknown[0]["line"], 7);
}

#[test]
fn ssdsim_file_imports_runs_with_a_trace_and_lists_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.toml");
    ok(&["import", "ssdsim", &ssdsim_file(), "-o", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(&out).unwrap();
    for line in [
        "channels = 2",
        "chips_per_channel = 2",
        "dies_per_chip = 2",
        "planes_per_die = 2",
        "blocks_per_plane = 2048",
        "pages_per_block = 64",
        "page_size_bytes = 2048",
        "read_latency_ns = [20000]",
        "program_latency_ns = [200000]",
        "erase_latency_ns = 1500000",
        "transfer_ns_per_byte = 25.0",
        "over_provisioning = 0.1",
        "gc_background_free_fraction = 0.3",
        "plane_allocation = \"at-service\"",
    ] {
        assert!(text.lines().any(|l| l.starts_with(line)), "{line} missing in:\n{text}");
    }
    ok(&["check-config", out.to_str().unwrap()]);
    let report = dir.path().join("r.json");
    let trace = shared("traces/umass_spc/example.ascii").display().to_string();
    let (stdout, _) =
        ok(&["run", "--config", &ssdsim_file(), "--trace", &trace, "--json", report.to_str().unwrap(), "--quiet"]);
    assert!(stdout.is_empty());
    let r = json(&report);
    assert_eq!(r["host"]["requests"], 10000);
    assert!(r["workload_description"].as_str().unwrap().contains("format ssdsim"), "SSDSim's own trace format");
    // Every key line of the file (GBK comments and all) has a fate.
    let bytes = std::fs::read(ssdsim_file()).unwrap();
    let lines = ssdsim_lines(&bytes);
    assert!(lines.len() > 80);
    for (line, key) in lines {
        assert!(has_param(&r, "page.parameters", line, &key), "{key} (line {line}) missing from the import report");
    }
}

#[test]
fn import_output_runs_like_the_original_files() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        (
            vec!["mqsim".into(), mqsim_device(), mqsim_workload(), "--scenario".into(), "2".into()],
            vec![
                "--config".into(),
                mqsim_device(),
                "--workload".into(),
                mqsim_workload(),
                "--scenario".into(),
                "2".into(),
            ],
        ),
        (vec!["ssdsim".into(), ssdsim_file()], vec!["--config".into(), ssdsim_file()]),
    ];
    for (i, (import, run)) in cases.into_iter().enumerate() {
        let toml = dir.path().join(format!("c{i}.toml"));
        let import: Vec<&str> = import.iter().map(String::as_str).collect();
        ok(&[&["import"][..], &import, &["-o", toml.to_str().unwrap()]].concat());
        let common = ["--synthetic", "count=400", "--no-wall-clock", "--quiet", "--json"];
        let (a, b) = (dir.path().join(format!("a{i}.json")), dir.path().join(format!("b{i}.json")));
        let run: Vec<&str> = run.iter().map(String::as_str).collect();
        ok(&[&["run"][..], &run, &common, &[a.to_str().unwrap()]].concat());
        ok(&[&["run", "--config", toml.to_str().unwrap()][..], &common, &[b.to_str().unwrap()]].concat());
        let (mut a, mut b) = (json(&a), json(&b));
        assert!(a["import"].is_object() && b["import"].is_null());
        a.as_object_mut().unwrap().remove("import");
        b.as_object_mut().unwrap().remove("import");
        assert_eq!(a, b, "case {i}: the imported TOML runs exactly as the original file");
    }
}

#[test]
fn messy_ssdsim_files_are_read_as_ssdsim_reads_them() {
    let original = std::fs::read(ssdsim_file()).unwrap();
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    for line in original.split(|&b| b == b'\n') {
        let mut line = line.to_vec();
        if line.starts_with(b"overprovide") {
            // No ';' and spaces around '=' are both fine.
            line = b"overprovide   =   0.12   #no semicolon".to_vec();
        }
        bytes.extend_from_slice(&line);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"gc threshold=0.25;\r\n   t_R = 1;  # indented: SSDSim skips it\r\nfork knob = 3;\r\n");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("messy.parameters");
    std::fs::write(&file, &bytes).unwrap();
    let report = dir.path().join("r.json");
    let (_, stderr) = ok(&[
        "run",
        "--config",
        file.to_str().unwrap(),
        "--synthetic",
        "count=200",
        "--json",
        report.to_str().unwrap(),
    ]);
    assert!(stderr.contains("gc threshold is set again on line 89"), "{stderr}");
    assert!(stderr.contains("starts with a space"), "{stderr}");
    let r = json(&report);
    let c = &r["config"];
    assert_eq!(c["ftl"]["gc_background_free_fraction"], 0.25, "the last value wins");
    assert_eq!(c["ftl"]["over_provisioning"], 0.12);
    assert_eq!(c["flash"]["read_latency_ns"][0], 20000, "the indented line is skipped");
    let fates = |fate: &str| params(&r).iter().filter(|p| p["fate"] == fate).count();
    assert_eq!(fates("overridden"), 1);
    assert_eq!(fates("unknown"), 1, "fork knob is listed");

    // Broken values name file, line and key.
    for (bad, what) in [
        ("page number = abc;", "page number: 'abc' is not a whole number"),
        ("channel number = -2;", "channel number: '-2' must not be negative"),
        ("overprovide = 1.5;", "overprovide: 1.5 must be a fraction"),
        ("die number = ;", "die number: no value"),
        ("lun number = 4;", "lun number: unknown parameter that would change the device's shape"),
    ] {
        let mut text = original.clone();
        text.extend_from_slice(format!("\n{bad}\n").as_bytes());
        std::fs::write(&file, &text).unwrap();
        let e = fails(&["check-config", file.to_str().unwrap()]);
        assert!(e.contains(&format!("messy.parameters:89: {what}")), "{bad}: {e}");
    }
    // Channels of different sizes cannot be imported.
    let text = String::from_utf8_lossy(&original).replace("chip number[1] = 2;", "chip number[1] = 3;");
    std::fs::write(&file, text.as_bytes()).unwrap();
    let e = fails(&["check-config", file.to_str().unwrap()]);
    assert!(e.contains("messy.parameters:4: chip number[1] = 3") && e.contains("same number of chips"), "{e}");
}

#[test]
fn broken_mqsim_files_fail_with_file_line_and_cause() {
    let device = std::fs::read_to_string(mqsim_device()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.xml");
    let conflict = device.replacen(
        "\t\t<Seed>321</Seed>\n",
        "<<<<<<< HEAD\n\t\t<Seed>321</Seed>\n=======\n\t\t<Seed>7</Seed>\n>>>>>>> theirs\n",
        1,
    );
    std::fs::write(&file, conflict).unwrap();
    let e = fails(&["run", "--config", file.to_str().unwrap()]);
    assert!(e.contains("broken.xml:11: a merge-conflict marker ('<<<<<<< HEAD')"), "{e}");
    std::fs::write(&file, device.replacen("</Flash_Parameter_Set>", "</Flash_Parameter_St>", 1)).unwrap();
    let e = fails(&["check-config", file.to_str().unwrap()]);
    assert!(e.contains("broken.xml:68:") && e.contains("malformed XML"), "{e}");
    std::fs::write(&file, &device[..device.len() / 2]).unwrap();
    let e = fails(&["check-config", file.to_str().unwrap()]);
    assert!(e.contains("broken.xml:") && e.contains("malformed XML"), "truncated: {e}");
    for (from, to, what) in [
        ("RGA", "SMARTEST", "broken.xml:34: GC_Block_Selection_Policy: unknown value 'SMARTEST'"),
        (
            "<Flash_Channel_Count>8",
            "<Flash_Channel_Count>-8",
            "broken.xml:44: Flash_Channel_Count: '-8' must not be negative",
        ),
        ("<Plane_Allocation_Scheme>CWDP", "<Plane_Allocation_Scheme>CWXP", "broken.xml:30: Plane_Allocation_Scheme"),
        (
            "<Seed>321</Seed>",
            "<Seed>321</Seed><Die_No_Per_Package>4</Die_No_Per_Package>",
            "Die_No_Per_Package: unknown parameter that would change the device's shape",
        ),
    ] {
        std::fs::write(&file, device.replacen(from, to, 1)).unwrap();
        let e = fails(&["check-config", file.to_str().unwrap()]);
        assert!(e.contains(what), "{to}: {e}");
    }
    // A binary file is neither XML nor TOML.
    std::fs::write(&file, [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    fails(&["check-config", file.to_str().unwrap()]);
    // An MQSim workload given as the device is named as such.
    let e = fails(&["run", "--config", &mqsim_workload()]);
    assert!(e.contains("MQSim workload file") && e.contains("--workload"), "{e}");
}

#[test]
fn unlike_flows_run_as_host_flows() {
    let workload = std::fs::read_to_string(mqsim_workload()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.xml");
    // The second flow of scenario 1 reads 70% instead of writing.
    let parts: Vec<&str> = workload.splitn(3, "<Read_Percentage>0</Read_Percentage>").collect();
    assert_eq!(parts.len(), 3);
    let changed = format!(
        "{}<Read_Percentage>0</Read_Percentage>{}<Read_Percentage>70</Read_Percentage>{}",
        parts[0], parts[1], parts[2]
    );
    std::fs::write(&file, changed).unwrap();
    let report = dir.path().join("r.json");
    let f = file.to_str().unwrap();
    ok(&[
        "run",
        "--quiet",
        "--config",
        &mqsim_device(),
        "--workload",
        f,
        "--scenario",
        "1",
        "--synthetic",
        "count=400",
        "--set",
        "host.flows_end=each",
        "--json",
        report.to_str().unwrap(),
    ]);
    let r = json(&report);
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows[0]["read"]["requests"], 0, "flow 1 only writes");
    let reads = flows[1]["read"]["requests"].as_u64().unwrap();
    assert!((220..=340).contains(&reads), "about 70% of flow 2's 400 requests read: {reads}");
    let e = fails(&["run", "--config", &mqsim_device(), "--workload", f, "--scenario", "3"]);
    assert!(e.contains("File_Path: 'traces/tpcc-small.trace' not found") && e.contains("--trace-dir"), "{e}");
    let e = fails(&["run", "--config", &mqsim_device(), "--workload", f, "--scenario", "4"]);
    assert!(e.contains("--scenario 4") && e.contains("3 scenario(s)"), "{e}");
}

/// A scenario of a trace flow (half its requests, replayed twice, on channels 0-3) and a
/// synthetic flow (on channels 4-7): `[[flows]]` with MQSim's partitioning, and the
/// config `import -o` writes runs the same.
#[test]
fn trace_and_confined_flows_import_and_run_alike() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.xml");
    let flow = |body: &str, kind: &str, channels: &str, class: &str| {
        format!(
            "<IO_Flow_Parameter_Set_{kind}><Priority_Class>{class}</Priority_Class>\
             <Device_Level_Data_Caching_Mode>TURNED_OFF</Device_Level_Data_Caching_Mode>\
             <Channel_IDs>{channels}</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs><Die_IDs>0,1</Die_IDs>\
             <Plane_IDs>0,1</Plane_IDs><Initial_Occupancy_Percentage>50</Initial_Occupancy_Percentage>{body}\
             </IO_Flow_Parameter_Set_{kind}>\n"
        )
    };
    let trace = flow(
        "<File_Path>traces\\tpcc-small.trace</File_Path><Percentage_To_Be_Executed>50</Percentage_To_Be_Executed>\
         <Relay_Count>2</Relay_Count><Time_Unit>NANOSECOND</Time_Unit>",
        "Trace_Based",
        "0,1,2,3",
        "HIGH",
    );
    let synthetic = flow(
        "<Working_Set_Percentage>50</Working_Set_Percentage><Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>\
         <Read_Percentage>70</Read_Percentage><Address_Distribution>RANDOM_UNIFORM</Address_Distribution>\
         <Generated_Aligned_Addresses>true</Generated_Aligned_Addresses><Address_Alignment_Unit>16</Address_Alignment_Unit>\
         <Average_Request_Size>8</Average_Request_Size><Seed>12</Seed><Average_No_of_Reqs_in_Queue>4</Average_No_of_Reqs_in_Queue>\
         <Stop_Time>0</Stop_Time><Total_Requests_To_Generate>500</Total_Requests_To_Generate>",
        "Synthetic",
        "4,5,6,7",
        "LOW",
    );
    let text = format!("<MQSim_IO_Scenarios><IO_Scenario>\n{trace}{synthetic}</IO_Scenario></MQSim_IO_Scenarios>\n");
    std::fs::write(&file, text).unwrap();
    let (f, td) = (file.to_str().unwrap(), trace_dir());
    let report = dir.path().join("r.json");
    ok(&[
        "run",
        "--quiet",
        "--config",
        &mqsim_device(),
        "--workload",
        f,
        "--trace-dir",
        &td,
        "--json",
        report.to_str().unwrap(),
    ]);
    let r = json(&report);
    let flows = &r["config"]["flows"];
    assert_eq!(flows[0]["channels"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(flows[1]["channels"], serde_json::json!([4, 5, 6, 7]));
    assert_eq!((flows[0]["runs"].as_u64(), flows[0]["replay_percent"].as_u64()), (Some(2), Some(50)));
    assert_eq!((flows[0]["priority"].as_str(), flows[1]["priority"].as_str()), (Some("high"), Some("low")));
    // Half of the planes each: each flow has half the logical space.
    assert_eq!(flows[1]["offset_bytes"], flows[0]["size_bytes"]);
    let tpcc = std::fs::read_to_string(shared("traces/ms_production/tpcc-small.trace")).unwrap();
    let records = tpcc.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    let per_flow: Vec<u64> =
        r["flows"].as_array().unwrap().iter().map(|f| f["all"]["requests"].as_u64().unwrap()).collect();
    assert_eq!(per_flow, [2 * (records / 2), 500], "half the trace, twice; the synthetic flow's count");
    // The written config runs the same.
    let toml = dir.path().join("d.toml");
    ok(&["import", "mqsim", &mqsim_device(), f, "--trace-dir", &td, "-o", toml.to_str().unwrap()]);
    let again = dir.path().join("again.json");
    ok(&["run", "--quiet", "--config", toml.to_str().unwrap(), "--json", again.to_str().unwrap()]);
    let a = json(&again);
    for k in 0..2 {
        assert_eq!(a["flows"][k]["all"]["latency_ns"]["mean"], r["flows"][k]["all"]["latency_ns"]["mean"], "flow {k}");
    }
}

#[test]
fn out_of_order_arrivals_are_named_in_the_summary_with_the_sort_window() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    std::fs::write(&trace, "0 0 100 8 1\n5000 0 200 8 0\n3000 0 300 8 1\n9000 0 50 8 1\n").unwrap();
    let (stdout, _) = ok(&["run", "--trace", trace.to_str().unwrap(), "--format", "ssdsim"]);
    assert!(
        stdout.contains("WARNING: 1 of 4 requests arrived earlier") && stdout.contains("--sort-window"),
        "{stdout}"
    );
    let (stdout, _) = ok(&["run", "--trace", trace.to_str().unwrap(), "--format", "ssdsim", "--sort-window", "4"]);
    assert!(!stdout.contains("arrived earlier"), "{stdout}");
}

#[test]
fn mqsim_xml_results_carry_the_json_numbers_in_mqsims_shape() {
    // The tpcc scenario of MQSim's shipped workload, run from MQSim's own files.
    let dir = tempfile::tempdir().unwrap();
    let (xml, json) = (dir.path().join("r.xml"), dir.path().join("r.json"));
    let (device, workload, traces) = (mqsim_device(), mqsim_workload(), trace_dir());
    ok(&[
        "run",
        "-q",
        "--config",
        &device,
        "--workload",
        &workload,
        "--trace-dir",
        &traces,
        "--scenario",
        "3",
        "--mqsim-xml",
        xml.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "MQSim_Results");
    let flow = doc.descendants().find(|n| n.has_tag_name("Host.IO_Flow")).expect("a Host.IO_Flow");
    let get = |name: &str| -> String {
        flow.children()
            .find(|n| n.has_tag_name(name))
            .and_then(|n| n.text())
            .unwrap_or_else(|| panic!("{name}"))
            .to_string()
    };
    assert_eq!(get("Request_Count"), report["all"]["requests"].to_string());
    assert_eq!(get("Read_Request_Count"), report["read"]["requests"].to_string());
    assert_eq!(get("Write_Request_Count"), report["write"]["requests"].to_string());
    let lat = &report["all"]["latency_ns"];
    let us = |v: &Value| ((v.as_f64().unwrap() / 1000.0) as u64).to_string();
    assert_eq!(get("Device_Response_Time"), us(&lat["mean"]));
    assert_eq!(get("Min_End_to_End_Request_Delay"), us(&lat["min"]));
    assert_eq!(get("Max_Device_Response_Time"), us(&lat["max"]));
    let iops: f64 = get("IOPS").parse().unwrap();
    assert!((iops - report["all"]["iops"].as_f64().unwrap()).abs() < 1e-3, "{iops}");
    let bandwidth: f64 = get("Bandwidth").parse().unwrap();
    let mib = report["all"]["bandwidth_mib_s"].as_f64().unwrap();
    assert!((bandwidth / 1048576.0 - mib).abs() < 1e-3, "{bandwidth} B/s vs {mib} MiB/s");
}

/// Runs expecting exit code 2 (a user error) without a panic; returns (stdout, stderr).
fn refused(args: &[&str]) -> (String, String) {
    let out = ssdlab(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "ssdlab {args:?} should exit 2:\n{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "must not panic: {stderr}");
    (stdout.into_owned(), stderr.into_owned())
}

/// A line of stderr is a warning that contains `what`.
fn warned(stderr: &str, what: &str) -> bool {
    stderr.lines().any(|l| l.contains("warning: ") && l.contains(what))
}

#[test]
fn a_likely_typo_in_an_mqsim_file_is_an_error_with_a_did_you_mean() {
    // Issue 45 item 6: MQSim ignores an element it does not know, so a misspelt one
    // silently runs its default (here over-provisioning 0.15 instead of 0.07).
    let device = std::fs::read_to_string(mqsim_device()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typo.xml");
    std::fs::write(&file, device.replace("Overprovisioning_Ratio", "Overprovisoning_Ratio")).unwrap();
    let f = file.to_str().unwrap();
    let want = "typo.xml:32: <Overprovisoning_Ratio>";
    for args in [vec!["check-config", f], vec!["run", "--config", f, "--synthetic", "count=100"]] {
        let (stdout, stderr) = refused(&args);
        assert!(
            stderr.contains(want)
                && stderr.contains("did you mean <Overprovisioning_Ratio>?")
                && stderr.contains("--lenient"),
            "{args:?}: {stderr}"
        );
        assert!(!stdout.contains("ok") && !stdout.contains("requests"), "{args:?}: nothing ran: {stdout}");
    }
    // --lenient runs anyway, with the same words as a warning.
    let report = dir.path().join("r.json");
    let (_, stderr) =
        ok(&["run", "--config", f, "--synthetic", "count=100", "--lenient", "--json", report.to_str().unwrap()]);
    assert!(warned(&stderr, want) && stderr.contains("did you mean"), "{stderr}");
    assert_ne!(json(&report)["config"]["ftl"]["over_provisioning"], 0.07, "the misspelt element is ignored");
    let (stdout, stderr) = ok(&["check-config", "--lenient", f]);
    assert!(stdout.contains("ok") && warned(&stderr, want), "{stdout}{stderr}");

    // A fork's extension, close to no MQSim element, is not an error: a warning on stderr.
    let fork = device.replace("<Seed>321</Seed>", "<Seed>321</Seed><Fork_Thermal_Model>on</Fork_Thermal_Model>");
    std::fs::write(&file, fork).unwrap();
    let (stdout, stderr) = ok(&["check-config", f]);
    assert!(stdout.contains("ok"), "{stdout}");
    assert!(warned(&stderr, "typo.xml:11: <Fork_Thermal_Model>") && !stderr.contains("did you mean"), "{stderr}");
    let (_, stderr) = ok(&["run", "--config", f, "--synthetic", "count=100"]);
    assert!(warned(&stderr, "typo.xml:11: <Fork_Thermal_Model>"), "{stderr}");
    // MQSim's own misspelling (its reader's name for the element) is not a typo.
    std::fs::write(
        &file,
        device.replace("Preferred_suspend_erase_time_for_read", "Prefered_suspend_erase_time_for_read"),
    )
    .unwrap();
    let (_, stderr) = ok(&["check-config", f]);
    assert!(!stderr.contains("did you mean") && !stderr.contains("warning"), "{stderr}");

    // The same in a workload file: the error names the workload file and line.
    let workload = std::fs::read_to_string(mqsim_workload()).unwrap().replacen(
        "<Working_Set_Percentage>50</Working_Set_Percentage>",
        "<Working_Set_Percentag>50</Working_Set_Percentag>",
        1,
    );
    let w = dir.path().join("w.xml");
    std::fs::write(&w, workload).unwrap();
    let args = ["run", "--config", &mqsim_device(), "--workload", w.to_str().unwrap(), "--scenario", "1"];
    let (_, stderr) = refused(&[&args[..], &["--synthetic", "count=100"]].concat());
    assert!(
        stderr.contains("w.xml:12: <Working_Set_Percentag>")
            && stderr.contains("did you mean <Working_Set_Percentage>?"),
        "{stderr}"
    );
    ok(&[&args[..], &["--synthetic", "count=100", "--lenient"]].concat());
}

#[test]
fn a_likely_typo_in_an_ssdsim_file_is_an_error_with_a_did_you_mean() {
    let mut text = std::fs::read(ssdsim_file()).unwrap();
    text.extend_from_slice(b"\ngc threshhold = 0.3;\n");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typo.parameters");
    std::fs::write(&file, &text).unwrap();
    let f = file.to_str().unwrap();
    for args in [vec!["check-config", f], vec!["run", "--config", f, "--synthetic", "count=100"]] {
        let (_, stderr) = refused(&args);
        assert!(
            stderr.contains("typo.parameters:89: 'gc threshhold'") && stderr.contains("did you mean 'gc threshold'?"),
            "{args:?}: {stderr}"
        );
    }
    let (_, stderr) = ok(&["check-config", "--lenient", f]);
    assert!(warned(&stderr, "typo.parameters:89: 'gc threshhold'"), "{stderr}");
    // A fork's own knob stays a warning.
    let mut text = std::fs::read(ssdsim_file()).unwrap();
    text.extend_from_slice(b"\nfork knob = 3;\n");
    std::fs::write(&file, &text).unwrap();
    let (_, stderr) = ok(&["check-config", f]);
    assert!(warned(&stderr, "typo.parameters:89: 'fork knob'") && !stderr.contains("did you mean"), "{stderr}");
}

#[test]
fn every_scenario_is_checked_before_any_runs() {
    // Issue 45 item 7: scenario 3's missing trace stopped the run only after scenarios 1
    // and 2 had been simulated. Here scenario 2 also has a bad value: both are named, and
    // nothing runs.
    let workload = std::fs::read_to_string(mqsim_workload()).unwrap();
    let workload =
        workload.replacen("<Priority_Class>URGENT</Priority_Class>", "<Priority_Class>SUPREME</Priority_Class>", 1);
    let dir = tempfile::tempdir().unwrap();
    // Away from MQSim's folder: traces/tpcc-small.trace is not beside it.
    let w = dir.path().join("w.xml");
    std::fs::write(&w, workload).unwrap();
    let report = dir.path().join("r.json");
    let (stdout, stderr) = refused(&[
        "run",
        "--config",
        &mqsim_device(),
        "--workload",
        w.to_str().unwrap(),
        "--synthetic",
        "count=100",
        "--json",
        report.to_str().unwrap(),
    ]);
    assert!(!stdout.contains("scenario 1 of 3") && !stdout.contains("requests"), "nothing ran:\n{stdout}");
    assert!(
        stderr.contains("scenario 2 of 3") && stderr.contains("w.xml:56: Priority_Class: unknown value 'SUPREME'"),
        "{stderr}"
    );
    assert!(stderr.contains("scenario 3 of 3") && stderr.contains("w.xml:113: File_Path"), "{stderr}");
    assert!(!report.exists());
}

#[test]
fn the_stop_time_figures_of_docs_import_md_are_what_a_run_gives() {
    // Issue 45 item 17: the doc's command, run in full, gives the doc's figures.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("all.json");
    ok(&[
        "run",
        "--config",
        &mqsim_device(),
        "--workload",
        &mqsim_workload(),
        "--trace-dir",
        &trace_dir(),
        "--quiet",
        "--json",
        report.to_str().unwrap(),
    ]);
    let r = json(&report);
    let runs = r["scenarios"].as_array().unwrap();
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/import.md")).unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    for (k, op) in [(0, "writes"), (1, "reads")] {
        let requests = runs[k]["host"]["requests"].as_u64().unwrap();
        let seconds = runs[k]["simulated_ns"].as_f64().unwrap() / 1e9;
        let iops = runs[k]["all"]["iops"].as_f64().unwrap().round() as u64;
        // Stop_Time (10 s) ends the run: the last requests complete just after it.
        assert!((10.0..10.01).contains(&seconds), "scenario {}: simulated {seconds} s", k + 1);
        let text = format!(
            "{} {op} (scenario {}, simulated {seconds:.1} s, {} IOPS",
            thousands(requests),
            k + 1,
            thousands(iops)
        );
        assert!(doc.contains(&text), "docs/import.md should say \"{text}\"");
    }
}
