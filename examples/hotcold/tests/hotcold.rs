//! The hot/cold design, driven as a researcher would drive it: a config, records, the
//! design added to the simulator, and the flash inspected after the run.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab_core::config::Config;
use ssdlab_core::ftl::BlockState;
use ssdlab_core::source::VecSource;
use ssdlab_core::{Observers, Report, Simulator};
use ssdlab_hotcold::{HotCold, HotColdReport};
use ssdlab_trace::{Op, Record, RecordSource};

const PAGE: u64 = 4096;

/// A small drive, 85% full, two user write points per plane.
fn drive() -> Config {
    let mut c = Config::default();
    c.geometry.channels = 2;
    c.geometry.chips_per_channel = 1;
    c.geometry.dies_per_chip = 1;
    c.geometry.planes_per_die = 2;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 48;
    c.geometry.page_size_bytes = PAGE as u32;
    c.ftl.over_provisioning = 0.2;
    c.ftl.user_write_points = 2;
    c.precondition.used_fraction = 0.85;
    c.output.series_interval_ns = 0;
    c.output.check_every = 101;
    c
}

/// One-page writes, 1 ms apart: 80% of them to the first 10% of the logical pages.
fn skewed_writes(count: usize, logical_pages: u64, seed: u64) -> Vec<Record> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let hot = logical_pages / 10;
    (0..count as u64)
        .map(|i| {
            let page =
                if rng.random_bool(0.8) { rng.random_range(0..hot) } else { rng.random_range(hot..logical_pages) };
            Record {
                arrival_ns: i * 1_000_000,
                device: 0,
                offset_bytes: page * PAGE,
                size_bytes: PAGE,
                op: Op::Write,
                hint: None,
            }
        })
        .collect()
}

fn simulator(config: Config, records: Vec<Record>) -> Simulator<'static> {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(config, factory, Observers::default()).expect("valid drive");
    // The FTL invariants every 101 completions, the resource-occupancy checker at every
    // event, and every logical page's data version.
    sim.set_check(true);
    sim.set_verify(true);
    sim
}

fn logical_pages(config: &Config) -> u64 {
    let sim = simulator(config.clone(), Vec::new());
    sim.ftl.logical_pages as u64
}

fn run_hotcold(config: &Config, records: Vec<Record>) -> (Report, Simulator<'static>) {
    let mut sim = simulator(config.clone(), records);
    HotCold::install(&mut sim).expect("the drive fits the design");
    let (report, _) = sim.run_to_end().expect("run succeeds, checks and verification hold");
    (report, sim)
}

#[test]
fn hot_and_cold_pages_live_in_disjoint_blocks_and_gc_counts_moves_per_class() {
    let mut config = drive();
    config.designs.insert("hotcold".into(), toml_table("threshold = 3"));
    let records = skewed_writes(30_000, logical_pages(&config), 7);
    let (report, sim) = run_hotcold(&config, records);
    let design = sim.design::<HotCold>();
    let mixed: Vec<u32> = (0..sim.ftl.addr.blocks())
        .filter(|&b| sim.ftl.blocks[b as usize].state != BlockState::Free)
        .filter(|&b| {
            let classes: Vec<u8> = (0..sim.ftl.pages_in_block(b))
                .map(|p| sim.ftl.rev_at(sim.ftl.addr.ppn(b, p)))
                .filter(|&lpn| lpn != u32::MAX)
                .map(|lpn| design.class(lpn))
                .collect();
            classes.iter().any(|&c| c != classes[0])
        })
        .collect();
    assert!(mixed.is_empty(), "blocks holding valid pages of both classes: {mixed:?}");
    let r = design.report();
    assert_eq!(r.threshold, 3);
    assert!(r.hot_writes > 10_000 && r.cold_writes > 5_000, "{r:?}");
    assert!(report.gc.erases > 100, "the run must garbage-collect: {} erases", report.gc.erases);
    assert_eq!(r.gc_moved_hot + r.gc_moved_cold, report.gc.moved_pages, "every GC move counted in one class");
    assert!(r.gc_moved_cold > 0, "{r:?}");
    // The report section is the design's own, under its name.
    let json = serde_json::to_value(&report).expect("report serialises");
    let section: HotColdReport = serde_json::from_value(json["designs"]["hotcold"].clone()).expect("section hotcold");
    assert_eq!(&section, r);
}

#[test]
fn separating_classes_moves_fewer_pages_than_the_baseline() {
    let mut config = drive();
    config.designs.insert("hotcold".into(), toml_table("threshold = 2"));
    let records = skewed_writes(30_000, logical_pages(&config), 11);
    let (separated, _) = run_hotcold(&config, records.clone());
    let mut sim = simulator(config, records);
    let (baseline, _) = sim.run_to_end().expect("baseline run");
    assert!(baseline.get_section("hotcold").is_none());
    assert!(
        (separated.gc.moved_pages as f64) < 0.9 * baseline.gc.moved_pages as f64,
        "hot/cold moved {} pages, the baseline {}",
        separated.gc.moved_pages,
        baseline.gc.moved_pages
    );
}

#[test]
fn the_design_refuses_a_drive_it_does_not_fit_and_a_typo_in_its_section() {
    let mut config = drive();
    config.ftl.user_write_points = 1;
    let mut sim = simulator(config, Vec::new());
    let e = HotCold::install(&mut sim).expect_err("one write point");
    assert!(e.to_string().contains("ftl.user_write_points = 2"), "{e}");

    let mut config = drive();
    config.designs.insert("hotcold".into(), toml_table("treshold = 3"));
    let mut sim = simulator(config, Vec::new());
    let e = HotCold::install(&mut sim).expect_err("unknown key");
    assert!(e.to_string().contains("designs.hotcold") && e.to_string().contains("threshold"), "{e}");
}

fn toml_table(text: &str) -> toml::Table {
    toml::from_str(text).expect("valid TOML")
}

#[test]
fn hot_cold_runs_beside_a_built_in_design_whose_decisions_are_disjoint() {
    // Immediate scrubbing (thesis §6.2) decides maintenance and sanitisation; hot/cold
    // decides placement and GC destinations: they compose.
    let mut config = drive();
    config.designs.insert("hotcold".into(), toml_table("threshold = 3"));
    config.scrub.mode = ssdlab_core::config::ScrubMode::Immediate;
    let records = skewed_writes(8_000, logical_pages(&config), 5);
    let (report, sim) = run_hotcold(&config, records);
    assert_eq!(sim.active_designs(), vec!["scrub", "hotcold"]);
    assert_eq!(sim.decider_of(ssdlab_core::designs::Hook::PlaceWrite), Some("hotcold"));
    assert_eq!(sim.decider_of(ssdlab_core::designs::Hook::SanitizeRequested), Some("scrub"));
    let scrub = report.scrub.as_ref().expect("scrub's section");
    let hotcold = report.get_section("hotcold").expect("hot/cold's section");
    assert!(hotcold["hot_writes"].as_u64().unwrap() > 0, "{hotcold}");
    assert!(scrub.pages_scrubbed > 0, "{scrub:?}");
    // Every stale copy was destroyed at once, as immediate scrubbing promises, with the
    // writes placed by class (but those in blocks GC was cleaning, which their erase
    // destroys).
    assert_eq!(scrub.remnants_at_end, scrub.remnants_at_end_in_gc_victims, "{scrub:?}");
}

#[test]
fn a_design_deciding_what_a_built_in_design_decides_is_refused_naming_both_and_the_hook() {
    // Gordon's write points decide where a user write goes, as hot/cold does.
    let mut config = drive();
    config.gordon.write_points_per_channel = 1;
    let mut sim = simulator(config, Vec::new());
    let e = HotCold::install(&mut sim).expect_err("both decide place_write");
    let text = e.to_string();
    assert!(text.contains("gordon") && text.contains("hotcold") && text.contains("place_write"), "{text}");
}
