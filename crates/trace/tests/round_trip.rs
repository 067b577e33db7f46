//! Export → import of simulated runs: schedlab's JSONL trace (`schedlab_cli::write_trace`,
//! what `schedlab run --trace` writes) gives back every event exactly; the Perfetto JSON
//! (`schedlab_report::perfetto::perfetto_json`) gives back every stint and every wakeup.

use schedlab_report::timeline::{EndReason, Timeline};
use schedlab_scenario::presets::preset;
use schedlab_scenario::Scenario;
use schedlab_sim::{simulate, EventKind, Trace};
use schedlab_trace::{import_bytes, Format, Options};

/// (scenario name, variant, trace) of a few scenarios under each of their variants.
fn runs() -> Vec<(String, String, Trace)> {
    // The hackbench preset (8 CPUs, wakeup preemptions everywhere), cut to 10 loops.
    let mut hackbench: serde_json::Value =
        serde_json::from_str(preset("hackbench").unwrap().json).unwrap();
    hackbench["workloads"][0]["hackbench"]["loops"] = 10.into();
    let mut docs: Vec<(String, String)> = vec![("hackbench".into(), hackbench.to_string())];
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/");
    for f in ["sched-idle-pair.json", "issue-example.json"] {
        docs.push((
            f.into(),
            std::fs::read_to_string(format!("{root}{f}")).unwrap(),
        ));
    }
    let mut out = vec![];
    for (name, json) in docs {
        // Half a second each keeps the debug-build test short.
        let mut doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        doc["duration_ms"] = 500.into();
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let cfg = sc.sim_config();
        for v in &sc.variants {
            let o = simulate(&cfg, v).unwrap();
            out.push((name.clone(), v.name.clone(), o.trace));
        }
    }
    out
}

fn jsonl(trace: &Trace, variant: Option<&str>) -> Vec<u8> {
    let mut buf = vec![];
    schedlab_cli::write_trace(&mut buf, trace, variant).unwrap();
    buf
}

#[test]
fn jsonl_round_trip_is_exact() {
    for (name, variant, trace) in runs() {
        let imp = import_bytes(&jsonl(&trace, None), Options::default()).unwrap();
        assert_eq!(imp.format, Format::Jsonl);
        assert_eq!(
            imp.warnings_total, 0,
            "{name} {variant}: {:?}",
            imp.warnings
        );
        assert_eq!(imp.trace.events, trace.events, "{name} {variant}");
        assert_eq!(imp.t0_ns, 0);
        // Every task that appears in an event comes back with its pid and comm.
        for t in &imp.trace.tasks {
            assert_eq!(t.comm, trace.comm(t.pid), "{name} {variant}: pid {}", t.pid);
        }
        assert_eq!(imp.trace.hash(), trace.hash());
        // A simulated run is self-consistent: every switch's prev is what the CPU ran.
        assert!(imp.notes.is_empty(), "{name} {variant}: {:?}", imp.notes);
        assert!(imp.trace.cpus <= trace.cpus);
    }
}

#[test]
fn jsonl_with_several_variants_keeps_the_one_asked_for() {
    let all = runs();
    let (_, va, a) = &all[0];
    let (_, vb, b) = &all[1];
    let mut text = jsonl(a, Some(va));
    text.extend(jsonl(b, Some(vb)));
    let first = import_bytes(&text, Options::default()).unwrap();
    assert_eq!(first.runs, vec![va.clone(), vb.clone()]);
    assert_eq!(first.run.as_deref(), Some(va.as_str()));
    assert_eq!(first.trace.events, a.events);
    let second = import_bytes(
        &text,
        Options {
            run: Some(vb.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(second.trace.events, b.events);
    let none = import_bytes(
        &text,
        Options {
            run: Some("cfs-4.0".into()),
            ..Default::default()
        },
    );
    assert!(none.unwrap_err().to_string().contains("no run \"cfs-4.0\""));
}

#[test]
fn perfetto_round_trip_keeps_stints_and_wakeups() {
    let mut wakeup_preemptions = 0;
    for (name, variant, trace) in runs() {
        let json = schedlab_report::perfetto::perfetto_json(&[(&variant, &trace)]);
        let imp = import_bytes(json.as_bytes(), Options::default()).unwrap();
        assert_eq!(imp.format, Format::Perfetto);
        assert_eq!(
            imp.warnings_total, 0,
            "{name} {variant}: {:?}",
            imp.warnings
        );
        assert_eq!(imp.run.as_deref(), Some(variant.as_str()));
        assert!(imp.notes.is_empty(), "{name} {variant}: {:?}", imp.notes);
        assert_eq!(imp.trace.cpus, trace.cpus, "{name} {variant}");
        let (a, b) = (
            Timeline::from_trace(&trace),
            Timeline::from_trace(&imp.trace),
        );
        assert_eq!(a.slices.len(), b.slices.len(), "{name} {variant}");
        for (x, y) in a.slices.iter().zip(&b.slices) {
            assert_eq!(x, y, "{name} {variant}");
        }
        wakeup_preemptions += a
            .slices
            .iter()
            .filter(|s| matches!(s.reason, EndReason::Preempted { wakeup: true, .. }))
            .count();
        let wakeups = |t: &Trace| -> Vec<(u64, u32, u32)> {
            let mut w: Vec<_> = t
                .events
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Wakeup { pid, target_cpu } => Some((e.t_ns, target_cpu, pid)),
                    _ => None,
                })
                .collect();
            w.sort();
            w
        };
        assert_eq!(wakeups(&imp.trace), wakeups(&trace), "{name} {variant}");
        for t in &imp.trace.tasks {
            assert_eq!(t.comm, trace.comm(t.pid), "{name} {variant}: pid {}", t.pid);
        }
    }
    assert!(
        wakeup_preemptions > 20,
        "{wakeup_preemptions}: the runs exercise wakeup preemption"
    );
}

#[test]
fn perfetto_with_several_variants() {
    let all = runs();
    let (_, va, a) = &all[0];
    let (_, vb, b) = &all[1];
    let json = schedlab_report::perfetto::perfetto_json(&[(va, a), (vb, b)]);
    let imp = import_bytes(
        json.as_bytes(),
        Options {
            run: Some(vb.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(imp.runs, vec![va.clone(), vb.clone()]);
    assert_eq!(
        Timeline::from_trace(&imp.trace).slices,
        Timeline::from_trace(b).slices
    );
}
