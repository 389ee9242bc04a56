//! [`FioSource`]: the seeded generator of a [`FioJob`]'s requests.

use super::*;

pub(super) fn op_index(op: Op) -> usize {
    match op {
        Op::Read => 0,
        Op::Write | Op::ZoneAppend => 1,
        // (A sanitise discards its range as a trim does; a zone reset its zone's.)
        Op::Trim | Op::Sanitize | Op::ZoneManagement(_) => 2,
    }
}

/// The generator of a [`FioJob`]; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct FioSource {
    job: FioJob,
    rng: Pcg64Mcg,
    base: u64,
    len: u64,
    align: [u64; 3],
    samplers: [Option<SlotSampler>; 3],
    next_seq: u64,
    clock_ns: u64,
    interval_ns: u64,
    issued: u64,
    /// Writes issued (fio's round-robin placement identifiers count them).
    writes: u64,
    bytes: u64,
    budget: Option<u64>,
    /// `zonemode=zbd` with writes: the zone-native generator.
    zoned: Option<crate::zoned::ZonedState>,
    /// A fresh stream for steady-state preconditioning (`reseeded`): no request or time
    /// budget ends it.
    unbounded: bool,
}

impl FioSource {
    pub(super) fn new(job: FioJob, capacity_bytes: u64) -> Result<FioSource, FioError> {
        let (base, len) = job.region(capacity_bytes)?;
        let align = [0, 1, 2].map(|i| job.block_align.unwrap_or_else(|| job.block_sizes[i].min()).max(1));
        let mut samplers = [None, None, None];
        if job.rw.is_random() {
            for &op in job.ops() {
                let i = op_index(op);
                let slots = len / align[i];
                let sampler = if job.rank_scramble {
                    SlotSampler::new(&job.distribution, slots, align[i], job.randseed)
                } else {
                    SlotSampler::unscrambled(&job.distribution, slots, align[i])
                }
                .map_err(|m| FioError {
                    file: job.file.clone(),
                    line: 0,
                    key: "random_distribution".into(),
                    message: m,
                })?;
                samplers[i] = Some(sampler);
            }
        }
        // fio: number_ios without io_size replaces the byte budget.
        let bytes_bound = !job.time_based && (job.io_size.is_some() || job.number_ios.is_none());
        let budget = bytes_bound.then(|| job.io_size.unwrap_or(len).saturating_mul(job.loops).max(1));
        let writes = job.ops().contains(&Op::Write);
        let zoned = match job.zbd.enabled && writes {
            true => {
                let spec = job.zbd.spec(&job.file, base, len)?;
                let size = job.block_sizes[op_index(Op::Write)].max();
                if let Some((key, message)) = spec.problems(size).into_iter().next() {
                    return Err(FioError { file: job.file.clone(), line: 0, key: key.into(), message });
                }
                Some(crate::zoned::ZonedState::new(spec))
            }
            false => None,
        };
        Ok(FioSource {
            zoned,
            rng: Pcg64Mcg::seed_from_u64(job.randseed),
            interval_ns: job.rate_iops.map_or(0, |r| 1_000_000_000 / r),
            base,
            len,
            align,
            samplers,
            next_seq: 0,
            clock_ns: 0,
            issued: 0,
            writes: 0,
            bytes: 0,
            budget,
            unbounded: false,
            job,
        })
    }

    pub fn job(&self) -> &FioJob {
        &self.job
    }

    /// The region `(start, length)` in bytes the requests fall in.
    pub fn region(&self) -> (u64, u64) {
        (self.base, self.len)
    }
}

impl Iterator for FioSource {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(write) = self.zoned.as_mut().and_then(|z| z.take_pending()) {
            return Some(Ok(write));
        }
        let job = &self.job;
        let spent = job.number_ios.is_some_and(|n| self.issued >= n) || self.budget.is_some_and(|b| self.bytes >= b);
        if spent && !self.unbounded {
            return None;
        }
        if !self.unbounded && job.has_timestamps() && job.runtime_ns.is_some_and(|r| self.clock_ns >= r) {
            return None;
        }
        if let Some(z) = self.zoned.as_mut() {
            // Fixed write sizes: the zone capacity is a whole number of them.
            let size = job.block_sizes[op_index(Op::Write)].max();
            let reads = if job.ops().len() > 1 { job.read_percent / 100.0 } else { 0.0 };
            // (The zones' addresses start at the region's first zone: `ZonedSpec::start_bytes`.)
            let record = z.next(&mut self.rng, reads, size, self.clock_ns);
            return Some(Ok(self.advance(record)));
        }
        let op = match job.ops() {
            [op] => *op,
            _ => {
                if self.rng.random::<f64>() * 100.0 < job.read_percent {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        };
        let i = op_index(op);
        let size = job.block_sizes[i].sample(&mut self.rng).min(self.len);
        let random = match &self.samplers[i] {
            Some(_) if job.percentage_random >= 100.0 => true,
            Some(_) => self.rng.random::<f64>() * 100.0 < job.percentage_random,
            None => false,
        };
        let offset = match (&self.samplers[i], random) {
            (Some(sampler), true) => {
                let a = self.align[i];
                let off = sampler.sample(&mut self.rng) * a;
                if off + size > self.len {
                    (self.len - size) / a * a
                } else {
                    off
                }
            }
            _ => {
                if self.next_seq + size > self.len {
                    0
                } else {
                    self.next_seq
                }
            }
        };
        self.next_seq = offset + size;
        let hint = match &job.hint {
            HintSpec::None => None,
            HintSpec::Fixed(h) => Some(*h),
            HintSpec::Split(v) => {
                let mut u = self.rng.random::<f64>() * 100.0;
                let mut pick = v.last().map(|p| p.0);
                for &(h, pct) in v {
                    if u < pct {
                        pick = Some(h);
                        break;
                    }
                    u -= pct;
                }
                pick
            }
        };
        let device = match job.dp.enabled && op == Op::Write {
            true => {
                let rng = &mut self.rng;
                job.dp.pick(self.writes, |n| rng.random_range(0..n))
            }
            false => 0,
        };
        self.writes += u64::from(op == Op::Write);
        let record =
            Record { arrival_ns: self.clock_ns, device, offset_bytes: self.base + offset, size_bytes: size, op, hint };
        Some(Ok(self.advance(record)))
    }
}

impl FioSource {
    /// Counts `record` against the budgets and moves the clock past it.
    fn advance(&mut self, record: Record) -> Record {
        let job = &self.job;
        let size = record.size_bytes;
        self.issued += 1;
        self.bytes = self.bytes.saturating_add(size);
        self.clock_ns = self.clock_ns.saturating_add(self.interval_ns);
        if job.thinktime_ns > 0 && self.issued.is_multiple_of(job.thinktime_blocks) {
            self.clock_ns = self.clock_ns.saturating_add(job.thinktime_ns);
        }
        if job.burst_ios > 0 && self.issued.is_multiple_of(job.burst_ios) {
            self.clock_ns = self.clock_ns.saturating_add(job.burst_idle_ns);
        }
        record
    }
}

impl RecordSource for FioSource {
    fn format_name(&self) -> &'static str {
        "fio-job"
    }

    /// The job from its start without its budgets (`number_ios`, `io_size`, `runtime`),
    /// its random numbers from `stream_seed` mixed with `randseed`; the rank permutation
    /// of a skewed distribution stays keyed by `randseed` (the same hot addresses).
    /// A zoned job (`zonemode=zbd`) has none: its zones' write pointers are state the
    /// stream cannot restart from.
    fn reseeded(&self, stream_seed: u64) -> Option<Box<dyn RecordSource>> {
        if self.zoned.is_some() {
            return None;
        }
        let mut again = self.clone();
        again.rng = Pcg64Mcg::seed_from_u64(crate::record::stream_seed(self.job.randseed, stream_seed));
        (again.next_seq, again.clock_ns, again.issued, again.bytes, again.writes) = (0, 0, 0, 0, 0);
        again.unbounded = true;
        again.budget = None;
        Some(Box::new(again))
    }
}
