//! Version-tagged data (`--verify`): every user write of a logical page carries a version
//! number, stored with the physical page as its out-of-band area would store it. The
//! checker verifies that every logical page resolves, through the mapping table, to a
//! page holding a version at least as new as the last acknowledged one and no newer than
//! the last issued one — after GC moves, erases and at the end of a run.

use super::Ftl;
use crate::flash::{Ppn, NO_PAGE};

/// Marks a logical page whose last acknowledged operation was a trim.
pub(super) const TRIMMED: u32 = 1 << 31;

#[derive(Clone, Debug, Default)]
pub struct Versions {
    /// Per physical page: the version of the data programmed there (OOB).
    pub page_version: Vec<u32>,
    /// Per logical page: last version handed to a write (issued).
    pub issued: Vec<u32>,
    /// Per logical page: last version whose write completed (acknowledged), or TRIMMED.
    pub acknowledged: Vec<u32>,
}

impl Ftl {
    /// Turns on version tagging (4 bytes per physical page, 8 per logical page).
    pub fn track_versions(&mut self) {
        if self.versions.is_none() {
            self.versions = Some(Versions {
                page_version: vec![0; self.addr.pages() as usize],
                issued: vec![0; self.map.len()],
                acknowledged: vec![0; self.map.len()],
            });
        }
    }

    /// A user write of `lpn` is being programmed into `ppn`: the next version goes there.
    /// Returns the version (0 when versions are off).
    pub fn tag_write(&mut self, lpn: u32, ppn: Ppn) -> u32 {
        let Some(v) = self.versions.as_mut() else { return 0 };
        v.issued[lpn as usize] = (v.issued[lpn as usize] & !TRIMMED) + 1;
        let version = v.issued[lpn as usize];
        v.page_version[ppn as usize] = version;
        version
    }

    /// The write of `version` of `lpn` completed (was acknowledged to the host). A write
    /// issued before a later trim stays trimmed; completions may arrive out of order.
    pub fn acknowledge(&mut self, lpn: u32, version: u32) {
        if let Some(v) = self.versions.as_mut() {
            let acked = &mut v.acknowledged[lpn as usize];
            if version > (*acked & !TRIMMED) {
                *acked = version;
            }
        }
    }

    /// A trim of `lpn` completed: every version issued so far is discarded.
    pub fn acknowledge_trim(&mut self, lpn: u32) {
        if let Some(v) = self.versions.as_mut() {
            let issued = v.issued[lpn as usize] & !TRIMMED;
            v.issued[lpn as usize] = issued | TRIMMED;
            v.acknowledged[lpn as usize] = issued | TRIMMED;
        }
    }

    /// The version stored with a physical page (0 when versions are off).
    pub fn page_version(&self, ppn: Ppn) -> u32 {
        self.versions.as_ref().map_or(0, |v| v.page_version[ppn as usize])
    }

    /// GC copied `from` to `to`: the OOB version travels with the data.
    pub(super) fn copy_version(&mut self, from: Ppn, to: Ppn) {
        if let Some(v) = self.versions.as_mut() {
            v.page_version[to as usize] = v.page_version[from as usize];
        }
    }

    /// Checks every logical page; the error names the page, the expected and found
    /// versions, and `context` (the event that preceded the check).
    pub fn verify_data(&self, context: &str) -> Result<(), String> {
        let Some(v) = self.versions.as_ref() else { return Ok(()) };
        for (lpn, &ppn) in self.map.iter().enumerate() {
            let acked = v.acknowledged[lpn];
            let issued = v.issued[lpn] & !TRIMMED;
            if ppn == NO_PAGE {
                if acked != 0 && acked & TRIMMED == 0 {
                    return Err(format!(
                        "logical page {lpn}: expected version {acked} (acknowledged), found no mapping ({context})"
                    ));
                }
                continue;
            }
            let found = v.page_version[ppn as usize];
            let expected = acked & !TRIMMED;
            if acked & TRIMMED == 0 && (found < expected || found > issued) {
                return Err(format!(
                    "logical page {lpn}: expected version {expected}..={issued} (acknowledged..issued), found version \
                     {found} at physical page {ppn} ({context})"
                ));
            }
        }
        Ok(())
    }
}
