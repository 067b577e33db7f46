//! What a recording shows of its machine (`schedlab_trace::machine`): its HZ, the cost of a
//! wakeup onto an idle CPU and the switch delay δ, read from real recordings whose machine is
//! known (`tests/fixtures/traces/MACHINE.txt`, `tests/fixtures/real*/metadata.txt`: HZ=250 by
//! the local timer interrupts; docs/measurements.md for the wakeup costs) and from the model's
//! own traces at each HZ it takes, which emit `sched_stat_runtime` on every tick as
//! `task_tick_fair` → `update_curr` does.

mod common;
/// The sim crate's test helpers (`cfg`, `hog`).
#[path = "../../sim/tests/common/mod.rs"]
mod sim_common;

use std::path::PathBuf;

use common::import;
use schedlab_sim::{simulate, Variant};
use schedlab_trace::machine::{estimate_hz, estimate_idle_wakeup, estimate_switch_delay, Estimate};
use schedlab_trace::{import_reader, Import, Options};

/// `tests/fixtures/<machine>/<name>.perf-script.gz`.
fn real(machine: &str, name: &str) -> Import {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(machine)
        .join(format!("{name}.perf-script.gz"));
    let f = std::fs::File::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    import_reader(f, Options::default()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn hz_of_the_perf_recordings() {
    // MACHINE.txt: HZ 250. Their hogs share CPUs, so they switch at every tick and their
    // sched_stat_runtime events never span two ticks: the tick-edge preemptions show it.
    for name in ["hogs.perf-script.txt.gz", "periodic.perf-script.txt.gz"] {
        let hz = estimate_hz(&import(name).trace).expect(name);
        assert_eq!(hz.value, 250, "{name}: {}", hz.how);
    }
}

#[test]
fn hz_from_tick_edge_preemptions_when_the_recording_has_no_stat_runtime() {
    // The real-kernel fixtures drop sched_stat_runtime; every machine ran HZ=250.
    for machine in ["real", "real-epyc", "real-epyc-haltpoll"] {
        let hz = estimate_hz(&real(machine, "hogs3").trace).expect(machine);
        assert_eq!(hz.value, 250, "{machine}: {}", hz.how);
        assert!(hz.how.contains("preemptions"), "{}", hz.how);
    }
}

/// Two hogs sharing CPU 0 and one alone on CPU 1, as the model runs them at `hz`.
fn model_trace(hz: u32, keep_stat_runtime: bool) -> schedlab_sim::Trace {
    let on = |cpu: u32| {
        let mut h = sim_common::hog("hog", 0);
        h.affinity = vec![cpu];
        h
    };
    let c = sim_common::cfg(2, hz, 500_000_000, vec![on(0), on(0), on(1)]);
    let mut t = simulate(&c, &Variant::parse("eevdf-6.6").unwrap())
        .unwrap()
        .trace;
    if !keep_stat_runtime {
        let kept: Vec<_> = t
            .events
            .iter()
            .filter(|e| !matches!(e.kind, schedlab_sim::EventKind::StatRuntime { .. }))
            .collect();
        t.events = kept.into_iter().collect();
    }
    t
}

#[test]
fn hz_of_model_traces_at_every_hz() {
    for hz in [100, 250, 300, 1000] {
        for stat in [true, false] {
            let est = estimate_hz(&model_trace(hz, stat));
            assert_eq!(
                est.as_ref().map(|e| e.value),
                Some(hz),
                "HZ {hz}, sched_stat_runtime kept: {stat}: {est:?}"
            );
            // The hog alone on CPU 1 runs through the ticks: its update_curr gaps show them.
            let how = est.map(|e| e.how).unwrap_or_default();
            let path = if stat {
                "sched_stat_runtime"
            } else {
                "preemptions"
            };
            assert!(how.contains(path), "{how}");
        }
    }
}

#[test]
fn idle_wakeup_cost_from_the_ping_pong_recordings() {
    // docs/measurements.md: wake-to-run onto an idle CPU, p50 22 µs on the Xeon VM, 8 µs on
    // the EPYC VM and 37 µs on the EPYC VM with haltpoll; less δ (5 µs) those are the
    // machines' idle_wakeup_ns (17, 3 and 32 µs).
    for (machine, want) in [
        ("real", 17_000),
        ("real-epyc", 3_000),
        ("real-epyc-haltpoll", 32_000),
    ] {
        let m = schedlab_sim::MACHINES
            .iter()
            .find(|m| m.fixtures == machine)
            .unwrap();
        assert_eq!(m.idle_wakeup_ns, want);
        let est = estimate_idle_wakeup(&real(machine, "pingpong-cross").trace);
        assert_near(machine, est, want, 1_000);
    }
    // A recording with no cross-CPU wakeups onto idle CPUs gives none: two hogs and nothing
    // that sleeps.
    assert_eq!(estimate_idle_wakeup(&model_trace(250, true)), None);
}

/// An estimate was made and is within `tol` ns of `want`.
fn assert_near(machine: &str, est: Option<Estimate<u64>>, want: u64, tol: u64) {
    let est = est.unwrap_or_else(|| panic!("{machine}: no estimate"));
    assert!(
        est.value.abs_diff(want) <= tol,
        "{machine}: {} ({})",
        est.value,
        est.how
    );
}

#[test]
fn switch_delay_from_the_periodic_recordings() {
    // ARCHITECTURE.md's "Compared with the machine" and docs/measurements.md: two hogs and a
    // periodic task (1 ms / 9 ms); the periodic task's timer wakeups preempt the hog on its
    // CPU with a wake-to-run p50 of 8 µs on the Xeon VM, 15 µs on the EPYC VM and 21 µs on
    // the EPYC VM with haltpoll (three quarters of them within 100 µs, the rest waiting for
    // a tick). The estimate takes only the wakeups that
    // preempted at once: within 3 µs of those medians.
    for (machine, p50) in [
        ("real", 8_000),
        ("real-epyc", 15_000),
        ("real-epyc-haltpoll", 21_000),
    ] {
        assert_near(
            machine,
            estimate_switch_delay(&real(machine, "periodic").trace),
            p50,
            3_000,
        );
    }
    // Receivers woken by senders in their writes are preempted at the write's return, not at
    // an interrupt's: this VM's hackbench shows too few wakeups over CPU loops to say (the
    // Xeon VM's has a `node` loop beside it, 44 of its wakeups, 15 µs).
    assert_eq!(
        estimate_switch_delay(&real("real-epyc-haltpoll", "hackbench").trace),
        None
    );
    // Two hogs and nothing that sleeps: no wakeup at all.
    assert_eq!(estimate_switch_delay(&model_trace(250, true)), None);
}
