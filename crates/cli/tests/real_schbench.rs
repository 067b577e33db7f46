//! schbench against a real kernel: schbench v1.0 `-m 1 -t 4 -r 10` (two workers per CPU) on the
//! 2-vCPU EPYC VM (Linux 6.18, HZ=250), three runs with its per-CPU lock and three with `-L`,
//! and one worker alone under `-C`, which times each request's math by itself
//! (`scripts/record-schbench-real.sh` → `tests/fixtures/real-epyc/schbench-calibrated.txt`).
//!
//! The model is given the math's distribution that `-C` measured (its median and spread) and
//! nothing from the contended runs; their throughput and latencies are what it predicts.

use schedlab_report::figures::{role_pids, workload_figures};
use schedlab_report::percentiles::Hist;
use schedlab_report::workload as wl;
use schedlab_scenario::{Role, Scenario};
use schedlab_sim::simulate;

const FIXTURE: &str = "real-epyc/schbench-calibrated.txt";

/// schbench's figures for one run: average rps, wakeup and request p50 / p90 / p99 (µs).
#[derive(Clone, Copy, Debug, Default)]
struct Figures {
    rps: f64,
    wakeup: [f64; 3],
    request: [f64; 3],
}

/// The p50 / p90 / p99 lines of the block headed `title` in `block`.
fn percentiles(block: &str, title: &str) -> [f64; 3] {
    let at = block
        .find(title)
        .unwrap_or_else(|| panic!("no {title} block"));
    let mut out = [f64::NAN; 3];
    for line in block[at..].lines().skip(1).take(5) {
        let line = line.trim().trim_start_matches('*').trim();
        for (i, key) in ["50.0th:", "90.0th:", "99.0th:"].iter().enumerate() {
            if let Some(rest) = line.strip_prefix(key) {
                out[i] = rest.split_whitespace().next().unwrap().parse().unwrap();
            }
        }
    }
    assert!(out.iter().all(|v| v.is_finite()), "{title}: {out:?}");
    out
}

/// The recording: the math alone (median, p90), then the runs with the lock and with `-L`.
fn recorded() -> ((f64, f64), Vec<Figures>, Vec<Figures>) {
    let path = format!(
        "{}/../../tests/fixtures/{FIXTURE}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut lock, mut nolock, mut math) = (Vec::new(), Vec::new(), None);
    for section in text.split("\n== ").skip(1) {
        let head = section.lines().next().unwrap();
        if head.starts_with("request math alone") {
            let p = percentiles(section, "Request Latencies");
            math = Some((p[0], p[1]));
        } else if head.starts_with("run ") {
            let rps = section
                .lines()
                .find_map(|l| l.strip_prefix("average rps: "))
                .expect("average rps")
                .trim()
                .parse()
                .unwrap();
            let f = Figures {
                rps,
                wakeup: percentiles(section, "Wakeup Latencies"),
                request: percentiles(section, "Request Latencies"),
            };
            if head.ends_with("-L") {
                nolock.push(f);
            } else {
                lock.push(f);
            }
        }
    }
    assert_eq!((lock.len(), nolock.len()), (3, 3));
    (math.expect("the -C run"), lock, nolock)
}

/// The model on the recording's shape (2 CPUs, HZ=250, the EPYC VM, `eevdf-6.19`, seed 1)
/// for `ms` milliseconds, with the math drawn from a normal distribution of this median and
/// standard deviation, µs: the run, its message thread and its workers.
fn model_run(
    lock: bool,
    mean_us: f64,
    sd_us: f64,
    ms: u64,
) -> (
    schedlab_sim::Output,
    schedlab_sim::Pid,
    Vec<schedlab_sim::Pid>,
) {
    let json = format!(
        r#"{{"version": 1, "name": "schbench", "cpus": 2, "hz": 250, "duration_ms": {ms},
            "seed": 1, "machine": "epyc-vm", "variants": ["eevdf-6.19"],
            "workloads": [{{"schbench": {{"message_threads": 1, "workers": 4,
                "request_us": {{"normal": [{mean_us}, {sd_us}]}}, "lock": {lock}}}}}]}}"#
    );
    let s = Scenario::from_json(&json).unwrap();
    let o = simulate(&s.sim_config(), &s.variants()[0]).unwrap();
    let infos = s.workloads();
    let workers = role_pids(&infos, &o, &[Role::Worker]);
    let msg = role_pids(&infos, &o, &[Role::MessageThread]);
    (o, msg[0], workers)
}

/// [`model_run`] over 10 s, as schbench reports it.
fn model(lock: bool, mean_us: f64, sd_us: f64) -> Figures {
    let (o, msg, workers) = model_run(lock, mean_us, sd_us, 10_000);
    let sb = wl::schbench_samples(&o.trace, &workers, &[msg], wl::SCHBENCH_USLEEP_NS);
    Figures {
        rps: sb.done_ns.len() as f64 / (o.trace.end_ns as f64 / 1e9),
        wakeup: schbench_percentiles(&sb.wakeup_ns),
        request: schbench_percentiles(&sb.request_ns),
    }
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Within a factor of 2 of the recording's mean over its runs.
fn within_twice(what: &str, model: f64, runs: &[f64]) {
    let m = mean(runs.iter().copied());
    assert!(
        model >= m / 2.0 && model <= m * 2.0,
        "{what}: model {model:.0}, machine {runs:?} (mean {m:.0}, within a factor of 2)"
    );
}

/// Within `tol` (a fraction) of the recording's mean over its runs.
fn near(what: &str, model: f64, runs: &[f64], tol: f64) {
    let m = mean(runs.iter().copied());
    assert!(
        (model - m).abs() <= tol * m,
        "{what}: model {model:.0}, machine {runs:?} (mean {m:.0}, tolerance {:.0} %)",
        tol * 100.0
    );
}

/// Without the lock the model, given only the math's measured distribution, predicts the
/// contended runs: throughput within 10 %, the request percentiles within 15 %, the median
/// wakeup is immediate on both, the wakeup p90 within 20 % and the p99 within 15 % (model
/// 2 228 and 4 440 µs, seeds 1-5: 2 228-2 508 and 4 440-4 680; the machine 2 212-2 228 and
/// 4 440-4 824). Those two counted only the wakeups of workers asleep in their `fwait`
/// before the report took a sample per request as schbench does (3 564 and 6 072 µs then),
/// and read 2 388 and 4 472 µs while the workers shared one futex channel for their wakes.
#[test]
fn without_the_lock_the_model_predicts_the_machine() {
    let ((p50, p90), _, runs) = recorded();
    // A normal distribution's p90 is 1.2816 standard deviations above its median.
    let sd = (p90 - p50) / 1.2816;
    assert!(sd > 0.0 && sd < 0.1 * p50, "the math's spread: {sd:.0} µs");
    let m = model(false, p50, sd);
    let col = |f: fn(&Figures) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
    near("requests/s", m.rps, &col(|f| f.rps), 0.10);
    assert!(
        m.wakeup[0] <= 20.0 && runs.iter().all(|f| f.wakeup[0] <= 20.0),
        "wakeup p50: model {}, machine {:?}",
        m.wakeup[0],
        col(|f| f.wakeup[0])
    );
    near("wakeup p90", m.wakeup[1], &col(|f| f.wakeup[1]), 0.20);
    near("wakeup p99", m.wakeup[2], &col(|f| f.wakeup[2]), 0.15);
    near("request p50", m.request[0], &col(|f| f.request[0]), 0.15);
    near("request p90", m.request[1], &col(|f| f.request[1]), 0.15);
    near("request p99", m.request[2], &col(|f| f.request[2]), 0.15);
}

/// The lock halves the machine's throughput (a worker preempted inside its math keeps its
/// CPU's lock and the other worker there spins); the model loses as much: in both, at least
/// 40 % of the requests and the request median at least 1.5× longer. With the lock the model
/// predicts the machine's throughput within 15 % (196 against 201-214 requests/s; 186-196
/// over seeds 1-5), its request p90 and p99 and its wakeup p99 within 15 %, and its wakeup
/// p90 within a factor of 2 (3 468 µs against 4 312-4 424; 2 860-3 468 over seeds). Its
/// request median is 35 % longer than the machine's (23.9 ms against 17.1-18.7), not held
/// (ARCHITECTURE.md, deviation 12).
#[test]
fn the_lock_costs_the_model_as_it_costs_the_machine() {
    let ((p50, p90), lock, nolock) = recorded();
    let sd = (p90 - p50) / 1.2816;
    let (ml, mn) = (model(true, p50, sd), model(false, p50, sd));
    let rps = |v: &[Figures]| mean(v.iter().map(|f| f.rps));
    let req = |v: &[Figures]| mean(v.iter().map(|f| f.request[0]));
    let machine_loss = 1.0 - rps(&lock) / rps(&nolock);
    let model_loss = 1.0 - ml.rps / mn.rps;
    assert!(
        machine_loss >= 0.4 && model_loss >= 0.4,
        "throughput lost to the lock: machine {machine_loss:.2}, model {model_loss:.2}"
    );
    let (machine_x, model_x) = (req(&lock) / req(&nolock), ml.request[0] / mn.request[0]);
    assert!(
        machine_x >= 1.5 && model_x >= 1.5,
        "request median with / without the lock: machine {machine_x:.2}, model {model_x:.2}"
    );
    let col = |f: fn(&Figures) -> f64| lock.iter().map(f).collect::<Vec<f64>>();
    near("requests/s with the lock", ml.rps, &col(|f| f.rps), 0.15);
    near(
        "request p90 with the lock",
        ml.request[1],
        &col(|f| f.request[1]),
        0.15,
    );
    near(
        "request p99 with the lock",
        ml.request[2],
        &col(|f| f.request[2]),
        0.15,
    );
    near(
        "wakeup p99 with the lock",
        ml.wakeup[2],
        &col(|f| f.wakeup[2]),
        0.15,
    );
    within_twice(
        "wakeup p90 with the lock",
        ml.wakeup[1],
        &col(|f| f.wakeup[1]),
    );
}

/// `run` reports the workers' spinning when the lock is on (schbench itself cannot see it),
/// and in the model it is what the lock costs: with two workers per CPU the spinning takes
/// a large share of the workers' CPU, none without the lock.
#[test]
fn the_report_shows_the_spinning() {
    let json = |lock: bool| {
        format!(
            r#"{{"version": 1, "name": "schbench", "cpus": 2, "hz": 250, "duration_ms": 2000,
                "seed": 1, "machine": "epyc-vm", "variants": ["eevdf-6.19"],
                "workloads": [{{"schbench": {{"message_threads": 1, "workers": 4,
                    "request_us": {{"normal": [4328, 50]}}, "lock": {lock}}}}}]}}"#
        )
    };
    for lock in [true, false] {
        let s = Scenario::from_json(&json(lock)).unwrap();
        let o = simulate(&s.sim_config(), &s.variants()[0]).unwrap();
        let text = workload_figures(&s.workloads(), &o).text;
        let line = text.lines().find(|l| l.starts_with("per-CPU lock: "));
        if !lock {
            assert!(line.is_none(), "{text}");
            continue;
        }
        let line = line.unwrap_or_else(|| panic!("no lock line in {text}"));
        let share: f64 = line
            .rsplit('(')
            .next()
            .and_then(|x| x.split_whitespace().next())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!((20.0..80.0).contains(&share), "{line}");
    }
}

/// A real schbench run's trace imported, and its threads in creation order (schbench's main
/// thread creates the message thread, which creates its workers): the message thread and
/// the workers.
fn real_threads(
    bytes: &[u8],
    what: &str,
) -> (
    schedlab_trace::Import,
    schedlab_sim::Pid,
    Vec<schedlab_sim::Pid>,
) {
    let imp = schedlab_trace::import_bytes(bytes, Default::default()).expect("import");
    let mut threads: Vec<(u32, schedlab_sim::Pid)> = imp
        .pids
        .iter()
        .filter(|t| t.comm == "schbench")
        .map(|t| (t.real_pid, t.pid))
        .collect();
    threads.sort();
    assert_eq!(
        threads.len(),
        6,
        "{what}: main, the message thread, 4 workers"
    );
    let workers = threads[2..].iter().map(|t| t.1).collect();
    (imp, threads[1].1, workers)
}

/// Of the message thread's wakeups by a worker on the other CPU than the one it last ran on:
/// (pulled to the worker's CPU, left on its own). `msg` is the message thread.
fn pulls(trace: &schedlab_sim::Trace, msg: schedlab_sim::Pid) -> (u64, u64) {
    use schedlab_sim::EventKind;
    let (mut pulled, mut stayed) = (0, 0);
    // The waker's CPU and the CPU the message thread last ran on, between its waking and
    // its next switch-in.
    let mut pending: Option<(u32, u32)> = None;
    let mut last_cpu = None;
    for e in &trace.events {
        match e.kind {
            EventKind::Waking { pid, .. } if pid == msg => {
                pending = last_cpu.map(|prev| (e.cpu, prev));
            }
            EventKind::Switch { next_pid, .. } if next_pid == msg => {
                if let Some((waker, prev)) = pending.take() {
                    if waker != prev {
                        if e.cpu == waker {
                            pulled += 1;
                        } else {
                            stayed += 1;
                        }
                    }
                }
                last_cpu = Some(e.cpu);
            }
            _ => {}
        }
    }
    (pulled, stayed)
}

/// Where a worker's post sends the message thread. `perf sched record` of the lock run
/// (`real-epyc/schbench-lock.perf-script.gz`, 3 s): woken from the other CPU than the one it
/// last ran on, the message thread stays on its own in four cases out of five. A worker
/// interrupted by another worker's `usleep` timer counts that wakee in its `wakee_flips` (an
/// interrupt's wakeup runs `record_wakee` against the task it came in on), so workers switch
/// wakee twice a request, and `wake_wide` keeps the message thread, which switches wakee at
/// every wake, off the waker's CPU whenever the workers' flips are less than half its own.
/// Without that rule the model pulled it over at 97 % of these wakeups (480 of 497); with it
/// at 66 % (252 of 380), where the machine pulls it at 19 %: still too often (the flips'
/// ratio crosses 2 back and forth as their halvings each second come at different times).
/// Since a wakeup that preempts its waker takes effect at the system call's return, and with
/// the machine's costs and their spread, 66 % again (251 of 378; 91 % with the costs fixed,
/// when once on its waker's CPU the message thread was preempted by the first worker it
/// posted). The machine's figure moves between runs: three shorter bpftrace runs of the same
/// workload on the same VM later gave 23–51 % (docs/measurements.md). With the VM's measured
/// housekeeping set on this scenario the model pulls it at 35–61 % over seeds 1–5: the
/// machine's own background wakeups raise the workers' flips there (ARCHITECTURE.md,
/// deviation 12; "Housekeeping" says why grouped scenarios leave it out). That 66 % was seed
/// 1's; seeds 2 and 3 pulled it at 98 and 96 %. Since the threads copy their launcher's
/// flips (4 by default), 95 / 94 / 96 % at seeds 1–3 (with the launcher's flips at 0 the old
/// figures again; at 2–6 the same 91–96 %). Held below the 97 % of the model before the
/// interrupt's rule, a guard on the model's own figure: the model pulls the message thread
/// far more often than the machine, which this test does not hide.
#[test]
fn the_message_thread_mostly_stays_where_it_ran() {
    let path = format!(
        "{}/../../tests/fixtures/real-epyc/schbench-lock.perf-script.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (imp, msg, _) = real_threads(&bytes, "the lock run");
    let (pulled, stayed) = pulls(&imp.trace, msg);
    let machine = pulled as f64 / (pulled + stayed) as f64;
    assert!(
        pulled + stayed > 200 && machine < 0.35,
        "machine: {pulled} pulled, {stayed} stayed"
    );

    let json = r#"{"version": 1, "name": "schbench", "cpus": 2, "hz": 250, "duration_ms": 3000,
        "seed": 1, "machine": "epyc-vm", "autogroup": true, "variants": ["eevdf-6.19"],
        "workloads": [{"schbench": {"message_threads": 1, "workers": 4,
            "request_us": {"normal": [4328, 50]}, "session": 1}}]}"#;
    let s = Scenario::from_json(json).unwrap();
    let o = simulate(&s.sim_config(), &s.variants()[0]).unwrap();
    let msg = role_pids(&s.workloads(), &o, &[Role::MessageThread]);
    let (pulled, stayed) = pulls(&o.trace, msg[0]);
    let model = pulled as f64 / (pulled + stayed) as f64;
    assert!(
        pulled + stayed > 100 && model < 0.97,
        "model: {pulled} pulled, {stayed} stayed (machine {machine:.2})"
    );
}

/// Each wakeup's select record carries what fair.c compared, and the choice follows from it
/// by the kernel's formulas: `wake_wide` is true exactly when the smaller of the two
/// `wakee_flips` is at least the LLC's size (2 CPUs here) and the larger at least that many
/// times the smaller; `wake_affine_weight` picks the waker's CPU exactly when `this_eff_load`
/// is below `prev_eff_load`. The schbench run has all of these cases.
#[test]
fn select_records_carry_wake_wide_and_wake_affine_weight_inputs() {
    use schedlab_sim::decision::{Affine, DecisionKind, SelectPath};
    let json = r#"{"version": 1, "name": "schbench", "cpus": 2, "hz": 250, "duration_ms": 3000,
        "seed": 1, "machine": "epyc-vm", "autogroup": true, "variants": ["eevdf-6.19"],
        "workloads": [{"schbench": {"message_threads": 1, "workers": 4,
            "request_us": {"normal": [4328, 50]}, "session": 1}}]}"#;
    let s = Scenario::from_json(json).unwrap();
    let mut cfg = s.sim_config();
    cfg.record_decisions = true;
    let o = simulate(&cfg, &s.variants()[0]).unwrap();
    let (mut wide_n, mut narrow_n, mut this_n, mut prev_n) = (0, 0, 0, 0);
    for d in &o.trace.decisions {
        let DecisionKind::Select {
            path:
                SelectPath::Wakeup {
                    wide,
                    affine,
                    flips,
                    eff_load,
                    ..
                },
            ..
        } = d.kind
        else {
            continue;
        };
        if flips != [0, 0] {
            let (master, slave) = (flips[0].max(flips[1]), flips[0].min(flips[1]));
            assert_eq!(wide, slave >= 2 && master >= slave * 2, "{d:?}");
            if wide {
                wide_n += 1;
            } else {
                narrow_n += 1;
            }
        }
        if let Some([this_eff, prev_eff]) = eff_load {
            if this_eff < prev_eff {
                assert_eq!(affine, Affine::Weight, "{d:?}");
                this_n += 1;
            } else {
                assert_eq!(affine, Affine::Prev, "{d:?}");
                prev_n += 1;
            }
        }
    }
    assert!(
        wide_n > 10 && narrow_n > 10 && this_n > 10 && prev_n > 0,
        "wide {wide_n}, not wide {narrow_n}, this_eff < prev_eff {this_n}, otherwise {prev_n}"
    );
}

/// schbench's own report of a traced run, and its trace.
struct TracedRun {
    /// `lock` or `nolock` (`-L`).
    mode: String,
    /// schbench's wakeup samples.
    samples: f64,
    /// schbench's wakeup p50 / p90 / p99, µs.
    wakeup: [f64; 3],
    /// schbench's request p50 / p90 / p99, µs.
    request: [f64; 3],
    /// The `perf script` text, gzipped.
    bytes: Vec<u8>,
}

/// The traced runs (`scripts/record-schbench-traced.sh` → `real-epyc/schbench-traced.txt` and
/// `schbench-traced-{lock,nolock}.perf-script.gz`).
fn traced_runs() -> Vec<TracedRun> {
    let dir = format!(
        "{}/../../tests/fixtures/real-epyc",
        env!("CARGO_MANIFEST_DIR")
    );
    let path = format!("{dir}/schbench-traced.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for section in text.split("\n== traced run, ").skip(1) {
        let mode = section.split(':').next().unwrap().to_string();
        let samples = section
            .lines()
            .find(|l| l.starts_with("Wakeup Latencies"))
            .and_then(|l| l.split('(').nth(3))
            .and_then(|x| x.split_whitespace().next())
            .and_then(|x| x.parse().ok())
            .expect("the wakeup samples' count");
        let trace = format!("{dir}/schbench-traced-{mode}.perf-script.gz");
        let bytes = std::fs::read(&trace).unwrap_or_else(|e| panic!("{trace}: {e}"));
        out.push(TracedRun {
            mode,
            samples,
            wakeup: percentiles(section, "Wakeup Latencies"),
            request: percentiles(section, "Request Latencies"),
            bytes,
        });
    }
    assert_eq!(out.len(), 2, "a traced run with the lock and one without");
    out
}

/// p50 / p90 / p99 of `ns` as schbench prints them: µs, in its histogram's buckets.
fn schbench_percentiles(ns: &[u64]) -> [f64; 3] {
    let mut h = Hist::new();
    for &v in ns {
        h.add(v / 1000);
    }
    let p = h.percentiles();
    let at = |q: f64| p.iter().find(|x| x.p == q).unwrap().value as f64;
    [at(50.0), at(90.0), at(99.0)]
}

/// Read off a real run's trace, the report's schbench samples are schbench's own: for the
/// same run, as many wakeup and request samples as schbench counted (one each per request,
/// whether or not the worker slept in its `fwait`: most of them it did not), and the same
/// percentiles within a few microseconds at the median and 10 % above it (wakeup p50 / p90 /
/// p99 11 / 4 280 / 6 136 µs against schbench's 12 / 4 312 / 6 136 with the lock, 12 / 1 762 /
/// 4 216 against 10 / 1 854 / 4 216 without). Counting only the wakeups of workers asleep in
/// their `fwait`, as the report did before, gave about 40 % of the samples.
#[test]
fn the_samples_read_off_a_real_trace_are_schbench_s_own() {
    for TracedRun {
        mode,
        samples,
        wakeup,
        request,
        bytes,
    } in traced_runs()
    {
        let (imp, msg, workers) = real_threads(&bytes, &mode);
        let sb = wl::schbench_samples(&imp.trace, &workers, &[msg], wl::SCHBENCH_USLEEP_NS);
        let (n, r) = (sb.wakeup_ns.len() as f64, sb.request_ns.len() as f64);
        assert!(
            (n - samples).abs() <= 0.02 * samples && (r - samples).abs() <= 0.02 * samples,
            "{mode}: {n} wakeup and {r} request samples, schbench {samples}"
        );
        let (w, q) = (
            schbench_percentiles(&sb.wakeup_ns),
            schbench_percentiles(&sb.request_ns),
        );
        assert!(
            (w[0] - wakeup[0]).abs() <= 5.0,
            "{mode}: wakeup p50 {} µs, schbench {}",
            w[0],
            wakeup[0]
        );
        for (what, got, want) in [
            ("wakeup p90", w[1], wakeup[1]),
            ("wakeup p99", w[2], wakeup[2]),
            ("request p50", q[0], request[0]),
            ("request p90", q[1], request[1]),
            ("request p99", q[2], request[2]),
        ] {
            assert!(
                (got - want).abs() <= 0.1 * want,
                "{mode}: {what} {got} µs, schbench {want}"
            );
        }
    }
}

/// The message thread's CPU time in `trace`, per request its workers completed.
fn message_thread_us_per_request(
    trace: &schedlab_sim::Trace,
    msg: schedlab_sim::Pid,
    workers: &[schedlab_sim::Pid],
) -> f64 {
    let ns: u64 = trace
        .events
        .iter()
        .filter_map(|e| match e.kind {
            schedlab_sim::EventKind::StatRuntime { pid, runtime_ns } if pid == msg => {
                Some(runtime_ns)
            }
            _ => None,
        })
        .sum();
    let requests = wl::schbench_samples(trace, workers, &[msg], wl::SCHBENCH_USLEEP_NS)
        .done_ns
        .len();
    ns as f64 / 1000.0 / requests.max(1) as f64
}

/// The message thread's CPU per request: the generator's `think_us` (5 µs per worker woken,
/// not measured) with the machine's switch and wakeup costs, against the traced runs'
/// `sched_stat_runtime` of schbench's message thread (the list walk, `gettimeofday`, the
/// futex calls, its switches): 8.3 µs a request with the lock and 6.4 without, the model
/// 7.5 and 7.7 (3 s, seed 1). Held within 25 %.
#[test]
fn the_message_thread_costs_what_the_machines_costs_per_request() {
    let ((p50, p90), _, _) = recorded();
    let sd = (p90 - p50) / 1.2816;
    for run in traced_runs() {
        let (imp, msg, workers) = real_threads(&run.bytes, &run.mode);
        let machine = message_thread_us_per_request(&imp.trace, msg, &workers);
        let (o, msg, workers) = model_run(run.mode == "lock", p50, sd, 3_000);
        let model = message_thread_us_per_request(&o.trace, msg, &workers);
        assert!(
            (model - machine).abs() <= 0.25 * machine && machine > 1.0,
            "{}: the message thread's CPU per request, model {model:.2} µs, machine {machine:.2}",
            run.mode
        );
    }
}
