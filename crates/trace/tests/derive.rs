//! The scenario derived from a recording against the recording: CPU shares and wakeup latency
//! percentiles of its simulation (eevdf-6.19, the `import` command's default) compared with
//! the recorded ones.
//!
//! Tolerances come from the recording itself: a share must be within the recorded one ± the
//! difference between the recording's two halves (how much the real machine varied within
//! one run), and a wakeup-latency percentile within the range of the halves' widened by their
//! own ratio and by the timestamps' resolution. The values the derivation gave before it derived
//! channels are kept in comments: sched-pipe's share fell outside the range, and its p99
//! wakeup latency was 100 times the recorded one.

mod common;

use common::import;
use schedlab_report::histogram::percentile_ns;
use schedlab_report::wakeup::wakeup_latencies_ns;
use schedlab_scenario::Scenario;
use schedlab_sim::{EventKind, Trace};
use schedlab_trace::derive_scenario;

/// CPU time per pid in [from, to), from the switches.
fn cpu_ns(t: &Trace, from: u64, to: u64) -> Vec<u64> {
    let mut out = vec![0u64; t.tasks.len() + 1];
    let mut on: Vec<Option<(u32, u64)>> = vec![None; t.cpus as usize];
    let mut add = |pid: u32, a: u64, b: u64| {
        let (a, b) = (a.max(from), b.min(to));
        if b > a {
            out[pid as usize] += b - a;
        }
    };
    for e in &t.events {
        if let EventKind::Switch { next_pid, .. } = e.kind {
            if let Some((pid, since)) = on[e.cpu as usize].take() {
                add(pid, since, e.t_ns);
            }
            if next_pid != 0 {
                on[e.cpu as usize] = Some((next_pid, e.t_ns));
            }
        }
    }
    for (pid, since) in on.into_iter().flatten() {
        add(pid, since, t.end_ns);
    }
    out
}

/// The share (%) of the tasks `pick` selects in the CPU time of the tasks `of` selects, in
/// [from, to).
fn share(
    t: &Trace,
    from: u64,
    to: u64,
    of: impl Fn(u32) -> bool,
    pick: impl Fn(u32) -> bool,
) -> f64 {
    let c = cpu_ns(t, from, to);
    let total: u64 = (1..c.len()).filter(|&p| of(p as u32)).map(|p| c[p]).sum();
    let part: u64 = (1..c.len())
        .filter(|&p| of(p as u32) && pick(p as u32))
        .map(|p| c[p])
        .sum();
    100.0 * part as f64 / total.max(1) as f64
}

/// Wakeup latencies' (p50, p99) of the wakeups in [from, to).
fn latency(t: &Trace, from: u64, to: u64) -> [u64; 2] {
    let mut cut = t.clone();
    cut.events.retain(|e| e.t_ns >= from && e.t_ns < to);
    let mut v = wakeup_latencies_ns(&cut, None);
    v.sort_unstable();
    [percentile_ns(&v, 50.0), percentile_ns(&v, 99.0)]
}

/// A recording's figures and its derived scenario's simulation.
struct Check {
    /// Share (%) of the comm in the kept tasks' CPU time: whole recording, its two halves.
    recorded: f64,
    halves: [f64; 2],
    /// Share of the groups named comm in the simulation.
    simulated: f64,
    /// Wakeup latency [p50, p99], ns: whole recording, per half, simulated.
    lat_recorded: [u64; 2],
    lat_halves: [[u64; 2]; 2],
    lat_simulated: [u64; 2],
    channels: usize,
    /// Channels of a consistent pair (an inbox read by one task).
    pairs: usize,
}

/// The scenario derived from `imp` under `eevdf-6.19` (tasks with less than `min_cpu_ns` of CPU
/// left out), validated, and its simulation.
fn derive_and_run(
    imp: &schedlab_trace::Import,
    min_cpu_ns: u64,
) -> (schedlab_trace::Derived, Scenario, schedlab_sim::Output) {
    let d = derive_scenario(imp, "derived", &["eevdf-6.19".to_string()], min_cpu_ns);
    let sc = Scenario::from_value(d.scenario.clone()).expect("the derived scenario validates");
    let out = schedlab_sim::simulate(&sc.sim_config(), &sc.variants()[0]).expect("it runs");
    (d, sc, out)
}

/// As [`derive_and_run`], with the groups named `comm` in one autogroup session (as
/// `schedlab import --session COMM` puts them: a workload started from one shell).
fn derive_and_run_in_session(
    imp: &schedlab_trace::Import,
    min_cpu_ns: u64,
    comm: &str,
) -> (schedlab_trace::Derived, Scenario, schedlab_sim::Output) {
    let mut d = derive_scenario(imp, "derived", &["eevdf-6.19".to_string()], min_cpu_ns);
    d.scenario["autogroup"] = true.into();
    for t in d.scenario["tasks"].as_array_mut().unwrap() {
        if t["name"] == comm {
            // As `--session`: the session stands for a group the import inferred.
            t.as_object_mut().unwrap().remove("cgroup");
            t["session"] = 1.into();
        }
    }
    let sc = Scenario::from_value(d.scenario.clone()).expect("the derived scenario validates");
    let out = schedlab_sim::simulate(&sc.sim_config(), &sc.variants()[0]).expect("it runs");
    (d, sc, out)
}

/// The share (%) of a simulation's CPU time that the tasks of scenario groups `groups` took.
fn group_share(sim: &Trace, groups: &[u32]) -> f64 {
    share(
        sim,
        0,
        sim.end_ns,
        |_| true,
        |pid| {
            sim.tasks[pid as usize - 1]
                .group
                .is_some_and(|g| groups.contains(&g))
        },
    )
}

fn check(fixture: &str, comm: &str, min_cpu_ns: u64) -> Check {
    let imp = import(fixture);
    let t = &imp.trace;
    let half = t.end_ns / 2;
    let (d, _, out) = derive_and_run(&imp, min_cpu_ns);
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
    let whole = cpu_ns(t, 0, t.end_ns);
    let kept = |pid: u32| whole[pid as usize] >= min_cpu_ns.max(1);
    let is_comm = |pid: u32| imp.pids.iter().any(|r| r.pid == pid && r.comm == comm);
    let groups: Vec<u32> = (0..d.groups.len() as u32)
        .filter(|&i| d.groups[i as usize].comm == comm)
        .collect();
    let sim = &out.trace;
    let c = Check {
        recorded: share(t, 0, t.end_ns, kept, is_comm),
        halves: [
            share(t, 0, half, kept, is_comm),
            share(t, half, t.end_ns, kept, is_comm),
        ],
        simulated: group_share(sim, &groups),
        lat_recorded: latency(t, 0, u64::MAX),
        lat_halves: [latency(t, 0, half), latency(t, half, u64::MAX)],
        lat_simulated: latency(sim, 0, u64::MAX),
        channels: d.channels.len(),
        pairs: d
            .channels
            .iter()
            .filter(|c| d.groups[c.reader].tasks == 1)
            .count(),
    };
    eprintln!(
        "{fixture}: {comm} share recorded {:.1} % (halves {:.1} / {:.1}), simulated {:.1} %; wakeup latency [p50, p99] recorded {:?} ns (halves {:?}), simulated {:?}",
        c.recorded, c.halves[0], c.halves[1], c.simulated, c.lat_recorded, c.lat_halves, c.lat_simulated
    );
    c
}

/// The simulated share is within the recorded one ± the difference between the recording's
/// two halves (how far the share moved within the recording itself).
fn assert_share(c: &Check) {
    let [a, b] = c.halves;
    let tol = (a - b).abs();
    assert!(
        (c.simulated - c.recorded).abs() <= tol,
        "simulated share {:.1} % not within {:.1} ± {tol:.1} % (the recording's halves: {a:.1} % / {b:.1} %)",
        c.simulated,
        c.recorded
    );
}

/// Each simulated percentile lies within the range of the recorded halves' widened by their
/// own ratio (how far the percentile moved within the recording), and by the timestamps'
/// resolution (perf script prints microseconds).
fn assert_latency(c: &Check) {
    for (i, p) in ["p50", "p99"].iter().enumerate() {
        let (a, b) = (c.lat_halves[0][i], c.lat_halves[1][i]);
        let (lo, hi) = (a.min(b).max(1), a.max(b).max(1));
        let ratio = hi as f64 / lo as f64;
        let range = (lo as f64 / ratio - 1000.0)..=(hi as f64 * ratio + 1000.0);
        let s = c.lat_simulated[i] as f64;
        assert!(
            range.contains(&s),
            "{p} wakeup latency simulated {s} ns outside {range:?} (recorded halves {a} / {b} ns)"
        );
    }
}

/// `perf bench sched pipe -l 2000` (two threads bouncing a token through a pipe, beside two
/// rustc threads): one channel each way is derived. Recorded: sched-pipe 34.5 % of the kept
/// tasks' CPU time (halves 40.7 % / 28.2 %), wakeup latency p50 1 µs, p99 10 µs (halves
/// 7 µs / 14 µs); simulated here 36.2 %, p50 0 µs, p99 5 µs (30.3 % while the two rustc
/// threads, first seen 17 ms apart, were one group that started with the first). The
/// recording lost two of a rustc thread's switch-ins from idle; restored where its
/// `sched_stat_runtime` says it began to run, they give it 2.5 ms more (sched-pipe was
/// 36.4 %, halves 40.7 % / 31.6 %, before).
///
/// `schedlab import --compare` before channels (timed sleeps with the fitted means):
/// sched-pipe 21.2 % simulated, wakeup latency p50 10 µs, p99 1.005 ms; with them: 30.4 %,
/// p50 1 µs, p99 5 µs.
#[test]
fn sched_pipe_keeps_its_coupling() {
    let c = check("pipe.perf-script.txt.gz", "sched-pipe", 1_000_000);
    assert_eq!(c.channels, 2, "one channel each way");
    assert!(
        (c.recorded - 34.5).abs() < 0.1,
        "recorded {:.1}",
        c.recorded
    );
    assert_share(&c);
    assert_latency(&c);
}

/// `hackbench -g 2 -l 10 -P` (39 ms, beside two rustc codegen threads): 81 hackbench
/// processes, each receiver woken by many senders, so no pair is consistent. With every task
/// kept (`--min-cpu-ms 0`; the default 1 ms leaves each short-lived hackbench process out):
/// recorded 45.4 % (halves 42.2 % / 48.5 %), simulated 46.1 %; wakeup latency p50 56 µs, p99
/// 12.6 ms (halves 315 µs / 27 µs and 5.6 ms / 2.7 ms), simulated 403 µs and 6.2 ms. The
/// processes start over the whole recording, so they make groups of 6 to 18; one of 6
/// receivers and one of 8 senders that woke them more than once each make inboxes (135 µs and
/// 11.2 ms with timed sleeps only; 1.5 ms and 7.6 ms while the processes were one group that
/// started with the first).
/// `schedlab import --min-cpu-ms 0 --compare` (whose shares count `sched_stat_runtime`):
/// 45.5 % recorded, 41.8 % simulated. With the default `--min-cpu-ms 1` only the parent
/// hackbench process is kept: 14.2 % recorded, 43.2 % simulated before this derivation
/// modelled exits and processes that block for good, 42.4 % after.
#[test]
fn hackbench_share_within_the_recording() {
    let c = check("hackbench.perf-script.txt.gz", "hackbench", 0);
    assert_eq!(c.pairs, 0, "many senders per receiver: no consistent pair");
    assert!(
        (c.recorded - 45.4).abs() < 0.1,
        "recorded {:.1}",
        c.recorded
    );
    assert_share(&c);
    assert_latency(&c);
}

/// A cyclictest beside hogs: its timer wakeups fire while a hog runs, which looks like the hog
/// waking it; the hog never blocks, so no channel is derived.
#[test]
fn timer_wakeups_do_not_become_channels() {
    let c = check("periodic.perf-script.txt.gz", "cyclictest", 1_000_000);
    assert_eq!(c.channels, 0);
}

/// `stress-ng --cpu 3 --cpu-load 50 -t 4` on two CPUs (`scripts/record-import.sh`,
/// tests/fixtures/traces/duty.txt): three workers that each compute for a slice and sleep on a
/// timer for as long. Every worker wakeup is a timer's, fired in an interrupt on its CPU while
/// another worker or the idle task ran: 66 of the workers' 209 wakeups name a worker as the
/// waker, 128 the idle task (pid 0). Taken for messages, the workers' wakeups of one another
/// and of a 50-ms timer task of the machine's agent (`memfd:sealed-91`, which they "woke" 51
/// times of its 80) became a channel that the three wrote and it read, and tied their rounds
/// to it: shares 35.7 / 31.2 / 32.5 % against 32.8 / 33.0 / 33.8 % recorded (in an earlier
/// recording the same workload came out 46.5 / 25.8 / 24.4 % against 33 % each). At the rate
/// each task was woken on an idle CPU, the workers' CPU time accounts for the wakeups they
/// seemed to give: no channel, one group of three at 99.4 % simulated against 99.6 %.
#[test]
fn timer_wakeups_beside_sleepers_do_not_become_channels() {
    let imp = import("duty.perf-script.txt.gz");
    let (d, _, out) = derive_and_run(&imp, 1_000_000);
    assert_eq!(
        d.channels.len(),
        0,
        "every wakeup in it is a timer's: {:?}",
        d.notes
    );
    let workers: Vec<&schedlab_trace::DerivedGroup> = d
        .groups
        .iter()
        .filter(|g| g.comm == "stress-ng-cpu")
        .collect();
    assert_eq!(workers.len(), 1, "one group of the three: {workers:?}");
    assert_eq!(workers[0].tasks, 3);
    // The workers' CPU time as a share of the machine's, recorded (whole and halves) and
    // simulated: within the halves' difference, widened to 2 points.
    let t = &imp.trace;
    let is_worker = |pid: u32| {
        imp.pids
            .iter()
            .any(|r| r.pid == pid && r.comm == "stress-ng-cpu")
    };
    let busy = |from: u64, to: u64| {
        let c = cpu_ns(t, from, to);
        let w: u64 = (0..c.len() as u32)
            .filter(|&p| is_worker(p))
            .map(|p| c[p as usize])
            .sum();
        100.0 * w as f64 / (t.cpus as f64 * (to - from) as f64)
    };
    let (whole, a, b) = (
        busy(0, t.end_ns),
        busy(0, t.end_ns / 2),
        busy(t.end_ns / 2, t.end_ns),
    );
    let group = d
        .groups
        .iter()
        .position(|g| g.comm == "stress-ng-cpu")
        .unwrap() as u32;
    let sim = cpu_ns(&out.trace, 0, out.trace.end_ns);
    let w: u64 = out
        .trace
        .tasks
        .iter()
        .filter(|x| x.group == Some(group))
        .map(|x| sim[x.pid as usize])
        .sum();
    let simulated = 100.0 * w as f64 / (out.trace.cpus as f64 * out.trace.end_ns as f64);
    eprintln!("stress-ng-cpu: {whole:.1} % of the machine recorded (halves {a:.1} / {b:.1}), {simulated:.1} % simulated");
    let tol = (a - b).abs().max(2.0);
    assert!(
        (simulated - whole).abs() <= tol,
        "simulated {simulated:.1} % of the machine against {whole:.1} ± {tol:.1} % recorded"
    );
}

/// `perf bench sched pipe -l 6000` beside two CPU loops (`stress-ng --cpu 2 -t 3`;
/// `scripts/record-import.sh`, tests/fixtures/traces/pipe-exits.txt): the pair is done after
/// a third of the 3-s recording and exits. Derived as a pair of channels that loop forever
/// (as it was), the pair ran the whole 3 s in the simulation, 18.3 % and 14.1 % of the CPU
/// time against 1.0 % and 0.9 % recorded, the loops 67.0 % against 97.6 %. A pair that
/// stopped long before the end (a quarter of the recording or more) runs its rounds (the
/// fewer of the two sides', so that every message is read) and exits as it did.
#[test]
fn a_pair_that_exits_early_runs_its_rounds_and_exits() {
    let imp = import("pipe-exits.perf-script.txt.gz");
    let (d, _, out) = derive_and_run(&imp, 1_000_000);
    assert_eq!(d.channels.len(), 2, "one channel each way: {:?}", d.notes);
    let t = &imp.trace;
    let is_pipe = |pid: u32| {
        imp.pids
            .iter()
            .any(|r| r.pid == pid && r.comm == "sched-pipe")
    };
    let rec = cpu_ns(t, 0, t.end_ns);
    let recorded: u64 = (0..rec.len() as u32)
        .filter(|&p| is_pipe(p))
        .map(|p| rec[p as usize])
        .sum();
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
    // `-l 6000`: each end makes 6 000 rounds (the recording's wakeups, 4 108 and 3 951, are
    // fewer: a side preempted by its wakee after its write finds the answer waiting).
    for t in d.scenario["tasks"].as_array().unwrap() {
        if t["name"] == "sched-pipe" {
            assert_eq!(t["program"][0]["loop"], 6000, "{t}");
        }
    }
    let pipe_groups: Vec<u32> = (0..d.groups.len() as u32)
        .filter(|&i| d.groups[i as usize].comm == "sched-pipe")
        .collect();
    let sim = cpu_ns(&out.trace, 0, out.trace.end_ns);
    let pipes: Vec<u32> = out
        .trace
        .tasks
        .iter()
        .filter(|x| x.group.is_some_and(|g| pipe_groups.contains(&g)))
        .map(|x| x.pid)
        .collect();
    let simulated: u64 = pipes.iter().map(|&p| sim[p as usize]).sum();
    eprintln!("sched-pipe CPU time: {recorded} ns recorded, {simulated} ns simulated");
    assert!(
        simulated * 4 >= recorded * 3 && simulated * 4 <= recorded * 5,
        "the pair's CPU time {simulated} ns simulated against {recorded} ns recorded (±25 %)"
    );
    // Both ends exit, before half of the run (at about a third, as recorded).
    let exits = out
        .trace
        .events
        .iter()
        .filter(|e| {
            matches!(e.kind, EventKind::Switch { prev_pid, prev_state: schedlab_sim::PrevState::Dead, .. }
                if pipes.contains(&prev_pid))
        })
        .map(|e| e.t_ns)
        .collect::<Vec<_>>();
    assert_eq!(exits.len(), 2, "both ends exit");
    assert!(
        exits.iter().all(|&x| x < out.trace.end_ns / 2),
        "exits at {exits:?} ns of {}",
        out.trace.end_ns
    );
}

/// Switches and `sched_waking` events in a trace.
fn switches_and_wakeups(t: &Trace) -> (u64, u64) {
    let mut n = (0, 0);
    for e in &t.events {
        match e.kind {
            EventKind::Switch { .. } => n.0 += 1,
            EventKind::Waking { .. } => n.1 += 1,
            _ => {}
        }
    }
    n
}

/// A ping-pong's round trip wakes both ends where each blocked in its read before the other
/// answered, and one where the other was preempted by its wakee after its write (or ran on
/// while the wakee answered from another CPU) and found its answer waiting. Counted as each
/// end's wakeups, the rounds were half the round trips of a pair pinned to one CPU
/// (`real-epyc-dec5/pingpong-one`: 46 876 and 45 230 wakeups, each followed by the waker's
/// preemption but for 2 617), so each round cost twice its CPU time and the simulation
/// switched 100 k times against 182 k recorded, with 57 k wakeups against 92 k; and on
/// `perf bench sched pipe -l 2000` (`traces/pipe`) 2.4 k against 4.0 k, 1.2 k against 2.0 k.
/// A wakeup after which the waker blocked is half a round trip, any other a whole one: the
/// four recordings of `perf bench sched pipe -l N` here count exactly N (± 1) that way. Now
/// 181 k and 104 k, and 4.0 k and 2.1 k. Held: switches within 10 % and wakeups within 20 %
/// of the recorded.
#[test]
fn a_ping_pong_makes_a_round_per_round_trip() {
    for fixture in [
        "../real-epyc-dec5/pingpong-one.perf-script.gz",
        "pipe.perf-script.txt.gz",
    ] {
        let imp = import(fixture);
        let (d, _, out) = derive_and_run(&imp, 1_000_000);
        assert!(out.deadlock.is_none(), "{fixture}: {:?}", out.deadlock);
        assert_eq!(d.channels.len(), 2, "{fixture}: one channel each way");
        let (rec, sim) = (
            switches_and_wakeups(&imp.trace),
            switches_and_wakeups(&out.trace),
        );
        eprintln!("{fixture}: switches, wakeups recorded {rec:?}, simulated {sim:?}");
        let within = |s: u64, r: u64, tol: f64| (s as f64 / r.max(1) as f64 - 1.0).abs() <= tol;
        assert!(
            within(sim.0, rec.0, 0.10),
            "{fixture}: switches {sim:?} against {rec:?}"
        );
        assert!(
            within(sim.1, rec.1, 0.20),
            "{fixture}: wakeups {sim:?} against {rec:?}"
        );
    }
}

/// A ping-pong across two CPUs (`scripts/workloads/pingpong.c`; three pinned one end to each CPU,
/// one unpinned that ran across them): each end wakes the other asleep on the idle CPU and runs on
/// for the rest of its `write` and its `read` (8 µs of a 12-µs round on the EPYC VM; the IPI that a
/// VM exits to send is most of it) while its wakee starts. Before, that time was capped at half a
/// round and the rest ran before the write, so each wakee started later: the simulation switched
/// 1.14–1.33 times less often than the recording on the four recordings below. Now the time after
/// the write is the recorded one, and the part that follows a wakeup onto an idle CPU is the
/// scenario's `ipi_cost_ns`, which the model charges only where a wakeup sends an IPI (a pair that
/// found its answer waiting, after a preemption, does not pay it). Held: switches and wakeups
/// within 8 % of the recorded (measured 2–5 %).
#[test]
fn a_ping_pong_across_cpus_runs_on_after_its_write_as_recorded() {
    for fixture in [
        "../real-epyc/pingpong-cross.perf-script.gz",
        "../real-epyc/pingpong-free.perf-script.gz",
        "../real-epyc-dec6/pingpong-cross.perf-script.gz",
        "../real-epyc-haltpoll/pingpong-cross.perf-script.gz",
    ] {
        let imp = import(fixture);
        let (d, _, out) = derive_and_run(&imp, 1_000_000);
        assert!(out.deadlock.is_none(), "{fixture}: {:?}", out.deadlock);
        assert!(
            d.scenario["ipi_cost_ns"].as_u64().is_some_and(|c| c > 0),
            "{fixture}: an IPI cost"
        );
        let (rec, sim) = (
            switches_and_wakeups(&imp.trace),
            switches_and_wakeups(&out.trace),
        );
        eprintln!("{fixture}: switches, wakeups recorded {rec:?}, simulated {sim:?}");
        let within = |s: u64, r: u64| (s as f64 / r.max(1) as f64 - 1.0).abs() <= 0.08;
        assert!(
            within(sim.0, rec.0),
            "{fixture}: switches {sim:?} against {rec:?}"
        );
        assert!(
            within(sim.1, rec.1),
            "{fixture}: wakeups {sim:?} against {rec:?}"
        );
    }
}

/// `stress-ng --switch 1 -t 1` (a pipe ping-pong of two processes, 45 000 round trips a
/// second; `scripts/record-import.sh`, tests/fixtures/traces/switch.txt): perf wakes itself
/// often to drain its buffers and records none of those wakeups (it drops the events it
/// causes itself). Its sleeps were measured only where a wakeup was seen (3 of 9): 12.3 ms
/// between runs of 0.57 ms, 9.0 % of the CPU time simulated against 0.9 % recorded. A
/// task switched in with no wakeup since it blocked slept until then at the latest; where
/// such sleeps are most of a task's (or at least 8), they count: perf 1.2 %.
#[test]
fn the_recorders_unrecorded_wakeups_still_end_its_sleeps() {
    let c = check("switch.perf-script.txt.gz", "perf", 1_000_000);
    assert_eq!(c.channels, 2, "the pair's two channels");
    assert!((c.recorded - 0.9).abs() < 0.1, "recorded {:.1}", c.recorded);
    assert!(
        c.simulated < 2.0 * c.recorded.max(0.5),
        "perf simulated {:.1} % against {:.1} % recorded",
        c.simulated,
        c.recorded
    );
}

/// `stress-ng --cpu 2 -t 3` beside `nice -n 5 stress-ng --cpu 1 -t 3` (three CPU loops of one
/// name, one at nice 5; `scripts/record-import.sh`, tests/fixtures/traces/nice.txt): the
/// nice-5 loop got 15.2 % of the CPU time, the other two 83.9 %. Grouped by name alone they
/// were one group of three at the first one's nice 0, each with a third; by name and nice,
/// the nice-5 loop is a group of its own, simulated within 1.5 points.
#[test]
fn tasks_of_one_name_at_two_nice_levels_are_two_groups() {
    let imp = import("nice.perf-script.txt.gz");
    let (_, sc, out) = derive_and_run(&imp, 1_000_000);
    let loops: Vec<&schedlab_scenario::TaskGroup> = sc
        .tasks
        .iter()
        .filter(|t| t.name == "stress-ng-cpu")
        .collect();
    let nices: Vec<(i64, u64)> = loops.iter().map(|t| (t.nice, t.count)).collect();
    assert!(
        nices.contains(&(0, 2)) && nices.contains(&(5, 1)),
        "two loops at nice 0 and one at nice 5: {nices:?}"
    );
    // The nice-5 loop's share of all CPU time, recorded and simulated.
    let t = &imp.trace;
    let niced = |pid: u32| {
        imp.pids
            .iter()
            .any(|r| r.pid == pid && r.comm == "stress-ng-cpu" && r.prio == Some(125))
    };
    let recorded = share(t, 0, t.end_ns, |_| true, niced);
    let g = sc
        .tasks
        .iter()
        .position(|t| t.name == "stress-ng-cpu" && t.nice == 5)
        .unwrap() as u32;
    let simulated = group_share(&out.trace, &[g]);
    eprintln!("the nice-5 loop: {recorded:.1} % recorded, {simulated:.1} % simulated");
    assert!(
        (simulated - recorded).abs() <= 1.5,
        "the nice-5 loop {simulated:.1} % simulated against {recorded:.1} % recorded"
    );
}

/// Turns: switches from a runnable task of those `of` selects to another of them.
fn turns(t: &Trace, of: impl Fn(u32) -> bool) -> u64 {
    let mut n = 0;
    for e in &t.events {
        if let EventKind::Switch {
            prev_pid,
            prev_state: schedlab_sim::PrevState::Running,
            next_pid,
        } = e.kind
        {
            n += u64::from(of(prev_pid) && of(next_pid) && prev_pid != next_pid);
        }
    }
    n
}

/// RT tasks stay RT tasks. `scripts/record-rt.sh` pins a SCHED_FIFO priority-1 hog beside one
/// or two nice-0 hogs (`rt-one`, `rt-two`), or two SCHED_RR priority-1 hogs beside one
/// (`rt-rr`), on one CPU of Linux 6.18: the fair server leaves the fair hogs about 5 % of it.
/// The kernel priority the tracepoints print is `MAX_RT_PRIO - 1 - rt_priority` (98 for
/// priority 1); an RT task preempted by one of its own priority is SCHED_RR (a SCHED_FIFO task
/// yields only to a higher one). As fair tasks, the RT hog and the fair hogs split the CPU
/// evenly: fair1 50.2 % simulated against 5.3 % recorded. Held: every group's share within a
/// point of the recorded, the policies and priority as recorded, and the RR hogs' turns (one
/// per 100-ms `sched_rr_timeslice_ms`, none while the fair server runs) within 15 %.
#[test]
fn rt_tasks_keep_their_policy_and_priority() {
    for (fixture, rt, policy) in [
        ("rt-one", "rthog", "fifo"),
        ("rt-two", "rthog", "fifo"),
        ("rt-rr", "rrhog", "rr"),
    ] {
        let imp = import(&format!("../real/{fixture}.perf-script.gz"));
        let (d, sc, out) = derive_and_run(&imp, 1_000_000);
        let groups = d.scenario["tasks"].as_array().unwrap();
        let g = groups.iter().find(|g| g["name"] == rt).unwrap();
        assert_eq!(g["policy"], policy, "{fixture}: {g}");
        assert_eq!(g["rt_priority"], 1, "{fixture}: {g}");
        // Recorded among the derived groups' tasks (the simulated share is of all the
        // simulated CPU time, which here holds no other tasks of note).
        let total: u64 = d.groups.iter().map(|g| g.cpu_ns).sum();
        for (i, g) in d.groups.iter().enumerate() {
            let comm = &g.comm;
            let recorded = 100.0 * g.cpu_ns as f64 / total as f64;
            let simulated = group_share(&out.trace, &[i as u32]);
            eprintln!("{fixture} {comm}: {recorded:.1} % recorded, {simulated:.1} % simulated");
            assert!(
                (simulated - recorded).abs() <= 1.0,
                "{fixture} {comm}: {simulated:.1} % simulated against {recorded:.1} % recorded"
            );
        }
        if policy == "rr" {
            let of_comm = |pid: u32| imp.pids.iter().any(|r| r.pid == pid && r.comm == rt);
            let recorded = turns(&imp.trace, of_comm) as f64;
            let gi = sc.tasks.iter().position(|t| t.name == rt).unwrap() as u32;
            let in_group =
                |pid: u32| out.trace.tasks[pid as usize - 1].group == Some(gi) && pid != 0;
            let simulated = turns(&out.trace, |p| p != 0 && in_group(p)) as f64;
            eprintln!("{fixture}: {recorded} turns recorded, {simulated} simulated");
            assert!(
                (simulated / recorded - 1.0).abs() <= 0.15,
                "{fixture}: {simulated} RR turns simulated against {recorded} recorded"
            );
        }
    }
}

/// Task groups a recording does not name (`scripts/record-groups.sh`: two CPU loops pinned to
/// one CPU of Linux 6.18 in cgroups of `cpu.shares` 1024 and 3072, `groups-weights`; a
/// `cpu.idle` group beside a plain one, `groups-idle`; a nice-19 and a nice-0 loop in two
/// autogroup sessions, `groups-autogroup`; the sessions at autogroup nice 19 and 0,
/// `groups-agnice`). Pinned loops split their CPU in the ratio of their weights, so where the
/// split strays from their nice levels they are in groups of other weights: each gets a group
/// whose `cpu.weight` is its share. Before, by nice alone: share errors of 24.4, 27.8, 48.0 and
/// 47.0 points (the two nice-0 loops 48.6 / 48.6 % against 24.5 / 73.1 %). Held: every loop
/// within a point of its recorded share. Loops whose split follows their nice levels (both in
/// one session, `groups-insession`; the nice recording's stress-ng loops) get no group.
#[test]
fn pinned_loops_that_split_unlike_their_nice_levels_get_group_weights() {
    for (fixture, grouped) in [
        ("../real/groups-weights.perf-script.gz", true),
        ("../real/groups-idle.perf-script.gz", true),
        ("../real/groups-autogroup.perf-script.gz", true),
        ("../real/groups-agnice.perf-script.gz", true),
        ("../real/groups-insession.perf-script.gz", false),
        ("nice.perf-script.txt.gz", false),
    ] {
        let imp = import(fixture);
        let (d, _, out) = derive_and_run(&imp, 1_000_000);
        let cgroups = d.scenario.get("cgroups").and_then(|c| c.as_array());
        assert_eq!(
            cgroups.is_some_and(|c| c.len() == 2),
            grouped,
            "{fixture}: {cgroups:?}"
        );
        let total: u64 = d.groups.iter().map(|g| g.cpu_ns).sum();
        for (i, g) in d.groups.iter().enumerate() {
            let recorded = 100.0 * g.cpu_ns as f64 / total as f64;
            if recorded < 1.0 {
                continue;
            }
            let simulated = group_share(&out.trace, &[i as u32]);
            eprintln!(
                "{fixture} {}: {recorded:.1} % recorded, {simulated:.1} % simulated",
                g.comm
            );
            if grouped {
                assert!(
                    (simulated - recorded).abs() <= 1.0,
                    "{fixture} {}: {simulated:.1} % simulated against {recorded:.1} %",
                    g.comm
                );
            }
        }
    }
}

/// CFS bandwidth control read off the throttles (`scripts/record-bandwidth.sh`, Linux 6.18,
/// cgroup v1): a loop alone on its CPU in a group of `cpu.cfs_quota_us` 30000 per
/// `cpu.cfs_period_us` 50000 (`bw-import`), and two loops of one group, one per CPU, under
/// 60000 per 100000 (`bw-pair`). A throttled task is switched out runnable for the idle task
/// and back in with no wakeup at the period timer's expiry: the period is the median gap
/// between the switch-ins back, the quota the CPU time per period. Held: the period as the
/// group's, the quota within 2 % of it (30000 and 60300 µs), and the loops' CPU time within
/// 3 % of the recorded (2 423 ms simulated against 2 407 ms, 2 441 against 2 417; `schedlab
/// run` on the derived scenarios without their group gives 3 981 and 7 951 ms).
#[test]
fn throttled_groups_get_their_cpu_max() {
    assert_eq!(
        schedlab_trace::MAX_DERIVED_CGROUPS,
        schedlab_scenario::MAX_CGROUPS,
        "the import derives no more task groups than a scenario may have"
    );
    for (fixture, quota, period) in [("bw-import", 30_000, 50_000), ("bw-pair", 60_000, 100_000)] {
        let imp = import(&format!("../real/{fixture}.perf-script.gz"));
        let (d, _, out) = derive_and_run(&imp, 1_000_000);
        let cgroups = d.scenario["cgroups"].as_array().expect("a cgroup");
        let max = cgroups[0]["cpu.max"].as_str().expect("cpu.max").to_string();
        let (q, p) = max.split_once(' ').unwrap();
        let (q, p): (f64, u64) = (q.parse().unwrap(), p.parse().unwrap());
        eprintln!("{fixture}: cpu.max {max}");
        assert_eq!(p, period, "{fixture}: {max}");
        assert!((q / quota as f64 - 1.0).abs() <= 0.02, "{fixture}: {max}");
        let i = d.groups.iter().position(|g| g.comm == "ct").unwrap();
        let recorded = d.groups[i].cpu_ns as f64;
        let sim = cpu_ns(&out.trace, 0, out.trace.end_ns);
        let simulated: u64 = (1..sim.len())
            .filter(|&p| out.trace.tasks[p - 1].group == Some(i as u32))
            .map(|p| sim[p])
            .sum();
        eprintln!(
            "{fixture}: ct {:.0} ms recorded, {:.0} ms simulated",
            recorded / 1e6,
            simulated as f64 / 1e6
        );
        assert!(
            (simulated as f64 / recorded - 1.0).abs() <= 0.03,
            "{fixture}: {simulated} ns simulated against {recorded}"
        );
    }
}

/// Two CPU loops and a 10 % duty cycle, all `stress-ng-cpu` at nice 0 and started together
/// (`stress-ng --cpu 2` beside `stress-ng --cpu 1 --cpu-load 10`; `scripts/record-import.sh
/// mixed`, tests/fixtures/traces/mixed.txt). As one group of three, each ran the group's
/// mean, "run 519 ms, sleep 220 ms" (the loops had blocked once each at their start): three
/// 70 % duty cycles where two loops and a 5 % worker had run. Tasks of one name that do not
/// behave alike are groups of their own: the loops, and the duty cycle, within 1.5 points
/// of its recorded share.
///
/// The two `stress-ng` parents woke each other 28 times in their first 30 ms (a lock they
/// both took as they started) and then waited on their workers to the end. They make a pair,
/// which looped its round trips for the whole recording: 19.7 % of the CPU time each,
/// simulated, against 0.5 % recorded. A pair that stopped waking each other for the last
/// quarter of the recording runs the rounds it made, as one that stopped running does; their
/// share is now within the difference between the recording's halves.
#[test]
fn tasks_of_one_name_that_behave_unalike_are_groups_of_their_own() {
    let imp = import("mixed.perf-script.txt.gz");
    let (d, sc, out) = derive_and_run(&imp, 1_000_000);
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
    let mut counts: Vec<u64> = sc
        .tasks
        .iter()
        .filter(|t| t.name == "stress-ng-cpu")
        .map(|t| t.count)
        .collect();
    counts.sort();
    assert_eq!(counts, [1, 2], "two loops and a duty cycle: {:?}", d.groups);
    let g = d
        .groups
        .iter()
        .position(|g| g.comm == "stress-ng-cpu" && g.tasks == 1)
        .unwrap();
    let duty = d.groups[g].pids[0];
    let t = &imp.trace;
    let recorded = share(t, 0, t.end_ns, |_| true, |pid| pid == duty);
    let simulated = group_share(&out.trace, &[g as u32]);
    eprintln!("the duty cycle: {recorded:.1} % recorded, {simulated:.1} % simulated");
    assert!(
        (simulated - recorded).abs() <= 1.5,
        "the duty cycle {simulated:.1} % simulated against {recorded:.1} % recorded"
    );
    let c = check("mixed.perf-script.txt.gz", "stress-ng", 1_000_000);
    assert_eq!(c.pairs, 2, "the parents' pair, one channel each way");
    assert_share(&c);
}

/// Two CPU-loop threads and a periodic thread (1 ms of CPU, then 9 ms asleep) of one process,
/// 3 s unpinned (`scripts/workloads/threads.c`, `scripts/record-import.sh threads`,
/// tests/fixtures/traces/threads.txt): the two hogs and a periodic task of the many-CPU
/// checks, with every task of one name. As one group of three, each thread ran the mean,
/// "run 22 ms, sleep 9 ms" (the loops' CPU time over the periodic thread's sleeps): 89
/// migrations simulated against 9 recorded, 1 186 switches against 789 (now 0 and 944). Now: the loops a group, the periodic thread
/// one with its recorded 1 ms / 9 ms (±20 %), each group's share within 1 point, the wakeup
/// latency percentiles as `check` holds them, and the periodic thread moved at most once a
/// second (recorded: 2 in 3 s).
#[test]
fn threads_of_one_process_that_behave_unalike_are_groups_of_their_own() {
    let imp = import("threads.perf-script.txt.gz");
    let (d, _, out) = derive_and_run(&imp, 1_000_000);
    // The loops, and the periodic thread (the main thread, which calibrated the periodic
    // thread's loop for 0.3 s and then waited, is a third group).
    let find = |tasks: usize, sleeps: bool| {
        d.groups.iter().find(|g| {
            g.comm == "threads"
                && g.tasks == tasks
                && (g.sleep_ns > 0 && g.sleep_ns < 100_000_000) == sleeps
        })
    };
    let (Some(loops), Some(periodic)) = (find(2, false), find(1, true)) else {
        panic!("a group of loops and a periodic one: {:?}", d.groups);
    };
    assert_eq!(loops.burst_ns, 0, "two loops: {loops:?}");
    let near = |x: u64, want: u64| x * 5 >= want * 4 && x * 5 <= want * 6;
    assert!(
        near(periodic.burst_ns, 1_000_000) && near(periodic.sleep_ns, 9_000_000),
        "the periodic thread, 1 ms / 9 ms: {periodic:?}"
    );
    let t = &imp.trace;
    // Shares of the loops' and the periodic thread's CPU time (the main thread's one burst
    // is fitted, not replayed: an exponential draw of its mean).
    let workers = |pid: u32| loops.pids.contains(&pid) || periodic.pids.contains(&pid);
    let index = |group| d.groups.iter().position(|g| g == group).unwrap() as u32;
    let (li, pi) = (index(loops), index(periodic));
    let sim = &out.trace;
    let in_groups = |pid: u32| {
        sim.tasks[pid as usize - 1]
            .group
            .is_some_and(|g| g == li || g == pi)
    };
    for (group, i) in [(periodic, pi), (loops, li)] {
        let recorded = share(t, 0, t.end_ns, workers, |pid| group.pids.contains(&pid));
        let simulated = share(sim, 0, sim.end_ns, in_groups, |pid| {
            sim.tasks[pid as usize - 1].group == Some(i)
        });
        assert!(
            (simulated - recorded).abs() <= 1.0,
            "{:?}: {simulated:.1} % simulated against {recorded:.1} % recorded",
            group.pids
        );
    }
    let g = pi;
    let moved = out
        .trace
        .events
        .iter()
        .filter(|e| match e.kind {
            EventKind::MigrateTask { pid, .. } => {
                out.trace.tasks[pid as usize - 1].group == Some(g)
            }
            _ => false,
        })
        .count() as u64;
    assert!(
        moved * 1_000_000_000 <= out.trace.end_ns,
        "the periodic thread moved {moved} times in {} ns",
        out.trace.end_ns
    );
    // The p50 is a timer's wakeup that preempts a loop at once: 17 µs recorded, δ read off
    // the recording (16 µs; 5 µs, the default, before it was); the p99 one behind a loop
    // until the tick.
    assert_latency(&check("threads.perf-script.txt.gz", "threads", 1_000_000));
}

/// Twelve trials of two CPU loops (`sh -c 'while :; do :; done'`) pinned to CPU 0, one then
/// widened, each pair killed after its trial (tests/fixtures/real/affinity, 61 s;
/// `scripts/record-affinity.sh`). A loop killed while runnable has no exit in the recording:
/// its last switch-out is a preemption, up to 59 s before the end, after waits to run of 4 ms
/// at most. Each pair ran "forever" in the derived scenario (27 % of the CPU time for the
/// pair recorded at 8.6 %); a task last seen preempted and not seen again for a second and
/// ten times its longest wait exited there, so each pair runs its CPU time and exits: every
/// pair's share within 1.5 points of the recorded (8 % each).
#[test]
fn a_task_last_seen_preempted_long_before_the_end_exited_there() {
    let imp = import("../real/affinity.perf-script.gz");
    let (d, _, out) = derive_and_run(&imp, 1_000_000);
    let t = &imp.trace;
    let pairs: Vec<usize> = (0..d.groups.len())
        .filter(|&i| d.groups[i].comm == "sh" && d.groups[i].tasks == 2)
        .collect();
    assert_eq!(pairs.len(), 12, "twelve trials' loops: {:?}", d.groups);
    // Of the derived groups' tasks, as `schedlab import --compare` gives it.
    let derived = |pid: u32| d.groups.iter().any(|g| g.pids.contains(&pid));
    for g in pairs {
        let pids = &d.groups[g].pids;
        let recorded = share(t, 0, t.end_ns, derived, |pid| pids.contains(&pid));
        let simulated = group_share(&out.trace, &[g as u32]);
        assert!(
            (simulated - recorded).abs() <= 1.5,
            "the loops {pids:?}: {simulated:.1} % simulated against {recorded:.1} % recorded"
        );
    }
}

/// Three CPU loops for 5 s on the EPYC VM with haltpoll (tests/fixtures/real-epyc-haltpoll,
/// `hogs3`): at 2 s the recording script's shell (`bash`) ran its commands (mkdir, cat, mv,
/// ...; each forked child is `bash` until it execs) for 50 ms and was asleep from then on.
/// The shell and its children were one group, "run 0.5 ms, sleep 6.8 ms" for the last 3 s:
/// 5.7 % of the CPU time simulated against 0.1 % recorded, the loops 93.9 % against 99.6 %.
/// A group whose members all exited or went quiet runs its rounds and sleeps to the end.
#[test]
fn a_shell_that_ran_its_commands_and_went_quiet_stays_quiet() {
    let imp = import("../real-epyc-haltpoll/hogs3.perf-script.gz");
    let (_, sc, out) = derive_and_run(&imp, 1_000_000);
    let g: Vec<u32> = (0..sc.tasks.len() as u32)
        .filter(|&i| sc.tasks[i as usize].name == "bash")
        .collect();
    assert!(!g.is_empty(), "the shell is kept");
    let sim = &out.trace;
    let simulated = group_share(sim, &g);
    let loops = share(
        sim,
        0,
        sim.end_ns,
        |_| true,
        |pid| sim.tasks[pid as usize - 1].comm == "sh",
    );
    eprintln!("bash {simulated:.2} %, the loops {loops:.1} % simulated");
    assert!(
        simulated < 0.5,
        "the shell {simulated:.2} % simulated against 0.1 % recorded"
    );
    assert!(
        loops > 99.0,
        "the loops {loops:.1} % simulated against 99.6 % recorded"
    );
}

/// The share (%) of wakeups whose wakee next ran on the CPU where its `sched_waking` fired
/// (the waker's: `ttwu_local` as a recording shows it).
fn ran_where_woken(t: &Trace) -> f64 {
    let mut woken_on: Vec<Option<u32>> = vec![None; t.tasks.len() + 1];
    let (mut local, mut all) = (0u64, 0u64);
    for e in &t.events {
        match e.kind {
            EventKind::Waking { pid, .. } if pid != 0 => woken_on[pid as usize] = Some(e.cpu),
            EventKind::Switch { next_pid, .. } if next_pid != 0 => {
                if let Some(c) = woken_on[next_pid as usize].take() {
                    all += 1;
                    local += u64::from(c == e.cpu);
                }
            }
            _ => {}
        }
    }
    100.0 * local as f64 / all.max(1) as f64
}

/// The mean wakeup latency (ns) of a trace.
fn mean_latency(t: &Trace) -> f64 {
    let v = wakeup_latencies_ns(t, None);
    v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
}

/// `hackbench -g 2 --threads -l 2000` on the EPYC VM with haltpoll
/// (tests/fixtures/real-epyc-haltpoll/hackbench.perf-script.gz, in one autogroup session as
/// recorded): per group 20 senders that each write to all 20 receivers, so every receiver is
/// woken by 20 senders, none for a fifth of its wakeups, and no pair is consistent. As timed
/// sleeps (every task "run, sleep") every wakeup was a timer's on the sleeper's own CPU: the
/// wakee ran where it was woken at 100 % of wakeups against 38 % recorded. Each group's
/// receivers get an inbox each that its senders write in turn: a wakeup is a sender's, placed
/// by `select_task_rq_fair` from the sender's CPU. With a message per recorded wakeup and
/// inboxes of one, a receiver ran a whole wakeup's reading per message and the senders
/// blocked on every full inbox: wakeup latency p50 0.82 ms and p99 7.8 ms against 33 µs and
/// 26.9 ms recorded. Read off the receivers' bursts (one message's read is their shortest,
/// a full inbox's their longest), messages are 6 µs reads, an inbox holds 96 or 101 of them,
/// and the p50 and p99 are 28 µs and 23.9 ms. The launcher, which woke each thread once, is
/// neither reader nor writer.
#[test]
fn many_senders_to_many_readers_write_the_readers_inboxes() {
    let imp = import("../real-epyc-haltpoll/hackbench.perf-script.gz");
    let (d, _, out) = derive_and_run_in_session(&imp, 1_000_000, "hackbench");
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
    // hackbench.c: 2 groups of 20 receivers, each written by the group's 20 senders.
    let hub: Vec<_> = d
        .channels
        .iter()
        .filter(|c| d.groups[c.reader].tasks > 1)
        .collect();
    assert_eq!(hub.len(), 2, "{:?}\n{:?}", d.channels, d.groups);
    for h in &hub {
        let writers: usize = h.writers.iter().map(|w| d.groups[w.0].tasks).sum();
        assert_eq!(
            (d.groups[h.reader].tasks, writers),
            (20, 20),
            "{:?}",
            d.groups
        );
    }
    let t = &imp.trace;
    let sim = &out.trace;
    let (local_rec, local_sim) = (ran_where_woken(t), ran_where_woken(sim));
    let (mean_rec, mean_sim) = (mean_latency(t), mean_latency(sim));
    let (lat_rec, lat_sim) = (latency(t, 0, u64::MAX), latency(sim, 0, u64::MAX));
    eprintln!(
        "ran where woken {local_rec:.1} % recorded, {local_sim:.1} % simulated; mean wakeup latency {:.3} / {:.3} ms; p50, p99 {lat_rec:?} / {lat_sim:?} ns",
        mean_rec / 1e6,
        mean_sim / 1e6
    );
    assert!(
        (local_sim - local_rec).abs() <= 25.0,
        "wakees ran where woken at {local_sim:.1} % simulated against {local_rec:.1} % recorded"
    );
    assert!(
        (0.5..=2.0).contains(&(lat_sim[0] as f64 / lat_rec[0] as f64)),
        "wakeup latency p50 {} µs simulated against {} µs recorded",
        lat_sim[0] / 1000,
        lat_rec[0] / 1000
    );
    assert!(
        (lat_sim[1] as f64 / lat_rec[1] as f64 - 1.0).abs() <= 0.25,
        "wakeup latency p99 {:.1} ms simulated against {:.1} ms recorded",
        lat_sim[1] as f64 / 1e6,
        lat_rec[1] as f64 / 1e6
    );
    assert!(
        (mean_sim / mean_rec - 1.0).abs() <= 0.35,
        "mean wakeup latency {:.3} ms simulated against {:.3} ms recorded",
        mean_sim / 1e6,
        mean_rec / 1e6
    );
    let rec_share = |g: usize| {
        let pids = &d.groups[g].pids;
        share(t, 0, t.end_ns, |_| true, |p| pids.contains(&p))
    };
    for g in std::iter::once(hub[0].reader).chain(hub[0].writers.iter().map(|w| w.0)) {
        let (r, s) = (rec_share(g), group_share(sim, &[g as u32]));
        assert!(
            (s - r).abs() <= 3.0,
            "group {g}: {s:.1} % simulated against {r:.1} % recorded"
        );
    }
}

/// The same derivation on three more hackbench recordings, in their session or in the root
/// group as recorded: `hackbench -g 2 --threads -l 2000` on the Xeon VM
/// (tests/fixtures/real/hackbench.perf-script.gz) and in the root group on the EPYC VM
/// (tests/fixtures/real-epyc/hackbench-root-1.perf-script.gz), and `hackbench -p -g 4
/// --threads -l 1000` over pipes (tests/fixtures/real-epyc-dec6/hackbench-pipe-1). With a
/// message per recorded wakeup and inboxes of one the wakeup latency p50 was 10.5×, 53× and
/// 7.6× the recorded one and the p99 39 %, 76 % and 62 % under it; now the p50 is 19 µs
/// against 12 µs, 32 µs against 8 µs and 23 µs against 14 µs, the p99 within a quarter and
/// a third. Over pipes the senders' wakeups come from the receivers (a read that freed a
/// page) and from one another (`pipe_write` wakes the next writer waiting while room is
/// left), 187 of 207 in all: counted as their readers' alone (62) the senders took timed
/// sleeps of 35 ms for their waits and the p99 was 0.2 ms. A pipe wakes one writer per freed
/// page, a socket all of them at a quarter: 96 % of the pipe receivers' runs that wake
/// senders wake one, 16–21 % of the socket ones', so the inboxes are pipes there and sockets
/// elsewhere (taken for sockets, the pipes gave p50 35 µs and p99 26.6 ms). And `perf bench
/// sched messaging -g 2 -l 100` in a 236-ms recording (tests/fixtures/traces/messaging.*),
/// whose senders and receivers are forked 0.2 ms apart: while a set's readers and writers
/// were grouped by their starts (a task first seen more than 2 % of the recording after its
/// group's first started another) and its writers had to run to the end as its readers did,
/// the receivers were split and the senders, which exit before the receivers, made no
/// inboxes (a short recording of the same command: p50 317 µs against 18 µs recorded, the
/// wakee on its waker's CPU at 90 % against 47 %); now p50 14 µs against 11 µs, p99 11.1 ms
/// against 14.5 ms, 43 % on the waker's CPU against 29 %. Its receivers' runs that wake
/// senders wake two or more at 32 % of them (so sockets; taken for pipes while one in two
/// sufficed). Held: the kind of fd, and, as medians over five seeds (`latency_over_seeds`), the
/// p50 within 5× and the p99 within 50 %, both ways (seed 1 alone had held them within 40 %
/// until the pairs' costs were kept to the nanosecond: the Xeon recording also holds a `node`
/// process's pairs, whose costs moved by under 0.1 %, and its hackbench's p99 went from 14.2
/// to 27.3 ms; over seeds it is 23.8 ms against 17.8 recorded, and on
/// `real-epyc/hackbench-root-1` 18.2 against 12.6, where the three root-group recordings of
/// the command give 12.6–14.9 ms).
#[test]
fn hackbench_recordings_wake_as_recorded_through_the_readers_inboxes() {
    // (recording, its command's name, started from a shell in an autogroup session, sets)
    for (fixture, comm, session, sets) in [
        ("../real/hackbench.perf-script.gz", "hackbench", true, 2),
        (
            "../real-epyc/hackbench-root-1.perf-script.gz",
            "hackbench",
            false,
            2,
        ),
        (
            "../real-epyc-dec6/hackbench-pipe-1.perf-script.gz",
            "hackbench",
            true,
            4,
        ),
        ("messaging.perf-script.txt.gz", "sched-messaging", true, 2),
    ] {
        let imp = import(fixture);
        let (d, sc, out) = if session {
            derive_and_run_in_session(&imp, 1_000_000, comm)
        } else {
            derive_and_run(&imp, 1_000_000)
        };
        assert!(out.deadlock.is_none(), "{fixture}: {:?}", out.deadlock);
        let inboxes: Vec<String> = d
            .channels
            .iter()
            .filter(|c| d.groups[c.reader].tasks > 1 && d.groups[c.reader].comm == comm)
            .map(|c| format!("{}.{{i}}", c.name))
            .collect();
        let hubs = inboxes.len();
        let pipe = fixture.contains("pipe");
        assert_eq!(
            hubs, sets,
            "{fixture}: one inbox set per group of the command"
        );
        let listed = d.scenario["channels"].as_array().unwrap();
        assert_eq!(
            listed
                .iter()
                .filter(|c| inboxes.iter().any(|n| c["name"] == n.as_str()))
                .count(),
            hubs
        );
        for c in listed {
            if inboxes.iter().any(|n| c["name"] == n.as_str()) {
                assert_eq!(
                    (
                        c.get("page_msgs").is_some(),
                        c.get("wake_writer_at").is_some()
                    ),
                    (pipe, !pipe),
                    "{fixture}: {c}"
                );
            }
        }
        let (rec, sim) = (latency(&imp.trace, 0, u64::MAX), latency_over_seeds(&sc));
        eprintln!("{fixture}: wakeup latency p50, p99 recorded {rec:?} ns, simulated {sim:?}");
        assert_hub_latency(fixture, rec, sim);
    }
}

/// The wakeup latency ([p50, p99], ns) of a scenario's first variant, each the median over
/// `SEEDS` seeds: a two-CPU hackbench is chaotic, and the seed alone moves the Xeon
/// recording's derived p99 from 15.6 to 26.9 ms and its p50 from 4 to 48 µs (seeds 1–6).
fn latency_over_seeds(sc: &Scenario) -> [u64; 2] {
    const SEEDS: u64 = 5;
    let (mut p50, mut p99) = (vec![], vec![]);
    for seed in 1..=SEEDS {
        let mut cfg = sc.sim_config();
        cfg.seed = seed;
        let out = schedlab_sim::simulate(&cfg, &sc.variants()[0]).expect("it runs");
        let [a, b] = latency(&out.trace, 0, u64::MAX);
        p50.push(a);
        p99.push(b);
    }
    p50.sort_unstable();
    p99.sort_unstable();
    [p50[p50.len() / 2], p99[p99.len() / 2]]
}

/// A hub's wakeup latency ([p50, p99], ns) simulated against recorded: the p50 within 5× and
/// the p99 within 50 %, both ways.
fn assert_hub_latency(what: &str, rec: [u64; 2], sim: [u64; 2]) {
    let p50 = sim[0] as f64 / rec[0].max(1) as f64;
    assert!(
        (0.2..=5.0).contains(&p50),
        "{what}: wakeup latency p50 {} µs simulated against {} µs recorded",
        sim[0] / 1000,
        rec[0] / 1000
    );
    let p99 = sim[1] as f64 / rec[1].max(1) as f64;
    assert!(
        (0.6..=1.5).contains(&p99),
        "{what}: wakeup latency p99 {:.1} ms simulated against {:.1} ms recorded",
        sim[1] as f64 / 1e6,
        rec[1] as f64 / 1e6
    );
}

/// `hackbench -g 3 -l 400` (three groups of 20 sender and 20 receiver processes over unix
/// sockets) in a 685-ms recording (tests/fixtures/traces/hackbench3.*) where the first group's
/// senders woke each of its receivers at most 5 times: with no wakeups of 8 to join them, its
/// senders and receivers made no set, and the group ran as tasks fitted to their bursts and
/// sleeps (wakeup latency p50 4.9 ms against 35 µs recorded, p99 40.5 against 30.2 ms).
/// Now writers and readers that no set holds are joined by their weaker flows (2 wakeups or
/// more); the launcher, which woke each of its 120 children once and one of them twice, is
/// not a writer (a writer gives a tenth of its wakeups or more to tasks it wakes more than
/// once), where before it joined the first group's senders, which it outlives, and kept them
/// from writing inboxes (readers that exit need writers that exit); receivers that woke their
/// senders more often than they were woken (reads that drained a full socket) are readers by
/// their partners' parts, not writers of their own; and the wakeup a task gives as it exits
/// (its parent's `wait`) is no message, so the launcher, woken by its children's exits, reads
/// no inbox. Held: three sets of 20 readers and 20 writers; over five seeds the p50 within 5×
/// (38 µs against 35 µs) and the p99 within 50 % (28.3 against 30.2 ms). Not held: the
/// switches (38.5 k against 16.0 k with seed 1): the first group's receivers were woken once
/// per full socket in the recording (about 100 wakeups for 8000 messages each), in the model
/// more often.
#[test]
fn a_group_whose_senders_wake_each_receiver_a_few_times_is_a_set() {
    let imp = import("hackbench3.perf-script.txt.gz");
    let (d, sc, out) = derive_and_run_in_session(&imp, 1_000_000, "hackbench");
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
    let sets: Vec<(&str, usize, usize)> = d
        .channels
        .iter()
        .filter(|c| c.name.starts_with("msgs-"))
        .map(|c| {
            let writers = c.writers.iter().map(|&(w, _)| d.groups[w].tasks).sum();
            (c.name.as_str(), d.groups[c.reader].tasks, writers)
        })
        .collect();
    let names: Vec<&str> = sets.iter().map(|s| s.0).collect();
    assert_eq!(names, ["msgs-12636", "msgs-12676", "msgs-12716"]);
    for (name, readers, writers) in sets {
        assert_eq!((readers, writers), (20, 20), "{name}: readers and writers");
    }
    let (rec, sim) = (latency(&imp.trace, 0, u64::MAX), latency_over_seeds(&sc));
    eprintln!("hackbench3: wakeup latency p50, p99 recorded {rec:?} ns, simulated {sim:?}");
    assert_hub_latency("hackbench3", rec, sim);
}

/// A task that served one burst of work at the start and was asleep for the rest (a kworker
/// that flushed the tracer's first writes: 30 rounds of 40 µs in 30 ms, then 3 s of silence)
/// runs its rounds and sleeps to the end, rather than waking every millisecond for the whole
/// scenario (4 % of a CPU where it took 0.04 %).
#[test]
fn a_task_that_went_quiet_runs_its_rounds_and_sleeps_to_the_end() {
    let (k, idle) = (("kw", 10), ("swapper/0", 0));
    let mut t = 1_000_000u64; // µs
    let mut text = String::new();
    for _ in 0..30 {
        text += &line(
            t,
            idle,
            "sched:sched_waking: comm=kw pid=10 prio=120 target_cpu=000".into(),
        );
        text += &line(t + 1, idle, "sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kw next_pid=10 next_prio=120".into());
        text += &line(t + 41, k, "sched:sched_switch: prev_comm=kw prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120".into());
        t += 1_000;
    }
    // The recording goes on for 3 s with the CPU idle (another task's switch ends it).
    text += &line(4_000_000, idle, "sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=other next_pid=11 next_prio=120".into());
    let imp = schedlab_trace::import_bytes(text.as_bytes(), Default::default()).unwrap();
    let d = derive_scenario(&imp, "t", &["eevdf-6.19".to_string()], 0);
    let sc = Scenario::from_value(d.scenario.clone()).unwrap_or_else(|e| panic!("{e}"));
    let kw = sc
        .tasks
        .iter()
        .find(|t| t.name == "kw")
        .expect("kw is kept");
    assert!(
        matches!(kw.program.last(), Some(schedlab_scenario::Step::Sleep(..))),
        "ends asleep: {:?}",
        kw.program
    );
    let out = schedlab_sim::simulate(&sc.sim_config(), &sc.variants()[0]).expect("it runs");
    let pid = out
        .trace
        .tasks
        .iter()
        .find(|t| t.comm == "kw")
        .expect("kw ran")
        .pid;
    let ran = cpu_ns(&out.trace, 0, out.trace.end_ns)[pid as usize];
    // Recorded 30 × 40 µs = 1.2 ms; fitted bursts are exponential, so within a factor of 2.
    assert!(
        (600_000..=2_400_000).contains(&ran),
        "kw ran {ran} ns in the simulation (recorded 1.2 ms)"
    );
}

/// A ping-pong pair (A, B: 2 000 round trips of 10 µs a side, then both exit, 50 ms into a
/// 3-s recording) and a kworker woken 20 times while A ran. A woke the kworker for all its
/// wakeups, so the two looked like a pair; joined to the pair, which stopped long before the
/// end, it bounded the pair's rounds to its own 20 (in a recording of a hog, two duty cycles
/// and `perf bench sched pipe` on the EPYC VM, kworker/1:1H did that to the pipe pair: 2.9 %
/// of the CPU time recorded, 0.0 % simulated). The scenario would have A write the kworker
/// every round; A woke it once per 100 rounds.
#[test]
fn a_task_woken_once_per_hundred_rounds_is_not_a_partner() {
    let (a, b, k, idle) = (("a", 20), ("b", 21), ("kw", 10), ("swapper/0", 0));
    let sw = |prev: (&str, u32), st: &str, next: (&str, u32)| {
        format!(
            "sched:sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={st} ==> next_comm={} next_pid={} next_prio=120",
            prev.0, prev.1, next.0, next.1
        )
    };
    let wake = |to: (&str, u32)| {
        format!(
            "sched:sched_waking: comm={} pid={} prio=120 target_cpu=000",
            to.0, to.1
        )
    };
    let mut t = 1_000_000u64; // µs
    let mut text = line(t, idle, sw(idle, "R", a));
    for r in 0..2_000 {
        text += &line(t + 10, a, wake(b));
        if r % 100 == 0 {
            text += &line(t + 11, a, wake(k));
            text += &line(t + 12, a, sw(a, "S", k));
            text += &line(t + 14, k, sw(k, "S", b));
            t += 2;
        } else {
            text += &line(t + 12, a, sw(a, "S", b));
        }
        text += &line(t + 22, b, wake(a));
        text += &line(t + 23, b, sw(b, "S", a));
        t += 24;
    }
    text += &line(t, a, wake(b));
    text += &line(t + 1, a, sw(a, "X", b));
    text += &line(t + 2, b, sw(b, "X", idle));
    text += &line(4_000_000, idle, sw(idle, "R", ("other", 11)));
    let imp = schedlab_trace::import_bytes(text.as_bytes(), Default::default()).unwrap();
    let (d, _, out) = derive_and_run(&imp, 0);
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
    assert_eq!(
        d.channels.len(),
        2,
        "the pair's two, none to the kworker: {:?}",
        d.channels
    );
    let sim = cpu_ns(&out.trace, 0, out.trace.end_ns);
    let pair: u64 = out
        .trace
        .tasks
        .iter()
        .filter(|x| x.comm == "a" || x.comm == "b")
        .map(|x| sim[x.pid as usize])
        .sum();
    // Recorded 2 000 × (10 + 10 µs) = 40 ms; fitted bursts are exponential.
    assert!(
        (30_000_000..=50_000_000).contains(&pair),
        "the pair ran {pair} ns in the simulation (recorded 40 ms)"
    );
}

// Regressions found by the `trace` fuzz target (fuzz/): a derived scenario validates whatever
// the recording holds.

fn switch(t: &str, prev: (&str, u32), next: (&str, u32)) -> String {
    format!(
        "{c:>16} {p:>5} [000] {t}: sched:sched_switch: prev_comm={c} prev_pid={p} prev_prio=120 prev_state=R ==> next_comm={nc} next_pid={np} next_prio=120\n",
        c = prev.0,
        p = prev.1,
        nc = next.0,
        np = next.1
    )
}

/// One `perf script` line on CPU 0 at `t` µs, `cur` (comm, pid) current.
fn line(t: u64, cur: (&str, u32), body: String) -> String {
    format!(
        "{:>16} {:>5} [000] {}.{:06}: {body}\n",
        cur.0,
        cur.1,
        t / 1_000_000,
        t % 1_000_000
    )
}

fn derive_text(text: &str) -> schedlab_trace::Derived {
    let imp = schedlab_trace::import_bytes(text.as_bytes(), Default::default()).unwrap();
    derive_scenario(&imp, "t", &["eevdf-6.6".to_string()], 0)
}

#[test]
fn a_recording_longer_than_an_hour_derives_an_hour() {
    // Two switches two hours apart (the fuzzer's was a timehist line with a damaged time).
    let d = derive_text(
        &(switch("100.000000", ("swapper/0", 0), ("a", 10))
            + &switch("7300.000000", ("a", 10), ("b", 11))),
    );
    let sc = Scenario::from_value(d.scenario.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.duration_ns(), 3_600_000_000_000);
    assert!(
        d.notes.iter().any(|n| n.contains("at most an hour")),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_comm_with_a_bidi_override_is_sanitized() {
    let d = derive_text(
        &(switch("1.000000", ("swapper/0", 0), ("ev\u{202E}il", 10))
            + &switch("1.002000", ("ev\u{202E}il", 10), ("swapper/0", 0))),
    );
    assert_eq!(d.groups[0].comm, "ev_il");
    Scenario::from_value(d.scenario.clone()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_recording_where_nothing_ran_derives_no_group() {
    // The CLI refuses it with "nothing to derive" (crates/cli/tests/cli.rs).
    let d = derive_text(&switch("1.000000", ("swapper/0", 0), ("swapper/0", 0)));
    assert!(d.groups.is_empty());
}

#[test]
fn a_pipe_pair_becomes_two_channels_and_its_cycle_starts_with_a_send() {
    // a and b take turns on CPU 0 through a pipe: each wakes the other, then blocks.
    let (a, b) = (("a", 10), ("b", 11));
    let mut t = 1_000_000u64; // µs
    let mut text = line(t, ("swapper/0", 0), "sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120".into());
    for i in 0..40 {
        let (cur, other) = if i % 2 == 0 { (a, b) } else { (b, a) };
        t += 5;
        text += &line(
            t,
            cur,
            format!(
                "sched:sched_waking: comm={} pid={} prio=120 target_cpu=000",
                other.0, other.1
            ),
        );
        t += 5;
        text += &line(t, cur, format!("sched:sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state=S ==> next_comm={} next_pid={} next_prio=120", cur.0, cur.1, other.0, other.1));
    }
    let d = derive_text(&text);
    assert_eq!(d.channels.len(), 2, "{:?}\n{}", d.notes, d.scenario);
    let sc = Scenario::from_value(d.scenario.clone()).unwrap_or_else(|e| panic!("{e}"));
    let first: Vec<&schedlab_scenario::Step> = sc.tasks.iter().map(|t| &t.program[0]).collect();
    // a ran first: it runs and sends before it reads; b reads first.
    assert!(
        matches!(
            first.as_slice(),
            [
                schedlab_scenario::Step::Run(..),
                schedlab_scenario::Step::Recv(_)
            ]
        ),
        "{first:?}"
    );
    let out = schedlab_sim::simulate(&sc.sim_config(), &sc.variants()[0]).unwrap();
    assert!(out.deadlock.is_none(), "{:?}", out.deadlock);
}
