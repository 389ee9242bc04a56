//! The terminal summary's lines for a design's own report section (`designs.NAME` in the
//! JSON): what a design wrote with `Report::set_section` or a Python design's `report()`,
//! printed readably without knowing its shape. Scalars go on the `design NAME:` line;
//! each nested object gets an indented line of its own, and each element of a list of
//! objects one line, labelled by its `name` field when it has one, so an FDP drive's eight
//! handles read as eight rows rather than one JSON string.

use serde_json::Value;

/// The summary lines of design `name`'s section; `skip` names fields printed elsewhere.
pub fn design_lines(name: &str, section: &Value, skip: &[&str]) -> Vec<String> {
    let Value::Object(map) = section else {
        return vec![format!("design {name}: {}", scalar(section))];
    };
    let mut head = Vec::new();
    let mut rest = Vec::new();
    for (k, v) in map.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
        match v {
            Value::Object(inner) if !inner.is_empty() => rest.push(format!("  {k}: {}", fields(inner))),
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
                for (i, item) in items.iter().enumerate() {
                    let Value::Object(inner) = item else { unreachable!("checked above") };
                    let label = match inner.get("name").and_then(Value::as_str) {
                        Some(n) => format!("{k}[{i}] {n}"),
                        None => format!("{k}[{i}]"),
                    };
                    rest.push(format!("  {label}: {}", fields_except(inner, "name")));
                }
            }
            _ if is_blank(v) => {}
            _ => head.push(format!("{k} {}", compact(v))),
        }
    }
    let mut lines = vec![format!("design {name}: {}", head.join(", "))];
    lines.extend(rest);
    lines
}

/// `key value, key value, …` of an object, nested values compact.
fn fields(map: &serde_json::Map<String, Value>) -> String {
    fields_except(map, "")
}

/// [`fields`] without the field `skip` (a list element's name, already its label).
fn fields_except(map: &serde_json::Map<String, Value>, skip: &str) -> String {
    map.iter()
        .filter(|(k, v)| k.as_str() != skip && !is_blank(v))
        .map(|(k, v)| format!("{k} {}", compact(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An empty string says nothing (an FDP drive's shared GC unit has no handle type).
fn is_blank(v: &Value) -> bool {
    v.as_str().is_some_and(str::is_empty)
}

/// A value on one line: scalars as `scalar`, lists in brackets, objects in braces.
fn compact(v: &Value) -> String {
    match v {
        Value::Array(items) => format!("[{}]", items.iter().map(compact).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => format!("{{{}}}", fields(map)),
        other => scalar(other),
    }
}

/// Strings without quotes; fractions to four decimals (a design's ratios, like a WAF of
/// 4.104591311509162, read as 4.1046); integers in full.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(0.0);
            let s = format!("{x:.4}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s == "-0" {
                "0".into()
            } else {
                s.into()
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_head_the_line_and_objects_and_lists_of_objects_get_their_own() {
        let s = json!({
            "waf": 4.104591311509162,
            "zones": 64,
            "mode": "normal",
            "ratios": [0.5, 2.0],
            "events": {"ru_not_fully_written": 0, "ru_time_limit_exceeded": 3},
            "handles": [
                {"name": "handle-0", "waf": 1.0, "host_bytes_written": 4531712},
                {"waf": 2.25, "type": "", "pages": {"lsb": 1, "msb": 2}}
            ],
            "statuses": [],
            "note": "",
            "host_layer": {"x": 1}
        });
        let lines = design_lines("fdp", &s, &["host_layer"]);
        // The workspace's serde_json preserves insertion order: fields print as the design
        // wrote them.
        assert_eq!(
            lines,
            vec![
                "design fdp: waf 4.1046, zones 64, mode normal, ratios [0.5, 2], statuses []",
                "  events: ru_not_fully_written 0, ru_time_limit_exceeded 3",
                "  handles[0] handle-0: waf 1, host_bytes_written 4531712",
                "  handles[1]: waf 2.25, pages {lsb 1, msb 2}",
            ]
        );
    }

    #[test]
    fn a_section_that_is_not_an_object_prints_as_its_value() {
        assert_eq!(design_lines("x", &json!(-0.00001), &[]), vec!["design x: 0"]);
        assert_eq!(design_lines("x", &json!("on"), &[]), vec!["design x: on"]);
    }
}
