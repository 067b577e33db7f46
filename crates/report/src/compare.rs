//! A compact summary of several variants of one scenario, and its deltas against the first.
//!
//! [`summarize`] boils one variant's run down to a [`VariantSummary`]; [`format_comparison`]
//! prints a list of them as two fixed-width blocks:
//!
//! ```text
//! variant  switches  avg delay ms  max delay ms  wakeup preempt  share hb  share bg   throughput
//! cfs             3         0.200         0.300           50.0%     33.3%     66.7%  100.00 op/s
//! eevdf           3         0.150         0.250           25.0%     25.0%     75.0%   80.00 op/s
//!
//! delta vs cfs
//! variant  switches     avg delay     max delay  wakeup preempt  share hb  share bg   throughput
//! eevdf        0.0%        -25.0%        -16.7%         -25.0pp    -8.3pp    +8.3pp       -20.0%
//! ```
//!
//! Layout rules:
//!
//! - Columns, in order: the variant (left-aligned), then right-aligned: `switches`,
//!   `avg delay ms` and `max delay ms` (`%.3f` of ms, glibc rounding), `wakeup preempt`
//!   (need/check preemption ratio, `%.1f%%`), one `share <label>` column per task-set label
//!   (`%.1f%%` of the total CPU time) in the order labels first appear across the rows, and
//!   `throughput` (`%.2f`, then a space and the unit unless it is empty) only if some row has
//!   one. A missing value prints as `-`.
//! - Columns are separated by two spaces; each column is as wide as its widest header or cell
//!   over *both* blocks, so the blocks line up. No line has trailing spaces; every line ends in
//!   `\n`.
//! - The second block starts after one empty line with `delta vs <first variant>`, then the
//!   same columns (headers without "ms") and one line per further variant: relative changes
//!   `(x - base) / base` as a signed `%.1f%%` (e.g. `-47.1%`) for switches, the delays and the
//!   throughput; differences in percentage points as a signed `%.1fpp` for the preemption ratio
//!   and the shares. A change that rounds to zero prints unsigned (`0.0%`, `0.0pp`); a relative
//!   change from a base of 0 (to a non-zero value), or between throughputs of different units,
//!   or involving a missing value, prints `-`.
//! - With fewer than two rows there is no second block; with no rows the text is empty.

use schedlab_sim::{CpuStats, EventKind, Pid, Trace};

use crate::cfmt::{c_fixed, lpad, ms3, rpad};
use crate::latency::latency_rows;
use crate::workload::cpu_time_ns;

/// One variant's figures, as [`format_comparison`] prints them.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VariantSummary {
    /// The variant's name (first column).
    pub variant: String,
    /// Every `sched_switch` except idle → idle.
    pub switches: u64,
    /// Mean scheduling delay over all `perf sched latency` atoms of all tasks (Σ delays /
    /// Σ counts of the per-thread rows, integer division; 0 without atoms), ns.
    pub delay_avg_ns: u64,
    /// The largest of those delays, ns.
    pub delay_max_ns: u64,
    /// Σ `need_preempt_count` / Σ `check_preempt_count` over the CPUs (a fraction, 0..=1);
    /// `None` when no wakeup-preemption check was made.
    pub preempt_ratio: Option<f64>,
    /// Per labelled task set, its CPU time over the CPU time of all tasks (a fraction, 0..=1;
    /// 0 when no task ran), in the order the sets were given.
    pub shares: Vec<(String, f64)>,
    /// The variant's throughput figure, if any: its unit label and value.
    pub throughput: Option<(String, f64)>,
}

/// Summarises one variant's run: `trace` and the per-CPU counters `cpu_stats` of that run,
/// `sets` the labelled task sets whose CPU shares to report (e.g. `("hackbench", pids)`), and
/// `throughput` an optional figure computed by the caller (`(unit, value)`), passed through.
///
/// CPU time is counted from `sched_stat_runtime`; the total is over every task but the idle
/// task, so shares of disjoint sets add up to at most 1.
pub fn summarize(
    variant: &str,
    trace: &Trace,
    cpu_stats: &[CpuStats],
    sets: &[(String, Vec<Pid>)],
    throughput: Option<(String, f64)>,
) -> VariantSummary {
    let switches = trace
        .events
        .iter()
        .filter(|e| {
            matches!(e.kind, EventKind::Switch { prev_pid, next_pid, .. }
                if prev_pid != 0 || next_pid != 0)
        })
        .count() as u64;
    let rows = latency_rows(trace, false);
    let delay_sum: u64 = rows.iter().map(|r| r.delay_sum_ns).sum();
    let delay_count: u64 = rows.iter().map(|r| r.count).sum();
    let delay_max_ns = rows.iter().map(|r| r.delay_max_ns).max().unwrap_or(0);
    let checks: u64 = cpu_stats.iter().map(|c| c.check_preempt_count).sum();
    let needs: u64 = cpu_stats.iter().map(|c| c.need_preempt_count).sum();
    let total_cpu: u64 = trace
        .events
        .iter()
        .map(|e| match e.kind {
            EventKind::StatRuntime { pid, runtime_ns } if pid != 0 => runtime_ns,
            _ => 0,
        })
        .sum();
    let shares = sets
        .iter()
        .map(|(label, pids)| {
            let share = if total_cpu == 0 {
                0.0
            } else {
                cpu_time_ns(trace, pids) as f64 / total_cpu as f64
            };
            (label.clone(), share)
        })
        .collect();
    VariantSummary {
        variant: variant.to_string(),
        switches,
        delay_avg_ns: delay_sum.checked_div(delay_count).unwrap_or(0),
        delay_max_ns,
        preempt_ratio: (checks > 0).then(|| needs as f64 / checks as f64),
        shares,
        throughput,
    }
}

/// `%.1f%%` of a fraction.
fn pct(fraction: f64) -> String {
    format!("{}%", c_fixed(fraction * 100.0, 1))
}

/// A signed `%.1f` with `suffix`; unsigned when it rounds to zero; `-` when not finite.
fn signed(x: f64, suffix: &str) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let mag = c_fixed(x.abs(), 1);
    if mag == "0.0" {
        format!("0.0{suffix}")
    } else if x > 0.0 {
        format!("+{mag}{suffix}")
    } else {
        format!("-{mag}{suffix}")
    }
}

/// Relative change from `base` to `x` in percent.
fn rel(base: f64, x: f64) -> String {
    if base == 0.0 {
        return if x == 0.0 { "0.0%".into() } else { "-".into() };
    }
    signed((x - base) / base * 100.0, "%")
}

/// Difference of two fractions in percentage points.
fn pp(base: Option<f64>, x: Option<f64>) -> String {
    match (base, x) {
        (Some(b), Some(x)) => signed((x - b) * 100.0, "pp"),
        _ => "-".into(),
    }
}

fn share_of(row: &VariantSummary, label: &str) -> Option<f64> {
    row.shares.iter().find(|(l, _)| l == label).map(|&(_, s)| s)
}

/// The cells of the comparison table, each block led by its header line: per variant its
/// figures, and per further variant its changes against the first (empty without rows). The
/// command line prints them with [`format_comparison`]; the page shows the same cells.
pub struct ComparisonCells {
    /// Header, then one line per variant.
    pub absolute: Vec<Vec<String>>,
    /// Header, then one line per variant after the first.
    pub delta: Vec<Vec<String>>,
}

/// The comparison's cells (see [`ComparisonCells`]).
pub fn comparison_cells(rows: &[VariantSummary]) -> ComparisonCells {
    let Some(base) = rows.first() else {
        return ComparisonCells {
            absolute: vec![],
            delta: vec![],
        };
    };
    let mut labels: Vec<&str> = Vec::new();
    for r in rows {
        for (l, _) in &r.shares {
            if !labels.contains(&l.as_str()) {
                labels.push(l);
            }
        }
    }
    let with_tp = rows.iter().any(|r| r.throughput.is_some());

    let header = |delta: bool| {
        let mut h: Vec<String> = vec!["variant".into(), "switches".into()];
        let unit = if delta { "" } else { " ms" };
        h.push(format!("avg delay{unit}"));
        h.push(format!("max delay{unit}"));
        h.push("wakeup preempt".into());
        h.extend(labels.iter().map(|l| format!("share {l}")));
        if with_tp {
            h.push("throughput".into());
        }
        h
    };

    let mut absolute: Vec<Vec<String>> = vec![header(false)];
    for r in rows {
        let mut c = vec![
            r.variant.clone(),
            r.switches.to_string(),
            ms3(r.delay_avg_ns),
            ms3(r.delay_max_ns),
            r.preempt_ratio.map_or("-".into(), pct),
        ];
        c.extend(
            labels
                .iter()
                .map(|l| share_of(r, l).map_or("-".into(), pct)),
        );
        if with_tp {
            c.push(r.throughput.as_ref().map_or("-".into(), |(u, v)| {
                let v = c_fixed(*v, 2);
                if u.is_empty() {
                    v
                } else {
                    format!("{v} {u}")
                }
            }));
        }
        absolute.push(c);
    }

    let mut delta: Vec<Vec<String>> = vec![header(true)];
    for r in &rows[1..] {
        let mut c = vec![
            r.variant.clone(),
            rel(base.switches as f64, r.switches as f64),
            rel(base.delay_avg_ns as f64, r.delay_avg_ns as f64),
            rel(base.delay_max_ns as f64, r.delay_max_ns as f64),
            pp(base.preempt_ratio, r.preempt_ratio),
        ];
        c.extend(labels.iter().map(|l| pp(share_of(base, l), share_of(r, l))));
        if with_tp {
            c.push(match (&base.throughput, &r.throughput) {
                (Some((bu, b)), Some((u, x))) if bu == u => rel(*b, *x),
                _ => "-".into(),
            });
        }
        delta.push(c);
    }
    ComparisonCells { absolute, delta }
}

/// The comparison table described in the [module docs](crate::compare): one line per variant, then the
/// changes of every further variant against the first.
pub fn format_comparison(rows: &[VariantSummary]) -> String {
    let Some(base) = rows.first() else {
        return String::new();
    };
    let ComparisonCells { absolute, delta } = comparison_cells(rows);
    let ncols = absolute[0].len();
    let widths: Vec<usize> = (0..ncols)
        .map(|i| {
            absolute
                .iter()
                .chain(if rows.len() > 1 { &delta[..] } else { &[] })
                .map(|line| line[i].len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let render = |line: &[String]| {
        let mut s = rpad(&line[0], widths[0]);
        for (cell, &w) in line.iter().zip(&widths).skip(1) {
            s.push_str("  ");
            s.push_str(&lpad(cell, w));
        }
        s.push('\n');
        s
    };

    let mut out: String = absolute.iter().map(|l| render(l)).collect();
    if rows.len() > 1 {
        out.push_str(&format!("\ndelta vs {}\n", base.variant));
        out.extend(delta.iter().map(|l| render(l)));
    }
    out
}
