//! The variant comparison: figures, ratios, deltas and the table layout.
mod common;
use common::*;

use schedlab_report::compare::{format_comparison, summarize, VariantSummary};
use schedlab_sim::{CpuStats, Trace};

const US: u64 = 1_000;

fn stats(check: u64, need: u64) -> CpuStats {
    CpuStats {
        check_preempt_count: check,
        need_preempt_count: need,
        ..Default::default()
    }
}

/// Task 1 ("hb") waits 100 µs and runs 200 µs, task 2 ("bg") waits 300 µs and runs 400 µs.
fn cfs() -> Trace {
    trace(
        1,
        &[(1, "hb"), (2, "bg")],
        vec![
            waking(0, 0, 1),
            waking(0, 0, 2),
            sw(100 * US, 0, 0, 'R', 1),
            runtime(300 * US, 0, 1, 200 * US),
            sw(300 * US, 0, 1, 'S', 2),
            runtime(700 * US, 0, 2, 400 * US),
            sw(700 * US, 0, 2, 'S', 0),
        ],
    )
}

/// Task 1 waits 50 µs and runs 200 µs, task 2 waits 250 µs and runs 600 µs; then an
/// idle → idle switch, which is not counted.
fn eevdf() -> Trace {
    trace(
        1,
        &[(1, "hb"), (2, "bg")],
        vec![
            waking(0, 0, 1),
            waking(0, 0, 2),
            sw(50 * US, 0, 0, 'R', 1),
            runtime(250 * US, 0, 1, 200 * US),
            sw(250 * US, 0, 1, 'S', 2),
            runtime(850 * US, 0, 2, 600 * US),
            sw(850 * US, 0, 2, 'S', 0),
            sw(900 * US, 0, 0, 'R', 0),
        ],
    )
}

fn sets() -> Vec<(String, Vec<u32>)> {
    vec![("hb".into(), vec![1]), ("bg".into(), vec![2])]
}

fn two_variants() -> [VariantSummary; 2] {
    [
        summarize(
            "cfs",
            &cfs(),
            &[stats(3, 1), stats(1, 1)],
            &sets(),
            Some(("op/s".into(), 100.0)),
        ),
        summarize(
            "eevdf",
            &eevdf(),
            &[stats(4, 1), stats(0, 0)],
            &sets(),
            Some(("op/s".into(), 80.0)),
        ),
    ]
}

#[test]
fn summaries() {
    let [a, b] = two_variants();
    assert_eq!(a.variant, "cfs");
    assert_eq!(a.switches, 3);
    assert_eq!((a.delay_avg_ns, a.delay_max_ns), (200 * US, 300 * US));
    assert_eq!(a.preempt_ratio, Some(0.5));
    assert_eq!(a.shares[0].0, "hb");
    assert!((a.shares[0].1 - 1.0 / 3.0).abs() < 1e-12);
    assert!((a.shares[1].1 - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(a.throughput, Some(("op/s".into(), 100.0)));

    assert_eq!(b.switches, 3); // idle → idle left out
    assert_eq!((b.delay_avg_ns, b.delay_max_ns), (150 * US, 250 * US));
    assert_eq!(b.preempt_ratio, Some(0.25));
    assert_eq!(
        b.shares,
        [("hb".to_string(), 0.25), ("bg".to_string(), 0.75)]
    );
}

#[test]
fn no_checks_no_ratio_no_cpu_no_share() {
    let s = summarize("empty", &Trace::default(), &[stats(0, 0)], &sets(), None);
    assert_eq!(s.switches, 0);
    assert_eq!((s.delay_avg_ns, s.delay_max_ns), (0, 0));
    assert_eq!(s.preempt_ratio, None);
    assert_eq!(s.shares, [("hb".to_string(), 0.0), ("bg".to_string(), 0.0)]);
}

#[test]
fn comparison_layout() {
    let text = format_comparison(&two_variants());
    let want = "\
variant  switches  avg delay ms  max delay ms  wakeup preempt  share hb  share bg   throughput
cfs             3         0.200         0.300           50.0%     33.3%     66.7%  100.00 op/s
eevdf           3         0.150         0.250           25.0%     25.0%     75.0%   80.00 op/s

delta vs cfs
variant  switches     avg delay     max delay  wakeup preempt  share hb  share bg   throughput
eevdf        0.0%        -25.0%        -16.7%         -25.0pp    -8.3pp    +8.3pp       -20.0%
";
    assert_eq!(text, want);
    // Every line of a block has the same width; no trailing spaces.
    for l in text.lines().filter(|l| l.len() > 12) {
        assert_eq!(l.len(), 94, "{l:?}");
        assert!(!l.ends_with(' '));
    }
}

fn row(
    name: &str,
    switches: u64,
    shares: &[(&str, f64)],
    tp: Option<(&str, f64)>,
) -> VariantSummary {
    VariantSummary {
        variant: name.into(),
        switches,
        delay_avg_ns: 1_500_000,
        delay_max_ns: 0,
        preempt_ratio: None,
        shares: shares.iter().map(|&(l, s)| (l.to_string(), s)).collect(),
        throughput: tp.map(|(u, v)| (u.to_string(), v)),
    }
}

#[test]
fn missing_values_and_zero_bases() {
    let rows = [
        row("base", 1000, &[("a", 0.5)], Some(("rps", 10.0))),
        row("long-variant-name", 529, &[("b", 0.125)], None),
        row(
            "x",
            1000,
            &[("a", 0.5), ("b", 0.25)],
            Some(("loops/s", 12.0)),
        ),
    ];
    let want = "\
variant            switches  avg delay ms  max delay ms  wakeup preempt  share a  share b     throughput
base                   1000         1.500         0.000               -    50.0%        -      10.00 rps
long-variant-name       529         1.500         0.000               -        -    12.5%              -
x                      1000         1.500         0.000               -    50.0%    25.0%  12.00 loops/s

delta vs base
variant            switches     avg delay     max delay  wakeup preempt  share a  share b     throughput
long-variant-name    -47.1%          0.0%          0.0%               -        -        -              -
x                      0.0%          0.0%          0.0%               -    0.0pp        -              -
";
    assert_eq!(format_comparison(&rows), want);

    // A zero base: changes to non-zero values are undefined.
    let zero = [
        row("a", 0, &[], None),
        row("b", 5, &[], None),
        row("c", 0, &[], None),
    ];
    let text = format_comparison(&zero);
    assert_eq!(
        text,
        "variant  switches  avg delay ms  max delay ms  wakeup preempt\n\
         a               0         1.500         0.000               -\n\
         b               5         1.500         0.000               -\n\
         c               0         1.500         0.000               -\n\
         \n\
         delta vs a\n\
         variant  switches     avg delay     max delay  wakeup preempt\n\
         b               -          0.0%          0.0%               -\n\
         c            0.0%          0.0%          0.0%               -\n"
    );
    // No throughput anywhere: no throughput column.
    assert!(!text.contains("throughput"));
}

#[test]
fn one_or_no_rows() {
    let one = format_comparison(&[row("only", 7, &[("s", 1.0)], None)]);
    assert_eq!(
        one,
        "variant  switches  avg delay ms  max delay ms  wakeup preempt  share s\n\
         only            7         1.500         0.000               -   100.0%\n"
    );
    assert_eq!(format_comparison(&[]), "");
}
