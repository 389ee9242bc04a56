//! Garbage collection: steady-state write amplification and victim policies.

use super::*;

fn gc_device(op: f64, victim: VictimPolicy) -> Config {
    let mut c = tiny(2, 1, 1, 1);
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 24;
    c.ftl.over_provisioning = op;
    c.ftl.gc_victim = victim;
    c.ftl.gc_background_free_fraction = 0.06;
    c.ftl.gc_emergency_free_fraction = 0.04;
    c.precondition.used_fraction = 1.0;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 4;
    c
}

fn logical_pages(c: &Config) -> u64 {
    let g = &c.geometry;
    let pages = (g.channels
        * g.chips_per_channel
        * g.dies_per_chip
        * g.planes_per_die
        * g.blocks_per_plane
        * g.pages_per_block) as f64;
    (pages * (1.0 - c.ftl.over_provisioning)).floor() as u64
}

#[test]
fn write_amplification_falls_as_over_provisioning_grows() {
    let mut wafs = Vec::new();
    for op in [0.12, 0.2, 0.3] {
        let c = gc_device(op, VictimPolicy::Greedy);
        let span = logical_pages(&c);
        let records = random_requests(12_000, 1, span, Op::Write, 4096, 7);
        let report = run(&c, records);
        assert!(report.gc.erases > 0, "GC must run");
        wafs.push(report.waf);
    }
    assert!(wafs[0] > wafs[1] && wafs[1] > wafs[2], "WAF by OP 12/20/30%: {wafs:?}");
    assert!(wafs[2] > 1.0);
}

#[test]
fn greedy_beats_fifo_on_a_skewed_workload() {
    let waf = |victim| {
        let c = gc_device(0.15, victim);
        let span = logical_pages(&c);
        // 80% of writes to 20% of the address space.
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let hot = span / 5;
        let records: Vec<Record> = (0..20_000)
            .map(|_| {
                let page = if rng.random_bool(0.8) { rng.random_range(0..hot) } else { rng.random_range(hot..span) };
                rec(0, Op::Write, page, 1, 4096)
            })
            .collect();
        run(&c, records).waf
    };
    let greedy = waf(VictimPolicy::Greedy);
    let fifo = waf(VictimPolicy::Fifo);
    let cost_benefit = waf(VictimPolicy::CostBenefit);
    assert!(greedy < fifo, "greedy WAF {greedy:.3} should be below FIFO {fifo:.3}");
    assert!(cost_benefit < fifo, "cost-benefit WAF {cost_benefit:.3} should be below FIFO {fifo:.3}");
}

#[test]
fn trim_invalidates_and_unwritten_reads_are_counted() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    let report = run(
        &c,
        vec![
            rec(0, Op::Write, 5, 2, 4096),
            rec(20_000_000, Op::Trim, 5, 1, 4096),
            rec(30_000_000, Op::Read, 5, 2, 4096),
        ],
    );
    assert_eq!(report.trim.requests, 1);
    assert_eq!(report.host.unwritten_reads, 1, "the trimmed page reads as unwritten");
    assert_eq!(report.flash.page_reads, 1, "only the untrimmed page touches flash");
}

#[test]
fn same_run_twice_gives_identical_json() {
    let c = gc_device(0.15, VictimPolicy::Random);
    let span = logical_pages(&c);
    let records = random_requests(3000, 2, span, Op::Write, 4096, 11);
    let a = serde_json::to_string(&run(&c, records.clone())).unwrap();
    let b = serde_json::to_string(&run(&c, records)).unwrap();
    assert_eq!(a, b);
}
