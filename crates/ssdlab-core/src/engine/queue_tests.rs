//! Tests of the event queue (`queue.rs`) against a reference that shares none of its
//! code: `BinaryHeap<Reverse<(time, seq)>>`, so a wrong `Scheduled` ordering cannot hide
//! by moving the queue and its reference alike (a mutation sample found that the test in
//! `queue.rs`, whose reference heap holds `Scheduled`, passed with `Scheduled::key`
//! returning 0). Kept apart from `queue.rs` so that its internals can change freely.

use super::{Event, EventQueue, Scheduled};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// An event carrying its sequence, so that a pop can be checked to bring its own event.
fn scheduled(time: u64, seq: u64) -> Scheduled {
    Scheduled { time, seq, event: Event::DieDone { die: seq as u32 } }
}

fn pair(s: Scheduled) -> (u64, u64, Event) {
    (s.time, s.seq, s.event)
}

fn sorted_contents(q: &EventQueue) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = q.iter().map(|s| (s.time, s.seq)).collect();
    v.sort_unstable();
    v
}

fn sorted_keys(reference: &BinaryHeap<Reverse<(u64, u64)>>) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = reference.iter().map(|Reverse(k)| *k).collect();
    v.sort_unstable();
    v
}

/// The order is (time, sequence), reversed for `BinaryHeap` (greatest = earliest), and
/// `==` agrees with it: a closed-form check of the key's two halves, including a
/// sequence with its top bit set below a later time.
#[test]
fn scheduled_orders_by_time_then_sequence_reversed() {
    let early = scheduled(1, u64::MAX);
    let later = scheduled(2, 0);
    let tie_first = scheduled(1, 5);
    assert_eq!(early.cmp(&later), Ordering::Greater, "earlier time ranks greater (popped first)");
    assert_eq!(later.cmp(&early), Ordering::Less);
    assert_eq!(tie_first.cmp(&early), Ordering::Greater, "same time: lower sequence first");
    assert_eq!(early.partial_cmp(&later), Some(Ordering::Greater));
    assert_eq!(later.partial_cmp(&tie_first), Some(Ordering::Less));
    assert_eq!(early.cmp(&scheduled(1, u64::MAX)), Ordering::Equal);
    assert!(early == scheduled(1, u64::MAX), "equal keys are equal whatever the event");
    assert!(early != later && early != tie_first && tie_first != scheduled(5, 1));
    let mut heap = BinaryHeap::from(vec![later, early, tie_first]);
    let order: Vec<_> = std::iter::from_fn(|| heap.pop()).map(|s| (s.time, s.seq)).collect();
    assert_eq!(order, [(1, 5), (1, u64::MAX), (2, 0)]);
}

/// Events pushed due before the last one popped (the engine schedules none, but the
/// queue keeps them) come out first, in their own (time, sequence) order.
#[test]
fn events_due_before_the_last_pop_come_out_first_in_order() {
    let mut q = EventQueue::new();
    for (t, s) in [(100, 1), (200, 2), (300, 3)] {
        q.push(scheduled(t, s));
    }
    assert_eq!(q.pop().map(pair), Some((100, 1, Event::DieDone { die: 1 })));
    for (t, s) in [(50, 6), (10, 4), (50, 5), (100, 0)] {
        q.push(scheduled(t, s));
    }
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|s| (s.time, s.seq)).collect();
    assert_eq!(order, [(10, 4), (50, 5), (50, 6), (100, 0), (200, 2), (300, 3)]);
}

/// Keys whose highest differing bit is the top one (bit 127: times near `u64::MAX`)
/// and the lowest (bit 0: consecutive sequences at one time), and key 0 (time 0,
/// sequence 0), equal to the last key of a new queue.
#[test]
fn keys_at_both_ends_of_the_128_bits() {
    let mut q = EventQueue::new();
    let pushed = [(u64::MAX, 9), (0, 2), (0, 0), (u64::MAX, 8), (1 << 63, 7), (0, 3), ((1 << 63) - 1, 1)];
    for (t, s) in pushed {
        q.push(scheduled(t, s));
    }
    let mut want: Vec<_> = pushed.to_vec();
    want.sort_unstable();
    let got: Vec<_> = std::iter::from_fn(|| q.pop()).map(|s| (s.time, s.seq)).collect();
    assert_eq!(got, want);
}

/// Random pushes (mostly at or after the last pop, a few before it), pops, `retain`s and
/// `iter`s, checked at every step against the independent reference: each pop brings
/// the reference's earliest (time, sequence) and its own event, `iter` lists exactly the
/// queued events, `retain` keeps exactly those its predicate accepts.
#[test]
fn matches_an_independent_reference_through_pushes_pops_and_retains() {
    for seed in 0..4u64 {
        let mut rng = Pcg64Mcg::seed_from_u64(0x5eed_0000 + seed);
        let mut q = EventQueue::new();
        let mut reference: BinaryHeap<Reverse<(u64, u64)>> = BinaryHeap::new();
        let (mut now, mut seq) = (0u64, 0u64);
        // Seeds 2 and 3 start near the top of the time range, where keys differ in bit 127.
        if seed >= 2 {
            now = u64::MAX - (1 << 40);
        }
        for round in 0..6_000u32 {
            for _ in 0..rng.random_range(0..4u32) {
                seq += 1;
                let time = match rng.random_range(0..12u32) {
                    0 | 1 => now,
                    2 => now.saturating_sub(rng.random_range(0..1_000)),
                    _ => {
                        let bits = rng.random_range(0..40u32);
                        now.saturating_add(rng.random_range(0..1u64 << bits))
                    }
                };
                q.push(scheduled(time, seq));
                reference.push(Reverse((time, seq)));
            }
            match rng.random_range(0..10u32) {
                0..=4 => {
                    let want = reference.pop().map(|Reverse(k)| k);
                    let got = q.pop();
                    assert_eq!(got.map(|s| (s.time, s.seq)), want, "seed {seed} round {round}");
                    if let Some(s) = got {
                        assert_eq!(s.event, Event::DieDone { die: s.seq as u32 });
                        now = now.max(s.time);
                    }
                }
                5 => {
                    let m = rng.random_range(2..5u64);
                    let r = rng.random_range(0..m);
                    q.retain(|s| s.seq % m != r);
                    reference.retain(|Reverse((_, s))| s % m != r);
                    assert_eq!(sorted_contents(&q), sorted_keys(&reference), "seed {seed} round {round}");
                }
                6 => assert_eq!(sorted_contents(&q), sorted_keys(&reference), "seed {seed} round {round}"),
                _ => {}
            }
        }
        while let Some(Reverse(k)) = reference.pop() {
            assert_eq!(q.pop().map(|s| (s.time, s.seq)), Some(k));
        }
        assert!(q.pop().is_none());
        assert_eq!(q.iter().count(), 0);
    }
}

/// A `retain` that empties every bucket, then more events: the queue is empty and then
/// pops only the new ones (no bucket is left marked non-empty).
#[test]
fn retain_that_drops_everything_leaves_an_empty_queue() {
    let mut q = EventQueue::new();
    for s in 1..=40u64 {
        q.push(scheduled(s * s * 1_000, s));
    }
    assert_eq!(q.pop().map(|s| s.seq), Some(1));
    q.push(scheduled(0, 41)); // due before the last pop
    q.retain(|_| false);
    assert_eq!(q.iter().count(), 0);
    assert!(q.pop().is_none());
    q.push(scheduled(5_000, 43));
    q.push(scheduled(5_000, 42));
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|s| s.seq).collect();
    assert_eq!(order, [42, 43]);
}
