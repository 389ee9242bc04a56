//! What the `config` fuzz target does with one input: the AFL binary calls [`config`],
//! and `crates/ssdlab-cli/tests/fuzz_config_corpus.rs` includes this file to replay the
//! committed corpus through the same code in `cargo test`.
//!
//! The input is a TOML configuration, optionally followed by a NUL byte and `--set`
//! overrides, one `key.path=value` per line. Errors are fine: only a panic (including a
//! failed check below) or a hang is a finding.

use ssdlab_core::config::{apply_overrides, key_line, parse_config, Config};
use ssdlab_trace::SyntheticSource;

/// Requests generated at most from a configuration's built-in synthetic workload.
pub const MAX_WORKLOAD_RECORDS: usize = 256;

/// Runs the config loader as `ssdlab` does: parse (the default config when that fails),
/// apply the overrides, validate, and for a valid config compute its capacities and start
/// its synthetic workload.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (toml_text, sets) = match text.split_once('\0') {
        Some((toml_text, sets)) => (toml_text, Some(sets)),
        None => (&*text, None),
    };
    let base = match parse_config(toml_text, "fuzz.toml") {
        Ok(config) => config,
        Err(e) => {
            let _ = e.to_string();
            Config::default()
        }
    };
    check(&base, toml_text);
    let overrides: Vec<String> = sets.map_or_else(Vec::new, |s| s.lines().map(str::to_string).collect());
    match apply_overrides(&base, &overrides) {
        Ok(config) => check(&config, toml_text),
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

fn check(config: &Config, text: &str) {
    match config.validate() {
        Err(errors) => {
            assert!(!errors.is_empty(), "validate() failed without naming a problem");
            for e in errors {
                let _ = (e.to_string(), key_line(text, &e.key));
            }
        }
        Ok(()) => {
            let logical = config.logical_bytes();
            assert!(config.physical_bytes() >= logical, "logical capacity above the physical one");
            let _ = (config.logical_pages(), config.bits_per_cell(), config.pa.enabled());
            if let Some(spec) = &config.workload {
                if let Ok(src) = SyntheticSource::new(spec.resolve_address_space(logical)) {
                    for item in src.take(MAX_WORKLOAD_RECORDS) {
                        let r = item.expect("a synthetic workload yields records only");
                        assert!(r.size_bytes > 0, "zero-size request {r:?}");
                    }
                }
            }
        }
    }
}
