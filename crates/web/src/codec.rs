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

/// A message as a `Uint8Array` of CBOR, unless it takes more than `max` bytes: then how many
/// it had taken when it was stopped.
pub fn encode_within<T: Serialize>(value: &T, max: usize) -> Result<JsValue, usize> {
    to_cbor_within(value, max).map(|buf| Uint8Array::from(buf.as_slice()).into())
}

/// `value` as CBOR, unless it takes more than `max` bytes (then how many it had taken): the
/// buffer never grows past `max`, so a message too large for wasm32's memory is refused
/// instead of failing an allocation.
pub fn to_cbor_within<T: Serialize>(value: &T, max: usize) -> Result<Vec<u8>, usize> {
    struct Capped {
        buf: Vec<u8>,
        max: usize,
        over: bool,
    }
    impl std::io::Write for Capped {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            if self.buf.len() + data.len() > self.max {
                self.over = true;
                return Err(std::io::Error::other("message too large"));
            }
            self.buf.extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Capped {
        buf: Vec::new(),
        max,
        over: false,
    };
    match ciborium::into_writer(value, &mut w) {
        Ok(()) => Ok(w.buf),
        // Only the cap makes writing fail, and every message type serializes.
        Err(_) => {
            debug_assert!(w.over);
            Err(w.buf.len())
        }
    }
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
    use super::{to_cbor_within, Bytes};

    #[test]
    fn a_timeline_crosses_whole_and_packed() {
        use schedlab_report::timeline::{EndReason, RunTimeline, Slice, Wait};
        let slices: Vec<Slice> = (0..1000u64)
            .map(|i| Slice {
                cpu: (i % 8) as u32,
                pid: 1 + (i % 5) as u32,
                start_ns: i * 1000,
                end_ns: i * 1000 + 700,
                reason: if i % 3 == 0 {
                    EndReason::Preempted {
                        by: 2,
                        wakeup: i % 2 == 0,
                    }
                } else {
                    EndReason::Slept
                },
            })
            .collect();
        let waits: Vec<Wait> = (0..1000u64)
            .map(|i| Wait {
                pid: 1 + (i % 5) as u32,
                start_ns: i * 1000 + 700,
                end_ns: i * 1000 + 900,
            })
            .collect();
        let tl = RunTimeline {
            cpus: 8,
            end_ns: 1_000_000,
            tasks: (1..=5).map(|p| (p, format!("t{p}"))).collect(),
            slices,
            waits,
            snapshots: vec![],
            why: vec![(5, 1, vec!["a reason".into()])],
            eevdf: true,
        };
        let bytes = to_cbor_within(&tl, 1 << 20).unwrap();
        let back: RunTimeline = ciborium::from_reader(bytes.as_slice()).unwrap();
        assert_eq!(back, tl);
        // 30 bytes a slice and 20 a wait, plus a little for the rest.
        assert!(
            bytes.len() < 1000 * (30 + 20) + 200,
            "{} bytes",
            bytes.len()
        );
    }

    #[test]
    fn a_message_past_the_cap_is_refused_not_grown() {
        let big = Bytes(vec![7; 10_000]);
        let whole = to_cbor_within(&big, 1 << 20).unwrap();
        assert_eq!(
            whole.len(),
            10_003,
            "a 2-byte length header, then the bytes"
        );
        assert_eq!(to_cbor_within(&big, whole.len()), Ok(whole.clone()));
        let stopped = to_cbor_within(&big, 9_999).unwrap_err();
        assert!(stopped <= 9_999, "stopped at {stopped} bytes");
        let rows: Vec<(u32, String)> = (0..1000).map(|i| (i, format!("task {i}"))).collect();
        assert!(to_cbor_within(&rows, 500).is_err());
        assert!(to_cbor_within(&rows, 1 << 20).is_ok());
    }

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
