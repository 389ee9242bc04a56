//! TOML parsing with did-you-mean for unknown keys, `key=value` overrides, and error
//! positions (file, line, key).

use super::{err, Config, ConfigError};

/// Parses a TOML configuration. `origin` names the file in error messages. Unknown keys
/// get a did-you-mean suggestion drawn from the keys valid at that place.
pub fn parse_config(text: &str, origin: &str) -> Result<Config, ConfigError> {
    toml::from_str::<Config>(text).map_err(|e| toml_error(e, text, origin))
}

/// Applies `key=value` overrides (TOML values; bare words are taken as strings) on top of
/// a base config given as TOML text.
pub fn apply_overrides(base: &Config, overrides: &[String]) -> Result<Config, ConfigError> {
    let mut value = toml::Value::try_from(base).map_err(|e| err("", format!("cannot re-serialise config: {e}")))?;
    for item in overrides {
        let (key, raw) = item.split_once('=').ok_or_else(|| err(item, "an override must look like key.path=value"))?;
        let key = key.trim();
        let raw = raw.trim();
        let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        let mut cursor = &mut value;
        let mut parts: Vec<&str> = key.split('.').collect();
        // One form for every design: `designs.NAME.key`. A built-in design's section is
        // its own (`[pa]`, reached by `designs.pa-ssd.scheme` or `pa.scheme`); an outside
        // design's is `[designs.NAME]`.
        if parts[0] == "designs" {
            match parts.get(1).and_then(|name| crate::designs::section_of(name)) {
                Some(section) if parts.len() >= 3 => {
                    parts = [section].into_iter().chain(parts[2..].iter().copied()).collect()
                }
                _ => {
                    set_design_key(&mut value, key, &parts, parsed)?;
                    continue;
                }
            }
        }
        if let (Some(table), Some(section)) = (cursor.as_table_mut(), parts.first().and_then(|p| hidden_section(p))) {
            table.entry(parts[0]).or_insert(section);
        }
        for (i, part) in parts.iter().enumerate() {
            let table = cursor
                .as_table_mut()
                .ok_or_else(|| err(key, format!("'{}' is not a section", parts[..i].join("."))))?;
            if i + 1 == parts.len() {
                if let Some(default) = hidden_key(&parts[..i], part).filter(|_| !table.contains_key(*part)) {
                    table.insert(part.to_string(), default);
                }
                if !table.contains_key(*part) {
                    let keys: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
                    return Err(err(key, unknown_key_message(part, &keys)));
                }
                table.insert(part.to_string(), parsed.clone());
                break;
            }
            if i == 1 && parts[0] == "workload" && *part == "zoned" {
                // (A zoned workload's section is printed only when set.)
                if let Ok(zoned) = toml::Value::try_from(ssdlab_trace::zoned::ZonedSpec::default()) {
                    table.entry("zoned").or_insert(zoned);
                }
            }
            if !table.contains_key(*part) {
                let keys: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
                return Err(err(key, unknown_key_message(part, &keys)));
            }
            cursor = table.get_mut(*part).expect("checked above");
        }
    }
    let text = toml::to_string(&value).map_err(|e| err("", e.to_string()))?;
    // A wrong type or enum value: name the key, not a line of the re-serialised text.
    toml::from_str::<Config>(&text).map_err(|e| {
        let key = error_offset(&e, &text).and_then(|at| key_at(&text, at)).unwrap_or_default();
        err(&key, e.message())
    })
}

/// A design's own section of the config.
impl Config {
    /// Section `[designs.NAME]` as a design outside this crate reads it: its defaults
    /// when the config has no such section; an error naming `designs.NAME` and the key
    /// serde refused (a typo, a wrong type) otherwise. Give `T` `#[serde(default,
    /// deny_unknown_fields)]` so a misspelt key is refused, not ignored.
    pub fn design_section<T: serde::de::DeserializeOwned + Default>(&self, name: &str) -> Result<T, ConfigError> {
        match self.designs.get(name) {
            None => Ok(T::default()),
            Some(table) => toml::Value::Table(table.clone())
                .try_into()
                .map_err(|e: toml::de::Error| err(&format!("designs.{name}"), e.message())),
        }
    }
}

/// `designs.NAME.key=value`: a key of an outside design's section, which the core does
/// not know; the design checks its section when it reads it (`Config::design_section`).
fn set_design_key(value: &mut toml::Value, key: &str, parts: &[&str], parsed: toml::Value) -> Result<(), ConfigError> {
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(err(key, "a design's key is designs.NAME.key (e.g. designs.hotcold.threshold=3)"));
    }
    let root = value.as_table_mut().ok_or_else(|| err(key, "the config is not a table"))?;
    let designs = root.entry("designs").or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let section = designs
        .as_table_mut()
        .ok_or_else(|| err(key, "'designs' is not a section"))?
        .entry(parts[1])
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let section = section.as_table_mut().ok_or_else(|| err(key, format!("'designs.{}' is not a section", parts[1])))?;
    section.insert(parts[2].to_string(), parsed);
    Ok(())
}

/// The default of a section the config leaves out of its serialised form while it is
/// the default (so that `--set` can reach its keys).
fn hidden_section(name: &str) -> Option<toml::Value> {
    use super::{Arbitration, MixConfig, PriorityConfig};
    match name {
        "priority" => toml::Value::try_from(PriorityConfig::default()).ok(),
        "mix" => toml::Value::try_from(MixConfig::default()).ok(),
        "arbitration" => toml::Value::try_from(Arbitration::default()).ok(),
        // Every built-in design's section, from the registry.
        _ => crate::designs::default_section(name),
    }
}

/// The default of a key the config leaves out of its serialised form while it has its
/// default (so that adding it kept every existing config's hash), for `--set` to reach.
fn hidden_key(section: &[&str], key: &str) -> Option<toml::Value> {
    let host = super::Host::default();
    match (section, key) {
        (["host"], "stop_ns") => Some(toml::Value::Integer(host.stop_ns as i64)),
        (["host"], "queue_fetch_size") => Some(toml::Value::Integer(i64::from(host.queue_fetch_size))),
        (["host"], "flows_end") => toml::Value::try_from(host.flows_end).ok(),
        (["flash"], "issue_on_idle_channel") => Some(toml::Value::Boolean(false)),
        _ => None,
    }
}

fn unknown_key_message(key: &str, valid: &[&str]) -> String {
    match did_you_mean(key, valid) {
        Some(s) => format!("unknown key '{key}' (did you mean '{s}'?)"),
        None => format!("unknown key '{key}'; valid keys here: {}", valid.join(", ")),
    }
}

/// The closest valid key by edit distance, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|v| (strsim::levenshtein(key, v), *v))
        .filter(|(d, v)| *d <= (v.len().max(key.len()) / 3).max(2))
        .min()
        .map(|(_, v)| v)
}

fn toml_error(e: toml::de::Error, text: &str, origin: &str) -> ConfigError {
    let message = e.message().to_string();
    let offset = error_offset(&e, text);
    let location = offset.map(|at| {
        let line = text[..at].matches('\n').count() + 1;
        format!("{origin}:{line}")
    });
    // serde's unknown-field message lists the expected names; turn it into a suggestion.
    let mut friendly = message.clone();
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((field, tail)) = rest.split_once('`') {
            let expected: Vec<&str> = tail.split('`').enumerate().filter(|(i, _)| i % 2 == 1).map(|(_, s)| s).collect();
            friendly = unknown_key_message(field, &expected);
        }
    } else if let Some(key) = offset.and_then(|at| key_at(text, at)) {
        // Type and enum errors do not name the key: name it from the line they point at.
        friendly = format!("{key}: {message}");
    }
    ConfigError { key: location.unwrap_or_else(|| origin.to_string()), message: friendly }
}

/// The 1-based line of `text` (a config file) that sets the dotted `key`
/// (`"geometry.channels"`, or `"seed"` at the top level), if the file sets it: lets a
/// caller add the line to a [`Config::validate`] error, whose key may also come from a
/// default or an override.
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    let (section, name) = key.rsplit_once('.').unwrap_or(("", key));
    let mut current = "";
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            current = header.split(']').next().unwrap_or("").trim();
        } else if current == section {
            if let Some((k, _)) = line.split_once('=') {
                if k.trim().trim_matches('"') == name {
                    return Some(i + 1);
                }
            }
        }
    }
    None
}

/// Byte offset of a parse error in `text`, on a char boundary (slicing must not panic).
fn error_offset(e: &toml::de::Error, text: &str) -> Option<usize> {
    e.span().map(|span| {
        let mut at = span.start.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    })
}

/// The dotted key (`section.key`) assigned on the line holding byte `at`, if that line is
/// a plain `key = value` line: a best-effort reading for error messages.
fn key_at(text: &str, at: usize) -> Option<String> {
    let mut start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let mut line = &text[start..end];
    // Inside a multi-line array or inline table: the key is on the line that opens it.
    while !line.contains('=') && start > 0 && !line.trim_start().starts_with('[') {
        let prev = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        line = &text[prev..start - 1];
        start = prev;
        if line.split_once('=').is_some_and(|(_, v)| !v.trim_start().starts_with(['[', '{'])) {
            return None;
        }
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let plain = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if !plain(key) {
        return None;
    }
    let section = text[..start].lines().rev().map(str::trim).find(|l| l.starts_with('['));
    let section = section.and_then(|l| l.trim_start_matches('[').split(']').next()).map(str::trim).filter(|s| plain(s));
    Some(match section {
        Some(section) => format!("{section}.{key}"),
        None => key.to_string(),
    })
}
