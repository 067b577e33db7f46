//! The link decoder (`schedlab_scenario::link`): `v1.` + base64url(deflate(JSON)), found in a
//! whole URL, a fragment or the bare payload.
//!
//! Oracles: no panic; a decoded link re-encodes to a link that decodes to the same scenario
//! and view; a decompression bomb is refused within the scenario size cap; 2 s per input.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::within;
use schedlab_scenario::link;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within("decoding a link", Duration::from_secs(2), || {
        let _ = link::find_payload(text);
        let _ = link::embed_view(text);
        match link::decode(text) {
            Ok(l) => {
                let payload = link::encode(&l.scenario, &l.view);
                let again = link::decode(&payload)
                    .unwrap_or_else(|e| panic!("a re-encoded link does not decode: {e}"));
                assert_eq!(again, l, "a re-encoded link decodes to something else");
            }
            Err(e) => assert!(!e.0.is_empty(), "an error without a message"),
        }
    });
});
