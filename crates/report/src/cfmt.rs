//! printf-compatible formatting helpers (glibc semantics) shared by the report modules.
//!
//! Widths count bytes, as C's do; `%.Nf` rounds the exact binary value of the double
//! half-to-even, as glibc does.

/// `printf("%.{prec}f", x)` as glibc prints it: the exact binary value of `x`, rounded
/// half-to-even at `prec` decimals (`prec` <= 6).
pub(crate) fn c_fixed(x: f64, prec: u32) -> String {
    debug_assert!(prec <= 6);
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x.is_sign_negative() {
        return format!("-{}", c_fixed(-x, prec));
    }
    let bits = x.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    // x = mant * 2^exp exactly.
    let (mant, exp) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    let scale = 10u128.pow(prec);
    let q: u128 = if exp >= 0 {
        if exp > 40 {
            // An integer too large for u128 arithmetic below: Rust prints integers exactly.
            return format!("{:.*}", prec as usize, x);
        }
        ((mant as u128) << exp) * scale
    } else {
        let sh = exp.unsigned_abs();
        let num = mant as u128 * scale; // < 2^73
        if sh >= 100 {
            0 // num / 2^sh < 2^-27: rounds to 0, never a tie
        } else {
            let q0 = num >> sh;
            let rem = num - (q0 << sh);
            let half = 1u128 << (sh - 1);
            if rem > half || (rem == half && q0 & 1 == 1) {
                q0 + 1
            } else {
                q0
            }
        }
    };
    let int = q / scale;
    if prec == 0 {
        return int.to_string();
    }
    format!("{}.{:0w$}", int, q % scale, w = prec as usize)
}

/// `ns / 1e6` as `%.3f` (what perf prints for `(double)ns / NSEC_PER_MSEC`).
pub(crate) fn ms3(ns: u64) -> String {
    c_fixed(ns as f64 / 1_000_000.0, 3)
}

/// `%*s`: right-align in `w` bytes (no truncation).
pub(crate) fn lpad(s: &str, w: usize) -> String {
    let mut out = String::with_capacity(w.max(s.len()));
    for _ in s.len()..w {
        out.push(' ');
    }
    out.push_str(s);
    out
}

/// `%-*s`: left-align in `w` bytes (no truncation).
pub(crate) fn rpad(s: &str, w: usize) -> String {
    let mut out = String::with_capacity(w.max(s.len()));
    out.push_str(s);
    for _ in s.len()..w {
        out.push(' ');
    }
    out
}

/// perf's `timestamp__scnprintf_usec`: `"%llu.%06llu"` of seconds and truncated microseconds.
pub(crate) fn ts_usec(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1_000)
}

/// Truncate to at most `max` bytes on a char boundary (C's `scnprintf` into a fixed buffer).
pub(crate) fn truncate_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_round_half_even_like_glibc() {
        assert_eq!(c_fixed(0.0625, 3), "0.062");
        assert_eq!(c_fixed(0.3125, 3), "0.312");
        assert_eq!(c_fixed(1.0625, 3), "1.062");
        assert_eq!(c_fixed(0.1875, 3), "0.188");
        assert_eq!(c_fixed(0.125, 2), "0.12");
        assert_eq!(c_fixed(0.375, 2), "0.38");
        assert_eq!(c_fixed(0.25, 1), "0.2");
        assert_eq!(c_fixed(0.75, 1), "0.8");
        assert_eq!(c_fixed(2.5, 0), "2");
        assert_eq!(c_fixed(3.5, 0), "4");
        assert_eq!(c_fixed(0.5, 0), "0");
    }

    #[test]
    fn non_ties_use_exact_binary_value() {
        // 0.0005 is 0.000500000000000000010408...: above the tie, so it rounds up.
        assert_eq!(c_fixed(0.0005, 3), "0.001");
        // 0.0045 is 0.00449999999999999965999...: below the tie.
        assert_eq!(c_fixed(0.0045, 3), "0.004");
        assert_eq!(c_fixed(99.9, 1), "99.9");
        assert_eq!(c_fixed(20.0, 1), "20.0");
        assert_eq!(c_fixed(0.0, 3), "0.000");
        assert_eq!(c_fixed(1897454.685, 3), "1897454.685");
        assert_eq!(c_fixed(1e20, 3), "100000000000000000000.000");
        assert_eq!(c_fixed(f64::MIN_POSITIVE, 3), "0.000");
        assert_eq!(c_fixed(-1.5, 1), "-1.5");
    }

    #[test]
    fn agrees_with_core_fmt_on_many_ns_values() {
        // Rust >= 1.67 also formats the exact value half-to-even; cross-check a sweep.
        let mut v: u64 = 1;
        for i in 0..200_000u64 {
            v = v
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let ns = match i % 3 {
                0 => i * 125,
                1 => v >> 20,
                _ => v >> 40,
            };
            let x = ns as f64 / 1e6;
            assert_eq!(ms3(ns), format!("{x:.3}"), "ns={ns}");
        }
    }

    #[test]
    fn padding_and_timestamps() {
        assert_eq!(lpad("1.5", 6), "   1.5");
        assert_eq!(rpad("ab", 4), "ab  ");
        assert_eq!(lpad("toolong", 3), "toolong");
        assert_eq!(ts_usec(15_000_000), "0.015000");
        assert_eq!(ts_usec(1_234_567_890_999), "1234.567890");
        assert_eq!(truncate_bytes("héllo", 2), "h");
    }
}
