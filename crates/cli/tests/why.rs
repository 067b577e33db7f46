//! The decision records of picks, placements, CPU selections and balancer moves agree with the
//! trace: every `sched_switch` has exactly one pick record choosing its next task (a pick that
//! keeps prev has no switch, as `__schedule` emits none when prev == next), every
//! `sched_migrate_task` has exactly one CPU-selection or balancer record, placement deadlines
//! follow `place_entity`'s arithmetic, and the records are the same on every run.

use schedlab_scenario::presets::{preset, presets};
use schedlab_scenario::Scenario;
use schedlab_sim::decision::{DecisionKind, Enqueue, Imbalance, PickRule, PlaceRules, SelectPath};
use schedlab_sim::{simulate, EventKind, Output, SimConfig, Variant};

fn run_cfg(cfg: &SimConfig, variant: &str) -> Output {
    let mut cfg = cfg.clone();
    cfg.record_decisions = true;
    simulate(&cfg, &Variant::parse(variant).unwrap()).unwrap()
}

/// Each preset under one of the kernel generations, in turn.
fn preset_runs() -> Vec<(&'static str, &'static str)> {
    const VS: [&str; 5] = [
        "eevdf-6.12",
        "cfs-6.1",
        "eevdf-6.6",
        "eevdf-6.19",
        "eevdf-6.12:NO_DELAY_DEQUEUE",
    ];
    presets()
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name, VS[i % VS.len()]))
        .collect()
}

/// A preset shortened to `ms` (the records are checked event by event; a short run has
/// thousands of them).
fn short(name: &str, ms: u64) -> SimConfig {
    let mut cfg = preset(name).unwrap().scenario().sim_config();
    cfg.duration_ns = cfg.duration_ns.min(ms * 1_000_000);
    cfg
}

#[test]
fn every_switch_has_exactly_one_pick_and_every_migration_one_reason() {
    let (mut picks_total, mut kept, mut selects, mut moves) = (0, 0, 0, 0);
    for (name, variant) in preset_runs() {
        let o = run_cfg(&short(name, 400), variant);
        let tag = format!("{name} {variant}");
        // Switches and the picks that changed the task, in order.
        let switches: Vec<(u64, u32, u32, u32)> = o
            .trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Switch {
                    prev_pid, next_pid, ..
                } => Some((e.t_ns, e.cpu, prev_pid, next_pid)),
                _ => None,
            })
            .collect();
        let mut picks = vec![];
        for d in &o.trace.decisions {
            if let DecisionKind::Pick {
                prev,
                next,
                rule,
                chosen,
                ..
            } = d.kind
            {
                picks_total += 1;
                // The chosen entity is the next task (fair ones carry its view).
                if let Some(c) = chosen {
                    assert_eq!(c.pid, next, "{tag}: pick record's view is of another task");
                }
                assert_eq!(next == 0, rule == PickRule::Idle, "{tag}: idle pick {d:?}");
                if next == prev {
                    kept += 1;
                } else {
                    picks.push((d.t_ns, d.cpu, prev, next));
                }
            }
        }
        assert!(!switches.is_empty(), "{tag}: no switch");
        assert_eq!(
            switches.len(),
            picks.len(),
            "{tag}: switches and changing picks differ in number"
        );
        for (s, p) in switches.iter().zip(&picks) {
            assert_eq!(s, p, "{tag}: the switch and its pick");
        }
        // Migrations: each has exactly one wakeup selection or balancer move, and each of
        // those records moved a task.
        let mut migrations: Vec<(u64, u32, u32, u32, u32)> = o
            .trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::MigrateTask {
                    pid,
                    orig_cpu,
                    dest_cpu,
                } => Some((e.t_ns, e.cpu, pid, orig_cpu, dest_cpu)),
                _ => None,
            })
            .collect();
        let mut reasons: Vec<(u64, u32, u32, u32, u32)> = o
            .trace
            .decisions
            .iter()
            .filter_map(|d| match d.kind {
                DecisionKind::Select {
                    pid,
                    prev_cpu,
                    waker_cpu: Some(w),
                    cpu,
                    ..
                } if cpu != prev_cpu => {
                    assert_eq!(
                        w, d.cpu,
                        "{tag}: a selection is recorded on the waker's CPU"
                    );
                    selects += 1;
                    Some((d.t_ns, d.cpu, pid, prev_cpu, cpu))
                }
                DecisionKind::Move { pid, src, dst, why } => {
                    moves += 1;
                    // detach_tasks moves a task only when shr_bound(load, nr_balance_failed)
                    // does not exceed the imbalance left (migrate_load and migrate_util).
                    if let Some((m, imbalance)) = why.imbalance {
                        if m != Imbalance::Task {
                            let shifted = why.load >> why.nr_balance_failed.min(63);
                            assert!(shifted <= imbalance, "{tag}: {d:?}");
                        }
                    }
                    Some((d.t_ns, d.cpu, pid, src, dst))
                }
                _ => None,
            })
            .collect();
        migrations.sort_unstable();
        reasons.sort_unstable();
        assert_eq!(migrations, reasons, "{tag}: migrations and their records");
    }
    assert!(
        kept > 0,
        "no pick kept prev: the no-switch case is not exercised"
    );
    assert!(picks_total > kept);
    assert!(
        selects > 0,
        "no wakeup migrated: the selection case is not exercised"
    );
    assert!(
        moves > 0,
        "no balancer move: the balancer case is not exercised"
    );
}

/// `__calc_delta(delta, NICE_0_LOAD, se->load)` for a table weight: fact = 1024 × inv_weight,
/// shifted right until it fits 32 bits (the shift starting at 32), then
/// (delta × fact) >> shift (kernel/sched/fair.c; reference §1.4).
fn calc_delta_fair(delta: u64, weight: u64, inv_weight: u64) -> u64 {
    if weight == 1024 {
        return delta;
    }
    let mut fact: u128 = 1024 * inv_weight as u128;
    let mut shift = 32;
    while fact >> 32 != 0 {
        fact >>= 1;
        shift -= 1;
    }
    ((delta as u128 * fact) >> shift) as u64
}

/// One CPU, HZ=1000: a nice-0 hog and two sleepers (nice 0 and nice 5), so wakeups are placed
/// against a queue with curr.
fn placement_scenario(variant: &str) -> SimConfig {
    Scenario::from_json(&format!(
        r#"{{"version": 1, "name": "placement", "cpus": 1, "hz": 1000, "duration_ms": 300,
        "seed": 3, "variants": ["{variant}"],
        "tasks": [
          {{"name": "hog", "program": [{{"run": "forever"}}]}},
          {{"name": "a", "program": [{{"run_us": 300}}, {{"sleep_us": 700}}]}},
          {{"name": "b", "nice": 5, "program": [{{"run_us": 500}}, {{"sleep_us": 1500}}]}}
        ]}}"#
    ))
    .unwrap()
    .sim_config()
}

#[test]
fn eevdf_placement_follows_place_entity() {
    // (variant, base slice on one CPU: 0.75 ms before 6.15, 0.70 ms from it; whether a new
    // task's first deadline is half a slice: 6.12+ pass ENQUEUE_INITIAL at activation).
    for (variant, slice, half_initial) in [
        ("eevdf-6.6", 750_000u64, false),
        ("eevdf-6.12", 750_000, true),
        ("eevdf-6.19", 700_000, true),
    ] {
        let o = run_cfg(&placement_scenario(variant), variant);
        let mut seen = [0usize; 3];
        for d in &o.trace.decisions {
            let DecisionKind::Place { place: p, .. } = d.kind else {
                continue;
            };
            // nice 0: 1024 (inverse 4194304); nice 5: 335 (inverse 12820798).
            let (w, inv) = if p.pid == 3 {
                (335, 12_820_798)
            } else {
                (1024, 4_194_304)
            };
            let vslice = calc_delta_fair(slice, w, inv) as i64;
            assert_eq!(p.vslice, vslice, "{variant}: vslice of {p:?}");
            let initial = p.why == Enqueue::New && half_initial;
            assert_eq!(
                p.rules.has(PlaceRules::PLACE_DEADLINE_INITIAL),
                initial,
                "{variant}: {p:?}"
            );
            let want = if initial { vslice / 2 } else { vslice };
            assert_eq!(
                p.deadline - p.vruntime,
                want,
                "{variant}: deadline of {p:?}"
            );
            // PLACE_LAG: lag = vlag × (W + w) / W, truncated toward zero; vruntime = V − lag.
            if p.rules.has(PlaceRules::PLACE_LAG) {
                let w_user = w as i64;
                assert_eq!(
                    p.lag,
                    p.vlag * (p.load + w_user) / p.load,
                    "{variant}: {p:?}"
                );
                seen[2] += 1;
            } else {
                assert_eq!(p.lag, 0, "{variant}: {p:?}");
            }
            assert_eq!(p.vruntime, p.v - p.lag, "{variant}: {p:?}");
            seen[usize::from(p.why != Enqueue::New)] += 1;
        }
        assert_eq!(seen[0], 3, "{variant}: one placement per new task");
        assert!(seen[1] > 50, "{variant}: wakeup placements {seen:?}");
        assert!(seen[2] > 50, "{variant}: PLACE_LAG placements {seen:?}");
    }
}

#[test]
fn cfs_placement_gives_the_sleeper_credit() {
    // One CPU: sched_latency 6 ms (factor 1); GENTLE_FAIR_SLEEPERS halves the credit to 3 ms.
    for (variant, credit) in [
        ("cfs-6.1", 3_000_000i64),
        ("cfs-6.1:NO_GENTLE_FAIR_SLEEPERS", 6_000_000),
    ] {
        let o = run_cfg(&placement_scenario(variant), variant);
        let mut wakeups = 0;
        for d in &o.trace.decisions {
            let DecisionKind::Place { place: p, .. } = d.kind else {
                continue;
            };
            if p.why == Enqueue::New {
                assert!(p.rules.has(PlaceRules::START_DEBIT), "{variant}: {p:?}");
                continue;
            }
            wakeups += 1;
            assert_eq!(p.lag, credit, "{variant}: {p:?}");
            // max_vruntime(se->vruntime, min_vruntime − thresh).
            assert_eq!(p.vruntime, p.vlag.max(p.v - credit), "{variant}: {p:?}");
            assert_eq!(p.rules.has(PlaceRules::KEPT_OWN), p.vlag >= p.v - credit);
        }
        assert!(wakeups > 50, "{variant}: {wakeups} wakeup placements");
    }
}

#[test]
fn records_are_the_same_on_every_run() {
    for (name, variant) in [("tbench-cross", "eevdf-6.12"), ("fio-grid", "cfs-6.1")] {
        let a = run_cfg(&short(name, 200), variant);
        let b = run_cfg(&short(name, 200), variant);
        assert!(a.trace.decisions.len() > 1000, "{name}");
        assert_eq!(a.trace.decisions, b.trace.decisions, "{name} {variant}");
        // And recording them changes nothing in the trace.
        let mut cfg = short(name, 200);
        cfg.record_decisions = false;
        let c = simulate(&cfg, &Variant::parse(variant).unwrap()).unwrap();
        assert_eq!(a.trace.events, c.trace.events, "{name} {variant}");
        assert!(c.trace.decisions.is_empty());
    }
}

#[test]
fn fork_selections_are_recorded() {
    let o = run_cfg(&short("tbench-cross", 50), "eevdf-6.19");
    let forks = o
        .trace
        .decisions
        .iter()
        .filter(|d| {
            matches!(
                d.kind,
                DecisionKind::Select {
                    waker_cpu: None,
                    path: SelectPath::Fork { .. } | SelectPath::OnlyCpu,
                    ..
                }
            )
        })
        .count();
    assert_eq!(forks, o.trace.tasks.len());
}

/// (status, stdout, stderr) of `schedlab ARGS`.
fn schedlab(args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (vec![], vec![]);
    let code = schedlab_cli::main_with(&args, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn run_why_prints_one_line_per_decision() {
    let args = [
        "run",
        "--preset",
        "tbench-stacked",
        "--variant",
        "eevdf-6.12:NO_DELAY_DEQUEUE",
        "--why",
        "--why-from",
        "0.1",
        "--why-to",
        "0.102",
    ];
    let (code, out, err) = schedlab(&args);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("(why: "))
        .skip(1)
        .collect();
    assert!(lines.len() > 20, "{out}");
    for l in &lines {
        // time, CPU, kind, then the sentence.
        let f: Vec<&str> = l.split_whitespace().collect();
        let t: f64 = f[0].parse().unwrap();
        assert!((0.1..=0.102).contains(&t), "{l}");
        assert!(f[1].starts_with("cpu"), "{l}");
        assert!(
            [
                "pick",
                "wakeup",
                "preempt",
                "place",
                "delay",
                "delay-end",
                "select",
                "move"
            ]
            .contains(&f[2]),
            "{l}"
        );
    }
    assert!(lines
        .iter()
        .any(|l| l.contains(" pick ") && l.contains("pick_eevdf (6.12)")));
    assert!(lines
        .iter()
        .any(|l| l.contains(" place ") && l.contains("place_entity (6.12)")));
    // The same run twice prints the same bytes.
    assert_eq!(schedlab(&args).1, out);
    // --why-pid keeps the records about that task only.
    let (code, one, _) = schedlab(&[
        "run",
        "--preset",
        "tbench-stacked",
        "--variant",
        "eevdf-6.12:NO_DELAY_DEQUEUE",
        "--why",
        "--why-pid",
        "2",
        "--why-to",
        "0.01",
    ]);
    assert_eq!(code, 0);
    let body: Vec<&str> = one
        .lines()
        .skip_while(|l| !l.contains("(why: "))
        .skip(1)
        .collect();
    assert!(!body.is_empty());
    assert!(body.iter().all(|l| l.contains(":2")), "{one}");
}

#[test]
fn run_why_json_has_a_decisions_array() {
    let (code, out, err) = schedlab(&[
        "run",
        "--preset",
        "tbench-cross",
        "--variant",
        "cfs-6.1",
        "--format",
        "json",
        "--why",
        "--why-to",
        "0.01",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ds = v["variants"][0]["decisions"].as_array().unwrap();
    assert!(!ds.is_empty());
    for d in ds {
        assert!(d["t_ns"].as_u64().unwrap() <= 10_000_000);
        assert!(d["text"].as_str().is_some_and(|s| !s.is_empty()));
    }
    // Without --why, no array.
    let (_, plain, _) = schedlab(&["run", "--preset", "tbench-cross", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert!(v["variants"][0].get("decisions").is_none());
}

#[test]
fn why_filters_need_why_and_sane_times() {
    let (code, _, err) = schedlab(&["run", "--preset", "tbench-cross", "--why-pid", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--why"), "{err}");
    let (code, _, err) = schedlab(&[
        "run",
        "--preset",
        "tbench-cross",
        "--why",
        "--why-from",
        "0.5",
        "--why-to",
        "0.1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--why-from is after --why-to"), "{err}");
    let (code, _, err) = schedlab(&["run", "--preset", "tbench-cross", "--why", "--why-from=-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("seconds"), "{err}");
}
