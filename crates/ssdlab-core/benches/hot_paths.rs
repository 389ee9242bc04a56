//! Criterion micro-benchmarks of the simulator's hot paths (issue "Speed and memory"):
//! the event queue, page allocation plus mapping update, GC victim selection and a whole
//! small simulation. Only the public API of `ssdlab_core` is used.
//!
//! Run: `cargo bench -p ssdlab-core --bench hot_paths -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab_core::config::{Config, ReplayMode, VictimPolicy};
use ssdlab_core::ftl::allocation::PlaneAllocator;
use ssdlab_core::ftl::{Ftl, GcNeed, GcStep};
use ssdlab_core::source::VecSource;
use ssdlab_core::{Observers, Simulator};
use ssdlab_trace::{Op, Record, RecordSource};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// MQSim's default device as `ssdlab bench` builds it (crates/ssdlab-cli/src/bench.rs,
/// `mqsim_default_config`): MLC, 8 channels × 4 chips × 2 dies × 2 planes, 256 pages of
/// 8 KiB per block, 7% over-provisioning, CWDP — with `blocks_per_plane` blocks per plane
/// instead of 2048 and no preconditioning (each benchmark sets its own).
/// The `mqsim-default` preset with fewer blocks per plane and no preconditioning.
fn mqsim_like(blocks_per_plane: u32) -> Config {
    let mut c = ssdlab_core::presets::preset("mqsim-default").expect("built-in preset");
    c.geometry.blocks_per_plane = blocks_per_plane;
    c.precondition.used_fraction = 0.0;
    if let Err(errors) = c.validate() {
        panic!("invalid bench config: {errors:?}");
    }
    c
}

fn plane_allocator(config: &Config) -> PlaneAllocator {
    PlaneAllocator::new(config.ftl.plane_allocation, &config.ftl.allocation_order)
}

/// A drive built and preconditioned as the simulator does it before a run.
fn preconditioned(config: &Config) -> Ftl {
    let mut ftl = Ftl::new(config);
    ftl.precondition(config, &mut plane_allocator(config), &mut Default::default()).expect("precondition fits");
    ftl
}

/// 1. The engine's event queue: `BinaryHeap<Reverse<(time, seq, event)>>`. Per event the
///    engine pops the earliest entry and schedules a later one, so the queue length stays
///    at its steady-state size (64 or 4096 pending events here).
fn event_queue(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue");
    group.throughput(Throughput::Elements(1));
    for pending in [64u64, 4096] {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut heap: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::with_capacity(pending as usize + 1);
        let mut seq = 0u64;
        for _ in 0..pending {
            heap.push(Reverse((rng.random_range(0..1_000_000), seq, seq as u32)));
            seq += 1;
        }
        // Delays drawn up front so the loop measures the heap, not the RNG.
        let delays: Vec<u64> = (0..4096).map(|_| rng.random_range(1..1_000_000)).collect();
        group.bench_with_input(BenchmarkId::new("pop_push", pending), &pending, |b, _| {
            b.iter(|| {
                let Reverse((now, _, payload)) = heap.pop().expect("queue never empties");
                let delay = delays[(seq & 4095) as usize];
                heap.push(Reverse((now + delay, seq, black_box(payload).wrapping_add(1))));
                seq += 1;
                now
            })
        });
    }
    group.finish();
}

/// 2. Allocation + mapping update: PLAlloc's plane choice, `allocate_user` and
///    `commit_write` of a random logical page on a drive half full of valid data, so most
///    writes invalidate an old copy.
///    - `no_gc`: no cleaning; the drive is rebuilt (outside the timed region) when a plane
///      runs out of free blocks, about every 2M writes.
///    - `with_inline_gc`: the steady state, where a plane in emergency GC is cleaned at
///      once (moves and erases applied to the FTL directly, no simulated time), so the
///      cost of cleaning is included.
fn allocate_and_map(c: &mut Criterion) {
    let mut config = mqsim_like(256);
    config.precondition.used_fraction = 0.5;
    // Leave the free blocks free: no invalid fill down to the GC threshold, so a rebuilt
    // drive takes about 2M writes before a plane is full.
    config.precondition.fill_invalid_to_gc_threshold = false;
    let logical = config.logical_pages() as u32;

    let mut group = c.benchmark_group("allocate_commit");
    group.throughput(Throughput::Elements(1));

    group.bench_function("no_gc", |b| {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let mut ftl = preconditioned(&config);
        let mut planes = plane_allocator(&config);
        let mut now = 0u64;
        b.iter_custom(|iters| {
            let mut elapsed = Duration::ZERO;
            let mut done = 0u64;
            while done < iters {
                let start = Instant::now();
                while done < iters {
                    now += 1;
                    let lpn = rng.random_range(0..logical);
                    let plane = planes.choose(&ftl.addr, lpn, |_| 0, |_| true, |_| 0);
                    let Some(page) = ftl.allocate_user(plane, now) else { break };
                    ftl.commit_write(lpn, page.ppn);
                    done += 1;
                }
                elapsed += start.elapsed();
                if done < iters {
                    // A plane is full: start again from a half-full drive, untimed.
                    ftl = preconditioned(&config);
                }
            }
            elapsed
        })
    });

    group.bench_function("with_inline_gc", |b| {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut ftl = preconditioned(&config);
        let mut planes = plane_allocator(&config);
        let mut now = 0u64;
        b.iter(|| {
            now += 1;
            let lpn = rng.random_range(0..logical);
            let plane = planes.choose(&ftl.addr, lpn, |_| 0, |_| true, |_| 0);
            if ftl.gc_need(plane) == GcNeed::Emergency {
                clean_until_not_emergency(&mut ftl, plane, now);
            }
            let page = ftl.allocate_user(plane, now).expect("GC keeps room");
            ftl.commit_write(lpn, page.ppn);
        })
    });
    group.finish();
}

/// Runs cleanup steps on `plane` (moves committed at once) until it leaves emergency GC.
fn clean_until_not_emergency(ftl: &mut Ftl, plane: u32, now: u64) {
    while ftl.gc_need(plane) == GcNeed::Emergency {
        match ftl.gc_next_step(plane, now).expect("a closed block to clean") {
            GcStep::Move { ppn, .. } => {
                let to = ftl.allocate_gc(plane, now).expect("GC destination");
                ftl.move_page(ppn, to.ppn);
            }
            GcStep::Erase { block } => ftl.erase(block),
        }
    }
}

/// 3. GC victim selection on a fragmented plane: the drive is preconditioned to 90% of
///    its logical capacity (random rewrites down to the background GC threshold), then
///    random user writes go on until every plane needs background GC, so `pick_victim`
///    really scores candidates. The plane count is cut to 4 (selection works within one
///    plane) so that setting up 2048 blocks per plane stays quick.
fn victim_selection(c: &mut Criterion) {
    let mut group = c.benchmark_group("pick_victim");
    for policy in [VictimPolicy::Greedy, VictimPolicy::CostBenefit] {
        for blocks in [256u32, 2048] {
            let mut config = mqsim_like(blocks);
            config.geometry.channels = 2;
            config.geometry.chips_per_channel = 1;
            config.geometry.dies_per_chip = 1;
            config.ftl.gc_victim = policy;
            config.precondition.used_fraction = 0.9;
            let mut ftl = preconditioned(&config);
            let mut planes = plane_allocator(&config);
            let mut rng = Pcg64Mcg::seed_from_u64(4);
            let logical = ftl.logical_pages;
            let plane_count = ftl.addr.planes();
            let mut now = 1_000u64;
            while (0..plane_count).any(|p| ftl.gc_need(p) == GcNeed::None) {
                let lpn = rng.random_range(0..logical);
                let plane = planes.choose(&ftl.addr, lpn, |_| 0, |_| true, |_| 0);
                if let Some(page) = ftl.allocate_user(plane, now) {
                    ftl.commit_write(lpn, page.ppn);
                }
                now += 1_000;
            }
            let victim = ftl.pick_victim(0, now).expect("a victim on a fragmented plane");
            assert!(ftl.blocks[victim as usize].valid_pages > 0, "victim {victim} needs no moves: not fragmented");
            let name = match policy {
                VictimPolicy::Greedy => "greedy",
                VictimPolicy::CostBenefit => "cost_benefit",
                _ => unreachable!(),
            };
            group.bench_with_input(BenchmarkId::new(name, blocks), &blocks, |b, _| {
                b.iter(|| ftl.pick_victim(black_box(0), black_box(now)))
            });
        }
    }
    group.finish();
}

const SIM_REQUESTS: u64 = 10_000;

/// 4. A whole small simulation: `small-tlc` (preconditioned to 50% as the preset says),
///    10,000 uniformly random 4 KiB requests, 50% reads, closed loop at queue depth 16.
///    Includes building and preconditioning the drive. Throughput is in requests.
fn small_simulation(c: &mut Criterion) {
    let mut config = ssdlab_core::presets::preset("small-tlc").expect("preset");
    config.host.replay = ReplayMode::ClosedLoop;
    config.host.queue_depth = 16;
    let slots = config.logical_bytes() / 4096;
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let records: Vec<Record> = (0..SIM_REQUESTS)
        .map(|_| Record {
            arrival_ns: 0,
            device: 0,
            offset_bytes: rng.random_range(0..slots) * 4096,
            size_bytes: 4096,
            op: if rng.random_bool(0.5) { Op::Read } else { Op::Write },
            hint: None,
        })
        .collect();

    let mut group = c.benchmark_group("simulation");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SIM_REQUESTS));
    group.bench_function("small_tlc_10k_random_4k", |b| {
        b.iter_batched(
            || (config.clone(), records.clone()),
            |(config, records)| {
                let mut records = Some(records);
                let factory: ssdlab_core::SourceFactory = Box::new(move || {
                    let run = records.take().unwrap_or_default();
                    Ok(Box::new(VecSource::new(run)) as Box<dyn RecordSource>)
                });
                let sim = Simulator::new(config, factory, Observers::default()).expect("valid setup");
                let (report, _) = sim.run().expect("run completes");
                assert_eq!(report.host.requests, SIM_REQUESTS);
                report
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, event_queue, allocate_and_map, victim_selection, small_simulation);
criterion_main!(benches);
