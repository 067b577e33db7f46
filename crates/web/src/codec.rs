//! The encoding of the messages between the page and its worker: CBOR (ciborium). It is
//! self-describing, so the scenario crosses as the typed value the page validated (its
//! numbers keep the form they were written in) and the results as the report crate's own
//! types, with nothing parsed again on the other side. Chunks of a recording cross as CBOR
//! byte strings ([`Bytes`]).

use js_sys::Uint8Array;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// A message as a `Uint8Array` of CBOR.
pub fn encode<T: Serialize>(value: &T) -> JsValue {
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail, and every message type serializes.
    ciborium::into_writer(value, &mut buf).expect("a worker message serializes");
    Uint8Array::from(buf.as_slice()).into()
}

/// A message from a `Uint8Array` of CBOR.
pub fn decode<T: for<'de> Deserialize<'de>>(data: JsValue) -> T {
    let data = Uint8Array::new(&data).to_vec();
    // Both ends are this crate's code, built together: a message that does not decode is a
    // bug, not input (it panics, and the page shows the panic; a worker's panic is its
    // `error` event).
    ciborium::from_reader(data.as_slice()).expect("a worker message decodes")
}

/// Bytes that serialize as one CBOR byte string (not an array of numbers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

#[cfg(test)]
mod tests {
    use super::Bytes;

    #[test]
    fn bytes_are_one_cbor_byte_string() {
        let mut buf = Vec::new();
        ciborium::into_writer(&Bytes(vec![1, 2, 200]), &mut buf).unwrap();
        // Major type 2 (byte string), length 3, then the bytes as they are.
        assert_eq!(buf, vec![0x43, 1, 2, 200]);
        let back: Bytes = ciborium::from_reader(buf.as_slice()).unwrap();
        assert_eq!(back, Bytes(vec![1, 2, 200]));
    }
}
