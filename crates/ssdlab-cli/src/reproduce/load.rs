//! The overload rule every reproduction shares (issue 43): one test of whether a workload
//! overloads the drive, one way of slowing it down, one sentence each report states it
//! with. A paper that argues from a request's service time (DIR, Mango) is not tested by
//! a queue that never drains: there a request's time is the programs queued ahead of it,
//! whatever the scheme does. Such reproductions pace each open-loop trace workload with
//! [`pace`] and keep its recorded rate as an ablation; the others say with [`as_given`]
//! why their workloads replay as given (the paper measured throughput at a fixed queue
//! depth, or response time under the trace's own load on purpose).

use anyhow::Result;
use ssdlab_core::config::Config;

/// A workload the baseline cannot keep up with at its rate: the baseline's mean write
/// response time above this many of the drive's slowest programs, a write waiting for
/// that many programs ahead of it on average.
pub(crate) const OVERLOAD_PROGRAMS: u64 = 10;
/// Ten-fold slow-downs tried at most (a rate of 1/1000 of the recorded one).
pub(crate) const MAX_STEPS: usize = 3;

/// The rule's limit on the baseline's mean write response time for drive `config`, µs.
pub(crate) fn limit_us(config: &Config) -> f64 {
    OVERLOAD_PROGRAMS as f64 * *config.flash.program_latency_ns.iter().max().unwrap_or(&0) as f64 / 1e3
}

/// Whether a baseline whose writes took `write_us` on average is overloaded (a workload
/// without writes never is: nothing queues behind programs).
pub(crate) fn overloaded(write_us: f64, limit_us: f64) -> bool {
    write_us.is_finite() && write_us > limit_us
}

/// A workload's rate and the baseline runs [`pace`] measured it by (a reproduction may
/// reuse them as its report's cells): at the rate given when it slowed the workload, and
/// at the rate chosen when that one was measured.
pub(crate) struct Pace<M> {
    pub rate: f64,
    pub recorded: Option<M>,
    pub at_rate: Option<M>,
    /// The baseline's mean write response time at the rate given, µs, when it was over.
    pub recorded_write_us: Option<f64>,
}

impl<M> Pace<M> {
    /// Whether the rule slowed the workload.
    pub fn slowed(&self) -> bool {
        self.recorded.is_some()
    }
}

/// The rate a workload replays at: `speed` (its manifest's, `host.speed_factor`), slowed
/// ten-fold at a time ([`MAX_STEPS`] at most) while the baseline cannot keep up with it.
/// `baseline(rate)` runs the baseline at `rate` and returns what it measured and its mean
/// write response time (µs). The rule looks at the baseline alone, never at the scheme
/// under test. A closed-loop workload (`closed_loop`) sets its own pace and is not run.
pub(crate) fn pace<M>(
    speed: f64,
    closed_loop: bool,
    limit_us: f64,
    mut baseline: impl FnMut(f64) -> Result<(M, f64)>,
) -> Result<Pace<M>> {
    let mut out = Pace { rate: speed, recorded: None, at_rate: None, recorded_write_us: None };
    if closed_loop {
        return Ok(out);
    }
    for _ in 0..MAX_STEPS {
        let (m, write_us) = baseline(out.rate)?;
        if !overloaded(write_us, limit_us) {
            out.at_rate = Some(m);
            break;
        }
        if out.recorded.is_none() {
            out.recorded = Some(m);
            out.recorded_write_us = Some(write_us);
        }
        out.rate /= 10.0;
    }
    Ok(out)
}

/// A limit in ms as a report states it: "15", "14.2".
pub(crate) fn ms(limit_us: f64) -> String {
    let s = format!("{:.1}", limit_us / 1e3);
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// The sentence a paced reproduction states the rule with (`who`: its baseline, as the
/// sentence's subject; `short`: its name).
pub(crate) fn rule(who: &str, short: &str, limit_us: f64) -> String {
    format!(
        "A workload {who} cannot keep up with at its rate (its mean write response time above \
         {OVERLOAD_PROGRAMS} of the slowest programs, {} ms: writes queue behind ten programs) is slowed ten-fold \
         at a time until it can ({MAX_STEPS} times at most); the rule looks at {short} alone. Its recorded rate \
         is an ablation below.",
        ms(limit_us)
    )
}

/// The sentence of a reproduction whose workloads replay as given: the shared rule and
/// `why` it is not applied.
pub(crate) fn as_given(why: &str) -> String {
    format!(
        "**Load**: the workloads replay as given; the overload rule the reproductions share (a workload the \
         baseline cannot keep up with, its mean write response time above {OVERLOAD_PROGRAMS} of the slowest \
         programs, is slowed ten-fold at a time) is not applied: {why}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_slows_only_while_the_baseline_is_overloaded() {
        // Write response falls ten-fold with each slow-down: 2 s, 200 ms, 20 ms, 2 ms.
        let mut calls = Vec::new();
        let p = pace(1.0, false, 15_000.0, |rate| {
            calls.push(rate);
            Ok((rate, 2e6 * rate))
        })
        .unwrap();
        assert_eq!(calls, [1.0, 1.0 / 10.0, 1.0 / 10.0 / 10.0]);
        assert!(p.slowed() && p.recorded == Some(1.0) && p.recorded_write_us == Some(2e6));
        assert_eq!(p.rate, 1.0 / 10.0 / 10.0 / 10.0);
        assert_eq!(p.at_rate, None, "three steps at most: the last rate is not measured");
        // Kept up at once: not slowed.
        let p = pace(2.0, false, 15_000.0, |rate| Ok((rate, 100.0))).unwrap();
        assert!(!p.slowed() && p.rate == 2.0 && p.at_rate == Some(2.0));
        // Closed loop: never run.
        let p: Pace<f64> = pace(1.0, true, 15_000.0, |_| panic!("closed loop runs no baseline")).unwrap();
        assert_eq!(p.rate, 1.0);
        // No writes (NaN) is never overloaded.
        assert!(!overloaded(f64::NAN, 1.0) && overloaded(1.5, 1.0) && !overloaded(1.0, 1.0));
    }

    #[test]
    fn the_limit_is_ten_of_the_slowest_programs() {
        let c = ssdlab_core::presets::preset("mango-mlc").unwrap();
        // The slowest program of `mango-mlc` is 1,417.8 µs.
        assert_eq!(limit_us(&c), 14_178.0);
        assert_eq!(ms(limit_us(&c)), "14.2");
        assert_eq!(ms(15_000.0), "15");
    }
}
