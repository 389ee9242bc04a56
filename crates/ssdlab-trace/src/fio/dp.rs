//! fio's data placement keys (fio's HOWTO, "I/O engine specific parameters" of the
//! io_uring_cmd / xnvme engines): `fdp=1` (`dataplacement=fdp` since fio 3.36) tags each
//! write with a placement identifier from `fdp_pli` (`plids`), chosen per write
//! round-robin or at random (`fdp_pli_select`, `plid_select`). `ssdlab_trace::Record` has no
//! placement field: the identifier goes in the record's device column, which an FDP
//! drive reads with `[designs.fdp] pid_from = "device"` (docs/zns-fdp.md, "FDP").
//! fio's identifiers index the device's list of placement handles; with one reclaim
//! group an FDP drive here numbers its handles the same way.

use super::*;

/// How the next write's placement identifier is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PliSelect {
    #[default]
    RoundRobin,
    Random,
}

/// The data placement keys of a job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DpOptions {
    /// `fdp=1` / `dataplacement=fdp`.
    pub enabled: bool,
    /// `fdp_pli` / `plids` (empty: identifier 0 only).
    pub plis: Vec<u32>,
    pub select: PliSelect,
}

pub(super) const DP_KEYS: &[&str] = &["fdp", "fdp_pli", "fdp_pli_select", "dataplacement", "plids", "plid_select"];

impl DpOptions {
    pub(super) fn set(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        let needs = || value.map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| "needs a value".to_string());
        match key {
            "fdp" => self.enabled = parse_bool(value)?,
            "dataplacement" => match needs()? {
                "fdp" => self.enabled = true,
                "none" => self.enabled = false,
                other => return Err(format!("'{other}': only dataplacement=fdp (or none) is modelled")),
            },
            "fdp_pli" | "plids" => {
                self.plis = needs()?
                    .split(',')
                    .map(|s| s.trim().parse::<u32>().map_err(|_| format!("'{s}' is not a placement identifier index")))
                    .collect::<Result<_, _>>()?;
            }
            _ => {
                self.select = match needs()? {
                    "roundrobin" => PliSelect::RoundRobin,
                    "random" => PliSelect::Random,
                    other => return Err(format!("'{other}': roundrobin or random")),
                }
            }
        }
        Ok(())
    }

    /// The placement identifier of the `n`-th write (`draw`: a uniform index, for
    /// `random`).
    pub(super) fn pick(&self, n: u64, draw: impl FnOnce(usize) -> usize) -> u32 {
        match (self.plis.len(), self.select) {
            (0, _) => 0,
            (len, PliSelect::RoundRobin) => self.plis[(n % len as u64) as usize],
            (len, PliSelect::Random) => self.plis[draw(len)],
        }
    }
}
