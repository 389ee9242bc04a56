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

/// A preset's TOML text as shipped (`ssdlab presets --show NAME`), a file `--config`
/// takes; an unknown name is an error listing the known ones. A variant (`extends =
/// "base"`) is shown as its base's text, comments and all, with the variant's values put
/// in and marked, under the variant's own header.
pub fn toml(name: &str) -> Result<String> {
    ssdlab_core::presets::preset(name)?;
    let text = ssdlab_core::presets::PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or("");
    let variant: toml_edit::DocumentMut = text.parse()?;
    let Some(base) = variant.get("extends").and_then(|b| b.as_str()) else { return Ok(text.to_string()) };
    let mut doc: toml_edit::DocumentMut = toml(base)?.parse()?;
    let mark = format!(" # {name}");
    for (key, item) in variant.iter().filter(|(k, _)| *k != "extends") {
        match item.as_table() {
            Some(table) => {
                // A section the base does not have becomes a table of its own.
                if !doc.contains_key(key) {
                    doc[key] = toml_edit::Item::Table(toml_edit::Table::new());
                }
                for (k, v) in table.iter() {
                    let mut v = v.clone();
                    if let Some(value) = v.as_value_mut() {
                        value.decor_mut().set_suffix(mark.as_str());
                    }
                    doc[key][k] = v;
                }
            }
            None => doc[key] = item.clone(),
        }
    }
    let header: String = text.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    Ok(format!("{header}# The preset {base} with the values marked \"# {name}\" changed:\n\n{doc}"))
}
