//! The sparse page table (`ftl/sparse.rs`, issue 48) against the dense one: the same
//! swarm cases, with invariant checks and data verification on, must give the same JSON
//! report (or the same error). Each case runs as drawn (the sparse table then mostly
//! holds overrides: the swarm's fills rewrite pages up to the GC threshold) and with the
//! plain fill and with the default fill (rewrites to the GC threshold), both over 16-page
//! windows on a power-of-two number of planes, so that the fill rule places most of the
//! data and GC, trims and power-loss-free recovery paths run against computed pages.

use ssdlab_core::config::PageTable;
use ssdlab_core::swarm::{build, case, event_budget, SwarmCase};

fn run(case: &SwarmCase, table: PageTable, densify: bool) -> (String, u64) {
    let mut config = case.config.clone();
    config.ftl.page_table = table;
    let mut sim = match build(&config, &case.records) {
        Ok(sim) => sim,
        Err(e) => return (format!("setup error: {e}"), 0),
    };
    let ruled = sim.ftl.ruled_pages() * 2;
    // (Unit maps and power-loss recovery keep the dense table whatever is asked.)
    assert!(table == PageTable::Sparse || !sim.ftl.is_sparse());
    let ruled = if sim.ftl.is_sparse() { ruled.max(1) } else { 0 };
    if densify {
        // After preconditioning, as `auto` does before a fill the rule cannot place.
        sim.ftl.densify();
    }
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(event_budget(case));
    match sim.run() {
        Ok((report, _)) => (serde_json::to_string(&report).expect("serialisable"), ruled),
        Err(e) => (format!("run error: {e}"), ruled),
    }
}

/// Returns 0 when the dense table ran both times, 1 when the sparse one ran without the
/// rule, and more when the rule placed pages. `ruled_fill`: `Some(rewrites)` puts the
/// fill over 16-page windows on a power-of-two number of planes, where the rule places
/// it, plain (`false`) or with rewrites to the GC threshold (`true`, the default fill).
fn compare(mut case: SwarmCase, ruled_fill: Option<bool>) -> u64 {
    let plain_fill = ruled_fill.is_some();
    if let Some(rewrites) = ruled_fill {
        case.config.precondition.fill_invalid_to_gc_threshold = rewrites;
        case.config.ftl.fill_window_log2 = 4;
        // The sparse table is not used with power-loss recovery; the rule needs a
        // power-of-two number of planes.
        case.config.power.loss_at_ns.clear();
        let g = &mut case.config.geometry;
        g.channels = g.channels.next_power_of_two();
        g.planes_per_die = g.planes_per_die.next_power_of_two();
    }
    let (dense, _) = run(&case, PageTable::Dense, false);
    let (sparse, ruled) = run(&case, PageTable::Sparse, false);
    if plain_fill {
        let (densified, _) = run(&case, PageTable::Sparse, true);
        assert!(densified == dense, "seed {}: the sparse table converted to dense differs", case.seed);
    }
    assert!(
        dense == sparse,
        "seed {} (plain fill {plain_fill}): dense and sparse tables differ\n{}",
        case.seed,
        case.description
    );
    ruled
}

#[test]
fn sparse_page_table_matches_dense_on_swarm_cases() {
    let (mut sparse_cases, mut ruled_cases) = (0, 0);
    for seed in 940_000..940_060 {
        sparse_cases += (compare(case(seed), None) > 0) as u32;
        ruled_cases += (compare(case(seed), Some(false)) > 1) as u32;
    }
    // The comparison is only worth something if both representations really ran.
    eprintln!("sparse table in {sparse_cases} cases, fill rule in {ruled_cases}");
    assert!(sparse_cases >= 10, "the sparse table ran in only {sparse_cases} of 60 cases");
    assert!(ruled_cases >= 8, "the fill rule placed data in only {ruled_cases} of 60 cases");
}

/// The default fill (rewrites to the GC threshold) placed by rule (`ftl/fill_rewrites.rs`):
/// lookups of rewritten and never rewritten pages, the reverse map, valid counts and GC
/// victims computed from the kept rewrites, against the dense table's.
#[test]
fn sparse_default_fill_matches_dense_on_swarm_cases() {
    let mut ruled_cases = 0;
    for seed in 940_000..940_060 {
        ruled_cases += (compare(case(seed), Some(true)) > 1) as u32;
    }
    eprintln!("the default fill placed by rule in {ruled_cases} of 60 cases");
    assert!(ruled_cases >= 8, "the default fill's rule placed data in only {ruled_cases} of 60 cases");
}
