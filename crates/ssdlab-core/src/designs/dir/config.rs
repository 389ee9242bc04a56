//! DIR's config section `[dir]`: the scheme switch among DIR and its three baselines.

use serde::{Deserialize, Serialize};

/// DIR (seed 002) and the schemes it is compared with (DIR §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirScheme {
    /// No switch: `flash.multi_plane`, `flash.multi_plane_any_address` and `ftl.mapping`
    /// apply as set.
    Off,
    /// NOAC: no multi-plane commands, page map.
    Noac,
    /// AC: conventional multi-plane commands (same block and page address), page map.
    Ac,
    /// Interleaving (DIR's conference version): on AC, any two successive write
    /// sub-requests that form a multi-plane program are interleaved over its two pages
    /// (half-page map); no regions, no page types chosen, no enhanced command.
    Interleaving,
    /// DIR: adjacent logical pages of one write grouped in pairs, interleaved over two
    /// pages of different types in two planes of one die (relaxed program order),
    /// programmed and read by enhanced multi-plane commands; the rest written alone,
    /// LSB/CSB pages first.
    Dir,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DirConfig {
    pub scheme: DirScheme,
    /// DIR: page-type pairs a group's two pages may take, in order of preference (page
    /// types, LSB = 0). Empty (the default): every pair of two different types, the
    /// widest apart first (TLC: LSB/MSB, LSB/CSB, CSB/MSB, the three DIR §3 names; the
    /// order is ours: the pair that evens out the RBER most first).
    pub type_pairs: Vec<(u8, u8)>,
    /// DIR: group adjacent pages of a write in interleaved pairs. `false` keeps the rest
    /// of DIR (enhanced multi-plane commands, free pages LSB/CSB first under relaxed
    /// order) without interleaving: the ablation that tells the two apart.
    pub group_pairs: bool,
    /// DIR: the page type a free (ungrouped) sub-request asks for first (DIR §3.1 "we
    /// first assign LSB or CSB pages"); the others follow in PA's exception order.
    pub free_page_type: u8,
}

impl Default for DirConfig {
    fn default() -> Self {
        DirConfig { scheme: DirScheme::Off, type_pairs: Vec::new(), group_pairs: true, free_page_type: 0 }
    }
}

impl DirConfig {
    /// The type pairs in force for a cell of `bits` page types.
    pub fn pairs(&self, bits: usize) -> Vec<(u8, u8)> {
        if !self.type_pairs.is_empty() {
            return self.type_pairs.clone();
        }
        let mut pairs: Vec<(u8, u8)> = (0..bits as u8).flat_map(|x| (x + 1..bits as u8).map(move |y| (x, y))).collect();
        pairs.sort_by_key(|&(x, y)| (std::cmp::Reverse(y - x), x));
        pairs
    }

    pub fn validate(&self, bits: usize, errors: &mut Vec<(String, String)>) {
        if self.scheme == DirScheme::Off {
            return;
        }
        for &(a, b) in &self.type_pairs {
            if a as usize >= bits || b as usize >= bits || a == b {
                errors.push((
                    "dir.type_pairs".into(),
                    format!("[{a}, {b}]: two different page types below {bits} (the cell's page types)"),
                ));
            }
        }
        if self.free_page_type as usize >= bits {
            errors.push(("dir.free_page_type".into(), format!("must be a page type below {bits}")));
        }
    }
}
