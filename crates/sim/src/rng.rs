//! A small owned PRNG and duration sampling.
//!
//! Library RNGs may change their output between versions, which would silently change every
//! golden file; this one is fixed forever. Sampling uses only IEEE-754 basic operations (+ − × ÷),
//! which give the same bits natively and in wasm, so the same seed gives the same trace on both.

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, passes BigCrush, trivially seedable.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for stream `stream` of a scenario seeded with `seed`. Each task has its own
    /// stream, so adding a task does not change what the others draw.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng {
            state: seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03),
        };
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n) without modulo bias worth measuring (Lemire's multiply-shift).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in (0, 1].
    fn unit_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: u64) -> u64 {
        let x = -ln(self.unit_open0()) * mean as f64;
        to_ns(x)
    }

    /// Approximately normal (Irwin–Hall: the sum of 12 uniforms, minus 6), clamped at 1 ns.
    /// Tails beyond ±6 σ are cut, which a workload generator does not miss.
    pub fn normal(&mut self, mean: u64, stddev: u64) -> u64 {
        let mut s = 0.0f64;
        for _ in 0..12 {
            s += self.unit_open0();
        }
        to_ns(mean as f64 + (s - 6.0) * stddev as f64)
    }
}

fn to_ns(x: f64) -> u64 {
    if x.is_nan() || x < 1.0 {
        1
    } else if x > 1e18 {
        1_000_000_000_000_000_000
    } else {
        x as u64
    }
}

/// Natural logarithm from basic operations only (no libm, so native and wasm agree bit for bit).
/// x = m·2^e with m in [√½, √2); ln m = 2·atanh(s), s = (m−1)/(m+1), |s| < 0.172; the series
/// to s^29 is below one ulp.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if e == -1023 {
        // Subnormal: normalise by scaling up by 2^54.
        let y = x * 18_014_398_509_481_984.0;
        let b = y.to_bits();
        e = ((b >> 52) & 0x7ff) as i64 - 1023 - 54;
        m = f64::from_bits((b & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    }
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut k = 1.0;
    while k < 31.0 {
        sum += term / k;
        term *= s2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * core::f64::consts::LN_2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_matches_known_values() {
        for (x, want) in [
            (1.0, 0.0),
            (core::f64::consts::E, 1.0),
            (0.5, -core::f64::consts::LN_2),
            (1e-300, -690.7755278982137),
            (123456.789, 11.723646487185881),
        ] {
            let got = ln(x);
            assert!(
                (got - want).abs() <= 1e-13 * want.abs().max(1.0),
                "ln({x}) = {got}, want {want}"
            );
        }
    }

    #[test]
    fn exp_sample_mean_is_close() {
        let mut r = Rng::new(7, 1);
        let n = 20000;
        let sum: u64 = (0..n).map(|_| r.exp(9000)).sum();
        let mean = sum / n;
        assert!((8700..9300).contains(&mean), "mean {mean}");
    }

    #[test]
    fn streams_are_independent_and_fixed() {
        let a: [u64; 2] = [Rng::new(1, 0).next_u64(), Rng::new(1, 1).next_u64()];
        assert_ne!(a[0], a[1]);
        // Fixed forever: golden files depend on it. SplitMix64 from state 0 gives
        // 0xE220A8397B1DCDAF, then 0x6E789E6AA1B965F4 (Vigna's reference splitmix64.c); `new`
        // discards the first output.
        assert_eq!(Rng::new(0, 0).next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(Rng::new(1, 0).next_u64(), Rng::new(1, 0).next_u64());
    }
}
