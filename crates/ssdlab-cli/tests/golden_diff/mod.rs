//! Per-metric difference of two JSON reports, for golden tests: a failing golden names
//! the metrics that changed with their old and new values instead of dumping the new
//! report, and `SSDLAB_UPDATE_GOLDEN=1` prints the same summary for the commit message.

use serde_json::Value;

/// Lines of a summary before the rest is only counted.
pub const MAX_LINES: usize = 40;

/// One step of a JSON path: an object key or an array index. Indices sort numerically,
/// so `histogram[2]` comes before `histogram[10]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Key(String),
    Index(usize),
}

fn path_text(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    if s.is_empty() {
        s.push_str("(root)");
    }
    s
}

/// A value in one line: compact JSON, long values cut to 80 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 80 {
        s
    } else {
        format!("{}…", s.chars().take(79).collect::<String>())
    }
}

/// Relative change of two numbers, as `(+5.4%)`; empty when it has no meaning.
fn change(old: &Value, new: &Value) -> String {
    let (Some(a), Some(b)) = (old.as_f64(), new.as_f64()) else { return String::new() };
    if a == 0.0 || !a.is_finite() || !b.is_finite() {
        return String::new();
    }
    let pct = (b - a) / a.abs() * 100.0;
    if pct.abs() >= 0.05 {
        format!(" ({pct:+.1}%)")
    } else {
        // Small changes keep their size visible instead of rounding to +0.0%.
        format!(" ({pct:+.2e}%)")
    }
}

fn walk(old: Option<&Value>, new: Option<&Value>, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, String)>) {
    match (old, new) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))).collect();
            keys.sort();
            for k in keys {
                path.push(Step::Key(k.clone()));
                walk(a.get(k), b.get(k), path, out);
                path.pop();
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            for i in 0..a.len().max(b.len()) {
                path.push(Step::Index(i));
                walk(a.get(i), b.get(i), path, out);
                path.pop();
            }
        }
        (Some(a), Some(b)) => {
            if a != b {
                let p = path_text(path);
                out.push((path.clone(), format!("{p}: {} -> {}{}", short(a), short(b), change(a, b))));
            }
        }
        (None, Some(b)) => out.push((path.clone(), format!("added {}: {}", path_text(path), short(b)))),
        (Some(a), None) => out.push((path.clone(), format!("removed {}: {}", path_text(path), short(a)))),
        (None, None) => {}
    }
}

/// Every difference between `old` and `new`, one line each, sorted by JSON path:
/// `write.latency_ns.mean: 1234.5 -> 1301.2 (+5.4%)`, `added power.count: 3`,
/// `removed gc.victims: 206`. A key or array element present on one side only is one
/// line with its whole (compact) value.
pub fn diff_lines(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(Some(old), Some(new), &mut Vec::new(), &mut out);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().map(|(_, line)| line).collect()
}

/// The differences as text, at most `max` lines and then a count of the rest.
pub fn summary(old: &Value, new: &Value, max: usize) -> String {
    let lines = diff_lines(old, new);
    if lines.is_empty() {
        return "  no metric changed (only formatting or key order differs)\n".to_string();
    }
    let mut s = String::new();
    for line in lines.iter().take(max) {
        s.push_str("  ");
        s.push_str(line);
        s.push('\n');
    }
    if lines.len() > max {
        s.push_str(&format!("  … and {} more\n", lines.len() - max));
    }
    s
}

/// [`summary`] of a golden file's text against the new report, capped at [`MAX_LINES`];
/// a file that is not JSON (say, with merge-conflict markers) is said so, not a panic.
pub fn summary_text(old: &str, new: &Value) -> String {
    match serde_json::from_str::<Value>(old) {
        Ok(old) => summary(&old, new, MAX_LINES),
        Err(e) => format!("  the old golden is not JSON ({e}); no per-metric diff\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_reports_have_no_lines() {
        let v = json!({"a": 1, "b": {"c": [1, 2.5, "x"]}});
        assert!(diff_lines(&v, &v.clone()).is_empty());
    }

    #[test]
    fn changed_metrics_have_old_new_and_change_sorted_by_path() {
        let old = json!({
            "write": {"latency_ns": {"mean": 1234.5, "p99": 2000}, "requests": 10},
            "gc": {"victims": 206, "policy": "greedy"},
            "waf": 0.0
        });
        let new = json!({
            "write": {"latency_ns": {"mean": 1301.2, "p99": 2000}, "requests": 10},
            "gc": {"victims": 200, "policy": "fifo"},
            "waf": 1.5
        });
        assert_eq!(
            diff_lines(&old, &new),
            vec![
                "gc.policy: \"greedy\" -> \"fifo\"",
                "gc.victims: 206 -> 200 (-2.9%)",
                "waf: 0.0 -> 1.5",
                "write.latency_ns.mean: 1234.5 -> 1301.2 (+5.4%)",
            ]
        );
    }

    #[test]
    fn added_and_removed_keys_and_elements_are_one_line_each() {
        let old = json!({"a": 1, "gone": {"x": 1, "y": 2}, "h": [[0, 5], [1, 2]]});
        let new = json!({"a": 1, "power": {"count": 3}, "h": [[0, 5], [1, 2], [2, 7]]});
        assert_eq!(
            diff_lines(&old, &new),
            vec!["removed gone: {\"x\":1,\"y\":2}", "added h[2]: [2,7]", "added power: {\"count\":3}"]
        );
    }

    #[test]
    fn array_indices_sort_numerically_and_small_changes_stay_visible() {
        let old = json!({"h": (0..12).collect::<Vec<u32>>(), "m": 1000000.0});
        let mut h: Vec<u32> = (0..12).collect();
        h[2] = 20;
        h[10] = 100;
        let new = json!({"h": h, "m": 1000001.0});
        assert_eq!(
            diff_lines(&old, &new),
            vec!["h[2]: 2 -> 20 (+900.0%)", "h[10]: 10 -> 100 (+900.0%)", "m: 1000000.0 -> 1000001.0 (+1.00e-4%)"]
        );
    }

    #[test]
    fn a_type_change_is_a_plain_change() {
        let old = json!({"a": {"b": 1}, "c": [1]});
        let new = json!({"a": 2, "c": null});
        assert_eq!(diff_lines(&old, &new), vec!["a: {\"b\":1} -> 2", "c: [1] -> null"]);
    }

    #[test]
    fn summary_caps_the_lines_and_counts_the_rest() {
        let old = json!({"k": (0..10).collect::<Vec<u32>>()});
        let new = json!({"k": (1..11).collect::<Vec<u32>>()});
        let s = summary(&old, &new, 3);
        assert_eq!(s, "  k[0]: 0 -> 1\n  k[1]: 1 -> 2 (+100.0%)\n  k[2]: 2 -> 3 (+50.0%)\n  … and 7 more\n");
        assert_eq!(summary(&old, &old, 3), "  no metric changed (only formatting or key order differs)\n");
    }

    #[test]
    fn an_old_golden_that_is_not_json_is_reported_not_a_panic() {
        let s = summary_text("<<<<<<< HEAD\n{}", &json!({"a": 1}));
        assert!(s.starts_with("  the old golden is not JSON ("), "{s}");
        assert_eq!(summary_text("{\"a\": 1}", &json!({"a": 2})), "  a: 1 -> 2 (+100.0%)\n");
    }
}
