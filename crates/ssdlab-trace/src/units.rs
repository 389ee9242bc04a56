//! Sizes and times written the way fio writes them: `4k`, `1m`, `1.5g`, `64KiB`; `250`,
//! `10ms`, `2s`, `1m`.
//!
//! Sizes: a decimal number and an optional suffix, case-insensitive: `b`; `k`/`kb`/`kib`;
//! `m`/`mb`/`mib`; `g`...; `t`...; `p`.... With `kb_base = 1024` (fio's default) every
//! suffix is binary (`4k` = `4kb` = `4KiB` = 4096). With `kb_base = 1000`, `k`/`kb` are
//! decimal (4000) while the `i` forms stay binary. A fractional size is rounded down to
//! whole bytes.
//!
//! Times: a decimal number and an optional unit `ns`, `us`/`usec`, `ms`/`msec`, `s`/`sec`,
//! `m`/`min`, `h`, `d`; without a unit the key's default unit applies (µs for `thinktime`,
//! s for `runtime`, as in fio).

/// Parses a size in bytes (see the [module docs](self)).
pub fn parse_size(text: &str, kb_base: u64) -> Result<u64, String> {
    let s = text.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    let suffix = suffix.trim().to_ascii_lowercase();
    let power = match suffix.trim_end_matches(['b', 'B']) {
        "" => 0,
        "k" | "ki" => 1,
        "m" | "mi" => 2,
        "g" | "gi" => 3,
        "t" | "ti" => 4,
        "p" | "pi" => 5,
        _ => return Err(format!("invalid size '{text}' (expected a number with an optional k, m, g, t or p suffix)")),
    };
    let binary = kb_base != 1000 || suffix.contains('i');
    let unit = if binary { 1024u128 } else { 1000u128 }.pow(power);
    let value = decimal_times(number, unit).ok_or_else(|| format!("invalid size '{text}'"))?;
    u64::try_from(value).map_err(|_| format!("size '{text}' does not fit in 64 bits"))
}

/// Parses a time in ns; a bare number is in `default_unit_ns`.
pub fn parse_time_ns(text: &str, default_unit_ns: u64) -> Result<u64, String> {
    let s = text.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    let unit: u128 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" => u128::from(default_unit_ns),
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => {
            return Err(format!(
                "invalid time '{text}' (expected a number with an optional unit ns, us, ms, s, m, h or d)"
            ))
        }
    };
    let value = decimal_times(number, unit).ok_or_else(|| format!("invalid time '{text}'"))?;
    u64::try_from(value).map_err(|_| format!("time '{text}' does not fit in 64 bits of nanoseconds"))
}

/// `number * unit` for a decimal `int[.frac]`, rounded down; `None` if malformed or huge.
fn decimal_times(number: &str, unit: u128) -> Option<u128> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() && frac.is_empty() || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let int: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let frac_digits = &frac[..frac.len().min(18)];
    let scale = 10u128.pow(frac_digits.len() as u32);
    let frac: u128 = if frac_digits.is_empty() { 0 } else { frac_digits.parse().ok()? };
    int.checked_mul(unit)?.checked_add(frac.checked_mul(unit)? / scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096", 1024), Ok(4096));
        assert_eq!(parse_size("4k", 1024), Ok(4096));
        assert_eq!(parse_size("4KiB", 1024), Ok(4096));
        assert_eq!(parse_size("4kb", 1000), Ok(4000));
        assert_eq!(parse_size("4KiB", 1000), Ok(4096));
        assert_eq!(parse_size("1.5m", 1024), Ok(1_572_864));
        assert_eq!(parse_size("1g", 1024), Ok(1 << 30));
        assert_eq!(parse_size("2T", 1024), Ok(2 << 40));
        assert_eq!(parse_size("512b", 1024), Ok(512));
        assert!(parse_size("4x", 1024).is_err());
        assert!(parse_size("", 1024).is_err());
        assert!(parse_size("-4k", 1024).is_err());
        assert!(parse_size("99999999p", 1024).unwrap_err().contains("64 bits"));
    }

    #[test]
    fn times() {
        assert_eq!(parse_time_ns("250", 1_000), Ok(250_000));
        assert_eq!(parse_time_ns("10ms", 1_000), Ok(10_000_000));
        assert_eq!(parse_time_ns("2", 1_000_000_000), Ok(2_000_000_000));
        assert_eq!(parse_time_ns("1m", 1_000_000_000), Ok(60_000_000_000));
        assert_eq!(parse_time_ns("1.5s", 1), Ok(1_500_000_000));
        assert!(parse_time_ns("5 parsecs", 1).is_err());
    }
}
