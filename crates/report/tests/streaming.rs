//! The reports a run can keep without its trace: `LatencySink` fed as the run goes gives the
//! table `latency_rows` computes from the kept trace, and a run that keeps nothing produces the
//! same events (counted) as one that keeps them all.

use std::cell::RefCell;
use std::rc::Rc;

use schedlab_report::latency::{latency_rows, LatencySink};
use schedlab_scenario::presets::preset;
use schedlab_sim::{Simulator, TraceCounts, TraceLevel};

#[test]
fn latency_sink_matches_the_kept_trace() {
    for name in ["hackbench", "tbench-cross", "video-massive-intr"] {
        let s = preset(name).expect("a preset").scenario();
        let cfg = s.sim_config();
        for v in s.variants() {
            let sink = Rc::new(RefCell::new(LatencySink::default()));
            let streamed =
                Simulator::with_trace(&cfg, v, TraceLevel::Counters, Some(Box::new(sink.clone())))
                    .expect("valid")
                    .finish();
            assert!(
                streamed.trace.events.is_empty(),
                "a Counters run keeps no events"
            );
            let kept = Simulator::new(&cfg, v).expect("valid").finish();
            assert_eq!(
                streamed.trace_counts.total(),
                kept.trace.events.len() as u64,
                "{name} {}: the counts count every event",
                v.name
            );
            let mut counted = TraceCounts::default();
            for e in &kept.trace.events {
                counted.add(&e.kind);
            }
            assert_eq!(streamed.trace_counts, counted, "{name} {}", v.name);
            for merge in [true, false] {
                let rows = sink.borrow().rows(&kept.trace.tasks, merge);
                assert!(!rows.is_empty(), "{name} {}: rows", v.name);
                assert_eq!(
                    rows,
                    latency_rows(&kept.trace, merge),
                    "{name} {} (merge {merge}): streamed and kept tables differ",
                    v.name
                );
            }
        }
    }
}

#[test]
fn switches_level_keeps_all_but_stat_runtime() {
    let s = preset("hackbench").expect("a preset").scenario();
    let cfg = s.sim_config();
    let v = &s.variants()[0];
    let full = Simulator::new(&cfg, v).expect("valid").finish();
    let sw = Simulator::with_trace(&cfg, v, TraceLevel::Switches, None)
        .expect("valid")
        .finish();
    let expect: Vec<_> = full
        .trace
        .events
        .iter()
        .filter(|e| !matches!(e.kind, schedlab_sim::EventKind::StatRuntime { .. }))
        .collect();
    assert!(expect.len() < full.trace.events.len());
    assert_eq!(sw.trace.events, expect);
}
