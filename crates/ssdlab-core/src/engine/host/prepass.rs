//! The workload pre-pass before preconditioning: the pages read before written, the
//! workload's write rate, and what steady-state preconditioning writes.

use super::super::*;
use super::map_offset;
use crate::config::SteadyStateWrites;
use crate::ftl::precondition::{PageSet, SteadyWrites};

/// Records the pre-pass reads ahead of the one it looks at (`workload_footprint`).
const PREPASS_BATCH: usize = 64;

/// The pre-pass: opens the workload once more and records the logical pages it reads
/// before writing them (with `host.unwritten_reads = "precondition"`), its write rate
/// (the clock of the blocks' modelled history) and, for steady-state preconditioning,
/// what the rounds write (`precondition.steady_state_writes`): a generator's fresh
/// stream (`RecordSource::reseeded`, seed stream `steady-state`), or the workload's own
/// writes (replayed, or as a histogram to draw from). The pre-pass stops quietly at a
/// record the run itself would stop at (a trace error, `address_overflow = "error"`):
/// the run reports it there.
pub(crate) fn workload_footprint(
    config: &Config,
    ftl: &Ftl,
    factory: &mut SourceFactory<'_>,
) -> Result<WorkloadFootprint, SimError> {
    let mut footprint = WorkloadFootprint::default();
    let reads = config.host.unwritten_reads == WhatIfUnwritten::Precondition;
    let steady = config.precondition.steady_state;
    if !reads && !steady {
        return Ok(footprint);
    }
    let logical = ftl.logical_pages as u64;
    let page = ftl.addr.page_size_bytes as u64;
    let logical_bytes = logical * page;
    // Per 64 logical pages, a word of bits seen (written or read) before and a word of
    // bits read before written (only with `reads`): the pages in order without sorting
    // them (below). The two words share a cache line: the bitmaps are larger than the
    // caches (62M pages on MQSim's default drive), and a page seen first is looked up
    // and marked with one miss.
    let mut bits = vec![[0u64; 2]; (logical as usize).div_ceil(64)];
    // The pages read first are listed while the list is smaller than the bitmap's half
    // that marks them; past that the list is dropped and that half becomes the footprint,
    // so its size is the drive's, not the workload's.
    let list_limit = 2 * bits.len();
    let mut listed = Vec::new();
    let mut read_first = 0u64;
    let source = factory()?;
    let mode = config.precondition.steady_state_writes;
    let fresh = match mode {
        SteadyStateWrites::Auto if steady => {
            source.reseeded(crate::rng::derive(config.seed, "steady-state")).map(|s| fresh_page_ops(s, config, ftl))
        }
        _ => None,
    };
    let histogram = steady && mode == SteadyStateWrites::Histogram;
    let replay = steady && fresh.is_none() && !histogram;
    let (mut ops, mut requests) = (Vec::new(), Vec::new());
    let mut latest_arrival_ns = None;
    let mut records = source.enumerate();
    let mut batch = Vec::with_capacity(PREPASS_BATCH);
    let mut ended = false;
    while !ended {
        // A batch of records first, and their first pages' words touched together: with
        // random addresses each is a cache miss, and independent loads overlap in the
        // memory system instead of stalling the loop below one at a time (the loads
        // change nothing; a remapped address only wastes its touch).
        batch.clear();
        for (id, record) in records.by_ref() {
            let Ok(record) = record else {
                ended = true;
                break;
            };
            batch.push((id, record));
            if batch.len() == PREPASS_BATCH {
                break;
            }
        }
        ended |= batch.len() < PREPASS_BATCH;
        let mut touched = 0u64;
        for (_, record) in &batch {
            touched ^= bits[(record.offset_bytes / page % logical) as usize / 64][0];
        }
        std::hint::black_box(touched);
        for (id, record) in batch.drain(..) {
            footprint.earliest_arrival_ns =
                Some(footprint.earliest_arrival_ns.map_or(record.arrival_ns, |e| e.min(record.arrival_ns)));
            latest_arrival_ns = Some(latest_arrival_ns.map_or(record.arrival_ns, |l: u64| l.max(record.arrival_ns)));
            if record.size_bytes > logical_bytes {
                ended = true;
                break;
            }
            // A request inside the logical space (nearly always) lands where it says;
            // `map_offset` for the rest (which then refuses nothing more than the check
            // above and this one would).
            let inside = record.offset_bytes.saturating_add(record.size_bytes.max(1)) <= logical_bytes;
            let offset = if inside {
                record.offset_bytes
            } else {
                let Ok((offset, _)) = map_offset(config, logical_bytes, page, id as u64, &record) else {
                    ended = true;
                    break;
                };
                offset
            };
            let first = offset / page;
            let last = (offset + record.size_bytes.max(1) - 1) / page;
            let kind = match record.op {
                Op::Write => Some(PageOp::Write as fn(u32) -> PageOp),
                Op::Trim | Op::Sanitize => Some(PageOp::Trim as fn(u32) -> PageOp),
                // A zone command's pages are the device's choice (an append) or a whole
                // zone's (a reset): zoned drives are never preconditioned.
                Op::Read | Op::ZoneAppend | Op::ZoneManagement(_) => None,
            };
            if record.op == Op::Write {
                footprint.written_pages += last - first + 1;
            }
            if let (Some(kind), true) = (kind, histogram) {
                requests.push((kind((first % logical) as u32), (last - first + 1) as u32));
            }
            if !replay && last < logical {
                // The pages a word of bits at a time (a request's pages share one or two
                // words): the same marks and the same pages read first, in the same order,
                // as the loop below, which takes the pages one by one (about 30
                // instructions a page, dev-opt).
                let read = reads && record.op == Op::Read;
                let (mut p, last) = (first as usize, last as usize);
                while p <= last {
                    let word = p / 64;
                    let high = last.min(word * 64 + 63);
                    let mask = (u64::MAX << (p % 64)) & (u64::MAX >> (63 - high % 64));
                    let pair = &mut bits[word];
                    let new = mask & !pair[0];
                    pair[0] |= mask;
                    if read && new != 0 {
                        pair[1] |= new;
                        let count = u64::from(new.count_ones());
                        if read_first + count <= list_limit as u64 {
                            let mut rest = new;
                            while rest != 0 {
                                listed.push((word * 64) as u32 + rest.trailing_zeros());
                                rest &= rest - 1;
                            }
                        } else if read_first <= list_limit as u64 {
                            // Past the limit the bitmap is the set (as in the loop below).
                            listed = Vec::new();
                        }
                        read_first += count;
                    }
                    p = high + 1;
                }
                continue;
            }
            for p in first..=last {
                let lpn = (p % logical) as u32;
                if let (Some(kind), true) = (kind, replay) {
                    ops.push(kind(lpn));
                }
                let (word, bit) = (lpn as usize / 64, 1u64 << (lpn % 64));
                let pair = &mut bits[word];
                if pair[0] & bit != 0 {
                    continue;
                }
                pair[0] |= bit;
                if reads && record.op == Op::Read {
                    read_first += 1;
                    if read_first <= list_limit as u64 {
                        listed.push(lpn);
                    } else if read_first == list_limit as u64 + 1 {
                        listed = Vec::new();
                    }
                    pair[1] |= bit;
                }
            }
        }
    }
    // The pages are distinct (each is taken at its first touch). Sorting a million of
    // them cost 200M instructions (dev-opt; a third of setup on MQSim's default drive
    // with 1,000,000 random requests, issue 48); reading them off the bitmap in order
    // costs a few per word, so it is taken when the words are not many more than the
    // pages. Either way the same pages in the same order.
    footprint.read_before_written = if read_first > list_limit as u64 {
        PageSet::Bits { words: bits.iter().map(|&[_, read]| read).collect(), len: read_first }
    } else if read_first > 0 && bits.len() as u64 <= read_first.saturating_mul(64) {
        listed.clear();
        for (w, &[_, read]) in bits.iter().enumerate() {
            let mut rest = read;
            while rest != 0 {
                listed.push((w * 64) as u32 + rest.trailing_zeros());
                rest &= rest - 1;
            }
        }
        PageSet::List(listed)
    } else {
        listed.sort_unstable();
        PageSet::List(listed)
    };
    drop(bits);
    footprint.steady_writes = match fresh {
        Some(fresh) => SteadyWrites::Fresh(fresh),
        None if histogram => SteadyWrites::Histogram { requests, logical_pages: logical as u32 },
        None if replay => SteadyWrites::Replay(ops),
        None => SteadyWrites::None,
    };
    // The workload's own write rate, if its arrivals say (an open-loop replay of a
    // stream spread over time); else the flash's (preconditioning's default).
    let span_ns = latest_arrival_ns.unwrap_or(0).saturating_sub(footprint.earliest_arrival_ns.unwrap_or(0));
    if config.host.replay != ReplayMode::ClosedLoop && span_ns > 0 && footprint.written_pages > 0 {
        footprint.ns_per_written_page = span_ns as f64 / config.host.speed_factor / footprint.written_pages as f64;
    }
    Ok(footprint)
}

/// A generator's fresh stream as page operations (reads dropped), mapped onto the
/// logical space as the run maps its requests; it ends where the run would stop.
fn fresh_page_ops(source: Box<dyn RecordSource>, config: &Config, ftl: &Ftl) -> Box<dyn Iterator<Item = PageOp>> {
    let logical = ftl.logical_pages as u64;
    let page = ftl.addr.page_size_bytes as u64;
    let logical_bytes = logical * page;
    let config = config.clone();
    let pages = source.map_while(Result::ok).map_while(move |record| {
        if record.size_bytes > logical_bytes {
            return None;
        }
        let (offset, _) = map_offset(&config, logical_bytes, page, 0, &record).ok()?;
        Some((record.op, offset / page, (offset + record.size_bytes.max(1) - 1) / page))
    });
    Box::new(pages.flat_map(move |(op, first, last)| {
        let kind = match op {
            Op::Write => Some(PageOp::Write as fn(u32) -> PageOp),
            Op::Trim | Op::Sanitize => Some(PageOp::Trim as fn(u32) -> PageOp),
            Op::Read | Op::ZoneAppend | Op::ZoneManagement(_) => None,
        };
        kind.into_iter().flat_map(move |kind| (first..=last).map(move |p| kind((p % logical) as u32)))
    }))
}
