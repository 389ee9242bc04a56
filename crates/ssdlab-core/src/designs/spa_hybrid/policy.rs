//! SLC/TLC hybrid page allocation (SPA-SSD, seed 001, §II-B2 and §IV-A): for one user
//! page write, which plane and which mode (SLC-mode or normal TLC blocks). The engine
//! describes each plane as a `PlaneView`; the decisions here are pure so that they can
//! be checked on hand-built plane states.

pub use crate::ftl::WriteMode;

/// What the allocator sees of one plane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlaneView {
    /// User write transactions allocated to the plane and not yet programmed (queued,
    /// waiting for a page set, or programming): SPA's "outstanding write transactions".
    pub outstanding_writes: u32,
    /// SLC-mode pages left once the SLC writes already queued for it are served.
    pub slc_available: bool,
    /// Can take a write into normal blocks.
    pub tlc_available: bool,
    /// TLC writes wait in DRAM for a page set that is not complete yet.
    pub incomplete_set: bool,
    /// Busy migrating SLC data (QPC-DM keeps such planes away from user writes).
    pub migrating: bool,
}

/// The constants of TPJ-PA's latency comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpjParams {
    /// SLC page program latency (T_SLC).
    pub slc_program_ns: u64,
    /// TLC (one-shot page set) program latency (T_TLC).
    pub tlc_program_ns: u64,
    /// Pages in a TLC page set (the paper's constant 3).
    pub page_set: u32,
    /// One-shot flash: step 1 (fill incomplete page sets first) applies.
    pub one_shot: bool,
}

/// TPJ-PA, SPA Algorithm 1. `start` rotates the scan so that ties spread over the planes.
/// `None` when no plane can take the write.
pub fn tpj_choose(planes: &[PlaneView], start: usize, params: &TpjParams) -> Option<(u32, WriteMode)> {
    let n = planes.len();
    // 1. A plane with an incomplete TLC page set: fill it before its program delay runs out.
    if params.one_shot {
        for k in 0..n {
            let p = (start + k) % n;
            let v = &planes[p];
            if v.incomplete_set && v.tlc_available && !v.migrating {
                return Some((p as u32, WriteMode::Tlc));
            }
        }
    }
    // 2. P_S: SLC pages and the fewest outstanding writes; P_T: no SLC pages, the fewest.
    let mut ps: Option<usize> = None;
    let mut pt: Option<usize> = None;
    for k in 0..n {
        let p = (start + k) % n;
        let v = &planes[p];
        if v.migrating {
            continue;
        }
        if v.slc_available {
            if ps.is_none_or(|b| v.outstanding_writes < planes[b].outstanding_writes) {
                ps = Some(p);
            }
        } else if v.tlc_available && pt.is_none_or(|b| v.outstanding_writes < planes[b].outstanding_writes) {
            pt = Some(p);
        }
    }
    match (ps, pt) {
        (Some(s), Some(t)) => {
            // P_T when N_PS · T_SLC > (3 + N_PT) / 3 · T_TLC, in integers (× 3).
            let lhs = planes[s].outstanding_writes as u128 * params.slc_program_ns as u128 * params.page_set as u128;
            let rhs = (params.page_set + planes[t].outstanding_writes) as u128 * params.tlc_program_ns as u128;
            if lhs > rhs {
                Some((t as u32, WriteMode::Tlc))
            } else {
                Some((s as u32, WriteMode::Slc))
            }
        }
        (Some(s), None) => Some((s as u32, WriteMode::Slc)),
        (None, Some(t)) => Some((t as u32, WriteMode::Tlc)),
        (None, None) => None,
    }
}

/// TW-PA (TurboWrite): the next plane after `start` with SLC pages, round robin (as
/// HybridSim's TYPE_FIRST); `None` when no plane has any.
pub fn tw_choose(planes: &[PlaneView], start: usize) -> Option<u32> {
    let n = planes.len();
    (0..n).map(|k| (start + k) % n).find(|&p| planes[p].slc_available && !planes[p].migrating).map(|p| p as u32)
}

/// The plane with the fewest outstanding writes that can take a TLC write, from `start`.
pub fn least_loaded_tlc(planes: &[PlaneView], start: usize) -> Option<u32> {
    let n = planes.len();
    let mut best: Option<usize> = None;
    for k in 0..n {
        let p = (start + k) % n;
        let v = &planes[p];
        if v.tlc_available && !v.migrating && best.is_none_or(|b| v.outstanding_writes < planes[b].outstanding_writes) {
            best = Some(p);
        }
    }
    best.map(|p| p as u32)
}

/// QPC-DM (SPA §IV-B.1): planes allowed to migrate at once, max(p − l/3 − σ, 0), with
/// l outstanding write transactions and `page_set` = 3 for TLC.
pub fn qpc_migration_planes(planes: u32, outstanding_writes: u64, page_set: u32, sigma: u32) -> u32 {
    let needed = outstanding_writes / page_set.max(1) as u64 + sigma as u64;
    (planes as u64).saturating_sub(needed) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: TpjParams = TpjParams { slc_program_ns: 500_000, tlc_program_ns: 5_500_000, page_set: 3, one_shot: true };

    fn slc(n: u32) -> PlaneView {
        PlaneView { outstanding_writes: n, slc_available: true, tlc_available: true, ..Default::default() }
    }
    fn tlc(n: u32) -> PlaneView {
        PlaneView { outstanding_writes: n, slc_available: false, tlc_available: true, ..Default::default() }
    }

    #[test]
    fn an_incomplete_page_set_comes_first() {
        let mut planes = vec![slc(0), tlc(0), tlc(5)];
        planes[2].incomplete_set = true;
        assert_eq!(tpj_choose(&planes, 0, &P), Some((2, WriteMode::Tlc)));
        // ... but not on a migrating plane.
        planes[2].migrating = true;
        assert_eq!(tpj_choose(&planes, 0, &P), Some((0, WriteMode::Slc)));
    }

    #[test]
    fn slc_plane_while_its_queue_is_short_enough() {
        // N_PS · 500 > (3 + N_PT)/3 · 5500; with N_PT = 0: N_PS > 11 (11 is equal: SLC).
        let planes = vec![slc(11), tlc(0)];
        assert_eq!(tpj_choose(&planes, 0, &P), Some((0, WriteMode::Slc)));
        let planes = vec![slc(12), tlc(0)];
        assert_eq!(tpj_choose(&planes, 0, &P), Some((1, WriteMode::Tlc)));
        // With N_PT = 3 the TLC side costs twice as much: 22 is still SLC, 23 is TLC.
        let planes = vec![slc(22), tlc(3)];
        assert_eq!(tpj_choose(&planes, 0, &P), Some((0, WriteMode::Slc)));
        let planes = vec![slc(23), tlc(3)];
        assert_eq!(tpj_choose(&planes, 0, &P), Some((1, WriteMode::Tlc)));
    }

    #[test]
    fn candidates_are_the_least_loaded_of_each_kind() {
        let planes = vec![slc(30), slc(2), tlc(9), tlc(1)];
        assert_eq!(tpj_choose(&planes, 0, &P), Some((1, WriteMode::Slc)));
        let planes = vec![slc(30), slc(20), tlc(9), tlc(1)];
        // P_S = plane 1 (20 · 500 = 10000 > (3+1)/3 · 5500 = 7333): P_T = plane 3.
        assert_eq!(tpj_choose(&planes, 0, &P), Some((3, WriteMode::Tlc)));
    }

    #[test]
    fn without_slc_anywhere_the_least_loaded_tlc_plane() {
        let planes = vec![tlc(4), tlc(2), tlc(2)];
        assert_eq!(tpj_choose(&planes, 0, &P), Some((1, WriteMode::Tlc)));
        // Ties rotate with the start.
        assert_eq!(tpj_choose(&planes, 2, &P), Some((2, WriteMode::Tlc)));
        let full = vec![PlaneView::default(); 3];
        assert_eq!(tpj_choose(&full, 0, &P), None);
    }

    #[test]
    fn turbowrite_round_robins_over_slc_planes() {
        let planes = vec![tlc(0), slc(9), tlc(0), slc(0)];
        assert_eq!(tw_choose(&planes, 0), Some(1));
        assert_eq!(tw_choose(&planes, 2), Some(3));
        assert_eq!(tw_choose(&[tlc(0)], 0), None);
    }

    #[test]
    fn qpc_keeps_l_over_3_plus_sigma_planes_for_users() {
        assert_eq!(qpc_migration_planes(128, 0, 3, 5), 123);
        assert_eq!(qpc_migration_planes(128, 128, 3, 5), 128 - 42 - 5);
        assert_eq!(qpc_migration_planes(128, 256, 3, 5), 128 - 85 - 5);
        assert_eq!(qpc_migration_planes(4, 9, 3, 0), 1); // SPA Fig. 4
        assert_eq!(qpc_migration_planes(16, 1000, 3, 5), 0);
    }
}
