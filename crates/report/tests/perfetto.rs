//! The Perfetto export follows the trace-event format: required fields, monotonic timestamps
//! per track, durations that cover exactly the stints.

mod common;
use common::*;
use schedlab_report::perfetto::perfetto_json;

#[test]
fn trace_events_are_well_formed() {
    let tr = trace(
        2,
        &[(1, "T"), (2, "U")],
        vec![
            sw(0, 0, 0, 'R', 1),
            waking(1_000, 0, 2),
            wakeup(1_000, 1, 2),
            sw(1_500, 1, 0, 'R', 2),
            sw(2_000, 0, 1, 'S', 0),
            sw(9_000, 1, 2, 'X', 0),
        ],
    );
    let text = perfetto_json(&[("cfs-6.1", &tr), ("eevdf-6.12", &tr)]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let mut last: std::collections::BTreeMap<(u64, u64), f64> = Default::default();
    let mut stints = 0;
    for e in events {
        for k in ["name", "ph", "ts", "pid", "tid"] {
            assert!(e.get(k).is_some(), "missing {k} in {e}");
        }
        let ph = e["ph"].as_str().unwrap();
        assert!(["M", "X", "i"].contains(&ph), "{e}");
        if ph == "M" {
            continue;
        }
        let track = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        let ts = e["ts"].as_f64().unwrap();
        assert!(
            ts >= *last.get(&track).unwrap_or(&0.0),
            "time went back on {track:?}: {e}"
        );
        last.insert(track, ts);
        if ph == "X" {
            assert!(e["dur"].as_f64().unwrap() >= 0.0);
            stints += 1;
        }
    }
    // Two variants × (T 0–2 µs on CPU 0, U 1.5–9 µs on CPU 1).
    assert_eq!(stints, 4);
    let t = events
        .iter()
        .find(|e| e["ph"] == "X" && e["name"] == "T:1")
        .unwrap();
    assert_eq!(
        (t["ts"].as_f64().unwrap(), t["dur"].as_f64().unwrap()),
        (0.0, 2.0)
    );
    assert_eq!(t["args"]["ended"], "blocked (slept)");
    assert!(events
        .iter()
        .any(|e| e["ph"] == "M" && e["args"]["name"] == "eevdf-6.12"));
}
