//! Version-tagged data (`--verify`): every user write of a logical page carries a version
//! number, stored with the physical page as its out-of-band area would store it. The
//! checker verifies that every logical page resolves, through the mapping table, to a
//! page holding a version at least as new as the last acknowledged one and no newer than
//! the last issued one — after GC moves, erases and at the end of a run. Versions are
//! kept per mapping unit (`mapping.rs`): a write of some subpages of a logical page
//! versions only those, and each half of an interleaved page is checked where it lies.

use super::Ftl;
use crate::flash::{Ppn, NO_PAGE};

/// Marks a logical page whose last acknowledged operation was a trim.
pub(super) const TRIMMED: u32 = 1 << 31;

#[derive(Clone, Debug, Default)]
pub struct Versions {
    /// Per physical unit: the version of the data programmed there (OOB).
    pub page_version: Vec<u32>,
    /// Per logical unit: last version handed to a write (issued).
    pub issued: Vec<u32>,
    /// Per logical unit: last version whose write completed (acknowledged), or TRIMMED.
    pub acknowledged: Vec<u32>,
    /// Acknowledged writes a power loss destroyed (PLP found no page for them), as
    /// (logical page, first unit, units): the report counts them, and once the map is
    /// rebuilt what flash holds of them is what the host will read.
    pub lost: Vec<(u32, u32, u32)>,
}

impl Ftl {
    /// Turns on version tagging (4 bytes per physical unit, 8 per logical unit).
    pub fn track_versions(&mut self) {
        if self.versions.is_none() {
            self.versions = Some(Versions {
                page_version: vec![0; self.rev_len()],
                issued: vec![0; self.map_len()],
                acknowledged: vec![0; self.map_len()],
                lost: Vec::new(),
            });
        }
    }

    /// A user write of units `first..first + count` of `lpn` is issued: the next version,
    /// one above the newest any of them has had, is theirs (`commit_units` then stores it
    /// with the data). Returns it (0 when versions are off).
    pub fn issue_version(&mut self, lpn: u32, first: u32, count: u32) -> u32 {
        let shift = self.unit_shift;
        let Some(v) = self.versions.as_mut() else { return 0 };
        let units = ((lpn << shift) + first) as usize..((lpn << shift) + first + count) as usize;
        let version = v.issued[units.clone()].iter().map(|&i| i & !TRIMMED).max().unwrap_or(0) + 1;
        v.issued[units].fill(version);
        version
    }

    /// A partial program of `lpn` into the page `ppn` already holding it (page map): the
    /// next version goes there. Returns the version (0 when versions are off).
    pub fn tag_write(&mut self, lpn: u32, ppn: Ppn) -> u32 {
        let version = self.issue_version(lpn, 0, self.units_per_page());
        if let Some(v) = self.versions.as_mut() {
            let first = (ppn << self.unit_shift) as usize;
            v.page_version[first..first + (1 << self.unit_shift)].fill(version);
        }
        version
    }

    /// The write of `version` of units `first..first + count` of `lpn` completed (was
    /// acknowledged to the host). A write issued before a later trim stays trimmed;
    /// completions may arrive out of order.
    pub fn acknowledge(&mut self, lpn: u32, first: u32, count: u32, version: u32) {
        let shift = self.unit_shift;
        if let Some(v) = self.versions.as_mut() {
            for lu in (lpn << shift) + first..(lpn << shift) + first + count {
                let acked = &mut v.acknowledged[lu as usize];
                if version > (*acked & !TRIMMED) {
                    *acked = version;
                }
            }
        }
    }

    /// A trim of `lpn` completed: every version issued so far is discarded.
    pub fn acknowledge_trim(&mut self, lpn: u32) {
        let shift = self.unit_shift;
        if let Some(v) = self.versions.as_mut() {
            for lu in (lpn << shift) as usize..((lpn + 1) << shift) as usize {
                let issued = v.issued[lu] & !TRIMMED;
                v.issued[lu] = issued | TRIMMED;
                v.acknowledged[lu] = issued | TRIMMED;
            }
        }
    }

    /// The version stored in the first slot of a physical page (0 when versions are off).
    pub fn page_version(&self, ppn: Ppn) -> u32 {
        self.versions.as_ref().map_or(0, |v| v.page_version[(ppn << self.unit_shift) as usize])
    }

    /// An acknowledged write of units `first..first + count` of `lpn` was lost at a power
    /// loss (counted in the report as a flush failure).
    pub fn note_lost(&mut self, lpn: u32, first: u32, count: u32) {
        if let Some(v) = self.versions.as_mut() {
            v.lost.push((lpn, first, count));
        }
    }

    /// After recovery: the host reads what flash holds of the lost writes' units.
    pub fn settle_lost(&mut self) {
        let shift = self.unit_shift;
        let Some(mut v) = self.versions.take() else { return };
        for (lpn, first, count) in std::mem::take(&mut v.lost) {
            for lu in (lpn << shift) + first..(lpn << shift) + first + count {
                let pu = self.map_at(lu);
                v.acknowledged[lu as usize] = if pu == NO_PAGE { 0 } else { v.page_version[pu as usize] };
            }
        }
        self.versions = Some(v);
    }

    /// The version last acknowledged for unit `unit` of `lpn` (0 when versions are off,
    /// never written, or trimmed).
    pub fn acknowledged_version(&self, lpn: u32, unit: u32) -> u32 {
        let Some(v) = self.versions.as_ref() else { return 0 };
        let acked = v.acknowledged[((lpn << self.unit_shift) + unit) as usize];
        if acked & TRIMMED != 0 {
            0
        } else {
            acked
        }
    }

    /// The version of unit `unit` of `lpn` stored in physical page `ppn` (its OOB), if
    /// the page still holds that unit (with a page map: the page's).
    pub fn version_in_page(&self, ppn: Ppn, lpn: u32, unit: u32) -> Option<u32> {
        let v = self.versions.as_ref()?;
        let first = ppn << self.unit_shift;
        if self.unit_shift == 0 {
            return (self.rev_at(first) == lpn).then(|| v.page_version[first as usize]);
        }
        let lu = (lpn << self.unit_shift) + unit;
        (first..first + self.units_per_page()).find(|&pu| self.rev_at(pu) == lu).map(|pu| v.page_version[pu as usize])
    }

    /// Checks every logical page; the error names the page, the expected and found
    /// versions, and `context` (the event that preceded the check). The logical pages in
    /// `in_dram` (sorted) keep their newest acknowledged data in controller DRAM, not yet
    /// on flash: they are not checked.
    pub fn verify_data(&self, context: &str, in_dram: &[u32]) -> Result<(), String> {
        let Some(v) = self.versions.as_ref() else { return Ok(()) };
        let shift = self.unit_shift;
        let name = |lu: usize| {
            if shift == 0 {
                format!("logical page {lu}")
            } else {
                format!("logical page {} unit {}", lu >> shift, lu & ((1 << shift) - 1))
            }
        };
        let mut skip = in_dram.iter().peekable();
        for lu in 0..self.map_len() {
            let pu = self.map_at(lu as u32);
            let lpn = (lu >> shift) as u32;
            while skip.next_if(|&&s| s < lpn).is_some() {}
            if skip.peek() == Some(&&lpn) {
                continue;
            }
            let acked = v.acknowledged[lu];
            let issued = v.issued[lu] & !TRIMMED;
            if pu == NO_PAGE {
                if acked != 0 && acked & TRIMMED == 0 {
                    return Err(format!(
                        "{}: expected version {acked} (acknowledged), found no mapping ({context})",
                        name(lu)
                    ));
                }
                continue;
            }
            let found = v.page_version[pu as usize];
            let expected = acked & !TRIMMED;
            if acked & TRIMMED == 0 && (found < expected || found > issued) {
                return Err(format!(
                    "{}: expected version {expected}..={issued} (acknowledged..issued), found version {found} at \
                     physical page {} ({context})",
                    name(lu),
                    pu >> shift
                ));
            }
        }
        Ok(())
    }
}
