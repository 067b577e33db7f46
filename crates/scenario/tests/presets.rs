//! The bundled experiments: they parse, convert, pass the engine's check, and say where they
//! come from.

use std::collections::BTreeSet;

use schedlab_scenario::presets::{preset, presets};
use schedlab_scenario::{Scenario, WorkloadKind};

#[test]
fn every_preset_parses_and_passes_the_engine_check() {
    assert!(presets().len() >= 7);
    for p in presets() {
        let s = p.scenario();
        let c = s.sim_config();
        assert!(c.check().is_ok(), "{}: {:?}", p.name, c.check());
        assert!(!s.variants.is_empty(), "{}", p.name);
        for v in s.variants() {
            // Each variant keeps the text it was written as, which parses to the same variant.
            assert_eq!(
                schedlab_sim::Variant::parse(&v.name).as_ref(),
                Ok(v),
                "{}",
                p.name
            );
        }
        assert!(!p.title.is_empty() && !p.source.is_empty() && !p.observed.is_empty());
        // The canonical form round-trips, and so does the expansion.
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s, "{}", p.name);
        assert_eq!(
            Scenario::from_json(&s.expanded().to_json())
                .unwrap()
                .sim_config(),
            c,
            "{}",
            p.name
        );
    }
}

#[test]
fn preset_names_are_unique_and_found() {
    let names: BTreeSet<&str> = presets().iter().map(|p| p.name).collect();
    assert_eq!(names.len(), presets().len());
    for p in presets() {
        assert_eq!(preset(p.name), Some(p));
    }
    assert_eq!(preset("no-such-preset"), None);
}

#[test]
fn presets_have_the_shapes_of_their_threads() {
    let get = |n: &str| preset(n).unwrap().scenario();
    let s = get("sched-idle");
    assert_eq!(
        (s.cpus, s.hz, s.variant_names()),
        (16, 1000, vec!["cfs-5.14", "cfs-6.1"])
    );

    // One hackbench group per CPU, 20 fds: 8 × 40 threads and main().
    let s = get("hackbench");
    assert_eq!(s.cpus, 8);
    // And the default housekeeping beside them, one per CPU.
    assert_eq!(s.sim_config().tasks.len(), 1 + 8 * 40 + 8);
    assert_eq!(s.workloads()[0].kind, WorkloadKind::Hackbench);
    // CFS, EEVDF with and without RUN_TO_PARITY, the thread's two proposals (WAKEUP_DEADLINE,
    // and its own RUN_TO_PARITY: WAKEUP_PARITY without the merged one).
    assert_eq!(
        s.variant_names(),
        vec![
            "cfs-6.1",
            "eevdf-6.6:NO_RUN_TO_PARITY",
            "eevdf-6.6",
            "eevdf-6.6:WAKEUP_DEADLINE",
            "eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY"
        ]
    );

    // schbench -m 4 -t 16 on 32 CPUs (the thread's 16 workers per message thread, two per
    // CPU), with a housekeeping thread per CPU.
    let s = get("schbench");
    assert_eq!(s.cpus, 32);
    assert_eq!(s.sim_config().tasks.len(), 4 * (1 + 16) + 32);

    // massive_intr: one hog per CPU; 8 dav1d workers and a compositor.
    let c = get("video-massive-intr").sim_config();
    let count = |comm: &str| c.tasks.iter().filter(|t| t.comm == comm).count();
    assert_eq!(
        (
            count("massive_intr"),
            count("dav1d-worker"),
            count("Compositor")
        ),
        (8, 8, 1)
    );

    // The pair, pinned to one CPU: no housekeeping beside it.
    let c = get("tbench-stacked").sim_config();
    assert_eq!(c.tasks.len(), 2);
    assert_eq!(c.tasks[0].affinity, c.tasks[1].affinity);
    let c = get("tbench-cross").sim_config();
    assert_ne!(c.tasks[0].affinity, c.tasks[1].affinity);

    let s = get("fio-grid");
    assert_eq!(s.variants.len(), 4);
    assert!(s.sim_config().tasks.iter().any(|t| t.comm == "fio"));
}
