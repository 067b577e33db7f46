//! The fork path of `select_task_rq_fair` (fair.c `find_idlest_cpu`, `find_idlest_group`,
//! `update_pick_idlest`, `find_idlest_group_cpu`; `sched_balance_find_dst_*` since 6.10): the
//! task stays on the forking CPU's group unless another group is idler by the kernel's rules.
//! The model forks from the task's first allowed CPU.

mod common;
use common::*;
use schedlab_sim::*;

fn on(mut t: TaskSpec, cpus: &[u32]) -> TaskSpec {
    t.affinity = cpus.to_vec();
    t
}

/// Where task `pid` was first placed (`sched_wakeup_new`).
fn placed(out: &Output, pid: u32) -> u32 {
    out.trace
        .events
        .iter()
        .find_map(|e| match e.kind {
            EventKind::WakeupNew { pid: p, target_cpu } if p == pid => Some(target_cpu),
            _ => None,
        })
        .expect("the task was created")
}

/// Four idle CPUs; a task on CPU 1 runs 5 ms and exits, so CPU 1 is the most recently idled
/// when a task forks from CPU 0 at 10 ms. `find_idlest_group` at the LLC level (one CPU per
/// group) finds the local group as idle as the idlest (`local_sgs.idle_cpus >=
/// idlest_sgs.idle_cpus`: 1 ≥ 1) and returns NULL, so the task stays on CPU 0; the most
/// recently idled CPU is preferred only inside a chosen group.
#[test]
fn an_idle_forking_cpu_keeps_the_new_task() {
    let mut short = on(hog("short", 0), &[1]);
    short.program = vec![Op::Run(Some(Dist::Fixed(5 * MS))), Op::Exit];
    let mut new = on(hog("new", 0), &[0, 1, 2, 3]);
    new.start_ns = 10 * MS;
    let c = cfg(4, 1000, 30 * MS, vec![short, new]);
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.19"] {
        assert_eq!(placed(&run(&c, v), 2), 0, "{v}");
    }
}

/// A busy forking CPU gives the task to an idle one: the local group (CPU 0, one hog) has no
/// idle CPU, the idlest has one, so `find_idlest_group` returns it.
#[test]
fn a_busy_forking_cpu_gives_the_new_task_to_an_idle_one() {
    let busy = on(hog("busy", 0), &[0]);
    let mut new = on(hog("new", 0), &[0, 1]);
    new.start_ns = 10 * MS;
    let c = cfg(2, 1000, 30 * MS, vec![busy, new]);
    assert_eq!(placed(&run(&c, "eevdf-6.6"), 2), 1);
}

/// Equal candidates: `update_pick_idlest` keeps the first of equals, in the order of
/// `sd->groups`, which `build_sched_groups` links from the CPU's own group on
/// (`for_each_cpu_wrap(i, span, cpu)`). A task forked on busy CPU 2 of four, where CPUs 0, 1
/// and 3 are idle and have never run (one idle CPU each, util 0), goes to CPU 3, the group
/// after the local one, not to CPU 0.
#[test]
fn equal_idle_groups_are_taken_in_order_from_the_forking_cpu() {
    let busy = on(hog("busy", 0), &[2]);
    let mut new = on(hog("new", 0), &[2, 0, 1, 3]);
    new.start_ns = 10 * MS;
    let c = cfg(4, 1000, 30 * MS, vec![busy, new]);
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.19"] {
        assert_eq!(placed(&run(&c, v), 2), 3, "{v}");
    }
}

/// Both CPUs overloaded (two always-runnable hogs each, whose PELT loads have converged to
/// their weights by 600 ms): CPU 0 carries nice −1 + nice 0 = 1277 + 1024 = 2301, CPU 1
/// 1024 + 1024 = 2048. The idlest group is less loaded, but not by the margins
/// `find_idlest_group` demands of overloaded groups: imbalance = 1024 × 17 / 100 = 174, and
/// 2048 ≥ 2301 + 174 is false but 100 × 2301 ≤ 117 × 2048 holds, so it returns NULL and
/// the task forked on CPU 0 stays there. With CPU 0 carrying two nice −5 hogs
/// (2 × 3121 = 6242), 100 × 6242 > 117 × 2048 and 2048 < 6242 + 174: CPU 1.
#[test]
fn between_overloaded_cpus_the_load_must_differ_by_imbalance_pct() {
    let c = |nice0: i32, nice1: i32| {
        let mut new = on(hog("new", 0), &[0, 1]);
        new.start_ns = 600 * MS;
        cfg(
            2,
            1000,
            620 * MS,
            vec![
                on(hog("a0", nice0), &[0]),
                on(hog("b0", nice1), &[0]),
                on(hog("a1", 0), &[1]),
                on(hog("b1", 0), &[1]),
                new,
            ],
        )
    };
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        assert_eq!(placed(&run(&c(-1, 0), v), 5), 0, "{v}: within the margin");
        assert_eq!(placed(&run(&c(-5, -5), v), 5), 1, "{v}: beyond it");
    }
}

/// An idle CPU's blocked load decays through the NOHZ stats kick (fair.c
/// `nohz_balancer_kick`: NOHZ_STATS_KICK when `nohz.has_blocked` and `nohz.next_blocked` has
/// passed; `_nohz_idle_balance` → `update_nohz_stats` → `update_blocked_averages` on each idle
/// CPU), even when no balance is due anywhere. CPU 3 runs a task for 300 ms (util near 1024),
/// which then sleeps; CPU 2 runs one hog (no balance kick: one task, one busy CPU in the LLC),
/// CPUs 0 and 1 never run anything. A task forked on CPU 2 at 2 s sees three idle groups with
/// one idle CPU each, and `update_pick_idlest` keeps the first of the lowest util in group
/// order from CPU 2 (3, 0, 1): CPU 3 once its util has decayed to 0 (1.7 s is 53 half-lives),
/// CPU 0 if CPU 3 still carried the util it had when it went idle.
#[test]
fn an_idle_cpus_blocked_util_decays_through_the_nohz_stats_kick() {
    let busy = on(hog("busy", 0), &[2]);
    let mut burst = on(hog("burst", 0), &[3]);
    burst.program = vec![
        Op::Run(Some(Dist::Fixed(300 * MS))),
        Op::Sleep(Dist::Fixed(10_000 * MS)),
    ];
    let mut new = on(hog("new", 0), &[2, 0, 1, 3]);
    new.start_ns = 2_000 * MS;
    let c = cfg(4, 1000, 2_020 * MS, vec![busy, burst, new]);
    for v in ["cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.19"] {
        assert_eq!(placed(&run(&c, v), 3), 3, "{v}");
    }
}
