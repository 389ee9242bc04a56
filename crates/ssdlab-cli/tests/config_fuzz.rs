//! Fuzzing the config loader: property tests feed arbitrary TOML-ish text (every key of
//! the config, from the fuzz dictionary `SECTIONS`, with values of every kind) and `--set`
//! overrides to the config loader and validation; none may panic (docs/input-errors.md,
//! "Configs"). The dictionary must name exactly the config's keys
//! (`fuzz_dictionary_names_every_key`).

use proptest::prelude::*;
use std::path::Path;

/// The config's sections and their keys, each with the kind of value it takes:
/// `u` unsigned integer, `f` float, `b` bool, `s` string, `[u]` / `[f]` / `[s]` arrays.
const SECTIONS: &[(&str, &[(&str, &str)])] = &[
    ("", &[("name", "s"), ("description", "s"), ("source", "s"), ("seed", "u")]),
    (
        "geometry",
        &[
            ("channels", "u"),
            ("chips_per_channel", "u"),
            ("dies_per_chip", "u"),
            ("planes_per_die", "u"),
            ("blocks_per_plane", "u"),
            ("pages_per_block", "u"),
            ("page_size_bytes", "u"),
            ("subpages_per_page", "u"),
        ],
    ),
    (
        "flash",
        &[
            ("cell", "s"),
            ("layout", "s"),
            ("custom_types", "[u]"),
            ("custom_wordlines", "[u]"),
            ("read_latency_ns", "[u]"),
            ("program_latency_ns", "[u]"),
            ("erase_latency_ns", "u"),
            ("program_scheme", "s"),
            ("one_shot_program_latency_ns", "u"),
            ("program_delay_ns", "u"),
            ("wordline_buffer", "b"),
            ("slc_pages_per_block", "u"),
            ("slc_read_latency_ns", "u"),
            ("slc_program_latency_ns", "u"),
            ("partial_programs_max", "u"),
            ("transfer_ns_per_byte", "f"),
            ("command_overhead_ns", "u"),
            ("ecc_decode_ns", "u"),
            ("copyback", "b"),
            ("multi_plane", "b"),
            ("multi_plane_any_address", "b"),
            ("multi_plane_same_block", "b"),
            ("transfer_requested_bytes", "b"),
            ("die_scheduling", "s"),
            ("read_retries", "u"),
            ("retry_sense_latency_ns", "u"),
        ],
    ),
    (
        "energy",
        &[
            ("read_nj", "[f]"),
            ("program_nj", "[f]"),
            ("erase_nj", "f"),
            ("slc_read_nj", "f"),
            ("slc_program_nj", "f"),
            ("transfer_nj_per_byte", "f"),
            ("idle_power_mw_per_chip", "f"),
        ],
    ),
    (
        "ftl",
        &[
            ("over_provisioning", "f"),
            ("plane_allocation", "s"),
            ("allocation_order", "s"),
            ("gc_victim", "s"),
            ("gc_background_free_fraction", "f"),
            ("gc_emergency_free_fraction", "f"),
            ("gc_idle_ns", "u"),
            ("gc_background", "s"),
            ("gc_free_space", "s"),
            ("queue_priority", "[s]"),
            ("mapping_entry_bytes", "u"),
            ("slc_blocks_per_plane", "u"),
            ("partial_page_writes", "s"),
            ("partial_program_updates", "b"),
            ("gc_destination", "s"),
            ("user_write_points", "u"),
            ("write_point_choice", "s"),
            ("gc_through_user_write_points", "b"),
            ("mapping", "s"),
            ("slc_levels", "u"),
            ("slc_gc_destination", "s"),
            ("slc_gc_free_fraction", "f"),
            ("super_page_channels", "u"),
            ("super_page_dies", "u"),
            ("read_bypass", "b"),
            ("write_combining", "b"),
        ],
    ),
    (
        "precondition",
        &[
            ("used_fraction", "f"),
            ("fill_invalid_to_gc_threshold", "b"),
            ("pe_cycles", "u"),
            ("pe_spread", "f"),
            ("retention_age_days", "f"),
            ("aged_invalid_fraction", "f"),
            ("slc_filled", "b"),
            ("working_set_fraction", "f"),
            ("steady_state", "b"),
            ("steady_state_max_rounds", "u"),
            ("steady_state_round_fraction", "f"),
            ("steady_state_writes", "s"),
            ("write_points_random_start", "b"),
        ],
    ),
    (
        "host",
        &[
            ("replay", "s"),
            ("queue_depth", "u"),
            ("speed_factor", "f"),
            ("runs", "u"),
            ("address_overflow", "s"),
            ("trace_span_bytes", "u"),
            ("unwritten_reads", "s"),
            ("request_overhead_ns", "u"),
            ("burst_gap_ns", "u"),
            ("time_unit", "s"),
        ],
    ),
    ("output", &[("series_interval_ns", "u"), ("check_every", "u")]),
    ("pa", &[("scheme", "s"), ("qds_threshold", "u"), ("sbs_max_pages", "u"), ("write_buffer_pages", "u")]),
    (
        "power",
        &[
            ("loss_at_ns", "[u]"),
            ("off_ns", "u"),
            ("write_acknowledge", "s"),
            ("write_buffer_pages", "u"),
            ("oob_bytes", "u"),
            ("block_summary", "b"),
        ],
    ),
    (
        "reliability",
        &[
            ("enabled", "b"),
            ("rber_by_pe", "[p]"),
            ("page_type_factor", "[f]"),
            ("slc_factor", "f"),
            ("retention_per_decade", "f"),
            ("read_disturb_per_million", "f"),
            ("in_page_disturb", "f"),
            ("neighbour_disturb", "f"),
            ("bit_errors", "s"),
            ("rated_pe_cycles", "u"),
            ("program_speedup_at_rated", "f"),
            ("erase_slowdown_at_rated", "f"),
        ],
    ),
    (
        "ecc",
        &[
            ("scheme", "s"),
            ("bch_min_decode_ns", "u"),
            ("bch_max_decode_ns", "u"),
            ("bch_max_rber", "f"),
            ("ldpc_retry_steps", "[p]"),
            ("ldpc_max_rber", "f"),
            ("uncorrectable", "s"),
        ],
    ),
    ("dir", &[("scheme", "s"), ("type_pairs", "[p]"), ("group_pairs", "b"), ("free_page_type", "u")]),
    ("ipu", &[("scheme", "s"), ("levels", "u"), ("cache_gc", "s")]),
    ("gordon", &[("write_points_per_channel", "u")]),
    (
        "harey",
        &[
            ("rtf", "s"),
            ("preemptive_gc", "b"),
            ("page_preference", "s"),
            ("rate_matching", "b"),
            ("rate_window_ns", "u"),
        ],
    ),
    (
        "scrub",
        &[
            ("mode", "s"),
            ("budget_pages", "u"),
            ("shared_cells", "b"),
            ("background_backlog_pages", "u"),
            ("sanitize_offset_bytes", "u"),
            ("sanitize_bytes", "u"),
            ("sanitize_at_ns", "u"),
        ],
    ),
    ("wom", &[("enabled", "b")]),
    ("mango", &[("enabled", "b"), ("gc", "s"), ("reserve_blocks", "u"), ("max_skipped_spare_fraction", "f")]),
    ("priority", &[("high_hint_max", "u"), ("power_segment_requests", "u"), ("report", "b")]),
    (
        "mix",
        &[
            ("trace", "s"),
            ("format", "s"),
            ("time_unit", "s"),
            ("percent", "f"),
            ("hint", "u"),
            ("offset_bytes", "u"),
            ("size_bytes", "u"),
        ],
    ),
    (
        "cache",
        &[
            ("capacity_bytes", "u"),
            ("mode", "s"),
            ("flush", "s"),
            ("hot_window_ns", "u"),
            ("flush_limit_bytes", "u"),
            ("dram_access_ns", "u"),
            ("dram_ns_per_byte", "f"),
        ],
    ),
    (
        "cmt",
        &[
            ("capacity_bytes", "u"),
            ("entry_bytes", "u"),
            ("entries_per_translation_page", "u"),
            ("read_bytes", "u"),
            ("write_back", "s"),
        ],
    ),
    ("arbitration", &[("scheme", "s"), ("weight_high", "u"), ("weight_medium", "u"), ("weight_low", "u")]),
    (
        "link",
        &[
            ("lanes", "u"),
            ("lane_gb_per_s", "f"),
            ("max_payload_bytes", "u"),
            ("packet_overhead_bytes", "u"),
            ("command_bytes", "u"),
            ("completion_bytes", "u"),
        ],
    ),
    (
        "hybrid",
        &[
            ("layout", "s"),
            ("slc_planes", "u"),
            ("slc_share", "f"),
            ("allocation", "s"),
            ("hot_request_max_bytes", "u"),
            ("migration", "s"),
            ("idle_ns", "u"),
            ("idle_free_target", "f"),
            ("busy_free_target", "f"),
            ("qpc_sigma", "u"),
            ("qpc_reclaim_limit", "u"),
        ],
    ),
    (
        "workload",
        &[
            ("read_fraction", "f"),
            ("block_size_bytes", "u"),
            ("pattern", "s"),
            ("distribution", "s"),
            ("address_space_bytes", "u"),
            ("start_offset_bytes", "u"),
            ("count", "u"),
            ("seed", "u"),
            ("interarrival_ns", "u"),
            ("align_bytes", "u"),
            ("block_size_max_bytes", "u"),
        ],
    ),
];

/// Values by kind: ordinary ones and the edges (0, u32/i64 limits, NaN, infinities).
#[rustfmt::skip]
fn values(kind: &str) -> &'static [&'static str] {
    match kind {
        "u" => &["0", "1", "2", "3", "4", "8", "64", "384", "4096", "100000", "4294967295", "4294967296",
                 "9223372036854775807", "-1"],
        "f" => &["0.0", "0.05", "0.1", "0.5", "0.94", "0.95", "1.0", "3.0", "-0.5", "1e300", "-1e-300", "nan", "inf",
                 "-inf"],
        "b" => &["true", "false"],
        "s" => &[
            "\"\"", "\"ns\"", "\"s\"", "\"hours\"", "\"tlc\"", "\"slc\"", "\"qlc\"", "\"custom\"", "\"pairs\"", "\"staircase\"", "\"sequential\"",
            "\"one-shot\"", "\"page-by-page\"", "\"qds+ubs\"", "\"us+hgs\"", "\"+\"", "\"lfs+ubs+us\"", "\"none\"",
            "\"cwdp\"", "\"pwcd\"", "\"ccww\"", "\"ééé\"", "\"zipf:-1\"", "\"zipf:1.2\"", "\"pareto:1\"",
            "\"normal:0\"", "\"zoned:50/0:50/100\"", "\"zoned_abs:100/0\"", "\"zoned:\"", "\"random\"",
            "\"closed-loop\"", "\"burst\"", "\"scale\"", "\"error\"", "\"controller\"", "\"greedy\"",
            "\"least-busy\"", "\"balanced\"", "\"one-victim-per-block\"", "\"blocks\"", "\"pages\"", "\"overwrite\"", "\"program\"", "\"buffer\"",
            "\"plane\"", "\"die\"", "\"chip\"", "\"channel\"", "\"tpj\"", "\"tw\"", "\"hc\"", "\"pf\"", "\"qpc\"",
            "\"bg\"", "\"gc\"", "\"same-plane\"", "\"other-chip\"", "\"round-robin\"", "\"fastest-page\"",
            "\"page\"", "\"half-pages\"", "\"subpages\"", "\"out-of-cache\"", "\"same-level\"", "\"next-level\"",
            "\"sampled\"", "\"expected\"", "\"fixed\"", "\"bch\"", "\"ldpc\"", "\"count\"", "\"fail\"",
            "\"off\"", "\"noac\"", "\"ac\"", "\"interleaving\"", "\"dir\"", "\"baseline\"", "\"mga\"", "\"ipu\"", "\"levels\"", "\"evict\"",
            "\"write\"", "\"read-write\"", "\"cold-eager\"", "\"independent\"", "\"chip-serial\"", "\"program\"", "\"mqsim\"", "\"round-robin\"", "\"weighted\"", "\"urgent\"",
            "\"immediate\"", "\"background\"", "\"scan\"", "\"weak\"", "\"strong\"", "\"fgc\"", "\"sgc\"", "\"slow\"", "\"fast\"", "\"priority\"",
        ],
        "[u]" => &["[]", "[0]", "[1, 2, 3]", "[0, 1, 2, 0, 1, 2]", "[60000, 90000, 120000]", "[4294967295, 4294967296]",
                   "[9, 9, 9, 9]"],
        "[f]" => &["[]", "[1.0]", "[1850.0, 1850.0, 1850.0, 1850.0]", "[nan, inf, -1.0]"],
        "[p]" => &["[]", "[[0, 0.001]]", "[[0.005, 2], [0.004, 1]]", "[[1, 2, 3]]", "[[nan, 1]]", "[[3000, 0.5], [3000, 0.1]]",
                   "[[-1, 0.001]]", "[[0.004, 4294967296]]"],
        _ => &["[]", "[\"gc\"]", "[\"user-read\", \"user-write\", \"gc\"]", "[\"gc\", \"gc\", \"gc\"]",
               "[\"user-read\", \"user-write\"]"],
    }
}

const KINDS: &[&str] = &["u", "f", "b", "s", "[u]", "[f]", "[s]", "[p]"];

/// One `key = value` line of a section: mostly its own keys with values of the right kind,
/// sometimes another section's key, a value of another kind or arbitrary text.
fn assignment(section: usize) -> impl Strategy<Value = String> {
    let own = SECTIONS[section].1;
    let any_key = prop::sample::select(SECTIONS.iter().flat_map(|s| s.1.iter().map(|k| k.0)).collect::<Vec<_>>());
    let key = prop_oneof![9 => prop::sample::select(own).prop_map(|k| (k.0, k.1)), 1 => any_key.prop_map(|k| (k, "u"))];
    (key, 0u8..20, any::<prop::sample::Index>(), prop::sample::select(KINDS), "[ -~é]{0,12}").prop_map(
        |((key, kind), roll, index, other, text)| {
            let value = match roll {
                0..=15 => index.get(values(kind)).to_string(),
                16..=18 => index.get(values(other)).to_string(),
                _ => text,
            };
            format!("{key} = {value}")
        },
    )
}

/// A TOML-ish config: distinct sections (top level first), each with a few assignments;
/// sometimes a garbage line.
fn config_text() -> impl Strategy<Value = String> {
    let section = (0..SECTIONS.len()).prop_flat_map(|i| (Just(i), prop::collection::vec(assignment(i), 0..6)));
    let garbage = prop::option::weighted(0.1, "[\\[\\]=\"'a-z0-9_ .,{}#é\r\t-]{0,40}");
    (prop::collection::vec(section, 0..6), garbage).prop_map(|(mut sections, garbage)| {
        sections.sort_by_key(|s| s.0);
        sections.dedup_by_key(|s| s.0);
        let mut text = String::new();
        for (i, lines) in sections {
            if i > 0 {
                text.push_str(&format!("[{}]\n", SECTIONS[i].0));
            }
            let mut seen = Vec::new();
            for line in lines {
                let key = line.split(" = ").next().unwrap_or("").to_string();
                if !seen.contains(&key) {
                    text.push_str(&line);
                    text.push('\n');
                    seen.push(key);
                }
            }
        }
        if let Some(g) = garbage {
            text.push_str(&g);
        }
        text
    })
}

/// Cases per run of each config property test (recorded in docs/input-errors.md).
const FUZZ_CASES: u32 = 20_000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(FUZZ_CASES))]

    /// Parsing and validating any text returns a config or errors; it never panics. A
    /// config that validates has a computable capacity, and its synthetic workload (as the
    /// CLI fits it to the device) starts or is refused without panicking.
    #[test]
    fn config_loader_never_panics(text in config_text()) {
        match ssdlab_core::config::parse_config(&text, "fuzz.toml") {
            Ok(config) => {
                if config.validate().is_ok() {
                    let logical = config.logical_bytes();
                    prop_assert!(config.physical_bytes() >= logical);
                    if let Some(spec) = &config.workload {
                        if let Ok(source) = ssdlab_trace::SyntheticSource::new(spec.resolve_address_space(logical)) {
                            for record in source.take(64) {
                                prop_assert!(record.is_ok(), "{:?}", record);
                            }
                        }
                    }
                }
            }
            Err(e) => prop_assert!(e.key.starts_with("fuzz.toml"), "{}", e),
        }
    }

    /// Any `--set key=value` overrides (one to four, as the CLI applies them) on the
    /// default config and on a preset: an error or a config, never a panic.
    #[test]
    fn overrides_never_panic(overrides in prop::collection::vec(override_text(), 1..5)) {
        for base in [ssdlab_core::config::Config::default(), ssdlab_core::presets::preset("pa-ssd-tlc").unwrap()] {
            if let Ok(config) = ssdlab_core::config::apply_overrides(&base, &overrides) {
                if config.validate().is_ok() {
                    prop_assert!(config.physical_bytes() >= config.logical_bytes());
                }
            }
        }
    }
}

/// One `--set` argument: mostly `section.key=value` built like a config line, sometimes
/// arbitrary text.
fn override_text() -> impl Strategy<Value = String> {
    let known =
        (0..SECTIONS.len()).prop_flat_map(|i| (Just(SECTIONS[i].0), assignment(i))).prop_map(|(section, line)| {
            let line = line.replacen(" = ", "=", 1);
            if section.is_empty() {
                line
            } else {
                format!("{section}.{line}")
            }
        });
    prop_oneof![9 => known, 1 => "[a-z_.=]{0,20}[ -~]{0,10}"]
}

#[test]
fn fuzz_dictionary_names_every_key() {
    // The fuzz dictionary lists exactly the config's keys: a key added or renamed later
    // must be added here too, or it would silently stop being fuzzed.
    // (`[arbitration]`, `[priority]`, `[mix]` and every design's section are written only
    // when they differ from their defaults: those are added at their defaults.)
    use ssdlab_core::config as c;
    let mut config = c::Config { workload: Some(Default::default()), ..Default::default() };
    config.arbitration.weight_low = 2;
    config.mango.enabled = true;
    config.priority.report = true;
    config.mix.percent = 5.0;
    let mut table = toml::Table::try_from(config).unwrap();
    let designs = [
        ("pa", toml::Value::try_from(c::PaConfig::default())),
        ("hybrid", toml::Value::try_from(c::Hybrid::default())),
        ("dir", toml::Value::try_from(c::DirConfig::default())),
        ("ipu", toml::Value::try_from(c::IpuConfig::default())),
        ("gordon", toml::Value::try_from(c::GordonConfig::default())),
        ("harey", toml::Value::try_from(c::HareyConfig::default())),
        ("scrub", toml::Value::try_from(c::ScrubConfig::default())),
        ("wom", toml::Value::try_from(c::WomConfig::default())),
    ];
    for (name, section) in designs {
        assert!(table.insert(name.to_string(), section.unwrap()).is_none(), "[{name}] printed at its defaults");
    }
    for (section, keys) in SECTIONS {
        let mut want: Vec<&str> = keys.iter().map(|k| k.0).collect();
        let mut got: Vec<&str> = match *section {
            "" => table.iter().filter(|(_, v)| !v.is_table()).map(|(k, _)| k.as_str()).collect(),
            s => table[s].as_table().unwrap().keys().map(String::as_str).collect(),
        };
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(want, got, "[{section}]");
    }
    let sections = table.values().filter(|v| v.is_table()).count();
    assert_eq!(sections + 1, SECTIONS.len());
    assert!(Path::new(env!("CARGO_BIN_EXE_ssdlab")).exists());
}
