//! Page reads through the error model: the RBER of each read (`flash/reliability.rs` over
//! the FTL's wear state), its bit errors drawn from the `errors` stream, the ECC's verdict
//! (retries, decode time, uncorrectable), and the statistics the report's `errors`
//! section shows. Without `reliability.enabled` a read takes the fixed
//! `flash.read_retries` and `flash.ecc_decode_ns`, and none of this runs.

use super::{SimError, Simulator};
use crate::config::{BitErrors, Config, Mapping, Uncorrectable};
use crate::flash::reliability::{Decode, PageState};
use crate::flash::Ppn;
use crate::stats::ErrorSummary;
use rand::SeedableRng;
use rand_distr::{Binomial, Distribution};
use rand_pcg::Pcg64Mcg;

pub(crate) struct ErrorModel {
    rng: Pcg64Mcg,
    bits_per_page: u64,
    /// Page reads decoded, by retries taken (index = retries).
    retries_per_read: Vec<u64>,
    /// Sum of the model RBER and reads, by page type (the last slot: SLC mode).
    rber_sum: Vec<f64>,
    reads: Vec<u64>,
    retries_by_type: Vec<u64>,
    uncorrectable: u64,
    decode_ns_total: u64,
    /// GC page reads through the controller, their retries and uncorrectable ones.
    gc_reads: u64,
    gc_retries: u64,
    gc_uncorrectable: u64,
}

impl ErrorModel {
    pub(crate) fn new(config: &Config) -> Self {
        let slots = config.bits_per_cell() + 1;
        let max = config.ecc.max_retries(config.flash.read_retries) as usize;
        ErrorModel {
            rng: Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "errors")),
            bits_per_page: config.geometry.page_size_bytes as u64 * 8,
            retries_per_read: vec![0; max + 1],
            rber_sum: vec![0.0; slots],
            reads: vec![0; slots],
            retries_by_type: vec![0; slots],
            uncorrectable: 0,
            decode_ns_total: 0,
            gc_reads: 0,
            gc_retries: 0,
            gc_uncorrectable: 0,
        }
    }

    pub(crate) fn uncorrectable(&self) -> u64 {
        self.uncorrectable
    }
}

impl Simulator<'_> {
    /// The ECC's verdict on a user read (or read-before-write) of `ppn` now. Counts its
    /// retries' senses toward its block's read disturb.
    #[inline]
    pub(crate) fn decode_read(&mut self, ppn: Ppn, lpn: u32, page_type: u8, slc: bool) -> Result<Decode, SimError> {
        if self.errors.is_none() {
            let retries = self.config.flash.read_retries;
            return Ok(Decode { retries, decode_ns: self.timing.ecc_decode_ns, uncorrectable: false });
        }
        self.decode_by_rber(ppn, lpn, page_type, slc, false)
    }

    /// The decode of a GC move's page read through the controller (not copyback), with
    /// the error model on: retries held in the GC command, counted apart from user reads.
    /// `None` without the model (GC moves then take no decode, as before it).
    pub(crate) fn decode_gc_read(&mut self, ppn: Ppn, lpn: u32) -> Result<Option<Decode>, SimError> {
        if self.errors.is_none() {
            return Ok(None);
        }
        let (page_type, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
        self.decode_by_rber(ppn, lpn, page_type, slc, true).map(Some)
    }

    /// `gc_decode_steps` of a GC command's moves (their `from` pages); nothing allocated
    /// without the error model.
    pub(crate) fn gc_decode_steps_of(&mut self, txns: &[u32]) -> Result<Vec<super::Step>, SimError> {
        if self.errors.is_none() {
            return Ok(Vec::new());
        }
        let pages: Vec<(Ppn, u32)> =
            txns.iter().map(|&t| (self.txns[t as usize].from, self.txns[t as usize].lpn)).collect();
        self.gc_decode_steps(&pages)
    }

    /// Steps a GC command adds after reading its source pages out through the controller
    /// (`pages`: page, logical page): each retry round a failed decode, a soft sense and
    /// the failing pages out again, then the decode that corrects the data before it goes
    /// back in (the command holds the die meanwhile). None without the error model.
    pub(crate) fn gc_decode_steps(&mut self, pages: &[(Ppn, u32)]) -> Result<Vec<super::Step>, SimError> {
        if self.errors.is_none() {
            return Ok(Vec::new());
        }
        let mut decodes = Vec::with_capacity(pages.len());
        let (mut rounds, mut sense, mut decode) = (0, 0, 0);
        for &(from, lpn) in pages {
            let d = self.decode_gc_read(from, lpn)?.expect("model on");
            rounds = rounds.max(d.retries);
            decode = decode.max(d.decode_ns);
            let (page_type, slc) = (self.ftl.page_type(from), self.ftl.is_slc(from));
            if d.retries > 0 {
                sense = sense.max(self.retry_sense_ns(self.timing.read_ns(page_type, slc)));
                // Each retry senses the page again: GC work.
                let nj = d.retries as f64 * self.timing.read_nj(page_type, slc);
                self.energy.read += nj;
                self.energy_gc += nj;
            }
            decodes.push(d.retries);
        }
        let mut steps = Vec::new();
        let page = self.timing.page_size_bytes;
        self.push_retry_rounds(&mut steps, rounds, sense, |round| {
            decodes.iter().filter(|&&r| r >= round).count() as u64 * page
        });
        if decode > 0 {
            steps.push(super::Step::Array(decode));
        }
        Ok(steps)
    }

    /// Sense time of one soft-sensing retry of a page whose read takes `read_ns`:
    /// `flash.retry_sense_latency_ns`, or the page's own read latency when that is 0.
    pub(crate) fn retry_sense_ns(&self, read_ns: u64) -> u64 {
        match self.config.flash.retry_sense_latency_ns {
            0 => read_ns,
            soft => soft,
        }
    }

    /// Appends a read command's retry rounds (user reads and GC reads alike): each round
    /// the decode that failed (the die waits for its verdict), a soft sense of `sense_ns`
    /// and the transfer out again of the `failing(round)` bytes still failing.
    pub(crate) fn push_retry_rounds(
        &self,
        steps: &mut Vec<super::Step>,
        rounds: u32,
        sense_ns: u64,
        failing: impl Fn(u32) -> u64,
    ) {
        for round in 1..=rounds {
            if self.timing.ecc_decode_ns > 0 {
                steps.push(super::Step::Array(self.timing.ecc_decode_ns));
            }
            steps.extend_from_slice(&[super::Step::Array(sense_ns), super::Step::ChannelOut(failing(round))]);
        }
    }

    /// The RBER a read of `ppn` (holding data of `lpn`) decodes at: the page's own, or for
    /// a logical page interleaved over two pages (a half-page map), the mean of both
    /// pages' (its codewords span both: DIR §2.4, 0.005 and 0.006 decode as 0.0055).
    fn read_rber(&self, ppn: Ppn, lpn: u32, page_type: u8, slc: bool) -> (f64, PageState) {
        let rel = &self.config.reliability;
        let state = self.ftl.page_state(ppn, Some(lpn), self.now).expect("wear is tracked with the error model");
        let own = rel.rber(page_type, slc, &state);
        if self.ftl.mapping != Mapping::HalfPages {
            return (own, state);
        }
        let other = match (self.ftl.unit_page(lpn, 0), self.ftl.unit_page(lpn, 1)) {
            (Some(a), Some(b)) if a != b && a == ppn => b,
            (Some(a), Some(b)) if a != b && b == ppn => a,
            _ => return (own, state),
        };
        let other_state = self.ftl.page_state(other, Some(lpn), self.now).expect("tracked");
        let other_rber = rel.rber(self.ftl.page_type(other), self.ftl.is_slc(other), &other_state);
        ((own + other_rber) / 2.0, state)
    }

    fn decode_by_rber(&mut self, ppn: Ppn, lpn: u32, page_type: u8, slc: bool, gc: bool) -> Result<Decode, SimError> {
        let hard_ns = self.timing.ecc_decode_ns;
        let fixed = self.config.flash.read_retries;
        let (rber, state) = self.read_rber(ppn, lpn, page_type, slc);
        let rber = rber.min(1.0);
        let model = self.errors.as_mut().expect("checked by decode_read");
        let rel = &self.config.reliability;
        let observed = match rel.bit_errors {
            BitErrors::Expected => rber,
            BitErrors::Sampled => {
                let n = model.bits_per_page;
                let errors = Binomial::new(n, rber).map(|b| b.sample(&mut model.rng)).unwrap_or(0);
                errors as f64 / n as f64
            }
        };
        let d = self.config.ecc.decode(observed, hard_ns, fixed);
        for _ in 0..d.retries {
            self.ftl.wear_read(ppn);
        }
        if gc {
            model.gc_reads += 1;
            model.gc_retries += d.retries as u64;
            model.gc_uncorrectable += u64::from(d.uncorrectable);
            return Ok(d);
        }
        let slot = if slc { model.reads.len() - 1 } else { page_type as usize };
        model.rber_sum[slot] += rber;
        model.reads[slot] += 1;
        model.retries_by_type[slot] += d.retries as u64;
        model.retries_per_read[d.retries as usize] += 1;
        model.decode_ns_total += d.decode_ns * (d.retries as u64 + 1);
        if d.uncorrectable {
            model.uncorrectable += 1;
            if self.config.ecc.uncorrectable == Uncorrectable::Fail {
                return Err(SimError::Integrity {
                    time_ns: self.now,
                    message: format!(
                        "uncorrectable read of physical page {ppn} (RBER {observed:.5}, P/E {}, {:.0} h old; \
                         ecc.uncorrectable = \"fail\")",
                        state.pe_cycles,
                        state.age_s / 3600.0
                    ),
                });
            }
        }
        Ok(d)
    }

    /// The report's `errors` section (with the model on).
    pub(crate) fn error_summary(&self) -> Option<ErrorSummary> {
        let m = self.errors.as_ref()?;
        let types = self.ftl.bits_per_cell;
        let mean = |i: usize| if m.reads[i] == 0 { 0.0 } else { m.rber_sum[i] / m.reads[i] as f64 };
        let slc = types;
        Some(ErrorSummary {
            ecc: format!("{:?}", self.config.ecc.scheme).to_lowercase(),
            decoded_reads: m.reads.iter().sum(),
            read_retries: m.retries_by_type.iter().sum(),
            retries_per_read: m.retries_per_read.clone(),
            reads_by_page_type: m.reads[..types].to_vec(),
            mean_rber_by_page_type: (0..types).map(mean).collect(),
            retries_by_page_type: m.retries_by_type[..types].to_vec(),
            slc_reads: m.reads[slc],
            slc_mean_rber: mean(slc),
            slc_retries: m.retries_by_type[slc],
            uncorrectable_reads: m.uncorrectable,
            ecc_decode_ns_total: m.decode_ns_total,
            gc_decoded_reads: m.gc_reads,
            gc_read_retries: m.gc_retries,
            gc_uncorrectable_reads: m.gc_uncorrectable,
        })
    }
}
