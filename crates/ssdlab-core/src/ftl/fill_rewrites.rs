//! The default fill (rewrites up to the GC threshold, `precondition.
//! fill_invalid_to_gc_threshold`) on the sparse page table (issue 48 item 3). The fill
//! writes each window's logical pages in a permuted order and, per whole credit of the
//! rewrite rate, rewrites a uniformly drawn earlier page of the window; every program
//! goes to the plane of the page's residue and takes that plane's next page. So where a
//! page ends is the plain rule's place moved by the rewrites to its plane earlier in the
//! window, and a rewrite's place is its rank among the plane's programs of the window.
//! Kept here, per (window, plane), are only the rewrites, in program order, as
//! `iteration << 16 | target` (4 bytes each; about 22 per plane and window, 151 MB, on
//! `bench large-device`): a lookup is a search of those, not a replay of the window.
//!
//! Setup draws every window's stride, offset and rewrites from the fill's stream exactly
//! as the page by page fill does (same order, same credit arithmetic), with a
//! window-sized scratch table of each position's current program to count the pages the
//! rewrites invalidate per block; blocks are then programmed in bulk (`fill_rule.rs`).
//! The first window in which some plane would reach its limit is not placed by rule: the
//! stream and credit go back to its start and the page by page fill takes over there (as
//! after the plain rule), since from there a page's plane depends on the planes' state.

use super::allocation::PlaneAllocator;
use super::precondition::{coprime_stride, PreconditionReport};
use super::sparse::FillRule;
use super::Ftl;
use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// Under `PageTable::Auto`, the most rewrites per (window, plane) expected for the rule
/// to place the fill (`bench large-device`: 21.5; a lookup scans them).
pub const AUTO_MAX_REWRITES_PER_LIST: f64 = 64.0;

/// A rewrite's packed `iteration << 16 | target`: both are positions in a window of at
/// most 2^16 pages.
const POS_MASK: u32 = 0xffff;

/// The rewrites of the rule's windows, per (window, plane), in program order.
pub struct Rewrites {
    plane_shift: u32,
    windows: usize,
    /// At `w·P + p`: where window w's rewrites to plane p begin in `entries`; one more
    /// at the end.
    start: Vec<u32>,
    /// At `p·(W + 1) + w`: plane p's programs before window w (w = W: all of them).
    base: Vec<u32>,
    entries: Vec<u32>,
}

impl Rewrites {
    fn slice(&self, w: usize, plane: u32) -> &[u32] {
        let at = (w << self.plane_shift) + plane as usize;
        &self.entries[self.start[at] as usize..self.start[at + 1] as usize]
    }

    fn base(&self, w: usize, plane: u32) -> u32 {
        self.base[plane as usize * (self.windows + 1) + w]
    }

    /// The plane's new pages at iterations up to `r` of a window where its new pages
    /// come at the iterations ≡ `i0` mod P.
    #[inline]
    fn new_upto(&self, r: u32, i0: u32) -> u32 {
        if r >= i0 {
            ((r - i0) >> self.plane_shift) + 1
        } else {
            0
        }
    }

    /// The index among `plane`'s programs of the last copy of the page at iteration `i`
    /// of window `w`.
    #[inline]
    pub fn program_of(&self, w: usize, plane: u32, i: u32) -> u64 {
        let s = self.slice(w, plane);
        let base = self.base(w, plane) as u64;
        let i0 = i & ((1 << self.plane_shift) - 1);
        // Its last rewrite, if any (later rewrites of a page supersede earlier ones).
        if let Some(m) = s.iter().rposition(|&e| e & POS_MASK == i) {
            return base + m as u64 + self.new_upto(s[m] >> 16, i0) as u64;
        }
        // Its first write: after its plane's earlier new pages and the rewrites drawn
        // before its iteration (a rewrite drawn at iteration i follows i's new page).
        base + (i >> self.plane_shift) as u64 + s.partition_point(|&e| e >> 16 < i) as u64
    }

    /// How many of a (window, plane)'s rewrites `s` come before its program `d`: program
    /// indices of rewrites grow with their rank, so bisect for the first at or after d.
    #[inline]
    fn rewrites_before(&self, s: &[u32], d: u32, i0: u32) -> usize {
        let pos = |m: usize| m as u32 + self.new_upto(s[m] >> 16, i0);
        let (mut lo, mut hi) = (0, s.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if pos(mid) < d {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// What `plane`'s `k`-th program holds: the window and iteration of the page written
    /// there if it is that page's last copy, `None` if a later rewrite superseded it.
    /// `i0(w)`: the iterations ≡ which mod P carry the plane's new pages in window w.
    pub fn holder(&self, plane: u32, k: u64, i0: impl Fn(usize) -> u32) -> Option<(usize, u32)> {
        let row = &self.base[plane as usize * (self.windows + 1)..][..self.windows + 1];
        let w = row.partition_point(|&b| b as u64 <= k) - 1;
        let d = (k - row[w] as u64) as u32;
        let s = self.slice(w, plane);
        let i0 = i0(w);
        let lo = self.rewrites_before(s, d, i0);
        let i = if lo < s.len() && lo as u32 + self.new_upto(s[lo] >> 16, i0) == d {
            let t = s[lo] & POS_MASK;
            (!s[lo + 1..].iter().any(|&e| e & POS_MASK == t)).then_some(t)
        } else {
            let i = ((d - lo as u32) << self.plane_shift) | i0;
            (!s.iter().any(|&e| e & POS_MASK == i)).then_some(i)
        };
        i.map(|i| (w, i))
    }

    /// What `plane`'s programs `k0..k0 + n` hold, in order: `f(k - k0, holder)` with
    /// `holder` as `holder` gives it for program k. One bisection for the first window,
    /// then each window's programs are merged from its new pages and its rewrites (a GC
    /// victim's fill pages, in one pass instead of a search per page).
    pub fn walk(
        &self,
        plane: u32,
        k0: u64,
        n: u32,
        i0: impl Fn(usize) -> u32,
        mut f: impl FnMut(u32, Option<(usize, u32)>),
    ) {
        if n == 0 {
            return;
        }
        let row = &self.base[plane as usize * (self.windows + 1)..][..self.windows + 1];
        let mut w = row.partition_point(|&b| b as u64 <= k0) - 1;
        let end = k0 + n as u64;
        let mut k = k0;
        // The window's rewrites as `target << 32 | rank`, sorted: a copy is superseded
        // when a later rewrite has its target (`live`: the rewrites that are not).
        let mut targets: Vec<u64> = Vec::new();
        let mut live: Vec<bool> = Vec::new();
        let target = |x: u64| (x >> 32) as u32;
        while k < end {
            let s = self.slice(w, plane);
            let first = i0(w);
            let wend = (row[w + 1] as u64).min(end);
            targets.clear();
            targets.extend(s.iter().enumerate().map(|(m, &e)| ((e & POS_MASK) as u64) << 32 | m as u64));
            targets.sort_unstable();
            live.clear();
            live.resize(s.len(), true);
            for pair in targets.windows(2) {
                if target(pair[0]) == target(pair[1]) {
                    live[pair[0] as u32 as usize] = false;
                }
            }
            // Program k comes after `m` rewrites and `j` new pages of the window; then a
            // new page comes before the rewrites drawn at its iteration and after. New
            // pages come in increasing iterations: `t` follows them through `targets`.
            let d = (k - row[w] as u64) as u32;
            let mut m = self.rewrites_before(s, d, first);
            let mut j = d - m as u32;
            let mut t = targets.partition_point(|&x| target(x) < (j << self.plane_shift) | first);
            while k < wend {
                let i_new = (j << self.plane_shift) | first;
                let holder = if m < s.len() && s[m] >> 16 < i_new {
                    m += 1;
                    live[m - 1].then_some(s[m - 1] & POS_MASK)
                } else {
                    j += 1;
                    while t < targets.len() && target(targets[t]) < i_new {
                        t += 1;
                    }
                    (t == targets.len() || target(targets[t]) != i_new).then_some(i_new)
                };
                f((k - k0) as u32, holder.map(|i| (w, i)));
                k += 1;
            }
            w += 1;
        }
    }

    pub fn bytes(&self) -> usize {
        (self.start.capacity() + self.base.capacity() + self.entries.capacity()) * 4
    }
}

/// A plane's place in the fill while a window is drawn.
struct Cursor {
    k: u64,
    end: u64,
    block: u32,
}

impl Cursor {
    /// Takes the plane's next page; returns its block (index in the plane's fill) and
    /// notes the block's close when this is its last data page.
    #[inline]
    fn program(&mut self, plane: u32, data: u64, closes: &mut Vec<(u32, u32)>) -> u32 {
        let block = self.block;
        self.k += 1;
        if self.k == self.end {
            closes.push((plane, block));
            self.block += 1;
            self.end += data;
        }
        block
    }
}

impl Ftl {
    /// Places the fill's first full windows (all below `n_valid`) with their rewrites by
    /// rule, drawing from `rng` and `credit` exactly as the page by page fill would, and
    /// returns how many; 0 when the rule does not apply (`rule_eligible`) or the first
    /// window already meets a plane's limit. `rng` and `credit` are left where the page
    /// by page fill goes on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fill_rewrites_by_rule(
        &mut self,
        planes: &PlaneAllocator,
        plane_of_residue: &[u32],
        window_shift: u32,
        n_valid: u64,
        limit: u32,
        rate: f64,
        rng: &mut Pcg64Mcg,
        credit: &mut f64,
        report: &mut PreconditionReport,
    ) -> u64 {
        if !self.rule_eligible(planes, plane_of_residue, window_shift) {
            return 0;
        }
        let p_count = self.addr.planes();
        let plane_shift = p_count.trailing_zeros();
        let p_mask = p_count as u64 - 1;
        let window = 1u64 << window_shift;
        // A lookup scans its (window, plane)'s rewrites: under `auto`, where those are
        // long (few planes, a high rewrite rate) the dense table is kept instead.
        let per_list = rate * (window >> plane_shift) as f64;
        if self.sparse.as_ref().is_some_and(|s| s.auto) && per_list > AUTO_MAX_REWRITES_PER_LIST {
            return 0;
        }
        let data = (self.layout.pages() - self.summary_pages) as u64;
        // Programs each plane takes before the page by page fill would refuse one: it
        // opens a block while the plane has more than `limit` free blocks (and more than
        // the one allocation keeps back).
        let cap: Vec<u64> =
            (0..p_count).map(|p| (self.free_blocks(p) as u64).saturating_sub(limit.max(1) as u64) * data).collect();
        let max_windows = n_valid >> window_shift;
        // Per plane and block of its fill, the pages rewrites invalidated.
        let mut invalid: Vec<Vec<u32>> = cap.iter().map(|&c| vec![0; (c / data) as usize]).collect();
        let mut next = vec![0u64; p_count as usize];
        let mut closes: Vec<(u32, u32)> = Vec::new();
        let mut draws: Vec<(u64, u64)> = Vec::new();
        let mut start: Vec<u32> = vec![0];
        let mut base_rows: Vec<u32> = Vec::new();
        let expected = rate * (max_windows << window_shift) as f64;
        let mut entries: Vec<u32> = Vec::with_capacity(expected as usize + (expected.sqrt() * 8.0) as usize + 1024);
        // Per position of the window: the block (index in its plane's fill) of its
        // current copy.
        let mut last = vec![0u32; window as usize];
        let mut plane_at = vec![0u32; p_count as usize];
        let (mut w_rewrites, mut w_invalid, mut w_closes) = (Vec::new(), Vec::new(), Vec::new());
        let mut counts = vec![0u32; p_count as usize + 1];
        let mut cursors: Vec<Cursor> = Vec::new();
        let mut sorted: Vec<u32> = Vec::new();
        for _ in 0..max_windows {
            let saved = (rng.clone(), *credit);
            let stride = coprime_stride(window, rng);
            let offset = rng.random_range(0..window);
            for (q, plane) in plane_at.iter_mut().enumerate() {
                *plane = plane_of_residue[((q as u64 * stride + offset) & p_mask) as usize];
            }
            // Per plane: its next program, its current block (by index in the plane's
            // fill) and where that ends (no division per page).
            cursors.clear();
            cursors.extend(next.iter().map(|&k| Cursor { k, end: (k / data + 1) * data, block: (k / data) as u32 }));
            w_rewrites.clear();
            w_invalid.clear();
            w_closes.clear();
            for i in 0..window {
                let p = plane_at[(i & p_mask) as usize];
                last[i as usize] = cursors[p as usize].program(p, data, &mut w_closes);
                *credit += rate;
                while *credit >= 1.0 {
                    *credit -= 1.0;
                    let t = rng.random_range(0..=i);
                    let pt = plane_at[(t & p_mask) as usize];
                    w_invalid.push((pt, last[t as usize]));
                    last[t as usize] = cursors[pt as usize].program(pt, data, &mut w_closes);
                    w_rewrites.push((pt, (i as u32) << 16 | t as u32));
                }
            }
            if cursors.iter().zip(&cap).any(|(c, &cap)| c.k > cap) {
                // A plane meets its limit in this window: from here, page by page.
                (*rng, *credit) = saved;
                break;
            }
            base_rows.extend(next.iter().map(|&n| n as u32));
            for (n, c) in next.iter_mut().zip(&cursors) {
                *n = c.k;
            }
            for &(p, b) in &w_invalid {
                invalid[p as usize][b as usize] += 1;
            }
            closes.extend_from_slice(&w_closes);
            // The window's rewrites grouped by plane, each plane's in program order.
            counts.fill(0);
            for &(p, _) in &w_rewrites {
                counts[p as usize + 1] += 1;
            }
            for p in 0..p_count as usize {
                counts[p + 1] += counts[p];
            }
            let first = entries.len() as u32;
            start.extend(counts[1..].iter().map(|&c| first + c));
            sorted.clear();
            sorted.resize(w_rewrites.len(), 0);
            for &(p, e) in &w_rewrites {
                sorted[counts[p as usize] as usize] = e;
                counts[p as usize] += 1;
            }
            entries.extend_from_slice(&sorted);
            draws.push((stride, offset));
        }
        let windows = draws.len();
        if windows == 0 {
            return 0;
        }
        base_rows.extend(next.iter().map(|&n| n as u32));
        // Plane-major, so that finding a program's window bisects one row.
        let mut base = vec![0u32; base_rows.len()];
        for (at, &b) in base_rows.iter().enumerate() {
            let (w, p) = (at >> plane_shift, at & p_mask as usize);
            base[p * (windows + 1) + w] = b;
        }
        drop(base_rows);
        entries.shrink_to_fit();
        report.valid_pages += (windows as u64) << window_shift;
        report.overwritten_pages += entries.len() as u64;
        let mut rule = FillRule::new(window_shift, p_count, &draws, plane_of_residue.to_vec(), self.addr.blocks());
        rule.rewrites = Some(Box::new(Rewrites { plane_shift, windows, start, base, entries }));
        let written = self.program_fill_blocks(&mut rule, &next, |p, b| invalid[p as usize][b]);
        // Blocks closed in the order their last data page was programmed.
        self.close_in_order(closes.into_iter().map(|(p, b)| rule.plane_block(p, b as usize)));
        self.sparse.as_deref_mut().expect("rule_eligible checked").set_rule(rule, &written);
        windows as u64
    }
}

#[cfg(test)]
mod tests {
    use super::super::precondition::WorkloadFootprint;
    use super::super::{BlockState, GcStep};
    use super::*;
    use crate::config::{Config, PageTable};

    /// 8 planes of 32 blocks × 24 pages, 90% filled with rewrites to the GC threshold
    /// over 64-page windows (8 new pages per plane and window, and their rewrites).
    fn config(table: PageTable) -> Config {
        let mut c = Config::default();
        c.geometry.channels = 2;
        c.geometry.chips_per_channel = 1;
        c.geometry.dies_per_chip = 2;
        c.geometry.planes_per_die = 2;
        c.geometry.blocks_per_plane = 32;
        c.geometry.pages_per_block = 24;
        c.ftl.over_provisioning = 0.25;
        c.ftl.fill_window_log2 = 6;
        c.ftl.page_table = table;
        c.precondition.used_fraction = 0.9;
        c.precondition.fill_invalid_to_gc_threshold = true;
        c
    }

    fn filled(table: PageTable) -> (Ftl, PreconditionReport) {
        let c = config(table);
        let mut ftl = Ftl::new(&c);
        let mut planes = PlaneAllocator::new(c.ftl.plane_allocation, &c.ftl.allocation_order);
        planes.balance_for(&ftl.addr, ftl.units_per_page());
        let report = ftl.precondition(&c, &mut planes, &mut WorkloadFootprint::default()).expect("fits");
        (ftl, report)
    }

    /// Map, reverse map, every block's state and the free pools, entry by entry.
    fn assert_same(dense: &Ftl, sparse: &Ftl, when: &str) {
        assert_eq!(dense.map_len(), sparse.map_len());
        for lpn in 0..dense.map_len() as u32 {
            assert_eq!(dense.map_at(lpn), sparse.map_at(lpn), "{when}: map of logical page {lpn}");
        }
        for pu in 0..dense.rev_len() as u32 {
            assert_eq!(dense.rev_at(pu), sparse.rev_at(pu), "{when}: reverse map of page {pu}");
        }
        for (b, (d, s)) in dense.blocks.iter().zip(&sparse.blocks).enumerate() {
            assert_eq!(format!("{d:?}"), format!("{s:?}"), "{when}: block {b}");
        }
        for (d, s) in dense.planes.iter().zip(&sparse.planes) {
            assert_eq!((&d.free, &d.active), (&s.free, &s.active), "{when}: plane state");
        }
        assert_eq!(dense.plane_valid_units, sparse.plane_valid_units, "{when}: valid units per plane");
        sparse.check_invariants().unwrap_or_else(|e| panic!("{when}: {e}"));
    }

    #[test]
    fn the_default_fill_by_rule_is_the_page_by_page_fill() {
        let (dense, dense_report) = filled(PageTable::Dense);
        let (sparse, sparse_report) = filled(PageTable::Sparse);
        assert_eq!(format!("{dense_report:?}"), format!("{sparse_report:?}"));
        // The rule placed most of the fill, and the fill rewrote pages (some of them
        // more than once, leaving stale copies among the rule's pages).
        let rule = sparse.sparse.as_ref().and_then(|s| s.rule.as_ref()).expect("a rule");
        let rewrites = rule.rewrites.as_ref().expect("the fill's rewrites");
        assert!(sparse.ruled_pages() * 10 >= dense_report.valid_pages * 7, "ruled {}", sparse.ruled_pages());
        assert!(rewrites.entries.len() as u64 * 10 >= dense_report.overwritten_pages * 5);
        let targets: Vec<u32> = rewrites.entries.iter().map(|&e| e & POS_MASK).collect();
        let twice = targets.iter().enumerate().filter(|&(m, t)| targets[m + 1..].contains(t)).count();
        assert!(twice > 0, "no page rewritten twice in a window and plane");
        assert_same(&dense, &sparse, "after the fill");
    }

    #[test]
    fn an_ordered_walk_of_programs_finds_each_holder() {
        let (sparse, _) = filled(PageTable::Sparse);
        let rule = sparse.sparse.as_ref().and_then(|s| s.rule.as_ref()).expect("a rule");
        let r = rule.rewrites.as_ref().expect("the fill's rewrites");
        let mut superseded = 0;
        for plane in 0..sparse.addr.planes() {
            let i0 = |w: usize| rule.first_position(plane, w) as u32;
            let total = r.base(r.windows, plane) as u64;
            let expected: Vec<_> = (0..total).map(|k| r.holder(plane, k, i0)).collect();
            superseded += expected.iter().filter(|h| h.is_none()).count();
            // Whole, by blocks, and in odd pieces that start anywhere in a window.
            for piece in [total, 24, 7] {
                let mut seen = Vec::new();
                for k0 in (0..total).step_by(piece as usize) {
                    let n = piece.min(total - k0) as u32;
                    r.walk(plane, k0, n, i0, |d, h| {
                        assert_eq!(k0 + d as u64, seen.len() as u64, "programs in order");
                        seen.push(h)
                    });
                }
                assert_eq!(seen, expected, "plane {plane}, pieces of {piece}");
            }
        }
        assert!(superseded > 0, "no copy superseded by a later rewrite");
    }

    #[test]
    fn gc_and_writes_on_rule_pages_match_the_dense_table() {
        let (mut dense, _) = filled(PageTable::Dense);
        let (mut sparse, _) = filled(PageTable::Sparse);
        // Overwrite rewritten and never rewritten pages alike (every fifth logical page
        // of the rule's, in each plane's turn), then clean the block with the fewest
        // valid pages of each plane: its valid pages are found through the reverse map.
        let ruled = sparse.ruled_pages() as u32;
        for ftl in [&mut dense, &mut sparse] {
            for lpn in (0..ruled).step_by(5).take(60) {
                let plane = ftl.addr.plane_of(ftl.lookup(lpn).expect("filled"));
                let a = ftl.allocate_user(plane, 0).expect("room");
                ftl.commit_write(lpn, a.ppn);
            }
        }
        assert_same(&dense, &sparse, "after overwrites");
        for plane in 0..sparse.addr.planes() {
            let victim = (0..sparse.addr.blocks())
                .filter(|&b| sparse.addr.plane_of_block(b) == plane)
                .filter(|&b| sparse.blocks[b as usize].state == BlockState::Closed)
                .min_by_key(|&b| sparse.blocks[b as usize].valid_pages)
                .expect("a closed block");
            let mut moved = Vec::new();
            for ftl in [&mut dense, &mut sparse] {
                ftl.set_victim(plane, victim).unwrap();
                let mut moves = 0;
                loop {
                    match ftl.gc_next_step(plane, 0).expect("a step") {
                        GcStep::Move { ppn, .. } => {
                            let to = ftl.allocate_gc(plane, 0).expect("room").ppn;
                            assert!(ftl.move_page(ppn, to));
                            moves += 1;
                        }
                        GcStep::Erase { block } => {
                            ftl.erase(block);
                            break;
                        }
                    }
                }
                moved.push(moves);
            }
            assert_eq!(moved[0], moved[1], "plane {plane}: moves");
            assert_same(&dense, &sparse, &format!("after cleaning block {victim}"));
        }
    }
}
