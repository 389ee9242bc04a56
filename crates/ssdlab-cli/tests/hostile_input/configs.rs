//! Hostile configs: the config rows of docs/input-errors.md.

use super::*;

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
         time_unit, stop_ns, flows_end, queue_fetch_size",
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
