//! The scenario key `"cache"`: "measured", "off", or the four parameters; everything else is
//! an error naming the field.

use schedlab_scenario::{CacheSetting, Scenario};
use schedlab_sim::{CacheCost, MEASURED_CACHE_COST};

fn doc(cache: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "c", "cpus": 1, "hz": 1000, "duration_ms": 10, "seed": 1, {cache}
            "tasks": [{{"name": "a", "program": [{{"run": "forever"}}]}}]}}"#
    )
}

fn parse(cache: &str) -> Result<Scenario, String> {
    Scenario::from_json(&doc(cache)).map_err(|e| e.to_string())
}

#[test]
fn default_is_off() {
    let s = parse("").unwrap();
    assert_eq!(s.cache, None);
    assert_eq!(s.sim_config().cache, None);
    let s = parse(r#""cache": "off","#).unwrap();
    assert_eq!(s.cache, Some(CacheSetting::Off));
    assert_eq!(s.sim_config().cache, None);
}

#[test]
fn measured_and_custom_reach_the_engine_and_round_trip() {
    let s = parse(r#""cache": "measured","#).unwrap();
    assert_eq!(s.sim_config().cache, Some(MEASURED_CACHE_COST));
    let again = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(again.cache, Some(CacheSetting::Measured));
    let s = parse(
        r#""cache": {"refill_ns": 5000, "migrate_ns": 7000, "hot_ns": 20000, "cold_ns": 150000},"#,
    )
    .unwrap();
    let want = CacheCost {
        refill_ns: 5_000,
        migrate_ns: 7_000,
        hot_ns: 20_000,
        cold_ns: 150_000,
    };
    assert_eq!(s.sim_config().cache, Some(want));
    let again = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(again.sim_config().cache, Some(want));
}

#[test]
fn errors_name_the_field() {
    let cases = [
        (r#""cache": "warm","#, "cache", "\"measured\", \"off\""),
        (r#""cache": 3,"#, "cache", "expected"),
        (
            r#""cache": {"refill_ns": 1, "migrate_ns": 1, "hot_ns": 1},"#,
            "cache.cold_ns",
            "missing",
        ),
        (
            r#""cache": {"refill_ns": 1, "migrate_ns": 1, "hot_ns": 9, "cold_ns": 9},"#,
            "cache.cold_ns",
            "above hot_ns",
        ),
        (
            r#""cache": {"refill_ns": -1, "migrate_ns": 1, "hot_ns": 1, "cold_ns": 9},"#,
            "cache.refill_ns",
            "whole number",
        ),
        (
            r#""cache": {"refill_ns": 1, "migrate_ns": 1, "hot_ns": 1, "cold_ns": 9, "warm": 1},"#,
            "cache.warm",
            "unknown field",
        ),
        (
            r#""cache": {"refill_ns": 1, "migrate_ns": 99000000, "hot_ns": 1, "cold_ns": 9},"#,
            "cache.migrate_ns",
            "out of range",
        ),
    ];
    for (cache, path, words) in cases {
        let err = parse(cache).unwrap_err();
        assert!(
            err.contains(path) && err.contains(words),
            "{cache}: {err} (want {path}: …{words}…)"
        );
    }
}
