//! What every `ssdlab reproduce` shares to follow `REPRODUCING.md`: claims with verdicts
//! computed from the paper's value and ours, the line that counts them, the claims table,
//! the required checks that gate the exit code, and the discussion template filled in
//! from the run.

use anyhow::{anyhow, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A claim's verdict (REPRODUCING.md): same direction and an effect within a factor 1.5
/// of the paper's holds; the same direction otherwise is direction only; else no.
pub(crate) fn verdict(paper: f64, measured: f64) -> &'static str {
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

pub(crate) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

pub(crate) fn pct(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

/// Prints each required check's outcome and fails the command when one did not hold
/// (REPRODUCING.md: required checks gate the exit code).
pub(crate) fn gate(claims: &[Claim], name: &str) -> Result<()> {
    for c in claims.iter().filter(|c| c.required) {
        println!("{} {}: {}", if c.verdict == "holds" { "pass" } else { "FAIL" }, c.what.replace("**", ""), c.measured);
    }
    let failed = claims.iter().filter(|c| c.required && c.verdict != "holds").count();
    if failed > 0 {
        return Err(crate::GateFailed(format!("{failed} required check(s) of reproduce {name} failed")).into());
    }
    Ok(())
}

/// The line that opens a report: its verdict counts, then how many required checks pass
/// (of those that could be evaluated; `extra` follows before the full stop).
pub(crate) fn verdict_counts(claims: &[Claim], extra: &str) -> String {
    let count = |v: &str| claims.iter().filter(|c| c.verdict == v).count();
    format!(
        "{} claims: {} hold, {} direction only, {} no. Required checks: {} of {} pass{extra}.\n",
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
         or no effect (under 1%). {rules}\n"
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
