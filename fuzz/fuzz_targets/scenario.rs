//! The scenario parser and validator: `parse_json` (strict JSON: duplicate keys are errors)
//! and `Scenario::from_json` / `from_value`.
//!
//! Oracles: no panic; every error has a message; `from_json(text)` and
//! `from_value(parse_json(text))` agree; a valid scenario's canonical JSON parses back to an
//! equal scenario, its expansion validates, and its engine config passes the engine's own
//! check (a validated scenario cannot make the engine fail); one input costs at most 2 s.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::within;
use schedlab_scenario::{parse_json, Scenario};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within(
        "parsing and validating a scenario",
        Duration::from_secs(2),
        || {
            let parsed = Scenario::from_json(text);
            match &parsed {
                Ok(s) => {
                    let again = Scenario::from_json(&s.to_json())
                        .unwrap_or_else(|e| panic!("canonical JSON does not parse back: {e}"));
                    assert_eq!(&again, s, "canonical JSON parses back to another scenario");
                    let expanded = s.expanded();
                    Scenario::from_json(&expanded.to_json())
                        .unwrap_or_else(|e| panic!("the expanded scenario does not validate: {e}"));
                    s.sim_config().check().unwrap_or_else(|e| {
                        panic!("a validated scenario fails the engine's check: {e}")
                    });
                }
                Err(errs) => {
                    assert!(!errs.0.is_empty(), "an error without a message");
                    for e in &errs.0 {
                        assert!(!e.message.is_empty(), "an empty message at {:?}", e.path);
                    }
                }
            }
            if let Ok(value) = parse_json(text) {
                let by_value = Scenario::from_value(value);
                assert_eq!(
                    by_value.is_ok(),
                    parsed.is_ok(),
                    "from_json and from_value disagree: {:?} vs {:?}",
                    parsed.as_ref().err(),
                    by_value.as_ref().err()
                );
                if let (Ok(a), Ok(b)) = (&parsed, &by_value) {
                    assert_eq!(a, b, "from_json and from_value give different scenarios");
                }
            }
        },
    );
});
