//! The event queue: a 4-ary min-heap on (time, softirq last, insertion sequence), indexed so
//! that an event can be cancelled or re-armed in place. (Four children per node: half the
//! levels of a binary heap, and a node's children share a cache line pair; pops, which sift
//! down, are most of the work.)
//!
//! Many of the engine's events are timers that a later state change can make void: a requested
//! reschedule that `__schedule` ran first, the end of a CPU burst when the task is switched
//! out, an hrtick re-armed by the next pick. Like the kernel's hrtimers, each of those lives in
//! a slot (per CPU: the reschedule and the hrtick; per task: its burst and its sleep timer)
//! that holds at most one pending event; arming a slot replaces what it held, and the engine
//! cancels a slot where its state makes the event void. So the heap holds only events that
//! will run: per CPU its tick, softirq (two for an instant when δ is a whole tick),
//! reschedule and hrtick, per task its burst and its timer, and the starts; no void event is
//! ever popped. The order of the events that run is unchanged: every push still takes the next
//! insertion sequence.
//!
//! The generation numbers the events still carry are checked when they run (a void event that
//! ran would be a bug: debug builds assert). An entry is 32 bytes: the time, the sequence with
//! the softirq flag in its top bit, the event (12 bytes) and its slot.

use alloc::vec::Vec;

const NIL: u32 = u32::MAX;
/// Children per node.
const ARITY: usize = 4;

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
    /// Heap position of each slot's pending event (`NIL`: none).
    pos: Vec<u32>,
    cpus: u32,
    seq: u64,
}

impl Queue {
    pub fn new(cpus: u32, tasks: usize) -> Queue {
        Queue {
            heap: Vec::new(),
            pos: alloc::vec![NIL; 3 * cpus as usize + 2 * tasks],
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
        self.heap.len()
    }

    /// The time of the next event.
    pub fn peek_t(&self) -> Option<u64> {
        self.heap.first().map(|e| e.t())
    }

    /// The event pending in the slot `ev` would take.
    pub fn pending(&self, ev: Ev) -> Option<Ev> {
        let p = self.pos[self.slot(ev)?];
        (p != NIL).then(|| self.heap[p as usize].ev)
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
        if slot != NIL {
            let p = self.pos[slot as usize];
            if p != NIL {
                let old = self.heap[p as usize];
                if e.before(&old) {
                    self.up(p as usize, e);
                } else {
                    self.down(p as usize, e);
                }
                return true;
            }
        }
        self.heap.push(e);
        self.up(self.heap.len() - 1, e);
        false
    }

    /// Removes the event pending in the slot of `ev` (whatever its generation), if any.
    pub fn cancel(&mut self, ev: Ev) {
        let Some(s) = self.slot(ev) else { return };
        let p = self.pos[s];
        if p == NIL {
            return;
        }
        self.remove_at(p as usize);
    }

    /// Takes the next event.
    pub fn pop(&mut self) -> Option<(u64, Ev)> {
        if self.heap.is_empty() {
            return None;
        }
        let e = self.heap[0];
        self.remove_at(0);
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
            let mut m = first;
            for c in first + 1..(first + ARITY).min(n) {
                if self.heap[c].before(&self.heap[m]) {
                    m = c;
                }
            }
            let me = self.heap[m];
            if !me.before(&e) {
                break;
            }
            self.put(i, me);
            i = m;
        }
        self.put(i, e);
    }

    /// The pending events, in no particular order.
    pub fn events(&self) -> impl Iterator<Item = (u64, Ev)> + '_ {
        self.heap.iter().map(|e| (e.t(), e.ev))
    }

    /// The heap's invariants: order and the slot positions.
    pub fn check(&self) -> Result<(), alloc::string::String> {
        for i in 1..self.heap.len() {
            if self.heap[i].before(&self.heap[parent(i)]) {
                return Err(alloc::format!("event queue: heap order broken at {i}"));
            }
        }
        for (s, &p) in self.pos.iter().enumerate() {
            let e = self.heap.get(p as usize);
            if p != NIL && e.is_none_or(|e| e.slot as usize != s || self.slot(e.ev) != Some(s)) {
                return Err(alloc::format!(
                    "event queue: slot {s} points at another event"
                ));
            }
        }
        let slotted = self
            .heap
            .iter()
            .filter(|e| self.slot(e.ev).is_some())
            .count();
        if slotted != self.pos.iter().filter(|&&p| p != NIL).count() {
            return Err("event queue: an event outside its slot".into());
        }
        Ok(())
    }
}
