//! The encoding of the messages between the page and its worker: CBOR (ciborium). It is
//! self-describing, so the scenario crosses as the typed value the page validated (its
//! numbers keep the form they were written in) and the results as the report crate's own
//! types, with nothing parsed again on the other side.

use gloo::worker::Codec;
use js_sys::Uint8Array;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// CBOR in a `Uint8Array`.
pub struct Cbor;

impl Codec for Cbor {
    fn encode<I: Serialize>(input: I) -> JsValue {
        let mut buf = Vec::new();
        // Writing to a Vec cannot fail, and every message type serializes.
        ciborium::into_writer(&input, &mut buf).expect("a worker message serializes");
        Uint8Array::from(buf.as_slice()).into()
    }

    fn decode<O: for<'de> Deserialize<'de>>(input: JsValue) -> O {
        let data = Uint8Array::from(input).to_vec();
        // Both ends are this crate's code, built together: a message that does not decode is a
        // bug, not input.
        ciborium::from_reader(data.as_slice()).expect("a worker message decodes")
    }
}
