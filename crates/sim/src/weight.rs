//! Load weights and the kernel's fixed-point division by a weight.
//!
//! Mirrors `kernel/sched/core.c` (`sched_prio_to_weight`, `sched_prio_to_wmult`) and
//! `kernel/sched/fair.c` (`__update_inv_weight`, `__calc_delta`, `calc_delta_fair`), identical in
//! 6.1 … 6.19 on 64-bit kernels.
//!
//! A division by a weight is done as a multiplication by a precomputed inverse (≈ 2^32 / w)
//! followed by a shift. The result is truncated and can be a few ns below the exact quotient
//! (24 ms × 1024/2048 = 11 999 994 ns). Several observable outcomes sit on that truncation: a
//! CFS slice of 11 999 994 ns expires on the 13th tick, not the 12th. No floating point here.

/// `SCHED_FIXEDPOINT_SHIFT`: internal loads are user weights shifted left by 10 on 64-bit kernels.
pub const SCHED_FIXEDPOINT_SHIFT: u32 = 10;
/// `NICE_0_LOAD` as stored internally (`scale_load(1024)`).
pub const NICE_0_LOAD: u64 = 1024 << SCHED_FIXEDPOINT_SHIFT;
/// `WMULT_CONST` = `~0U`.
pub const WMULT_CONST: u64 = 0xffff_ffff;
/// `WMULT_SHIFT`.
pub const WMULT_SHIFT: u32 = 32;
/// `WEIGHT_IDLEPRIO`: the user weight of every SCHED_IDLE task, whatever its nice value.
pub const WEIGHT_IDLEPRIO: u32 = 3;
/// `WMULT_IDLEPRIO`: its inverse.
pub const WMULT_IDLEPRIO: u32 = 1_431_655_765;

/// `sched_prio_to_weight[nice + 20]`.
pub const SCHED_PRIO_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, // -20 .. -16
    29154, 23254, 18705, 14949, 11916, // -15 .. -11
    9548, 7620, 6100, 4904, 3906, // -10 .. -6
    3121, 2501, 1991, 1586, 1277, // -5 .. -1
    1024, 820, 655, 526, 423, // 0 .. 4
    335, 272, 215, 172, 137, // 5 .. 9
    110, 87, 70, 56, 45, // 10 .. 14
    36, 29, 23, 18, 15, // 15 .. 19
];

/// `sched_prio_to_wmult[nice + 20]`, ≈ 2^32 / weight with per-entry rounding; used verbatim.
pub const SCHED_PRIO_TO_WMULT: [u32; 40] = [
    48388, 59856, 76040, 92818, 118348, // -20 .. -16
    147320, 184698, 229616, 287308, 360437, // -15 .. -11
    449829, 563644, 704093, 875809, 1099582, // -10 .. -6
    1376151, 1717300, 2157191, 2708050, 3363326, // -5 .. -1
    4194304, 5237765, 6557202, 8165337, 10153587, // 0 .. 4
    12820798, 15790321, 19976592, 24970740, 31350126, // 5 .. 9
    39045157, 49367440, 61356676, 76695844, 95443717, // 10 .. 14
    119304647, 148102320, 186737708, 238609294, 286331153, // 15 .. 19
];

/// `struct load_weight`: an internal (scaled) weight and its cached inverse.
///
/// `inv_weight == 0` means "not computed": the kernel recomputes it lazily as
/// ⌊(2^32 − 1) / scale_load_down(weight)⌋, which is what happens for sums of weights
/// (`update_load_add` clears it). A task's own weight carries the table inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LoadWeight {
    /// Scaled weight (user weight << 10).
    pub weight: u64,
    /// Cached inverse, 0 when it must be derived.
    pub inv_weight: u32,
}

impl LoadWeight {
    /// The load of a task with the given nice value (`set_load_weight`, SCHED_NORMAL/BATCH).
    pub fn from_nice(nice: i32) -> LoadWeight {
        let idx = (nice.clamp(-20, 19) + 20) as usize;
        LoadWeight {
            weight: (SCHED_PRIO_TO_WEIGHT[idx] as u64) << SCHED_FIXEDPOINT_SHIFT,
            inv_weight: SCHED_PRIO_TO_WMULT[idx],
        }
    }

    /// The load of a SCHED_IDLE task.
    pub fn idle() -> LoadWeight {
        LoadWeight {
            weight: (WEIGHT_IDLEPRIO as u64) << SCHED_FIXEDPOINT_SHIFT,
            inv_weight: WMULT_IDLEPRIO,
        }
    }

    /// A sum of weights with no cached inverse (`update_load_add`).
    pub fn sum(weight: u64) -> LoadWeight {
        LoadWeight {
            weight,
            inv_weight: 0,
        }
    }

    /// The user-visible weight (`scale_load_down`).
    pub fn user(&self) -> u64 {
        scale_load_down(self.weight)
    }

    fn inverse(&self) -> u32 {
        if self.inv_weight != 0 {
            return self.inv_weight;
        }
        // __update_inv_weight
        let w = scale_load_down(self.weight);
        if w >= WMULT_CONST {
            1
        } else {
            // w == 0 → WMULT_CONST
            WMULT_CONST.checked_div(w).unwrap_or(WMULT_CONST) as u32
        }
    }
}

/// `scale_load_down(w)`: `max(2, w >> 10)` for a non-zero `w`.
pub fn scale_load_down(w: u64) -> u64 {
    if w == 0 {
        0
    } else {
        core::cmp::max(2, w >> SCHED_FIXEDPOINT_SHIFT)
    }
}

/// `fls()`: position of the most significant set bit, 1-based; 0 for 0.
fn fls(x: u32) -> u32 {
    32 - x.leading_zeros()
}

/// `__calc_delta(delta, weight, lw)` = delta × weight / lw.weight, truncated the kernel's way.
///
/// fact = scale_load_down(weight) × inv(lw); while fact does not fit in 32 bits it is shifted
/// right and the final shift (32) shrinks by as much; the result is (delta × fact) >> shift with
/// a 64×32→96-bit product. The bits dropped from `fact` are where the truncation comes from.
pub fn calc_delta(delta: u64, weight: u64, lw: &LoadWeight) -> u64 {
    let mut fact = scale_load_down(weight);
    let mut shift = WMULT_SHIFT;

    let fact_hi = (fact >> 32) as u32;
    if fact_hi != 0 {
        let fs = fls(fact_hi);
        shift -= fs;
        fact >>= fs;
    }

    fact = (fact as u32 as u64) * (lw.inverse() as u64);

    let fact_hi = (fact >> 32) as u32;
    if fact_hi != 0 {
        let fs = fls(fact_hi);
        shift -= fs;
        fact >>= fs;
    }

    mul_u64_u32_shr(delta, fact as u32, shift)
}

/// `mul_u64_u32_shr(a, mul, shift)`: the low 64 bits of (a × mul) >> shift, for shift ≤ 32, in
/// the kernel's generic form (include/linux/math64.h): two 32×32→64 products, so no 128-bit
/// multiplication (which WebAssembly would emulate).
pub fn mul_u64_u32_shr(a: u64, mul: u32, shift: u32) -> u64 {
    debug_assert!(shift <= 32);
    let (ah, al) = (a >> 32, a & 0xffff_ffff);
    let ret = (al * mul as u64) >> shift;
    if ah == 0 {
        return ret;
    }
    ret.wrapping_add((ah * mul as u64) << (32 - shift))
}

/// `calc_delta_fair(delta, se)`: real time → virtual time of an entity with load `lw`.
/// The identity for exactly NICE_0_LOAD, otherwise `__calc_delta(delta, NICE_0_LOAD, lw)`.
pub fn calc_delta_fair(delta: u64, lw: &LoadWeight) -> u64 {
    if lw.weight != NICE_0_LOAD {
        calc_delta(delta, NICE_0_LOAD, lw)
    } else {
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 64-bit form is the definition, the low 64 bits of the 96-bit product shifted: checked
    /// against 128-bit arithmetic at the edges (0, a carry out of 64 bits) and on a spread of
    /// values.
    #[test]
    fn mul_u64_u32_shr_is_the_shifted_product() {
        let want = |a: u64, m: u32, s: u32| ((a as u128 * m as u128) >> s) as u64;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut cases = alloc::vec![
            (0, 0, 32),
            (u64::MAX, u32::MAX, 32),
            (u64::MAX, u32::MAX, 0),
            (u64::MAX, 2, 0),
            (1 << 32, 1, 32),
            ((1 << 32) - 1, u32::MAX, 32),
        ];
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push((x >> (x % 64), (x >> 17) as u32, (x % 33) as u32));
        }
        for (a, m, s) in cases {
            assert_eq!(mul_u64_u32_shr(a, m, s), want(a, m, s), "{a} × {m} >> {s}");
        }
    }

    #[test]
    fn reference_1_4_examples() {
        // §1.4: 24 ms × 1024/2048 → 11 999 994 (inverse of the sum 2048 is 2^32-1 / 2048).
        assert_eq!(
            calc_delta(24_000_000, NICE_0_LOAD, &LoadWeight::sum(2 * NICE_0_LOAD)),
            11_999_994
        );
        assert_eq!(calc_delta_fair(1_000_000, &LoadWeight::idle()), 341_333_333);
        assert_eq!(
            calc_delta_fair(3_000_000, &LoadWeight::idle()),
            1_023_999_999
        );
        assert_eq!(
            calc_delta_fair(1_000_000, &LoadWeight::from_nice(19)),
            68_266_666
        );
        assert_eq!(
            calc_delta_fair(1_000_000, &LoadWeight::from_nice(-20)),
            11_536
        );
        assert_eq!(
            calc_delta_fair(1_000_000, &LoadWeight::from_nice(0)),
            1_000_000
        );
    }

    #[test]
    fn scale_load_down_floor_is_two() {
        assert_eq!(scale_load_down(0), 0);
        assert_eq!(scale_load_down(1), 2);
        assert_eq!(scale_load_down(3 << 10), 3);
    }
}
