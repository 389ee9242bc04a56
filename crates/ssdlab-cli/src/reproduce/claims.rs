//! What every `ssdlab reproduce` shares to follow `REPRODUCING.md`: claims with verdicts
//! computed from the paper's value and ours, the line that counts them, the claims table,
//! the required checks that gate the exit code, and the discussion template filled in
//! from the run.

use anyhow::{anyhow, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A claim's verdict (REPRODUCING.md): same direction and an effect within a factor 1.5
/// of the paper's holds; the same direction otherwise is direction only; else no. A
/// measured value that is not a number (a relative change against 0, a mean of nothing)
/// is not measured: nothing happened to compare.
pub(crate) fn verdict(paper: f64, measured: f64) -> &'static str {
    if !measured.is_finite() {
        return NOTHING_HAPPENED;
    }
    if measured == 0.0 || paper.signum() != measured.signum() || measured.abs() < 0.01 {
        return "no";
    }
    let ratio = measured / paper;
    if (1.0 / 1.5..=1.5).contains(&ratio) {
        "holds"
    } else {
        "direction only"
    }
}

/// The verdict of a claim whose workloads were not run (a reduced `--only` selection, a
/// manifest without a workload of the kind the claim is about).
pub(crate) const NOT_RUN: &str = "not measured (not run)";
/// The verdict of a claim whose event never happened in any run (no GC, no erase, no
/// read), so there is nothing to compare.
pub(crate) const NOTHING_HAPPENED: &str = "not measured (nothing happened)";
/// The verdict of a claim whose runs saw fewer than [`MIN_SAMPLES`] of what it is about.
pub(crate) const TOO_FEW: &str = "not measured (too few samples)";
/// The fewest requests of the operation a claim is about (or events it counts) that a
/// workload must have for it to enter the claim.
pub(crate) const MIN_SAMPLES: u64 = 100;

/// Whether a verdict is one of the "not measured" ones.
pub(crate) fn not_measured(verdict: &str) -> bool {
    verdict.starts_with("not measured")
}

/// The relative change of `new` against `reference`, or NaN (shown "—", "not measured")
/// when the reference is 0 or not a number: never a "+0.0%" against nothing.
pub(crate) fn change(new: f64, reference: f64) -> f64 {
    if reference == 0.0 || !reference.is_finite() || !new.is_finite() {
        f64::NAN
    } else {
        new / reference - 1.0
    }
}

/// The mean of the values that are numbers (NaN when none is).
pub(crate) fn mean_finite(v: &[f64]) -> f64 {
    let ok: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if ok.is_empty() {
        f64::NAN
    } else {
        mean(&ok)
    }
}

pub(crate) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// A relative change as a signed percentage; "—" when it is not a number (never "NaN%").
pub(crate) fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:+.1}%", x * 100.0)
    } else {
        "—".into()
    }
}

/// A check's verdict: not measured for `reason` when there is one, else holds or no.
pub(crate) fn checked(reason: Option<&'static str>, ok: bool) -> String {
    reason.unwrap_or(if ok { "holds" } else { "no" }).to_string()
}

/// The lines under a report's Command line that say what changed its run (issue 43):
/// workloads `slowed` down (name and factor) by the overload rule (`crate::reproduce::load`,
/// `baseline` its baseline) and those with `few` samples of `what`.
pub(crate) fn run_notes(slowed: &[String], few: &[String], what: &str, baseline: &str) -> String {
    let mut out = String::new();
    if !slowed.is_empty() {
        out += &format!(
            "**Slowed down by the load rule** ({baseline} could not keep up at the rate given; the rate given is an \
             ablation under Setup), replayed at this fraction of it: {}.\n\n",
            slowed.join(", ")
        );
    }
    if !few.is_empty() {
        out += &format!(
            "**Too few {what}** (under {MIN_SAMPLES}): left out of every claim and mean on {what}, their rows kept \
             in the tables: {}.\n\n",
            few.join(", ")
        );
    }
    out
}

/// Prints each required check's outcome and fails the command when one did not hold
/// (REPRODUCING.md: required checks gate the exit code). A required check that could not
/// be measured fails too, and so does a run with no required check at all.
pub(crate) fn gate(claims: &[Claim], name: &str) -> Result<()> {
    for c in claims.iter().filter(|c| c.required) {
        println!("{} {}: {}", if c.verdict == "holds" { "pass" } else { "FAIL" }, c.what.replace("**", ""), c.measured);
    }
    let required = claims.iter().filter(|c| c.required).count();
    if required == 0 {
        println!("FAIL reproduce {name}: no required check was evaluated");
        return Err(crate::GateFailed(format!("reproduce {name}: no required check was evaluated")).into());
    }
    let failed = claims.iter().filter(|c| c.required && c.verdict != "holds").count();
    if failed > 0 {
        return Err(crate::GateFailed(format!("{failed} required check(s) of reproduce {name} failed")).into());
    }
    Ok(())
}

/// The line that opens a report: its verdict counts (all four), then how many required
/// checks pass (`extra` follows before the full stop).
pub(crate) fn verdict_counts(claims: &[Claim], extra: &str) -> String {
    let count = |v: &str| claims.iter().filter(|c| c.verdict == v).count();
    let unmeasured = claims.iter().filter(|c| not_measured(&c.verdict)).count();
    format!(
        "{} claims: {} hold, {} direction only, {} no, {unmeasured} not measured. Required checks: {} of {} pass{extra}.\n",
        claims.len(),
        count("holds"),
        count("direction only"),
        count("no"),
        claims.iter().filter(|c| c.required && c.verdict == "holds").count(),
        claims.iter().filter(|c| c.required).count()
    )
}

/// Writes a reproduction's claims section: the table, then how verdicts are computed
/// (REPRODUCING.md's rule and `rules`, the report's own additions).
pub(crate) fn write_claims(md: &mut String, claims: &[Claim], rules: &str) -> Result<()> {
    writeln!(md, "## Claims\n")?;
    writeln!(md, "| claim | figure | paper | measured | verdict |\n|---|---|---|---|---|")?;
    for c in claims {
        let what = if c.required && !c.what.starts_with("**Required:**") {
            format!("**Required:** {}", c.what)
        } else {
            c.what.clone()
        };
        writeln!(md, "| {what} | {} | {} | {} | {} |", c.figure, c.paper, c.measured, c.verdict)?;
    }
    writeln!(
        md,
        "\nVerdicts are computed: **holds** = same direction and an effect within a factor 1.5 of the \
         paper's; **direction only** = same direction, effect off by more; **no** = the opposite direction \
         or no effect (under 1%); **not measured** = the run could not test it, with the reason: *not run* \
         (no workload of the kind ran), *nothing happened* (e.g. no GC or no erase in any run, a change \
         against 0) or *too few samples* (fewer than {MIN_SAMPLES} requests of the operation). A required \
         check that is not measured fails. {rules}\n"
    )?;
    Ok(())
}

#[derive(Clone)]
pub(crate) struct Claim {
    pub what: String,
    pub figure: &'static str,
    pub paper: String,
    pub measured: String,
    pub verdict: String,
    pub required: bool,
}

/// The discussion template with every `{{name}}` replaced; an unknown name is an error,
/// so the text can never quote a number the run did not produce.
pub(crate) fn fill(text: &str, values: &BTreeMap<&str, String>) -> Result<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("}}").ok_or_else(|| anyhow!("discussion template: unclosed {{{{"))? + at;
        let name = rest[at + 2..end].trim();
        out.push_str(values.get(name).ok_or_else(|| anyhow!("discussion template: no value named {name}"))?);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_reproducing_md() {
        assert_eq!(verdict(-0.43, -0.35), "holds");
        assert_eq!(verdict(-0.43, -0.20), "direction only");
        assert_eq!(verdict(-0.43, 0.05), "no");
        assert_eq!(verdict(-0.43, -0.005), "no", "under 1% is no effect");
        assert_eq!(verdict(0.14, 0.20), "holds");
        assert_eq!(verdict(0.14, f64::NAN), NOTHING_HAPPENED);
    }

    #[test]
    fn no_change_against_nothing() {
        assert!(change(50_015.0, 0.0).is_nan());
        assert!(change(1.0, f64::NAN).is_nan());
        assert_eq!(pct(change(50_015.0, 0.0)), "—");
        assert_eq!(pct(f64::NAN), "—");
        assert_eq!(pct(change(3.0, 2.0)), "+50.0%");
        assert!(mean_finite(&[f64::NAN]).is_nan());
        assert_eq!(mean_finite(&[f64::NAN, 1.0, 3.0]), 2.0);
    }

    fn claim(verdict: &str, required: bool) -> Claim {
        Claim {
            what: "x".into(),
            figure: "1",
            paper: "p".into(),
            measured: "m".into(),
            verdict: verdict.into(),
            required,
        }
    }

    #[test]
    fn the_header_counts_all_four_verdicts() {
        let c = [claim("holds", true), claim("no", false), claim(NOT_RUN, false), claim(TOO_FEW, false)];
        assert!(verdict_counts(&c, "").starts_with("4 claims: 1 hold, 0 direction only, 1 no, 2 not measured."));
    }

    #[test]
    fn a_required_check_not_measured_or_missing_fails_the_gate() {
        assert!(gate(&[claim("holds", true)], "t").is_ok());
        assert!(gate(&[claim(NOT_RUN, true)], "t").is_err());
        assert!(gate(&[claim("direction only", true)], "t").is_err());
        assert!(gate(&[claim("holds", false)], "t").is_err(), "no required check at all");
    }

    #[test]
    fn the_template_takes_only_values_the_run_produced() {
        let mut v = BTreeMap::new();
        v.insert("x", "+1.0%".to_string());
        assert_eq!(fill("a {{x}} b {{ x }}", &v).unwrap(), "a +1.0% b +1.0%");
        assert!(fill("{{y}}", &v).unwrap_err().to_string().contains("no value named y"));
        assert!(fill("{{x", &v).is_err());
    }
}
