//! perf sched latency's rules: merging by comm, sort order, first-seen atoms, idle, the
//! sched_waking/sched_wakeup preference, ignored wakeups.
mod common;
use common::*;

use schedlab_report::latency::{format_perf, format_sum, latency_rows, LatencyRow};
use schedlab_report::wakeup::sched_delays_ns;

fn two_workers() -> schedlab_sim::Trace {
    trace(
        2,
        &[
            (10, "worker"),
            (11, "worker"),
            (12, "alpha"),
            (13, "beta"),
            (14, "gamma"),
        ],
        vec![
            sw(100, 0, 0, 'R', 10), // worker 10 first seen switching in: count 1, delay 0
            sw(100, 1, 0, 'R', 11),
            runtime(150, 1, 11, 50),
            sw(150, 1, 11, 'R', 13), // beta first seen
            runtime(200, 0, 10, 100),
            sw(200, 0, 10, 'R', 12),  // alpha first seen
            waking(300, 1, 14),       // gamma: woken, never runs: no atoms counted
            migrate(400, 0, 10, 1),   // no-op without -C
            sw(500, 0, 12, 'S', 10),  // worker 10 waited 300
            sw(600, 0, 10, 'S', 0),   // idle waited 500 (since 100): not a row
            sw(1150, 1, 13, 'S', 11), // worker 11 waited 1000
        ],
    )
}

fn names(rows: &[LatencyRow]) -> Vec<(String, u32)> {
    rows.iter().map(|r| (r.comm.clone(), r.pid)).collect()
}

#[test]
fn merged_by_comm() {
    let rows = latency_rows(&two_workers(), true);
    assert_eq!(
        names(&rows),
        [
            ("worker".into(), 11),
            ("beta".into(), 13),
            ("alpha".into(), 12)
        ]
    );
    let w = &rows[0];
    assert_eq!(w.threads, 2);
    assert_eq!(w.runtime_ns, 150);
    assert_eq!(w.count, 4);
    assert_eq!(w.delay_sum_ns, 1300);
    assert_eq!(w.delay_avg_ns(), 325);
    assert_eq!(
        (w.delay_max_ns, w.max_start_ns, w.max_end_ns),
        (1000, 150, 1150)
    );
    assert!(rows.iter().all(|r| r.pid != 0 && r.comm != "gamma"));
    assert!(format_perf(&rows).contains("\n  worker:(2)            |      0.000 ms |        4 | avg:   0.000 ms | max:   0.001 ms |"));
    // Equal avg/max/count/runtime: merged rows keep perf's descending-comm order.
    assert!(rows[1].comm > rows[2].comm);
}

#[test]
fn per_thread() {
    let rows = latency_rows(&two_workers(), false);
    // avg 500 (w11), 150 (w10), then the ties in descending pid order.
    assert_eq!(
        names(&rows),
        [
            ("worker".into(), 11),
            ("worker".into(), 10),
            ("beta".into(), 13),
            ("alpha".into(), 12)
        ]
    );
    assert!(rows.iter().all(|r| r.threads == 1));
    assert_eq!(
        (rows[1].count, rows[1].delay_sum_ns, rows[1].runtime_ns),
        (2, 300, 100)
    );
    assert!(format_perf(&rows).contains("\n  worker:10             |"));
    // sched_delays_ns are the same delays, idle excluded.
    let mut d = sched_delays_ns(&two_workers());
    d.sort_unstable();
    assert_eq!(d, vec![0, 0, 0, 0, 300, 1000]);
}

#[test]
fn sort_keys_in_order_avg_max_switch_runtime() {
    // a: avg 10, max 10; b: avg 10, max 20 (count 2: 0 + 20); c: avg 20.
    let tr = trace(
        3,
        &[(1, "a"), (2, "b"), (3, "c"), (4, "x")],
        vec![
            sw(0, 0, 4, 'S', 0),
            sw(0, 1, 4, 'S', 0),
            sw(0, 2, 4, 'S', 0),
            waking(100, 0, 1),
            waking(100, 1, 2),
            waking(100, 2, 3),
            sw(100, 1, 0, 'R', 2), // b: delay 0
            sw(110, 0, 0, 'R', 1), // a: new task woken: 'S' atom then WAIT_CPU: delay 10
            sw(120, 2, 0, 'R', 3), // c: delay 20
            sw(200, 1, 2, 'R', 0),
            sw(220, 1, 0, 'R', 2), // b: delay 20 → avg 10, max 20
        ],
    );
    let rows = latency_rows(&tr, true);
    let got: Vec<&str> = rows.iter().map(|r| r.comm.as_str()).collect();
    assert_eq!(got, ["c", "b", "a"]);
    assert_eq!((rows[1].delay_avg_ns(), rows[1].delay_max_ns), (10, 20));
    assert_eq!((rows[2].delay_avg_ns(), rows[2].delay_max_ns), (10, 10));
}

#[test]
fn waking_preferred_over_wakeup() {
    let events = |with_waking: bool| {
        let mut v = vec![sw(1000, 0, 1, 'S', 0), wakeup(5000, 0, 1)];
        if with_waking {
            v.push(waking(6000, 0, 1));
        }
        v.push(sw(10_000, 0, 0, 'R', 1));
        v
    };
    // With sched_waking in the trace, sched_wakeup is ignored: delay from 6000.
    let rows = latency_rows(&trace(1, &[(1, "t")], events(true)), true);
    assert_eq!((rows[0].count, rows[0].delay_sum_ns), (1, 4000));
    // Without, sched_wakeup is used.
    let rows = latency_rows(&trace(1, &[(1, "t")], events(false)), true);
    assert_eq!((rows[0].count, rows[0].delay_sum_ns), (1, 5000));
}

#[test]
fn wakeup_of_runnable_task_is_ignored() {
    let tr = trace(
        1,
        &[(1, "t"), (2, "u")],
        vec![
            sw(1000, 0, 2, 'S', 1), // t first seen: count 1
            sw(2000, 0, 1, 'R', 2), // t preempted at 2000
            waking(2500, 0, 1),     // t is WAIT_CPU, not SLEEPING: ignored
            sw(9000, 0, 2, 'S', 1), // t waited 7000 from the preemption
        ],
    );
    let rows = latency_rows(&tr, true);
    let t = rows.iter().find(|r| r.comm == "t").unwrap();
    assert_eq!((t.count, t.delay_sum_ns, t.max_start_ns), (2, 7000, 2000));
}

#[test]
fn formatters_skip_idle_and_empty_rows() {
    let row = |comm: &str, count: u64| LatencyRow {
        comm: comm.into(),
        pid: 5,
        threads: 1,
        runtime_ns: 1_000_000,
        count,
        delay_sum_ns: 0,
        delay_max_ns: 0,
        max_start_ns: 0,
        max_end_ns: 0,
    };
    let rows = [row("swapper", 3), row("empty", 0), row("real", 1)];
    for text in [format_perf(&rows), format_sum(&rows)] {
        assert!(!text.contains("swapper") && !text.contains("empty"));
        assert!(text.contains("  real:5 "));
        assert!(text.contains("  TOTAL:                |      1.000 ms |        1 |"));
    }
}
