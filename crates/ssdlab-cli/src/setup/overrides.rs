//! The config a run starts from: a config file read and checked, and `--set KEY=VALUE`
//! overrides applied to it (every key of docs/config.md, `[[flows]]` entries by index).

use super::*;

/// A config file of any supported kind (ssdlab TOML, MQSim, SSDSim), recognised by content.
pub fn load_config_file(path: &Path) -> Result<Config> {
    Ok(crate::import::load(path)?.config)
}

pub fn apply_set(mut config: Config, set: &[String]) -> Result<Config> {
    if set.is_empty() {
        return Ok(config);
    }
    // `[workload]` is optional: without one, a `workload.` key changes the built-in
    // workload (the one the run would use), so every documented key can be set.
    if config.workload.is_none() && set.iter().any(|s| s.trim_start().starts_with("workload.")) {
        config.workload = Some(default_synthetic());
    }
    // `[[flows]]` entries are a list: `flows.K.key` names entry K's key (from 0).
    let (flows, rest): (Vec<&String>, Vec<&String>) =
        set.iter().partition(|s| s.trim_start().split(['.', '=']).next() == Some("flows"));
    for item in flows {
        set_flow_key(&mut config, item).map_err(|e| anyhow!("--set {e}"))?;
    }
    let rest: Vec<String> = rest.into_iter().cloned().collect();
    if rest.is_empty() {
        return Ok(config);
    }
    apply_overrides(&config, &rest).map_err(|e| anyhow!("--set {e}"))
}

/// `flows.K.key=value` (also `flows.K.synthetic.key`): a key of the config's K-th
/// `[[flows]]` entry, from 0, read as TOML as every override is. Errors start with the key.
fn set_flow_key(config: &mut Config, item: &str) -> Result<()> {
    let (key, raw) =
        item.split_once('=').ok_or_else(|| anyhow!("{item}: an override must look like key.path=value"))?;
    let (key, raw) = (key.trim(), raw.trim());
    let count = config.flows.len();
    let entries = match count {
        0 => "the config has no [[flows]] entries".to_string(),
        1 => "the config has one [[flows]] entry, flows.0".to_string(),
        n => format!("the config has {n} [[flows]] entries, flows.0 to flows.{}", n - 1),
    };
    let parts: Vec<&str> = key.split('.').collect();
    let k = match parts.get(1).map(|p| p.parse::<usize>()) {
        Some(Ok(k)) if parts.len() >= 3 => k,
        _ => bail!("{key}: a [[flows]] entry's key is set as flows.K.key, K from 0 ({entries})"),
    };
    if k >= count {
        bail!("{key}: {entries}");
    }
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let mut table = toml::Table::try_from(&config.flows[k]).context("serialising a [[flows]] entry")?;
    let fields = &parts[2..];
    let mut cursor = &mut table;
    for (i, part) in fields.iter().enumerate() {
        if i + 1 == fields.len() {
            cursor.insert(part.to_string(), value);
            break;
        }
        let here = format!("flows.{k}.{}", fields[..=i].join("."));
        cursor = match cursor.get_mut(*part) {
            Some(toml::Value::Table(t)) => t,
            Some(_) => bail!("{key}: '{here}' is not a section"),
            None => bail!("{key}: flows.{k} has no '{part}' here (give the section in the config file first)"),
        };
    }
    config.flows[k] = toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| {
        let message = e.message().to_string();
        // serde names an unknown field; a likely typo gets a did-you-mean.
        let known: Vec<&str> = [
            "name",
            "trace",
            "format",
            "synthetic",
            "queue_depth",
            "priority",
            "start_ns",
            "offset_bytes",
            "size_bytes",
            "time_unit",
            "replay_percent",
            "runs",
            "hint",
            "channels",
            "chips",
            "dies",
            "planes",
            "stop_ns",
        ]
        .to_vec();
        match ssdlab_core::config::did_you_mean(fields[0], &known).filter(|_| message.contains("unknown field")) {
            Some(hint) => anyhow!("{key}: unknown key '{}' (did you mean '{hint}'?)", fields[0]),
            None => anyhow!("{key}: {message}"),
        }
    })?;
    Ok(())
}

pub fn validate(config: &Config, origin: &str) -> Result<()> {
    if let Err(errors) = config.validate() {
        let lines: Vec<String> = errors.iter().map(|e| format!("  {origin}: {e}")).collect();
        bail!("invalid configuration:\n{}", lines.join("\n"));
    }
    Ok(())
}
