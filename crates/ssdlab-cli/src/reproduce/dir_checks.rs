//! Each of `reproduce dir`'s required checks fails where it must (issue 43).

use super::*;

#[test]
fn reads_below_fails_when_dir_is_slower_than_ac_on_one_workload() {
    let ts = [0, 1];
    assert!(reads_below(&ts, &[0.70, 0.75], &[0.71, 0.96]));
    // Issue 43's read-heavy file-system benchmark: DIR 1.05x AC's.
    assert!(!reads_below(&ts, &[0.70, 0.84], &[0.71, 0.80]));
    // Slower than NOAC on one workload.
    assert!(!reads_below(&ts, &[0.70, 1.01], &[0.71, 1.20]));
    // A workload left out (too few reads) does not count.
    assert!(reads_below(&[0], &[0.70, 1.5], &[0.71, 1.0]));
}

#[test]
fn fresh_within_fails_past_fifteen_percent() {
    assert!(fresh_within(&[0, 1], &[0.86, 1.15]));
    assert!(!fresh_within(&[0, 1], &[0.86, 1.16]));
}

#[test]
fn dir_highest_fails_when_another_scheme_ties_or_beats_it() {
    assert!(dir_highest(&[0.0, 0.167, 0.276, 0.692]));
    assert!(!dir_highest(&[0.0, 0.167, 0.692, 0.692]));
    assert!(!dir_highest(&[0.0, 0.80, 0.276, 0.692]));
    assert!(!dir_highest(&[0.0, 0.0, 0.0, f64::NAN]), "not measured is not highest");
}

#[test]
fn a_required_check_of_dir_that_is_not_measured_fails_the_gate() {
    // No workload with enough reads: every required check is not measured, and fails.
    let c = Claim {
        what: "x".into(),
        figure: "11",
        paper: "yes".into(),
        measured: "m".into(),
        verdict: checked(Some(TOO_FEW), true),
        required: true,
    };
    assert!(gate(&[c], "dir").is_err());
}
