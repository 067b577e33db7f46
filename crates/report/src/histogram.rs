//! Plain histograms and nearest-rank percentiles of nanosecond samples, for plots and
//! tables (no kernel counterpart; the log2 spacing mirrors the power-of-two buckets of
//! `runqlat`-style BPF histograms, but with arbitrary bin counts).
//!
//! Edges are computed with basic IEEE operations only (no libm), so they are the same on
//! every platform, wasm included.

/// Counts of samples between consecutive edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// `bins + 1` non-decreasing edges, ns. Bin `i` holds `edges[i] <= v < edges[i + 1]`; the
    /// last bin also holds `v == edges[bins]` and anything above it, the first anything below.
    pub edges_ns: Vec<u64>,
    /// Samples per bin.
    pub counts: Vec<u64>,
}

/// Bins `samples` into `bins` bins (at least 1) spanning `[min, max]`, where `min` is the
/// smallest sample and `max` is `max_ns` if given (so that runs of different variants share
/// one scale) or else the largest sample. `log` spaces the edges evenly in log2 (the lower
/// end is then at least 1 ns); samples above `max` land in the last bin.
pub fn histogram(samples: &[u64], bins: usize, log: bool, max_ns: Option<u64>) -> Histogram {
    let bins = bins.max(1);
    let smin = samples.iter().copied().min().unwrap_or(0);
    let hi = max_ns.unwrap_or_else(|| samples.iter().copied().max().unwrap_or(0));
    let mut lo = smin.min(hi);
    if log {
        lo = lo.max(1);
    }
    let hi = hi.max(lo);
    let mut edges: Vec<u64> = (0..=bins)
        .map(|i| {
            if i == 0 {
                lo
            } else if i == bins {
                hi
            } else if log {
                let (l0, l1) = (det_log2(lo as f64), det_log2(hi as f64));
                let e = det_exp2(l0 + (l1 - l0) * i as f64 / bins as f64);
                (e + 0.5) as u64
            } else {
                lo + ((hi - lo) as u128 * i as u128 / bins as u128) as u64
            }
        })
        .collect();
    for i in 1..edges.len() {
        edges[i] = edges[i].clamp(edges[i - 1], hi);
    }
    let mut counts = vec![0u64; bins];
    for &v in samples {
        let k = edges.partition_point(|&e| e <= v);
        counts[k.saturating_sub(1).min(bins - 1)] += 1;
    }
    Histogram {
        edges_ns: edges,
        counts,
    }
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
    fn linear_bins() {
        let h = histogram(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5, false, None);
        assert_eq!(h.edges_ns, vec![0, 2, 4, 6, 8, 10]);
        assert_eq!(h.counts, vec![2, 2, 2, 2, 3]);
        // A shared max stretches the scale; over-max samples go to the last bin.
        let h = histogram(&[10, 20, 500], 4, false, Some(100));
        assert_eq!(h.edges_ns, vec![10, 32, 55, 77, 100]);
        assert_eq!(h.counts, vec![2, 0, 0, 1]);
    }

    #[test]
    fn log_bins() {
        let h = histogram(&[1, 2, 4, 8, 16, 1024], 10, true, None);
        assert_eq!(
            h.edges_ns,
            vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
        );
        assert_eq!(h.counts, vec![1, 1, 1, 1, 1, 0, 0, 0, 0, 1]);
        let h = histogram(&[0, 3], 3, true, Some(1000));
        assert_eq!(h.edges_ns, vec![1, 10, 100, 1000]);
        assert_eq!(h.counts, vec![2, 0, 0]);
    }

    #[test]
    fn degenerate_inputs() {
        let h = histogram(&[], 3, false, None);
        assert_eq!(h.edges_ns, vec![0, 0, 0, 0]);
        assert_eq!(h.counts, vec![0, 0, 0]);
        let h = histogram(&[7, 7], 0, false, None);
        assert_eq!(h.counts, vec![2]);
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
