//! The built-in device presets as `ssdlab presets` lists them (and `ssdlab.presets()` in
//! Python).

use anyhow::Result;
use serde::Serialize;

/// One line of `ssdlab presets`.
#[derive(Clone, Debug, Serialize)]
pub struct PresetRow {
    pub name: String,
    /// slc, mlc, tlc or qlc.
    pub cell: String,
    pub raw_gib: f64,
    pub logical_gib: f64,
    pub description: String,
    pub source: String,
}

/// Every preset, in the order `ssdlab presets` lists them.
pub fn rows() -> Result<Vec<PresetRow>> {
    let gib = 1024f64.powi(3);
    ssdlab_core::presets::PRESETS
        .iter()
        .map(|(name, _)| {
            let c = ssdlab_core::presets::preset(name)?;
            Ok(PresetRow {
                name: name.to_string(),
                cell: format!("{:?}", c.flash.cell).to_lowercase(),
                raw_gib: c.physical_bytes() as f64 / gib,
                logical_gib: c.logical_bytes() as f64 / gib,
                description: c.description.clone(),
                source: c.source.clone(),
            })
        })
        .collect()
}

/// A preset's TOML text as shipped (`ssdlab presets --show NAME`); an unknown name is an
/// error listing the known ones.
pub fn toml(name: &str) -> Result<&'static str> {
    ssdlab_core::presets::preset(name)?;
    Ok(ssdlab_core::presets::PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or(""))
}
