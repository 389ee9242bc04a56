//! A read command's decode: its ECC verdicts, the bytes it moves and what each retry round
//! moves again. A page map decodes each page read, a codeword of its own page. A
//! half-page map's reads are decoded per logical page, not per physical page (DIR §2.4,
//! §3.1): a logical page split over two pages is one codeword, its data and parity half on
//! each page ("exchanges the data of two pages ... segment by segment"). So a read of it
//! draws its bit errors once, at the mean RBER of its two pages, and takes the retries of
//! that one draw; and only the halves the request asks for cross the channel: a read of
//! one logical page of a pair moves half of each page (one page's worth, as a read of a
//! whole page does), a read of both moves both pages. Each retry round senses the pages
//! again and moves the halves of the codewords still failing. A logical page kept whole
//! on one page (a free write, one de-interleaved by GC) is a codeword of its own page.

use super::{SimError, Simulator, TxnKind, NO_REQUEST};
use crate::config::Mapping;
use crate::flash::NO_PAGE;

/// Units a page of a map read by codewords may have (a half-page map's two).
const MAX_UNITS: usize = 2;

/// What a read command decoded.
pub(crate) struct CodewordReads {
    /// Bytes the command moves out before any retry.
    pub(crate) bytes: u64,
    /// Retry rounds (the most any codeword took), their soft sense, and retries in all.
    pub(crate) rounds: u32,
    pub(crate) retry_sense_ns: u64,
    pub(crate) total_retries: u64,
}

/// One logical page a read command decodes: its retries and the bytes it moves (its
/// units on the command's pages).
#[derive(Clone, Copy)]
pub(crate) struct Codeword {
    lpn: u32,
    retries: u8,
    bytes: u64,
}

impl Simulator<'_> {
    /// Decodes a read command `txns` (pages already bound): per logical page for a
    /// half-page map (`decode_codewords`), else each page read alone; `self.codewords` is
    /// left holding what each retry round may move again (`failing_bytes`).
    pub(crate) fn decode_read_command(&mut self, txns: &[u32]) -> Result<CodewordReads, SimError> {
        if self.ftl.mapping == Mapping::HalfPages {
            return self.decode_codewords(txns);
        }
        let mut words = std::mem::take(&mut self.codewords);
        words.clear();
        let page = self.timing.page_size_bytes;
        let mut out =
            CodewordReads { bytes: self.transfer_bytes(txns), rounds: 0, retry_sense_ns: 0, total_retries: 0 };
        for &t in txns {
            let (ppn, lpn) = (self.txns[t as usize].ppn, self.txns[t as usize].lpn);
            let (page_type, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            let decode = match self.decode_read(ppn, lpn, page_type, slc) {
                Ok(d) => d,
                Err(e) => {
                    self.codewords = words;
                    return Err(e);
                }
            };
            let txn = &mut self.txns[t as usize];
            txn.retries = decode.retries as u8;
            txn.decode_ns = decode.decode_ns as u32;
            if decode.retries > 0 {
                out.rounds = out.rounds.max(decode.retries);
                out.total_retries += decode.retries as u64;
                out.retry_sense_ns = out.retry_sense_ns.max(self.retry_sense_ns(self.timing.read_ns(page_type, slc)));
                // Each retry senses the page again and moves it out whole.
                self.energy.read += decode.retries as f64 * self.timing.read_nj(page_type, slc);
            }
            words.push(Codeword { lpn, retries: decode.retries.min(u8::MAX as u32) as u8, bytes: page });
        }
        self.codewords = words;
        Ok(out)
    }

    /// Decodes the codewords of a half-page map's read command `txns` (pages already
    /// bound) and sets each read's retries and decode time (a codeword's on the page that
    /// decodes it: its first half's page, or the first of the command's pages holding it).
    /// `self.codewords` is left holding them, for the bytes failing each retry round
    /// (`failing_bytes`).
    fn decode_codewords(&mut self, txns: &[u32]) -> Result<CodewordReads, SimError> {
        let mut words = std::mem::take(&mut self.codewords);
        words.clear();
        let unit_bytes = self.timing.page_size_bytes >> self.ftl.unit_shift;
        let units = self.ftl.units_per_page();
        debug_assert!(units as usize <= MAX_UNITS, "codewords are read for a half-page map");
        let logical = self.ftl.logical_pages;
        let mut out = CodewordReads { bytes: 0, rounds: 0, retry_sense_ns: 0, total_retries: 0 };
        for &t in txns {
            let txn = self.txns[t as usize];
            let ppn = txn.ppn;
            // The logical pages of this page its request reads (a translation page or a
            // read of data overwritten since it was queued: the page whole, as queued).
            let (first, pages) = match txn.request {
                NO_REQUEST => (0, 0),
                slot => {
                    let r = &self.requests[slot as usize];
                    ((r.offset_bytes / self.timing.page_size_bytes % logical as u64) as u32, r.pages)
                }
            };
            let mut mine = 0u64;
            // (A half-page map has two units a page: no allocation per read.)
            let mut decode_here = [NO_PAGE; MAX_UNITS];
            let mut here = 0;
            if txn.kind == TxnKind::Read && pages > 0 {
                for slot in 0..units {
                    let lu = self.ftl.rev_at((ppn << self.ftl.unit_shift) + slot);
                    if lu == NO_PAGE {
                        continue;
                    }
                    let lpn = lu >> self.ftl.unit_shift;
                    if (lpn + logical - first) % logical >= pages {
                        continue;
                    }
                    mine += unit_bytes;
                    // Decoded once, with the page holding its first half when the command
                    // reads that page, else here.
                    let home = self.ftl.unit_page(lpn, 0).filter(|&p| self.reads_page(txns, p));
                    if (home.is_none() || home == Some(ppn))
                        && !words.iter().any(|w| w.lpn == lpn)
                        && !decode_here[..here].contains(&lpn)
                    {
                        decode_here[here] = lpn;
                        here += 1;
                    }
                }
            }
            if mine == 0 {
                mine = self.timing.page_size_bytes;
                decode_here[0] = txn.lpn;
                here = 1;
            }
            out.bytes += mine;
            let (mut retries, mut decode_ns) = (0u32, 0u32);
            for &lpn in &decode_here[..here] {
                let (page_type, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
                let d = self.decode_read(ppn, lpn, page_type, slc)?;
                // Its other half's page is sensed again in every retry round too.
                let other = (0..units)
                    .filter_map(|k| self.ftl.unit_page(lpn, k))
                    .find(|&p| p != ppn && self.reads_page(txns, p));
                let mut sense = self.retry_sense_ns(self.timing.read_ns(page_type, slc));
                let mut nj = self.timing.read_nj(page_type, slc);
                if let Some(o) = other {
                    let (ot, os) = (self.ftl.page_type(o), self.ftl.is_slc(o));
                    sense = sense.max(self.retry_sense_ns(self.timing.read_ns(ot, os)));
                    nj += self.timing.read_nj(ot, os);
                    if self.errors.is_some() {
                        for _ in 0..d.retries {
                            self.ftl.wear_read(o);
                        }
                    }
                }
                if d.retries > 0 {
                    out.rounds = out.rounds.max(d.retries);
                    out.retry_sense_ns = out.retry_sense_ns.max(sense);
                    out.total_retries += d.retries as u64;
                    self.energy.read += d.retries as f64 * nj;
                }
                retries += d.retries;
                decode_ns = decode_ns.max(d.decode_ns as u32);
                // A codeword moves a page's worth (its halves) in each retry round; one
                // kept whole on this page, the bytes this page moves.
                let bytes = if other.is_some() { self.timing.page_size_bytes } else { mine };
                words.push(Codeword { lpn, retries: d.retries.min(u8::MAX as u32) as u8, bytes });
            }
            let txn = &mut self.txns[t as usize];
            txn.retries = retries.min(u8::MAX as u32) as u8;
            txn.decode_ns = decode_ns;
        }
        self.codewords = words;
        Ok(out)
    }

    /// Whether the command `txns` senses page `ppn`.
    fn reads_page(&self, txns: &[u32], ppn: crate::flash::Ppn) -> bool {
        txns.iter().any(|&t| self.txns[t as usize].ppn == ppn)
    }

    /// Bytes of the codewords `decode_read_command` left that still fail in retry round
    /// `round`.
    pub(crate) fn failing_bytes(&self, round: u32) -> u64 {
        self.codewords.iter().filter(|w| w.retries as u32 >= round).map(|w| w.bytes).sum()
    }
}
