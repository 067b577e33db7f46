//! The NOHZ kick (`nohz_balancer_kick` → `kick_ilb` → `nohz_csd_func`, fair.c 6.1–6.19): a busy
//! CPU's tick balances the idle CPUs, whose ticks are stopped, through an IPI to the first
//! idle one; the balance runs when that IPI arrives, and not at all if the CPU is no longer
//! idle by then (`nohz_csd_func`: `rq->idle_balance = idle_cpu(cpu)`, SCHED_SOFTIRQ only
//! then). The expectations are those rules; the IPI's time is the CPU's idle exit, the same
//! `idle_wakeup_ns` a wakeup's IPI takes.

mod common;

use common::*;
use schedlab_sim::*;

/// Three hogs on CPU 0 of two, each widening its affinity to both CPUs once it first runs
/// (so each can move only after it ran); CPU 1 runs nothing, so it never balances as newly
/// idle and only the kick brings it work. `extra` adds tasks.
fn hogs_on_cpu0(idle_wakeup_ns: u64, extra: Vec<TaskSpec>) -> SimConfig {
    let mut tasks: Vec<TaskSpec> = ["h1", "h2", "h3"]
        .iter()
        .map(|n| {
            let mut t = task(
                n,
                0,
                SchedPolicy::Normal,
                vec![Op::Affinity { first: 0, last: 1 }, Op::Run(None)],
            );
            t.affinity = vec![0];
            t
        })
        .collect();
    tasks.extend(extra);
    let mut c = cfg(2, 250, 40 * MS, tasks);
    c.idle_wakeup_ns = idle_wakeup_ns;
    c
}

/// The times of the migrations onto CPU 1 that the balancer made in [`hogs_on_cpu0`].
fn pulls_onto_cpu1(idle_wakeup_ns: u64, extra: Vec<TaskSpec>) -> Vec<u64> {
    let out = run(&hogs_on_cpu0(idle_wakeup_ns, extra), "eevdf-6.12");
    out.trace
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::MigrateTask { dest_cpu: 1, .. } => Some(e.t_ns),
            _ => None,
        })
        .collect()
}

const TICK: u64 = 4 * MS;

/// The first pull onto the idle CPU comes the idle exit after a tick edge (plus the softirq's
/// δ), not at the edge.
#[test]
fn the_kick_balances_the_idle_cpu_when_its_ipi_arrives() {
    for exit in [0, 50 * US, 200 * US] {
        let pulls = pulls_onto_cpu1(exit, vec![]);
        let first = *pulls.first().expect("a pull onto the idle CPU");
        eprintln!("idle exit {exit} ns: pulls at {pulls:?}");
        let after_tick = first % TICK;
        assert!(
            after_tick >= exit && after_tick <= exit + 2 * DELTA,
            "idle exit {exit} ns: first pull {after_tick} ns after a tick"
        );
    }
}

/// A task that reaches the idle CPU between the kick and its IPI ends the kick there: no
/// balance at that tick. Here a task pinned to CPU 1 starts 20 µs after the tick of the first
/// pull of the run without it (the IPI takes 50 µs) and runs 1 ms: nothing moves to CPU 1
/// before it has run.
#[test]
fn a_cpu_that_got_work_before_the_ipi_does_not_balance() {
    let exit = 50 * US;
    let first = pulls_onto_cpu1(exit, vec![])[0];
    let edge = first / TICK * TICK;
    let mut w = task(
        "w",
        0,
        SchedPolicy::Normal,
        vec![
            Op::Run(Some(Dist::Fixed(MS))),
            Op::Sleep(Dist::Fixed(1000 * MS)),
        ],
    );
    w.affinity = vec![1];
    w.start_ns = edge + 20 * US;
    let pulls = pulls_onto_cpu1(exit, vec![w]);
    eprintln!("first pull without w at {first} ns; with w: {pulls:?}");
    assert!(
        pulls.iter().all(|&t| t < edge || t > edge + MS),
        "a pull at the kicked tick: {pulls:?}"
    );
    assert!(!pulls.is_empty(), "the hogs still spread later");
}

/// A move made for the kick says so in its decision record: the CPU whose tick kicked (CPU 0,
/// the only busy one) and the IPI's delay, the idle exit and the switch's δ; the kick left
/// at that tick's softirq (δ after the edge). Moves from CPU 1's own softirq would say
/// `Balance::Idle`: with its tick stopped there are none.
#[test]
fn a_kicks_moves_name_the_kicking_cpu_and_the_ipis_delay() {
    use schedlab_sim::decision::{Balance, DecisionKind};
    let exit = 50 * US;
    let mut c = hogs_on_cpu0(exit, vec![]);
    c.record_decisions = true;
    let out = run(&c, "eevdf-6.12");
    let moves: Vec<_> = out
        .trace
        .decisions
        .iter()
        .filter_map(|d| match d.kind {
            DecisionKind::Move { dst: 1, why, .. } => Some((d.t_ns, why.balance)),
            _ => None,
        })
        .collect();
    assert!(!moves.is_empty(), "no move onto the idle CPU");
    for &(t, balance) in &moves {
        let Balance::Kick { from, delay_ns } = balance else {
            panic!("a move onto CPU 1 at {t} ns by {balance:?}, not the kick");
        };
        assert_eq!(from, 0, "the kick at {t} ns came from cpu{from}");
        assert_eq!(delay_ns as u64, exit + DELTA, "the IPI's delay at {t} ns");
        let sent = t - delay_ns as u64;
        assert!(
            sent % TICK <= DELTA,
            "a kick sent {} ns after a tick edge",
            sent % TICK
        );
    }
}
