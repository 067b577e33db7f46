//! The event queue: a 4-ary min-heap on (time, softirq last, insertion sequence), beside a FIFO
//! for the events due at the instant being run (below), indexed so that an event can be
//! cancelled or re-armed in place. (Four children per node: half the
//! levels of a binary heap, and a node's children share a cache line pair; pops, which sift
//! down, are most of the work.)
//!
//! Many of the engine's events are timers that a later state change can make void: a requested
//! reschedule that `__schedule` ran first, the end of a CPU burst when the task is switched
//! out, an hrtick re-armed by the next pick. Like the kernel's hrtimers, each of those lives in
//! a slot (per CPU: the reschedule, the hrtick, the RT timer and a CPU-clock read; per task: its
//! burst and its sleep timer)
//! that holds at most one pending event; arming a slot replaces what it held, and the engine
//! cancels a slot where its state makes the event void. So the heap holds only events that
//! will run: per CPU its tick, softirq (two for an instant when δ is a whole tick),
//! reschedule, hrtick, RT timer and clock read, per task its burst and its timer, and the
//! starts; no void event is
//! ever popped. The order of the events that run is unchanged: every push still takes the next
//! insertion sequence.
//!
//! The generation numbers the events still carry are checked when they run (a void event that
//! ran would be a bug: debug builds assert). An entry is 32 bytes: the time, the sequence with
//! the softirq flag in its top bit, the event (12 bytes) and its slot.
//!
//! Many events are due at the instant being run (a task switched in resumes its program at
//! once: a third of all on the mixed benchmark): those (but softirqs, which sort after their instant's other events) go to
//! a FIFO instead of the heap. Their keys rise in push order (same time, later sequence), so the
//! FIFO is sorted, and a pop takes the earlier of its front and the heap's top: the same order
//! as one heap. A FIFO event cancelled or replaced stays behind as a tombstone until the front
//! reaches it; the front is never one.
//!
//! A pop from the heap leaves its top as a hole, and the next event pushed into the heap (most
//! handlers push one: the next burst end, tick or timer) sifts down from there: one sift where
//! removing the top and pushing took two. The hole stays while the FIFO's events come first
//! (the earliest heap entry is then among the top's children); any other use of the heap
//! first fills it with the last entry, as a removal does. (With a sift-down that reads each
//! level's children as one slice: 8.3 % fewer instructions on the hackbench preset, 2.3 % on
//! the mixed benchmark; README, "Speed".)

use alloc::collections::VecDeque;
use alloc::vec::Vec;

const NIL: u32 = u32::MAX;
/// The slot of a FIFO tombstone.
const DEAD: u32 = u32::MAX - 1;
/// A slot's position in the FIFO (with its absolute index below) rather than the heap.
const IN_FIFO: u32 = 1 << 31;
/// FIFO indices are absolute modulo this, so that no position is `NIL`.
const FIFO_MOD: u32 = IN_FIFO - 1;
/// Children per node.
const ARITY: usize = 4;

/// The absolute FIFO index `n` after `i` (both below `FIFO_MOD`; `n` is at most the FIFO's
/// length, far below it).
fn fifo_next(i: u32, n: u32) -> u32 {
    let j = i + n;
    if j >= FIFO_MOD {
        j - FIFO_MOD
    } else {
        j
    }
}

/// The parent of heap position `i` (> 0).
fn parent(i: usize) -> usize {
    (i - 1) / ARITY
}
const SOFTIRQ: u64 = 1 << 63;

/// An event: the CPU or task (index) it concerns and, for the slotted ones, the generation of
/// the state it was armed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ev {
    /// A task is created (`wake_up_new_task`).
    Start(u32),
    /// The periodic tick on a CPU.
    Tick(u32),
    /// A requested reschedule takes effect (δ after the request).
    Schedule(u32, u32),
    /// The running task finished its current CPU burst.
    BurstEnd(u32, u32),
    /// A task just switched in continues its program.
    Resume(u32, u32),
    /// A sleep ends.
    Timer(u32, u32),
    /// An hrtick expires.
    HrTick(u32, u32),
    /// Curr's read of its own CPU clock at which `update_curr` reschedules it
    /// (`TaskSpec::cpu_clock`).
    ClockRead(u32, u32),
    /// SCHED_SOFTIRQ on a CPU after its tick: periodic and NOHZ balancing (see `balance.rs`).
    /// It runs after every other event of its instant.
    Softirq(u32),
    /// An interrupt-load source's handler ends (`irq.rs`): the index into `irq_load`.
    Irq(u32),
    /// The CPU's stopper thread runs its queued work (`active_load_balance_cpu_stop`).
    Stopper(u32),
    /// A CPU's RT timer (`rt.rs`): the next RT or fair-server budget event.
    Rt(u32, u32),
    /// An I/O's completion interrupt ends (`io.rs`): its device channel and the CPU that
    /// submitted it.
    IoIrq(u32, u32),
    /// A task group's bandwidth period timer (`bandwidth.rs`): never void (it is never
    /// cancelled; it re-arms itself or stops).
    BwPeriod(u32),
    /// A task group's bandwidth slack timer, on a CPU (`bandwidth.rs`): never void.
    BwSlack(u32, u32),
    /// The NOHZ kick's IPI reaches the idle load balancer (`nohz_csd_func` on that CPU,
    /// `balance/mod.rs`): never void (the handler checks whether the CPU is still idle).
    NohzKick(u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The time in the high 64 bits; below it the insertion sequence with the top bit set for
    /// a softirq (after the ordinary events of its instant): one comparison orders entries.
    key: u128,
    ev: Ev,
    /// The slot (`NIL`: none).
    slot: u32,
}

impl Entry {
    fn before(&self, o: &Entry) -> bool {
        self.key < o.key
    }
    fn t(&self) -> u64 {
        (self.key >> 64) as u64
    }
}

/// The queue (see the module doc).
pub(super) struct Queue {
    heap: Vec<Entry>,
    /// The heap's top was popped and its place is kept for the next event pushed into the
    /// heap, which sifts down from there: one sift where removing the top (the last entry
    /// sifted down from the root) and then pushing (sifted up from a leaf) take two. Pops
    /// from the FIFO leave it; any other use of the heap first fills it with the last entry
    /// (`settle`).
    hole: bool,
    /// The events pushed for the instant of the last pop, in push order (see the module doc).
    fifo: VecDeque<Entry>,
    /// The absolute index of the FIFO's front (modulo `FIFO_MOD`).
    fifo_head: u32,
    /// Live (not tombstoned) FIFO entries.
    fifo_live: usize,
    /// The time of the last pop: the instant being run.
    last_t: u64,
    /// Position of each slot's pending event (`NIL`: none): its heap index, or `IN_FIFO` with
    /// its absolute FIFO index.
    pos: Vec<u32>,
    cpus: u32,
    seq: u64,
}

impl Queue {
    pub fn new(cpus: u32, tasks: usize) -> Queue {
        Queue {
            heap: Vec::new(),
            hole: false,
            fifo: VecDeque::new(),
            fifo_head: 0,
            fifo_live: 0,
            last_t: 0,
            pos: alloc::vec![NIL; 4 * cpus as usize + 2 * tasks],
            cpus,
            seq: 0,
        }
    }

    /// The slot an event lives in; `None` for events that are never void (ticks, softirqs,
    /// starts).
    fn slot(&self, ev: Ev) -> Option<usize> {
        let c = self.cpus as usize;
        match ev {
            Ev::Schedule(cpu, _) => Some(2 * cpu as usize),
            Ev::HrTick(cpu, _) => Some(2 * cpu as usize + 1),
            Ev::BurstEnd(id, _) | Ev::Resume(id, _) => Some(2 * c + 2 * id as usize),
            Ev::Timer(id, _) => Some(2 * c + 2 * id as usize + 1),
            Ev::Rt(cpu, _) => Some(self.pos.len() - c + cpu as usize),
            Ev::ClockRead(cpu, _) => Some(self.pos.len() - 2 * c + cpu as usize),
            Ev::Start(_)
            | Ev::Tick(_)
            | Ev::Softirq(_)
            | Ev::Irq(_)
            | Ev::Stopper(_)
            | Ev::IoIrq(..)
            | Ev::BwPeriod(_)
            | Ev::BwSlack(..)
            | Ev::NohzKick(_) => None,
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.hole) + self.fifo_live
    }

    /// The heap's earliest pending entry: its top, or with a hole there, the earliest of the
    /// top's children.
    fn heap_first(&self) -> Option<&Entry> {
        if !self.hole {
            return self.heap.first();
        }
        let end = (ARITY + 1).min(self.heap.len());
        self.heap
            .get(1..end)?
            .iter()
            .reduce(|a, b| if b.before(a) { b } else { a })
    }

    /// Fills a hole at the top with the last entry.
    fn settle(&mut self) {
        if core::mem::take(&mut self.hole) {
            if let Some(last) = self.heap.pop() {
                if !self.heap.is_empty() {
                    self.down(0, last);
                }
            }
        }
    }

    /// The time of the next event.
    pub fn peek_t(&self) -> Option<u64> {
        match (self.heap_first(), self.fifo.front()) {
            (Some(h), Some(f)) => Some(if f.before(h) { f.t() } else { h.t() }),
            (h, f) => h.or(f).map(Entry::t),
        }
    }

    /// The event pending in the slot `ev` would take.
    pub fn pending(&self, ev: Ev) -> Option<Ev> {
        let p = self.pos[self.slot(ev)?];
        (p != NIL).then(|| self.entry(p).ev)
    }

    /// The entry at position `p` (heap or FIFO).
    fn entry(&self, p: u32) -> &Entry {
        if p & IN_FIFO != 0 {
            &self.fifo[self.fifo_index(p)]
        } else {
            &self.heap[p as usize]
        }
    }

    /// The index in `fifo` of the FIFO position `p`.
    fn fifo_index(&self, p: u32) -> usize {
        let i = (p & !IN_FIFO) + FIFO_MOD - self.fifo_head;
        (if i >= FIFO_MOD { i - FIFO_MOD } else { i }) as usize
    }

    /// Makes the FIFO entry at position `p` a tombstone, and drops the tombstones at the front.
    fn fifo_cancel(&mut self, p: u32) {
        let i = self.fifo_index(p);
        let e = &mut self.fifo[i];
        if e.slot != NIL {
            self.pos[e.slot as usize] = NIL;
        }
        e.slot = DEAD;
        self.fifo_live -= 1;
        self.fifo_trim();
    }

    /// Drops the tombstones at the FIFO's front.
    fn fifo_trim(&mut self) {
        while self.fifo.front().is_some_and(|e| e.slot == DEAD) {
            self.fifo.pop_front();
            self.fifo_head = fifo_next(self.fifo_head, 1);
        }
    }

    /// Schedules `ev` at `t`, replacing what its slot held (which must be void: the caller
    /// checks with [`Queue::pending`]). Returns whether it replaced one.
    pub fn push(&mut self, t: u64, ev: Ev) -> bool {
        self.seq += 1;
        let ord = if matches!(ev, Ev::Softirq(_)) {
            self.seq | SOFTIRQ
        } else {
            self.seq
        };
        let slot = self.slot(ev).map_or(NIL, |s| s as u32);
        let e = Entry {
            key: (t as u128) << 64 | ord as u128,
            ev,
            slot,
        };
        let now = t == self.last_t && ord & SOFTIRQ == 0;
        let mut replaced = false;
        if slot != NIL {
            let p = self.pos[slot as usize];
            if p & IN_FIFO != 0 && p != NIL {
                self.fifo_cancel(p);
                replaced = true;
            } else if p != NIL {
                // The heap entry moves or goes: the heap must be whole.
                self.settle();
                let p = self.pos[slot as usize];
                if now {
                    self.remove_at(p as usize);
                    replaced = true;
                } else {
                    let old = self.heap[p as usize];
                    if e.before(&old) {
                        self.up(p as usize, e);
                    } else {
                        self.down(p as usize, e);
                    }
                    return true;
                }
            }
        }
        if now {
            if slot != NIL {
                let abs = fifo_next(self.fifo_head, self.fifo.len() as u32);
                self.pos[slot as usize] = IN_FIFO | abs;
            }
            self.fifo.push_back(e);
            self.fifo_live += 1;
        } else if self.hole {
            self.hole = false;
            self.down(0, e);
        } else {
            self.heap.push(e);
            self.up(self.heap.len() - 1, e);
        }
        replaced
    }

    /// Removes the event pending in the slot of `ev` (whatever its generation), if any.
    pub fn cancel(&mut self, ev: Ev) {
        let Some(s) = self.slot(ev) else { return };
        let p = self.pos[s];
        if p == NIL {
            return;
        }
        if p & IN_FIFO != 0 {
            self.fifo_cancel(p);
        } else {
            self.settle();
            let p = self.pos[s];
            self.remove_at(p as usize);
        }
    }

    /// Takes the next event (the earlier of the FIFO's front and the heap's top) if it is due
    /// at or before `until`.
    pub fn pop_due(&mut self, until: u64) -> Option<(u64, Ev)> {
        // A hole at the heap's top stays while the FIFO's events come first (their handlers
        // may push into it).
        let from_fifo = match (self.fifo.front(), self.heap_first()) {
            (Some(f), Some(h)) => f.before(h),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return None,
        };
        if !from_fifo {
            self.settle();
        }
        let front = if from_fifo {
            self.fifo.front()
        } else {
            self.heap.first()
        };
        if front.is_some_and(|e| e.t() > until) {
            return None;
        }
        let e = if from_fifo {
            let e = self.fifo.pop_front()?;
            self.fifo_head = fifo_next(self.fifo_head, 1);
            self.fifo_live -= 1;
            if e.slot != NIL {
                self.pos[e.slot as usize] = NIL;
            }
            self.fifo_trim();
            e
        } else {
            // The top stays as a hole for the next push (see `hole`).
            let e = self.heap[0];
            if e.slot != NIL {
                self.pos[e.slot as usize] = NIL;
            }
            self.hole = true;
            e
        };
        // (An event pushed for a time already passed, which the engine never does, would not
        // move the instant back under the FIFO's entries.)
        self.last_t = self.last_t.max(e.t());
        Some((e.t(), e.ev))
    }

    /// Removes the entry at `i`: the last entry takes its place and moves up or down.
    fn remove_at(&mut self, i: usize) {
        let e = self.heap[i];
        if e.slot != NIL {
            self.pos[e.slot as usize] = NIL;
        }
        let Some(last) = self.heap.pop() else { return };
        if i == self.heap.len() {
            return;
        }
        if i > 0 && last.before(&self.heap[parent(i)]) {
            self.up(i, last);
        } else {
            self.down(i, last);
        }
    }

    /// Writes `e` at `i` and records its position.
    fn put(&mut self, i: usize, e: Entry) {
        if e.slot != NIL {
            self.pos[e.slot as usize] = i as u32;
        }
        self.heap[i] = e;
    }

    /// Places `e` at the hole `i` or above it: parents after it move down.
    fn up(&mut self, mut i: usize, e: Entry) {
        while i > 0 {
            let p = parent(i);
            let pe = self.heap[p];
            if !e.before(&pe) {
                break;
            }
            self.put(i, pe);
            i = p;
        }
        self.put(i, e);
    }

    /// Places `e` at the hole `i` or below it: earlier children move up.
    fn down(&mut self, mut i: usize, e: Entry) {
        let n = self.heap.len();
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            // The earliest child (one bounds check for the children's slice).
            let kids = &self.heap[first..(first + ARITY).min(n)];
            let mut m = 0;
            for (j, k) in kids.iter().enumerate().skip(1) {
                if k.before(&kids[m]) {
                    m = j;
                }
            }
            let me = kids[m];
            if !me.before(&e) {
                break;
            }
            self.put(i, me);
            i = first + m;
        }
        self.put(i, e);
    }

    /// The pending events, in no particular order.
    pub fn events(&self) -> impl Iterator<Item = (u64, Ev)> + '_ {
        self.heap
            .iter()
            .skip(usize::from(self.hole))
            .chain(self.fifo.iter().filter(|e| e.slot != DEAD))
            .map(|e| (e.t(), e.ev))
    }

    /// The queue's invariants: the heap's order, the FIFO's (sorted, due now, no tombstone at
    /// the front, counted) and the slot positions.
    pub fn check(&self) -> Result<(), alloc::string::String> {
        // (A hole at the top orders nothing and holds no slot's event.)
        let first = usize::from(self.hole);
        for i in 1..self.heap.len() {
            if parent(i) >= first && self.heap[i].before(&self.heap[parent(i)]) {
                return Err(alloc::format!("event queue: heap order broken at {i}"));
            }
        }
        let live: Vec<&Entry> = self.fifo.iter().filter(|e| e.slot != DEAD).collect();
        if live.len() != self.fifo_live
            || self.fifo.front().is_some_and(|e| e.slot == DEAD)
            || live.windows(2).any(|w| !w[0].before(w[1]))
            || live
                .iter()
                .any(|e| e.t() != self.last_t || e.key as u64 & SOFTIRQ != 0)
        {
            return Err(
                "event queue: the FIFO is unsorted, starts with a tombstone, miscounts or holds \
                 an event not due now"
                    .into(),
            );
        }
        for (s, &p) in self.pos.iter().enumerate() {
            let e = if p & IN_FIFO != 0 {
                self.fifo.get(self.fifo_index(p))
            } else {
                self.heap.get(p as usize).filter(|_| p as usize >= first)
            };
            if p != NIL && e.is_none_or(|e| e.slot as usize != s || self.slot(e.ev) != Some(s)) {
                return Err(alloc::format!(
                    "event queue: slot {s} points at another event"
                ));
            }
        }
        let slotted = self
            .heap
            .iter()
            .skip(first)
            .chain(live.iter().copied())
            .filter(|e| self.slot(e.ev).is_some())
            .count();
        if slotted != self.pos.iter().filter(|&&p| p != NIL).count() {
            return Err("event queue: an event outside its slot".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use alloc::collections::BTreeMap;

    /// Against the definition (every pending event ordered by time, softirqs after their
    /// instant's other events, then push order; one event per slot, a push replacing its
    /// slot's): random pushes, many for the instant being run, cancels and pops, with the
    /// FIFO's absolute index starting just below its wrap; pops of only what is due by a time
    /// (`pop_due`), and a popped top left as a hole that the next push fills.
    #[test]
    fn pops_in_key_order_with_the_fifo_and_tombstones() {
        for seed in 0..20 {
            let mut r = Rng::new(seed, 0);
            let mut q = Queue::new(2, 4);
            q.fifo_head = FIFO_MOD - 3;
            // key -> event; slot -> key.
            let mut want: BTreeMap<u128, Ev> = BTreeMap::new();
            let mut by_slot: BTreeMap<usize, u128> = BTreeMap::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for _ in 0..2_000 {
                match r.below(6) {
                    0..=2 => {
                        let t = now + [0, 0, 1, 5][r.below(4) as usize];
                        let ev = match r.below(5) {
                            0 => Ev::Tick(r.below(2) as u32),
                            1 => Ev::Softirq(r.below(2) as u32),
                            2 => Ev::Schedule(r.below(2) as u32, 0),
                            3 => Ev::Resume(r.below(4) as u32, 0),
                            _ => Ev::Timer(r.below(4) as u32, 0),
                        };
                        seq += 1;
                        let ord = if matches!(ev, Ev::Softirq(_)) {
                            seq | SOFTIRQ
                        } else {
                            seq
                        };
                        let key = (t as u128) << 64 | ord as u128;
                        if let Some(s) = q.slot(ev) {
                            if let Some(old) = by_slot.insert(s, key) {
                                want.remove(&old);
                            }
                        }
                        want.insert(key, ev);
                        q.push(t, ev);
                    }
                    3 => {
                        let ev = Ev::Resume(r.below(4) as u32, 0);
                        if let Some(old) = by_slot.remove(&q.slot(ev).unwrap()) {
                            want.remove(&old);
                        }
                        q.cancel(ev);
                    }
                    _ => {
                        // Sometimes only what is due by the next nanosecond.
                        let until = if r.below(2) == 0 { u64::MAX } else { now + 1 };
                        let got = q.pop_due(until);
                        let due = want
                            .first_key_value()
                            .is_some_and(|(k, _)| (k >> 64) as u64 <= until);
                        let exp = if due { want.pop_first() } else { None }.map(|(k, ev)| {
                            if let Some(s) = q.slot(ev) {
                                by_slot.remove(&s);
                            }
                            ((k >> 64) as u64, ev)
                        });
                        assert_eq!(got, exp, "seed {seed}");
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                }
                q.check().unwrap();
                assert_eq!(q.len(), want.len());
                assert_eq!(q.peek_t(), want.keys().next().map(|k| (k >> 64) as u64));
            }
            assert!(
                q.fifo_head < FIFO_MOD - 3,
                "seed {seed}: the FIFO's index did not wrap"
            );
        }
    }
}
