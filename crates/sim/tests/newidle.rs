//! Newidle balancing's gates (`sched_balance_newidle`, fair.c 6.1–6.19): `rq->avg_idle`
//! (`update_avg` of the idle durations seen at wakeups, core.c) against the domain's
//! `max_newidle_lb_cost`, and 6.19's NI_RANDOM. The expectations are the kernel's arithmetic.

mod common;

use common::*;
use schedlab_sim::*;

/// CPU 0 runs two hogs pinned to it (a waiting task, so `rd->overload`, but nothing CPU 1 may
/// take); CPU 1 runs a task pinned to it that runs 100 µs and sleeps `sleep_us`. Every sleep
/// makes CPU 1 newly idle. Returns (newidle attempts on CPU 1, the task's sleeps).
fn blinker(sleep_us: u64, secs: u64, variant: &str) -> (u64, u64) {
    let mut h1 = hog("h1", 0);
    let mut h2 = hog("h2", 0);
    h1.affinity = vec![0];
    h2.affinity = vec![0];
    let mut w = task(
        "blinker",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Run(Some(Dist::Fixed(100 * US))),
            Op::Sleep(Dist::Fixed(sleep_us * US)),
        ],
    );
    w.affinity = vec![1];
    let out = run(&cfg(2, 250, secs * 1000 * MS, vec![h1, h2, w]), variant);
    (
        out.cpus[1].lb_newidle_count,
        out.tasks[2].voluntary_switches,
    )
}

/// Long sleeps (2 ms, `avg_idle` capped at 2 × `max_idle_balance_cost` = 1 ms): every sleep
/// tries a newidle balance.
#[test]
fn long_idles_balance_every_time() {
    let (tries, sleeps) = blinker(2000, 1, "eevdf-6.12");
    assert!(sleeps > 400, "{sleeps}");
    assert_eq!(tries, sleeps, "one newidle attempt per sleep");
}

/// Short sleeps (1 µs): `avg_idle` starts at 2 × `sysctl_sched_migration_cost` = 1 ms and
/// each wakeup moves it an eighth of the way to 1 µs; once it is below the cost a newidle
/// balance was recorded at, `avg_idle < sd->max_newidle_lb_cost` stops every attempt. The
/// number of attempts is the number of sleeps before that, computed here with the kernel's
/// `update_avg` (a signed division by 8).
#[test]
fn short_idles_stop_newidle_balancing() {
    let cost = schedlab_sim::balance::NEWIDLE_COST_NS as i64;
    let (mut avg, mut expected) = (1_000_000i64, 0u64);
    while avg >= cost {
        expected += 1;
        avg += (1_000 - avg) / 8;
    }
    assert!((30..60).contains(&expected), "{expected}");
    for v in [
        "cfs-6.1",
        "eevdf-6.6",
        "eevdf-6.12",
        "eevdf-6.19:NO_NI_RANDOM",
    ] {
        let (tries, sleeps) = blinker(1, 1, v);
        assert!(sleeps > 5000, "{v}: {sleeps}");
        assert_eq!(tries, expected, "{v}");
    }
}

/// 6.19's NI_RANDOM: a domain whose newidle balances never pull is tried less and less often.
/// Its `newidle_ratio` starts at 512 and each 1024th call (`newidle_call` starts at 512 and
/// halves then) sets it to the successes counted, here half the last value: a try has
/// probability (2 + ratio) / 1024, so of ~1430 sleeps in 3 s about 512 · 514/1024 +
/// 512 · 258/1024 + 404 · 130/1024 ≈ 437 try (31 %). Without it, every sleep tries.
#[test]
fn ni_random_backs_off_a_fruitless_domain() {
    let (tries, sleeps) = blinker(2000, 3, "eevdf-6.19");
    assert!(sleeps > 1300, "{sleeps}");
    assert!(
        tries * 5 > sleeps && tries * 5 < sleeps * 2,
        "{tries} of {sleeps}: expected 20-40 %"
    );
    let (tries, sleeps) = blinker(2000, 1, "eevdf-6.19:NO_NI_RANDOM");
    assert_eq!(tries, sleeps);
}
