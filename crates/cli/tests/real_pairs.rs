//! A pipe ping-pong pair beside two CPU hogs on the 2-vCPU EPYC VM (Linux 6.18, HZ=250, no
//! cpuidle driver), `tests/fixtures/real-epyc-dec5/`: three 1-s recordings (after 3 s) of two
//! hogs and the unpinned pair (`pp2hog-1..3`), the pair pinned alone (`pingpong-one`, 0.5 s),
//! and the machine's costs, `local` included (`ONLY="pingpong-one pp2hog costs" sh
//! scripts/record-fixtures.sh tests/fixtures/real-epyc-dec5`).
//!
//! On the machine the pair settles on one CPU and the two hogs share the other: the partner
//! that blocks has just run (the rest of its write, its read's entry) since it placed the one
//! it woke, so it is past the average vruntime and DELAY_DEQUEUE keeps it queued; the pair's
//! CPU then carries two tasks' load (debugfs, docs/measurements.md: `load` 2 × 1024 with one
//! task runnable) against the hogs' two, and the balancer leaves both CPUs alone. (The machine also
//! runs the pair split, each end beside a hog, for up to seconds at a time; the model started
//! split stays split: docs/measurements.md.)

use schedlab_scenario::Scenario;
use schedlab_sim::{simulate, EventKind, Trace};

const DIR: &str = "real-epyc-dec5";

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/fixtures/{DIR}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Per pid (index = pid − 1): CPU time (ns) from the switches, wakeups it received and those
/// on the CPU they were issued from.
#[derive(Clone, Copy, Debug, Default)]
struct PidFigures {
    cpu_ns: u64,
    wakeups: u64,
    local: u64,
}

fn figures(trace: &Trace, pids: usize) -> Vec<PidFigures> {
    let mut f = vec![PidFigures::default(); pids + 1];
    let mut on: Vec<(u32, u64)> = vec![(0, 0); trace.cpus as usize];
    for e in &trace.events {
        match e.kind {
            EventKind::Switch { next_pid, .. } => {
                let (prev, since) = on[e.cpu as usize];
                if prev != 0 && (prev as usize) <= pids {
                    f[prev as usize].cpu_ns += e.t_ns - since;
                }
                on[e.cpu as usize] = (next_pid, e.t_ns);
            }
            EventKind::Waking { pid, target_cpu } if (pid as usize) <= pids => {
                f[pid as usize].wakeups += 1;
                if target_cpu == e.cpu {
                    f[pid as usize].local += 1;
                }
            }
            _ => {}
        }
    }
    f
}

/// The costs line parts of the metadata, medians of its runs: (alone write + read, pinned
/// pair round trip, remote wakeup onto a busy CPU, onto an idle one, local wakeup), ns.
fn costs() -> [f64; 5] {
    let text = String::from_utf8(fixture("metadata.txt")).unwrap();
    // The number just before `unit` in `s`.
    let num = |s: &str, unit: &str| -> f64 {
        let i = s.find(unit).unwrap_or_else(|| panic!("{unit} in {s}"));
        s[..i].split_whitespace().last().unwrap().parse().unwrap()
    };
    // A part's waking write less its plain write.
    let extra = |s: &str| {
        let (_, w) = s.split_once("write waking the partner").unwrap();
        let (waking, plain) = w.split_once(", write alone").unwrap();
        num(waking, " ns") - num(plain, " ns")
    };
    let mut cols: [Vec<f64>; 5] = Default::default();
    for l in text.lines().filter(|l| l.starts_with("costs, run ")) {
        let p: Vec<&str> = l.split(" | ").collect();
        assert_eq!(p.len(), 5, "{l}");
        cols[0].push(num(p[0], " ns/iter"));
        cols[1].push(num(p[1], " ns/round-trip"));
        cols[2].push(extra(p[3]));
        cols[3].push(extra(p[2]));
        cols[4].push(extra(p[4]));
    }
    assert!(cols[0].len() >= 3, "{} cost runs", cols[0].len());
    cols.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    })
}

/// Recorded: the pinned pair is switched out preempted (R) at about half of each side's
/// switch-outs, and there is about one wakeup per round trip: a writer's woken partner that
/// preempts it takes the CPU at the write's return, before the writer reaches its read, so the
/// writer does not block. The model, the same pair pinned with the machine's costs and their
/// spread under `eevdf-6.12` and `eevdf-6.19`, switches the two sides out preempted at 48.7 %
/// and 51.3 % of their switch-outs with 1.00 wakeup per round trip. With the same costs fixed
/// it was 34 % and 1.33 (the two sides tie to the nanosecond), and when it took the reschedule
/// only after δ the writer reached its read and blocked there every time (0 % and 2.00).
/// Held: the recording's bands, each side 0.3–0.7 and 0.9–1.1 wakeups per round trip.
#[test]
fn recorded_pinned_pair_wakes_once_per_round_trip() {
    let imp =
        schedlab_trace::import_bytes(&fixture("pingpong-one.perf-script.gz"), Default::default())
            .expect("import");
    let pair: Vec<u32> = imp
        .pids
        .iter()
        .filter(|t| t.comm == "pingpong")
        .map(|t| t.pid)
        .collect();
    assert_eq!(pair.len(), 2);
    let (mut preempted, mut blocked, mut wakeups) = ([0u64; 2], [0u64; 2], 0u64);
    for e in &imp.trace.events {
        match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                ..
            } => {
                if let Some(i) = pair.iter().position(|&p| p == prev_pid) {
                    if prev_state == schedlab_sim::PrevState::Running {
                        preempted[i] += 1;
                    } else {
                        blocked[i] += 1;
                    }
                }
            }
            EventKind::Waking { pid, .. } if pair.contains(&pid) => wakeups += 1,
            _ => {}
        }
    }
    let switches: u64 = preempted.iter().chain(&blocked).sum();
    // A round trip is two switch-outs, one of each side.
    let per_round_trip = wakeups as f64 / (switches as f64 / 2.0);
    assert!(
        (0.9..=1.1).contains(&per_round_trip),
        "{wakeups} wakeups in {switches} switch-outs"
    );
    for i in 0..2 {
        let share = preempted[i] as f64 / (preempted[i] + blocked[i]) as f64;
        assert!(
            (0.3..=0.7).contains(&share),
            "side {i}: {} preempted, {} blocked",
            preempted[i],
            blocked[i]
        );
    }

    let [alone, pair, _, _, local] = costs();
    let switch = (pair - 2.0 * alone - local) / 2.0;
    let spread = schedlab_sim::machine("epyc-vm").unwrap().cost_spread_ppm;
    let json = format!(
        r#"{{"version": 1, "name": "pingpong pinned", "cpus": 2, "hz": 250, "duration_ms": 500,
        "seed": 1, "variants": ["eevdf-6.12", "eevdf-6.19"], "switch_cost_ns": {},
        "local_wakeup_ns": {}, "cost_spread_ppm": {}, "housekeeping": "off",
        "tasks": [
          {{"name": "ping", "affinity": [0], "program": [{{"loop": 1000000, "steps": [
            {{"run_us": 0.2}}, {{"send": "ping"}}, {{"recv": "pong"}}]}}]}},
          {{"name": "pong", "affinity": [0], "program": [{{"loop": 1000000, "steps": [
            {{"recv": "ping"}}, {{"run_us": 0.2}}, {{"send": "pong"}}]}}]}}]}}"#,
        switch.round(),
        local.round(),
        spread
    );
    let s = Scenario::from_json(&json).unwrap();
    let c = s.sim_config();
    for v in s.variants() {
        let o = simulate(&c, v).unwrap();
        let (mut preempted, mut blocked, mut wakeups) = ([0u64; 2], [0u64; 2], 0u64);
        for e in o.trace.events.iter() {
            match e.kind {
                EventKind::Switch {
                    prev_pid,
                    prev_state,
                    ..
                } if (1..=2).contains(&prev_pid) => {
                    let i = prev_pid as usize - 1;
                    if prev_state == schedlab_sim::PrevState::Running {
                        preempted[i] += 1;
                    } else {
                        blocked[i] += 1;
                    }
                }
                EventKind::Waking { pid, .. } if (1..=2).contains(&pid) => wakeups += 1,
                _ => {}
            }
        }
        let switches: u64 = preempted.iter().chain(&blocked).sum();
        let per_round_trip = wakeups as f64 / (switches as f64 / 2.0);
        eprintln!(
            "{}: preempted {preempted:?}, blocked {blocked:?}, {per_round_trip:.2} wakeups per round trip",
            v.name
        );
        assert!(switches > 100_000, "{}: {switches} switch-outs", v.name);
        assert!(
            (0.9..=1.1).contains(&per_round_trip),
            "{}: {per_round_trip:.2}",
            v.name
        );
        for i in 0..2 {
            let share = preempted[i] as f64 / (preempted[i] + blocked[i]) as f64;
            assert!(
                (0.3..=0.7).contains(&share),
                "{}: side {i} {share:.3}",
                v.name
            );
        }
    }
}

/// Recorded: in each of the three runs the pair wakes on the waker's CPU at least 90 % of the
/// time (100, 94.6, 100 %), and each hog gets 0.45–0.65 of a CPU (0.49–0.62; perf itself takes
/// ~0.09).
#[test]
fn recorded_pair_keeps_a_cpu_apart_from_two_hogs() {
    for i in 1..=3 {
        let imp = schedlab_trace::import_bytes(
            &fixture(&format!("pp2hog-{i}.perf-script.gz")),
            Default::default(),
        )
        .expect("import");
        let f = figures(&imp.trace, imp.pids.len());
        let secs = imp.trace.end_ns as f64 / 1e9;
        let (mut wakeups, mut local) = (0, 0);
        for t in imp.pids.iter().filter(|t| t.comm == "pingpong") {
            wakeups += f[t.pid as usize].wakeups;
            local += f[t.pid as usize].local;
        }
        assert!(
            wakeups > 50_000 && local * 10 >= wakeups * 9,
            "pp2hog-{i}: {local} of {wakeups} local"
        );
        // The hogs are the two busiest `sh` (the recording script's own shell sleeps).
        let mut hogs: Vec<f64> = imp
            .pids
            .iter()
            .filter(|t| t.comm == "sh")
            .map(|t| f[t.pid as usize].cpu_ns as f64 / 1e9 / secs)
            .collect();
        hogs.sort_by(|a, b| b.total_cmp(a));
        for h in &hogs[..2] {
            assert!((0.45..=0.65).contains(h), "pp2hog-{i}: hogs {hogs:?}");
        }
    }
}

/// The pair beside two hogs, started as the machine settles (the pair on CPU 0, the hogs on
/// CPU 1, then free to move), with the recording machine's costs and the EPYC VM's
/// housekeeping: under `eevdf-6.12` and `eevdf-6.19`, seeds 1–3, the arrangement holds for 3 s
/// as on the machine (each hog 0.45–0.55 of a CPU, the pair's wakeups ≥ 95 % local). The
/// waker's own wakeup cost (`local_wakeup_ns`, measured with `switchcost local`) holds it: without it the
/// writer blocks at the very instant it placed its partner, level with it, so it is eligible
/// and leaves the queue; the pair's CPU then carries little more than one task's load and a
/// hog is pulled over (more than 0.55 of a CPU for a hog in some of these runs).
/// The machine's costs vary from one call to the next (`cost_spread_ppm`, the EPYC VM's
/// `switchcost spread`): with fixed costs the two sides of the pair tie to the nanosecond,
/// and at seeds 1 and 2 a hog was pulled onto the pair's CPU (each hog 0.71–0.74 of a CPU,
/// the pair 39–53 % local).
#[test]
fn a_pair_beside_two_hogs_keeps_its_cpu_as_recorded() {
    let [alone, pair, busy, idle, local] = costs();
    // The pinned pair's round trip is two plain write + read loops, two switches and one
    // local wakeup (recorded_pinned_pair_wakes_once_per_round_trip).
    let switch = (pair - 2.0 * alone - local) / 2.0;
    assert!((500.0..3000.0).contains(&switch), "switch {switch}");
    let m = schedlab_sim::machine("epyc-vm").unwrap();
    let (hk, spread) = (m.housekeeping, m.cost_spread_ppm);
    let run = |local_ns: f64, seed: u64| {
        let json = format!(
            r#"{{"version": 1, "name": "pp2hog", "cpus": 2, "hz": 250, "duration_ms": 3000,
            "seed": {seed}, "variants": ["eevdf-6.12", "eevdf-6.19"],
            "switch_cost_ns": {}, "wakeup_cost_ns": {}, "ipi_cost_ns": {},
            "local_wakeup_ns": {}, "cost_spread_ppm": {}, "housekeeping": {{"runs_per_s": {}, "run_us": {}}},
            "tasks": [
              {{"name": "hog", "count": 2, "affinity": [1],
                "program": [{{"affinity": [0, 1]}}, {{"run": "forever"}}]}},
              {{"name": "ping", "affinity": [0], "program": [{{"affinity": [0, 1]}},
                {{"loop": 1000000, "steps": [{{"loop": 1000000, "steps": [
                  {{"run_us": 0.2}}, {{"send": "ping"}}, {{"recv": "pong"}}]}}]}}]}},
              {{"name": "pong", "affinity": [0], "program": [{{"affinity": [0, 1]}},
                {{"loop": 1000000, "steps": [{{"loop": 1000000, "steps": [
                  {{"recv": "ping"}}, {{"run_us": 0.2}}, {{"send": "pong"}}]}}]}}]}}]}}"#,
            switch.round(),
            busy.round(),
            (idle - busy).max(0.0).round(),
            local_ns.round(),
            spread,
            hk.runs_per_s,
            hk.run_ns / 1000
        );
        let s = Scenario::from_json(&json).unwrap();
        let c = s.sim_config();
        s.variants()
            .iter()
            .map(|v| {
                let o = simulate(&c, v).unwrap();
                let f = figures(&o.trace, c.tasks.len());
                let secs = o.trace.end_ns as f64 / 1e9;
                let hogs = [
                    f[1].cpu_ns as f64 / 1e9 / secs,
                    f[2].cpu_ns as f64 / 1e9 / secs,
                ];
                let (w, l) = (f[3].wakeups + f[4].wakeups, f[3].local + f[4].local);
                (v.name.clone(), hogs, l as f64 / w as f64)
            })
            .collect::<Vec<_>>()
    };
    let mut worst_without = 0.0f64;
    for seed in 1..=3 {
        for (v, hogs, local_share) in run(local, seed) {
            assert!(
                hogs.iter().all(|h| (0.45..=0.55).contains(h)) && local_share >= 0.95,
                "{v}, seed {seed}: hogs {hogs:?}, pair {local_share:.3} local"
            );
        }
    }
    for seed in 1..=3 {
        for (_, hogs, _) in run(0.0, seed) {
            worst_without = hogs.iter().fold(worst_without, |m, &h| m.max(h));
        }
        if worst_without > 0.55 {
            break;
        }
    }
    assert!(
        worst_without > 0.55,
        "without the local wakeup cost a hog gets at most {worst_without:.3}"
    );
}
