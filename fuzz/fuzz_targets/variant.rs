//! The variant parser (`Variant::parse`: `version[:FEATURE,NO_FEATURE,tunable=value…]`).
//!
//! Oracles: no panic (overflow checks are on in fuzz builds); a parsed variant's name parses
//! back to an equal variant; its derived parameters can be computed for any CPU count the
//! engine accepts; 100 ms per input.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::within;
use schedlab_sim::Variant;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within(
        "parsing a variant",
        Duration::from_millis(100),
        || match Variant::parse(text) {
            Ok(v) => {
                let again = Variant::parse(&v.name)
                    .unwrap_or_else(|e| panic!("its own name does not parse: {e}"));
                assert_eq!(again, v, "its own name parses to another variant");
                for cpus in [1, 2, 3, 8, 64, 1024] {
                    let _ = v.params(cpus);
                }
            }
            Err(e) => assert!(!e.0.is_empty(), "an error without a message"),
        },
    );
});
