//! The scrubbing design's config section `[scrub]` (thesis §6.2): how old copies of
//! overwritten data are destroyed, the per-block scrub budget, and an optional sanitise
//! command issued by the host.

use crate::config::{err, Config, ConfigError};
use serde::{Deserialize, Serialize};

/// When the FTL destroys the copy a write (or trim) leaves behind (thesis §6.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScrubMode {
    /// No scrubbing: the conventional FTL. A sanitise command is then a trim.
    Off,
    /// A write (or trim) completes only once the copy it superseded is scrubbed (or its
    /// block relocated and erased, over the budget).
    Immediate,
    /// Writes complete as usual; the old copies are scrubbed when their die has nothing
    /// else to do (or first, once `background_backlog_pages` wait at a die).
    Background,
    /// Writes leave their old copies; only sanitise commands destroy copies, found by a
    /// scan of every block's summary (scan-based scrubbing).
    Scan,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScrubConfig {
    pub mode: ScrubMode,
    /// Scrubs a block tolerates between two erases (thesis Fig. 6.4: the scrub budget;
    /// each page programmed to zeros counts one, so scrubbing an MLC page and the page
    /// sharing its cells counts two). Over it the block's valid pages are relocated and
    /// the block erased instead. 0: erase only; the block's pages or more (the default,
    /// u32::MAX): no limit, as SLC flash allows (every page can be zeroed once).
    pub budget_pages: u32,
    /// Scrub the pages sharing a target's cells with it, relocating a valid one first
    /// (thesis §6.2.1: scrubbing an MLC page "invariably caused severe corruption in
    /// exactly one other page"). `false` scrubs the target alone, as if it shared no cells
    /// (an ablation: what the pairs cost).
    pub shared_cells: bool,
    /// Background mode: stale pages waiting at a die beyond which its scrubs go ahead of
    /// user work (the window in which old data stays readable is bounded).
    pub background_backlog_pages: u32,
    /// A sanitise command of `sanitize_bytes` bytes (0 = none) from byte
    /// `sanitize_offset_bytes`, issued at `sanitize_at_ns` (0 = once the workload has
    /// completed: thesis §6.2.3 "ran each trace to completion and then issued a scrub
    /// command").
    pub sanitize_offset_bytes: u64,
    pub sanitize_bytes: u64,
    pub sanitize_at_ns: u64,
}

impl Default for ScrubConfig {
    fn default() -> Self {
        ScrubConfig {
            mode: ScrubMode::Off,
            budget_pages: u32::MAX,
            shared_cells: true,
            background_backlog_pages: 1024,
            sanitize_offset_bytes: 0,
            sanitize_bytes: 0,
            sanitize_at_ns: 0,
        }
    }
}

impl ScrubConfig {
    pub fn enabled(&self) -> bool {
        self.mode != ScrubMode::Off
    }

    /// The scrub budget of a block of `pages_per_block` pages.
    pub fn budget(&self, pages_per_block: u32) -> u32 {
        self.budget_pages.min(pages_per_block)
    }

    /// Checks the section against the rest of the config.
    pub(crate) fn validate(&self, config: &Config, errors: &mut Vec<ConfigError>) {
        if self.sanitize_bytes > 0 {
            if !config.flows.is_empty() {
                errors.push(err(
                    "scrub.sanitize_bytes",
                    "a sanitise command is the single workload's: not with [[flows]]",
                ));
            }
            if errors.is_empty() {
                let logical = config.logical_bytes();
                if self.sanitize_offset_bytes.saturating_add(self.sanitize_bytes) > logical {
                    errors.push(err(
                        "scrub.sanitize_bytes",
                        format!(
                            "the range {}..{} ends beyond the logical capacity of {logical} bytes",
                            self.sanitize_offset_bytes,
                            self.sanitize_offset_bytes.saturating_add(self.sanitize_bytes)
                        ),
                    ));
                }
            }
        }
        // (What scrubbing is not modelled with: its `NEEDS` and `CLAIMS`, checked with
        // every design's by `designs::validate`.)
    }
}
