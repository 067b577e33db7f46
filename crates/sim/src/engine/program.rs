//! The task programs and their channels: what the model runs in place of user code.
//!
//! A program is a list of [`Op`]s interpreted while its task is on a CPU: CPU bursts, sleeps
//! (an hrtimer that wakes the task on its CPU), periodic waits, and pipe-like channels whose
//! send wakes one blocked reader and whose full buffer blocks the writer (`pipe_write` /
//! `pipe_read` with WF_SYNC wakeups), and per-CPU user-space locks taken by spinning
//! (schbench's `lock_this_cpu`). Blocking goes through `core.rs` (`block`, `try_to_wake_up`).

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use crate::config::{Op, SimConfig};
use crate::fair::Tid;

use super::{Burst, Ev, Simulator, TState};

/// A channel: a pipe of whole messages with FIFO waiters.
#[derive(Default)]
pub(super) struct Chan {
    pub(super) count: u64,
    /// Messages it holds before writers block (u64::MAX: unbounded).
    pub(super) capacity: u64,
    /// A read wakes a blocked writer once at most this many messages are left.
    pub(super) wake_writer_at: u64,
    /// Readers blocked on an empty channel, then writers blocked on a full one, in the order
    /// they blocked (a pipe wakes from the front; a socket's writers and a polled pipe's
    /// readers from the back).
    pub(super) readers: VecDeque<Tid>,
    pub(super) writers: VecDeque<Tid>,
    /// A workqueue channel's work items, one per message: the device channel each I/O
    /// completion goes to (`io.rs`), or an interrupt source's item (`irq::IRQ_WORK`).
    pub(super) payloads: VecDeque<u32>,
    /// A paged pipe's messages per page (0: not paged; `Channel::page_msgs`).
    pub(super) page_msgs: u64,
    /// Its page slots (16 for a pipe).
    pub(super) slots: usize,
    /// Its pages in use, oldest first: (messages written into it, messages not yet read).
    pub(super) pages: VecDeque<(u64, u64)>,
}

impl Chan {
    /// Whether a write can go in now: into the last page while it has room (and the pipe is
    /// not empty), else into a free slot.
    fn writable(&self) -> bool {
        if self.page_msgs == 0 {
            return self.count < self.capacity;
        }
        self.pages.back().is_some_and(|p| p.0 < self.page_msgs) || self.pages.len() < self.slots
    }

    /// Puts one message in a paged pipe's pages.
    fn write_page(&mut self) {
        if self.page_msgs == 0 {
            return;
        }
        match self.pages.back_mut() {
            Some(p) if p.0 < self.page_msgs => {
                p.0 += 1;
                p.1 += 1;
            }
            _ => self.pages.push_back((1, 1)),
        }
    }

    /// Takes one message from a paged pipe's oldest page; whether that freed a slot of a
    /// full ring (`pipe_read`'s `wake_writer`).
    fn read_page(&mut self) -> bool {
        let Some(p) = self.pages.front_mut() else {
            return false;
        };
        p.1 -= 1;
        if p.1 > 0 {
            return false;
        }
        let was_full = self.pages.len() >= self.slots;
        self.pages.pop_front();
        was_full
    }
}

/// The per-CPU locks of `Op::LockCpu`: one array of `cpus` locks per lock set, indexed
/// `set × cpus + cpu` (empty when no program takes one).
pub(super) struct Locks {
    cpus: usize,
    /// Each lock's holder.
    owner: Vec<Option<Tid>>,
    /// The tasks spinning on each lock, in the order they began (on a CPU or not).
    spinners: Vec<Vec<Tid>>,
}

impl Locks {
    pub(super) fn new(cfg: &SimConfig) -> Locks {
        let sets = cfg
            .tasks
            .iter()
            .flat_map(|t| &t.program)
            .filter_map(|op| match *op {
                Op::LockCpu(s) | Op::UnlockCpu(s) => Some(s as usize + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let n = sets * cfg.cpus as usize;
        Locks {
            cpus: cfg.cpus as usize,
            owner: alloc::vec![None; n],
            spinners: (0..n).map(|_| Vec::new()).collect(),
        }
    }
}

impl Simulator {
    /// Who is blocked on which channel, for a deadlock's message.
    /// With housekeeping running: every other live task waits on a channel, and no
    /// interrupt source or device could write one (what an empty event queue says without
    /// housekeeping).
    pub(super) fn stuck_on_channels(&self) -> bool {
        if self.alive == 0
            || !self.cfg.irq_load.is_empty()
            || self.cfg.channels.iter().any(|c| c.device.is_some())
        {
            return false;
        }
        let waiting: usize = self
            .chans
            .iter()
            .map(|c| c.readers.len() + c.writers.len())
            .sum();
        waiting == self.alive
    }

    pub(super) fn deadlock_report(&self) -> super::Deadlock {
        let mut blocked = alloc::vec::Vec::new();
        for (c, chan) in self.chans.iter().enumerate() {
            let name = &self.cfg.channels[c].name;
            for (&t, sending) in chan
                .readers
                .iter()
                .map(|t| (t, false))
                .chain(chan.writers.iter().map(|t| (t, true)))
            {
                blocked.push((
                    t as u32 + 1,
                    self.cfg.tasks[t].comm.clone(),
                    name.clone(),
                    sending,
                ));
            }
        }
        blocked.sort();
        super::Deadlock {
            t_ns: self.now,
            blocked,
        }
    }

    /// The program moves to its next op (wrapping at the end).
    pub(super) fn advance_pc(&mut self, id: Tid) {
        let len = self.cfg.tasks[id].program.len();
        self.tasks[id].pc = (self.tasks[id].pc + 1) % len;
    }

    /// Runs the task's program from its current op, at `now`, while it is on its CPU. Zero-time
    /// ops (send, a satisfied recv, a loop jump) chain; after `ZERO_TIME_STEPS` of them in one go
    /// the task yields to other events at the same instant and resumes, so one event's work is
    /// bounded. Every program holds a run, a sleep, a periodic wait or an exit, and loop counts
    /// are bounded, so time always advances (checked by `SimConfig::check`).
    pub(super) fn run_program(&mut self, id: Tid) {
        const ZERO_TIME_STEPS: usize = 4096;
        let cpu = self.tasks[id].cpu;
        self.with_rq(cpu, |f, c| f.update_curr_user(c));
        self.rt_account(cpu);
        self.end_spin(id);
        for _ in 0..ZERO_TIME_STEPS {
            self.work += 1;
            let owed = core::mem::take(&mut self.tasks[id].owed_ns);
            if owed > 0 {
                // A switch or wakeup cost comes first, as CPU time of this task.
                let end = self.ents[id].sum_exec_runtime + owed;
                self.tasks[id].burst = Burst::Paying(end);
                let gen = self.tasks[id].gen;
                self.push(self.now + owed, Ev::BurstEnd(id as u32, gen));
                return;
            }
            if core::mem::take(&mut self.tasks[id].syscall) && self.syscall_exit(id, cpu) {
                return;
            }
            let pc = self.tasks[id].pc;
            let op = self.cfg.tasks[id].program[pc];
            match op {
                Op::Run(None) => {
                    self.tasks[id].burst = Burst::Forever;
                    return;
                }
                Op::Run(Some(d)) => {
                    let n = d.sample(&mut self.tasks[id].rng);
                    let end = self.ents[id].sum_exec_runtime + n;
                    self.tasks[id].burst = Burst::Until(end);
                    let gen = self.tasks[id].gen;
                    self.push(self.now + n, Ev::BurstEnd(id as u32, gen));
                    return;
                }
                Op::Sleep(d) => {
                    let n = d.sample(&mut self.tasks[id].rng);
                    self.sleep_for(id, n);
                    return;
                }
                Op::WaitPeriod(period) => {
                    let start = self.cfg.tasks[id].start_ns;
                    let k = (self.now - start) / period + 1;
                    self.sleep_for(id, start + k * period - self.now);
                    return;
                }
                Op::Send(ch) => {
                    if !self.send(id, ch, cpu, None) {
                        return;
                    }
                }
                Op::Request { to, reply_to } => {
                    if !self.send(id, to, cpu, Some(reply_to)) {
                        return;
                    }
                }
                Op::Reply => match self.tasks[id].work {
                    Some(ch) => {
                        if !self.send(id, ch, cpu, None) {
                            return;
                        }
                        self.tasks[id].work = None;
                    }
                    None => self.advance_pc(id),
                },
                Op::Recv(ch) if self.cfg.channels[ch as usize].poll => {
                    // poll() on the pipe: readable returns at once and reads nothing; else
                    // wait on its queue (poll_wait) until a send wakes every waiter.
                    if self.chans[ch as usize].count > 0 {
                        self.tasks[id].work = None;
                        self.advance_pc(id);
                    } else {
                        self.chans[ch as usize].readers.push_back(id);
                        self.wait_to_read(id, ch);
                        return;
                    }
                }
                Op::Recv(ch) => {
                    if let Some(k) = self.tasks[id].batch.iter().rposition(|b| b.0 == ch) {
                        // The next request of the list it took: a walk in user space.
                        let (_, reply) = self.tasks[id].batch.remove(k);
                        self.tasks[id].work = Some(reply);
                        self.tasks[id].stats.reads += 1;
                        self.advance_pc(id);
                        continue;
                    }
                    let chan = &mut self.chans[ch as usize];
                    if chan.count > 0
                        && self.cfg.channels[ch as usize].futex
                        && !chan.payloads.is_empty()
                    {
                        // xlist_splice: the whole list, newest first (it was pushed at its
                        // head); the reader answers one request a read.
                        let n = chan.payloads.len() as u64;
                        chan.count -= n;
                        let t = &mut self.tasks[id];
                        t.batch.extend(chan.payloads.drain(..).map(|r| (ch, r)));
                        t.work = t.batch.pop().map(|b| b.1);
                        t.stats.reads += 1;
                        self.advance_pc(id);
                        // Writers waiting for room retry (they find it empty).
                        while let Some(w) = self.chans[ch as usize].writers.pop_front() {
                            self.try_to_wake_up(w, cpu, Some(id), false);
                        }
                        self.tasks[id].syscall = true;
                        continue;
                    }
                    let chan = &mut self.chans[ch as usize];
                    if chan.count > 0 {
                        chan.count -= 1;
                        match chan.payloads.pop_front() {
                            // process_one_work clears an interrupt's item's pending bit before
                            // it runs the function: the next interrupt queues it again.
                            Some(item) if item & super::irq::IRQ_WORK != 0 => {
                                self.irq_pending[(item & !super::irq::IRQ_WORK) as usize] = false;
                                self.tasks[id].work = None;
                            }
                            // A kworker takes a work item off its workqueue (or a reader a
                            // request off a pipe).
                            Some(item) => self.tasks[id].work = Some(item),
                            None => self.tasks[id].work = None,
                        }
                        if self.cfg.channels[ch as usize].device.is_some() {
                            self.tasks[id].stats.io_completions += 1;
                        } else {
                            self.tasks[id].stats.reads += 1;
                        }
                        let socket = self.cfg.channels[ch as usize].wake_writer_at.is_some();
                        let chan = &mut self.chans[ch as usize];
                        let room = if chan.page_msgs > 0 {
                            chan.read_page()
                        } else {
                            chan.count <= chan.wake_writer_at
                        };
                        self.advance_pc(id);
                        if room {
                            if socket {
                                // unix_write_space (from sock_wfree, once unix_writable) wakes
                                // every writer waiting for room: sock_wait_for_wmem waits with
                                // prepare_to_wait, not exclusive, which adds at the head of the
                                // wait queue, so the latest waiter is woken first (WF_SYNC).
                                // Each retries its write; one that finds the socket full again
                                // waits again.
                                while let Some(w) = self.chans[ch as usize].writers.pop_back() {
                                    self.try_to_wake_up(w, cpu, Some(id), true);
                                }
                            } else if let Some(w) = self.chans[ch as usize].writers.pop_front() {
                                // pipe_read wakes one writer waiting for room: pipe_write
                                // waits exclusively, in FIFO order (WF_SYNC).
                                self.try_to_wake_up(w, cpu, Some(id), true);
                            }
                        }
                        self.tasks[id].syscall = true;
                    } else {
                        chan.readers.push_back(id);
                        self.wait_to_read(id, ch);
                        return;
                    }
                }
                Op::Loop { start, times } => {
                    let t = &mut self.tasks[id];
                    if t.loops.is_empty() {
                        t.loops = alloc::vec![0; self.cfg.tasks[id].program.len()];
                    }
                    t.loops[pc] += 1;
                    if t.loops[pc] < times {
                        t.pc = start as usize;
                    } else {
                        t.loops[pc] = 0;
                        self.advance_pc(id);
                    }
                }
                Op::Exit => {
                    self.block(id, TState::Dead);
                    return;
                }
                Op::Complete => {
                    self.advance_pc(id);
                    if let Some(c) = self.tasks[id].work.take() {
                        self.io_deliver(c, cpu, Some(id));
                    }
                }
                Op::LockCpu(set) => {
                    // lock_this_cpu: the lock of the CPU read when the spinning began.
                    let n = self.locks.cpus;
                    let key = self.tasks[id]
                        .spin
                        .map_or(set as usize * n + cpu as usize, |k| k as usize);
                    if self.locks.owner[key].is_some() {
                        // pthread_mutex_trylock failed: spin (on this CPU, until the holder
                        // releases it or the spinner is switched out).
                        if self.tasks[id].spin.is_none() {
                            self.tasks[id].spin = Some(key as u32);
                            self.locks.spinners[key].push(id);
                        }
                        self.tasks[id].spin_from = self.ents[id].sum_exec_runtime;
                        self.tasks[id].burst = Burst::Spin;
                        return;
                    }
                    self.locks.owner[key] = Some(id);
                    if self.tasks[id].spin.take().is_some() {
                        self.locks.spinners[key].retain(|&t| t != id);
                    }
                    if key % n != cpu as usize {
                        // "we got the lock but we migrated": unlock, and again on this CPU.
                        self.unlock_cpu(key);
                        continue;
                    }
                    self.advance_pc(id);
                }
                Op::UnlockCpu(set) => {
                    self.advance_pc(id);
                    let n = self.locks.cpus;
                    let base = set as usize * n;
                    if let Some(c) = (0..n).find(|&c| self.locks.owner[base + c] == Some(id)) {
                        self.unlock_cpu(base + c);
                    }
                }
                Op::Affinity { first, last } => {
                    self.tasks[id].affinity = (first..=last).collect();
                    self.advance_pc(id);
                    if !self.allowed(id, cpu) {
                        // __set_cpus_allowed_ptr on a running task: migration_cpu_stop moves
                        // it. DEVIATION(kernel): to the first allowed CPU (the kernel's
                        // cpumask_any_and_distribute spreads), by preemption (the kernel's
                        // caller waits for the stopper's completion).
                        let why = crate::decision::Move {
                            balance: crate::decision::Balance::Affinity,
                            level: 0,
                            imbalance: None,
                            load: 0,
                            nr_balance_failed: 0,
                            hot: false,
                            buddy: false,
                            skipped: 0,
                            eligible: self.fair.eligible_on(
                                &self.cpus[cpu as usize].rq,
                                &self.ents,
                                id,
                            ),
                            delayed: false,
                        };
                        self.stop_running(cpu, first, why);
                        return;
                    }
                }
            }
        }
        let gen = self.tasks[id].gen;
        self.push(self.now, Ev::Resume(id as u32, gen));
    }

    /// `id`, running on `cpu`, writes one message to channel `ch` (carrying `payload`: a
    /// request's reply channel) and its op is done; false when the channel is full and `id`
    /// now waits for room (the op runs again when it is woken).
    fn send(&mut self, id: Tid, ch: u32, cpu: u32, payload: Option<u32>) -> bool {
        if self.cfg.channels[ch as usize].device.is_some() {
            // io_submit: the I/O is in flight; the device answers later (io.rs).
            self.advance_pc(id);
            self.io_submit(id, ch, cpu);
            return true;
        }
        let chan = &mut self.chans[ch as usize];
        if !chan.writable() {
            // pipe_write on a full pipe: sleep until a reader makes room.
            chan.writers.push_back(id);
            self.tasks[id].waited_room = chan.page_msgs > 0;
            self.block(id, TState::Sleeping);
            return false;
        }
        chan.write_page();
        // pipe_write: a writer that waited wakes the next (after its own wakeup of the reader)
        // if its write left a slot free.
        let next_writer =
            if core::mem::take(&mut self.tasks[id].waited_room) && chan.pages.len() < chan.slots {
                chan.writers.pop_front()
            } else {
                None
            };
        if self.cfg.channels[ch as usize].poll {
            // pipe_write → wake_up_interruptible_sync_poll: every poller, from the head of the
            // wait queue (the latest to wait first), WF_SYNC; the message stays for later polls.
            chan.count += 1;
            self.advance_pc(id);
            while let Some(r) = self.chans[ch as usize].readers.pop_back() {
                self.try_to_wake_up(r, cpu, Some(id), true);
            }
            self.tasks[id].syscall = true;
            return true;
        }
        let futex = self.cfg.channels[ch as usize].futex;
        let reader = chan.readers.pop_front();
        match reader {
            // fpost: the waiter's own futex word is set, so the message is its alone; its
            // FUTEX_WAIT returns (the read is done). A request goes onto the word's list,
            // which the woken reader takes when it runs.
            Some(r) if futex && payload.is_none() => {
                self.advance_pc(r);
                self.tasks[r].stats.reads += 1;
                self.tasks[r].work = None;
            }
            _ => {
                let chan = &mut self.chans[ch as usize];
                chan.count += 1;
                if let Some(p) = payload {
                    chan.payloads.push_back(p);
                }
            }
        }
        self.advance_pc(id);
        if let Some(r) = reader {
            // pipe_write wakes with WF_SYNC; FUTEX_WAKE without it.
            self.try_to_wake_up(r, cpu, Some(id), !futex);
        }
        if let Some(w) = next_writer {
            self.try_to_wake_up(w, cpu, Some(id), true);
        }
        self.tasks[id].syscall = true;
        true
    }

    /// A system call (a send, or a read that found its message) returns to user space, after
    /// what it owes (a wakeup's cost) is paid: `exit_to_user_mode_loop` calls `schedule()`
    /// while TIF_NEED_RESCHED is set, so a task whose wakeup preempted it on its own CPU (or
    /// whose CPU has a reschedule pending) runs no further op before the switch: a pipe
    /// writer preempted by the reader it woke has not reached its own read when it is
    /// switched out, still runnable, and never blocks on it (the recorded pinned pair: half
    /// of each side's switch-outs preempted, one wakeup per round trip; read from the kernel's
    /// own state, every hackbench sender whose wakeup set TIF_NEED_RESCHED was switched out
    /// 4–7 µs later, before its next wakeup: `tests/fixtures/real-epyc/resched-pinned.txt.gz`,
    /// `crates/cli/tests/real_resched.rs`). The switch happens at once: its path (the rest of
    /// the call, `__schedule`, the switch) is part of `switch_cost_ns`, which was measured on
    /// exactly this pattern. A reschedule raised by an interrupt still takes δ (`kick`; a
    /// remote wakeup's, δ after its waker has paid for the IPI: `charge_wakeup`).
    /// Returns whether the task left its CPU (its program goes on at its next op when it runs
    /// again).
    fn syscall_exit(&mut self, id: Tid, cpu: u32) -> bool {
        let running = |s: &Self| s.cpus[cpu as usize].rq.curr.or(s.rt_curr(cpu)) == Some(id);
        // A kernel thread never returns to user space: under `preempt=none` it runs on until
        // it blocks or calls `cond_resched()` (a kworker between work items); the model takes
        // its reschedule after δ, as an interrupt's.
        if self.tasks[id].kthread || !self.cpus[cpu as usize].rq.need_resched || !running(self) {
            return false;
        }
        self.schedule(cpu);
        !running(self)
    }

    /// Releases per-CPU lock `key`: each of its spinners that is on a CPU retries now (in the
    /// order they began to spin); the first takes it.
    fn unlock_cpu(&mut self, key: usize) {
        self.locks.owner[key] = None;
        for i in 0..self.locks.spinners[key].len() {
            let t = self.locks.spinners[key][i];
            // A spinner whose retry is already due (an earlier release at this instant: a
            // task that took this lock after migrating drops it at once) retries once.
            let ev = Ev::Resume(t as u32, self.tasks[t].gen);
            let due = self.queue.pending(ev).is_some_and(|old| self.live(old));
            if self.tasks[t].burst == Burst::Spin && !due {
                self.push(self.now, ev);
            }
        }
    }

    /// A spinner leaves its CPU or retries: the CPU time it spun counts in
    /// `TaskStats::spin_ns`, and its burst is idle again.
    pub(super) fn end_spin(&mut self, id: Tid) {
        let t = &mut self.tasks[id];
        if t.burst == Burst::Spin {
            t.burst = Burst::Idle;
            let spun = self.ents[id].sum_exec_runtime.saturating_sub(t.spin_from);
            t.stats.spin_ns += spun;
        }
    }

    /// `switch_cost_ns`: the task switched in pays it as CPU time before its program goes on
    /// (a burst it was preempted in lasts that much longer; a hog's endless burst absorbs it).
    pub(super) fn charge_switch(&mut self, id: Tid) {
        let cost = self.cfg.switch_cost_ns;
        if cost == 0 {
            return;
        }
        let cost = self.spread_cost(self.tasks[id].cpu, cost);
        let t = &mut self.tasks[id];
        match t.burst {
            Burst::Until(end) => t.burst = Burst::Until(end + cost),
            Burst::Paying(end) => t.burst = Burst::Paying(end + cost),
            Burst::Forever | Burst::Spin => {}
            Burst::Idle => t.owed_ns += cost,
        }
    }

    /// `wakeup_cost_ns` (and `ipi_cost_ns` when it sent an IPI): a task whose wakeup put its
    /// wakee on another CPU, `cpu`, pays for it before its program goes on (it is between ops:
    /// its burst is idle); `local_wakeup_ns` when the wakee stays on the waker's CPU. Called
    /// after the enqueue; `idle_target` and `resched_was_set` are the target's state before it. The waker sends an IPI only when the target was idle
    /// (`ttwu_queue_cond`: the wake list, then `send_call_function_single_ipi`) or the wakee
    /// preempts its curr (`resched_curr` setting TIF_NEED_RESCHED anew); a busy target in the
    /// waker's LLC that keeps its curr is enqueued under its rq lock with no IPI.
    ///
    /// Returns how much later than δ a busy target's reschedule takes effect: its IPI arrives
    /// when the waker has paid for sending it (a virtual machine's vCPU exits to send an IPI,
    /// and the host delivers it as the exit ends: on the EPYC VM with haltpoll a wakee that
    /// preempts a CPU loop on the other CPU runs 20–26 µs, p10 to p90, after its waker's
    /// `sched_waking`, where its waker's `write` takes 11.5–18.5 µs;
    /// tests/fixtures/real-epyc-haltpoll/ipiwake-busy, `crates/cli/tests/real_ipi.rs`). An
    /// idle target's wait is `idle_wakeup_ns`, measured whole.
    pub(super) fn charge_wakeup(
        &mut self,
        waker: Option<Tid>,
        waker_cpu: u32,
        cpu: u32,
        idle_target: bool,
        resched_was_set: bool,
    ) -> u64 {
        let Some(w) = waker else { return 0 };
        if waker_cpu == cpu {
            let cost = self.spread_cost(waker_cpu, self.cfg.local_wakeup_ns);
            self.tasks[w].owed_ns += cost;
            return 0;
        }
        let preempts = !resched_was_set && self.cpus[cpu as usize].rq.need_resched;
        let ipi = idle_target || preempts;
        let ipi_cost = if ipi { self.cfg.ipi_cost_ns } else { 0 };
        let cost = self.spread_cost(waker_cpu, self.cfg.wakeup_cost_ns + ipi_cost);
        self.tasks[w].owed_ns += cost;
        if preempts && !idle_target {
            cost
        } else {
            0
        }
    }

    /// One charge of a machine cost of mean `mean` on `cpu`: uniform about the mean with
    /// standard deviation `cost_spread_ppm` millionths of it (`SimConfig::cost_spread_ppm`;
    /// the mean itself when that is 0). Drawn from the CPU's own stream, so the tasks' draws do
    /// not move.
    fn spread_cost(&mut self, cpu: u32, mean: u64) -> u64 {
        let Some(rng) = self.cpus[cpu as usize].cost_rng.as_mut() else {
            return mean;
        };
        if mean == 0 {
            return 0;
        }
        // A uniform of half-width h has standard deviation h / √3.
        let h = (u128::from(mean) * u128::from(self.cfg.cost_spread_ppm) * 1_732_051
            / 1_000_000_000_000) as u64;
        mean - h + rng.below(2 * h + 1)
    }

    /// A read of channel `ch` that found nothing: the reader blocks, and owes the read's wait
    /// path (`Channel::wait_ns`) when it runs again.
    fn wait_to_read(&mut self, id: Tid, ch: u32) {
        let wait = self.cfg.channels[ch as usize].wait_ns;
        self.tasks[id].owed_ns += wait;
        self.tasks[id].stats.wait_cost_ns += wait;
        self.block(id, TState::Sleeping);
    }

    /// A sleep of `n` ns: an hrtimer that wakes the task on its CPU, then `block`.
    pub(super) fn sleep_for(&mut self, id: Tid, n: u64) {
        self.sleep_timer(id, n);
        self.block(id, TState::Sleeping);
    }

    /// Past the sleep op, with its timer armed `n` ns from now (at least 1).
    pub(super) fn sleep_timer(&mut self, id: Tid, n: u64) {
        self.advance_pc(id);
        let t = &mut self.tasks[id];
        t.timer_gen = t.timer_gen.wrapping_add(1);
        let gen = t.timer_gen;
        self.push(self.now + n.max(1), Ev::Timer(id as u32, gen));
    }
}
