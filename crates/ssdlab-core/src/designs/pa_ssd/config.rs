//! PA-SSD's config section `[pa]`: the page-type specifying scheme(s).

use serde::{Deserialize, Serialize};

/// One PA-SSD page-type specifying scheme (PA §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaScheme {
    Us,
    Hgs,
    Lfs,
    Sbs,
    Qds,
    Wbs,
    Ubs,
}

impl PaScheme {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "us" => PaScheme::Us,
            "hgs" => PaScheme::Hgs,
            "lfs" => PaScheme::Lfs,
            "sbs" => PaScheme::Sbs,
            "qds" => PaScheme::Qds,
            "wbs" => PaScheme::Wbs,
            "ubs" => PaScheme::Ubs,
            _ => return None,
        })
    }

    /// Schemes that decide every request (usable as a complement).
    fn is_total(self) -> bool {
        matches!(self, PaScheme::Us | PaScheme::Lfs | PaScheme::Ubs)
    }
}

/// PA-SSD (seed 000): page-type aware allocation under relaxed program constraints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaConfig {
    /// "none" (conventional type-blind allocation, strict order) or a scheme, optionally
    /// with its complement: "us", "hgs", "lfs", "sbs", "qds", "wbs", "ubs", "sbs+us",
    /// "qds+ubs", … Partial schemes (hgs, sbs, qds, wbs) default to "+us".
    pub scheme: String,
    /// QDS: requests in the device queue above which writes get LSB pages (PA: 10).
    pub qds_threshold: u64,
    /// SBS: requests of at most this many page-sized sub-requests get LSB pages.
    pub sbs_max_pages: u32,
    /// WBS: the DRAM write buffer, in pages; it is full when this many written pages
    /// wait to be programmed.
    pub write_buffer_pages: u64,
}

impl Default for PaConfig {
    fn default() -> Self {
        PaConfig { scheme: "none".into(), qds_threshold: 10, sbs_max_pages: 1, write_buffer_pages: 256 }
    }
}

impl PaConfig {
    pub fn enabled(&self) -> bool {
        self.scheme != "none"
    }

    /// (primary, complement). Call only on a validated config.
    pub fn schemes(&self) -> (PaScheme, PaScheme) {
        self.parse().unwrap_or((PaScheme::Us, PaScheme::Us))
    }

    pub(crate) fn parse(&self) -> Result<(PaScheme, PaScheme), String> {
        let mut parts = self.scheme.split('+').map(str::trim);
        let first = parts.next().unwrap_or("");
        let primary = PaScheme::parse(first).ok_or_else(|| format!("unknown scheme '{first}'"))?;
        let complement = match parts.next() {
            Some(name) => PaScheme::parse(name).ok_or_else(|| format!("unknown scheme '{name}'"))?,
            None => PaScheme::Us,
        };
        if parts.next().is_some() {
            return Err("at most two schemes: primary+complement".into());
        }
        if !complement.is_total() {
            return Err("the complement must decide every request: us, lfs or ubs".into());
        }
        Ok((primary, complement))
    }
}
