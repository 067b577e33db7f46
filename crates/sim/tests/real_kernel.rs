//! Expectations measured on a real kernel (docs/measurements.md): Linux 6.18.44, 2 CPUs,
//! HZ=250, compared with the closest preset, eevdf-6.19 (same vprot protection and 0.70 ms
//! normalised base slice).

mod common;
use common::*;

#[test]
fn linux_6_18_two_hogs_take_4ms_turns() {
    // Measured: 506 turns, p10 3.991 ms, p50 3.999 ms, p90 4.007 ms.
    let out = run(
        &cfg(2, 250, 2_000 * MS, vec![hog("a", 0), hog("b", 0)]),
        "eevdf-6.19",
    );
    let r = runs(&out.trace, 1, 1);
    assert!(
        r.len() > 200 && all_within(&r, 3_991 * US, 4_019 * US),
        "runs {}",
        fmt_ms(&r)
    );
}

#[test]
fn linux_6_18_sched_idle_pair() {
    // Measured: the idle hog runs 3.995–4.005 ms, then waits 1363.999–1368.000 ms.
    let out = run(
        &cfg(2, 250, 8_000 * MS, vec![hog("hog", 0), idle_hog("idle")]),
        "eevdf-6.19",
    );
    let (r, w) = (runs(&out.trace, 2, 0), waits(&out.trace, 2, 0));
    assert!(
        r.len() >= 5 && all_within(&r, 3_995 * US, 4_005 * US),
        "idle runs {}",
        fmt_ms(&r)
    );
    assert!(
        w.len() >= 4 && all_within(&w, 1_363_999 * US, 1_368_001 * US),
        "idle waits {}",
        fmt_ms(&w)
    );
}
