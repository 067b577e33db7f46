//! A timeline's bulk records (slices, waits, snapshots) serialized as one byte string of
//! fixed-width little-endian records each, not as a map per record with its field names: the
//! page's worker sends a run's timeline in one message, and these lists are most of it.
//! `#[serde(with = "crate::packed::slices")]` and the like on [`crate::timeline::RunTimeline`].
//!
//! Hand-written because no serde helper packs a list of structs into fixed-width records;
//! each record's fields are destructured whole, so a field added to one of the types does not
//! compile until its encoding here says where it goes.

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::{Deserializer, Serializer};

use crate::timeline::{EndReason, Slice, Wait};
use schedlab_sim::Snapshot;

/// A record of fixed width.
trait Record: Sized {
    /// What the list holds, for messages.
    const NAME: &'static str;
    /// Bytes per record.
    const SIZE: usize;
    fn put(&self, out: &mut Vec<u8>);
    /// Reads one record from exactly `SIZE` bytes.
    fn get(b: &mut Bytes<'_>) -> Result<Self, String>;
}

/// A cursor over one record's bytes.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("split at N")
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn i64(&mut self) -> i64 {
        i64::from_le_bytes(self.take())
    }
}

fn boolean(v: u8, what: &str) -> Result<bool, String> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(format!("{what}: {v} is not 0 or 1")),
    }
}

impl Record for Slice {
    const NAME: &'static str = "slices";
    // cpu, pid, start, end, reason's tag, its task, its wakeup flag.
    const SIZE: usize = 4 + 4 + 8 + 8 + 1 + 4 + 1;
    fn put(&self, out: &mut Vec<u8>) {
        let Slice {
            cpu,
            pid,
            start_ns,
            end_ns,
            reason,
        } = *self;
        out.extend_from_slice(&cpu.to_le_bytes());
        out.extend_from_slice(&pid.to_le_bytes());
        out.extend_from_slice(&start_ns.to_le_bytes());
        out.extend_from_slice(&end_ns.to_le_bytes());
        let (tag, by, wakeup) = match reason {
            EndReason::Preempted { by, wakeup } => (0u8, by, wakeup),
            EndReason::Slept => (1, 0, false),
            EndReason::Exited => (2, 0, false),
            EndReason::TraceEnd => (3, 0, false),
        };
        out.push(tag);
        out.extend_from_slice(&by.to_le_bytes());
        out.push(wakeup as u8);
    }
    fn get(b: &mut Bytes<'_>) -> Result<Slice, String> {
        let (cpu, pid, start_ns, end_ns) = (b.u32(), b.u32(), b.u64(), b.u64());
        let (tag, by, wakeup) = (b.u8(), b.u32(), boolean(b.u8(), "a slice's wakeup flag")?);
        let reason = match tag {
            0 => EndReason::Preempted { by, wakeup },
            1 => EndReason::Slept,
            2 => EndReason::Exited,
            3 => EndReason::TraceEnd,
            t => return Err(format!("a slice's end reason: {t} is not 0 to 3")),
        };
        Ok(Slice {
            cpu,
            pid,
            start_ns,
            end_ns,
            reason,
        })
    }
}

impl Record for Wait {
    const NAME: &'static str = "waits";
    const SIZE: usize = 4 + 8 + 8;
    fn put(&self, out: &mut Vec<u8>) {
        let Wait {
            pid,
            start_ns,
            end_ns,
        } = *self;
        out.extend_from_slice(&pid.to_le_bytes());
        out.extend_from_slice(&start_ns.to_le_bytes());
        out.extend_from_slice(&end_ns.to_le_bytes());
    }
    fn get(b: &mut Bytes<'_>) -> Result<Wait, String> {
        Ok(Wait {
            pid: b.u32(),
            start_ns: b.u64(),
            end_ns: b.u64(),
        })
    }
}

impl Record for Snapshot {
    const NAME: &'static str = "snapshots";
    const SIZE: usize = 8 + 4 + 4 + 8 * 4 + 1;
    fn put(&self, out: &mut Vec<u8>) {
        let Snapshot {
            t_ns,
            cpu,
            pid,
            vruntime,
            deadline,
            v,
            lag,
            eligible,
        } = *self;
        out.extend_from_slice(&t_ns.to_le_bytes());
        out.extend_from_slice(&cpu.to_le_bytes());
        out.extend_from_slice(&pid.to_le_bytes());
        for x in [vruntime, deadline, v, lag] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.push(eligible as u8);
    }
    fn get(b: &mut Bytes<'_>) -> Result<Snapshot, String> {
        Ok(Snapshot {
            t_ns: b.u64(),
            cpu: b.u32(),
            pid: b.u32(),
            vruntime: b.i64(),
            deadline: b.i64(),
            v: b.i64(),
            lag: b.i64(),
            eligible: boolean(b.u8(), "a snapshot's eligibility")?,
        })
    }
}

fn serialize<T: Record, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    let mut buf = Vec::with_capacity(v.len() * T::SIZE);
    for r in v {
        r.put(&mut buf);
    }
    s.serialize_bytes(&buf)
}

fn decode<T: Record>(bytes: &[u8]) -> Result<Vec<T>, String> {
    if bytes.len() % T::SIZE != 0 {
        return Err(format!(
            "packed {}: {} bytes is not a whole number of {}-byte records",
            T::NAME,
            bytes.len(),
            T::SIZE
        ));
    }
    bytes
        .chunks_exact(T::SIZE)
        .enumerate()
        .map(|(i, c)| T::get(&mut Bytes(c)).map_err(|e| format!("packed {} #{i}: {e}", T::NAME)))
        .collect()
}

struct Packed<T>(std::marker::PhantomData<T>);

impl<'de, T: Record> Visitor<'de> for Packed<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a byte string of {}-byte {} records", T::SIZE, T::NAME)
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<T>, E> {
        decode(v).map_err(E::custom)
    }
    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<T>, E> {
        decode(&v).map_err(E::custom)
    }
    // Formats without byte strings (JSON) write the bytes as a sequence of numbers.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut buf = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(b) = seq.next_element::<u8>()? {
            buf.push(b);
        }
        decode(&buf).map_err(A::Error::custom)
    }
}

fn deserialize<'de, T: Record, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    // A byte buffer, not borrowed bytes: ciborium hands over only short byte strings by
    // reference.
    d.deserialize_byte_buf(Packed::<T>(std::marker::PhantomData))
}

/// `#[serde(with = "crate::packed::slices")]`.
pub mod slices {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[Slice], s: S) -> Result<S::Ok, S::Error> {
        super::serialize(v, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Slice>, D::Error> {
        super::deserialize(d)
    }
}

/// `#[serde(with = "crate::packed::waits")]`.
pub mod waits {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[Wait], s: S) -> Result<S::Ok, S::Error> {
        super::serialize(v, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Wait>, D::Error> {
        super::deserialize(d)
    }
}

/// `#[serde(with = "crate::packed::snapshots")]`.
pub mod snapshots {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[Snapshot], s: S) -> Result<S::Ok, S::Error> {
        super::serialize(v, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Snapshot>, D::Error> {
        super::deserialize(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack<T: Record>(v: &[T]) -> Vec<u8> {
        let mut buf = vec![];
        v.iter().for_each(|r| r.put(&mut buf));
        buf
    }

    #[test]
    fn records_come_back_as_they_went() {
        let slices: Vec<Slice> = [
            EndReason::Preempted {
                by: 7,
                wakeup: true,
            },
            EndReason::Preempted {
                by: u32::MAX,
                wakeup: false,
            },
            EndReason::Slept,
            EndReason::Exited,
            EndReason::TraceEnd,
        ]
        .into_iter()
        .enumerate()
        .map(|(i, reason)| Slice {
            cpu: i as u32,
            pid: 100 + i as u32,
            start_ns: u64::MAX - 10 + i as u64,
            end_ns: i as u64,
            reason,
        })
        .collect();
        let bytes = pack(&slices);
        assert_eq!(bytes.len(), 5 * 30);
        assert_eq!(decode::<Slice>(&bytes), Ok(slices));
        let waits = vec![Wait {
            pid: 3,
            start_ns: 1,
            end_ns: u64::MAX,
        }];
        assert_eq!(decode::<Wait>(&pack(&waits)), Ok(waits));
        let snaps = vec![Snapshot {
            t_ns: 9,
            cpu: 1,
            pid: 2,
            vruntime: i64::MIN,
            deadline: -5,
            v: i64::MAX,
            lag: 0,
            eligible: true,
        }];
        assert_eq!(decode::<Snapshot>(&pack(&snaps)), Ok(snaps));
    }

    #[test]
    fn malformed_records_are_errors_that_say_what_is_wrong() {
        let e = decode::<Slice>(&[0; 29]).unwrap_err();
        assert!(
            e.contains("29 bytes is not a whole number of 30-byte records"),
            "{e}"
        );
        let mut bad = pack(&[Slice {
            cpu: 0,
            pid: 1,
            start_ns: 0,
            end_ns: 1,
            reason: EndReason::Slept,
        }]);
        bad[24] = 9;
        let e = decode::<Slice>(&bad).unwrap_err();
        assert!(
            e.contains("packed slices #0: a slice's end reason: 9"),
            "{e}"
        );
        let mut bad = pack(&[Snapshot {
            t_ns: 0,
            cpu: 0,
            pid: 1,
            vruntime: 0,
            deadline: 0,
            v: 0,
            lag: 0,
            eligible: false,
        }]);
        *bad.last_mut().unwrap() = 2;
        let e = decode::<Snapshot>(&bad).unwrap_err();
        assert!(e.contains("eligibility: 2 is not 0 or 1"), "{e}");
    }
}
