//! Named device presets, one per source paper's simulated SSD. The TOML files live in
//! `crates/ssdlab-core/presets/` and are compiled in, so `--preset NAME` needs no files.
//! A preset may start from another (`extends = "name"`): its tables are merged over the
//! other's, key by key, so a variant states only what it changes.

use crate::config::{parse_config, Config, ConfigError};

/// (name, TOML text) of every preset, in the order `ssdlab presets` lists them.
pub const PRESETS: &[(&str, &str)] = &[
    ("pa-ssd-tlc", include_str!("../presets/pa-ssd-tlc.toml")),
    ("spa-ssd-hybrid", include_str!("../presets/spa-ssd-hybrid.toml")),
    ("dir-tlc", include_str!("../presets/dir-tlc.toml")),
    ("dir-tlc-fresh", include_str!("../presets/dir-tlc-fresh.toml")),
    ("ipu-slc-mlc", include_str!("../presets/ipu-slc-mlc.toml")),
    ("harey-tortoise-mlc", include_str!("../presets/harey-tortoise-mlc.toml")),
    ("mango-mlc", include_str!("../presets/mango-mlc.toml")),
    ("gordon", include_str!("../presets/gordon.toml")),
    ("gordon-mlc", include_str!("../presets/gordon-mlc.toml")),
    ("gordon-40mhz", include_str!("../presets/gordon-40mhz.toml")),
    ("gordon-400mhz", include_str!("../presets/gordon-400mhz.toml")),
    ("scrub-slc", include_str!("../presets/scrub-slc.toml")),
    ("scrub-mlc", include_str!("../presets/scrub-mlc.toml")),
    ("small-tlc", include_str!("../presets/small-tlc.toml")),
    ("mqsim-default", include_str!("../presets/mqsim-default.toml")),
    ("mqsim-compat", include_str!("../presets/mqsim-compat.toml")),
    ("zns-zn540", include_str!("../presets/zns-zn540.toml")),
    ("fdp-pm9d3a", include_str!("../presets/fdp-pm9d3a.toml")),
];

/// Loads a preset by name; the error lists the valid names.
pub fn preset(name: &str) -> Result<Config, ConfigError> {
    match PRESETS.iter().find(|(n, _)| *n == name) {
        Some((n, _)) => {
            let table = preset_table(n)?;
            let text = toml::to_string(&table).map_err(|e| crate::config::err("--preset", e.to_string()))?;
            parse_config(&text, &format!("<preset {n}>"))
        }
        None => {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            let hint = crate::config::did_you_mean(name, &names)
                .map(|s| format!(" (did you mean '{s}'?)"))
                .unwrap_or_default();
            Err(ConfigError {
                key: "--preset".into(),
                message: format!("unknown preset '{name}'{hint}; known presets: {}", names.join(", ")),
            })
        }
    }
}

/// A preset's TOML table with what it `extends` merged underneath.
fn preset_table(name: &str) -> Result<toml::Table, ConfigError> {
    let bad = |message: String| crate::config::err("--preset", format!("preset {name}: {message}"));
    let (_, text) = PRESETS.iter().find(|(n, _)| *n == name).ok_or_else(|| bad("no such preset".into()))?;
    let mut table: toml::Table = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    let Some(base) = table.remove("extends") else { return Ok(table) };
    let base = base.as_str().ok_or_else(|| bad("extends must name a preset".into()))?;
    if base == name {
        return Err(bad("extends itself".into()));
    }
    let mut merged = preset_table(base)?;
    merge(&mut merged, table);
    Ok(merged)
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_validates() {
        for (name, _) in PRESETS {
            let config = preset(name).unwrap_or_else(|e| panic!("preset {name}: {e}"));
            assert_eq!(&config.name, name, "preset file's name field");
            if let Err(errors) = config.validate() {
                panic!("preset {name} invalid: {errors:?}");
            }
            assert!(!config.source.is_empty(), "preset {name} must cite its source");
        }
    }

    #[test]
    fn a_variant_changes_only_what_it_states() {
        let aged = preset("dir-tlc").unwrap();
        let fresh = preset("dir-tlc-fresh").unwrap();
        assert_eq!(fresh.precondition.pe_cycles, 0);
        assert_eq!(aged.precondition.pe_cycles, 3000);
        let same = Config {
            name: aged.name.clone(),
            description: aged.description.clone(),
            precondition: aged.precondition.clone(),
            ..fresh.clone()
        };
        assert_eq!(same, aged, "everything but the name, description and aging is dir-tlc's");
    }

    #[test]
    fn unknown_preset_suggests() {
        let e = preset("pa-ssd-tcl").unwrap_err();
        assert!(e.message.contains("did you mean 'pa-ssd-tlc'"), "{}", e.message);
    }
}
