//! Why US and SBS+US write slower than the paper says (issue 43): the two ways our model
//! of every PA scheme differs from the baseline besides the page types it picks, each
//! given to both sides in turn. PA-SSD drops the wordline buffer (PA §5.1: a CSB program
//! reads one lower page back, an MSB program two), and our engine never pairs
//! type-specified writes into multi-plane commands while the baseline's pair up. The
//! multi-plane ablation runs with the report's other cells; this module adds the runs
//! with the wordline buffer for every scheme, and writes the table, the claims and the
//! discussion's numbers from the four ways of running each scheme.

use super::{mean, pa_config, PaWorkload, PA_SCHEMES};
use crate::reproduce::claims::{mean as avg, pct, verdict, Claim};
use crate::reproduce::execute;
use crate::setup::{Prepared, Workload};
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The schemes ablated, with the paper's write change (Fig. 9a).
pub(super) const ABLATED: [(&str, f64); 2] = [("US", -0.10), ("SBS+US", -0.54)];

/// The four ways each ablated scheme runs against the baseline.
const WAYS: [&str; 4] =
    ["as run", "multi-plane off for both", "wordline buffer for both", "wordline buffer and multi-plane off for both"];

/// Mean write response time (ns) of `workload` under scheme `si` with the wordline buffer,
/// multi-plane commands on (`true`) or off, for each ablated scheme.
pub(super) type Buffered = BTreeMap<(usize, usize, bool), f64>;

/// The runs with the wordline buffer for the ablated schemes (the baseline has it anyway).
pub(super) fn run(workloads: &[PaWorkload]) -> Result<Buffered> {
    let jobs: Vec<(usize, usize, bool)> = (0..workloads.len())
        .flat_map(|wi| ABLATED.iter().flat_map(move |(s, _)| [(wi, index(s), true), (wi, index(s), false)]))
        .collect();
    let results: Vec<Result<f64>> = jobs
        .par_iter()
        .map(|&(wi, si, mp)| {
            let w = &workloads[wi];
            let mut config = pa_config(PA_SCHEMES[si].1, w, w.window_ns, mp)?;
            config.flash.wordline_buffer = true;
            let workload = match &w.workload {
                Workload::Synthetic(spec) => Workload::Synthetic(spec.resolve_address_space(config.logical_bytes())),
                other => other.clone(),
            };
            let outcome = execute(Prepared { config, workload, import: None }, None, false, true)
                .with_context(|| format!("{} under {} with the wordline buffer", w.name, PA_SCHEMES[si].0))?;
            Ok(mean(&outcome, true))
        })
        .collect();
    let mut out = Buffered::new();
    for (job, r) in jobs.into_iter().zip(results) {
        out.insert(job, r?);
    }
    Ok(out)
}

fn index(scheme: &str) -> usize {
    PA_SCHEMES.iter().position(|s| s.0 == scheme).expect("scheme listed")
}

/// What the ablation measured: per ablated scheme, per way, each workload's write time
/// over the baseline's (the workloads `counted`, with enough writes).
pub(super) struct Ablation {
    counted: Vec<usize>,
    /// `[scheme][way][k]`: the normalised write time on `counted[k]`.
    ratios: Vec<[Vec<f64>; 4]>,
}

impl Ablation {
    /// `write(wi, si, mp)`: the report's cells' mean write time; `counted`: the workloads
    /// with enough writes.
    pub fn new(counted: Vec<usize>, write: &dyn Fn(usize, usize, bool) -> f64, buffered: &Buffered) -> Ablation {
        let ratios = ABLATED
            .iter()
            .map(|(s, _)| {
                let si = index(s);
                let way = |f: &dyn Fn(usize) -> f64| counted.iter().map(|&wi| f(wi)).collect::<Vec<f64>>();
                [
                    way(&|wi| write(wi, si, true) / write(wi, 0, true)),
                    way(&|wi| write(wi, si, false) / write(wi, 0, false)),
                    way(&|wi| buffered[&(wi, si, true)] / write(wi, 0, true)),
                    way(&|wi| buffered[&(wi, si, false)] / write(wi, 0, false)),
                ]
            })
            .collect();
        Ablation { counted, ratios }
    }

    /// The mean change of scheme `k` (of [`ABLATED`]) run `way` (NaN over no workload).
    fn change(&self, k: usize, way: usize) -> f64 {
        let v = &self.ratios[k][way];
        if v.is_empty() {
            f64::NAN
        } else {
            avg(v) - 1.0
        }
    }

    /// The claims: each ablated scheme with the wordline buffer for both, and with both
    /// differences removed, against the paper's change.
    pub fn claims(&self) -> Vec<Claim> {
        let mut out = Vec::new();
        for (k, (scheme, paper)) in ABLATED.iter().enumerate() {
            for way in [2, 3] {
                let got = self.change(k, way);
                out.push(Claim {
                    what: format!("{scheme}: mean write response time vs the baseline, {} (ablation)", WAYS[way]),
                    figure: "Fig. 9a",
                    paper: pct(*paper),
                    measured: pct(got),
                    verdict: verdict(*paper, got).into(),
                    required: false,
                });
            }
        }
        out
    }

    /// The section's table: each workload's normalised write time, four ways per scheme.
    pub fn table(&self, md: &mut String, names: &[String]) -> Result<()> {
        writeln!(md, "## Why US and SBS+US are slower than the paper says: write response time by mechanism\n")?;
        writeln!(
            md,
            "Each workload's mean write response time over the baseline's, with each of our model's two \
             differences from the baseline besides page types given to both sides in turn: the wordline buffer \
             (PA-SSD has none, so a CSB program reads one lower page back and an MSB program two) and \
             multi-plane commands (ours never pair type-specified writes; the baseline's pair up).\n"
        )?;
        let heads: Vec<String> =
            ABLATED.iter().flat_map(|(s, _)| WAYS.iter().map(move |w| format!("{s}, {w}"))).collect();
        crate::reproduce::write_header(md, "workload", heads.iter().map(String::as_str))?;
        for (j, &wi) in self.counted.iter().enumerate() {
            let cells: Vec<String> =
                self.ratios.iter().flat_map(|r| r.iter().map(move |v| format!("{:.3}", v[j]))).collect();
            writeln!(md, "| {} | {} |", names[wi], cells.join(" | "))?;
        }
        let means: Vec<String> = (0..ABLATED.len())
            .flat_map(|k| (0..4).map(move |w| (k, w)))
            .map(|(k, w)| format!("**{:.3}**", 1.0 + self.change(k, w)))
            .collect();
        writeln!(md, "| **mean** | {} |\n", means.join(" | "))?;
        Ok(())
    }

    /// The discussion's numbers: each ablated scheme's mean change each way, the workload
    /// where US is slowest against the baseline, and which difference moves US most.
    pub fn values(&self, names: &[String], values: &mut BTreeMap<&'static str, String>) {
        const KEYS: [[&str; 4]; 2] = [
            ["abl_us_run", "abl_us_single", "abl_us_buffer", "abl_us_both"],
            ["abl_sbs_run", "abl_sbs_single", "abl_sbs_buffer", "abl_sbs_both"],
        ];
        for (k, keys) in KEYS.iter().enumerate() {
            for (way, key) in keys.iter().enumerate() {
                values.insert(key, pct(self.change(k, way)));
            }
        }
        // The workload where US's write time is highest against the baseline's.
        let worst = (0..self.counted.len()).max_by(|&a, &b| self.ratios[0][0][a].total_cmp(&self.ratios[0][0][b]));
        let us_worst = match worst {
            Some(j) => format!(
                "{} (US {} as run; {} with the wordline buffer for both, {} with multi-plane commands off for \
                 both, {} with both)",
                names[self.counted[j]],
                pct(self.ratios[0][0][j] - 1.0),
                pct(self.ratios[0][2][j] - 1.0),
                pct(self.ratios[0][1][j] - 1.0),
                pct(self.ratios[0][3][j] - 1.0)
            ),
            None => "(no workload with enough writes)".into(),
        };
        values.insert("abl_us_worst", us_worst);
        // Which difference moves US's mean more when it is given to both sides.
        let (run, single, buffer) = (self.change(0, 0), self.change(0, 1), self.change(0, 2));
        let cause = if !(run.is_finite() && single.is_finite() && buffer.is_finite()) {
            "(not measured)".to_string()
        } else if (run - buffer).abs() >= (run - single).abs() {
            format!(
                "the missing wordline buffer: giving it to US moves its mean by {} points, multi-plane commands by {}",
                pp(run - buffer),
                pp(run - single)
            )
        } else {
            format!(
                "the missing multi-plane commands: taking them from the baseline moves US's mean by {} points, the \
                 wordline buffer by {}",
                pp(run - single),
                pp(run - buffer)
            )
        };
        values.insert("abl_us_cause", cause);
    }
}

/// A difference of two changes in percentage points.
fn pp(x: f64) -> String {
    format!("{:.1}", x.abs() * 100.0)
}
