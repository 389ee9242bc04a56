//! Published analytic models the simulator is checked against (`tests/it/theory.rs`):
//! write amplification of FIFO and greedy garbage collection under uniform random
//! single-page writes, and the saturation throughput of a write-only closed loop.
//!
//! # Spare factor
//!
//! Papers define over-provisioning differently, so every function here takes the
//! **spare factor** of Desnoyers (SYSTOR 2012, "Analytic modeling of SSD write
//! performance"):
//!
//! ```text
//! spare factor  Sf = (T − U) / T        α = T / U = 1 / (1 − Sf)
//! ```
//!
//! where `U` is the number of logical pages the host writes to (all of them hold data:
//! the drive is full) and `T` is the number of physical pages that hold data, valid or
//! invalid, in steady state: the blocks the cleaner chooses among plus the programmed
//! part of the write frontier. Pages kept erased (a free-block reserve, the unprogrammed
//! rest of open blocks) are *not* part of `T`. Other conventions, for conversion:
//! Agarwal & Marrow (2010) and Xiang & Kurkoski (2011) use the over-provisioning factor
//! `ρ = (T − U) / U = α − 1`; ssdlab's `ftl.over_provisioning` is `(P − U) / P` of the
//! raw physical pages `P ≥ T`, i.e. an upper bound on the spare factor that ignores the
//! free-block reserve and the open blocks ([`spare_factor`] computes the model's value).
//!
//! # Models
//!
//! * FIFO (LRW, "least recently written") — Desnoyers 2012, Eq. 4. A page survives
//!   from its write to its block's cleaning while `T(1 − u)` host writes go by, each
//!   hitting it with probability `1/U`, so the victim's valid fraction `u` solves
//!   `u = exp(−α (1 − u))`, that is `u = −W₀(−α e^{−α}) / α`, and
//!   `WAF = 1 / (1 − u) = α / (α + W₀(−α e^{−α}))`. The same expression is the
//!   greedy model of Xiang & Kurkoski (arXiv:1110.4245, 2011), and the limit of the
//!   greedy model below as the pages per block grow.
//! * Greedy — Desnoyers 2012, Eq. 12: `WAF_greedy(α, Np) = WAF_FIFO(kα) / k` with
//!   `k = 1 + 1/(2 Np)`. It is the continuous form of the mean-field picture in which a
//!   block's valid count decays from `Np` to the cleaning level `c`, spending time
//!   proportional to `1/j` at level `j` (`Np / α = (Np − c) / (H_Np − H_c)`), with the
//!   harmonic sums replaced by `ln((Np + ½)/(c + ½))`; the unit tests check the two agree.
//!
//! All models assume a single cleaning pool with one write frontier, uniformly random
//! single-page overwrites of a full logical space, and many blocks.

/// The spare factor `(T − U) / T` of `data_pages` physical pages holding data (valid or
/// invalid) and `logical_pages` logical pages. See the [module docs](self).
pub fn spare_factor(data_pages: f64, logical_pages: f64) -> f64 {
    assert!(
        data_pages > logical_pages && logical_pages > 0.0,
        "need data pages {data_pages} > logical {logical_pages}"
    );
    (data_pages - logical_pages) / data_pages
}

/// `α = T / U = 1 / (1 − Sf)`.
fn alpha_of(spare_factor: f64) -> f64 {
    assert!(spare_factor > 0.0 && spare_factor < 1.0, "spare factor {spare_factor} must be in (0, 1)");
    1.0 / (1.0 - spare_factor)
}

/// The non-trivial root `u ∈ (0, 1)` of `u = exp(−α (1 − u))` for `α > 1`: the valid
/// fraction of a FIFO victim (Desnoyers 2012, Eq. 4). Newton's method from 0
/// converges monotonically because `u − exp(−α(1 − u))` is concave and rising there.
fn lru_root(alpha: f64) -> f64 {
    assert!(alpha > 1.0, "α = T/U = {alpha} must exceed 1");
    let mut u = 0.0f64;
    for _ in 0..200 {
        let e = (-alpha * (1.0 - u)).exp();
        let step = (u - e) / (1.0 - alpha * e);
        u -= step;
        if step.abs() < 1e-15 {
            break;
        }
    }
    u
}

/// Valid fraction of the block FIFO (LRW) cleaning erases under uniform random writes:
/// the root `u < 1` of `u = exp(−(1 − u) / (1 − Sf))`.
pub fn fifo_victim_valid_fraction(spare_factor: f64) -> f64 {
    lru_root(alpha_of(spare_factor))
}

/// Write amplification of FIFO (LRW) cleaning under uniform random single-page writes
/// (Desnoyers, SYSTOR 2012, Eq. 4): `1 / (1 − u)` with `u` from
/// [`fifo_victim_valid_fraction`]. `spare_factor` is `(T − U) / T` (module docs).
pub fn waf_fifo_uniform(spare_factor: f64) -> f64 {
    1.0 / (1.0 - fifo_victim_valid_fraction(spare_factor))
}

/// Write amplification of greedy cleaning (fewest valid pages first) under uniform
/// random single-page writes with `pages_per_block` pages per block (Desnoyers, SYSTOR
/// 2012, Eq. 12): `WAF_FIFO(kα) / k`, `k = 1 + 1/(2 · pages_per_block)`,
/// `α = 1 / (1 − spare_factor)`. `spare_factor` is `(T − U) / T` (module docs). It tends
/// to [`waf_fifo_uniform`] as the blocks grow and lies below it for any finite block.
pub fn waf_greedy_uniform(spare_factor: f64, pages_per_block: u32) -> f64 {
    assert!(pages_per_block > 0, "pages_per_block must be positive");
    let k = 1.0 + 1.0 / (2.0 * pages_per_block as f64);
    let alpha = alpha_of(spare_factor);
    1.0 / (1.0 - lru_root(k * alpha)) / k
}

/// Saturation bandwidth of a write-only closed loop whose flash array is the bottleneck:
/// every plane programs one page after another, `planes × page_size / mean tPROG`, in
/// bytes per second. `mean_program_latency_ns` is the mean over the pages a block is
/// programmed with ([`mean_program_latency_ns`]).
pub fn saturation_write_bytes_per_s(planes: u32, page_size_bytes: u32, mean_program_latency_ns: f64) -> f64 {
    planes as f64 * page_size_bytes as f64 / (mean_program_latency_ns * 1e-9)
}

/// Mean program latency over the pages of a block: `pages_of_type[t]` pages of type `t`
/// (LSB first) take `program_latency_ns[t]` each.
pub fn mean_program_latency_ns(pages_of_type: &[u32], program_latency_ns: &[u64]) -> f64 {
    assert_eq!(pages_of_type.len(), program_latency_ns.len(), "one latency per page type");
    let pages: u64 = pages_of_type.iter().map(|&n| n as u64).sum();
    assert!(pages > 0, "a block has pages");
    let total: f64 = pages_of_type.iter().zip(program_latency_ns).map(|(&n, &t)| n as f64 * t as f64).sum();
    total / pages as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Principal branch of Lambert's W on [−1/e, 0) by Halley's method: the closed form
    /// of Eq. 4, computed independently of [`lru_root`].
    fn lambert_w0(x: f64) -> f64 {
        assert!((-1.0 / std::f64::consts::E..0.0).contains(&x));
        let mut w = -0.5f64;
        for _ in 0..100 {
            let e = w.exp();
            let f = w * e - x;
            let step = f / (e * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
            w -= step;
            if step.abs() < 1e-15 {
                break;
            }
        }
        w
    }

    /// Harmonic number of a real argument, `H(x) = ψ(x + 1) + γ`, with the digamma by
    /// recurrence to x ≥ 10 and its asymptotic series.
    fn harmonic(x: f64) -> f64 {
        let mut z = x + 1.0;
        let mut acc = 0.0;
        while z < 10.0 {
            acc -= 1.0 / z;
            z += 1.0;
        }
        let z2 = 1.0 / (z * z);
        let digamma = z.ln() - 0.5 / z - z2 * (1.0 / 12.0 - z2 * (1.0 / 120.0 - z2 / 252.0));
        digamma + acc + 0.577_215_664_901_532_9
    }

    /// The mean-field greedy model with exact harmonic sums: the cleaning level `c`
    /// solves `Np / α = (Np − c) / (H_Np − H_c)` and `WAF = Np / (Np − c)`.
    fn greedy_harmonic(spare_factor: f64, pages_per_block: u32) -> f64 {
        let b = pages_per_block as f64;
        let target = b * (1.0 - spare_factor);
        let mean_valid = |c: f64| (b - c) / (harmonic(b) - harmonic(c));
        // mean_valid rises from b/H_b at c = 0 to b at c → b.
        let (mut lo, mut hi) = (0.0, b - 1e-9);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mean_valid(mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        b / (b - 0.5 * (lo + hi))
    }

    #[test]
    fn fifo_root_matches_the_lambert_w_closed_form() {
        for sf in [0.05f64, 0.1, 0.2, 0.3, 0.5, 0.8] {
            let alpha = 1.0 / (1.0 - sf);
            let closed = alpha / (alpha + lambert_w0(-alpha * (-alpha).exp()));
            let got = waf_fifo_uniform(sf);
            assert!((got - closed).abs() < 1e-9 * closed, "Sf {sf}: {got} vs {closed}");
            let u = fifo_victim_valid_fraction(sf);
            assert!((u - (-(1.0 - u) * alpha).exp()).abs() < 1e-12, "u solves its equation");
            assert!(u > 0.0 && u < 1.0);
        }
    }

    #[test]
    fn fifo_matches_the_number_printed_by_xiang_and_kurkoski() {
        // arXiv:1110.4245 (abstract): over-provisioning factor ρ = (T − U)/U = 0.3 gives
        // a write amplification of 2.36 (their greedy expression, which is Eq. 4), where
        // Agarwal & Marrow's (1 + ρ)/(2ρ) gives 2.17; simulation gave 2.35.
        let rho: f64 = 0.3;
        let sf = rho / (1.0 + rho);
        let waf = waf_fifo_uniform(sf);
        assert!((waf - 2.36).abs() < 0.005, "WAF {waf:.4}");
        assert!(((1.0 + rho) / (2.0 * rho) - 2.17).abs() < 0.005, "the conversion ρ ↔ Sf is the paper's");
    }

    #[test]
    fn fifo_write_amplification_falls_with_spare_space_and_has_the_small_spare_limit() {
        let wafs: Vec<f64> = [0.05, 0.1, 0.2, 0.4, 0.9].iter().map(|&sf| waf_fifo_uniform(sf)).collect();
        assert!(wafs.windows(2).all(|w| w[0] > w[1]), "{wafs:?}");
        assert!(wafs[4] > 1.0 && wafs[4] < 1.01, "{wafs:?}");
        // Expanding u = exp(−α(1 − u)) to second order in 1 − u: WAF → α² / (2(α − 1))
        // as α → 1 (Agarwal & Marrow's (1 + ρ)/(2ρ) to first order in ρ = α − 1).
        for sf in [1e-3, 1e-4] {
            let alpha = 1.0 / (1.0 - sf);
            let limit = alpha * alpha / (2.0 * (alpha - 1.0));
            let waf = waf_fifo_uniform(sf);
            assert!((waf / limit - 1.0).abs() < 0.01, "Sf {sf}: {waf} vs {limit}");
        }
    }

    #[test]
    fn greedy_approaches_fifo_from_below_as_blocks_grow() {
        for sf in [0.07, 0.15, 0.3] {
            let fifo = waf_fifo_uniform(sf);
            let by_size: Vec<f64> = [4, 16, 64, 256, 1 << 20].iter().map(|&np| waf_greedy_uniform(sf, np)).collect();
            assert!(by_size.windows(2).all(|w| w[0] < w[1]), "Sf {sf}: {by_size:?}");
            assert!(by_size.iter().all(|&a| a < fifo && a > 1.0), "Sf {sf}: {by_size:?} vs FIFO {fifo}");
            assert!((by_size[4] - fifo).abs() < 1e-4 * fifo, "Sf {sf}: limit {} vs {fifo}", by_size[4]);
        }
    }

    #[test]
    fn greedy_eq12_agrees_with_the_exact_harmonic_mean_field_model() {
        for np in [16, 32, 64, 128, 256] {
            for sf in [0.07, 0.1, 0.15, 0.2, 0.3] {
                let eq12 = waf_greedy_uniform(sf, np);
                let exact = greedy_harmonic(sf, np);
                assert!((eq12 - exact).abs() < 0.005 * exact, "Np {np}, Sf {sf}: Eq. 12 {eq12:.4}, sums {exact:.4}");
            }
        }
    }

    #[test]
    fn spare_factor_and_saturation_helpers() {
        assert!((spare_factor(100.0, 80.0) - 0.2).abs() < 1e-12);
        // TLC staircase: equal pages of each type.
        let mean = mean_program_latency_ns(&[16, 16, 16], &[500_000, 2_000_000, 5_500_000]);
        assert!((mean - 2_666_666.666).abs() < 1.0);
        let bw = saturation_write_bytes_per_s(8, 4096, 500_000.0);
        assert!((bw - 8.0 * 4096.0 / 500e-6).abs() < 1e-6);
    }
}
