//! Synthetic workloads: a seeded generator of [`Record`]s described by a [`SyntheticSpec`].
//!
//! This module owns the workload description (deserialisable from a TOML `[workload]`
//! section) and the generator, [`SyntheticSource`]. The generator is built from two
//! independent parts that a richer (fio-style, multi-job) generator can reuse:
//!
//! - [`OpMix`] chooses read or write,
//! - [`AddressStream`] chooses offsets: sequential, or random following an
//!   [`AddressDistribution`] (uniform, or skewed: Zipf, Pareto, normal, zoned — see
//!   [`crate::distribution`]).
//!
//! Determinism: the random numbers come from a `rand_pcg::Pcg64Mcg` seeded with
//! `seed_from_u64(spec.seed)`. For each request the generator draws the op first, then
//! (for the random pattern) the offset, so equal specs give equal streams on every
//! platform (for given versions of `rand` and `rand_distr`). The rank permutation of the
//! Zipf and Pareto distributions is keyed by the seed too.

use crate::distribution::SlotSampler;
use crate::{Op, Record, RecordSource, TraceError};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Order of offsets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Each offset drawn independently from the [`AddressDistribution`].
    #[default]
    Random,
    /// Consecutive blocks from the start of the address space, wrapping around to the
    /// start when the next block would not fit.
    Sequential,
}

pub use crate::distribution::{AddressDistribution, Zone};

/// A synthetic workload. Every field has a default, so a TOML `[workload]` section only
/// names what it changes; unknown keys are rejected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticSpec {
    /// Fraction of requests that are reads, in [0, 1]. The rest are writes. Default 0.5.
    pub read_fraction: f64,
    /// Size of every request in bytes, or the smallest size with `block_size_max_bytes`.
    /// Default 4096.
    pub block_size_bytes: u64,
    /// fio's `bsrange`: `0` (the default) = every request is `block_size_bytes`; otherwise
    /// each request's size is drawn uniformly from `block_size_bytes`,
    /// `block_size_bytes + align`, …, `block_size_max_bytes` (align = the alignment of
    /// random offsets), drawn after the op and before the offset.
    pub block_size_max_bytes: u64,
    /// Default random.
    pub pattern: Pattern,
    /// Distribution of random offsets (ignored for sequential), in fio's spelling:
    /// `"uniform"`, `"zipf:1.2"`, `"pareto:0.2"`, `"normal:5"`, `"zoned:60/10:40/90"`.
    /// Default uniform.
    pub distribution: AddressDistribution,
    /// Length of the region requests fall in, starting at `start_offset_bytes`; every
    /// request lies wholly inside it. `0` (the default) means "the whole device from
    /// `start_offset_bytes` on": the host fills it in with
    /// [`resolve_address_space`](SyntheticSpec::resolve_address_space).
    pub address_space_bytes: u64,
    /// First byte of the region. Must be a multiple of the alignment. Default 0.
    pub start_offset_bytes: u64,
    /// Number of requests. Default 100,000.
    pub count: u64,
    /// Seed of the random number generator. Default 1.
    pub seed: u64,
    /// Time between arrivals; request `i` arrives at `i * interarrival_ns`. `0` (the
    /// default) puts every request at time 0, for closed-loop replay.
    pub interarrival_ns: u64,
    /// Random offsets are multiples of this (relative to address 0). `0` (the default)
    /// means `block_size_bytes`. For the sequential pattern the block size must be a
    /// multiple of it.
    pub align_bytes: u64,
    /// A zone-native workload for a zoned drive instead (`[workload.zoned]`,
    /// [`crate::zoned`]): its writers, appends and resets, with this spec's count, sizes,
    /// read fraction, seed and arrivals (pattern and distribution unused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoned: Option<crate::zoned::ZonedSpec>,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        SyntheticSpec {
            read_fraction: 0.5,
            block_size_bytes: 4096,
            block_size_max_bytes: 0,
            pattern: Pattern::Random,
            distribution: AddressDistribution::Uniform,
            address_space_bytes: 0,
            start_offset_bytes: 0,
            count: 100_000,
            seed: 1,
            interarrival_ns: 0,
            align_bytes: 0,
            zoned: None,
        }
    }
}

/// A problem with one field of a [`SyntheticSpec`]. `field` is the bare key
/// (`"read_fraction"`); a config layer prefixes its section (`workload.read_fraction`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SpecError {}

fn spec_err(field: &'static str, message: impl Into<String>) -> SpecError {
    SpecError { field, message: message.into() }
}

impl SyntheticSpec {
    /// The alignment of random offsets in bytes (`align_bytes`, or the block size if 0).
    pub fn effective_align_bytes(&self) -> u64 {
        if self.align_bytes == 0 {
            self.block_size_bytes
        } else {
            self.align_bytes
        }
    }

    /// The largest request size: `block_size_max_bytes`, or `block_size_bytes` if that is 0.
    pub fn largest_block_bytes(&self) -> u64 {
        self.block_size_max_bytes.max(self.block_size_bytes)
    }

    /// This spec with `address_space_bytes = 0` replaced by the device's logical capacity
    /// from `start_offset_bytes` on. Specs with an explicit address space are unchanged.
    pub fn resolve_address_space(&self, capacity_bytes: u64) -> SyntheticSpec {
        let mut spec = self.clone();
        if spec.address_space_bytes == 0 {
            spec.address_space_bytes = capacity_bytes.saturating_sub(spec.start_offset_bytes);
        }
        spec
    }

    /// Checks every field; returns all problems found, each naming its field.
    /// `address_space_bytes = 0` is valid here (it means the whole device).
    pub fn validate(&self) -> Result<(), Vec<SpecError>> {
        let mut errors = Vec::new();
        if !(self.read_fraction.is_finite() && (0.0..=1.0).contains(&self.read_fraction)) {
            errors.push(spec_err("read_fraction", format!("must be within [0, 1], got {}", self.read_fraction)));
        }
        if self.block_size_bytes == 0 {
            errors.push(spec_err("block_size_bytes", "must be at least 1"));
        }
        let align = self.effective_align_bytes();
        if self.block_size_max_bytes != 0 {
            if self.block_size_max_bytes < self.block_size_bytes {
                errors.push(spec_err(
                    "block_size_max_bytes",
                    format!("{} is below block_size_bytes ({})", self.block_size_max_bytes, self.block_size_bytes),
                ));
            } else if align > 0 && !(self.block_size_max_bytes - self.block_size_bytes).is_multiple_of(align) {
                errors.push(spec_err(
                    "block_size_max_bytes",
                    format!(
                        "sizes step by the alignment ({align} bytes) from block_size_bytes ({}); {} is not on a step",
                        self.block_size_bytes, self.block_size_max_bytes
                    ),
                ));
            }
        }
        if align > 0 {
            if !self.start_offset_bytes.is_multiple_of(align) {
                errors.push(spec_err(
                    "start_offset_bytes",
                    format!("{} is not a multiple of the alignment ({align} bytes)", self.start_offset_bytes),
                ));
            }
            if self.pattern == Pattern::Sequential && !self.block_size_bytes.is_multiple_of(align) {
                errors.push(spec_err(
                    "align_bytes",
                    format!(
                        "a sequential stream steps by block_size_bytes ({}), which is not a multiple \
                         of align_bytes ({align})",
                        self.block_size_bytes
                    ),
                ));
            }
        }
        if self.address_space_bytes != 0 {
            if self.address_space_bytes < self.largest_block_bytes() {
                errors.push(spec_err(
                    "address_space_bytes",
                    format!(
                        "{} is smaller than the largest block ({} bytes)",
                        self.address_space_bytes,
                        self.largest_block_bytes()
                    ),
                ));
            }
            if self.start_offset_bytes.checked_add(self.address_space_bytes).is_none() {
                errors.push(spec_err("address_space_bytes", "start_offset_bytes + address_space_bytes exceeds 2^64"));
            }
        }
        if let Err(m) = self.distribution.validate() {
            errors.push(spec_err("distribution", m));
        }
        if self.count == 0 {
            errors.push(spec_err("count", "must be at least 1"));
        }
        if self.interarrival_ns.checked_mul(self.count.saturating_sub(1)).is_none() {
            errors.push(spec_err(
                "interarrival_ns",
                "the last arrival time (count - 1) * interarrival_ns exceeds 2^64 ns",
            ));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// Chooses each request's op.
#[derive(Clone, Debug)]
pub struct OpMix {
    read_fraction: f64,
}

impl OpMix {
    pub fn new(read_fraction: f64) -> Self {
        OpMix { read_fraction }
    }

    /// Read with probability `read_fraction` (exactly never at 0, always at 1). Draws one
    /// `f64`.
    pub fn next<G: Rng + ?Sized>(&self, rng: &mut G) -> Op {
        if rng.random::<f64>() < self.read_fraction {
            Op::Read
        } else {
            Op::Write
        }
    }
}

/// Chooses each request's offset within `[base, base + span)`.
#[derive(Clone, Debug)]
pub struct AddressStream {
    base: u64,
    span: u64,
    block: u64,
    align: u64,
    state: AddressState,
}

#[derive(Clone, Debug)]
enum AddressState {
    /// Offset (relative to `base`) of the next request.
    Sequential { next: u64 },
    /// Number of aligned slots a block can start at.
    Uniform { slots: u64 },
    /// A skewed distribution over the same slots.
    Skewed(SlotSampler),
}

impl AddressStream {
    /// The stream for a validated spec with a non-zero address space.
    fn new(spec: &SyntheticSpec) -> Self {
        // (`block` is the largest size: every request must fit wherever it starts.)
        let (base, span, block) = (spec.start_offset_bytes, spec.address_space_bytes, spec.largest_block_bytes());
        let align = spec.effective_align_bytes();
        let slots = (span - block) / align + 1;
        let state = match (spec.pattern, &spec.distribution) {
            (Pattern::Sequential, _) => AddressState::Sequential { next: 0 },
            (Pattern::Random, AddressDistribution::Uniform) => AddressState::Uniform { slots },
            (Pattern::Random, dist) => AddressState::Skewed(
                SlotSampler::new(dist, slots, align, spec.seed).expect("validated distribution over at least one slot"),
            ),
        };
        AddressStream { base, span, block, align, state }
    }

    /// This stream from its first request (a sequential stream from the region's start).
    fn restarted(&self) -> AddressStream {
        let mut again = self.clone();
        if let AddressState::Sequential { next } = &mut again.state {
            *next = 0;
        }
        again
    }

    /// The next offset in bytes for a request of `size` bytes (at most the spec's largest
    /// block). A block starting there ends inside the region.
    pub fn next<G: Rng + ?Sized>(&mut self, rng: &mut G, size: u64) -> u64 {
        match &mut self.state {
            AddressState::Sequential { next } => {
                let offset = *next;
                *next += size;
                if *next > self.span - self.block {
                    *next = 0;
                }
                self.base + offset
            }
            AddressState::Uniform { slots } => self.base + rng.random_range(0..*slots) * self.align,
            AddressState::Skewed(sampler) => self.base + sampler.sample(rng) * self.align,
        }
    }
}

/// The generator: a [`RecordSource`] yielding `spec.count` records, never an error.
#[derive(Clone, Debug)]
pub struct SyntheticSource {
    spec: SyntheticSpec,
    rng: Pcg64Mcg,
    ops: OpMix,
    addresses: AddressStream,
    /// Size steps above `block_size_bytes` (0 = one size: no draw, so fixed-size streams
    /// are those of a spec without `block_size_max_bytes`).
    sizes: u64,
    issued: u64,
    zoned: Option<crate::zoned::ZonedState>,
}

impl SyntheticSource {
    /// A generator for `spec`, which must validate and have a non-zero address space
    /// (call [`SyntheticSpec::resolve_address_space`] first).
    pub fn new(spec: SyntheticSpec) -> Result<Self, Vec<SpecError>> {
        spec.validate()?;
        if let Some(z) = &spec.zoned {
            let mut errors: Vec<SpecError> =
                z.problems(spec.block_size_bytes).into_iter().map(|(f, m)| spec_err(f, m)).collect();
            if spec.block_size_max_bytes != 0 {
                errors.push(spec_err("block_size_max_bytes", "a zoned workload writes one size"));
            }
            if !errors.is_empty() {
                return Err(errors);
            }
        }
        if spec.address_space_bytes == 0 {
            return Err(vec![spec_err(
                "address_space_bytes",
                "0 means the whole device; resolve it with the device capacity before generating",
            )]);
        }
        Ok(SyntheticSource {
            rng: Pcg64Mcg::seed_from_u64(spec.seed),
            ops: OpMix::new(spec.read_fraction),
            addresses: AddressStream::new(&spec),
            sizes: (spec.largest_block_bytes() - spec.block_size_bytes) / spec.effective_align_bytes().max(1),
            issued: 0,
            zoned: spec.zoned.clone().map(crate::zoned::ZonedState::new),
            spec,
        })
    }

    pub fn spec(&self) -> &SyntheticSpec {
        &self.spec
    }
}

impl Iterator for SyntheticSource {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(z) = self.zoned.as_mut() {
            if let Some(write) = z.take_pending() {
                return Some(Ok(write));
            }
        }
        if self.issued >= self.spec.count {
            return None;
        }
        if let Some(z) = self.zoned.as_mut() {
            let at = self.issued * self.spec.interarrival_ns;
            self.issued += 1;
            return Some(Ok(z.next(&mut self.rng, self.spec.read_fraction, self.spec.block_size_bytes, at)));
        }
        let op = self.ops.next(&mut self.rng);
        let size_bytes = match self.sizes {
            0 => self.spec.block_size_bytes,
            steps => self.spec.block_size_bytes + self.rng.random_range(0..=steps) * self.spec.effective_align_bytes(),
        };
        let offset_bytes = self.addresses.next(&mut self.rng, size_bytes);
        let arrival_ns = self.issued * self.spec.interarrival_ns;
        self.issued += 1;
        Some(Ok(Record { arrival_ns, device: 0, offset_bytes, size_bytes, op, hint: None }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.spec.count - self.issued).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

impl RecordSource for SyntheticSource {
    fn format_name(&self) -> &'static str {
        "synthetic"
    }

    /// The same spec from its start, unbounded (`count` = 2^64 − 1, every arrival at 0),
    /// its random numbers from `stream_seed` mixed with `spec.seed`; the rank permutation
    /// of a skewed distribution stays keyed by `spec.seed` (the same hot addresses).
    /// A zone-native workload has none: its zones' write pointers are state the stream
    /// cannot restart from.
    fn reseeded(&self, stream_seed: u64) -> Option<Box<dyn RecordSource>> {
        if self.zoned.is_some() {
            return None;
        }
        let mut spec = self.spec.clone();
        spec.count = u64::MAX;
        spec.interarrival_ns = 0;
        Some(Box::new(SyntheticSource {
            rng: Pcg64Mcg::seed_from_u64(crate::record::stream_seed(spec.seed, stream_seed)),
            ops: self.ops.clone(),
            addresses: self.addresses.restarted(),
            sizes: self.sizes,
            issued: 0,
            zoned: None,
            spec,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GIB: u64 = 1 << 30;

    fn spec() -> SyntheticSpec {
        SyntheticSpec { address_space_bytes: GIB, ..SyntheticSpec::default() }
    }

    fn records(spec: SyntheticSpec) -> Vec<Record> {
        SyntheticSource::new(spec).unwrap().map(Result::unwrap).collect()
    }

    /// Steady-state preconditioning's fresh stream (issue 46): the same distribution
    /// (a Zipf's hottest address included), other addresses, no end.
    #[test]
    fn a_reseeded_stream_keeps_the_distribution_and_not_the_addresses() {
        let zipf = SyntheticSpec {
            distribution: "zipf:1.2".parse().unwrap(),
            count: 3_000,
            seed: 3,
            read_fraction: 0.3,
            ..spec()
        };
        let source = SyntheticSource::new(zipf.clone()).unwrap();
        let fresh: Vec<Record> = source.reseeded(99).unwrap().take(6_000).map(Result::unwrap).collect();
        let own = records(zipf);
        assert_eq!(fresh.len(), 6_000, "unbounded");
        assert_ne!(
            own.iter().map(|r| r.offset_bytes).collect::<Vec<_>>()[..3_000],
            fresh[..3_000].iter().map(|r| r.offset_bytes).collect::<Vec<_>>()[..]
        );
        let hottest = |records: &[Record]| {
            let mut counts = std::collections::BTreeMap::new();
            for r in records {
                *counts.entry(r.offset_bytes).or_insert(0u32) += 1;
            }
            counts.into_iter().max_by_key(|&(offset, n)| (n, std::cmp::Reverse(offset))).unwrap().0
        };
        assert_eq!(hottest(&own), hottest(&fresh), "the same hot set");
        let reads = fresh.iter().filter(|r| r.op == Op::Read).count() as f64 / 6_000.0;
        assert!((reads - 0.3).abs() < 0.03, "read share {reads}");
        assert!(fresh.iter().all(|r| r.arrival_ns == 0));
        let again: Vec<Record> = SyntheticSource::new(SyntheticSpec { count: 3_000, ..spec() })
            .unwrap()
            .reseeded(99)
            .unwrap()
            .take(10)
            .map(Result::unwrap)
            .collect();
        assert_eq!(again.len(), 10);
    }

    fn fields(spec: &SyntheticSpec) -> Vec<&'static str> {
        spec.validate().err().unwrap_or_default().into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn defaults_from_empty_toml_and_unknown_keys_rejected() {
        let s: SyntheticSpec = toml::from_str("").unwrap();
        assert_eq!(s, SyntheticSpec::default());
        assert!(s.validate().is_ok());
        let s: SyntheticSpec = toml::from_str(
            "read_fraction = 0.7\npattern = \"sequential\"\ndistribution = \"uniform\"\nblock_size_bytes = 8192",
        )
        .unwrap();
        assert_eq!((s.read_fraction, s.pattern, s.block_size_bytes), (0.7, Pattern::Sequential, 8192));
        let e = toml::from_str::<SyntheticSpec>("read_fracton = 0.7").unwrap_err().to_string();
        assert!(e.contains("read_fracton"), "{e}");
        assert!(toml::from_str::<SyntheticSpec>("pattern = \"zigzag\"").is_err());
    }

    #[test]
    fn validation_names_fields() {
        assert_eq!(fields(&SyntheticSpec { read_fraction: 1.5, ..spec() }), ["read_fraction"]);
        assert_eq!(fields(&SyntheticSpec { read_fraction: f64::NAN, ..spec() }), ["read_fraction"]);
        assert_eq!(fields(&SyntheticSpec { block_size_bytes: 0, align_bytes: 512, ..spec() }), ["block_size_bytes"]);
        assert_eq!(fields(&SyntheticSpec { start_offset_bytes: 100, ..spec() }), ["start_offset_bytes"]);
        assert_eq!(fields(&SyntheticSpec { address_space_bytes: 100, ..spec() }), ["address_space_bytes"]);
        assert_eq!(
            fields(&SyntheticSpec { start_offset_bytes: u64::MAX - 4095, address_space_bytes: 8192, ..spec() }),
            ["address_space_bytes"]
        );
        assert_eq!(fields(&SyntheticSpec { count: 0, ..spec() }), ["count"]);
        assert_eq!(fields(&SyntheticSpec { interarrival_ns: u64::MAX, count: 3, ..spec() }), ["interarrival_ns"]);
        let seq = SyntheticSpec { pattern: Pattern::Sequential, block_size_bytes: 4096, align_bytes: 8192, ..spec() };
        assert_eq!(fields(&seq), ["align_bytes"]);
        assert!(SyntheticSpec { pattern: Pattern::Random, ..seq }.validate().is_ok());
        let e = SyntheticSpec { read_fraction: -0.1, ..spec() }.validate().unwrap_err();
        assert_eq!(e[0].to_string(), "read_fraction: must be within [0, 1], got -0.1");
    }

    #[test]
    fn whole_device_address_space_must_be_resolved() {
        let s = SyntheticSpec { start_offset_bytes: 4096, ..SyntheticSpec::default() };
        assert_eq!(SyntheticSource::new(s.clone()).unwrap_err()[0].field, "address_space_bytes");
        let r = s.resolve_address_space(GIB);
        assert_eq!(r.address_space_bytes, GIB - 4096);
        assert!(SyntheticSource::new(r).is_ok());
        assert_eq!(spec().resolve_address_space(4 * GIB).address_space_bytes, GIB);
    }

    #[test]
    fn read_fraction_within_one_percent_over_100k() {
        for fraction in [0.0, 0.3, 0.7, 1.0] {
            let recs = records(SyntheticSpec { read_fraction: fraction, count: 100_000, seed: 42, ..spec() });
            assert_eq!(recs.len(), 100_000);
            let reads = recs.iter().filter(|r| r.op == Op::Read).count() as f64 / 100_000.0;
            assert!((reads - fraction).abs() < 0.01, "{fraction}: {reads}");
            if fraction == 0.0 || fraction == 1.0 {
                assert_eq!(reads, fraction);
            }
        }
    }

    #[test]
    fn same_seed_same_stream_other_seed_other_stream() {
        let a = records(SyntheticSpec { count: 10_000, seed: 7, ..spec() });
        let b = records(SyntheticSpec { count: 10_000, seed: 7, ..spec() });
        let c = records(SyntheticSpec { count: 10_000, seed: 8, ..spec() });
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn random_offsets_aligned_inside_and_covering_the_space() {
        let s = SyntheticSpec {
            block_size_bytes: 16384,
            align_bytes: 4096,
            start_offset_bytes: 1 << 20,
            address_space_bytes: 64 * 4096,
            count: 20_000,
            ..spec()
        };
        let recs = records(s.clone());
        let (lo, hi) = (s.start_offset_bytes, s.start_offset_bytes + s.address_space_bytes);
        for r in &recs {
            assert_eq!(r.offset_bytes % 4096, 0);
            assert!(r.offset_bytes >= lo && r.offset_bytes + r.size_bytes <= hi, "{r:?}");
            assert_eq!((r.size_bytes, r.device, r.arrival_ns, r.hint), (16384, 0, 0, None));
        }
        // 61 slots: both ends are reached.
        assert!(recs.iter().any(|r| r.offset_bytes == lo));
        assert!(recs.iter().any(|r| r.offset_bytes == hi - 16384));
    }

    #[test]
    fn sequential_wraps_around() {
        let s = SyntheticSpec {
            pattern: Pattern::Sequential,
            block_size_bytes: 4096,
            address_space_bytes: 3 * 4096 + 2048,
            start_offset_bytes: 8192,
            count: 7,
            interarrival_ns: 1000,
            ..spec()
        };
        let recs = records(s);
        let blocks: Vec<u64> = recs.iter().map(|r| (r.offset_bytes - 8192) / 4096).collect();
        assert_eq!(blocks, [0, 1, 2, 0, 1, 2, 0]);
        let times: Vec<u64> = recs.iter().map(|r| r.arrival_ns).collect();
        assert_eq!(times, [0, 1000, 2000, 3000, 4000, 5000, 6000]);
    }

    #[test]
    fn single_block_space() {
        for pattern in [Pattern::Random, Pattern::Sequential] {
            let recs = records(SyntheticSpec { pattern, address_space_bytes: 4096, count: 5, ..spec() });
            assert!(recs.iter().all(|r| r.offset_bytes == 0));
        }
    }

    #[test]
    fn skewed_distributions_from_toml_stay_inside() {
        let s: SyntheticSpec = toml::from_str("distribution = \"zipf:1.2\"\ncount = 5000").unwrap();
        assert_eq!(s.distribution, AddressDistribution::Zipf { theta: 1.2 });
        let recs = records(SyntheticSpec { address_space_bytes: 1 << 20, ..s });
        assert!(recs.iter().all(|r| r.offset_bytes + r.size_bytes <= 1 << 20));
        let mut counts = std::collections::HashMap::new();
        for r in &recs {
            *counts.entry(r.offset_bytes).or_insert(0) += 1;
        }
        // 256 slots, θ = 1.2: the hottest slot takes about 1/ζ ≈ 20% of accesses.
        let hottest = counts.values().max().unwrap();
        assert!(*hottest > 700, "{hottest}");
        let e = toml::from_str::<SyntheticSpec>("distribution = \"zipf:-3\"").unwrap_err().to_string();
        assert!(e.contains("zipf"), "{e}");
        assert_eq!(
            fields(&SyntheticSpec { distribution: AddressDistribution::Pareto { h: 2.0 }, ..spec() }),
            ["distribution"]
        );
    }

    #[test]
    fn source_metadata() {
        let mut src = SyntheticSource::new(SyntheticSpec { count: 3, ..spec() }).unwrap();
        assert_eq!(src.format_name(), "synthetic");
        assert_eq!(src.size_hint(), (3, Some(3)));
        src.next();
        assert_eq!(src.size_hint(), (2, Some(2)));
        assert_eq!(src.by_ref().count(), 2);
        assert!(src.next().is_none());
        assert_eq!(src.skipped(), 0);
    }

    #[test]
    fn a_size_range_draws_every_step_uniformly_and_fixed_sizes_keep_their_stream() {
        // Thesis §5.3's "random accesses ... of between 2KB and 256KB".
        let range = SyntheticSpec {
            block_size_bytes: 2048,
            block_size_max_bytes: 256 << 10,
            count: 128_000,
            seed: 3,
            ..spec()
        };
        let recs = records(range.clone());
        let mut seen = [0u32; 128];
        for r in &recs {
            assert_eq!(r.size_bytes % 2048, 0, "{r:?}");
            assert!(r.offset_bytes + r.size_bytes <= GIB, "{r:?}");
            seen[(r.size_bytes / 2048 - 1) as usize] += 1;
        }
        // 1000 expected per size; a 5-sigma band.
        assert!(seen.iter().all(|&n| (840..=1160).contains(&n)), "{seen:?}");
        let mean = recs.iter().map(|r| r.size_bytes as f64).sum::<f64>() / recs.len() as f64;
        assert!((mean / 1024.0 - 129.0).abs() < 1.0, "{mean}");
        // Sequential steps by each request's own size.
        let seq = records(SyntheticSpec { pattern: Pattern::Sequential, count: 50, ..range.clone() });
        for w in seq.windows(2) {
            assert_eq!(w[1].offset_bytes, w[0].offset_bytes + w[0].size_bytes);
        }
        // With max = min (or 0) nothing is drawn for the size.
        let fixed = SyntheticSpec { block_size_bytes: 8192, count: 1000, ..spec() };
        let same = SyntheticSpec { block_size_max_bytes: 8192, ..fixed.clone() };
        assert_eq!(records(fixed), records(same));
        assert_eq!(fields(&SyntheticSpec { block_size_max_bytes: 1024, ..range.clone() }), ["block_size_max_bytes"]);
        assert_eq!(fields(&SyntheticSpec { block_size_max_bytes: 5000, ..range.clone() }), ["block_size_max_bytes"]);
        assert_eq!(fields(&SyntheticSpec { address_space_bytes: 128 << 10, ..range }), ["address_space_bytes"]);
    }

    proptest! {
        #[test]
        fn any_valid_spec_stays_inside_and_aligned(
            block_units in 1u64..64,
            range_units in 0u64..8,
            align_shift in 0u32..4,
            start_units in 0u64..1000,
            extra in 0u64..100_000,
            sequential: bool,
            seed: u64,
        ) {
            let align = 512u64 << align_shift;
            let block = block_units * align;
            let max = if range_units == 0 { 0 } else { block + range_units * align };
            let s = SyntheticSpec {
                block_size_bytes: block,
                block_size_max_bytes: max,
                align_bytes: align,
                start_offset_bytes: start_units * align,
                address_space_bytes: block.max(max) + extra,
                pattern: if sequential { Pattern::Sequential } else { Pattern::Random },
                count: 200,
                seed,
                ..SyntheticSpec::default()
            };
            let (lo, hi) = (s.start_offset_bytes, s.start_offset_bytes + s.address_space_bytes);
            for r in records(s) {
                prop_assert_eq!(r.offset_bytes % align, 0);
                prop_assert!(r.offset_bytes >= lo && r.offset_bytes + r.size_bytes <= hi);
                prop_assert!(r.size_bytes >= block && r.size_bytes <= block.max(max));
                prop_assert_eq!(r.size_bytes % align, 0);
            }
        }
    }
}
