//! A trace's events, kept in 16 bytes each.
//!
//! An [`Event`] as the reports read it is 32 bytes (a 64-bit time, a CPU, and an enum whose
//! widest variant holds a 64-bit runtime). Kept, every event is two 64-bit words:
//!
//! - word 0: the time in ns (48 bits, 78 hours) and the CPU (16 bits);
//! - word 1: the kind (3 bits) and its fields above it: a pid takes 22 bits (the kernel's
//!   `PID_MAX_LIMIT` is 2^22), a CPU 16, `prev_state` 2, a `sched_stat_runtime` delta 39 (549 s).
//!
//! An event a field of which does not fit (a later time, a larger pid or CPU number, a longer
//! runtime: only possible in imported traces or very long runs) is kept whole in a side list,
//! and its word 1 holds its index there, so nothing is ever lost or clipped. The encoding is
//! private: readers get [`Event`]s by value from [`Events::iter`] and [`Events::get`].
//!
//! The events are kept in chunks of [`CHUNK_EVENTS`] (1 MiB), so a growing trace never copies
//! what it holds and never asks for one large block: its memory is its length, plus at most
//! one chunk (on wasm32 a doubling `Vec` would need 1.5× its size during each growth and
//! cannot hold more than 2 GiB at all).

use alloc::vec::Vec;
use core::fmt;
use core::ops::{Bound, RangeBounds};

use crate::trace::{Event, EventKind, Pid, PrevState};

const T_BITS: u32 = 48;
const CPU_BITS: u32 = 16;
const PID_BITS: u32 = 22;
const RUNTIME_BITS: u32 = 39;
const TAG_BITS: u32 = 3;

const T_MASK: u64 = (1 << T_BITS) - 1;
const CPU_MASK: u64 = (1 << CPU_BITS) - 1;
const PID_MASK: u64 = (1 << PID_BITS) - 1;
const RUNTIME_MASK: u64 = (1 << RUNTIME_BITS) - 1;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;

const WAKING: u64 = 0;
const WAKEUP: u64 = 1;
const WAKEUP_NEW: u64 = 2;
const SWITCH: u64 = 3;
const MIGRATE: u64 = 4;
const RUNTIME: u64 = 5;
const WIDE: u64 = 7;

/// The bytes one kept event takes (besides the rare one kept whole, see the module's doc).
pub const KEPT_EVENT_BYTES: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Packed([u64; 2]);
const _: () = assert!(core::mem::size_of::<Packed>() == KEPT_EVENT_BYTES);

/// Events per chunk.
pub const CHUNK_EVENTS: usize = 1 << CHUNK_BITS;
const CHUNK_BITS: u32 = 16;

/// A trace's events in time order, 16 bytes each (see the module's doc).
#[derive(Clone, Default)]
pub struct Events {
    /// Full chunks of `CHUNK_EVENTS`, then the last one (never empty unless it is the only one).
    chunks: Vec<Vec<Packed>>,
    len: usize,
    wide: Vec<Event>,
}

fn fits_pid(p: Pid) -> bool {
    (p as u64) <= PID_MASK
}
fn fits_cpu(c: u32) -> bool {
    (c as u64) <= CPU_MASK
}

fn state_bits(s: PrevState) -> u64 {
    match s {
        PrevState::Running => 0,
        PrevState::Sleeping => 1,
        PrevState::Dead => 2,
    }
}

/// Word 1 of `kind`, when all its fields fit.
#[inline]
fn pack_kind(kind: &EventKind) -> Option<u64> {
    let pid_cpu = |tag: u64, pid: Pid, cpu: u32| {
        (fits_pid(pid) && fits_cpu(cpu))
            .then_some(tag | (pid as u64) << TAG_BITS | (cpu as u64) << (TAG_BITS + PID_BITS))
    };
    match *kind {
        EventKind::Waking { pid, target_cpu } => pid_cpu(WAKING, pid, target_cpu),
        EventKind::Wakeup { pid, target_cpu } => pid_cpu(WAKEUP, pid, target_cpu),
        EventKind::WakeupNew { pid, target_cpu } => pid_cpu(WAKEUP_NEW, pid, target_cpu),
        EventKind::Switch {
            prev_pid,
            prev_state,
            next_pid,
        } => (fits_pid(prev_pid) && fits_pid(next_pid)).then_some(
            SWITCH
                | (prev_pid as u64) << TAG_BITS
                | (next_pid as u64) << (TAG_BITS + PID_BITS)
                | state_bits(prev_state) << (TAG_BITS + 2 * PID_BITS),
        ),
        EventKind::MigrateTask {
            pid,
            orig_cpu,
            dest_cpu,
        } => (fits_pid(pid) && fits_cpu(orig_cpu) && fits_cpu(dest_cpu)).then_some(
            MIGRATE
                | (pid as u64) << TAG_BITS
                | (orig_cpu as u64) << (TAG_BITS + PID_BITS)
                | (dest_cpu as u64) << (TAG_BITS + PID_BITS + CPU_BITS),
        ),
        EventKind::StatRuntime { pid, runtime_ns } => (fits_pid(pid) && runtime_ns <= RUNTIME_MASK)
            .then_some(RUNTIME | (pid as u64) << TAG_BITS | runtime_ns << (TAG_BITS + PID_BITS)),
    }
}

impl Events {
    /// No events.
    pub const fn new() -> Self {
        Events {
            chunks: Vec::new(),
            len: 0,
            wide: Vec::new(),
        }
    }

    /// Room for `n` events (up to a chunk) without reallocating.
    pub fn with_capacity(n: usize) -> Self {
        let mut e = Events::new();
        if n > 0 {
            e.chunks.push(Vec::with_capacity(n.min(CHUNK_EVENTS)));
        }
        e
    }

    /// How many events.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes the events take on the heap (what is allocated, not just what is used).
    pub fn heap_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * core::mem::size_of::<Packed>())
            .sum::<usize>()
            + self.chunks.capacity() * core::mem::size_of::<Vec<Packed>>()
            + self.wide.capacity() * core::mem::size_of::<Event>()
    }

    #[inline]
    fn packed_at(&self, i: usize) -> Packed {
        self.chunks[i >> CHUNK_BITS][i & (CHUNK_EVENTS - 1)]
    }

    /// Appends one event.
    #[inline]
    pub fn push(&mut self, e: Event) {
        let w0 = (e.t_ns <= T_MASK && fits_cpu(e.cpu)).then_some(e.t_ns | (e.cpu as u64) << T_BITS);
        let packed = match (w0, pack_kind(&e.kind)) {
            (Some(w0), Some(w1)) => Packed([w0, w1]),
            _ => self.push_wide(e),
        };
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK_EVENTS => {
                if c.len() == c.capacity() {
                    // Grow as a Vec does, but never past a chunk.
                    let want = (c.capacity() * 2).clamp(4, CHUNK_EVENTS);
                    c.reserve_exact(want - c.len());
                }
                c.push(packed)
            }
            _ => self.push_chunk(packed),
        }
        self.len += 1;
    }

    #[cold]
    fn push_wide(&mut self, e: Event) -> Packed {
        self.wide.push(e);
        Packed([0, WIDE | ((self.wide.len() - 1) as u64) << TAG_BITS])
    }

    #[cold]
    fn push_chunk(&mut self, p: Packed) {
        // The first chunk grows as a `Vec` does (small traces stay small); the later ones are
        // allocated whole.
        let cap = if self.chunks.is_empty() {
            0
        } else {
            CHUNK_EVENTS
        };
        let mut c = Vec::with_capacity(cap);
        c.push(p);
        self.chunks.push(c);
    }

    #[inline]
    fn decode(&self, p: Packed) -> Event {
        let [w0, w1] = p.0;
        let pid = |shift: u32| ((w1 >> shift) & PID_MASK) as Pid;
        let cpu = |shift: u32| ((w1 >> shift) & CPU_MASK) as u32;
        // Every kind's first field is a pid; a wakeup's second a CPU.
        let (first, target_cpu) = (pid(TAG_BITS), cpu(TAG_BITS + PID_BITS));
        let kind = match w1 & TAG_MASK {
            WAKING => EventKind::Waking {
                pid: first,
                target_cpu,
            },
            WAKEUP => EventKind::Wakeup {
                pid: first,
                target_cpu,
            },
            WAKEUP_NEW => EventKind::WakeupNew {
                pid: first,
                target_cpu,
            },
            SWITCH => EventKind::Switch {
                prev_pid: first,
                next_pid: pid(TAG_BITS + PID_BITS),
                prev_state: match (w1 >> (TAG_BITS + 2 * PID_BITS)) & 3 {
                    0 => PrevState::Running,
                    1 => PrevState::Sleeping,
                    _ => PrevState::Dead,
                },
            },
            MIGRATE => EventKind::MigrateTask {
                pid: first,
                orig_cpu: target_cpu,
                dest_cpu: cpu(TAG_BITS + PID_BITS + CPU_BITS),
            },
            RUNTIME => EventKind::StatRuntime {
                pid: first,
                runtime_ns: (w1 >> (TAG_BITS + PID_BITS)) & RUNTIME_MASK,
            },
            _ => return self.wide[(w1 >> TAG_BITS) as usize],
        };
        Event {
            t_ns: w0 & T_MASK,
            cpu: (w0 >> T_BITS) as u32,
            kind,
        }
    }

    /// The event at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Event> {
        (i < self.len).then(|| self.decode(self.packed_at(i)))
    }

    /// The first event.
    pub fn first(&self) -> Option<Event> {
        self.get(0)
    }

    /// The last event.
    pub fn last(&self) -> Option<Event> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The events in order, by value.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            events: self,
            front: 0,
            back: self.len,
        }
    }

    /// The events of an index range, in order.
    ///
    /// # Panics
    /// If the range is out of bounds, as slicing would.
    pub fn range(&self, r: impl RangeBounds<usize>) -> Iter<'_> {
        let past = |i: usize| i.checked_add(1).expect("range end past usize::MAX");
        let from = match r.start_bound() {
            Bound::Included(&i) => i,
            Bound::Excluded(&i) => past(i),
            Bound::Unbounded => 0,
        };
        let to = match r.end_bound() {
            Bound::Included(&i) => past(i),
            Bound::Excluded(&i) => i,
            Bound::Unbounded => self.len(),
        };
        assert!(
            from <= to && to <= self.len,
            "range {from}..{to} out of {} events",
            self.len
        );
        Iter {
            events: self,
            front: from,
            back: to,
        }
    }

    /// The number of leading events for which `pred` holds (the events must be partitioned
    /// by it, as for `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&Event) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(&self.decode(self.packed_at(mid))) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Keeps only the events for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Event) -> bool) {
        let old = core::mem::take(self);
        for e in old.iter() {
            if keep(&e) {
                self.push(e);
            }
        }
    }

    /// Keeps the first `n` events.
    pub fn truncate(&mut self, n: usize) {
        if n < self.len() {
            *self = self.range(..n).collect();
        }
    }

    /// The events as a `Vec` of [`Event`]s (32 bytes each).
    pub fn to_vec(&self) -> Vec<Event> {
        self.iter().collect()
    }
}

/// Two event lists are equal when they hold the same events in the same order.
impl PartialEq for Events {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}
impl Eq for Events {}

impl PartialEq<Vec<Event>> for Events {
    fn eq(&self, other: &Vec<Event>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl core::hash::Hash for Events {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.len().hash(h);
        for e in self.iter() {
            e.hash(h);
        }
    }
}

impl FromIterator<Event> for Events {
    fn from_iter<I: IntoIterator<Item = Event>>(it: I) -> Self {
        let it = it.into_iter();
        let mut out = Events::with_capacity(it.size_hint().0);
        for e in it {
            out.push(e);
        }
        out
    }
}

impl Extend<Event> for Events {
    fn extend<I: IntoIterator<Item = Event>>(&mut self, it: I) {
        for e in it {
            self.push(e);
        }
    }
}

impl From<Vec<Event>> for Events {
    fn from(v: Vec<Event>) -> Self {
        v.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a Events {
    type Item = Event;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The events of an [`Events`], by value.
#[derive(Clone)]
pub struct Iter<'a> {
    events: &'a Events,
    front: usize,
    back: usize,
}

impl Iterator for Iter<'_> {
    type Item = Event;
    #[inline]
    fn next(&mut self) -> Option<Event> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.events.decode(self.events.packed_at(self.front - 1))
        })
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<Event> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Event> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.events.decode(self.events.packed_at(self.back))
        })
    }
}

impl ExactSizeIterator for Iter<'_> {}
impl core::iter::FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind(t_ns: u64, cpu: u32, pid: Pid, other_cpu: u32, runtime_ns: u64) -> Vec<Event> {
        let kinds = [
            EventKind::Waking {
                pid,
                target_cpu: other_cpu,
            },
            EventKind::Wakeup {
                pid,
                target_cpu: other_cpu,
            },
            EventKind::WakeupNew {
                pid,
                target_cpu: other_cpu,
            },
            EventKind::Switch {
                prev_pid: pid,
                prev_state: PrevState::Running,
                next_pid: 0,
            },
            EventKind::Switch {
                prev_pid: 0,
                prev_state: PrevState::Sleeping,
                next_pid: pid,
            },
            EventKind::Switch {
                prev_pid: pid,
                prev_state: PrevState::Dead,
                next_pid: pid,
            },
            EventKind::MigrateTask {
                pid,
                orig_cpu: cpu,
                dest_cpu: other_cpu,
            },
            EventKind::StatRuntime { pid, runtime_ns },
        ];
        kinds
            .iter()
            .map(|&kind| Event { t_ns, cpu, kind })
            .collect()
    }

    #[test]
    fn every_field_comes_back_at_its_limits_and_past_them() {
        let mut all = Vec::new();
        // At the packed limits, then one past each (kept whole), then the types' limits.
        all.extend(every_kind(
            T_MASK,
            CPU_MASK as u32,
            PID_MASK as Pid,
            0,
            RUNTIME_MASK,
        ));
        all.extend(every_kind(0, 0, 1, CPU_MASK as u32, 0));
        all.extend(every_kind(T_MASK + 1, 3, 7, 2, 10));
        all.extend(every_kind(5, CPU_MASK as u32 + 1, 7, 2, 10));
        all.extend(every_kind(5, 1, PID_MASK as Pid + 1, 2, 10));
        all.extend(every_kind(5, 1, 7, CPU_MASK as u32 + 1, 10));
        all.extend(every_kind(5, 1, 7, 2, RUNTIME_MASK + 1));
        all.extend(every_kind(u64::MAX, u32::MAX, Pid::MAX, u32::MAX, u64::MAX));
        let ev: Events = all.iter().copied().collect();
        assert_eq!(ev.len(), all.len());
        assert_eq!(ev.to_vec(), all);
        for (i, e) in all.iter().enumerate() {
            assert_eq!(ev.get(i), Some(*e), "{i}");
        }
        assert_eq!(ev.iter().rev().collect::<Vec<_>>(), {
            let mut r = all.clone();
            r.reverse();
            r
        });
        assert_eq!(ev.range(3..9).collect::<Vec<_>>(), all[3..9]);
        assert_eq!(ev.range(..2).collect::<Vec<_>>(), all[..2]);
        assert_eq!(ev.last(), all.last().copied());
        // Only the ones past a limit are kept whole: every event of the time, CPU, pid and
        // all-maximum groups (8 each), the three wakeups and the migration of the target-CPU
        // group, the runtime of the runtime group.
        assert_eq!(ev.wide.len(), 8 + 8 + 8 + 4 + 1 + 8, "the wide ones");
    }

    #[test]
    fn chunk_boundaries_are_invisible() {
        let n = 2 * CHUNK_EVENTS + 5;
        let ev: Events = (0..n as u64)
            .map(|t| Event {
                t_ns: t,
                cpu: 0,
                kind: EventKind::Wakeup {
                    pid: (t % 1000) as Pid,
                    target_cpu: 1,
                },
            })
            .collect();
        assert_eq!(ev.len(), n);
        assert_eq!(ev.chunks.len(), 3);
        assert!(ev.iter().enumerate().all(|(i, e)| e.t_ns == i as u64));
        assert!(ev
            .iter()
            .rev()
            .enumerate()
            .all(|(i, e)| e.t_ns == (n - 1 - i) as u64));
        let b = CHUNK_EVENTS as u64;
        let around: Vec<u64> = ev
            .range(CHUNK_EVENTS - 2..CHUNK_EVENTS + 2)
            .map(|e| e.t_ns)
            .collect();
        assert_eq!(around, [b - 2, b - 1, b, b + 1]);
        assert_eq!(ev.partition_point(|e| e.t_ns < b + 3), CHUNK_EVENTS + 3);
        assert_eq!(ev.iter().nth(CHUNK_EVENTS).map(|e| e.t_ns), Some(b));
        assert_eq!(ev.last().map(|e| e.t_ns), Some(n as u64 - 1));
        assert_eq!(ev.get(n), None);
        // Memory: the events and the last chunk's room, nothing like a doubling; no chunk
        // holds room for more than a chunk, whatever capacity it started with.
        assert!(ev.heap_bytes() <= (n + CHUNK_EVENTS) * KEPT_EVENT_BYTES + 4096);
        let mut odd = Events::with_capacity(40_000);
        odd.extend(ev.range(..CHUNK_EVENTS + 1));
        assert_eq!(odd.chunks[0].capacity(), CHUNK_EVENTS);
        assert_eq!(
            odd.to_vec(),
            ev.range(..CHUNK_EVENTS + 1).collect::<Vec<_>>()
        );
    }

    #[test]
    fn an_event_takes_16_bytes_and_retain_keeps_order() {
        assert_eq!(core::mem::size_of::<Packed>(), 16);
        let mut ev: Events = (0..100u64)
            .map(|t| Event {
                t_ns: t,
                cpu: (t % 4) as u32,
                kind: EventKind::StatRuntime {
                    pid: 1,
                    runtime_ns: if t % 10 == 0 { u64::MAX - t } else { t },
                },
            })
            .collect();
        ev.retain(|e| e.t_ns % 3 == 0);
        let t: Vec<u64> = ev.iter().map(|e| e.t_ns).collect();
        assert_eq!(t, (0..100).filter(|t| t % 3 == 0).collect::<Vec<_>>());
        assert_eq!(ev.partition_point(|e| e.t_ns < 50), 17);
        let wide: Vec<Event> = ev
            .iter()
            .filter(|e| matches!(e.kind, EventKind::StatRuntime { runtime_ns, .. } if runtime_ns > 1000))
            .collect();
        assert_eq!(wide.len(), 4, "t = 0, 30, 60, 90");
        ev.truncate(2);
        assert_eq!(ev.iter().map(|e| e.t_ns).collect::<Vec<_>>(), [0, 3]);
    }
}
