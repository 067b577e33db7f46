//! schbench's latency histogram and its percentile report (`stats.c`: `plat_val_to_idx`,
//! `plat_idx_to_val`, `calc_percentiles`, `show_latencies`, `add_lat`) — fio's "magic latency
//! histogram" with `PLAT_BITS = 8`.

use crate::cfmt::{c_fixed, lpad, rpad};

/// Bits of resolution per power-of-two group.
pub const PLAT_BITS: u32 = 8;
/// Buckets per group.
pub const PLAT_VAL: usize = 1 << PLAT_BITS;
/// Number of groups.
pub const PLAT_GROUP_NR: usize = 19;
/// Number of buckets (4864).
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL;
/// schbench's `plist`: the percentiles computed.
pub const PLIST: [f64; 5] = [20.0, 50.0, 90.0, 99.0, 99.9];

/// `plat_val_to_idx`: values below 512 have their own bucket; above, the top 8 bits after the
/// most significant one pick a bucket in its power-of-two group (capped at the last bucket).
pub fn plat_val_to_idx(val: u32) -> usize {
    let msb = if val == 0 {
        0
    } else {
        31 - val.leading_zeros()
    };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as usize) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// `plat_idx_to_val`: the value a bucket reports — its own value below 512, else the middle of
/// its range (`base + (k + 0.5) * 2^error_bits`).
///
/// # Panics
/// If `idx >= PLAT_NR` (schbench exits).
pub fn plat_idx_to_val(idx: usize) -> u32 {
    assert!(idx < PLAT_NR, "idx {idx} is too large");
    if idx < (PLAT_VAL << 1) {
        return idx as u32;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u32 << (error_bits + PLAT_BITS);
    let k = (idx % PLAT_VAL) as u32;
    // (k + 0.5) * 2^eb with eb >= 1 is exact in integers.
    base + (k << error_bits) + (1 << (error_bits - 1))
}

/// schbench's `struct stats`: the bucket counts, sample count, min and max.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hist {
    plat: Vec<u64>,
    nr: u64,
    min: u32,
    max: u32,
}

impl Default for Hist {
    fn default() -> Self {
        Self::new()
    }
}

/// One computed percentile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percentile {
    /// The percentile (from [`PLIST`]).
    pub p: f64,
    /// The bucket value reported for it.
    pub value: u32,
    /// Samples in the buckets up to and including that bucket.
    pub cumulative: u64,
}

impl Hist {
    /// An empty histogram.
    pub fn new() -> Self {
        Hist {
            plat: vec![0; PLAT_NR],
            nr: 0,
            min: 0,
            max: 0,
        }
    }

    /// `add_lat`: record one sample (schbench keeps `unsigned int`; larger values saturate).
    /// Like schbench, `min` is replaced by the next sample whenever it is 0, so a 0 sample
    /// only stays the minimum if it is the last one.
    pub fn add(&mut self, v: u64) {
        let us = u32::try_from(v).unwrap_or(u32::MAX);
        if us > self.max {
            self.max = us;
        }
        if self.min == 0 || us < self.min {
            self.min = us;
        }
        self.plat[plat_val_to_idx(us)] += 1;
        self.nr += 1;
    }

    /// Number of samples (`nr_samples`).
    pub fn count(&self) -> u64 {
        self.nr
    }

    /// `min` as schbench tracks it.
    pub fn min(&self) -> u32 {
        self.min
    }

    /// Largest sample.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// `calc_percentiles` over [`PLIST`]: walk buckets in ascending order with a running sum
    /// and, while `sum >= p / 100 * nr`, record the bucket's value and the running sum.
    pub fn percentiles(&self) -> Vec<Percentile> {
        let mut out: Vec<Percentile> = PLIST
            .iter()
            .map(|&p| Percentile {
                p,
                value: 0,
                cumulative: 0,
            })
            .collect();
        let len = PLIST.len();
        let nr = self.nr as f64;
        let (mut sum, mut j) = (0u64, 0usize);
        'walk: for (i, &c) in self.plat.iter().enumerate() {
            sum += c;
            while sum as f64 >= PLIST[j] / 100.0 * nr {
                out[j].value = plat_idx_to_val(i);
                out[j].cumulative = sum;
                if j == len - 1 {
                    break 'walk;
                }
                j += 1;
            }
        }
        out
    }
}

/// schbench's `show_latencies` block. Latency blocks (`rps_style == false`) print the 50th,
/// 90th, 99th and 99.9th with the star on the 99th; RPS blocks print the 20th, 50th and 90th
/// with the star on the 50th. "samples" is the count between the previous percentile in
/// [`PLIST`] (printed or not) and this one.
pub fn format_schbench_block(
    title: &str,
    unit: &str,
    runtime_s: u64,
    hist: &Hist,
    rps_style: bool,
) -> String {
    let (shown, star): (&[usize], usize) = if rps_style {
        (&[0, 1, 2], 1)
    } else {
        (&[1, 2, 3, 4], 3)
    };
    let pct = hist.percentiles();
    let mut out = format!(
        "{title} percentiles ({unit}) runtime {runtime_s} (s) ({} total samples)\n",
        hist.count()
    );
    for &i in shown {
        let prev = if i == 0 { 0 } else { pct[i - 1].cumulative };
        out.push_str(&format!(
            "\t{}{}th: {} ({} samples)\n",
            if i == star { "* " } else { "  " },
            lpad(&c_fixed(pct[i].p, 1), 2),
            rpad(&pct[i].value.to_string(), 10),
            pct[i].cumulative.wrapping_sub(prev),
        ));
    }
    out.push_str(&format!("\t  min={}, max={}\n", hist.min(), hist.max()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_values_as_in_schbench_output() {
        // Every value is exact below 512.
        for v in 0..512 {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), v);
        }
        // 3772 = 2048 + 215.5 * 8 and 7448 = 4096 + 209.5 * 16.
        assert_eq!(plat_val_to_idx(3770), 1239);
        assert_eq!(plat_idx_to_val(1239), 3772);
        for v in 3768..3776 {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), 3772, "v={v}");
        }
        assert_eq!(plat_idx_to_val(plat_val_to_idx(7440)), 7448);
        assert_eq!(plat_idx_to_val(plat_val_to_idx(7455)), 7448);
        assert_eq!(plat_idx_to_val(plat_val_to_idx(7456)), 7464);
        assert_eq!(plat_val_to_idx(512), 512);
        assert_eq!(plat_idx_to_val(512), 513);
        assert_eq!(plat_val_to_idx(u32::MAX), PLAT_NR - 1);
    }

    #[test]
    fn min_follows_schbench_add_lat() {
        let mut h = Hist::new();
        for v in [0, 5, 3] {
            h.add(v);
        }
        assert_eq!((h.min(), h.max()), (3, 5));
        h.add(0);
        assert_eq!(h.min(), 0);
        h.add(9);
        assert_eq!(h.min(), 9);
    }
}
