//! # schedlab-node
//!
//! The simulation compiled to wasm for Node.js (`wasm-bindgen --target nodejs`), with an API
//! of JSON strings in and out:
//!
//! - [`hashes`]: a scenario document in, per variant its [`trace_hash`] (the same 64-bit
//!   FNV-1a hash `schedlab run --format json` prints), the events processed and where the run
//!   ended. `scripts/check-node.sh` compares them with the native command line's for every
//!   preset: same scenario and seed, same trace, native and wasm.
//! - [`bench`]: runs a scenario's variants `iterations` times and reports the events and the
//!   nanoseconds they took, for the wasm side of the speed benchmarks.
//! - [`presets`], [`preset_json`]: the bundled experiments, as the command line has them.
//!
//! It is not part of the page (the page's worker is `crates/web`); nothing here is bundled
//! with it.
#![forbid(unsafe_code)]

use schedlab_report::export::trace_hash;
use schedlab_scenario::Scenario;
use serde_json::json;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()` (ms, sub-millisecond resolution; a global in Node ≥ 16).
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

fn scenario(json: &str) -> Result<Scenario, String> {
    Scenario::from_json(json).map_err(|e| e.to_string())
}

/// The per-variant results of one scenario, as JSON: `{"scenario": name, "seed": n,
/// "variants": [{"variant": v, "trace_hash": "016x", "events": n, "end_ns": n, "switches": n}]}`.
pub fn hashes_json(json: &str) -> Result<String, String> {
    let s = scenario(json)?;
    let cfg = s.sim_config();
    let mut variants = vec![];
    for v in s.variants() {
        let out = schedlab_sim::simulate(&cfg, v).map_err(|e| format!("{}: {e}", v.name))?;
        variants.push(json!({
            "variant": v.name,
            "trace_hash": format!("{:016x}", trace_hash(&out.trace)),
            "events": out.events_processed,
            "end_ns": out.trace.end_ns,
            "switches": out.trace.events.iter()
                .filter(|e| matches!(e.kind, schedlab_sim::EventKind::Switch { .. }))
                .count(),
        }));
    }
    Ok(json!({"scenario": s.name, "seed": s.seed, "variants": variants}).to_string())
}

/// Simulates every variant of a scenario document (JSON text) and returns, as JSON, each
/// variant's trace hash, events and end (see [`hashes_json`]). A scenario that does not
/// validate throws with the validator's messages.
#[wasm_bindgen]
pub fn hashes(scenario_json: &str) -> Result<String, JsError> {
    hashes_json(scenario_json).map_err(|e| JsError::new(&e))
}

/// Runs every variant of a scenario `iterations` times (at least once) and returns, as JSON,
/// `{"iterations": n, "events": total, "ns": total, "events_per_s": x, "variants": [{"variant",
/// "events", "ns"}]}`: events processed and wall-clock nanoseconds (`performance.now()`,
/// simulation only: parsing and validation are done once, before the clock starts).
#[wasm_bindgen]
pub fn bench(scenario_json: &str, iterations: u32) -> Result<String, JsError> {
    let s = scenario(scenario_json).map_err(|e| JsError::new(&e))?;
    let cfg = s.sim_config();
    let iterations = iterations.max(1);
    let mut variants = vec![];
    let (mut events, mut ns) = (0u64, 0f64);
    for v in s.variants() {
        let (mut ev, mut t) = (0u64, 0f64);
        for _ in 0..iterations {
            let start = performance_now();
            let out = schedlab_sim::simulate(&cfg, v)
                .map_err(|e| JsError::new(&format!("{}: {e}", v.name)))?;
            t += (performance_now() - start) * 1e6;
            ev += out.events_processed;
        }
        variants.push(json!({"variant": v.name, "events": ev, "ns": t.round() as u64}));
        events += ev;
        ns += t;
    }
    Ok(json!({
        "iterations": iterations,
        "events": events,
        "ns": ns.round() as u64,
        "events_per_s": if ns > 0.0 { events as f64 / (ns / 1e9) } else { 0.0 },
        "variants": variants,
    })
    .to_string())
}

/// The bundled experiments' names, as a JSON array (`schedlab presets`).
#[wasm_bindgen]
pub fn presets() -> String {
    let names: Vec<&str> = schedlab_scenario::presets::presets()
        .iter()
        .map(|p| p.name)
        .collect();
    json!(names).to_string()
}

/// A bundled experiment's scenario document (what `schedlab run --preset NAME` runs).
#[wasm_bindgen]
pub fn preset_json(name: &str) -> Result<String, JsError> {
    schedlab_scenario::presets::preset(name)
        .map(|p| p.scenario().to_json())
        .ok_or_else(|| JsError::new(&format!("no preset {name:?}")))
}

#[cfg(test)]
mod tests {
    use super::hashes_json;

    #[test]
    fn the_hashes_are_the_reports() {
        let p = schedlab_scenario::presets::preset("sched-idle").unwrap();
        let s = p.scenario();
        let got: serde_json::Value =
            serde_json::from_str(&hashes_json(&s.to_json()).unwrap()).unwrap();
        let cfg = s.sim_config();
        for (i, v) in s.variants().iter().enumerate() {
            let out = schedlab_sim::simulate(&cfg, v).unwrap();
            assert_eq!(
                got["variants"][i]["trace_hash"],
                format!("{:016x}", schedlab_report::export::trace_hash(&out.trace))
            );
            assert_eq!(got["variants"][i]["variant"], v.name.as_str());
        }
    }

    #[test]
    fn a_bad_scenario_is_an_error_with_the_field() {
        let e = hashes_json(r#"{"version": 1, "name": "x", "cpus": 0}"#).unwrap_err();
        assert!(e.contains("cpus"), "{e}");
    }
}
