//! The flash error model (issue 13, SPEC §1.3): the raw bit error rate (RBER) of a page
//! read from its wear, retention age, read disturb and partial-programming disturb, and
//! what the ECC makes of it: decode time, LDPC soft-sensing read retries, uncorrectable
//! reads. Pure functions of the `[reliability]` and `[ecc]` sections and of the per-page
//! state the FTL keeps (`ftl/wear.rs`); the engine builds the read commands from the
//! outcome (`engine/scheduler.rs`, `start_read`).
//!
//! The model, term by term (docs/errors.md gives the sources of every default):
//!
//! ```text
//! RBER = W(P/E) × type × (1 + r·log10(1 + age_h)) × (1 + d·reads/10⁶) × (1 + i·n_in + n·n_nb)
//! ```
//!
//! - `W` is a table (P/E → RBER), linear in between: wear curves are measured curves
//!   (thesis Fig. 2.8, IPU Fig. 2) that no single formula fits across parts, and a table
//!   takes a user's own measurements unchanged.
//! - `type` scales by page type (LSB/CSB/MSB; DIR Fig. 3: MSB worst, LSB best) and SLC
//!   mode.
//! - The other terms are small formulas, each a *relative* increase of the wear RBER:
//!   the sources report that retention loss (thesis §2.4, "shelf life" shrinks with
//!   wear), read disturb and partial-programming disturb (IPU §2.2, "more pronounced as
//!   the P/E cycle is getting large") all grow with wear, and none gives more than one or
//!   two points to fit. Retention grows with the logarithm of time (charge loss is fast
//!   at first, then slows), read disturb linearly with the reads of the block since its
//!   erase, in-page disturb with each later partial program into the page (`n_in`),
//!   neighbour disturb with each re-program of an adjacent page (`n_nb`).

use serde::{Deserialize, Serialize};

/// `[reliability]`: the RBER model. Off by default: every read then decodes in
/// `flash.ecc_decode_ns` with `flash.read_retries` retries, as before the model existed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Reliability {
    /// Track per-page reliability state and compute the RBER of every page read.
    pub enabled: bool,
    /// Wear curve: `[P/E cycles, RBER]` points, P/E strictly ascending, of a page whose
    /// type factor is 1, freshly programmed and never read. Linear between points, and
    /// beyond the last two points along their line (never below the last value).
    pub rber_by_pe: Vec<(u32, f64)>,
    /// RBER factor of each page type (LSB first); empty = 1 for every type.
    pub page_type_factor: Vec<f64>,
    /// RBER factor of pages in SLC-mode blocks.
    pub slc_factor: f64,
    /// Relative RBER increase per decade of retention age in hours
    /// (`1 + r·log10(1 + hours)`).
    pub retention_per_decade: f64,
    /// Relative RBER increase per million reads of the block since its erase.
    pub read_disturb_per_million: f64,
    /// Relative RBER increase of the data in a page per later partial program into it.
    pub in_page_disturb: f64,
    /// Relative RBER increase of a page's data per re-program (a partial program after
    /// its first program) of an adjacent page of the block.
    pub neighbour_disturb: f64,
    /// How the errors of one read are drawn: `sampled` draws the bit errors of the page
    /// (binomial over its bits, from the `errors` seeded stream), `expected` uses the RBER
    /// itself (no randomness; reads near an LDPC step boundary always fall the same way).
    pub bit_errors: BitErrors,
    /// Rated endurance for the wear-dependent latencies below.
    pub rated_pe_cycles: u32,
    /// Fraction by which program latency falls at the rated P/E count, linearly from 0
    /// (thesis §2.3.1, Fig. 2.6: SLC about 0.5, MLC 0.10–0.15). 0 = no change.
    pub program_speedup_at_rated: f64,
    /// Fraction by which erase latency rises at the rated P/E count, linearly from 0.
    /// No source paper measures it: 0 by default.
    pub erase_slowdown_at_rated: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BitErrors {
    Sampled,
    Expected,
}

impl Default for Reliability {
    fn default() -> Self {
        Reliability {
            enabled: false,
            // A TLC wear curve anchored so that the dir-tlc preset's aged drive (3,000 P/E,
            // 30 days) reads at RBER 0.004-0.009 (DIR Fig. 3/10); see docs/errors.md.
            rber_by_pe: vec![(0, 0.0008), (1000, 0.0018), (2000, 0.003), (3000, 0.005), (5000, 0.01)],
            page_type_factor: Vec::new(),
            slc_factor: 0.35,
            retention_per_decade: 0.1,
            read_disturb_per_million: 0.5,
            in_page_disturb: 0.357,
            neighbour_disturb: 0.05,
            bit_errors: BitErrors::Sampled,
            rated_pe_cycles: 3000,
            program_speedup_at_rated: 0.0,
            erase_slowdown_at_rated: 0.0,
        }
    }
}

/// `[ecc]`: how reads are decoded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ecc {
    pub scheme: EccScheme,
    /// BCH decode time at RBER 0 and at `bch_max_rber` (IPU Table 2: 0.5 and 96.8 µs),
    /// linear in between.
    pub bch_min_decode_ns: u64,
    pub bch_max_decode_ns: u64,
    /// The highest RBER BCH corrects; above it the read is uncorrectable (decoded for
    /// the maximum time, then given up).
    pub bch_max_rber: f64,
    /// LDPC soft-sensing retries as a step function of RBER: `[RBER, retries]` steps,
    /// both ascending; a read with RBER ≥ a step's RBER takes at least its retries. Below
    /// the first step the hard decode succeeds (0 retries).
    pub ldpc_retry_steps: Vec<(f64, u32)>,
    /// The highest RBER LDPC corrects; above it the read takes the last step's retries
    /// and is still uncorrectable.
    pub ldpc_max_rber: f64,
    /// What an uncorrectable read does: `count` it and return the data anyway (a
    /// simulator, not a drive that loses data), or `fail` the run.
    pub uncorrectable: Uncorrectable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EccScheme {
    /// Every read decodes in `flash.ecc_decode_ns` and takes `flash.read_retries` retries.
    Fixed,
    /// BCH: decode time grows with RBER, no retries.
    Bch,
    /// LDPC: hard decode (`flash.ecc_decode_ns`), then soft-sensing retries by RBER, each
    /// a sense (`flash.retry_sense_latency_ns`), a transfer out and a decode.
    Ldpc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Uncorrectable {
    Count,
    Fail,
}

impl Default for Ecc {
    fn default() -> Self {
        Ecc {
            scheme: EccScheme::Fixed,
            bch_min_decode_ns: 500,
            bch_max_decode_ns: 96_800,
            bch_max_rber: 0.001,
            // DIR §2.4: RBER 0.005 -> 2 retries, 0.006 -> 3 (and 0.0055 -> 2: steps are
            // lower bounds). The other steps extend that one retry per 0.001.
            ldpc_retry_steps: vec![
                (0.004, 1),
                (0.005, 2),
                (0.006, 3),
                (0.007, 4),
                (0.008, 5),
                (0.009, 6),
                (0.010, 7),
                (0.011, 8),
            ],
            ldpc_max_rber: 0.012,
            uncorrectable: Uncorrectable::Count,
        }
    }
}

/// What one page read's RBER depends on (besides the page's type and mode).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PageState {
    pub pe_cycles: u32,
    /// Time since the data was programmed, in seconds (preconditioned age included).
    pub age_s: f64,
    /// Reads of the block since its erase.
    pub block_reads: u32,
    /// Partial programs into the page after its first program.
    pub in_page_programs: u32,
    /// Re-programs of adjacent pages since this page's first program.
    pub neighbour_programs: u32,
}

/// The ECC's verdict on one page read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decode {
    /// Soft-sensing retries (each: the failed decode, a sense, a transfer out).
    pub retries: u32,
    /// Time of the decode that ends the read (after the last transfer).
    pub decode_ns: u64,
    pub uncorrectable: bool,
}

impl Reliability {
    /// The wear term `W(P/E)`.
    pub fn wear_rber(&self, pe: u32) -> f64 {
        let t = &self.rber_by_pe;
        match t.len() {
            0 => 0.0,
            1 => t[0].1,
            n => {
                let i = t.partition_point(|&(p, _)| p <= pe).clamp(1, n - 1);
                let ((p0, r0), (p1, r1)) = (t[i - 1], t[i]);
                if pe < p0 {
                    return r0;
                }
                let v = r0 + (r1 - r0) * (pe - p0) as f64 / (p1 - p0) as f64;
                if pe > p1 {
                    v.max(r1)
                } else {
                    v
                }
            }
        }
    }

    /// Factor of a page type (LSB = 0) or of SLC mode.
    pub fn type_factor(&self, page_type: u8, slc: bool) -> f64 {
        if slc {
            self.slc_factor
        } else {
            self.page_type_factor.get(page_type as usize).copied().unwrap_or(1.0)
        }
    }

    /// The RBER of a page read (see the module docs for the formula).
    pub fn rber(&self, page_type: u8, slc: bool, s: &PageState) -> f64 {
        let retention = 1.0 + self.retention_per_decade * (1.0 + s.age_s / 3600.0).log10();
        let read_disturb = 1.0 + self.read_disturb_per_million * s.block_reads as f64 / 1e6;
        let program_disturb = 1.0
            + self.in_page_disturb * s.in_page_programs as f64
            + self.neighbour_disturb * s.neighbour_programs as f64;
        self.wear_rber(s.pe_cycles) * self.type_factor(page_type, slc) * retention * read_disturb * program_disturb
    }

    /// Program latency scaled for wear (thesis Fig. 2.6).
    pub fn program_ns(&self, base: u64, pe: u32) -> u64 {
        scale(base, -self.program_speedup_at_rated * self.life_used(pe))
    }

    pub fn erase_ns(&self, base: u64, pe: u32) -> u64 {
        scale(base, self.erase_slowdown_at_rated * self.life_used(pe))
    }

    pub fn wear_changes_latency(&self) -> bool {
        self.enabled && (self.program_speedup_at_rated != 0.0 || self.erase_slowdown_at_rated != 0.0)
    }

    fn life_used(&self, pe: u32) -> f64 {
        (pe as f64 / self.rated_pe_cycles.max(1) as f64).min(1.0)
    }
}

fn scale(base: u64, by: f64) -> u64 {
    (base as f64 * (1.0 + by)).round().max(0.0) as u64
}

impl Ecc {
    /// The decode of a page read with (observed) RBER `rber`; `hard_decode_ns` is
    /// `flash.ecc_decode_ns`, `fixed_retries` `flash.read_retries`.
    pub fn decode(&self, rber: f64, hard_decode_ns: u64, fixed_retries: u32) -> Decode {
        match self.scheme {
            EccScheme::Fixed => Decode { retries: fixed_retries, decode_ns: hard_decode_ns, uncorrectable: false },
            EccScheme::Bch => {
                let fraction = if self.bch_max_rber > 0.0 { (rber / self.bch_max_rber).clamp(0.0, 1.0) } else { 1.0 };
                let span = self.bch_max_decode_ns.saturating_sub(self.bch_min_decode_ns) as f64;
                Decode {
                    retries: 0,
                    decode_ns: self.bch_min_decode_ns + (span * fraction).round() as u64,
                    uncorrectable: rber > self.bch_max_rber,
                }
            }
            EccScheme::Ldpc => {
                let steps = &self.ldpc_retry_steps;
                let i = steps.partition_point(|&(r, _)| r <= rber);
                let retries = if i == 0 { 0 } else { steps[i - 1].1 };
                Decode { retries, decode_ns: hard_decode_ns, uncorrectable: rber > self.ldpc_max_rber }
            }
        }
    }

    /// The most retries any read can take (for the histogram's size).
    pub fn max_retries(&self, fixed_retries: u32) -> u32 {
        match self.scheme {
            EccScheme::Fixed => fixed_retries,
            EccScheme::Bch => 0,
            EccScheme::Ldpc => self.ldpc_retry_steps.iter().map(|s| s.1).max().unwrap_or(0),
        }
    }
}

/// Validation of both sections; errors name the dotted key.
pub fn validate(r: &Reliability, e: &Ecc, bits_per_cell: usize, errors: &mut Vec<(String, String)>) {
    let mut err = |key: &str, msg: String| errors.push((key.to_string(), msg));
    if r.rber_by_pe.is_empty() {
        err("reliability.rber_by_pe", "needs at least one [P/E, RBER] point".into());
    }
    for w in r.rber_by_pe.windows(2) {
        if w[1].0 <= w[0].0 {
            err("reliability.rber_by_pe", format!("P/E points must ascend strictly ({} then {})", w[0].0, w[1].0));
        }
    }
    for &(pe, v) in &r.rber_by_pe {
        if !(0.0..=0.5).contains(&v) || !v.is_finite() {
            err("reliability.rber_by_pe", format!("RBER {v} at {pe} P/E is not in [0, 0.5]"));
        }
    }
    if !r.page_type_factor.is_empty() && r.page_type_factor.len() != bits_per_cell {
        err(
            "reliability.page_type_factor",
            format!(
                "has {} factors; the cell has {bits_per_cell} page types (or leave it empty)",
                r.page_type_factor.len()
            ),
        );
    }
    let factors = r.page_type_factor.iter().map(|&f| ("reliability.page_type_factor", f));
    let named = [
        ("reliability.slc_factor", r.slc_factor),
        ("reliability.retention_per_decade", r.retention_per_decade),
        ("reliability.read_disturb_per_million", r.read_disturb_per_million),
        ("reliability.in_page_disturb", r.in_page_disturb),
        ("reliability.neighbour_disturb", r.neighbour_disturb),
        ("reliability.erase_slowdown_at_rated", r.erase_slowdown_at_rated),
    ];
    for (key, v) in factors.chain(named) {
        if !(v >= 0.0 && v.is_finite()) {
            err(key, format!("must be a finite number ≥ 0 (got {v})"));
        }
    }
    if !(0.0..1.0).contains(&r.program_speedup_at_rated) {
        err("reliability.program_speedup_at_rated", format!("must be in [0, 1) (got {})", r.program_speedup_at_rated));
    }
    if r.rated_pe_cycles == 0 {
        err("reliability.rated_pe_cycles", "must be at least 1".into());
    }
    if e.scheme != EccScheme::Fixed && !r.enabled {
        err("ecc.scheme", "bch and ldpc decode by RBER: set reliability.enabled = true".into());
    }
    if e.bch_max_decode_ns < e.bch_min_decode_ns {
        err("ecc.bch_max_decode_ns", "must be at least ecc.bch_min_decode_ns".into());
    }
    if !(e.bch_max_rber > 0.0 && e.bch_max_rber <= 0.5) {
        err("ecc.bch_max_rber", format!("must be in (0, 0.5] (got {})", e.bch_max_rber));
    }
    if !(e.ldpc_max_rber > 0.0 && e.ldpc_max_rber <= 0.5) {
        err("ecc.ldpc_max_rber", format!("must be in (0, 0.5] (got {})", e.ldpc_max_rber));
    }
    for w in e.ldpc_retry_steps.windows(2) {
        if w[1].0 <= w[0].0 || w[1].1 < w[0].1 {
            err("ecc.ldpc_retry_steps", format!("steps must ascend in RBER and retries ({:?} then {:?})", w[0], w[1]));
        }
    }
    for &(rber, retries) in &e.ldpc_retry_steps {
        if !(rber > 0.0 && rber <= 0.5) {
            err("ecc.ldpc_retry_steps", format!("RBER {rber} is not in (0, 0.5]"));
        }
        if retries > MAX_RETRIES {
            err("ecc.ldpc_retry_steps", format!("{retries} retries per read is implausible (at most {MAX_RETRIES})"));
        }
    }
}

/// The most soft-sensing retries a read may take (real LDPC retry tables stop well
/// before this; it bounds a read command's steps).
pub const MAX_RETRIES: u32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> PageState {
        PageState::default()
    }

    #[test]
    fn wear_table_interpolates_and_extends() {
        let r = Reliability { rber_by_pe: vec![(1000, 0.001), (3000, 0.005)], ..Default::default() };
        assert_eq!(r.wear_rber(0), 0.001, "below the first point: its value");
        assert!((r.wear_rber(2000) - 0.003).abs() < 1e-12);
        assert!((r.wear_rber(5000) - 0.009).abs() < 1e-12, "extended along the last segment");
        let flat = Reliability { rber_by_pe: vec![(0, 0.002), (1000, 0.001)], ..Default::default() };
        assert_eq!(flat.wear_rber(9000), 0.001, "a falling last segment does not go below its end");
    }

    #[test]
    fn each_term_raises_the_rber_by_its_documented_amount() {
        let r = Reliability {
            rber_by_pe: vec![(0, 0.001)],
            page_type_factor: vec![0.5, 1.0, 2.0],
            retention_per_decade: 0.2,
            read_disturb_per_million: 0.5,
            in_page_disturb: 0.3,
            neighbour_disturb: 0.1,
            ..Default::default()
        };
        let base = r.rber(1, false, &fresh());
        assert!((base - 0.001).abs() < 1e-15);
        assert!((r.rber(2, false, &fresh()) - 0.002).abs() < 1e-15, "MSB factor");
        assert!((r.rber(0, true, &fresh()) - 0.001 * r.slc_factor).abs() < 1e-15, "SLC factor");
        // 999 h of age = 3 decades of (1 + hours).
        let aged = PageState { age_s: 999.0 * 3600.0, ..fresh() };
        assert!((r.rber(1, false, &aged) - 0.001 * 1.6).abs() < 1e-12);
        let read = PageState { block_reads: 2_000_000, ..fresh() };
        assert!((r.rber(1, false, &read) - 0.002).abs() < 1e-12);
        let disturbed = PageState { in_page_programs: 2, neighbour_programs: 1, ..fresh() };
        assert!((r.rber(1, false, &disturbed) - 0.001 * 1.7).abs() < 1e-12);
    }

    #[test]
    fn ldpc_steps_match_dir_section_2_4() {
        let e = Ecc { scheme: EccScheme::Ldpc, ..Default::default() };
        let retries = |rber| e.decode(rber, 1000, 0).retries;
        assert_eq!(retries(0.003), 0);
        assert_eq!(retries(0.005), 2, "DIR §2.4: 0.005 -> 2");
        assert_eq!(retries(0.0055), 2, "DIR §2.4: the interleaved average 0.0055 -> 2");
        assert_eq!(retries(0.006), 3, "DIR §2.4: 0.006 -> 3");
        assert!(!e.decode(0.0119, 1000, 0).uncorrectable);
        let past = e.decode(0.02, 1000, 0);
        assert!(past.uncorrectable && past.retries == 8, "{past:?}");
    }

    #[test]
    fn bch_decode_time_spans_ipu_table_2() {
        let e = Ecc { scheme: EccScheme::Bch, ..Default::default() };
        assert_eq!(e.decode(0.0, 0, 0).decode_ns, 500, "IPU T2 ECC min time 0.0005 ms");
        assert_eq!(e.decode(e.bch_max_rber, 0, 0).decode_ns, 96_800, "IPU T2 ECC max time 0.0968 ms");
        assert_eq!(e.decode(e.bch_max_rber / 2.0, 0, 0).decode_ns, 500 + 48_150);
        let over = e.decode(e.bch_max_rber * 1.5, 0, 0);
        assert!(over.uncorrectable && over.decode_ns == 96_800);
    }

    #[test]
    fn wear_changes_program_and_erase_latency_linearly_to_the_rated_count() {
        let r = Reliability {
            enabled: true,
            rated_pe_cycles: 1000,
            program_speedup_at_rated: 0.5,
            erase_slowdown_at_rated: 0.2,
            ..Default::default()
        };
        assert_eq!(r.program_ns(1000, 0), 1000);
        assert_eq!(r.program_ns(1000, 500), 750);
        assert_eq!(r.program_ns(1000, 5000), 500, "no further change past the rated count");
        assert_eq!(r.erase_ns(1000, 1000), 1200);
    }
}
