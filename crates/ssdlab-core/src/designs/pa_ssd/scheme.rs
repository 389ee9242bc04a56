//! PA-SSD (Zhang et al., ICS '18, seed 000): page-type specifying schemes (§4.2). The
//! host interface assigns every user write request a page type, inherited by its
//! page-sized sub-requests; pa-BLAlloc (`ftl::relaxed`) then tries to honour it.
//!
//! Schemes: US (round-robin LSB/CSB/MSB), HGS (the host's access-latency hint: 0 →
//! LSB, 1 → CSB, 2 or more → MSB), LFS (always LSB), SBS (requests of at most
//! `sbs_max_pages` sub-requests → LSB), QDS (device queue longer than `qds_threshold` →
//! LSB), WBS (write buffer full → LSB), UBS (random, with probabilities proportional to
//! the free LSB/CSB/MSB pages of the SSD). HGS, SBS, QDS and WBS decide only some
//! requests; the others go to the complement scheme. GC writes always use UBS (§4.2).

use crate::config::{PaConfig, PaScheme};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// What a scheme may look at when it assigns a type.
pub struct WriteContext<'a> {
    /// Page-sized sub-requests of the request.
    pub pages: u32,
    pub hint: Option<u8>,
    /// Requests in the device (submitted, not completed), this one excluded.
    pub queue_length: u64,
    /// Write sub-requests whose data waits in DRAM to be programmed.
    pub buffered_pages: u64,
    /// Free pages of each type in the SSD.
    pub free_pages_by_type: &'a [u64],
}

pub struct PaPolicy {
    primary: PaScheme,
    complement: PaScheme,
    qds_threshold: u64,
    sbs_max_pages: u32,
    write_buffer_pages: u64,
    bits: u8,
    round_robin: u8,
    rng: Pcg64Mcg,
    gc_rng: Pcg64Mcg,
    /// Requests assigned each type.
    pub assigned: Vec<u64>,
}

impl PaPolicy {
    pub fn new(config: &PaConfig, bits: usize, seed: u64) -> Self {
        let (primary, complement) = config.schemes();
        PaPolicy {
            primary,
            complement,
            qds_threshold: config.qds_threshold,
            sbs_max_pages: config.sbs_max_pages,
            write_buffer_pages: config.write_buffer_pages,
            bits: bits as u8,
            round_robin: 0,
            rng: Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "pa-ubs")),
            gc_rng: Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "pa-ubs-gc")),
            assigned: vec![0; bits],
        }
    }

    /// The page type assigned to a user write request.
    pub fn assign(&mut self, ctx: &WriteContext) -> u8 {
        let t = match self.decide(self.primary, ctx) {
            Some(t) => t,
            None => self.decide(self.complement, ctx).unwrap_or(0),
        };
        self.assigned[t as usize] += 1;
        t
    }

    /// The page type of a GC write: UBS.
    pub fn assign_gc(&mut self, free_pages_by_type: &[u64]) -> u8 {
        ubs(&mut self.gc_rng, free_pages_by_type)
    }

    fn decide(&mut self, scheme: PaScheme, ctx: &WriteContext) -> Option<u8> {
        let lsb = Some(0);
        match scheme {
            PaScheme::Us => {
                let t = self.round_robin;
                self.round_robin = (self.round_robin + 1) % self.bits;
                Some(t)
            }
            PaScheme::Hgs => ctx.hint.map(|h| h.min(self.bits - 1)),
            PaScheme::Lfs => lsb,
            PaScheme::Sbs => (ctx.pages <= self.sbs_max_pages).then_some(0),
            PaScheme::Qds => (ctx.queue_length > self.qds_threshold).then_some(0),
            PaScheme::Wbs => (ctx.buffered_pages >= self.write_buffer_pages).then_some(0),
            PaScheme::Ubs => Some(ubs(&mut self.rng, ctx.free_pages_by_type)),
        }
    }
}

/// A type drawn with probability proportional to its free pages (LSB if none is free).
fn ubs(rng: &mut Pcg64Mcg, free: &[u64]) -> u8 {
    let total: u64 = free.iter().sum();
    if total == 0 {
        return 0;
    }
    let mut x = rng.random_range(0..total);
    for (t, &n) in free.iter().enumerate() {
        if x < n {
            return t as u8;
        }
        x -= n;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pages: u32, queue: u64, buffered: u64, hint: Option<u8>, free: &[u64]) -> WriteContext<'_> {
        WriteContext { pages, hint, queue_length: queue, buffered_pages: buffered, free_pages_by_type: free }
    }

    fn policy(scheme: &str) -> PaPolicy {
        let config = PaConfig { scheme: scheme.into(), qds_threshold: 10, sbs_max_pages: 1, write_buffer_pages: 8 };
        PaPolicy::new(&config, 3, 1)
    }

    #[test]
    fn each_scheme_follows_its_rule_request_by_request() {
        let free = [100, 100, 100];
        let mut us = policy("us");
        let types: Vec<u8> = (0..6).map(|_| us.assign(&ctx(1, 0, 0, None, &free))).collect();
        assert_eq!(types, vec![0, 1, 2, 0, 1, 2], "US: round robin");

        let mut lfs = policy("lfs");
        assert!((0..10).all(|i| lfs.assign(&ctx(i + 1, 50, 50, Some(2), &free)) == 0), "LFS: always LSB");

        let mut hgs = policy("hgs+lfs");
        assert_eq!(hgs.assign(&ctx(4, 0, 0, Some(0), &free)), 0);
        assert_eq!(hgs.assign(&ctx(4, 0, 0, Some(1), &free)), 1);
        assert_eq!(hgs.assign(&ctx(4, 0, 0, Some(3), &free)), 2, "hints above 2 mean long latency: MSB");
        assert_eq!(hgs.assign(&ctx(4, 0, 0, None, &free)), 0, "no hint: the complement (LFS) decides");

        let mut sbs = policy("sbs+us");
        assert_eq!(sbs.assign(&ctx(1, 0, 0, None, &free)), 0, "single sub-request: LSB");
        let big: Vec<u8> = (0..3).map(|_| sbs.assign(&ctx(2, 0, 0, None, &free))).collect();
        assert_eq!(big, vec![0, 1, 2], "larger: US");

        let mut qds = policy("qds+us");
        assert_eq!(qds.assign(&ctx(4, 11, 0, None, &free)), 0, "queue longer than 10: LSB");
        assert_eq!(qds.assign(&ctx(4, 10, 0, None, &free)), 0, "queue of 10: US, whose first pick is LSB");
        assert_eq!(qds.assign(&ctx(4, 10, 0, None, &free)), 1);
        assert_eq!(qds.assign(&ctx(4, 11, 0, None, &free)), 0);
        assert_eq!(qds.assign(&ctx(4, 3, 0, None, &free)), 2);

        let mut wbs = policy("wbs+us");
        assert_eq!(wbs.assign(&ctx(4, 0, 8, None, &free)), 0, "buffer full: LSB");
        let not_full: Vec<u8> = (0..3).map(|_| wbs.assign(&ctx(4, 0, 7, None, &free))).collect();
        assert_eq!(not_full, vec![0, 1, 2]);
    }

    #[test]
    fn ubs_follows_free_page_counts() {
        let mut p = policy("ubs");
        let free = [600, 300, 100];
        let n = 100_000;
        let mut counts = [0u64; 3];
        for _ in 0..n {
            counts[p.assign(&ctx(1, 0, 0, None, &free)) as usize] += 1;
        }
        for (t, &f) in free.iter().enumerate() {
            let expected = f as f64 / 1000.0;
            let got = counts[t] as f64 / n as f64;
            // 5 standard deviations of a binomial share at n = 100,000.
            let sigma = (expected * (1.0 - expected) / n as f64).sqrt();
            assert!((got - expected).abs() < 5.0 * sigma, "type {t}: {got:.4} vs {expected:.4}");
        }
        assert_eq!(ubs(&mut p.rng, &[0, 0, 5]), 2);
    }
}
