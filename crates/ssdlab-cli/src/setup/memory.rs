//! How much memory a run will take (its largest tables), what the machine has, and
//! `--max-memory`: a run that would not fit is refused before it starts.

use super::*;

/// Memory a run will need, estimated from the geometry before anything is allocated:
/// per physical page the map, reverse map and per-page state (about 9 bytes, measured;
/// about 28 with `--check` / `--verify`, which keep program sequence numbers and data
/// versions), plus 64 MiB for everything else.
///
/// With the sparse page table kept through preconditioning (`ftl/sparse.rs`: large drives
/// without steady state) the map and reverse map cost per block and per page the run
/// touches, not per page: the estimate is then per block (about 100 bytes) plus half a
/// byte per page (the run's overrides; measured 0.3 on `bench large-device-plain`), 5/8
/// of a byte per page more for the default fill's rewrites (4 bytes each; 0.56 a page on
/// `bench large-device`), and the per-page state of `--check` / `--verify` (20 bytes)
/// where asked.
pub fn estimate_memory_bytes(config: &Config, checks: bool) -> u64 {
    let pages = u64::try_from(config.geometry.physical_pages()).unwrap_or(u64::MAX);
    if ssdlab_core::ftl::sparse::expected(config) == Some(true) {
        let blocks = pages / config.geometry.pages_per_block.max(1) as u64;
        let per_page = if checks { 20 } else { 0 };
        let pc = &config.precondition;
        let rewrites = if pc.fill_invalid_to_gc_threshold && pc.used_fraction > 0.0 { pages / 8 * 5 } else { 0 };
        return blocks
            .saturating_mul(100)
            .saturating_add(pages / 2)
            .saturating_add(rewrites)
            .saturating_add(pages.saturating_mul(per_page))
            .saturating_add(64 << 20);
    }
    let per_page = if checks { 28 } else { 9 };
    pages.saturating_mul(per_page).saturating_add(64 << 20)
}

/// Memory the machine can give a new process (`MemAvailable`), if known.
fn available_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = text.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?.trim().trim_end_matches("kB").trim();
    kb.parse::<u64>().ok().map(|k| k * 1024)
}

/// Parses `--max-memory`: bytes with an optional K/M/G/T suffix (binary), or `none`.
pub fn parse_memory(text: &str) -> Result<Option<u64>> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("unlimited") {
        return Ok(None);
    }
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_end_matches("ib").trim_end_matches('b');
    let (digits, shift) = match body.chars().last() {
        Some('k') => (&body[..body.len() - 1], 10),
        Some('m') => (&body[..body.len() - 1], 20),
        Some('g') => (&body[..body.len() - 1], 30),
        Some('t') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    let value: f64 = digits
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0)
        .ok_or_else(|| anyhow!("--max-memory '{text}': expected a size such as 16G, 512M or 'none'"))?;
    Ok(Some((value * (1u64 << shift) as f64) as u64))
}

/// Refuses a run whose estimated memory exceeds `--max-memory` (default: the memory the
/// machine has available), before the drive's tables are allocated.
pub fn check_memory(config: &Config, checks: bool, max_memory: Option<&str>) -> Result<()> {
    let estimate = estimate_memory_bytes(config, checks);
    let (limit, what) = match max_memory {
        Some(text) => match parse_memory(text)? {
            Some(limit) => (limit, format!("--max-memory {text}")),
            None => return Ok(()),
        },
        None => match available_memory_bytes() {
            Some(limit) => (limit, "the memory this machine has available (MemAvailable)".to_string()),
            None => return Ok(()),
        },
    };
    if estimate > limit {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let g = &config.geometry;
        bail!(
            "this device needs about {:.1} GiB of memory ({} x {} x {} x {} planes x {} blocks x {} pages, about {} \
             bytes per page{}) but {what} is {:.1} GiB; use a smaller geometry (e.g. geometry.blocks_per_plane), or \
             --max-memory SIZE / none to run anyway",
            gib(estimate),
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
            if checks { 28 } else { 9 },
            if checks { " with --check / --verify" } else { "" },
            gib(limit)
        );
    }
    Ok(())
}
