//! The seed experiments: every preset's table output is checked in (tests/golden/presets/,
//! re-bless with SCHEDLAB_BLESS=1), and each asserts the direction its LKML thread reports.
//! Where the model does not reproduce a thread (ARCHITECTURE.md, deviations), the test pins
//! what the workload's arithmetic implies instead and says so.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use schedlab_report::workload as wl;
use schedlab_scenario::presets::{preset, presets};
use schedlab_scenario::{Role, Scenario, Workload};
use schedlab_sim::{simulate, EventKind, Output, Pid, PrevState};

/// A preset's scenario and one output per variant.
type Runs = (Scenario, Vec<Output>);

/// Each preset is simulated once per test binary.
fn run(name: &str) -> Runs {
    static CACHE: OnceLock<Mutex<BTreeMap<String, Runs>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    if let Some(hit) = cache.lock().unwrap().get(name) {
        return hit.clone();
    }
    let s = preset(name)
        .unwrap_or_else(|| panic!("no preset {name}"))
        .scenario();
    let outs = simulate_variants(&s);
    cache
        .lock()
        .unwrap()
        .insert(name.to_string(), (s.clone(), outs.clone()));
    (s, outs)
}

/// One output per variant of `s`.
fn simulate_variants(s: &Scenario) -> Vec<Output> {
    let cfg = s.sim_config();
    s.variants()
        .iter()
        .map(|v| simulate(&cfg, v).unwrap())
        .collect()
}

fn variant<'a>(outs: &'a [Output], name: &str) -> &'a Output {
    outs.iter()
        .find(|o| o.variant == name)
        .unwrap_or_else(|| panic!("no variant {name}"))
}

fn role_pids(s: &Scenario, o: &Output, role: Role) -> Vec<Pid> {
    schedlab_report::figures::role_pids(&s.workloads(), o, &[role])
}

fn preempt_ratio(o: &Output) -> f64 {
    let (n, d) = o.cpus.iter().fold((0, 0), |(n, d), c| {
        (n + c.need_preempt_count, d + c.check_preempt_count)
    });
    n as f64 / d.max(1) as f64
}

#[test]
fn every_preset_matches_its_golden_table() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/presets");
    let mut failures = vec![];
    for p in presets() {
        let (s, outs) = run(p.name);
        let text = schedlab_cli::table_text(&s, &outs, true, false);
        let path = dir.join(format!("{}.txt", p.name));
        if std::env::var_os("SCHEDLAB_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(want) => {
                let line = want
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                failures.push(format!(
                    "{}: line {}\n  want: {}\n  got:  {}",
                    p.name,
                    line + 1,
                    want.lines().nth(line).unwrap_or(""),
                    text.lines().nth(line).unwrap_or("")
                ));
            }
            Err(_) => failures.push(format!(
                "{} is missing: bless with SCHEDLAB_BLESS=1",
                path.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Seed 002: the SCHED_IDLE hog runs ~4 ms every ~1.37 s before the patch, ~1 ms every ~341 ms
/// with it.
#[test]
fn sched_idle_runs_and_waits() {
    let (_, outs) = run("sched-idle");
    for (v, run_ms, wait_ms) in [("cfs-5.14", 4.0, 1365.3), ("cfs-6.1", 1.0, 341.3)] {
        let o = variant(&outs, v);
        let st = o.tasks[1];
        // Runs: runtime / times it got the CPU; waits: total delay / the same count.
        let runs = st.sum_exec_runtime_ns as f64 / st.pcount as f64 / 1e6;
        let (_, waits): (u64, u64) = (st.pcount, st.run_delay_ns);
        let avg_wait = waits as f64 / st.pcount as f64 / 1e6;
        assert!(
            (runs - run_ms).abs() < 0.1 * run_ms,
            "{v}: idle hog runs {runs:.3} ms"
        );
        // The first wait is shorter (it starts from placement), so the average sits below.
        assert!(
            avg_wait < wait_ms * 1.02 && avg_wait > wait_ms * 0.5,
            "{v}: idle hog waits {avg_wait:.1} ms"
        );
    }
}

/// Seed 000: the wakeup-preemption success ratio under hackbench is far above CFS's on EEVDF
/// without RUN_TO_PARITY (80% vs 20%), and RUN_TO_PARITY brings it down (23%). The thread's
/// hackbench is also faster with it (101 s vs 117 s, 14% less), which needs the cost of the
/// extra switches: the preset charges the measured `switch_cost_ns` (960 ns), and
/// RUN_TO_PARITY, which switches less than half as often, finishes first. Without that cost
/// both variants do the same CPU work on always-busy CPUs and finish within 2% of each other,
/// so the test asks for more than 2% at the preset's 300 loops, and for the direction at
/// 200, where the start (about 70 ms after main() wakes all 320 threads, in which most
/// threads are runnable, wakeups are few and both variants switch alike) is a larger part of
/// the run (ARCHITECTURE.md, "Compared with the machine"). The thread's RUN_TO_PARITY was its
/// own patch (WAKEUP_PARITY): held to the same direction (39.7 % against NO_RUN_TO_PARITY's
/// 70.8 %, 506 ms against 541).
/// hackbench's run has no random input, so the seed does not move it; the run length does.
#[test]
fn hackbench_wakeup_preemption_ratio() {
    let (s, outs) = run("hackbench");
    let cfs = preempt_ratio(variant(&outs, "cfs-6.1"));
    let no_rtp = preempt_ratio(variant(&outs, "eevdf-6.6:NO_RUN_TO_PARITY"));
    let rtp = preempt_ratio(variant(&outs, "eevdf-6.6"));
    let dl = preempt_ratio(variant(&outs, "eevdf-6.6:WAKEUP_DEADLINE"));
    let wp = preempt_ratio(variant(&outs, WAKEUP_PARITY));
    let msg = format!("ratios: cfs {cfs:.3}, NO_RUN_TO_PARITY {no_rtp:.3}, RUN_TO_PARITY {rtp:.3}, WAKEUP_DEADLINE {dl:.3}, WAKEUP_PARITY {wp:.3}");
    // The thread's ratio is 4× (80 vs 20%); the model's start keeps CFS's low while the
    // runqueues are crowded (ARCHITECTURE.md), so the bound is the direction with a margin,
    // not the thread's size.
    assert!(
        no_rtp > 1.4 * cfs,
        "EEVDF without RUN_TO_PARITY should preempt far more than CFS; {msg}"
    );
    assert!(
        rtp < 0.75 * no_rtp,
        "RUN_TO_PARITY should bring the ratio down; {msg}"
    );
    assert!(dl <= rtp, "WAKEUP_DEADLINE only removes preemptions; {msg}");
    // The thread's own RUN_TO_PARITY (23 % against 80 %).
    assert!(
        wp < 0.75 * no_rtp,
        "WAKEUP_PARITY should bring the ratio down; {msg}"
    );
    let (t_no, t_rtp) = (
        hackbench_time(&s, variant(&outs, "eevdf-6.6:NO_RUN_TO_PARITY")),
        hackbench_time(&s, variant(&outs, "eevdf-6.6")),
    );
    assert!(
        t_rtp * 102 < t_no * 100,
        "RUN_TO_PARITY should finish first by more than 2% (the thread: 101 s vs 117 s): {t_rtp} vs {t_no} ns"
    );
    let t_wp = hackbench_time(&s, variant(&outs, WAKEUP_PARITY));
    assert!(
        t_wp * 102 < t_no * 100,
        "the thread's RUN_TO_PARITY (WAKEUP_PARITY) should finish first by more than 2% (the thread: 101 s vs 117 s): {t_wp} vs {t_no} ns"
    );
    let loops = 200;
    let json = preset("hackbench")
        .unwrap()
        .json
        .replace("\"loops\": 300", &format!("\"loops\": {loops}"));
    let s = Scenario::from_json(&json).unwrap();
    let cfg = s.sim_config();
    let time = |v: &str| {
        let v = s.variants().iter().find(|x| x.name == v).unwrap();
        hackbench_time(&s, &simulate(&cfg, v).unwrap())
    };
    let (t_no, t_rtp) = (time("eevdf-6.6:NO_RUN_TO_PARITY"), time("eevdf-6.6"));
    assert!(
        t_rtp < t_no,
        "{loops} loops: RUN_TO_PARITY should finish first: {t_rtp} vs {t_no} ns"
    );
}

/// The thread's own RUN_TO_PARITY (Chen Yu's form of Mike Galbraith's patch): a wakeup never
/// preempts an eligible curr, and the pick at `schedule()` protects nothing.
const WAKEUP_PARITY: &str = "eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY";

/// hackbench's `Time:`: from the first wakeup to the last sender's or receiver's exit.
fn hackbench_time(s: &Scenario, o: &Output) -> u64 {
    let all: Vec<Pid> = [Role::Sender, Role::Receiver]
        .iter()
        .flat_map(|r| role_pids(s, o, *r))
        .collect();
    wl::hackbench_time_ns(&o.trace, &all).expect("hackbench finishes")
}

/// schbench's figures per variant, as its report gives them: (wakeup p50 / p90 / p99 / p99.9,
/// request p50 / p90 / p99, requests a second), µs; with one wakeup sample per request
/// (`msg_and_wait`), as the thread's counts show, checked within 2 %, and no request shorter
/// than its `usleep` and its math.
fn schbench_figures(s: &Scenario, outs: &[Output]) -> Vec<([u64; 4], [u64; 3], f64)> {
    let Some(Workload::Schbench(params)) = s.workloads().into_iter().map(|i| i.params).next()
    else {
        panic!("no schbench in {}", s.name)
    };
    outs.iter()
        .map(|o| {
            let w = role_pids(s, o, Role::Worker);
            let m = role_pids(s, o, Role::MessageThread);
            let sb = wl::schbench_samples(&o.trace, &w, &m, params.sleep_ns());
            let (n, r) = (sb.wakeup_ns.len() as f64, sb.done_ns.len() as f64);
            assert!(
                (n - r).abs() <= 0.02 * r,
                "{n} wakeup samples, {r} requests"
            );
            let shortest = sb.request_ns.iter().min().copied().unwrap_or(0);
            assert!(
                shortest >= params.sleep_ns() + params.request_ns(),
                "a request of {shortest} ns, shorter than its usleep and math"
            );
            let p = wl::latency_percentiles_us(&sb.wakeup_ns);
            let q = wl::latency_percentiles_us(&sb.request_ns);
            let rps = r / (o.trace.end_ns as f64 / 1e9);
            ([p[0], p[1], p[2], p[3]], [q[0], q[1], q[2]], rps)
        })
        .collect()
}

/// Within a factor of 2 of `thread` (and not zero).
fn within_twice(what: &str, model: f64, thread: f64) {
    assert!(
        model >= thread / 2.0 && model <= thread * 2.0,
        "{what}: model {model:.0}, thread {thread:.0} (within a factor of 2)"
    );
}

/// Seed 000's schbench run: no real difference in wakeup latency or RPS with RUN_TO_PARITY
/// (the thread: p90 3772 µs in both, p99 7448 / 7496 µs, one wakeup sample per request:
/// 941 339 and 941 598). The model at the preset's shape (`-m 4 -t 16` on 32 CPUs), with
/// schbench's samples: p90 3172 / 3164 µs, p99 3988 / 3980 µs, 5 365 wakeup samples for 5 299
/// requests (the thread's own RUN_TO_PARITY, WAKEUP_PARITY: 3164 / 3980 µs, as the merged
/// one). Held: each RUN_TO_PARITY's p90 within 25 % of NO_RUN_TO_PARITY's and all within 25 % of the thread's, p99
/// within 50 % of each other (the thread's p99 is nearly twice the model's: ARCHITECTURE.md,
/// deviation 12), RPS within 10 %, a wakeup sample per request within 2 %.
#[test]
fn schbench_no_real_difference() {
    let (s, outs) = run("schbench");
    let figures = schbench_figures(&s, &outs);
    assert_eq!(
        figures.len(),
        3,
        "NO_RUN_TO_PARITY, RUN_TO_PARITY, WAKEUP_PARITY"
    );
    let (p90, p99) = (
        |f: &([u64; 4], _, _)| f.0[1] as f64,
        |f: &([u64; 4], _, _)| f.0[2] as f64,
    );
    for f in &figures {
        assert!(
            (p90(f) - 3772.0).abs() <= 0.25 * 3772.0,
            "p90 wakeup latency within 25 % of the thread's 3772 µs: {figures:?}"
        );
    }
    // Against NO_RUN_TO_PARITY: the merged RUN_TO_PARITY and the thread's own.
    let a = &figures[0];
    for b in &figures[1..] {
        assert!(
            (p90(a) - p90(b)).abs() <= 0.25 * p90(a).max(p90(b)),
            "p90 wakeup latency should be close: {figures:?}"
        );
        assert!(
            (a.2 - b.2).abs() / a.2 < 0.1,
            "RPS should be within 10%: {figures:?}"
        );
        assert!(
            (p99(a) - p99(b)).abs() <= 0.5 * p99(a).max(p99(b)) + 5.0,
            "p99 wakeup latency should be close: {figures:?}"
        );
    }
}

/// Seed 000's schbench at the thread's own shape (`scenarios/schbench-seed000.json`: `-m 14 -t
/// 16` on 112 CPUs, two LLCs, SMT 2, schbench v1.0's per-CPU lock on as the thread ran it),
/// its math the thread's fastest request less the `usleep`. Everything else is predicted.
/// Model (seed 1, 2 s; NO_RUN_TO_PARITY / RUN_TO_PARITY) against the thread: wakeup p90 3 644
/// / 3 668 µs (3 772 / 3 772), p99 4 012 / 3 996 (7 448 / 7 496), p99.9 7 848 / 7 624 (7 976 /
/// 9 296); request p50 23 968 / 23 968 (23 264 / 23 072), p90 24 032 / 24 032 (32 672 /
/// 32 096), p99 35 008 / 29 280 (52 288 / 53 568); 10 758 / 10 678 requests/s (9 416 /
/// 9 432); the thread's own RUN_TO_PARITY (WAKEUP_PARITY, held to the thread's RUN_TO_PARITY
/// figures as the merged one is): p90 3 692, p99 4 012, p99.9 7 800 µs, request p50 23 776,
/// p90 24 032, p99 33 344 µs. Held: wakeup p90, p99.9, request p50 and throughput within 20 % of the thread's,
/// wakeup p99 and request p90 / p99 within a factor of 2 (the model's tails are short:
/// ARCHITECTURE.md, deviation 12); the two variants' wakeup p90 within 10 % of each other and
/// their throughput within 5 %, as the thread found no real difference.
#[test]
fn schbench_at_the_thread_s_shape() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/schbench-seed000.json");
    let s = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    let figures = schbench_figures(&s, &simulate_variants(&s));
    assert_eq!(
        figures.len(),
        3,
        "NO_RUN_TO_PARITY, RUN_TO_PARITY, WAKEUP_PARITY"
    );
    // NO_RUN_TO_PARITY, RUN_TO_PARITY (the thread's own: WAKEUP_PARITY; the merged one beside
    // it is held to the same figures).
    let thread = [
        (
            [4.0, 3772.0, 7448.0, 7976.0],
            [23264.0, 32672.0, 52288.0],
            9416.0,
        ),
        (
            [4.0, 3772.0, 7496.0, 9296.0],
            [23072.0, 32096.0, 53568.0],
            9432.0,
        ),
    ];
    let near = |what: &str, model: f64, thread: f64, tol: f64| {
        assert!(
            (model - thread).abs() <= tol * thread,
            "{what}: model {model:.0}, thread {thread:.0} (within {:.0} %): {figures:?}",
            tol * 100.0
        );
    };
    for (f, t) in figures.iter().zip([&thread[0], &thread[1], &thread[1]]) {
        near("wakeup p90", f.0[1] as f64, t.0[1], 0.2);
        near("wakeup p99.9", f.0[3] as f64, t.0[3], 0.2);
        near("request p50", f.1[0] as f64, t.1[0], 0.2);
        near("requests/s", f.2, t.2, 0.2);
        within_twice("wakeup p99", f.0[2] as f64, t.0[2]);
        within_twice("request p90", f.1[1] as f64, t.1[1]);
        within_twice("request p99", f.1[2] as f64, t.1[2]);
    }
    let a = &figures[0];
    for b in &figures[1..] {
        near(
            "RUN_TO_PARITY's wakeup p90",
            b.0[1] as f64,
            a.0[1] as f64,
            0.1,
        );
        near("RUN_TO_PARITY's requests/s", b.2, a.2, 0.05);
    }
}

/// Seed 003 (Mike Galbraith, May 2024: `perf sched latency` of 5 minutes of chrome playing a
/// 1080p clip against massive_intr on 8 CPUs). The expectations are the thread's tables
/// (sum delay / switches, as perf's avg): 6.1.91-cfs against 6.1.91-eevdf (the model's
/// eevdf-6.6) and +tweak (RESCHED_CURR_INELIGIBLE). The kworkers' rate and cost and the video
/// threads' rates and costs are inputs from the CFS table, so they check nothing here; the EEVDF
/// figures and the differences do. Directions everywhere; magnitudes within 2× where the
/// model reproduces them (ARCHITECTURE.md, deviation 12, says which and why not the others).
#[test]
fn video_vs_massive_intr() {
    let (_, outs) = run("video-massive-intr");
    // (switches, avg delay ns) of the threads whose comm starts with `comm`, as perf merges.
    let fig = |v: &str, comm: &str| {
        let rows = schedlab_report::latency::latency_rows(&variant(&outs, v).trace, true);
        let (n, sum) = rows
            .iter()
            .filter(|r| r.comm.starts_with(comm))
            .fold((0, 0), |(n, s), r| (n + r.count, s + r.delay_sum_ns));
        (n as f64, sum as f64 / n.max(1) as f64)
    };
    let (cfs, eevdf, tweak) = ("cfs-6.1", "eevdf-6.6", "eevdf-6.6:RESCHED_CURR_INELIGIBLE");
    let (mi_sw, mi_delay) = (|v| fig(v, "massive_intr").0, |v| fig(v, "massive_intr").1);
    let dav1d = |v| fig(v, "dav1d-worker").1;
    let kworker_runs = |v| fig(v, "kworker").0;
    let msg = format!(
        "massive_intr switches {:.0} / {:.0} / {:.0}, avg delay {:.0} / {:.0} / {:.0} ns; \
         dav1d-worker avg delay {:.0} / {:.0} / {:.0} ns; kworker runs {:.0} / {:.0} (cfs / eevdf / +tweak)",
        mi_sw(cfs),
        mi_sw(eevdf),
        mi_sw(tweak),
        mi_delay(cfs),
        mi_delay(eevdf),
        mi_delay(tweak),
        dav1d(cfs),
        dav1d(eevdf),
        dav1d(tweak),
        kworker_runs(cfs),
        kworker_runs(eevdf),
    );
    let within_2x = |model: f64, thread: f64| model >= thread / 2.0 && model <= thread * 2.0;

    // massive_intr's switches: 11 581 161 → 6 127 207, −47 %. Reproduced within 2× of the drop.
    let thread_drop = 1.0 - 6_127_207.0 / 11_581_161.0;
    let drop = 1.0 - mi_sw(eevdf) / mi_sw(cfs);
    assert!(drop > 0.0 && within_2x(drop, thread_drop), "{msg}");
    // The per-CPU kworkers run less often: 1 647 598 → 616 547 (kworker/5 and /6, −63 %);
    // direction only (the model's interrupts keep their rate, see deviation 12).
    assert!(kworker_runs(eevdf) < kworker_runs(cfs), "{msg}");

    // massive_intr's average delay rises: 25.6 → 34.0 µs (+33 %). Direction, and each
    // kernel's delay within 2× of the thread's.
    assert!(mi_delay(eevdf) > mi_delay(cfs), "{msg}");
    assert!(
        within_2x(mi_delay(cfs), 296_184.363e6 / 11_581_161.0),
        "{msg}"
    );
    assert!(
        within_2x(mi_delay(eevdf), 208_289.732e6 / 6_127_207.0),
        "{msg}"
    );

    // The dav1d workers' average delay rises: 89.0 → 261.6 µs (2.9×). Direction, and EEVDF's
    // delay within 2× of the thread's (the model's CFS delay is 2–3× short, so its ratio is
    // larger than the thread's).
    assert!(dav1d(eevdf) > 2.0 * dav1d(cfs), "{msg}");
    assert!(within_2x(dav1d(eevdf), 130_584.659e6 / 499_175.0), "{msg}");

    // +tweak against eevdf: massive_intr switches 6 127 207 → 6 284 089 (+2.6 %), dav1d-worker
    // avg delay 261.6 → 240.3 µs (−8 %). Directions only (the model's shifts are larger).
    assert!(mi_sw(tweak) > mi_sw(eevdf), "{msg}");
    assert!(dav1d(tweak) < dav1d(eevdf), "{msg}");
}

/// Seed 004, cross-core: the thread measured 60% and 47% utilisation for tbench and
/// tbench_srv on their own CPUs; the preset is calibrated to that and the model must keep it.
#[test]
fn tbench_cross_core_utilisation() {
    let (s, outs) = run("tbench-cross");
    for o in &outs {
        let secs = o.trace.end_ns as f64;
        let c = wl::cpu_time_ns(&o.trace, &role_pids(&s, o, Role::Client)) as f64 / secs;
        let v = wl::cpu_time_ns(&o.trace, &role_pids(&s, o, Role::Server)) as f64 / secs;
        assert!(
            (c - 0.60).abs() < 0.03 && (v - 0.47).abs() < 0.03,
            "{}: client {c:.3}, server {v:.3}",
            o.variant
        );
    }
}

/// Seed 004, stacked: the thread saw CFS split the pair 50/50, EEVDF without DELAY_DEQUEUE
/// 56/44 and with it 52/49. The preset's costs are real tbench's on the EPYC VM, where the
/// split follows who waits: the side whose read waits pays the read's wait path
/// (`crates/sim/tests/real_tbench.rs` holds the model to that recording). On CFS and with
/// DELAY_DEQUEUE the woken server preempts the client at most requests, so the server does
/// most of the waiting and the split is about even, as in the thread. Without DELAY_DEQUEUE
/// neither wakeup preempts and both sides wait at every round trip, so the client's share
/// rises, in the thread's direction (the model 52.2 %, the thread 56 %).
#[test]
fn tbench_stacked_split_follows_who_waits() {
    let (s, outs) = run("tbench-stacked");
    // The client's share of the pair's CPU, and its blocks per reply it read.
    let measure = |v: &str| {
        let o = variant(&outs, v);
        let client = role_pids(&s, o, Role::Client);
        let c = wl::cpu_time_ns(&o.trace, &client) as f64;
        let v = wl::cpu_time_ns(&o.trace, &role_pids(&s, o, Role::Server)) as f64;
        let replies: u64 = client.iter().map(|&p| o.tasks[p as usize - 1].reads).sum();
        let blocks = wl::completions(&o.trace, &client) as f64 / replies as f64;
        (c / (c + v), blocks)
    };
    let (cfs, cfs_blocks) = measure("cfs-6.1");
    let (dd, dd_blocks) = measure("eevdf-6.12");
    let (no_dd, no_dd_blocks) = measure("eevdf-6.12:NO_DELAY_DEQUEUE");
    let all = format!(
        "client share / blocks per reply: CFS {cfs:.3} / {cfs_blocks:.2}, DELAY_DEQUEUE {dd:.3} \
         / {dd_blocks:.2}, NO_DELAY_DEQUEUE {no_dd:.3} / {no_dd_blocks:.2}"
    );
    // The thread's CFS 50/50 and DELAY_DEQUEUE 52/49, within 1.5 points.
    assert!((cfs - 0.50).abs() < 0.015, "{all}");
    assert!((dd - 0.515).abs() < 0.015, "{all}");
    // Its direction: the client's share is largest without DELAY_DEQUEUE.
    assert!(no_dd > cfs + 0.015 && no_dd > dd + 0.015, "{all}");
    // Who waits: the client only sometimes with the preempting wakeups, always without.
    assert!(
        cfs_blocks < 0.5 && dd_blocks < 0.5 && no_dd_blocks > 0.95,
        "{all}"
    );
}

/// The tbench-like pair of `scripts/workloads/tbenchpair.c` (the client works 48 µs, writes,
/// works 18 µs and reads; the server reads, works 52 µs and writes; each pass over its own
/// 256 KiB) with the measured cache-warmth cost, on the machine's 2 CPUs and HZ=250. A
/// strictly alternating pair of fixed costs splits the same whoever preempts whom: 55.6-55.7 %
/// on Linux 6.18 (tests/fixtures/real/warmth-tbench.txt) and in the model.
const TBENCH_LIKE_PAIR: &str = r#"{
  "version": 1,
  "name": "tbench-like pair, stacked",
  "cpus": 2,
  "hz": 250,
  "duration_ms": 2000,
  "seed": 1,
  "cache": "measured",
  "variants": ["cfs-6.1", "eevdf-6.12:NO_DELAY_DEQUEUE", "eevdf-6.12", "eevdf-6.19"],
  "workloads": [
    {"pipe_pair": {"pairs": 1, "client_us": 48, "client_post_us": 18, "server_us": 52, "placement": "stacked"}}
  ]
}"#;

#[test]
fn tbench_like_pair_splits_as_on_the_machine() {
    let s = Scenario::from_json(TBENCH_LIKE_PAIR).unwrap();
    let cfg = s.sim_config();
    // By hand from the measured ramp: the server resumes after 66 µs of the client, the client
    // after 52 µs of the server plus the server's cost.
    let cost = schedlab_sim::MEASURED_CACHE_COST;
    let c_server = cost.ramp(66_000);
    let c_client = cost.ramp(52_000 + c_server);
    let want = (66_000 + c_client) as f64 / (118_000 + c_client + c_server) as f64;
    assert!((want - 0.5559).abs() < 0.0002, "by hand {want:.4}");
    for v in s.variants() {
        let o = simulate(&cfg, v).unwrap();
        let c = wl::cpu_time_ns(&o.trace, &role_pids(&s, &o, Role::Client)) as f64;
        let v = wl::cpu_time_ns(&o.trace, &role_pids(&s, &o, Role::Server)) as f64;
        let split = c / (c + v);
        assert!(
            (split - want).abs() < 0.001,
            "{}: client share {split:.4}, by hand {want:.4}",
            o.variant
        );
        // The recording: 55.6-55.7 % on Linux 6.18.
        assert!(
            (0.551..=0.562).contains(&split),
            "{}: client share {split:.4} against the machine's 55.6-55.7 %",
            o.variant
        );
    }
}

/// The tbench-like pair, who preempts whom, against the machine: on Linux 6.18 (2 CPUs, HZ=250;
/// tests/fixtures/real/warmth-tbench.txt) the woken server preempts the client at 95.3, 96.6
/// and 96.3 % of round trips (the client's involuntary switches per round trip; `perf sched`
/// shows the switch-out in state R 1-2 us after the client's `sched_waking` of the server).
/// The rule behind it (fair.c, 6.12 to 6.19): the server blocks ineligible, so DELAY_DEQUEUE
/// keeps it queued, and the client's write wakes it through `ttwu_runnable` →
/// `enqueue_task_fair(ENQUEUE_DELAYED)` → `requeue_delayed_entity`, which takes the server's
/// lag with no `update_curr` first: against the client's vruntime as of its last accounting,
/// before the ~66 us it has run since. `check_preempt_wakeup_fair`'s `update_curr` then
/// charges those 66 us, which puts the client past the queue's average: ineligible, no
/// RUN_TO_PARITY protection, and the pick returns the server. Tolerance: 2 points below the
/// three runs' range; above it up to 100 %, since the machine's client also blocks at 3.5-4.9 %
/// of round trips (its nvcsw: the reply read finds the pipe empty), which the model's client,
/// preempted or resched by the tick before its read at every round trip, never does.
#[test]
fn tbench_like_pair_server_preempts_the_client_as_on_the_machine() {
    let s = Scenario::from_json(TBENCH_LIKE_PAIR).unwrap();
    let cfg = s.sim_config();
    assert_eq!((cfg.cpus, cfg.hz), (2, 250), "the machine's CPUs and HZ");
    let mut seen = vec![];
    for v in s.variants() {
        let o = simulate(&cfg, v).unwrap();
        let client = role_pids(&s, &o, Role::Client);
        let server = role_pids(&s, &o, Role::Server);
        let preempted = o
            .trace
            .events
            .iter()
            .filter(|e| {
                matches!(e.kind, EventKind::Switch { prev_pid, prev_state: PrevState::Running, .. }
                    if client.contains(&prev_pid))
            })
            .count() as f64;
        let round_trips = wl::completions(&o.trace, &server) as f64;
        let share = preempted / round_trips;
        let name = o.variant.as_str();
        seen.push(name.to_string());
        match name {
            "eevdf-6.12" | "eevdf-6.19" => assert!(
                share >= 0.933,
                "{name}: the server preempted the client at {:.1} % of {round_trips} round \
                 trips; the machine 95.3-96.6 %",
                share * 100.0
            ),
            // Without DELAY_DEQUEUE the server wakes through enqueue_entity, whose update_curr
            // comes before place_entity: nothing is stale, and RUN_TO_PARITY keeps the client
            // whenever it is still eligible.
            "eevdf-6.12:NO_DELAY_DEQUEUE" => assert!(
                share < 0.6,
                "{name}: {:.1} % without the delayed requeue",
                share * 100.0
            ),
            // CFS: the woken server's vruntime is far enough behind at every request.
            _ => assert!(share > 0.99, "{name}: {:.1} %", share * 100.0),
        }
    }
    assert_eq!(
        seen,
        [
            "cfs-6.1",
            "eevdf-6.12:NO_DELAY_DEQUEUE",
            "eevdf-6.12",
            "eevdf-6.19"
        ]
    );
}

/// Seed 004's fio grid, the thread's job (libaio, iodepth 32, 8 jobs, random 4 KiB direct
/// writes) with this machine's measured costs: each I/O costs the job 24 µs, its completion
/// interrupt 5.2 µs and the dio kworker 13 µs, 42.2 µs of CPU in all, so 8 jobs keeping 256
/// I/Os in flight at a 280 µs device saturate the 8 CPUs: 8 / 42.2 µs = 189 574 I/Os per second
/// whatever the scheduler does. The thread's effects (DELAY_DEQUEUE −12 to −14 %,
/// WAKEUP_PREEMPTION +18 to +21 %) need idle CPUs to place a woken job on, which this machine's
/// costs leave none of: NOT reproduced (ARCHITECTURE.md, deviation 12). Pinned here: the
/// saturated rate, and the four variants within 0.1 % of each other.
#[test]
fn fio_randwrite_saturates_the_cpus_with_the_measured_costs() {
    let (s, outs) = run("fio-grid");
    let ios = |v: &str| -> u64 {
        let o = variant(&outs, v);
        role_pids(&s, o, Role::Job)
            .iter()
            .map(|&p| o.tasks[p as usize - 1].io_completions)
            .sum()
    };
    let all = [
        "eevdf-6.12",
        "eevdf-6.12:NO_DELAY_DEQUEUE",
        "eevdf-6.12:NO_WAKEUP_PREEMPTION",
        "eevdf-6.12:NO_WAKEUP_PREEMPTION,NO_DELAY_DEQUEUE",
    ];
    let n: Vec<u64> = all.iter().map(|v| ios(v)).collect();
    let msg = format!("I/Os in 1 s: WP+DD, WP, DD, neither: {n:?}");
    // 8 CPUs × 1 s / (24 + 5.2 + 13) µs.
    let saturated = 8_000_000_000u64 * 10 / 422_000;
    for &x in &n {
        assert!(x.abs_diff(saturated) * 100 <= saturated, "{msg}");
        assert!(x.abs_diff(n[0]) * 1000 <= n[0], "{msg}");
    }
    // Every CPU's IRQ time is its share of the completions' interrupts.
    let o = variant(&outs, "eevdf-6.12");
    let irq: u64 = o.cpus.iter().map(|c| c.irq_time_ns).sum();
    assert!(
        irq.abs_diff(n[0] * 5_200) <= 8 * 32 * 5_200,
        "{irq} ns of IRQ time"
    );
}

/// The histograms' axis labels never overlap each other or leave the chart, for every preset, on
/// the page's 420 × 200 canvas, linear and log. Label widths are estimated generously (0.6 of
/// the font size per character, more than sans-serif digits take).
#[test]
fn histogram_labels_do_not_overlap() {
    use schedlab_report::plot::{histogram_svg, shared_histograms};
    use schedlab_report::wakeup::{sched_delays_ns, wakeup_latencies_ns};
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let i = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[i..].split('"').next()?.parse().ok()
    };
    for p in presets() {
        let (_, outs) = run(p.name);
        let wake: Vec<Vec<u64>> = outs
            .iter()
            .map(|o| wakeup_latencies_ns(&o.trace, None))
            .collect();
        let delay: Vec<Vec<u64>> = outs.iter().map(|o| sched_delays_ns(&o.trace)).collect();
        for samples in [&wake, &delay] {
            let refs: Vec<&[u64]> = samples.iter().map(Vec::as_slice).collect();
            for log in [false, true] {
                for h in shared_histograms(&refs, 40, log) {
                    let svg = histogram_svg(&h, "t", 420, 200).unwrap();
                    // (x, y, half width or width, anchor) of every label.
                    let mut xs: Vec<(f64, f64)> = vec![];
                    for part in svg.split("<text").skip(1) {
                        let (tag, rest) = part.split_once('>').unwrap();
                        let text = rest.split("</text>").next().unwrap().trim();
                        let (x, y, size) = (
                            attr(tag, "x").unwrap(),
                            attr(tag, "y").unwrap(),
                            attr(tag, "font-size").unwrap(),
                        );
                        let w = text.chars().count() as f64 * size * 0.6;
                        if tag.contains("text-anchor=\"end\"") {
                            assert!(
                                x - w >= 0.0,
                                "{}: y label {text:?} leaves the chart",
                                p.name
                            );
                        } else if tag.contains("text-anchor=\"middle\"") && y > 100.0 {
                            assert!(
                                x - w / 2.0 >= 0.0 && x + w / 2.0 <= 420.0,
                                "{}: x label {text:?} leaves the chart",
                                p.name
                            );
                            xs.push((x - w / 2.0, x + w / 2.0));
                        }
                    }
                    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
                    for w in xs.windows(2) {
                        assert!(
                            w[0].1 + 2.0 <= w[1].0,
                            "{} (log {log}): x labels overlap: {xs:?}",
                            p.name
                        );
                    }
                }
            }
        }
    }
}

/// Interrupt load: 10 % periodic IRQ time on CPU 0 leaves its two hogs 900 ms of the second,
/// less the ticks' own IRQ time (`irq_ns` each, 1000 ticks) and the switches' δ, to share
/// equally; CPU 1's hog gets all but its random IRQ time and the ticks'.
#[test]
fn irq_load_leaves_the_rest() {
    let (s, outs) = run("irq-load");
    let cfg = s.sim_config();
    let (delta, ticks_irq) = (cfg.switch_delay_ns, 1000 * cfg.irq_ns);
    for o in &outs {
        let v = &o.variant;
        assert_eq!(o.cpus[0].irq_time_ns, 100_000_000, "{v}");
        let (a, b) = (
            o.tasks[0].sum_exec_runtime_ns,
            o.tasks[1].sum_exec_runtime_ns,
        );
        let switches = o.cpus[0].sched_count;
        assert!(
            a + b <= 900_000_000 - delta && a + b >= 900_000_000 - ticks_irq - switches * delta,
            "{v}: {a} + {b}"
        );
        // Equal within one slice (CFS at 2 CPUs: 6 ms, ending on the next tick).
        assert!(a.abs_diff(b) <= 7_000_000, "{v}: {a} vs {b}");
        let irq1 = o.cpus[1].irq_time_ns;
        assert!((80_000_000..=120_000_000).contains(&irq1), "{v}: {irq1}");
        let h1 = o.tasks[2].sum_exec_runtime_ns;
        let used = h1 + irq1;
        // The last handler may end after the run (its time counted, up to 50 µs of it later).
        assert!(
            used + ticks_irq + delta >= 1_000_000_000 && used <= 1_000_000_000 + 50_000,
            "{v}: {h1} + {irq1}"
        );
    }
}

/// The group presets against the kernel's arithmetic (every variant): cgroup-weights splits
/// 1:3 (25 % / 75 % ± 0.5 pp), cgroup-idle gives the idle group WEIGHT_IDLEPRIO's
/// 3 / 1027 = 0.29 % (± 0.1 pp), autogroup-nice splits a nice-19 and a nice-0 hog in two
/// sessions 50/50 (± 0.5 pp). Recorded on the test machine (tests/fixtures/real/groups-*):
/// 25.1 %, 0.27 %, 50.0 % (crates/sim/tests/real_groups.rs).
#[test]
fn group_presets_split_by_group_weight() {
    for (name, pid, want, tol) in [
        ("cgroup-weights", 0usize, 25.0, 0.5),
        ("cgroup-idle", 1, 300.0 / 1027.0, 0.1),
        ("autogroup-nice", 0, 50.0, 0.5),
    ] {
        let (_, outs) = run(name);
        for o in &outs {
            let total: u64 = o.tasks.iter().map(|t| t.sum_exec_runtime_ns).sum();
            let got = o.tasks[pid].sum_exec_runtime_ns as f64 * 100.0 / total as f64;
            assert!(
                (got - want).abs() <= tol,
                "{name} {}: {got:.3} % (arithmetic {want:.3} %)",
                o.variant
            );
        }
    }
}

/// RT interference: the FIFO hog leaves the two fair hogs 50 ms of each second, by RT
/// throttling (6.1, 6.6) or the fair server (6.12, 6.19), shared equally; the RT hog is a row
/// of the table like any task.
#[test]
fn rt_hog_leaves_fair_tasks_50_ms_per_second() {
    let (s, outs) = run("rt-hog");
    let delta = s.sim_config().switch_delay_ns;
    for o in &outs {
        let v = &o.variant;
        let rt = o.tasks[0].sum_exec_runtime_ns;
        let (a, b) = (
            o.tasks[1].sum_exec_runtime_ns,
            o.tasks[2].sum_exec_runtime_ns,
        );
        // 3 s: 150 ms of fair time, less the ticks' IRQ time while they run (150 ticks of
        // `irq_ns`), give or take the switches' δ.
        let irq = 150 * s.sim_config().irq_ns;
        assert!(
            (a + b).abs_diff(150_000_000) <= irq + 20 * delta,
            "{v}: {a} + {b}"
        );
        assert!(rt.abs_diff(2_850_000_000) <= 3_000 * delta, "{v}: rt {rt}");
        assert!(a.abs_diff(b) <= 7_000_000, "{v}: {a} vs {b}");
    }
    let text = schedlab_cli::table_text(&s, &outs, true, false);
    assert!(text.contains("  rt:1 "), "{text}");
}

/// cpu.max 50 ms / 100 ms: alone, the hog runs half the time and every period is throttled
/// (the arithmetic's runs of 52 and 48 ms, `sim/tests/bandwidth.rs`); beside a group a third
/// its weight, the quota (not the 3:1 weights, which would give it 75 %) caps it at 50 %, and
/// the cpu.stat line says so.
#[test]
fn cpu_max_caps_the_container_at_half_a_cpu() {
    let (s, outs) = run("cpu-max");
    for o in &outs {
        let v = &o.variant;
        let ct = o.tasks[0].sum_exec_runtime_ns;
        assert!(
            ct.abs_diff(1_000_000_000) <= 5_000_000,
            "{v}: ct ran {ct} ns"
        );
        let b = &o.bandwidth[0];
        assert_eq!(
            (b.path.as_str(), b.nr_periods, b.nr_throttled),
            ("/ct", 20, 20),
            "{v}"
        );
    }
    let text = schedlab_cli::table_text(&s, &outs, true, false);
    assert!(
        text.contains("  cpu.stat /ct: nr_periods 20  nr_throttled 20  throttled_time "),
        "{text}"
    );
    let json = schedlab_cli::json(&s, &outs);
    assert!(json.contains("\"nr_throttled\": 20"), "{json}");
    let (_, outs) = run("cpu-max-beside");
    for o in &outs {
        let v = &o.variant;
        let (ct, web) = (
            o.tasks[0].sum_exec_runtime_ns as f64,
            o.tasks[1].sum_exec_runtime_ns as f64,
        );
        let share = ct * 100.0 / (ct + web);
        assert!((share - 50.0).abs() <= 1.0, "{v}: ct {share:.2} %");
        assert_eq!(o.bandwidth[0].nr_throttled, 20, "{v}");
    }
}

/// Every preset prints its source's figures beside the model's: each figure is one the report
/// computes, names only the preset's own variants (or `*`, the source's kernel not given), and
/// the model measures it on each of those runs.
#[test]
fn every_source_figure_has_the_models_beside_it() {
    use schedlab_report::observed;
    for p in presets() {
        let (s, outs) = run(p.name);
        assert!(!p.figures.is_empty(), "{}: no figures", p.name);
        for f in p.figures {
            assert!(
                observed::label(f.key).is_some(),
                "{}: unknown figure {}",
                p.name,
                f.key
            );
            for &(v, _) in f.values {
                let runs: Vec<&Output> = if v == "*" {
                    outs.iter().collect()
                } else {
                    vec![outs
                        .iter()
                        .find(|o| o.variant == v)
                        .unwrap_or_else(|| panic!("{}: {v} is not one of its variants", p.name))]
                };
                for o in runs {
                    assert!(
                        observed::model_value(f.key, &s, o).is_some(),
                        "{}: no model value of {} under {}",
                        p.name,
                        f.key,
                        o.variant
                    );
                }
            }
        }
        let t = observed::format(&s, &outs, p.figures);
        assert!(
            t.contains("the source's figures beside the model's") && t.lines().count() >= 4,
            "{}:\n{t}",
            p.name
        );
    }
}
