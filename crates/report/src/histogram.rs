//! Histogram arithmetic: log-spaced bin edges and nearest-rank percentiles of nanosecond
//! samples, for the charts in [`crate::plot`] and the tables (no kernel counterpart; the log2
//! spacing mirrors the power-of-two buckets of `runqlat`-style BPF histograms, but with
//! arbitrary bin counts).
//!
//! Edges are computed with basic IEEE operations only (no libm), so they are the same on
//! every platform, wasm included.

/// The `i`-th of `bins + 1` edges spaced evenly in log2 from `lo` to `hi` (both > 0), rounded
/// up to whole ns; the last is `hi`, and edges a power of two apart from `lo` land exactly.
pub fn log_edge_ns(lo: f64, hi: f64, i: usize, bins: usize) -> u64 {
    let bins = bins.max(1);
    if i >= bins {
        return hi.ceil() as u64; // the last edge is `hi` itself, whatever the rounding
    }
    (lo * det_exp2(det_log2(hi / lo) * i as f64 / bins as f64))
        .ceil()
        .min(hi.ceil()) as u64
}

/// Nearest-rank percentile of an ascending slice: the smallest sample with at least `p`% of
/// the samples at or below it (`p` is taken to 3 decimals; 0 gives the minimum; an empty slice
/// gives 0).
pub fn percentile_ns(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len() as u128;
    let p_milli = (p.clamp(0.0, 100.0) * 1000.0 + 0.5) as u128; // p in thousandths
    let rank = (p_milli * n).div_ceil(100_000).clamp(1, n);
    sorted[(rank - 1) as usize]
}

/// log2 of a positive finite `x` with basic operations only.
fn det_log2(x: f64) -> f64 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52)); // [1, 2)
                                                                           // ln m = 2 atanh(z), z = (m - 1) / (m + 1) in [0, 1/3).
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let (mut term, mut sum) = (z, 0.0);
    for k in 0..40 {
        sum += term / (2 * k + 1) as f64;
        term *= z2;
    }
    e as f64 + 2.0 * sum / std::f64::consts::LN_2
}

/// 2^y with basic operations only.
fn det_exp2(y: f64) -> f64 {
    let n = y.floor();
    let f = (y - n) * std::f64::consts::LN_2; // [0, ln 2)
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..30 {
        term *= f / k as f64;
        sum += term;
    }
    let mut r = sum;
    let mut i = n as i64;
    while i > 0 {
        r *= 2.0;
        i -= 1;
    }
    while i < 0 {
        r *= 0.5;
        i += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_edges_are_exact_at_powers_of_two() {
        let e: Vec<u64> = (0..=10)
            .map(|i| log_edge_ns(1000.0, 1_024_000.0, i, 10))
            .collect();
        assert_eq!(e, (0..=10).map(|k| 1000u64 << k).collect::<Vec<_>>());
        // Decades: 10^(i/3) steps from 1 to 1000, within one ns of the true value.
        for (i, want) in [1.0f64, 10.0, 100.0, 1000.0].iter().enumerate() {
            let got = log_edge_ns(1.0, 1000.0, i, 3) as f64;
            assert!((got - want).abs() <= 1.0, "edge {i}: {got} vs {want}");
        }
    }

    #[test]
    fn nearest_rank() {
        let v: Vec<u64> = (1..=1000).collect();
        assert_eq!(percentile_ns(&v, 50.0), 500);
        assert_eq!(percentile_ns(&v, 99.9), 999);
        assert_eq!(percentile_ns(&v, 100.0), 1000);
        assert_eq!(percentile_ns(&v, 0.0), 1);
        assert_eq!(percentile_ns(&[5, 9], 50.0), 5);
        assert_eq!(percentile_ns(&[5, 9], 50.1), 9);
        assert_eq!(percentile_ns(&[], 50.0), 0);
    }
}
