//! Parsing of fio job values: sizes, percentages, per-op lists, block-size splits and
//! ranges, hint splits; did-you-mean for unknown keys.

use super::*;

pub(super) fn did_you_mean(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .chain(IGNORED)
        .chain(super::zbd::ZBD_KEYS)
        // (Not `fdp` itself: three letters are close to too many typos.)
        .chain(&super::dp::DP_KEYS[1..])
        .map(|&k| (strsim::levenshtein(key, k), k))
        .filter(|&(d, k)| d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k)
}

/// One `key[=value]` of a job file.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) key: String,
    pub(super) value: Option<String>,
    pub(super) line: u64,
}

pub(super) fn parse_bool(v: Option<&str>) -> Result<bool, String> {
    match v.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Ok(false),
        Some(other) => Err(format!("expected a boolean (1 or 0), got '{other}'")),
    }
}

pub(super) fn parse_percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().trim_end_matches('%').parse().map_err(|_| format!("expected a percentage, got '{s}'"))?;
    if (0.0..=100.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("percentage {v} is outside [0, 100]"))
    }
}

pub(super) fn parse_count(s: &str) -> Result<u64, String> {
    s.trim().parse().map_err(|_| format!("expected a non-negative integer, got '{s}'"))
}

pub(super) fn parse_extent(s: &str, kb_base: u64) -> Result<Extent, String> {
    match s.trim().strip_suffix('%') {
        Some(p) => {
            let v = parse_percent(p)?;
            Ok(Extent::Percent(v))
        }
        None => parse_size(s, kb_base).map(Extent::Bytes),
    }
}

/// fio's comma rule for per-op values: `a` → all three; `a,b` → read a, write and trim b;
/// `a,b,` → trim keeps its default; empty entries keep the default.
pub(super) fn per_op<T: Clone>(
    s: &str,
    current: &mut [T; 3],
    mut parse: impl FnMut(&str) -> Result<T, String>,
) -> Result<(), String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("'{s}' has more than three comma-separated values (read,write,trim)"));
    }
    let trailing = s.trim_end().ends_with(',');
    let mut last: Option<T> = None;
    for (i, slot) in current.iter_mut().enumerate() {
        match parts.get(i) {
            Some(p) if !p.trim().is_empty() => {
                let v = parse(p.trim())?;
                *slot = v.clone();
                last = Some(v);
            }
            Some(_) => last = None,
            None if !trailing => {
                if let Some(v) = &last {
                    *slot = v.clone();
                }
            }
            None => {}
        }
    }
    Ok(())
}

pub(super) fn parse_split(s: &str, kb_base: u64) -> Result<SizeDist, String> {
    let mut pairs: Vec<(u64, Option<f64>)> = Vec::new();
    for part in s.split(':') {
        let (size, pct) = match part.split_once('/') {
            Some((a, b)) if !b.trim().is_empty() => (a, Some(parse_percent(b)?)),
            Some((a, _)) => (a, None),
            None => (part, None),
        };
        let size = parse_size(size, kb_base)?;
        if size == 0 {
            return Err(format!("block size in '{part}' must be at least 1 byte"));
        }
        pairs.push((size, pct));
    }
    let given: f64 = pairs.iter().filter_map(|p| p.1).sum();
    let blanks = pairs.iter().filter(|p| p.1.is_none()).count();
    if given > 100.0 + 1e-9 {
        return Err(format!("bssplit shares add up to {given}, more than 100"));
    }
    if blanks == 0 && (given - 100.0).abs() > 1e-6 {
        return Err(format!("bssplit shares add up to {given}, not 100"));
    }
    let fill = if blanks > 0 { (100.0 - given) / blanks as f64 } else { 0.0 };
    Ok(SizeDist::Split(pairs.into_iter().map(|(s, p)| (s, p.unwrap_or(fill))).collect()))
}

pub(super) fn parse_range(s: &str, kb_base: u64) -> Result<SizeDist, String> {
    let (a, b) = s.split_once('-').ok_or_else(|| format!("'{s}' must be min-max, e.g. 4k-64k"))?;
    let (min, max) = (parse_size(a, kb_base)?, parse_size(b, kb_base)?);
    if min == 0 || min > max {
        return Err(format!("'{s}': need 0 < min ≤ max"));
    }
    Ok(SizeDist::Range { min, max })
}

pub(super) fn parse_hint_split(s: &str) -> Result<HintSpec, String> {
    let mut v = Vec::new();
    for part in s.split(':') {
        let (h, p) = part.split_once('/').ok_or_else(|| format!("'{part}' must be hint/percent, e.g. 0/10"))?;
        let hint: u8 = h.trim().parse().map_err(|_| format!("hint '{h}' must be an integer 0-255"))?;
        v.push((hint, parse_percent(p)?));
    }
    let total: f64 = v.iter().map(|p| p.1).sum();
    if (total - 100.0).abs() > 1e-6 {
        return Err(format!("hint_split shares add up to {total}, not 100"));
    }
    Ok(HintSpec::Split(v))
}
