//! A bounded swarm: a fixed set of seeds, each a random device, policy mix and workload,
//! run with invariant checks and data verification. `ssdlab swarm --seeds N` runs more.

use ssdlab_core::config::{MangoGc, PagePreference, Rtf};
use ssdlab_core::swarm::{case, run_case};

/// Seeds that fail for a known, not yet fixed reason (each is an open bug, listed in the
/// closing note of the session that found it). They still run: the test fails if one of
/// them starts passing, so the list cannot go stale.
const KNOWN_FAILURES: &[u64] = &[];

/// Seeds that once failed, beyond the bounded range, kept as regressions (the distilled
/// scenarios are in `liveness.rs`): one-shot GC livelocks (177, 178, 195, 227, 231, 407,
/// 408, 594), planes filled with valid data by dynamic allocation (115, 197, 511), a lost
/// wake-up (387), reads of never-written pages with no room to place them (431, 1255,
/// 1543, 2751) and one-shot sets running past the write point's wordline (1313, 1567,
/// 1611, 1624, 2996), a full SLC cache drawn beside a read footprint that left too few
/// logical pages to fill it with (259, 344, 981: a setup error, not a run).
const FIXED: &[u64] = &[
    115, 177, 178, 195, 197, 227, 231, 259, 344, 387, 407, 408, 431, 511, 594, 981, 1255, 1313, 1543, 1567, 1611, 1624,
    2751, 2996, // Host flows beside the SPA hybrid's idle check (the single host had no record).
    4, 374, 470, 1968, // Counting free pages: emergency GC of the conventional FTL's write points.
    201,  // Scrubbing: a trim's and a write's old copy handed over after GC could erase it.
    // FDP: two flows of a third of the drive each confined to one plane of two, and a
    // reclaim unit time limit of a twentieth of a unit's program time (write
    // amplification 33, beyond the event budget).
    // Three flows, two confined to one plane of two, a FIFO victim and translation-page
    // write-backs: 88% of the plane valid, GC without headway (the same share rule).
    1000861, 1100803, // Scrubbing TLC with random victims: 1.05 times the event budget.
    1120058, 1138, // WOM codes: the capacity check counted a block's summary page as data.
    // Mango: a cleaning judged fast move by move ran its last pages fast, and a nearly
    // full victim's cleaning then cost more pages than its erase freed (GC for good).
    1243, 2587, 70247, 70481, 71406, 111473, 111630, 112877, 301653, 302331,
    // PLP dropped a cache flush queued as MGA's partial program into its open page.
    201155,
    // A cached mapping table on a drive with little spare: its translation pages did not
    // count against the spare (200383 ran at a write amplification of 400), and a write
    // amplification of 20 with write-backs outran the event budget (70801).
    70801, 200383,
    // Stalls and livelocks of GC's reserve: a PLP flush under relaxed order took the pages a
    // half-moved victim needed (130052, 202219, 400954); DIR's GC opened a block for LSB
    // pages while the open blocks kept theirs (131204, 132901); scrubbing relocated pages
    // and emptied SLC-mode blocks into the room GC keeps (110390, 302471).
    110390, 130052, 131204, 132901, 202219, 302471, 400954,
];

#[test]
fn bounded_swarm_of_random_cases_keeps_every_invariant() {
    let mut failures = Vec::new();
    for seed in 0..48 {
        if KNOWN_FAILURES.contains(&seed) {
            assert!(run_case(&case(seed)).is_err(), "seed {seed} passes now: remove it from KNOWN_FAILURES");
            continue;
        }
        let c = case(seed);
        if std::env::var_os("SWARM_TRACE").is_some() {
            eprintln!("seed {seed}: {}", c.description);
        }
        if let Err(e) = run_case(&c) {
            failures.push(format!(
                "seed {seed}: {e}\n  case: {}\n  replay: ssdlab swarm --start {seed} --seeds 1",
                c.description
            ));
        }
    }
    assert!(failures.is_empty(), "{} of 48 swarm seeds failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn seeds_that_once_failed_pass() {
    let failures: Vec<String> =
        FIXED.iter().filter_map(|&seed| run_case(&case(seed)).err().map(|e| format!("seed {seed}: {e}"))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore]
fn one_seed_from_env() {
    let seed: u64 = std::env::var("SWARM_SEED").unwrap().parse().unwrap();
    let c = case(seed);
    eprintln!("{}", c.description);
    run_case(&c).unwrap();
}

/// The same bounded seeds with one to three power failures in every case, early enough
/// to hit the workload: recovery must keep every invariant and every acknowledged write.
#[test]
fn bounded_swarm_with_power_losses_in_every_case() {
    use ssdlab_core::swarm::{case_with, PowerLosses};
    let mut failures = Vec::new();
    let mut losses = 0;
    for seed in 0..48 {
        let c = case_with(seed, PowerLosses::Always);
        assert!(!c.config.power.loss_at_ns.is_empty());
        match run_case(&c) {
            Ok(report) => losses += report.power.expect("power report").losses,
            Err(e) => failures.push(format!(
                "seed {seed}: {e}\n  case: {}\n  replay: ssdlab swarm --start {seed} --seeds 1 --power-loss always",
                c.description
            )),
        }
    }
    assert!(failures.is_empty(), "{} of 48 seeds failed:\n{}", failures.len(), failures.join("\n"));
    assert!(losses >= 48, "most drawn losses must happen during the workload: {losses}");
}

/// Power-loss seeds that once failed: 1255 stalled when a loss forgot a half-cleaned
/// victim and the random policy then picked one whose valid pages did not fit in the
/// room GC had left; 40528 (WOM codes) as 1138 above; the Mango livelocks as above;
/// 141204 as 201155 above; 120933, 141294 as 302471 above (scrub relocations); 1031273
/// (GC through the user write points) chose a victim too big for its room, which left
/// out the GC write point's open block.
#[test]
fn power_loss_seeds_that_once_failed_pass() {
    use ssdlab_core::swarm::{case_with, PowerLosses};
    for seed in [1255, 40528, 40572, 40637, 40740, 120040, 121230, 121483, 141204, 120933, 141294, 1031273] {
        if let Err(e) = run_case(&case_with(seed, PowerLosses::Always)) {
            panic!("seed {seed} (--power-loss always): {e}");
        }
    }
}

/// The swarm draws the core's mapping kinds and SLC levels often enough that the bounded
/// runs above and `ssdlab swarm` exercise them (a draw that never validates would
/// silently drop out).
#[test]
fn the_swarm_draws_mapping_kinds_slc_levels_and_super_pages() {
    use ssdlab_core::config::{Mapping, SlcGcDestination};
    let cases: Vec<_> = (0..300).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::config::Config) -> bool| cases.iter().filter(|c| f(&c.config)).count();
    let half = count(&|c| c.ftl.mapping == Mapping::HalfPages);
    let sub = count(&|c| c.ftl.mapping == Mapping::Subpages);
    let levels = count(&|c| c.ftl.slc_levels > 1);
    let inside = count(&|c| c.ftl.slc_gc_destination != SlcGcDestination::OutOfCache);
    // (Fewer since the Harey Tortoise, which needs a page map, is drawn beside Gordon's
    // write points too, and since zoned drives and FDP, both on a page map, are drawn in
    // power-loss cases too: 36 half-page and 19 subpage maps in seeds 0..300.)
    assert!(half >= 30 && sub >= 15, "half-page maps {half}, subpage maps {sub} of 300");
    assert!(levels >= 5 && inside >= 10, "SLC levels > 1: {levels}, GC inside the cache: {inside} of 300");
    let gangs = count(&|c| c.super_page_pages() > 1);
    // (9 since zoned drives, without super-pages, are drawn in power-loss cases too.)
    assert!(gangs >= 8, "super-pages: {gangs} of 300");
}

/// Issue 21: Gordon's write points, read bypassing and write combining are drawn.
#[test]
fn the_swarm_draws_gordons_write_points_bypassing_and_combining() {
    let cases: Vec<_> = (0..300).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::config::Config) -> bool| cases.iter().filter(|c| f(&c.config)).count();
    let points = count(&|c| c.gordon.write_points_per_channel > 0);
    let bypass = count(&|c| c.ftl.read_bypass);
    let combining = count(&|c| c.ftl.write_combining);
    assert!(
        points >= 20 && bypass >= 20 && combining >= 10,
        "write points {points}, bypass {bypass}, combining {combining} of 300"
    );
}

/// Issue 20: the Harey Tortoise's policies are drawn.
#[test]
fn the_swarm_draws_the_harey_tortoise() {
    let cases: Vec<_> = (0..300).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::config::Config) -> bool| cases.iter().filter(|c| f(&c.config)).count();
    let rtf = count(&|c| c.harey.rtf != Rtf::Off);
    let preference = count(&|c| c.harey.page_preference != PagePreference::None);
    let matching = count(&|c| c.harey.rate_matching);
    let points = count(&|c| c.harey.enabled() && c.ftl.user_write_points > 1);
    assert!(
        rtf >= 10 && preference >= 5 && matching >= 10 && points >= 10,
        "RTF {rtf}, preference {preference}, rate matching {matching}, several write points {points} of 300"
    );
}

/// Issue 14: DIR and its baselines are drawn, and DIR cases form groups.
#[test]
fn the_swarm_draws_dir_and_its_baselines() {
    use ssdlab_core::config::DirScheme;
    let cases: Vec<_> = (0..300).map(case).collect();
    let count = |s: DirScheme| cases.iter().filter(|c| c.config.dir.scheme == s).count();
    let dir = count(DirScheme::Dir);
    let (noac, inter) = (count(DirScheme::Noac), count(DirScheme::Interleaving));
    assert!(dir >= 8 && noac >= 5 && inter >= 5, "DIR in {dir}, NOAC in {noac}, Interleaving in {inter} of 300");
    let grouped = cases
        .iter()
        .filter(|c| c.config.dir.scheme == DirScheme::Dir)
        .take(8)
        .map(|c| run_case(c).expect("case passes").dir.unwrap().groups)
        .filter(|&g| g > 0)
        .count();
    assert!(grouped >= 3, "{grouped} of 8 DIR cases formed groups");
}

/// Issue 13: a third of the cases run the error model, and among the LDPC ones some reads
/// retry and some are uncorrectable, so the checks see retries of every length.
#[test]
fn the_swarm_draws_the_error_model_and_its_reads_retry() {
    use ssdlab_core::config::EccScheme;
    let cases: Vec<_> = (0..300).map(case).collect();
    let on: Vec<_> = cases.iter().filter(|c| c.config.reliability.enabled).collect();
    assert!((60..=150).contains(&on.len()), "error model on in {} of 300", on.len());
    let ldpc: Vec<_> = on.iter().filter(|c| c.config.ecc.scheme == EccScheme::Ldpc).take(12).collect();
    let reports: Vec<_> = ldpc.iter().map(|c| run_case(c).expect("case passes")).collect();
    let retried = reports.iter().filter(|r| r.flash.read_retries > 0).count();
    let lost = reports.iter().filter(|r| r.flash.uncorrectable_reads > 0).count();
    assert!(
        retried >= 4 && lost >= 1,
        "{retried} of {} LDPC cases retried, {lost} had uncorrectable reads",
        reports.len()
    );
}

#[test]
fn the_swarm_draws_cached_mapping_tables_that_miss_and_write_back() {
    // Over the first seeds, some cases run a cached mapping table that misses and writes
    // dirty entries back (the swarm's checks then cover it).
    let mut with_cmt = 0;
    let mut wrote_back = 0;
    for seed in 0..200 {
        let case = ssdlab_core::swarm::case(seed);
        if !case.config.cmt.enabled() {
            continue;
        }
        with_cmt += 1;
        let report = ssdlab_core::swarm::run_case(&case).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let cmt = report.cmt.expect("cmt on");
        assert!(cmt.lookups == 0 || cmt.misses + cmt.hits + cmt.buffer_hits == cmt.lookups, "seed {seed}");
        wrote_back += (cmt.write_backs > 0) as u32;
    }
    assert!(with_cmt >= 10 && wrote_back >= 5, "{with_cmt} cases with a table, {wrote_back} wrote back");
}

#[test]
fn the_swarm_draws_host_flows_some_confined() {
    // Some cases deal their records to host flows, some of those pinned to part of the
    // drive; every flow's requests are counted (the swarm's checks then cover them).
    let (mut with_flows, mut confined, mut shared) = (0, 0, 0);
    for seed in 0..400 {
        let case = ssdlab_core::swarm::case(seed);
        if case.config.flows.is_empty() {
            continue;
        }
        with_flows += 1;
        let pinned = case.config.flows.iter().any(|f| f.is_partitioned());
        confined += pinned as u32;
        if pinned {
            // MQSim's partitioning: each of a flow's planes gives it its share of the
            // logical capacity divided by the flows using the plane (a channel, die or
            // plane id each here). An equal split overfilled shared planes (seed 1000861).
            let g = &case.config.geometry;
            let ids = |f: &ssdlab_core::config::Flow| [&f.channels, &f.dies, &f.planes].map(|l| l.first().copied());
            let count = [g.channels, g.dies_per_chip, g.planes_per_die]
                [ids(&case.config.flows[0]).iter().position(Option::is_some).expect("a pinned dimension")];
            let page = g.page_size_bytes as u64;
            for f in &case.config.flows {
                let users = case.config.flows.iter().filter(|o| ids(o) == ids(f)).count() as u64;
                shared += (users > 1) as u32;
                let share = case.config.logical_bytes() as f64 / count as f64 / users as f64;
                assert_eq!(f.size_bytes, (share / page as f64).floor() as u64 * page, "seed {seed}");
            }
        }
        let report = ssdlab_core::swarm::run_case(&case).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let per_flow: u64 = report.flows.iter().map(|f| f.all.requests).sum();
        assert_eq!(per_flow, report.all.requests, "seed {seed}");
    }
    assert!(with_flows >= 5 && confined >= 2, "{with_flows} cases with flows, {confined} confined");
    assert!(shared >= 2, "{shared} confined flows sharing their planes with another");
}

#[test]
fn the_swarm_draws_scrubbing_and_wom_codes() {
    // Some cases scrub (each mode, budgets down to erase-only, sanitise commands from the
    // config or the trace), some write WOM codes; their reports show the work done.
    let (mut scrubbing, mut sanitising, mut wom) = (0, 0, 0);
    for seed in 0..300 {
        let case = case(seed);
        let c = &case.config;
        let sanitise = c.scrub.sanitize_bytes > 0 || case.records.iter().any(|r| r.op == ssdlab_trace::Op::Sanitize);
        if !c.scrub.enabled() && !c.wom.enabled {
            continue;
        }
        let report = run_case(&case).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        if c.wom.enabled {
            wom += 1;
            assert!(report.wom.is_some(), "seed {seed}");
        } else {
            scrubbing += 1;
            let s = report.scrub.as_ref().expect("scrub section");
            assert!(s.max_scrubs_per_block <= s.budget_pages, "seed {seed}: {s:?}");
            if sanitise {
                sanitising += 1;
                assert!(!s.sanitize.is_empty(), "seed {seed}");
            }
        }
    }
    assert!(
        scrubbing >= 20 && sanitising >= 5 && wom >= 10,
        "{scrubbing} scrubbing, {sanitising} sanitising, {wom} WOM"
    );
}

/// The swarm draws Mango with each GC mode and both priority sources, and power modes on
/// drives without it.
#[test]
fn the_swarm_draws_mango_and_power_modes() {
    let cases: Vec<_> = (0..200).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::swarm::SwarmCase) -> bool| cases.iter().filter(|c| f(c)).count();
    let mango = count(&|c| c.config.mango.enabled);
    let hinted = count(&|c| {
        c.config.mango.enabled && !c.config.priority.power_modes() && c.records.iter().any(|r| r.hint == Some(0))
    });
    let modes = count(&|c| c.config.mango.enabled && c.config.priority.power_modes());
    let plain_modes = count(&|c| !c.config.mango.enabled && c.config.priority.power_modes());
    let gc = [MangoGc::Priority, MangoGc::Slow, MangoGc::Fast]
        .map(|g| count(&|c| c.config.mango.enabled && c.config.mango.gc == g));
    assert!(mango >= 6 && hinted >= 2 && modes >= 2 && plain_modes >= 5, "{mango} {hinted} {modes} {plain_modes}");
    assert!(gc.iter().all(|&n| n >= 1), "{gc:?}");
}

/// The swarm draws Mongo's balanced placement and write points started on random pages,
/// with and without designs.
#[test]
fn the_swarm_draws_balanced_placement_and_random_write_point_starts() {
    use ssdlab_core::config::PlaneAllocation;
    let cases: Vec<_> = (0..200).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::swarm::SwarmCase) -> bool| cases.iter().filter(|c| f(c)).count();
    let balanced = count(&|c| c.config.ftl.plane_allocation == PlaneAllocation::Balanced);
    let scattered = count(&|c| c.config.precondition.write_points_random_start);
    let scattered_many = count(&|c| {
        c.config.precondition.write_points_random_start
            && c.config.ftl.user_write_points > 1
            && c.config.precondition.used_fraction > 0.0
    });
    assert!(balanced >= 20 && scattered >= 30 && scattered_many >= 2, "{balanced} {scattered} {scattered_many}");
}

/// The swarm draws allocation at service time, also with chip-serial dies, the DRAM
/// cache and power losses.
#[test]
fn the_swarm_draws_allocation_at_service_time() {
    use ssdlab_core::config::{DieScheduling, PlaneAllocation};
    // (600 seeds: the mode is refused beside designs that place writes, and zoned and FDP
    // drives are drawn in more cases since they run through power losses.)
    let cases: Vec<_> = (0..600).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::swarm::SwarmCase) -> bool| {
        cases.iter().filter(|c| c.config.ftl.plane_allocation == PlaneAllocation::AtService && f(c)).count()
    };
    let all = count(&|_| true);
    let serial = count(&|c| c.config.flash.die_scheduling == DieScheduling::ChipSerial);
    let cached = count(&|c| c.config.cache.capacity_bytes > 0);
    let lost = count(&|c| !c.config.power.loss_at_ns.is_empty());
    assert!(all >= 35 && serial >= 8 && cached >= 6 && lost >= 18, "{all} {serial} {cached} {lost}");
}

/// Issue 42: the swarm draws pairs of designs that compose (Gordon's write points with the
/// designs that claim the program order of a block's pages), through the registry.
#[test]
fn the_swarm_draws_pairs_of_designs_that_compose() {
    let cases: Vec<_> = (0..600).map(case).collect();
    let count = |f: &dyn Fn(&ssdlab_core::config::Config) -> bool| cases.iter().filter(|c| f(&c.config)).count();
    let gordon_and = |f: &dyn Fn(&ssdlab_core::config::Config) -> bool| count(&|c| c.gordon.enabled() && f(c));
    let scrub = gordon_and(&|c| c.scrub.enabled() || c.scrub.sanitize_bytes > 0);
    let wom = gordon_and(&|c| c.wom.enabled);
    let harey = gordon_and(&|c| c.harey.enabled());
    let mango = gordon_and(&|c| c.mango.enabled);
    assert!(
        scrub >= 4 && wom >= 2 && harey >= 6 && mango >= 1,
        "Gordon with scrubbing {scrub}, WOM {wom}, Harey {harey}, Mango {mango} of 600"
    );
}

/// FDP's reclaim unit time limits are drawn from one to ten times the time a die takes to
/// program its blocks of a unit: shorter, every unit closed nearly empty (seed 1000861:
/// 7.7 ms against 154 ms, three host pages a unit, a write amplification of 33).
#[test]
fn the_swarm_draws_reclaim_unit_time_limits_a_unit_can_fill() {
    let mut limits = 0;
    for seed in 0..1200 {
        let c = case(seed).config;
        let Some(limit) = c.designs.get("fdp").and_then(|f| f.get("ru_time_limit_ms")).and_then(|v| v.as_float())
        else {
            continue;
        };
        if limit == 0.0 {
            continue;
        }
        limits += 1;
        let latency = &c.flash.program_latency_ns;
        let mean_ms = latency.iter().sum::<u64>() as f64 / latency.len() as f64 / 1e6;
        let unit_ms = (c.geometry.pages_per_block * c.geometry.planes_per_die) as f64 * mean_ms;
        assert!(limit >= unit_ms && limit < 10.0 * unit_ms, "seed {seed}: {limit} ms against {unit_ms} ms");
    }
    assert!(limits >= 5, "{limits} drives with a time limit");
}
