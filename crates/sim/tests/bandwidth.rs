//! CFS bandwidth control (`cpu.max`), checked against the kernel's arithmetic
//! (kernel/sched/fair.c): each CPU draws `sched_cfs_bandwidth_slice` (5 ms) plus its deficit
//! from the group's pool when its local runtime is spent (`assign_cfs_rq_runtime`, from
//! `update_curr`: at the tick for a hog), is throttled at the `__schedule` that follows when the
//! pool has nothing left (`check_cfs_rq_runtime`), and gets its deficit plus 1 ns back at the
//! next period timer expiry (multiples of the period from time 0, `distribute_cfs_runtime`),
//! which refills the pool to the quota.

mod common;

use common::*;
use schedlab_sim::cgroup::{Bandwidth, Cgroups, Group};
use schedlab_sim::*;

const VARIANTS: &[&str] = &["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"];

fn group(path: &str, shares: u64, bandwidth: Option<Bandwidth>) -> Group {
    Group {
        path: path.into(),
        parent: 0,
        shares,
        idle: false,
        bandwidth,
    }
}

fn max(quota_ms: u64, period_ms: u64) -> Option<Bandwidth> {
    Some(Bandwidth {
        quota_ns: quota_ms * MS,
        period_ns: period_ms * MS,
        burst_ns: 0,
    })
}

/// One CPU at HZ=250 with δ and the tick's IRQ time at 0, so that the timestamps are the
/// arithmetic's own.
fn machine(
    cpus: u32,
    ms: u64,
    tasks: Vec<TaskSpec>,
    groups: Vec<Group>,
    tg: Vec<u32>,
) -> SimConfig {
    let mut c = cfg(cpus, 250, ms * MS, tasks);
    c.switch_delay_ns = 0;
    c.irq_ns = 0;
    let mut gs = vec![group("/", 1024, None)];
    gs.extend(groups);
    c.cgroups = Cgroups {
        groups: gs,
        task_group: tg,
    };
    c
}

/// The kernel's rules for one hog alone in a group of `quota` per `period` on one CPU at
/// `tick` (the hog starts at 0, on a tick): its runs (start, end) until `end`, and
/// `throttled_time` as cpu.stat would show it at `end`.
fn arithmetic(quota: i64, period: u64, tick: u64, end: u64) -> (Vec<(u64, u64)>, u64) {
    const SLICE: i64 = 5_000_000;
    let mut pool = quota; // tg_set_cfs_bandwidth refills it
    let mut rem: i64 = 0;
    let assign = |pool: &mut i64, rem: &mut i64, target: i64| {
        let amount = (*pool).min(target - *rem).max(0);
        *pool -= amount;
        *rem += amount;
        *rem > 0
    };
    // check_enqueue_throttle at the first enqueue: account_cfs_rq_runtime(cfs_rq, 0).
    assign(&mut pool, &mut rem, SLICE);
    let (mut runs, mut throttled_ns) = (vec![], 0);
    let mut start = 0;
    let mut t = 0;
    loop {
        // Running: each tick charges a tick's runtime; a spent local runtime draws a slice
        // plus the deficit; none left: throttled at this tick's reschedule.
        t += tick;
        if t > end {
            break;
        }
        rem -= tick as i64;
        if rem > 0 || assign(&mut pool, &mut rem, SLICE) {
            continue;
        }
        runs.push((start, t));
        // The period timer: refill to the quota, give the deficit + 1 ns, unthrottle.
        let next = (t / period + 1) * period;
        if next > end {
            break;
        }
        pool = (pool + quota).min(quota);
        let give = 1 - rem;
        pool -= give;
        rem += give;
        throttled_ns += next - t;
        start = next;
        t = next;
    }
    (runs, throttled_ns)
}

/// A hog alone in a cgroup with cpu.max "50000 100000" on one CPU at HZ=250: the kernel's
/// arithmetic gives runs [0, 52], [100, 148], [200, 252], … ms (a 4 ms tick notices the spent
/// runtime: 2 ms over the quota in one period, repaid in the next), throttled each period.
#[test]
fn a_hog_alone_is_throttled_when_the_arithmetic_says() {
    let c = machine(
        1,
        2000,
        vec![hog("ct", 0)],
        vec![group("/ct", 1024, max(50, 100))],
        vec![1],
    );
    let (want, throttled) = arithmetic(50 * MS as i64, 100 * MS, 4 * MS, 2000 * MS);
    assert_eq!(
        &want[..3],
        &[(0, 52 * MS), (100 * MS, 148 * MS), (200 * MS, 252 * MS)],
        "the hand computation"
    );
    assert_eq!(want.len(), 20);
    assert_eq!(throttled, 1000 * MS);
    for v in VARIANTS {
        let out = run(&c, v);
        let got = stints(&out.trace, 1);
        assert_eq!(got, want, "{v}: the hog's runs");
        assert_eq!(out.bandwidth.len(), 1, "{v}");
        let s = &out.bandwidth[0];
        assert_eq!(s.path, "/ct");
        // The period timer fires at 100, 200, …, 2000 ms and finds the group throttled each
        // time.
        assert_eq!((s.nr_periods, s.nr_throttled), (20, 20), "{v}");
        assert_eq!(s.throttled_time_ns, throttled, "{v}");
        assert_eq!((s.nr_bursts, s.burst_time_ns), (0, 0), "{v}");
        assert_eq!(out.tasks[0].sum_exec_runtime_ns, 1000 * MS, "{v}");
    }
}

/// Beside a lighter group: weights 3:1 would give the container 75 %; its quota caps it at
/// 50 % (±1 tick per period), and the other group gets the rest.
#[test]
fn the_quota_caps_a_heavier_group() {
    let c = machine(
        1,
        3000,
        vec![hog("ct", 0), hog("web", 0)],
        vec![group("/ct", 3072, max(50, 100)), group("/web", 1024, None)],
        vec![1, 2],
    );
    for v in VARIANTS {
        let out = run(&c, v);
        let ct = out.tasks[0].sum_exec_runtime_ns as f64 / (3000 * MS) as f64 * 100.0;
        let web = out.tasks[1].sum_exec_runtime_ns as f64 / (3000 * MS) as f64 * 100.0;
        assert!((ct - 50.0).abs() <= 1.0, "{v}: ct got {ct:.2} %");
        assert!(
            (ct + web - 100.0).abs() <= 0.1,
            "{v}: ct {ct:.2} % + web {web:.2} %"
        );
        let s = &out.bandwidth[0];
        assert_eq!((s.nr_periods, s.nr_throttled), (30, 30), "{v}");
        // 3:1 while both run: the quota lasts 50 / 0.75 = 66.7 ms of each period, throttled
        // for the remaining 33.3 ms (± a tick at each end).
        let per = s.throttled_time_ns as f64 / 30.0 / MS as f64;
        assert!(
            (per - 100.0 / 3.0).abs() <= 4.0,
            "{v}: {per:.2} ms a period"
        );
    }
}

/// Two hogs of one group on two CPUs share one quota: 50 ms per 100 ms in all (each CPU draws
/// 5 ms slices from the same pool), within the local runtimes and deficits left at the end.
#[test]
fn two_cpus_draw_from_one_pool() {
    let mut a = hog("a", 0);
    a.affinity = vec![0];
    let mut b = hog("b", 0);
    b.affinity = vec![1];
    let c = machine(
        2,
        2000,
        vec![a, b],
        vec![group("/ct", 1024, max(50, 100))],
        vec![1, 1],
    );
    for v in VARIANTS {
        let out = run(&c, v);
        let total: u64 = out.tasks.iter().map(|t| t.sum_exec_runtime_ns).sum();
        assert!(
            total.abs_diff(1000 * MS) <= 10 * MS,
            "{v}: the group ran {} ms",
            total / MS
        );
        for t in &out.tasks {
            assert!(t.sum_exec_runtime_ns > 400 * MS, "{v}: one CPU starved");
        }
        let s = &out.bandwidth[0];
        assert_eq!((s.nr_periods, s.nr_throttled), (20, 20), "{v}");
        // Both CPUs are throttled for about half of every period.
        let per_cpu = s.throttled_time_ns as f64 / 40.0 / MS as f64;
        assert!(
            (per_cpu - 75.0).abs() <= 5.0,
            "{v}: {per_cpu:.2} ms a period per CPU"
        );
    }
}

/// A group that stays under its quota is never throttled, and the period timer stops after a
/// period in which nothing drew runtime.
#[test]
fn under_the_quota_nothing_is_throttled() {
    let t = task(
        "light",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Run(Some(Dist::Fixed(10 * MS))),
            Op::Sleep(Dist::Fixed(90 * MS)),
            Op::Loop { start: 0, times: 5 },
            Op::Exit,
        ],
    );
    // A hog outside the group on the other CPU keeps the run going to its end.
    let mut other = hog("other", 0);
    other.affinity = vec![1];
    let c = machine(
        2,
        2000,
        vec![t, other],
        vec![group("/ct", 1024, max(50, 100))],
        vec![1, 0],
    );
    for v in VARIANTS {
        let out = run(&c, v);
        let s = &out.bandwidth[0];
        assert_eq!((s.nr_throttled, s.throttled_time_ns), (0, 0), "{v}");
        // Runtime is drawn in every period up to the last run (400-410 ms); the expiry at
        // 500 ms finds nothing drawn since 400 and marks the pool idle; the one at 600 ms
        // finds it still idle and stops the timer: 6 periods.
        assert_eq!(s.nr_periods, 6, "{v}");
        assert_eq!(out.tasks[0].sum_exec_runtime_ns, 50 * MS, "{v}");
    }
}

/// No limit, no change: a group without cpu.max reports no cpu.stat.
#[test]
fn no_limit_reports_nothing() {
    let c = machine(
        1,
        500,
        vec![hog("ct", 0)],
        vec![group("/ct", 1024, None)],
        vec![1],
    );
    assert!(run(&c, "eevdf-6.12").bandwidth.is_empty());
}
