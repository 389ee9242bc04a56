//! Address distributions for random workloads, in fio's vocabulary, and the sampler that
//! draws a slot (an aligned block position) from one.
//!
//! | spelling | meaning |
//! |---|---|
//! | `uniform` (or `random`) | every slot equally likely |
//! | `zipf[:θ]` | slot of popularity rank `r` (1 = hottest) has probability ∝ `r^-θ`; θ ≥ 0, default 1.1 (fio's) |
//! | `pareto[:h]` | fio's Pareto: rank = ⌊(N−1)·u^(ln h / ln(1−h))⌋ for uniform `u`; 0 < h < 1, default 0.2 — the lower `h`, the more skewed (h = 0.2 sends about 80% of accesses to 20% of the slots) |
//! | `normal[:σ%]` | a bell centred on the middle of the region, standard deviation σ% of it (default 100/12 ≈ 8.33%, the spread of fio's default normal: the mean of 12 uniform draws); draws outside the region are redrawn |
//! | `zoned:a1/r1:a2/r2:...` | `a_i`% of accesses fall uniformly in the next `r_i`% of the region; both lists add up to 100 |
//! | `zoned_abs:a1/s1:a2/s2:...` | the same with zone sizes (`s_i`, e.g. `20g`) instead of percentages; zones past the region's end are cut |
//!
//! **Rank → address:** for `zipf` and `pareto` the popularity rank is mapped to a slot by a
//! seeded pseudo-random **permutation** of the slots (a 4-round Feistel network with cycle
//! walking), so hot slots are spread over the region instead of packed at its start, as
//! fio spreads them with a hash. The permutation depends only on the seed and the number
//! of slots. `normal` and `zoned` are not permuted: their shape *is* the locality.

use rand::Rng;
use rand_distr::{Distribution, StandardNormal, Zipf};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// fio's default Zipf θ.
pub const DEFAULT_ZIPF_THETA: f64 = 1.1;
/// fio's default Pareto h.
pub const DEFAULT_PARETO_H: f64 = 0.2;
/// The default normal standard deviation, % of the region (fio's default shape).
pub const DEFAULT_NORMAL_STDDEV_PERCENT: f64 = 100.0 / 12.0;

/// One zone of a zoned distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    /// Share of accesses, in percent.
    pub access_percent: f64,
    /// The zone's extent: percent of the region (`zoned`) or bytes (`zoned_abs`).
    pub range: f64,
}

/// How random offsets are distributed over the address space's aligned slots. Written
/// and read (also in TOML, e.g. `distribution = "zipf:1.2"`) in fio's spelling; see the
/// [module docs](self).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AddressDistribution {
    /// Every aligned slot equally likely.
    #[default]
    Uniform,
    /// Zipf with exponent `theta`.
    Zipf { theta: f64 },
    /// fio's Pareto with parameter `h`.
    Pareto { h: f64 },
    /// A bell centred on the middle of the region.
    Normal { stddev_percent: f64 },
    /// Zones of the region with their access shares; `absolute`: ranges are bytes.
    Zoned { zones: Vec<Zone>, absolute: bool },
}

impl AddressDistribution {
    /// Parses fio's spelling; sizes in `zoned_abs` use `kb_base` (1024 or 1000).
    pub fn parse(text: &str, kb_base: u64) -> Result<AddressDistribution, String> {
        let s = text.trim();
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k.trim().to_ascii_lowercase(), Some(a.trim())),
            None => (s.to_ascii_lowercase(), None),
        };
        let number = |default: f64| -> Result<f64, String> {
            match arg {
                None | Some("") => Ok(default),
                Some(a) => a.parse::<f64>().map_err(|_| format!("invalid parameter '{a}' in '{s}'")),
            }
        };
        let dist = match kind.as_str() {
            "uniform" | "random" if arg.is_none() => AddressDistribution::Uniform,
            "zipf" => AddressDistribution::Zipf { theta: number(DEFAULT_ZIPF_THETA)? },
            "pareto" => AddressDistribution::Pareto { h: number(DEFAULT_PARETO_H)? },
            "normal" | "gauss" => {
                AddressDistribution::Normal { stddev_percent: number(DEFAULT_NORMAL_STDDEV_PERCENT)? }
            }
            "zoned" | "zoned_abs" => {
                let absolute = kind == "zoned_abs";
                let arg = arg
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| format!("'{kind}' needs zones, e.g. {kind}:60/10:40/90"))?;
                let mut zones = Vec::new();
                for part in arg.split(':') {
                    let (a, r) = part
                        .split_once('/')
                        .ok_or_else(|| format!("zone '{part}' in '{s}' must be access%/range (e.g. 60/10)"))?;
                    let access_percent =
                        a.trim().parse::<f64>().map_err(|_| format!("invalid access percentage '{a}' in '{s}'"))?;
                    let range = if absolute {
                        crate::units::parse_size(r, kb_base)? as f64
                    } else {
                        r.trim().parse::<f64>().map_err(|_| format!("invalid range percentage '{r}' in '{s}'"))?
                    };
                    zones.push(Zone { access_percent, range });
                }
                AddressDistribution::Zoned { zones, absolute }
            }
            _ => {
                return Err(format!(
                    "unknown random distribution '{s}' (expected uniform, zipf[:θ], pareto[:h], normal[:σ%], \
                     zoned:a/r:... or zoned_abs:a/size:...)"
                ))
            }
        };
        dist.validate()?;
        Ok(dist)
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            AddressDistribution::Uniform => Ok(()),
            AddressDistribution::Zipf { theta } if theta.is_finite() && *theta >= 0.0 => Ok(()),
            AddressDistribution::Zipf { theta } => Err(format!("zipf θ must be a number ≥ 0, got {theta}")),
            AddressDistribution::Pareto { h } if *h > 0.0 && *h < 1.0 => Ok(()),
            AddressDistribution::Pareto { h } => Err(format!("pareto h must lie strictly between 0 and 1, got {h}")),
            AddressDistribution::Normal { stddev_percent: d } if d.is_finite() && *d > 0.0 => Ok(()),
            AddressDistribution::Normal { stddev_percent } => {
                Err(format!("normal standard deviation must be > 0% of the region, got {stddev_percent}"))
            }
            AddressDistribution::Zoned { zones, absolute } => {
                if zones.is_empty() {
                    return Err("a zoned distribution needs at least one zone".to_string());
                }
                if zones.iter().any(|z| !(z.access_percent >= 0.0 && z.range >= 0.0 && z.range.is_finite())) {
                    return Err("zone percentages and sizes must be ≥ 0".to_string());
                }
                let access: f64 = zones.iter().map(|z| z.access_percent).sum();
                if (access - 100.0).abs() > 1e-6 {
                    return Err(format!("zone access percentages add up to {access}, not 100"));
                }
                let range: f64 = zones.iter().map(|z| z.range).sum();
                if !absolute && (range - 100.0).abs() > 1e-6 {
                    return Err(format!("zone range percentages add up to {range}, not 100"));
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for AddressDistribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressDistribution::Uniform => f.write_str("uniform"),
            AddressDistribution::Zipf { theta } => write!(f, "zipf:{theta}"),
            AddressDistribution::Pareto { h } => write!(f, "pareto:{h}"),
            AddressDistribution::Normal { stddev_percent } => write!(f, "normal:{stddev_percent}"),
            AddressDistribution::Zoned { zones, absolute } => {
                f.write_str(if *absolute { "zoned_abs" } else { "zoned" })?;
                for z in zones {
                    write!(f, ":{}/{}", z.access_percent, z.range)?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for AddressDistribution {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        AddressDistribution::parse(s, 1024)
    }
}

impl Serialize for AddressDistribution {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AddressDistribution {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// SplitMix64's finaliser.
pub(crate) fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A seeded bijection of `[0, n)`: a balanced 4-round Feistel network over the smallest
/// even number of bits covering `n`, with cycle walking (fewer than 4 steps on average).
#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Self {
        let bits = 64 - (n.max(2) - 1).leading_zeros();
        let half_bits = bits.div_ceil(2);
        let mut k = seed;
        let keys = [0; 4].map(|_: u64| {
            k = mix64(k);
            k
        });
        Permutation { n: n.max(1), half_bits, keys }
    }

    fn round_trip(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            let t = l ^ (mix64(r ^ key) & mask);
            l = r;
            r = t;
        }
        (l << self.half_bits) | r
    }

    /// The image of `x < n`.
    pub fn apply(&self, x: u64) -> u64 {
        let mut y = self.round_trip(x);
        while y >= self.n {
            y = self.round_trip(y);
        }
        y
    }
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    Zipf(Zipf<f64>, Option<Permutation>),
    Pareto {
        power: f64,
        perm: Option<Permutation>,
    },
    Normal {
        center: f64,
        sigma: f64,
    },
    /// Cumulative access shares (0..1) and each zone's slot range `[start, end)`.
    Zoned {
        cumulative: Vec<f64>,
        ranges: Vec<(u64, u64)>,
    },
}

/// Draws slots in `[0, slots)` following an [`AddressDistribution`].
///
/// Random numbers drawn per sample: uniform one `u64` range draw; zipf the draws of
/// `rand_distr::Zipf` (rejection-inversion); pareto one `f64`; normal one or more standard
/// normals (redrawn while outside the region, at most 64 times, then clamped); zoned one
/// `f64` for the zone and one range draw inside it.
#[derive(Clone, Debug)]
pub struct SlotSampler {
    slots: u64,
    kind: Kind,
}

impl SlotSampler {
    /// A sampler over `slots` slots of `slot_bytes` each (the latter only matters for
    /// `zoned_abs`); `seed` keys the rank permutation of zipf and pareto.
    pub fn new(dist: &AddressDistribution, slots: u64, slot_bytes: u64, seed: u64) -> Result<SlotSampler, String> {
        SlotSampler::build(dist, slots, slot_bytes, Some(seed))
    }

    /// Like [`new`](Self::new) but without the rank permutation: Zipf/Pareto rank 1 is
    /// slot 0, rank 2 slot 1, and so on.
    pub fn unscrambled(dist: &AddressDistribution, slots: u64, slot_bytes: u64) -> Result<SlotSampler, String> {
        SlotSampler::build(dist, slots, slot_bytes, None)
    }

    fn build(
        dist: &AddressDistribution,
        slots: u64,
        slot_bytes: u64,
        seed: Option<u64>,
    ) -> Result<SlotSampler, String> {
        dist.validate()?;
        let perm = seed.map(|seed| Permutation::new(slots, seed));
        if slots == 0 {
            return Err("the region holds no slot".to_string());
        }
        let kind = match dist {
            AddressDistribution::Uniform => Kind::Uniform,
            AddressDistribution::Zipf { theta } => {
                let zipf = Zipf::new(slots as f64, *theta).map_err(|e| format!("zipf: {e}"))?;
                Kind::Zipf(zipf, perm)
            }
            AddressDistribution::Pareto { h } => Kind::Pareto { power: h.ln() / (1.0 - h).ln(), perm },
            AddressDistribution::Normal { stddev_percent } => {
                Kind::Normal { center: slots as f64 / 2.0, sigma: slots as f64 * stddev_percent / 100.0 }
            }
            AddressDistribution::Zoned { zones, absolute } => {
                let mut cumulative = Vec::with_capacity(zones.len());
                let mut ranges = Vec::with_capacity(zones.len());
                let (mut access, mut start) = (0.0, 0.0f64);
                for z in zones {
                    access += z.access_percent / 100.0;
                    let width =
                        if *absolute { z.range / slot_bytes.max(1) as f64 } else { z.range / 100.0 * slots as f64 };
                    let end = start + width;
                    let (a, b) = ((start as u64).min(slots), (end as u64).min(slots));
                    cumulative.push(access);
                    ranges.push((a.min(slots - 1), b.max(a + 1).min(slots)));
                    start = end;
                }
                Kind::Zoned { cumulative, ranges }
            }
        };
        Ok(SlotSampler { slots, kind })
    }

    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// One slot in `[0, slots)`.
    pub fn sample<G: Rng + ?Sized>(&self, rng: &mut G) -> u64 {
        let n = self.slots;
        match &self.kind {
            Kind::Uniform => rng.random_range(0..n),
            Kind::Zipf(zipf, perm) => {
                let rank = (zipf.sample(rng) as u64).clamp(1, n) - 1;
                perm.as_ref().map_or(rank, |p| p.apply(rank))
            }
            Kind::Pareto { power, perm } => {
                let u: f64 = rng.random();
                let rank = (((n - 1) as f64) * u.powf(*power)) as u64;
                let rank = rank.min(n - 1);
                perm.as_ref().map_or(rank, |p| p.apply(rank))
            }
            Kind::Normal { center, sigma } => {
                for _ in 0..64 {
                    let z: f64 = StandardNormal.sample(rng);
                    let x = center + z * sigma;
                    if x >= 0.0 && x < n as f64 {
                        return (x as u64).min(n - 1);
                    }
                }
                (*center as u64).min(n - 1)
            }
            Kind::Zoned { cumulative, ranges } => {
                let u: f64 = rng.random();
                let i = cumulative.iter().position(|&c| u < c).unwrap_or(ranges.len() - 1);
                let (a, b) = ranges[i];
                rng.random_range(a..b)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn spellings_round_trip() {
        for text in
            ["uniform", "zipf:1.2", "pareto:0.3", "normal:5", "zoned:60/10:30/20:10/70", "zoned_abs:60/4096:40/8192"]
        {
            let d: AddressDistribution = text.parse().unwrap();
            assert_eq!(d.to_string(), text);
        }
        assert_eq!("zipf".parse::<AddressDistribution>(), Ok(AddressDistribution::Zipf { theta: 1.1 }));
        assert_eq!("random".parse::<AddressDistribution>(), Ok(AddressDistribution::Uniform));
        let abs = AddressDistribution::parse("zoned_abs:50/1k:50/1m", 1000).unwrap();
        assert_eq!(abs.to_string(), "zoned_abs:50/1000:50/1000000");
        for (bad, needle) in [
            ("zipf:-1", "≥ 0"),
            ("zipf:x", "invalid parameter"),
            ("pareto:1", "strictly between"),
            ("normal:0", "> 0%"),
            ("zoned:60/10:30/20", "add up to 90"),
            ("zoned:60/50:40/40", "add up to 90"),
            ("zoned:60", "access%/range"),
            ("zoned", "needs zones"),
            ("lognormal", "unknown random distribution"),
        ] {
            let e = bad.parse::<AddressDistribution>().unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 3, 7, 100, 1000, 4097] {
            let p = Permutation::new(n, 42);
            let mut seen: Vec<u64> = (0..n).map(|x| p.apply(x)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }

    fn histogram(dist: &str, slots: u64, draws: usize) -> Vec<u64> {
        let s = SlotSampler::new(&dist.parse().unwrap(), slots, 4096, 7).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut h = vec![0u64; slots as usize];
        for _ in 0..draws {
            h[s.sample(&mut rng) as usize] += 1;
        }
        h
    }

    #[test]
    fn zoned_puts_the_right_share_in_each_zone() {
        let h = histogram("zoned:60/10:30/20:10/70", 1000, 100_000);
        let share = |a: usize, b: usize| h[a..b].iter().sum::<u64>() as f64 / 100_000.0;
        assert!((share(0, 100) - 0.6).abs() < 0.01);
        assert!((share(100, 300) - 0.3).abs() < 0.01);
        assert!((share(300, 1000) - 0.1).abs() < 0.01);
    }

    #[test]
    fn pareto_is_eighty_twenty() {
        let mut h = histogram("pareto:0.2", 10_000, 200_000);
        h.sort_unstable_by(|a, b| b.cmp(a));
        let top: u64 = h[..2000].iter().sum();
        assert!((top as f64 / 200_000.0 - 0.8).abs() < 0.03, "{}", top as f64 / 200_000.0);
    }

    #[test]
    fn normal_is_centred() {
        let h = histogram("normal:10", 1000, 100_000);
        let within: u64 = h[400..600].iter().sum();
        // ±1σ holds 68%.
        assert!((within as f64 / 100_000.0 - 0.683).abs() < 0.01);
    }
}
