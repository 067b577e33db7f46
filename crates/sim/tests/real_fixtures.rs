//! The real-kernel oracle (issue 11, part 5): workloads recorded on Linux 6.18 (2 CPUs,
//! HZ=250) by `scripts/record-fixtures.sh` into `tests/fixtures/real/`, the figures read off
//! them (`real_trace`), and the model's figures for the scenario that describes each, run as
//! `eevdf-6.19` (the nearest variant). docs/measurements.md has the recordings and how they
//! were read; ARCHITECTURE.md the comparison table and the tolerances these tests hold.
//!
//! The machine was shared with other work while recording; each fixture's metadata says how
//! idle it was, and the figures below are the ones that other work disturbs least (shares
//! relative to the workload's own total, migrations per task, the wake-to-run latency).

mod common;
mod real_trace;

use common::*;
use real_trace::{load, load_from, percentile};
use schedlab_sim::*;

/// The model's per-task figures: CPU share (‰ of one CPU) and migrations per second (×1000).
fn model_figures(out: &Output, pid: u32) -> (u64, u64) {
    let t = &out.tasks[pid as usize - 1];
    let d = out.trace.end_ns;
    (
        t.sum_exec_runtime_ns * 1000 / d,
        t.migrations * 1_000_000_000_000 / d,
    )
}

/// The machine's cost of a wakeup onto an idle CPU (the scenario default `idle_wakeup_ns`):
/// the recorded wake-to-run p50 onto an idle CPU, 22 µs, less δ (5 µs).
const IDLE_WAKEUP_NS: u64 = 17 * US;

fn on(mut t: TaskSpec, cpus: &[u32]) -> TaskSpec {
    t.affinity = cpus.to_vec();
    t
}

/// Recorded: three `sh -c 'while :; do :; done'` unpinned for 5 s. Each hog gets a third of
/// what the three got together (±2 %), and each migrates 1–2.5 times a second (the balancer
/// moves the hog that was just switched out, once cache_nice_tries is exhausted).
#[test]
fn recorded_three_hogs() {
    let r = load("hogs3");
    let hogs = r.top("sh", 3);
    let total: u64 = hogs.iter().map(|(_, f)| f.runtime_ns).sum();
    for (pid, f) in &hogs {
        let third_permille = f.runtime_ns * 3000 / total;
        let mig = r.per_s_milli(f.migrations);
        assert!(
            (980..=1020).contains(&third_permille) && (1_000..=2_500).contains(&mig),
            "hog {pid}: {third_permille}‰ of a third, {mig} milli-migrations/s"
        );
    }
    // The machine's own share: the hogs had ~1.8 of the 2 CPUs (others ran too).
    assert!(total * 1000 / r.duration_ns() > 1_700);
}

/// Model: three nice-0 hogs on two CPUs for 10 s, on the haltpoll VM (its costs and its
/// housekeeping, the recordings' other tasks), under CFS and EEVDF, at three seeds: each hog
/// gets a third of the three's time within the recordings' spread (±6 %: the three 10-s
/// recordings give 947–1050 ‰ of a third, `recorded_three_hogs_over_10_s_on_the_haltpoll_epyc_vm`)
/// and moves 1–5 times a second (recorded 1.6–3.7), never twice within a tick (no
/// pull-and-pull-back at one tick edge) and rarely within 50 ms: of the five three-hog
/// recordings' 281 moves of a hog that had moved before (`hogs3` in `real/` and
/// `real-epyc-haltpoll/`, `hogs3-long-1..3`) none came closer than 88 ms to its previous one, so
/// at most 1 % of the model's may (3/281, the rule of three's bound on a rate never seen in
/// 281 tries). A quick move back is a kernel path, not a
/// lockstep: a CPU that gave a hog away is has_spare by PELT util until that recovers, and
/// pulls one task (`migrate_task`) from a CPU whose housekeeping thread happens to be running
/// at its balance, three tasks there. The balancer reads PELT util, and what breaks the tick's
/// parity between the three is the other work the machine runs.
#[test]
fn model_three_hogs_share_two_cpus() {
    let m = haltpoll();
    let (mut moves, mut quick) = (0, 0);
    for variant in ["cfs-6.1", "eevdf-6.19"] {
        for seed in 1..=3 {
            let tasks: Vec<TaskSpec> = (0..3)
                .map(|i| on(hog(&format!("h{i}"), 0), &[0, 1]))
                .collect();
            let out = run(&on_machine(m, tasks, 10_000 * MS, seed), variant);
            let mut last: [Option<u64>; 4] = [None; 4];
            for e in &out.trace.events {
                if let EventKind::MigrateTask { pid, .. } = e.kind {
                    if pid > 3 {
                        continue;
                    }
                    if let Some(t) = last[pid as usize] {
                        assert!(
                            e.t_ns - t >= 4 * MS,
                            "{variant}, seed {seed}: hog {pid} moved at {t} and again at {}",
                            e.t_ns
                        );
                        quick += usize::from(e.t_ns - t < 50 * MS);
                    }
                    moves += 1;
                    last[pid as usize] = Some(e.t_ns);
                }
            }
            let total: u64 = (1..=3).map(|p| out.tasks[p - 1].sum_exec_runtime_ns).sum();
            for pid in 1..=3u32 {
                let (_, mig) = model_figures(&out, pid);
                let third = out.tasks[pid as usize - 1].sum_exec_runtime_ns * 3000 / total;
                assert!(
                    (940..=1060).contains(&third) && (1_000..=5_000).contains(&mig),
                    "{variant}, seed {seed}: hog {pid}: {third}‰ of a third, {mig} milli-migrations/s"
                );
            }
        }
    }
    assert!(
        quick * 100 <= moves,
        "{quick} of {moves} moves came within 50 ms of the same hog's previous one"
    );
}

/// `tasks` on a measured machine's 2 CPUs at HZ=250 for `duration_ns`: its costs, and its
/// housekeeping after them (in the root group, the model's task group 1).
fn on_machine(m: &Machine, mut tasks: Vec<TaskSpec>, duration_ns: u64, seed: u64) -> SimConfig {
    tasks.extend(m.housekeeping.tasks(2, 1));
    let mut c = cfg(2, 250, duration_ns, tasks);
    c.seed = seed;
    c.idle_wakeup_ns = m.idle_wakeup_ns;
    c.idle_states = m.idle_states.to_vec();
    c.switch_cost_ns = m.switch_cost_ns;
    c.wakeup_cost_ns = m.wakeup_cost_ns;
    c.ipi_cost_ns = m.ipi_cost_ns;
    c
}

/// The periodic task of scripts/workloads/periodic.c: 1 ms of CPU, then a 9-ms nanosleep.
fn periodic(comm: &str) -> TaskSpec {
    task(
        comm,
        0,
        SchedPolicy::Normal,
        vec![
            Op::Run(Some(Dist::Fixed(MS))),
            Op::Sleep(Dist::Fixed(9 * MS)),
        ],
    )
}

/// Model: two hogs and the periodic task unpinned on two CPUs for 10 s: the periodic task
/// stays where it is (recorded on a quiet machine: no migration in 5 s and every wakeup on its
/// own CPU; 0.6–2.4 migrations/s in an earlier recording with other work on the machine); held
/// to at most 1 migration/s, and the hogs keep a CPU each.
#[test]
fn model_periodic_task_stays_put() {
    let tasks = vec![
        on(hog("a", 0), &[0, 1]),
        on(hog("b", 0), &[0, 1]),
        on(periodic("p"), &[0, 1]),
    ];
    let out = run(&cfg(2, 250, 10_000 * MS, tasks), "eevdf-6.19");
    let (p_share, p_mig) = model_figures(&out, 3);
    assert!(
        p_mig <= 1_000 && (80..=110).contains(&p_share),
        "periodic: {p_share}‰, {p_mig} milli-migrations/s"
    );
    for pid in 1..=2 {
        let (share, mig) = model_figures(&out, pid);
        assert!(share >= 850 && mig <= 1_000, "hog {pid}: {share}‰, {mig}");
    }
}

/// Recorded: the periodic task beside two hogs stays where it is: at most 0.5 migrations a
/// second (recorded on a quiet machine: none in 5 s) and 99 % of its wakeups on its own CPU
/// (all 458); it gets its 1 ms in 10 (92 ‰ of a CPU).
#[test]
fn recorded_periodic_task() {
    let r = load("periodic");
    let (_, p) = r.top("periodic", 1)[0];
    assert!(
        r.per_s_milli(p.migrations) <= 500
            && p.wakeups_local * 100 >= p.wakeups * 99
            && (70..=100).contains(&r.share_permille(p)),
        "{p:?}"
    );
}

/// Recorded: the ping-pong pair pinned to CPUs 0 and 1. The partner runs 20–25 µs after its
/// wakeup whether its CPU was idle (p50 22 µs) or busy; a side wakes its partner a few µs
/// after it starts running; the median round trip is 52 µs. (The mean, 115 µs, and the
/// program's own rate, ~10 000/s, include cycles that waited for other work on the CPUs.)
#[test]
fn recorded_ping_pong_across_cpus() {
    let r = load("pingpong-cross");
    let pair = r.top("pingpong", 2);
    // Onto an idle CPU: few samples per side (the CPUs were seldom idle), so both sides pooled.
    let idle_samples: Vec<u64> = pair
        .iter()
        .flat_map(|(_, f)| f.wake_to_run_idle_remote_ns.iter().copied())
        .collect();
    let idle = percentile(&idle_samples, 500);
    assert!(
        idle_samples.len() >= 200 && (20 * US..=25 * US).contains(&idle),
        "{} wakeups onto an idle CPU, p50 {idle}",
        idle_samples.len()
    );
    for (pid, f) in &pair {
        let all = percentile(&f.wake_to_run_ns, 500);
        let pre = percentile(&f.run_to_first_waking_ns, 500);
        let cycle = percentile(&f.waking_cycle_ns, 500);
        assert!(
            (20 * US..=25 * US).contains(&all)
                && (2 * US..=5 * US).contains(&pre)
                && (45 * US..=55 * US).contains(&cycle),
            "pid {pid}: wake-to-run p50 {all}, run-to-waking p50 {pre}, cycle p50 {cycle}"
        );
    }
}

/// A ping-pong pair over two pipes as `scripts/workloads/pingpong.c` runs it: each side runs
/// `pre_us`, writes to its partner, runs `post_us`, then reads; "ping" starts, "pong" first
/// reads. `cpus` gives each side's allowed CPUs.
fn ping_pong(pre_us: u64, post_us: u64, cpus: [&[u32]; 2], duration_ns: u64) -> SimConfig {
    let side = |comm: &str, cpus: &[u32], rx: u32, tx: u32, first: bool| {
        let mut prog = vec![
            Op::Run(Some(Dist::Fixed(pre_us * US))),
            Op::Send(tx),
            Op::Run(Some(Dist::Fixed(post_us * US))),
            Op::Recv(rx),
        ];
        if !first {
            prog.rotate_left(3);
        }
        on(task(comm, 0, SchedPolicy::Normal, prog), cpus)
    };
    let mut c = cfg(
        2,
        250,
        duration_ns,
        vec![
            side("ping", cpus[0], 1, 0, true),
            side("pong", cpus[1], 0, 1, false),
        ],
    );
    c.channels = vec![Channel::unbounded("p2c"), Channel::unbounded("c2p")];
    c
}

/// Model: the same pair, each side running 3 µs (the recorded run-to-waking) before it writes
/// and 15 µs after, on two otherwise idle CPUs, with the machine's `idle_wakeup_ns`. Its round
/// trip rate is within 15 % of the recorded median cycle's (1 / 52 µs = 19 231/s).
#[test]
fn model_ping_pong_across_idle_cpus() {
    let mut c = ping_pong(3, 15, [&[0], &[1]], 2_000 * MS);
    c.idle_wakeup_ns = IDLE_WAKEUP_NS;
    let out = run(&c, "eevdf-6.19");
    // One round trip = one pass of the parent's loop, 3 + 15 µs of its CPU time.
    let round_trips_per_s =
        |o: &Output| o.tasks[0].sum_exec_runtime_ns / (18 * US) * 1_000_000_000 / o.trace.end_ns;
    let rate = round_trips_per_s(&out);
    let recorded = 1_000_000_000 / (52 * US);
    assert!(
        rate * 100 >= recorded * 85 && rate * 100 <= recorded * 115,
        "model {rate}/s, recorded {recorded}/s"
    );
    // Without the cost of waking an idle CPU the rate is far above the machine's.
    c.idle_wakeup_ns = 0;
    let free = run(&c, "eevdf-6.19");
    let free_rate = round_trips_per_s(&free);
    assert!(
        free_rate > recorded * 5 / 4,
        "free {free_rate}/s, model {rate}/s"
    );
}

/// Σ (wakeups on the waker's CPU, wakeups, migrations, wake-to-run samples) over pids named
/// `comm`.
fn wakeup_totals(r: &real_trace::Recording, comm: &str) -> (u64, u64, u64, Vec<u64>) {
    let mut t = (0, 0, 0, vec![]);
    for f in r.pids.values().filter(|f| f.comm == comm) {
        t.0 += f.wakeups_local;
        t.1 += f.wakeups;
        t.2 += f.migrations;
        t.3.extend_from_slice(&f.wake_to_run_ns);
    }
    t
}

/// Recorded: the ping-pong pair unpinned. Sync wakeups keep it on one CPU: all but a handful
/// of its wakeups land on the waker's CPU, and the partner runs within a few µs.
#[test]
fn recorded_ping_pong_unpinned() {
    let r = load("pingpong-free");
    let (local, all, _, lat) = wakeup_totals(&r, "pingpong");
    let p50 = percentile(&lat, 500);
    eprintln!("pingpong-free: {local}/{all} local, wake-to-run p50 {p50} ns");
    assert!(all > 10_000 && local * 1000 >= all * 995 && p50 <= 5 * US);
}

/// Recorded: `hackbench -g 2 --threads -l 2000` (40 threads a group over socketpairs) on the
/// 2 CPUs: the share of wakeups on the waker's CPU and the wake-to-run latency. (The model's
/// hackbench is compared with it in crates/cli/tests/real_hackbench.rs, where the generator is.)
#[test]
fn recorded_hackbench() {
    let r = load("hackbench");
    let (local, all, mig, lat) = wakeup_totals(&r, "hackbench");
    let (p50, p90) = (percentile(&lat, 500), percentile(&lat, 900));
    eprintln!(
        "hackbench: {local}/{all} local, {mig} migrations, wake-to-run p50 {p50} p90 {p90} ns over {} ns",
        r.duration_ns()
    );
    // Recorded: 45458 of 69445 wakeups (65 %) local, wake-to-run p50 12 µs, p90 3.6 ms.
    assert!(all > 10_000 && local * 100 >= all * 60 && local * 100 <= all * 70);
}

/// Recorded on the EPYC VM: the same hackbench wakes on the waker's CPU less often (42 %:
/// 23 024 of 54 465) than on the Xeon VM (65 %), the groups mixed over both CPUs.
#[test]
fn recorded_hackbench_on_the_epyc_vm() {
    let r = load_from("real-epyc", "hackbench");
    let (local, all, _, _) = wakeup_totals(&r, "hackbench");
    assert!(
        all > 10_000 && local * 100 >= all * 35 && local * 100 <= all * 55,
        "{local} of {all}"
    );
}

/// Wake-to-run delays of the periodic task (sched_waking to its switch-in), sorted.
fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// The periodic task beside two hogs, recorded on a quiet machine and modelled (`eevdf-6.19`,
/// 10 s): three quarters of its wakeups run within 100 µs (the woken task preempts the hog it
/// shares a CPU with), the rest wait for the tick (HZ=250: under 4 ms), none longer than a
/// tick and a millisecond. Recorded: 75 % within 100 µs (p50 8 µs), the others mostly near a
/// tick (p90 3.74 ms, longest 4.8 ms); model: 75 %, the others at 4.0 ms. Held: each within
/// 65–85 %, the two within 10 points of each other, every wait at most 5 ms, and the waits'
/// p90 within 0.5 ms of each other. (`cfs-6.1` runs every wakeup at once: 100 % within 5 µs.)
#[test]
fn periodic_wakeups_wait_for_the_tick_a_quarter_of_the_time_as_recorded() {
    periodic_wakeups_as_recorded_on("real");
}

/// The same on the EPYC VM: recorded 77 % within 100 µs (p50 15 µs), p90 3.69 ms, longest
/// 4.71 ms; held to the same tolerances.
#[test]
fn periodic_wakeups_wait_for_the_tick_as_recorded_on_the_epyc_vm() {
    periodic_wakeups_as_recorded_on("real-epyc");
}

fn periodic_wakeups_as_recorded_on(machine: &str) {
    let r = load_from(machine, "periodic");
    let (_, p) = r.top("periodic", 1)[0];
    let rec = sorted(p.wake_to_run_ns.clone());
    let tasks = vec![
        on(hog("a", 0), &[0, 1]),
        on(hog("b", 0), &[0, 1]),
        on(periodic("p"), &[0, 1]),
    ];
    let out = run(&cfg(2, 250, 10_000 * MS, tasks), "eevdf-6.19");
    let mut waking = None;
    let mut model = vec![];
    for e in out.trace.events.iter() {
        match e.kind {
            EventKind::Waking { pid: 3, .. } => waking = Some(e.t_ns),
            EventKind::Switch { next_pid: 3, .. } => {
                if let Some(t) = waking.take() {
                    model.push(e.t_ns - t);
                }
            }
            _ => {}
        }
    }
    let model = sorted(model);
    let within_100us = |w: &[u64]| w.iter().filter(|&&d| d <= 100 * US).count() * 100 / w.len();
    let p90 = |w: &[u64]| w[(w.len() - 1) * 9 / 10];
    let (rw, mw) = (within_100us(&rec), within_100us(&model));
    assert!(
        rec.len() >= 400 && model.len() >= 800,
        "{} recorded, {} modelled wakeups",
        rec.len(),
        model.len()
    );
    assert!(
        (65..=85).contains(&rw) && (65..=85).contains(&mw) && rw.abs_diff(mw) <= 10,
        "within 100 µs: recorded {rw} %, model {mw} %"
    );
    assert!(
        rec[rec.len() - 1] <= 5 * MS && model[model.len() - 1] <= 5 * MS,
        "longest wait: recorded {}, model {}",
        rec[rec.len() - 1],
        model[model.len() - 1]
    );
    assert!(
        p90(&rec).abs_diff(p90(&model)) <= MS / 2,
        "p90: recorded {}, model {}",
        p90(&rec),
        p90(&model)
    );
}

// The EPYC VM (`schedlab_sim::machine("epyc-vm")`, `tests/fixtures/real-epyc/`): the same
// workloads recorded on a second machine whose wakeup and switch costs differ from the Xeon
// VM's by 2–5× (docs/measurements.md). The model is held to it with that machine's costs.

fn epyc() -> &'static Machine {
    machine("epyc-vm").expect("epyc-vm is a measured machine")
}

/// Recorded on the EPYC VM: three hogs, each within 6 % of a third of what the three got
/// (950–1042 ‰) and moved 1.2–3.8 times a second.
#[test]
fn recorded_three_hogs_on_the_epyc_vm() {
    three_hogs_as_recorded_on("real-epyc");
}

/// A machine's `hogs3` recording: each hog within 6 % of a third of the three's time, moved
/// 0.5–5 times a second.
fn three_hogs_as_recorded_on(fixtures: &str) {
    three_hogs_as_recorded_in(fixtures, "hogs3");
}

fn three_hogs_as_recorded_in(fixtures: &str, name: &str) {
    let r = load_from(fixtures, name);
    let hogs = r.top("sh", 3);
    let total: u64 = hogs.iter().map(|(_, f)| f.runtime_ns).sum();
    for (pid, f) in &hogs {
        let third_permille = f.runtime_ns * 3000 / total;
        let mig = r.per_s_milli(f.migrations);
        assert!(
            (940..=1060).contains(&third_permille) && (500..=5_000).contains(&mig),
            "{fixtures}/{name}: hog {pid}: {third_permille}‰ of a third, {mig} milli-migrations/s"
        );
    }
}

/// Recorded on the EPYC VM: the ping-pong pair pinned to CPUs 0 and 1. A wakeup onto the idle
/// CPU runs 8 µs after `sched_waking` (p50; p10 7, p90 9): δ (5 µs) plus the machine's
/// `idle_wakeup_ns`, 3 µs. A side wakes its partner 4 µs after it starts (p50) and switches
/// out 8 µs after that (the rest of its write, with the IPI, and its read); the median
/// round trip is 22 µs (the Xeon VM's: 22, 2, 16 and 52 µs).
#[test]
fn recorded_ping_pong_across_cpus_on_the_epyc_vm() {
    pinned_pair_as_recorded_on(epyc(), 19 * US..=25 * US);
}

/// A machine's `pingpong-cross` recording: the wake-to-run p50 onto the idle CPU is δ plus the
/// machine's `idle_wakeup_ns` (±1 µs, over at least 10 000 wakeups), and each side wakes its
/// partner 3–5 µs after it starts and completes its cycle (p50) within `cycle`.
fn pinned_pair_as_recorded_on(m: &Machine, cycle: std::ops::RangeInclusive<u64>) {
    let r = load_from(m.fixtures, "pingpong-cross");
    let pair = r.top("pingpong", 2);
    let idle_samples: Vec<u64> = pair
        .iter()
        .flat_map(|(_, f)| f.wake_to_run_idle_remote_ns.iter().copied())
        .collect();
    let idle = percentile(&idle_samples, 500);
    let delta = 5 * US;
    assert!(
        idle_samples.len() >= 10_000 && idle.abs_diff(delta + m.idle_wakeup_ns) <= US,
        "{}: {} wakeups onto an idle CPU, p50 {idle}",
        m.name,
        idle_samples.len()
    );
    for (pid, f) in &pair {
        let pre = percentile(&f.run_to_first_waking_ns, 500);
        let c = percentile(&f.waking_cycle_ns, 500);
        assert!(
            (3 * US..=5 * US).contains(&pre) && cycle.contains(&c),
            "{}: pid {pid}: run-to-waking p50 {pre}, cycle p50 {c}",
            m.name
        );
    }
}

/// Model: the pinned pair on two otherwise idle CPUs with the EPYC VM's `idle_wakeup_ns`, each
/// side running 4 µs before its write, as recorded, and 6 µs after it. (The recorded runs
/// already hold the machine's switch and IPI costs, so `switch_cost_ns` and `wakeup_cost_ns`
/// stay 0 here. The recorded 8 µs after the write also holds the read's way into `schedule()`,
/// which the model's block does not spend; what is left must stay under the partner's 4 + 8
/// µs, or the reply is always there before the read and neither side ever blocks.) Its round
/// trip rate is within 15 % of the recorded median cycle's (1 / 22 µs = 45 454/s); with the
/// Xeon VM's idle wakeup (17 µs) it would be less than half of it.
#[test]
fn model_ping_pong_across_idle_cpus_on_the_epyc_vm() {
    let recorded = 1_000_000_000 / (22 * US);
    let rate = pinned_pair_rate(epyc().idle_wakeup_ns, vec![]);
    assert!(
        rate * 100 >= recorded * 85 && rate * 100 <= recorded * 115,
        "model {rate}/s, recorded {recorded}/s"
    );
    let slow = pinned_pair_rate(machine("xeon-vm").unwrap().idle_wakeup_ns, vec![]);
    assert!(slow * 2 < recorded, "with 17 µs: {slow}/s");
}

/// The model's round trips per second of the pinned pair (4 µs before each write, 6 after, on
/// two otherwise idle CPUs, 2 s) with this idle wakeup and these idle states.
fn pinned_pair_rate(idle_wakeup_ns: u64, idle_states: Vec<IdleState>) -> u64 {
    let mut c = ping_pong(4, 6, [&[0], &[1]], 2_000 * MS);
    c.idle_wakeup_ns = idle_wakeup_ns;
    c.idle_states = idle_states;
    let o = run(&c, "eevdf-6.19");
    // One round trip = one pass of the parent's loop, 4 + 6 µs of its CPU time.
    o.tasks[0].sum_exec_runtime_ns / (10 * US) * 1_000_000_000 / o.trace.end_ns
}

/// Recorded on the EPYC VM, where the two CPUs share the LLC: the unpinned pair's sync
/// wakeups go to the partner's idle previous CPU (`select_idle_sibling` returns an idle
/// `prev` that shares the waker's cache), so few land on the waker's CPU (4 741 of 40 602).
/// The model (one LLC) does the same. (On the Xeon VM 45 697 of 45 705 were local: not
/// compared, as its cache topology was not recorded; ARCHITECTURE.md.)
#[test]
fn unpinned_ping_pong_wakes_the_idle_partner_cpu_on_the_epyc_vm() {
    let r = load_from("real-epyc", "pingpong-free");
    let (local, all, _, _) = wakeup_totals(&r, "pingpong");
    assert!(all > 10_000 && local * 100 <= all * 20, "{local} of {all}");

    let mut c = ping_pong(4, 6, [&[0, 1], &[0, 1]], 500 * MS);
    c.idle_wakeup_ns = epyc().idle_wakeup_ns;
    let local_share = |c: &SimConfig| {
        let o = run(c, "eevdf-6.19");
        let (l, a) = o
            .cpus
            .iter()
            .fold((0, 0), |(l, a), s| (l + s.ttwu_local, a + s.ttwu_count));
        assert!(a > 10_000, "{a} wakeups");
        l * 100 / a
    };
    let shared = local_share(&c);
    assert!(shared <= 20, "one LLC: {shared} % local");
}

/// A machine's `tests/fixtures/<fixtures>/metadata.txt`.
fn metadata(m: &Machine) -> String {
    let path = format!(
        "{}/../../tests/fixtures/{}/metadata.txt",
        env!("CARGO_MANIFEST_DIR"),
        m.fixtures
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A machine's `idlelat` runs (`tests/fixtures/<fixtures>/metadata.txt`): for each gap (how
/// long the woken CPU had been idle, µs), the median over the runs of each run's p50 wake (µs).
fn recorded_idle_wakeups(m: &Machine) -> Vec<(u64, f64)> {
    let text = metadata(m);
    let mut by_gap: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for line in text.lines().filter(|l| l.starts_with("idle wakeup, run ")) {
        // "idle wakeup, run 1: gap 200 us: wake p10 16.3 p50 22.0 p90 29.2 us"
        let w: Vec<&str> = line.split_whitespace().collect();
        let gap = w[w.iter().position(|&x| x == "gap").unwrap() + 1]
            .parse()
            .unwrap();
        let p50 = w[w.iter().position(|&x| x == "p50").unwrap() + 1]
            .parse()
            .unwrap();
        by_gap.entry(gap).or_default().push(p50);
    }
    by_gap
        .into_iter()
        .map(|(g, mut v)| {
            v.sort_by(f64::total_cmp);
            (g, v[v.len() / 2])
        })
        .collect()
}

/// The model's `idlelat`: a task on CPU 0 spins `gap_us`, then wakes its partner blocked on
/// CPU 1, which answers at once; the partner's wake-to-run p50 (µs) with `m`'s shallow idle
/// wakeup and the idle states given.
fn model_idle_wakeup(m: &Machine, gap_us: u64, states: Vec<IdleState>) -> f64 {
    let parent = vec![
        Op::Run(Some(Dist::Fixed((gap_us * US).max(US)))),
        Op::Send(0),
        Op::Recv(1),
    ];
    let child = vec![Op::Recv(0), Op::Run(Some(Dist::Fixed(US))), Op::Send(1)];
    let mut c = cfg(
        2,
        250,
        (300 + 60 * gap_us) * MS / 10,
        vec![
            on(task("parent", 0, SchedPolicy::Normal, parent), &[0]),
            on(task("child", 0, SchedPolicy::Normal, child), &[1]),
        ],
    );
    c.channels = vec![Channel::unbounded("p2c"), Channel::unbounded("c2p")];
    c.idle_wakeup_ns = m.idle_wakeup_ns;
    c.idle_states = states;
    let out = run(&c, "eevdf-6.19");
    let mut lat = wakeup_latencies(&out.trace, 2);
    assert!(lat.len() >= 100, "gap {gap_us}: {} wakeups", lat.len());
    lat.sort_unstable();
    lat[lat.len() / 2] as f64 / 1e3
}

/// The cost of waking an idle CPU grows with how long it has been idle: on the EPYC VM a wake
/// takes 6–8 µs after up to 150 µs of idle, ~21 µs from 200 µs (the host stops polling the
/// halted vCPU), ~33 µs after 1 ms and ~53 µs after 5 ms (`idlelat`, three runs). The model
/// with the machine's idle states is within 25 % or 4 µs of every recorded median; with its
/// one shallow cost it is not, from 200 µs on.
#[test]
fn an_idle_cpu_wakes_slower_the_longer_it_idled_on_the_epyc_vm() {
    idle_wakeups_as_recorded_on(epyc(), 200);
}

/// `m`'s model with its idle states is within 25 % or 4 µs of every recorded `idlelat` median;
/// with its one shallow cost it is not, for every gap from `deeper_from_us` on.
fn idle_wakeups_as_recorded_on(m: &Machine, deeper_from_us: u64) {
    let rec = recorded_idle_wakeups(m);
    assert!(rec.len() >= 8, "{}: {rec:?}", m.name);
    let close = |model: f64, r: f64| (model - r).abs() <= (0.25 * r).max(4.0);
    for &(gap, r) in &rec {
        let model = model_idle_wakeup(m, gap, m.idle_states.to_vec());
        assert!(
            close(model, r),
            "{}: gap {gap} µs: model {model:.1} µs, recorded {r:.1} µs",
            m.name
        );
        if gap >= deeper_from_us {
            let flat = model_idle_wakeup(m, gap, vec![]);
            assert!(
                !close(flat, r),
                "{}: gap {gap} µs: one cost {flat:.1} µs, recorded {r:.1} µs",
                m.name
            );
        }
    }
}

// The EPYC VM again on a later day (`epyc-vm-haltpoll`, `tests/fixtures/real-epyc-haltpoll/`),
// booted with the haltpoll cpuidle driver and no guest polling: an idle vCPU halts to the host
// at once, so every wakeup onto an idle CPU waits for the host (~37 µs against 8 µs), and a
// write that wakes the other CPU costs its writer 12.7 µs (2 µs before). The same mechanisms,
// fed that machine's costs, are held to its recordings.

fn haltpoll() -> &'static Machine {
    machine("epyc-vm-haltpoll").expect("epyc-vm-haltpoll is a measured machine")
}

/// The recorded pinned ping-pong pair's median round trip (ns), over both sides' cycles.
fn recorded_cycle(m: &Machine) -> u64 {
    let r = load_from(m.fixtures, "pingpong-cross");
    let cycles: Vec<u64> = r
        .top("pingpong", 2)
        .iter()
        .flat_map(|(_, f)| f.waking_cycle_ns.iter().copied())
        .collect();
    assert!(
        cycles.len() >= 10_000,
        "{}: {} cycles",
        m.name,
        cycles.len()
    );
    percentile(&cycles, 500)
}

/// Recorded on the haltpoll EPYC VM: a wakeup onto the idle CPU of the pinned pair runs 37 µs
/// after `sched_waking` (p50): δ plus the machine's `idle_wakeup_ns`, 32 µs. A side still
/// wakes its partner 4 µs after it starts, as before; the median round trip is 84 µs.
#[test]
fn recorded_ping_pong_across_cpus_on_the_haltpoll_epyc_vm() {
    pinned_pair_as_recorded_on(haltpoll(), 75 * US..=95 * US);
}

/// Model: the pinned pair as on `epyc-vm` (4 µs before the write, 6 after), with the haltpoll
/// machine's idle wakeup and idle states: its round trip rate is within 15 % of the recorded
/// median cycle's (1 / 84 µs = 11 900/s). With `epyc-vm`'s idle wakeup it is over twice that.
#[test]
fn model_ping_pong_across_idle_cpus_on_the_haltpoll_epyc_vm() {
    let m = haltpoll();
    let recorded = 1_000_000_000 / recorded_cycle(m);
    let rate = pinned_pair_rate(m.idle_wakeup_ns, m.idle_states.to_vec());
    assert!(
        rate * 100 >= recorded * 85 && rate * 100 <= recorded * 115,
        "model {rate}/s, recorded {recorded}/s"
    );
    let fast = pinned_pair_rate(epyc().idle_wakeup_ns, vec![]);
    assert!(fast > 2 * recorded, "with 3 µs: {fast}/s");
}

/// The haltpoll VM's `idlelat`: ~41 µs up to 500 µs of idle (no step at 200 µs: the guest
/// halts at once and the host does not poll for it), ~53 µs after 1 ms, ~64 µs after 5 ms.
/// The model with the machine's idle states is within 25 % or 4 µs of each median; with its
/// one shallow cost it is not, from 1 ms on.
#[test]
fn an_idle_cpu_wakes_slower_the_longer_it_idled_on_the_haltpoll_epyc_vm() {
    idle_wakeups_as_recorded_on(haltpoll(), 1_000);
}

/// Three hogs on the haltpoll VM: each within 6 % of a third of the three's time, moved 0.5–5
/// times a second, as on the other machines.
#[test]
fn recorded_three_hogs_on_the_haltpoll_epyc_vm() {
    three_hogs_as_recorded_on(haltpoll().fixtures);
}

/// Three hogs for 10 s on the EPYC VM, three times (`hogs3-long-N`, kept in the haltpoll VM's
/// fixtures; that day's boot had no cpuidle driver, which three hogs never use): over 10 s the
/// kernel still gives each hog a third of the three's time only within ±6 % (947–1050 ‰ of a
/// third recorded, shares 614–681 ‰ of a CPU), moving each 1.6–3.7 times a second.
#[test]
fn recorded_three_hogs_over_10_s_on_the_haltpoll_epyc_vm() {
    for i in 1..=3 {
        three_hogs_as_recorded_in(haltpoll().fixtures, &format!("hogs3-long-{i}"));
    }
}

/// What the recordings ran besides the workload and the recording itself (`perf`, the shell
/// and its commands, the workloads' `sh` hogs and `periodic`, the stopper threads
/// `migration/N`, which the model's active balance stands for), in runs shorter than 1 ms:
/// (runs per second per CPU, mean run in ns), over `hogs3` and `periodic` together.
fn recorded_housekeeping(m: &Machine) -> (f64, f64) {
    const NOT_HOUSEKEEPING: &[&str] = &[
        "sh",
        "perf",
        "perf-exec",
        "sleep",
        "bash",
        "python3",
        "basename",
        "periodic",
    ];
    let (mut runs, mut ns, mut cpu_s) = (0u64, 0u64, 0f64);
    for name in ["hogs3", "periodic"] {
        let r = load_from(m.fixtures, name);
        cpu_s += 2.0 * r.duration_ns() as f64 / 1e9;
        for (&pid, f) in &r.pids {
            if pid == 0
                || NOT_HOUSEKEEPING.contains(&f.comm.as_str())
                || f.comm.starts_with("migration/")
            {
                continue;
            }
            for &d in f.runs_ns.iter().filter(|&&d| d < MS) {
                runs += 1;
                ns += d;
            }
        }
    }
    (runs as f64 / cpu_s, ns as f64 / runs.max(1) as f64)
}

/// Each machine's housekeeping is what its recordings ran besides the workload (within 10 %):
/// 28 runs a second per CPU of 51 µs on the Xeon VM, 15 of 69 µs and 13 of 114 µs on the
/// EPYC VMs (kworkers, `rcu_preempt`, `ksoftirqd`, `kcompactd0`, the VM agent's threads).
#[test]
fn housekeeping_is_what_the_recordings_ran_besides() {
    for m in MACHINES {
        let (rate, mean_ns) = recorded_housekeeping(m);
        let h = m.housekeeping;
        assert!(
            (h.runs_per_s as f64 - rate).abs() <= 0.1 * rate
                && (h.run_ns as f64 - mean_ns).abs() <= 0.1 * mean_ns,
            "{}: recorded {rate:.1} runs/s per CPU of {:.0} µs; the machine says {} of {} µs",
            m.name,
            mean_ns / 1e3,
            h.runs_per_s,
            h.run_ns / 1000
        );
    }
}

/// The periodic task beside two hogs on the haltpoll VM, held as on the other two machines.
#[test]
fn periodic_wakeups_wait_for_the_tick_as_recorded_on_the_haltpoll_epyc_vm() {
    periodic_wakeups_as_recorded_on(haltpoll().fixtures);
}

/// The `switchcost` runs in a machine's metadata (`costs, run N: ...` lines), per run: (switch
/// cost = (pair − 2 × alone) / 2, the idle-target wakeup = the waking write less a plain one,
/// the busy-target one where measured), ns.
fn recorded_costs(m: &Machine) -> Vec<(f64, f64, Option<f64>)> {
    let text = metadata(m);
    // The number before `unit` in `part`.
    let num = |part: &str, unit: &str| -> f64 {
        let i = part
            .find(unit)
            .unwrap_or_else(|| panic!("{unit} in {part}"));
        part[..i]
            .split_whitespace()
            .last()
            .unwrap()
            .parse()
            .unwrap()
    };
    // A wake part's waking write less its plain write.
    let extra = |part: &str| {
        let (_, writes) = part.split_once("write waking the partner").unwrap();
        let (waking, plain) = writes.split_once(", write alone").unwrap();
        num(waking, " ns") - num(plain, " ns")
    };
    text.lines()
        .filter(|l| l.starts_with("costs, run "))
        .map(|l| {
            let parts: Vec<&str> = l.split(" | ").collect();
            let alone = num(parts[0], " ns/iter");
            let pair = num(parts[1], " ns/round-trip");
            let busy = parts.get(3).map(|p| extra(p));
            ((pair - 2.0 * alone) / 2.0, extra(parts[2]), busy)
        })
        .collect()
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (v[(n - 1) / 2] + v[n / 2]) / 2.0
}

/// Each machine's costs are its recorded medians (within 150 ns): the switch, and the remote
/// wakeup, split into the busy target's cost and the IPI's where both were measured (else
/// the idle target's cost, IPI included, with no IPI part).
#[test]
fn machine_costs_are_the_recorded_medians() {
    for m in MACHINES.iter().filter(|m| m.fixtures != "real") {
        let runs = recorded_costs(m);
        assert!(runs.len() >= 3, "{}: {} runs", m.name, runs.len());
        let near = |have: u64, want: f64| (have as f64 - want).abs() <= 150.0;
        let switch = median(runs.iter().map(|r| r.0).collect());
        let idle = median(runs.iter().map(|r| r.1).collect());
        let busy: Vec<f64> = runs.iter().filter_map(|r| r.2).collect();
        assert!(
            near(m.switch_cost_ns, switch),
            "{}: switch {switch}",
            m.name
        );
        if busy.is_empty() {
            assert!(
                near(m.wakeup_cost_ns, idle) && m.ipi_cost_ns == 0,
                "{}: wakeup {idle}",
                m.name
            );
        } else {
            let busy = median(busy);
            assert!(
                near(m.wakeup_cost_ns, busy) && near(m.ipi_cost_ns, idle - busy),
                "{}: busy {busy}, idle {idle}",
                m.name
            );
        }
    }
}

/// Recorded on the EPYC VM (`hogs-nice`, 10 s): two nice-0 hogs and a nice-5 hog, unpinned
/// on two CPUs. No placement evens out 1024 + 1024 + 335: the nice-5 hog is moved from one
/// CPU to the other 8.3 times a second (11 in an earlier recording of the same workload), the
/// nice-0 hogs 0.3–0.4 times, and the nice-0 hogs get 846 and 851 ‰ of a CPU, the nice-5 hog
/// 285 ‰ (its weight's part of two CPUs would be 281 ‰).
#[test]
fn recorded_nice_mixed_hogs_on_the_epyc_vm() {
    let r = load_from("real-epyc", "hogs-nice");
    let hogs = r.top("sh", 3);
    let (light, heavy) = (&hogs[2], &hogs[..2]);
    for (pid, f) in heavy {
        let share = r.share_permille(f);
        let mig = r.per_s_milli(f.migrations);
        assert!(
            (820..=880).contains(&share) && mig <= 1_000,
            "nice-0 hog {pid}: {share}‰ of a CPU, {mig} milli-migrations/s"
        );
    }
    let share = r.share_permille(light.1);
    let mig = r.per_s_milli(light.1.migrations);
    assert!(
        (260..=310).contains(&share) && (6_000..=14_000).contains(&mig),
        "nice-5 hog: {share}‰ of a CPU, {mig} milli-migrations/s"
    );
}

/// Model: the same three hogs with the EPYC VM's costs and housekeeping, 10 s, under CFS and
/// EEVDF at two seeds, held to the recording: each nice-0 hog 820–900 ‰ of a CPU and moved at
/// most 1.5 times a second, the nice-5 hog 240–320 ‰ and moved 5–15 times a second. What
/// moves it is `detach_tasks`' rule (a task moves only if its load, halved for each failed
/// attempt, fits the imbalance): the imbalance between 2048 and 335 is half their difference,
/// which a nice-0 hog's 1024 fits only after a failure and the nice-5 hog's 335 at once, so
/// after the first pull the nice-5 hog is the one that moves back and forth.
#[test]
fn model_nice_mixed_hogs_move_as_recorded() {
    let m = epyc();
    for variant in ["cfs-6.1", "eevdf-6.19"] {
        for seed in 1..=2 {
            let tasks = vec![
                on(hog("h0", 0), &[0, 1]),
                on(hog("h1", 0), &[0, 1]),
                on(hog("h5", 5), &[0, 1]),
            ];
            let out = run(&on_machine(m, tasks, 10_000 * MS, seed), variant);
            for pid in 1..=2 {
                let (share, mig) = model_figures(&out, pid);
                assert!(
                    (820..=900).contains(&share) && mig <= 1_500,
                    "{variant}, seed {seed}: nice-0 hog {pid}: {share}‰, {mig} milli-migrations/s"
                );
            }
            let (share, mig) = model_figures(&out, 3);
            assert!(
                (240..=320).contains(&share) && (5_000..=15_000).contains(&mig),
                "{variant}, seed {seed}: nice-5 hog: {share}‰, {mig} milli-migrations/s"
            );
        }
    }
}

/// Recorded on the EPYC VM (`hogs5`, 10 s): five nice-0 hogs on two CPUs, three on one and two
/// on the other at any time; each got 392–410 ‰ of a CPU and moved 2.2–3.8 times a second
/// (the imbalance, half of 1024, fits a hog only after a failed attempt halves its load).
#[test]
fn recorded_five_hogs_on_the_epyc_vm() {
    let r = load_from("real-epyc", "hogs5");
    for (pid, f) in r.top("sh", 5) {
        let share = r.share_permille(f);
        let mig = r.per_s_milli(f.migrations);
        assert!(
            (370..=430).contains(&share) && (1_000..=6_000).contains(&mig),
            "hog {pid}: {share}‰ of a CPU, {mig} milli-migrations/s"
        );
    }
}

/// Model: the five hogs with the EPYC VM's costs and housekeeping, 10 s, CFS and EEVDF, two
/// seeds, held as recorded: 370–430 ‰ each, 1–6 moves a second.
#[test]
fn model_five_hogs_share_and_move_as_recorded() {
    for variant in ["cfs-6.1", "eevdf-6.19"] {
        for seed in 1..=2 {
            let tasks = (0..5)
                .map(|i| on(hog(&format!("h{i}"), 0), &[0, 1]))
                .collect();
            let out = run(&on_machine(epyc(), tasks, 10_000 * MS, seed), variant);
            for pid in 1..=5 {
                let (share, mig) = model_figures(&out, pid);
                assert!(
                    (370..=430).contains(&share) && (1_000..=6_000).contains(&mig),
                    "{variant}, seed {seed}: hog {pid}: {share}‰, {mig} milli-migrations/s"
                );
            }
        }
    }
}

/// Recorded on the EPYC VM (`periodic4`, 10 s): two hogs and four periodic tasks (1 ms of CPU,
/// 4 ms of sleep). The hogs got 644 and 627 ‰ of a CPU, each periodic task 171–173 ‰; of
/// the periodic tasks' 6 855 wakeups 64 % ran within 100 µs, p90 2.39 ms, p99 4.29 ms,
/// longest 7.7 ms; no task moved more than 0.6 times a second. Model (`eevdf-6.19`, the
/// machine's costs and housekeeping, seeds 1–2): hogs 659 / 662 ‰, periodic 167–168 ‰,
/// 62–63 % within 100 µs, p90 2.6–2.9 ms, p99 4.0 ms, no move. Held: hogs 600–690 ‰, periodic
/// 160–185 ‰, within 100 µs 55–72 %, p90 2–3.2 ms, p99 at most 5 ms, at most a move a second.
#[test]
fn two_hogs_and_four_periodic_tasks_as_recorded_on_the_epyc_vm() {
    let within_100us = |w: &[u64]| w.iter().filter(|&&d| d <= 100 * US).count() * 100 / w.len();
    let pct = |w: &[u64], q: usize| w[(w.len() - 1) * q / 1000];
    let check = |who: &str, hogs: &[(u64, u64)], per: &[(u64, u64)], waits: &[u64]| {
        for &(share, mig) in hogs {
            assert!(
                (600..=690).contains(&share) && mig <= 1_000,
                "{who}: hog {share}‰, {mig} milli-migrations/s"
            );
        }
        for &(share, mig) in per {
            assert!(
                (160..=185).contains(&share) && mig <= 1_000,
                "{who}: periodic task {share}‰, {mig} milli-migrations/s"
            );
        }
        let (w, p90, p99) = (within_100us(waits), pct(waits, 900), pct(waits, 990));
        assert!(
            waits.len() > 5_000
                && (55..=72).contains(&w)
                && (2 * MS..=3_200 * US).contains(&p90)
                && p99 <= 5 * MS,
            "{who}: {} wakeups, {w} % within 100 µs, p90 {p90}, p99 {p99}",
            waits.len()
        );
    };
    let r = load_from("real-epyc", "periodic4");
    let figures = |comm: &str, n: usize| -> Vec<(u64, u64)> {
        r.top(comm, n)
            .iter()
            .map(|(_, f)| (r.share_permille(f), r.per_s_milli(f.migrations)))
            .collect()
    };
    let waits = sorted(
        r.top("periodic", 4)
            .iter()
            .flat_map(|(_, f)| f.wake_to_run_ns.iter().copied())
            .collect(),
    );
    check(
        "recorded",
        &figures("sh", 2),
        &figures("periodic", 4),
        &waits,
    );

    let every_4ms = |comm: &str| {
        task(
            comm,
            0,
            SchedPolicy::Normal,
            vec![
                Op::Run(Some(Dist::Fixed(MS))),
                Op::Sleep(Dist::Fixed(4 * MS)),
            ],
        )
    };
    for seed in 1..=2 {
        let mut tasks = vec![on(hog("a", 0), &[0, 1]), on(hog("b", 0), &[0, 1])];
        tasks.extend((0..4).map(|i| on(every_4ms(&format!("p{i}")), &[0, 1])));
        let out = run(&on_machine(epyc(), tasks, 10_000 * MS, seed), "eevdf-6.19");
        let mut waking: [Option<u64>; 7] = [None; 7];
        let mut waits = vec![];
        for e in &out.trace.events {
            match e.kind {
                EventKind::Waking { pid, .. } if (3..=6).contains(&pid) => {
                    waking[pid as usize] = Some(e.t_ns);
                }
                EventKind::Switch { next_pid, .. } if (3..=6).contains(&next_pid) => {
                    if let Some(t) = waking[next_pid as usize].take() {
                        waits.push(e.t_ns - t);
                    }
                }
                _ => {}
            }
        }
        let hogs: Vec<_> = (1..=2).map(|p| model_figures(&out, p)).collect();
        let per: Vec<_> = (3..=6).map(|p| model_figures(&out, p)).collect();
        check(&format!("model, seed {seed}"), &hogs, &per, &sorted(waits));
    }
}
