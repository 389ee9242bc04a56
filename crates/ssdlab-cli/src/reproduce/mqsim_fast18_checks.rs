//! The required checks of `reproduce mqsim-fast18` as verdict functions, each tested on an
//! input where it must fail.

/// The slowdown curve rises (never falls) with flow 2's queue depth; a value that is not a
/// number fails it.
pub(crate) fn monotonic(slowdowns: &[f64]) -> bool {
    !slowdowns.is_empty() && slowdowns.iter().all(|s| s.is_finite()) && slowdowns.windows(2).all(|w| w[1] >= w[0])
}

/// Every one of `ours` within a factor `factor` of the matching one of `theirs` (either way).
pub(crate) fn within_factor(ours: &[f64], theirs: &[f64], factor: f64) -> bool {
    !ours.is_empty()
        && ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|(&o, &t)| o > 0.0 && t > 0.0 && (1.0 / factor..=factor).contains(&(o / t)))
}

/// Every (ours, theirs) latency within `share` of theirs.
pub(crate) fn latencies_within(pairs: &[(f64, f64)], share: f64) -> bool {
    !pairs.is_empty() && pairs.iter().all(|&(o, t)| t > 0.0 && o.is_finite() && (o / t - 1.0).abs() <= share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_fails_on_a_dip_and_on_nothing() {
        assert!(monotonic(&[1.07, 1.15, 1.32, 15.5]));
        assert!(monotonic(&[1.0, 1.0]));
        assert!(!monotonic(&[1.07, 1.15, 1.12, 15.5]));
        assert!(!monotonic(&[1.07, f64::NAN]));
        assert!(!monotonic(&[]));
    }

    #[test]
    fn within_factor_fails_past_the_factor_either_way() {
        // Issue 47's round robin: 2.06x against MQSim's 17.6x at QD 256.
        assert!(!within_factor(&[1.07, 2.06], &[1.08, 17.6], 1.5));
        assert!(!within_factor(&[1.63], &[1.08], 1.5));
        assert!(!within_factor(&[0.71], &[1.08], 1.5));
        assert!(within_factor(&[1.07, 15.46], &[1.08, 17.6], 1.5));
        assert!(!within_factor(&[1.0], &[1.0, 2.0], 1.5), "a missing point fails");
        assert!(!within_factor(&[], &[], 1.5));
    }

    #[test]
    fn latencies_within_fails_past_fifteen_percent() {
        assert!(latencies_within(&[(92.0, 92.0), (1418.2, 1592.0)], 0.15));
        assert!(!latencies_within(&[(92.0, 92.0), (1300.0, 1592.0)], 0.15));
        assert!(!latencies_within(&[(f64::NAN, 92.0)], 0.15));
        assert!(!latencies_within(&[], 0.15));
    }
}
