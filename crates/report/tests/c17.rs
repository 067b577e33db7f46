//! C17 of the reference: one task's sleep → wakeup → run → preemption → run, read back through
//! `perf sched latency` and `perf sched timehist`.
mod common;
use common::*;

use schedlab_report::latency::{format_perf, latency_rows};
use schedlab_report::timehist::{format_timehist, timehist_lines};
use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};

fn c17() -> schedlab_sim::Trace {
    trace(
        1,
        &[(1, "T"), (2, "U")],
        vec![
            sw(0, 0, 1, 'S', 0),
            waking(10 * MS, 0, 1),
            sw(12_500_000, 0, 0, 'R', 1),
            runtime(15 * MS, 0, 1, 2_500_000),
            sw(15 * MS, 0, 1, 'R', 2),
            sw(19 * MS, 0, 2, 'S', 1),
            runtime(22 * MS, 0, 1, 3 * MS),
            sw(22 * MS, 0, 1, 'S', 0),
        ],
    )
}

#[test]
fn latency_row() {
    let rows = latency_rows(&c17(), true);
    let t = &rows[0];
    assert_eq!((t.comm.as_str(), t.pid, t.threads), ("T", 1, 1));
    assert_eq!(t.runtime_ns, 5_500_000);
    assert_eq!(t.count, 2);
    assert_eq!(t.delay_sum_ns, 6_500_000);
    assert_eq!(t.delay_avg_ns(), 3_250_000);
    assert_eq!(t.delay_max_ns, 4 * MS);
    assert_eq!((t.max_start_ns, t.max_end_ns), (15 * MS, 19 * MS));
    // U is first seen switching in: one zero-latency atom. Idle is never a row.
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[1].comm.as_str(), rows[1].count, rows[1].delay_sum_ns),
        ("U", 1, 0)
    );

    let text = format_perf(&rows);
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines[0], "");
    assert_eq!(lines[1], format!(" {}", "-".repeat(139)));
    assert_eq!(
        lines[2],
        "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |"
    );
    assert_eq!(lines[3], lines[1]);
    assert_eq!(
        lines[4],
        "  T:1                   |      5.500 ms |        2 | avg:   3.250 ms | max:   4.000 ms | max start:     0.015000 s | max end:     0.019000 s"
    );
    assert_eq!(
        lines[5],
        "  U:2                   |      0.000 ms |        1 | avg:   0.000 ms | max:   0.000 ms | max start:     0.000000 s | max end:     0.000000 s"
    );
    assert_eq!(lines[6], format!(" {}", "-".repeat(113)));
    assert_eq!(
        lines[7],
        "  TOTAL:                |      5.500 ms |        3 |"
    );
    assert_eq!(lines[8], format!(" {}", "-".repeat(51)));
    assert_eq!(&lines[9..], ["", ""]);
}

#[test]
fn timehist() {
    let tr = c17();
    let lines = timehist_lines(&tr);
    let at = |t: u64| lines.iter().find(|l| l.t_ns == t).unwrap();
    let l15 = at(15 * MS);
    assert_eq!((l15.pid, l15.comm.as_str()), (1, "T"));
    assert_eq!(
        (l15.wait_ns, l15.sch_delay_ns, l15.run_ns),
        (12_500_000, 2_500_000, 2_500_000)
    );
    let l22 = at(22 * MS);
    assert_eq!(
        (l22.wait_ns, l22.sch_delay_ns, l22.run_ns),
        (4 * MS, 4 * MS, 3 * MS)
    );
    let idle = at(12_500_000);
    assert_eq!(
        (idle.pid, idle.comm.as_str(), idle.run_ns),
        (0, "<idle>", 12_500_000)
    );
    let u = at(19 * MS);
    assert_eq!(
        (u.pid, u.wait_ns, u.sch_delay_ns, u.run_ns),
        (2, 0, 0, 4 * MS)
    );
    // The first switch on a CPU has nothing to measure from: a line of zeros, as perf prints.
    let first = at(0);
    assert_eq!((first.wait_ns, first.sch_delay_ns, first.run_ns), (0, 0, 0));
    assert_eq!(lines.len(), 5);

    let text = format_timehist(&tr, &lines);
    let text_lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        text_lines[0],
        "           time    cpu  task name                       wait time  sch delay   run time"
    );
    assert_eq!(
        text_lines[1],
        "                        [tid/pid]                          (msec)     (msec)     (msec)"
    );
    assert_eq!(
        text_lines[2],
        "--------------- ------  ------------------------------  ---------  ---------  ---------"
    );
    assert_eq!(
        text_lines[3],
        "       0.000000 [0000]  T[1]                                0.000      0.000      0.000 "
    );
    assert_eq!(
        text_lines[4],
        "       0.012500 [0000]  <idle>                              0.000      0.000     12.500 "
    );
    assert_eq!(
        text_lines[5],
        "       0.015000 [0000]  T[1]                               12.500      2.500      2.500 "
    );
    assert_eq!(
        text_lines[6],
        "       0.019000 [0000]  U[2]                                0.000      0.000      4.000 "
    );
    assert_eq!(
        text_lines[7],
        "       0.022000 [0000]  T[1]                                4.000      4.000      3.000 "
    );
    assert!(text.ends_with(" \n"));
}

#[test]
fn wakeup_samples() {
    let tr = c17();
    // Only the sleep → wakeup → run counts as a wakeup latency; the preemption does not.
    assert_eq!(wakeup_latencies_ns(&tr, None), vec![2_500_000]);
    assert_eq!(wakeup_latencies_ns(&tr, Some(1)), vec![2_500_000]);
    assert!(wakeup_latencies_ns(&tr, Some(2)).is_empty());
    // perf counts the wakeup delay, U's first-seen atom and the preemption delay.
    assert_eq!(sched_delays_ns(&tr), vec![2_500_000, 0, 4 * MS]);
}
