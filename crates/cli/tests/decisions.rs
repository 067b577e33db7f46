//! Decision records: every preemption in a trace has exactly one record naming its cause, the
//! wakeup records agree with the engine's schedstat counters, and they reproduce the seed-000
//! thread's breakdowns (curr_noeli, curr_lowdl, curr_lownr) from the records alone.

use schedlab_scenario::presets::preset;
use schedlab_sim::decision::{Balance, Cause, DecisionKind, Imbalance, KeepRule, PreemptRule};
use schedlab_sim::{simulate, CpuStats, EventKind, Output, PrevState, Variant};

fn run(name: &str, variant: &str, decisions: bool) -> Output {
    let sc = preset(name).unwrap().scenario();
    let mut cfg = sc.sim_config();
    cfg.record_decisions = decisions;
    simulate(&cfg, &Variant::parse(variant).unwrap()).unwrap()
}

fn sum(o: &Output, f: impl Fn(&CpuStats) -> u64) -> u64 {
    o.cpus.iter().map(f).sum()
}

/// (preset, variant) pairs covering CFS and the three EEVDF shapes, idle policy, one and many
/// CPUs.
const RUNS: &[(&str, &str)] = &[
    ("sched-idle", "cfs-5.14"),
    ("sched-idle", "eevdf-6.19"),
    ("hackbench", "cfs-6.1"),
    ("hackbench", "eevdf-6.6"),
    ("hackbench", "eevdf-6.6:NO_RUN_TO_PARITY"),
    ("schbench", "eevdf-6.12"),
    ("video-massive-intr", "eevdf-6.19"),
    ("tbench-stacked", "eevdf-6.12:NO_DELAY_DEQUEUE"),
];

#[test]
fn every_preemption_has_exactly_one_record() {
    for &(name, variant) in RUNS {
        let o = run(name, variant, true);
        let switches: Vec<(u64, u32, u32, u32)> = o
            .trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Switch {
                    prev_pid,
                    prev_state: PrevState::Running,
                    next_pid,
                } if prev_pid != 0 => Some((e.t_ns, e.cpu, prev_pid, next_pid)),
                _ => None,
            })
            .collect();
        let records: Vec<(u64, u32, u32, u32)> = o
            .trace
            .decisions
            .iter()
            .filter_map(|d| match d.kind {
                DecisionKind::Preempt { prev, next, .. } => Some((d.t_ns, d.cpu, prev, next)),
                _ => None,
            })
            .collect();
        assert!(
            !switches.is_empty(),
            "{name} {variant}: no preemption at all"
        );
        assert_eq!(switches, records, "{name} {variant}");
        // A preemption has a fair-class cause, except what the model leaves outside it.
        let other = o
            .trace
            .decisions
            .iter()
            .filter(|d| {
                matches!(
                    d.kind,
                    DecisionKind::Preempt {
                        cause: Cause::Other,
                        ..
                    }
                )
            })
            .count();
        assert!(
            other * 100 <= records.len(),
            "{name} {variant}: {other} of {} preemptions have no named cause",
            records.len()
        );
        // Recording observes only: the same events with and without records.
        let plain = run(name, variant, false);
        assert_eq!(plain.trace.events, o.trace.events, "{name} {variant}");
        assert!(plain.trace.decisions.is_empty());
    }
}

#[test]
fn wakeup_records_agree_with_the_counters() {
    for &(name, variant) in RUNS {
        let o = run(name, variant, true);
        let outcomes: Vec<Result<PreemptRule, KeepRule>> = o
            .trace
            .decisions
            .iter()
            .filter_map(|d| match d.kind {
                DecisionKind::Wakeup { outcome, .. } => Some(outcome),
                _ => None,
            })
            .collect();
        let count = |r: PreemptRule| outcomes.iter().filter(|o| **o == Ok(r)).count() as u64;
        let preempted = outcomes.iter().filter(|o| o.is_ok()).count() as u64;
        assert_eq!(
            preempted,
            sum(&o, |c| c.need_preempt_count),
            "{name} {variant}"
        );
        assert_eq!(
            count(PreemptRule::CurrIneligible) + count(PreemptRule::CurrDequeued),
            sum(&o, |c| c.preempt_curr_ineligible),
            "{name} {variant}"
        );
        assert_eq!(
            count(PreemptRule::EarlierDeadline),
            sum(&o, |c| c.preempt_earlier_deadline),
            "{name} {variant}"
        );
        assert_eq!(
            count(PreemptRule::WakeupGranularity),
            sum(&o, |c| c.preempt_wakeup_gran),
            "{name} {variant}"
        );
        assert_eq!(
            count(PreemptRule::IdleCurr),
            sum(&o, |c| c.preempt_idle_curr),
            "{name} {variant}"
        );
        assert_eq!(
            count(PreemptRule::PreemptShort),
            sum(&o, |c| c.preempt_short),
            "{name} {variant}"
        );
        // A preemption by a wakeup rule is the cause of the switch that follows it (or of none,
        // when curr blocked first): never more switches than successful checks.
        let by_wakeup = o
            .trace
            .decisions
            .iter()
            .filter(|d| {
                matches!(
                    d.kind,
                    DecisionKind::Preempt {
                        cause: Cause::Wakeup { .. },
                        ..
                    }
                )
            })
            .count() as u64;
        assert!(
            by_wakeup <= preempted,
            "{name} {variant}: {by_wakeup} > {preempted}"
        );
    }
}

#[test]
fn the_seed_000_breakdowns_come_from_the_records() {
    // Chen Yu's counters in the seed-000 thread: of the wakeup picks, those that found curr
    // ineligible (curr_noeli), and of the successful preemptions by the pick those where
    // curr's deadline was earlier (curr_lowdl) and those with nr_running <= 2 (curr_lownr).
    for variant in [
        "eevdf-6.6",
        "eevdf-6.6:NO_RUN_TO_PARITY",
        "eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY",
    ] {
        let o = run("hackbench", variant, true);
        let (mut noeli, mut lowdl, mut lownr, mut picks) = (0u64, 0u64, 0u64, 0u64);
        for d in &o.trace.decisions {
            let DecisionKind::Wakeup {
                curr,
                wakee,
                nr_running,
                outcome,
                ..
            } = d.kind
            else {
                continue;
            };
            let reached_pick = matches!(
                outcome,
                Ok(PreemptRule::CurrIneligible
                    | PreemptRule::CurrDequeued
                    | PreemptRule::EarlierDeadline
                    | PreemptRule::PreemptShort)
                    | Err(KeepRule::Protected | KeepRule::PickNotWakee)
            );
            // The pick sets curr aside when it is ineligible or off the queue.
            if reached_pick && (!curr.eligible || !curr.queued) {
                noeli += 1;
            }
            if matches!(
                outcome,
                Ok(PreemptRule::CurrIneligible
                    | PreemptRule::CurrDequeued
                    | PreemptRule::EarlierDeadline
                    | PreemptRule::PreemptShort)
            ) {
                picks += 1;
                if curr.deadline.wrapping_sub(wakee.deadline) < 0 {
                    lowdl += 1;
                }
                if nr_running <= 2 {
                    lownr += 1;
                }
            }
        }
        assert!(picks > 100, "{variant}: {picks} preemptions by the pick");
        assert_eq!(
            noeli,
            sum(&o, |c| c.curr_noeli_preempt_count),
            "{variant} curr_noeli"
        );
        assert_eq!(
            lowdl,
            sum(&o, |c| c.curr_lowdl_preempt_count),
            "{variant} curr_lowdl"
        );
        assert_eq!(
            lownr,
            sum(&o, |c| c.curr_lownr_preempt_count),
            "{variant} curr_lownr"
        );
    }
}

#[test]
fn run_to_parity_shows_as_protection() {
    // With RUN_TO_PARITY, some wakeups are refused because curr's slice is protected; without
    // it, no record can say so.
    let protected = |variant| {
        run("hackbench", variant, true)
            .trace
            .decisions
            .iter()
            .filter(|d| {
                matches!(
                    d.kind,
                    DecisionKind::Wakeup {
                        outcome: Err(KeepRule::Protected),
                        ..
                    }
                )
            })
            .count()
    };
    assert!(protected("eevdf-6.6") > 0);
    assert_eq!(protected("eevdf-6.6:NO_RUN_TO_PARITY"), 0);
}

/// The thread's own RUN_TO_PARITY (seed 000, WAKEUP_PARITY): a wakeup check keeps curr
/// exactly when curr is queued and eligible, under its own rule, never the merged
/// RUN_TO_PARITY's; every preemption by the pick found curr ineligible or not queued.
#[test]
fn wakeup_parity_shows_as_its_own_rule() {
    let o = run(
        "hackbench",
        "eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY",
        true,
    );
    let (mut kept, mut preempted, mut dequeued) = (0, 0, 0);
    for d in &o.trace.decisions {
        let DecisionKind::Wakeup { curr, outcome, .. } = d.kind else {
            continue;
        };
        match outcome {
            Err(KeepRule::WakeupParity) => {
                assert!(curr.eligible, "kept an ineligible curr: {d:?}");
                kept += 1;
            }
            Err(KeepRule::Protected) => panic!("the merged RUN_TO_PARITY is off: {d:?}"),
            // A newidle pull during curr's `__schedule` (it blocked) checks the pulled task
            // against curr dequeued (`!curr->on_rq`: the patch protects nothing then).
            Ok(PreemptRule::CurrDequeued) => {
                assert!(!curr.queued, "{d:?}");
                dequeued += 1;
            }
            Ok(PreemptRule::EarlierDeadline) => panic!("preempted an eligible curr: {d:?}"),
            Ok(PreemptRule::CurrIneligible) => {
                assert!(!curr.eligible, "{d:?}");
                preempted += 1;
            }
            _ => {}
        }
    }
    assert!(
        kept > 100 && preempted > 100 && dequeued > 0,
        "{kept} kept, {preempted} preempted, {dequeued} with curr dequeued"
    );
}

/// CACHE_HOT_BUDDY (`task_hot`): a buddy (`cfs_rq->next`; on CFS also `cfs_rq->last`, the
/// curr a wakeup preempted once 8 or more are queued) is cache hot to a balance onto a CPU with
/// tasks, so it moves only after `nr_balance_failed` > `cache_nice_tries` (1 in a 2-CPU LLC).
/// Eight tasks pinned to CPU 0 preempt three unpinned hogs there, and CPU 1 keeps pulling a hog.
/// With the feature off some hog leaves as CPU 0's last buddy on the first or second attempt
/// (a few times in six 10-s runs: the balance must find the buddy first in its list); with it
/// on, no buddy moves before its third.
#[test]
fn a_buddy_is_cache_hot_to_the_balancer() {
    let buddy_moves = |variant: &str| -> Vec<(u32, bool)> {
        (1..=6)
            .flat_map(|seed| {
                let json = format!(
                    r#"{{"version": 1, "name": "buddies", "cpus": 2, "hz": 250,
                    "duration_ms": 10000, "seed": {seed}, "variants": ["cfs-6.1"],
                    "tasks": [
                      {{"name": "w", "count": 8, "affinity": [0],
                       "program": [{{"run_us": {{"exp": 2000}}}}, {{"sleep_us": {{"exp": 6000}}}}]}},
                      {{"name": "h", "count": 3, "program": [{{"run": "forever"}}]}}]}}"#
                );
                let sc = schedlab_scenario::Scenario::from_json(&json).unwrap();
                let mut cfg = sc.sim_config();
                cfg.record_decisions = true;
                let o = simulate(&cfg, &Variant::parse(variant).unwrap()).unwrap();
                o.trace
                    .decisions
                    .iter()
                    .filter_map(|d| match d.kind {
                        DecisionKind::Move { why, .. } if why.buddy => {
                            Some((why.nr_balance_failed, why.hot))
                        }
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let off = buddy_moves("cfs-6.1:NO_CACHE_HOT_BUDDY");
    assert!(
        off.iter().any(|&(failed, _)| failed <= 1),
        "without CACHE_HOT_BUDDY no buddy moved early: {off:?}"
    );
    let on = buddy_moves("cfs-6.1");
    assert!(
        on.iter().all(|&(failed, hot)| hot && failed > 1),
        "with CACHE_HOT_BUDDY: {on:?}"
    );
}

/// The balancer's moves in a run, from its decision records.
fn moves(o: &Output) -> Vec<schedlab_sim::decision::Move> {
    o.trace
        .decisions
        .iter()
        .filter_map(|d| match d.kind {
            DecisionKind::Move { why, .. } => Some(why),
            _ => None,
        })
        .collect()
}

/// 6.14+ `can_migrate_task`: while a domain's balancing has not failed (`nr_balance_failed`
/// 0), a task that is not eligible on its run queue is not moved to a CPU that has tasks of its
/// group queued (873199d27bb2, "Prioritize migrating eligible tasks in sched_balance_rq()").
/// hackbench over pipes on 2 CPUs, every thread in the root group, so a busy destination
/// always has them: under `eevdf-6.19` every move of the periodic balance at
/// `nr_balance_failed` 0 is of an eligible task; under `eevdf-6.12`, which lacks the rule,
/// some are of tasks that are not.
#[test]
fn from_6_14_the_balancer_moves_eligible_tasks_first() {
    let json = r#"{"version": 1, "name": "pipes", "cpus": 2, "hz": 250, "duration_ms": 1500,
        "seed": 1, "variants": ["eevdf-6.19"],
        "workloads": [{"hackbench": {"groups": 4, "fds": 20, "loops": 1000, "threads": true,
          "pipe": true}}]}"#;
    let mut cfg = schedlab_scenario::Scenario::from_json(json)
        .unwrap()
        .sim_config();
    cfg.record_decisions = true;
    let early = |variant: &str| -> Vec<bool> {
        let o = simulate(&cfg, &Variant::parse(variant).unwrap()).unwrap();
        moves(&o)
            .iter()
            .filter(|w| w.balance == Balance::Periodic && w.nr_balance_failed == 0)
            .map(|w| w.eligible)
            .collect()
    };
    let e = early("eevdf-6.19");
    assert!(
        e.len() >= 20,
        "{} periodic moves at nr_balance_failed 0",
        e.len()
    );
    assert!(
        e.iter().all(|&x| x),
        "eevdf-6.19 moved an ineligible task early: {e:?}"
    );
    assert!(
        early("eevdf-6.12").iter().any(|&x| !x),
        "eevdf-6.12 moves ineligible tasks early too"
    );
}

/// 6.14+ `can_migrate_task`: a delayed task (blocked, kept queued by DELAY_DEQUEUE) moves for
/// migrate_load only (Vincent Guittot, "Migrating a delayed dequeued task doesn't help in
/// balancing the number of runnable tasks"); the stopper's active balance is migrate_load (its
/// `lb_env` leaves the type at the enum's first value). 6.12 and 6.13 move one as any queued
/// task. On the video preset under `eevdf-6.19` delayed video threads are moved, each by an
/// active balance or for load; under `eevdf-6.12` more are, some for another type.
#[test]
fn from_6_14_a_delayed_task_moves_for_load_only() {
    let delayed = |variant: &str| -> Vec<schedlab_sim::decision::Move> {
        moves(&run("video-massive-intr", variant, true))
            .into_iter()
            .filter(|w| w.delayed)
            .collect()
    };
    let new = delayed("eevdf-6.19");
    assert!(!new.is_empty(), "eevdf-6.19 moved no delayed task");
    assert!(
        new.iter()
            .all(|w| w.balance == Balance::Active
                || matches!(w.imbalance, Some((Imbalance::Load, _)))),
        "a delayed task moved for another migration type: {new:?}"
    );
    let old = delayed("eevdf-6.12");
    assert!(
        old.iter()
            .any(|w| w.balance != Balance::Active
                && !matches!(w.imbalance, Some((Imbalance::Load, _)))),
        "eevdf-6.12 moved delayed tasks only for load: {old:?}"
    );
}
