//! The sparse page table (issue 48, "memory that follows the workload"): the map and
//! reverse map without an entry per page. Preconditioning's fill places logical pages by
//! a rule (`FillRule`: a window's permutation, striping, and each plane's blocks in the
//! order the fill opened them), so where an untouched preconditioned page lives is
//! computed, not stored. Stored are only the pages that left the rule: a logical page
//! rewritten, moved by GC or trimmed has an entry in `overrides` (its rule page is then
//! invalid, so validity needs no per-page state), and pages programmed outside the rule
//! (the run's writes, GC copies, the fill's last partial window) have reverse entries in
//! per-block arrays, allocated when a block is first written and freed at its erase.
//! Per-block state (valid counts, write points, erase counts) stays in `blocks` as ever.
//!
//! The dense table is the same `Ftl` with `dense_map`/`dense_reverse` filled and
//! `sparse` empty: the accessors below try the dense vectors first (one bounds check,
//! what indexing cost before), so a dense run pays nothing for the choice. Sparse tables
//! hold a page map only (one unit per page) and are not used with power-loss recovery,
//! whose OOB areas are per page anyway; `densify` converts where a feature needs dense.

use super::dense::DenseTable;
use super::fill_rewrites::Rewrites;
use super::Ftl;
use crate::config::{Config, PageTable};
use crate::engine::lpn_hash::LpnMap;
use crate::flash::{Address, Ppn, NO_PAGE};
use std::cell::Cell;

/// Under `PageTable::Auto`, drives of at least this many physical pages (1 GiB of dense
/// table) use the sparse one; smaller drives stay dense, where the table fits in memory
/// and a lookup is one load.
pub const AUTO_SPARSE_PAGES: u64 = 1 << 27;

const NO_SLOT: u32 = u32::MAX;

/// Per-block slots of `Sparse::pool` per chunk: the pool grows a chunk at a time and
/// never moves (one flat vector, grown by doubling, left its old copies resident in the
/// heap: 16 MiB more peak RSS on `bench large-device`), and a lookup loads the chunk's
/// address from a short, cached vector.
const SLOTS_PER_CHUNK: u32 = 64;

/// Entries of each direction of `RuleCache` (a power of two).
const RULE_CACHE: usize = 1024;

pub struct Sparse {
    /// Logical pages not at their rule page: where they are (NO_PAGE: unmapped).
    overrides: LpnMap<u32>,
    pub(super) rule: Option<Box<FillRule>>,
    /// Per block: its first `rule_pages` pages hold the rule's logical pages.
    rule_pages: Vec<u32>,
    /// Per block: its reverse entries beyond the rule's, in a slot of `pool`, chunks of
    /// `SLOTS_PER_CHUNK` slots of `pages_per_block` entries (NO_SLOT: none).
    slot: Vec<u32>,
    pool: Vec<Box<[u32]>>,
    /// Slots of `pool` handed out so far.
    slots: u32,
    free_slots: Vec<u32>,
    map_len: usize,
    rev_len: usize,
    pages_per_block: u32,
    /// Chosen by `PageTable::Auto`: convert to dense where the rule cannot place the fill.
    pub auto: bool,
    cache: RuleCache,
}

/// The rule's latest answers, both ways (`FillRule::ppn_of` and `lpn_of`, each
/// `lpn << 32 | pu` or `pu << 32 | lpn`, u64::MAX when empty), in direct-mapped slots. A
/// request's page is looked up several times close together (the host's read-ahead,
/// 64 requests early, touches its map and reverse entries; then the request; a write's
/// invalidation of the old copy), and with the fill's rewrites each rule lookup is a
/// search. The rule never changes once set, so an answer stays true (a block erased or
/// materialised is no longer asked about the rule: `rule_pages`).
struct RuleCache {
    by_lpn: Box<[Cell<u64>]>,
    by_pu: Box<[Cell<u64>]>,
}

impl RuleCache {
    fn new() -> Self {
        let empty = || (0..RULE_CACHE).map(|_| Cell::new(u64::MAX)).collect();
        RuleCache { by_lpn: empty(), by_pu: empty() }
    }

    #[inline]
    fn get(table: &[Cell<u64>], key: u32) -> Option<u32> {
        let e = table[key as usize & (RULE_CACHE - 1)].get();
        ((e >> 32) as u32 == key).then_some(e as u32)
    }

    #[inline]
    fn put(table: &[Cell<u64>], key: u32, value: u32) {
        table[key as usize & (RULE_CACHE - 1)].set((key as u64) << 32 | value as u64);
    }

    /// The rule's page of logical page `lpn` (below the rule's `lpns`).
    #[inline]
    fn ppn_of(&self, rule: &FillRule, lpn: u32, addr: &Address) -> u32 {
        if let Some(pu) = Self::get(&self.by_lpn, lpn) {
            return pu;
        }
        let pu = rule.ppn_of(lpn, addr);
        Self::put(&self.by_lpn, lpn, pu);
        // (The copy the map points to is the last one: its page holds `lpn`.)
        Self::put(&self.by_pu, pu, lpn);
        pu
    }

    /// `FillRule::lpn_of` of page `pu`, `page` of `block`.
    #[inline]
    fn lpn_of(&self, rule: &FillRule, pu: u32, block: u32, page: u32, addr: &Address) -> u32 {
        if let Some(lpn) = Self::get(&self.by_pu, pu) {
            return lpn;
        }
        let lpn = rule.lpn_of(block, page, addr);
        Self::put(&self.by_pu, pu, lpn);
        if lpn != NO_PAGE {
            Self::put(&self.by_lpn, lpn, pu);
        }
        lpn
    }
}

/// Where the fill put logical pages `0..lpns`: window `w` holds `w·L..(w+1)·L`, visited
/// in the order `i ↦ (i·stride + offset) mod L`; a page goes to the plane of its residue
/// mod P (P | L, so the residue is that of its position in the window) and takes the
/// next page of that plane's fill blocks. Each plane receives L/P pages per window, the
/// j-th at position `j·P + i₀`, so a page's rank in its plane is closed-form both ways.
pub struct FillRule {
    window_shift: u32,
    plane_shift: u32,
    lpns: u32,
    /// Per window: stride, its inverse mod L, offset.
    windows: Vec<[u64; 3]>,
    plane_of_residue: Vec<u32>,
    residue_of_plane: Vec<u32>,
    /// Per plane: the blocks the fill wrote, in order.
    plane_blocks: Vec<Vec<u32>>,
    /// Per block: its index in its plane's list.
    block_index: Vec<u32>,
    pages_per_block: u32,
    /// The fill's rewrites to the GC threshold (`fill_rewrites.rs`): a plane's k-th
    /// program is then not the k-th page of the rule's order. `None`: the plain fill.
    pub(super) rewrites: Option<Box<Rewrites>>,
}

impl FillRule {
    /// `windows`: (stride, offset) of each full window, in order.
    pub fn new(
        window_shift: u32,
        planes: u32,
        windows: &[(u64, u64)],
        plane_of_residue: Vec<u32>,
        blocks: u32,
    ) -> Self {
        let mask = (1u64 << window_shift) - 1;
        let mut residue_of_plane = vec![0; planes as usize];
        for (r, &p) in plane_of_residue.iter().enumerate() {
            residue_of_plane[p as usize] = r as u32;
        }
        FillRule {
            window_shift,
            plane_shift: planes.trailing_zeros(),
            lpns: ((windows.len() as u64) << window_shift) as u32,
            windows: windows.iter().map(|&(s, o)| [s, inverse_odd(s) & mask, o]).collect(),
            plane_of_residue,
            residue_of_plane,
            plane_blocks: vec![Vec::new(); planes as usize],
            block_index: vec![NO_PAGE; blocks as usize],
            pages_per_block: 0,
            rewrites: None,
        }
    }

    /// Pages the rule places in each plane.
    pub fn pages_per_plane(&self) -> u64 {
        (self.windows.len() as u64) << (self.window_shift - self.plane_shift)
    }

    /// Records that `block` is the next block of `plane`'s fill.
    pub fn push_block(&mut self, plane: u32, block: u32, pages_per_block: u32) {
        self.pages_per_block = pages_per_block;
        let list = &mut self.plane_blocks[plane as usize];
        self.block_index[block as usize] = list.len() as u32;
        list.push(block);
    }

    /// The `index`-th block of `plane`'s fill.
    pub fn plane_block(&self, plane: u32, index: usize) -> u32 {
        self.plane_blocks[plane as usize][index]
    }

    /// The window and position in it of the `k`-th page of `plane` (the plain fill).
    pub fn position(&self, plane: u32, k: u64) -> (u64, u64) {
        let q_shift = self.window_shift - self.plane_shift;
        let (w, j) = (k >> q_shift, k & ((1 << q_shift) - 1));
        (w, (j << self.plane_shift) + self.first_position(plane, w as usize))
    }

    /// The first position of window `w` whose page goes to `plane` (then every P-th).
    pub(super) fn first_position(&self, plane: u32, w: usize) -> u64 {
        let p_mask = (1u64 << self.plane_shift) - 1;
        let [_, inv, o] = self.windows[w];
        let r = self.residue_of_plane[plane as usize] as u64;
        ((r.wrapping_sub(o) & p_mask) * (inv & p_mask)) & p_mask
    }

    fn ppn_of(&self, lpn: u32, addr: &Address) -> Ppn {
        let mask = (1u64 << self.window_shift) - 1;
        let w = (lpn >> self.window_shift) as usize;
        let x = lpn as u64 & mask;
        let [_, inv, o] = self.windows[w];
        let i = (x.wrapping_sub(o) & mask).wrapping_mul(inv) & mask;
        let plane = self.plane_of_residue[(x & ((1 << self.plane_shift) - 1)) as usize];
        let k = match &self.rewrites {
            None => ((w as u64) << (self.window_shift - self.plane_shift)) + (i >> self.plane_shift),
            Some(r) => r.program_of(w, plane, i as u32),
        };
        let ppb = self.pages_per_block as u64;
        addr.ppn(self.plane_blocks[plane as usize][(k / ppb) as usize], (k % ppb) as u32)
    }

    /// The logical page the fill wrote to `page` of `block`, if that copy is its last
    /// (`NO_PAGE`: a rewrite of the fill superseded it).
    fn lpn_of(&self, block: u32, page: u32, addr: &Address) -> u32 {
        let k = self.block_index[block as usize] as u64 * self.pages_per_block as u64 + page as u64;
        let plane = addr.plane_of_block(block);
        let (w, i) = match &self.rewrites {
            None => self.position(plane, k),
            Some(r) => match r.holder(plane, k, |w| self.first_position(plane, w) as u32) {
                Some((w, i)) => (w as u64, i as u64),
                None => return NO_PAGE,
            },
        };
        let mask = (1u64 << self.window_shift) - 1;
        let [s, _, o] = self.windows[w as usize];
        ((w << self.window_shift) + (i.wrapping_mul(s).wrapping_add(o) & mask)) as u32
    }
}

impl FillRule {
    /// `f(page, lpn)` for each of `block`'s first `n` pages that holds the last copy
    /// of a logical page the fill wrote (what `lpn_of` gives, other pages skipped), in
    /// page order: one walk of the block's programs, not a search per page.
    fn block_lpns(&self, block: u32, n: u32, addr: &Address, mut f: impl FnMut(u32, u32)) {
        let k0 = self.block_index[block as usize] as u64 * self.pages_per_block as u64;
        let plane = addr.plane_of_block(block);
        let mask = (1u64 << self.window_shift) - 1;
        let lpn = |w: usize, i: u32| {
            let [s, _, o] = self.windows[w];
            ((w as u64) << self.window_shift) + ((i as u64).wrapping_mul(s).wrapping_add(o) & mask)
        };
        match &self.rewrites {
            None => (0..n)
                .map(|page| (page, self.lpn_of(block, page, addr)))
                .filter(|e| e.1 != NO_PAGE)
                .for_each(|(page, lpn)| f(page, lpn)),
            Some(r) => r.walk(
                plane,
                k0,
                n,
                |w| self.first_position(plane, w) as u32,
                |page, holder| {
                    if let Some((w, i)) = holder {
                        f(page, lpn(w, i) as u32)
                    }
                },
            ),
        }
    }
}

/// The inverse of odd `s` modulo 2^64 (Newton's iteration doubles the correct bits).
fn inverse_odd(s: u64) -> u64 {
    let mut inv = s;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(s.wrapping_mul(inv)));
    }
    inv
}

/// Whether `config` runs on the sparse table (`Some(true)`) and keeps it through
/// preconditioning (`Some(false)`: it converts to dense for steady state, which rewrites
/// the whole drive). `None`: dense. Both fills, plain and with rewrites to the GC
/// threshold, are placed by rule where `Ftl::rule_eligible` holds; under `auto` a fill it
/// does not hold for (zones, the error model, OOB areas, `--verify`, a number of planes
/// that is not a power of two, ...) converts to dense when it starts.
pub fn expected(config: &Config) -> Option<bool> {
    let eligible = config.units_per_page() == 1 && config.power.loss_at_ns.is_empty();
    let big = config.geometry.physical_pages() as u64 >= AUTO_SPARSE_PAGES;
    let auto = match config.ftl.page_table {
        PageTable::Dense => return None,
        PageTable::Sparse => false,
        PageTable::Auto => true,
    };
    if !eligible || (auto && !big) {
        return None;
    }
    Some(!auto || !config.precondition.steady_state)
}

impl Sparse {
    /// The sparse table for `config`, or `None` where the dense one is used.
    pub fn for_config(config: &Config, addr: &Address, map_len: usize, rev_len: usize) -> Option<Box<Sparse>> {
        // Under `auto`, a drive whose preconditioning would convert to dense starts dense
        // (converting 2^27 pages and more costs seconds of setup).
        if !expected(config)? {
            return None;
        }
        let auto = config.ftl.page_table == PageTable::Auto;
        Some(Box::new(Sparse {
            overrides: LpnMap::default(),
            rule: None,
            rule_pages: vec![0; addr.blocks() as usize],
            slot: vec![NO_SLOT; addr.blocks() as usize],
            pool: Vec::new(),
            slots: 0,
            free_slots: Vec::new(),
            map_len,
            rev_len,
            pages_per_block: addr.pages_per_block,
            auto,
            cache: RuleCache::new(),
        }))
    }

    /// Installs the fill rule; `rule_pages[b]` pages of each block it wrote are its.
    pub fn set_rule(&mut self, rule: FillRule, rule_pages: &[(u32, u32)]) {
        for &(block, pages) in rule_pages {
            self.rule_pages[block as usize] = pages;
        }
        self.rule = Some(Box::new(rule));
    }

    #[inline]
    fn map_at(&self, lpn: u32, addr: &Address) -> u32 {
        if let Some(&pu) = self.overrides.get(&lpn) {
            return pu;
        }
        match &self.rule {
            Some(rule) if lpn < rule.lpns => self.cache.ppn_of(rule, lpn, addr),
            _ => NO_PAGE,
        }
    }

    #[inline]
    fn set_map(&mut self, lpn: u32, pu: u32) {
        let ruled = self.rule.as_ref().is_some_and(|r| lpn < r.lpns);
        if pu == NO_PAGE && !ruled {
            self.overrides.remove(&lpn);
        } else {
            self.overrides.insert(lpn, pu);
        }
    }

    #[inline]
    fn rev_at(&self, pu: u32, addr: &Address) -> u32 {
        let block = addr.block_of(pu);
        let page = pu - block * self.pages_per_block;
        if page < self.rule_pages[block as usize] {
            return self.rule_rev_at(pu, block, page, addr);
        }
        match self.slot[block as usize] {
            NO_SLOT => NO_PAGE,
            s => {
                self.pool[(s / SLOTS_PER_CHUNK) as usize]
                    [((s % SLOTS_PER_CHUNK) * self.pages_per_block + page) as usize]
            }
        }
    }

    /// `rev_at` of a page of the fill rule's.
    #[inline(never)]
    fn rule_rev_at(&self, pu: u32, block: u32, page: u32, addr: &Address) -> u32 {
        let rule = self.rule.as_ref().expect("rule pages have a rule");
        let lpn = self.cache.lpn_of(rule, pu, block, page, addr);
        if lpn == NO_PAGE || self.overrides.contains_key(&lpn) {
            NO_PAGE
        } else {
            lpn
        }
    }

    #[inline]
    fn set_rev(&mut self, pu: u32, lu: u32, addr: &Address) {
        let block = addr.block_of(pu);
        let page = pu - block * self.pages_per_block;
        if page < self.rule_pages[block as usize] {
            // A rule page is never programmed again before its erase: only invalidated,
            // which its logical page's override records (set at once, so the page reads
            // as invalid before the caller updates the map). A copy the fill's own
            // rewrites superseded is invalid already.
            debug_assert_eq!(lu, NO_PAGE, "rule page {pu} rewritten in place");
            let rule = self.rule.as_ref().expect("rule pages have a rule");
            let lpn = self.cache.lpn_of(rule, pu, block, page, addr);
            if lpn != NO_PAGE {
                self.overrides.entry(lpn).or_insert(NO_PAGE);
            }
            return;
        }
        let mut s = self.slot[block as usize];
        if s == NO_SLOT {
            if lu == NO_PAGE {
                return;
            }
            s = self.take_slot();
            self.slot[block as usize] = s;
        }
        self.pool[(s / SLOTS_PER_CHUNK) as usize][((s % SLOTS_PER_CHUNK) * self.pages_per_block + page) as usize] = lu;
    }

    /// GC picked `block`: the fill's pages in it become per-block reverse entries, so
    /// that the cleanup's lookups of each page (several a page) are loads, not searches
    /// of the fill's rewrites. (The plain rule's pages are closed-form: left as they are.)
    fn materialise(&mut self, block: u32, addr: &Address) {
        let n = self.rule_pages[block as usize];
        if n == 0 || self.rule.as_ref().is_none_or(|r| r.rewrites.is_none()) {
            return;
        }
        let fresh = self.slot[block as usize] == NO_SLOT;
        if fresh {
            self.slot[block as usize] = self.take_slot();
        }
        let s = self.slot[block as usize];
        let at = ((s % SLOTS_PER_CHUNK) * self.pages_per_block) as usize;
        let (entries, overrides) =
            (&mut self.pool[(s / SLOTS_PER_CHUNK) as usize][at..at + n as usize], &self.overrides);
        // (As `rev_at` gives them, in one ordered pass over the block's programs.)
        let mut any = false;
        self.rule.as_ref().expect("checked").block_lpns(block, n, addr, |page, lpn| {
            if !overrides.contains_key(&lpn) {
                entries[page as usize] = lpn;
                any = true;
            }
        });
        self.rule_pages[block as usize] = 0;
        if fresh && !any {
            self.free_slots.push(std::mem::replace(&mut self.slot[block as usize], NO_SLOT));
        }
    }

    /// A free slot of `pool` (its entries all NO_PAGE).
    fn take_slot(&mut self) -> u32 {
        self.free_slots.pop().unwrap_or_else(|| {
            let s = self.slots;
            self.slots += 1;
            if s.is_multiple_of(SLOTS_PER_CHUNK) {
                self.pool.push(vec![NO_PAGE; (SLOTS_PER_CHUNK * self.pages_per_block) as usize].into_boxed_slice());
            }
            s
        })
    }

    /// `block` was erased: none of its pages holds data.
    fn erased(&mut self, block: u32) {
        self.rule_pages[block as usize] = 0;
        let s = std::mem::replace(&mut self.slot[block as usize], NO_SLOT);
        if s != NO_SLOT {
            let at = ((s % SLOTS_PER_CHUNK) * self.pages_per_block) as usize;
            self.pool[(s / SLOTS_PER_CHUNK) as usize][at..at + self.pages_per_block as usize].fill(NO_PAGE);
            self.free_slots.push(s);
        }
    }

    /// Bytes held: overrides, per-block arrays and the rule (for the report of memory).
    pub fn bytes(&self) -> u64 {
        let rule = self.rule.as_ref().map_or(0, |r| {
            r.windows.len() * 24 + r.block_index.len() * 8 + r.rewrites.as_ref().map_or(0, |w| w.bytes())
        });
        (self.overrides.capacity() * 9
            + self.pool.len() * (SLOTS_PER_CHUNK * self.pages_per_block) as usize * 4
            + self.rule_pages.len() * 8
            + rule) as u64
    }
}

impl Ftl {
    /// The physical unit holding logical unit `lu` (NO_PAGE: unmapped).
    // (Always inlined, with the sparse paths out of line: inlined whole, the dense
    // lookups were calls, 7% more instructions on mqsim-default.)
    #[inline(always)]
    pub fn map_at(&self, lu: u32) -> u32 {
        match self.dense_map.get(lu as usize) {
            Some(pu) => pu,
            None => self.sparse_map_at(lu),
        }
    }

    #[inline(always)]
    pub fn set_map(&mut self, lu: u32, pu: u32) {
        if !self.dense_map.set(lu as usize, pu) {
            self.sparse_set_map(lu, pu)
        }
    }

    /// The logical unit in physical unit `pu` (NO_PAGE: free or invalid).
    #[inline(always)]
    pub fn rev_at(&self, pu: u32) -> u32 {
        match self.dense_reverse.get(pu as usize) {
            Some(lu) => lu,
            None => self.sparse_rev_at(pu),
        }
    }

    #[inline(always)]
    pub fn set_rev(&mut self, pu: u32, lu: u32) {
        if !self.dense_reverse.set(pu as usize, lu) {
            self.sparse_set_rev(pu, lu)
        }
    }

    #[inline(never)]
    fn sparse_map_at(&self, lu: u32) -> u32 {
        self.sparse.as_deref().expect("logical unit beyond the map").map_at(lu, &self.addr)
    }

    #[inline(never)]
    fn sparse_set_map(&mut self, lu: u32, pu: u32) {
        self.sparse.as_deref_mut().expect("logical unit beyond the map").set_map(lu, pu)
    }

    #[inline(never)]
    fn sparse_rev_at(&self, pu: u32) -> u32 {
        self.sparse.as_deref().expect("physical unit beyond the drive").rev_at(pu, &self.addr)
    }

    #[inline(never)]
    fn sparse_set_rev(&mut self, pu: u32, lu: u32) {
        let Ftl { sparse, addr, .. } = self;
        sparse.as_deref_mut().expect("physical unit beyond the drive").set_rev(pu, lu, addr)
    }

    /// Logical units the map covers (translation pages included).
    pub fn map_len(&self) -> usize {
        self.sparse.as_ref().map_or(self.dense_map.len(), |s| s.map_len)
    }

    /// Physical units of the drive.
    pub fn rev_len(&self) -> usize {
        self.sparse.as_ref().map_or(self.dense_reverse.len(), |s| s.rev_len)
    }

    pub fn is_sparse(&self) -> bool {
        self.sparse.is_some()
    }

    /// Logical pages the fill rule placed (0 with the dense table or no rule).
    pub fn ruled_pages(&self) -> u64 {
        self.sparse.as_ref().and_then(|s| s.rule.as_ref()).map_or(0, |r| r.lpns as u64)
    }

    /// Converts a sparse table to the dense one (same contents: the reverse map is the
    /// map's inverse, an invariant `check_mapping` holds).
    pub fn densify(&mut self) {
        let Some(s) = self.sparse.take() else { return };
        let mut map = DenseTable::new(s.map_len);
        if let Some(rule) = &s.rule {
            for lpn in 0..rule.lpns {
                map.set(lpn as usize, rule.ppn_of(lpn, &self.addr));
            }
        }
        // (Distinct keys: the order of the hash map's iteration cannot matter.)
        for (&lpn, &pu) in &s.overrides {
            map.set(lpn as usize, pu);
        }
        let mut reverse = DenseTable::new(s.rev_len);
        for (lu, pu) in map.iter().enumerate() {
            if pu != NO_PAGE {
                reverse.set(pu as usize, lu as u32);
            }
        }
        self.dense_map = map;
        self.dense_reverse = reverse;
    }

    /// A new GC victim's pages: with the sparse table, its fill pages as per-block
    /// reverse entries (`Sparse::materialise`); same contents.
    pub(super) fn table_victim(&mut self, block: u32) {
        let Ftl { sparse, addr, .. } = self;
        if let Some(s) = sparse.as_deref_mut() {
            s.materialise(block, addr);
        }
    }

    /// Keeps the sparse table in step with an erase.
    #[inline]
    pub(super) fn table_erased(&mut self, block: u32) {
        if let Some(s) = self.sparse.as_deref_mut() {
            s.erased(block);
        }
    }
}
