//! Named device presets, one per source paper's simulated SSD. The TOML files live in
//! `crates/ssdlab-core/presets/` and are compiled in, so `--preset NAME` needs no files.

use crate::config::{parse_config, Config, ConfigError};

/// (name, TOML text) of every preset, in the order `ssdlab presets` lists them.
pub const PRESETS: &[(&str, &str)] = &[
    ("pa-ssd-tlc", include_str!("../presets/pa-ssd-tlc.toml")),
    ("spa-ssd-hybrid", include_str!("../presets/spa-ssd-hybrid.toml")),
    ("dir-tlc", include_str!("../presets/dir-tlc.toml")),
    ("ipu-slc-mlc", include_str!("../presets/ipu-slc-mlc.toml")),
    ("harey-tortoise-mlc", include_str!("../presets/harey-tortoise-mlc.toml")),
    ("gordon", include_str!("../presets/gordon.toml")),
    ("small-tlc", include_str!("../presets/small-tlc.toml")),
    ("mqsim-default", include_str!("../presets/mqsim-default.toml")),
];

/// Loads a preset by name; the error lists the valid names.
pub fn preset(name: &str) -> Result<Config, ConfigError> {
    match PRESETS.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => parse_config(text, &format!("<preset {n}>")),
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
    fn unknown_preset_suggests() {
        let e = preset("pa-ssd-tcl").unwrap_err();
        assert!(e.message.contains("did you mean 'pa-ssd-tlc'"), "{}", e.message);
    }
}
