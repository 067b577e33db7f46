//! The classes above fair (`kernel/sched/rt.c`, and `deadline.c`'s fair server) as
//! interference: SCHED_FIFO and SCHED_RR tasks, RT throttling (6.1, 6.6) and the deferred
//! deadline server for fair tasks (6.12+).
//!
//! RT tasks are tasks (they switch in and out, and appear in every table), but they never enter
//! the fair run queue: each CPU keeps its runnable RT tasks in pick order (priority 99 first,
//! FIFO within a priority). `__schedule` asks this class first (`rt_pick`); only when it has
//! nothing to run, or may not run it, does the fair class pick. An RT task runs until it
//! blocks or a higher-priority one wakes; SCHED_RR also yields to the next task of its priority
//! after `RR_TIMESLICE` (100 ms) of CPU time.
//!
//! What leaves fair tasks time beside an RT hog:
//! - 6.1 and 6.6, RT throttling (`sched_rt_runtime_us` / `sched_rt_period_us`, 950 ms per
//!   1 s): `sched_rt_runtime_exceeded` throttles the CPU's RT run queue once its `rt_time`
//!   exceeds the runtime; the period timer (`do_sched_rt_period_timer`, periods from the first
//!   RT enqueue) takes a runtime's worth off `rt_time` and unthrottles.
//! - 6.12+, the fair server (`fair_server` runtime 50 ms / period 1 s, `dl_defer`): started
//!   when the CPU gets a fair task (`dl_server_start`), it is a deferred reservation. Fair time
//!   run in the background (no RT task in the way) is charged to it (`dl_server_update` from
//!   `update_curr`); if that exhausts its runtime, the server is not needed this period and a
//!   new period starts from now (`replenish_dl_new_period`). Otherwise its timer fires at the
//!   zero-laxity point, deadline − runtime left (`start_dl_timer` with `dl_defer_armed`), the
//!   server starts running (`dl_defer_running`); its replenishment there finds it over its
//!   bandwidth (`dl_entity_overflow`: 50 ms left in the 50 ms to the deadline) and gives it a
//!   new period from now with the full runtime (`replenish_dl_entity`). Being a deadline
//!   entity, it runs fair tasks ahead of any RT task until that runtime is spent; it is then
//!   throttled; the fair task's `update_curr` as it is switched out (`dl_server_update`) then
//!   finds the deferred server throttled and out of runtime, clears `dl_defer_running` and
//!   starts a new period from now (`replenish_dl_new_period`): it defers again, and its next
//!   window opens 950 ms after this one ended (Linux 6.18 recorded: 54 ms windows, the
//!   runtime plus the tick that notices it, 1.004 s apart). It stops when the CPU has no fair
//!   task left (`dl_server_stop`).
//!
//! Simplified (ARCHITECTURE.md, deviations): budgets are enforced at their exact instant by a
//! per-CPU timer (the kernel's RT throttling notices at the next tick, `update_curr_rt`; RR
//! slices are counted in ticks); RT wakeups stay on the task's CPU (no `select_task_rq_rt`, no
//! push/pull); RT tasks carry no PELT load; the fair server's start and stop are noticed when a
//! fair task is enqueued on the CPU or at the next scheduling point.

use alloc::vec::Vec;

use crate::config::{RtPolicy, SimConfig};
use crate::decision::Cause;
use crate::fair::Tid;
use crate::trace::EventKind;

use super::{Burst, Ev, Simulator, TState};

/// `RR_TIMESLICE`: 100 ms.
pub(super) const RR_TIMESLICE_NS: u64 = 100_000_000;

/// The fair server of one CPU (`rq->fair_server`).
#[derive(Clone, Copy, Debug, Default)]
struct FairServer {
    /// Started (`dl_server_active`).
    active: bool,
    /// `dl_defer_running`: past the zero-laxity point, it runs fair tasks ahead of RT.
    running: bool,
    /// `dl_throttled` after running out (until `deadline`).
    throttled: bool,
    /// Runtime left this period, ns (task clock).
    runtime: i64,
    /// Absolute deadline (wall time).
    deadline: u64,
}

/// One CPU's RT run queue and fair server.
#[derive(Clone, Debug, Default)]
pub(super) struct RtRq {
    /// Runnable RT tasks not running, in pick order.
    queue: Vec<Tid>,
    /// The RT task running here.
    pub(super) curr: Option<Tid>,
    /// `rt_rq->rt_time`.
    rt_time: u64,
    /// `rt_rq->rt_throttled`.
    throttled: bool,
    /// The end of the current RT bandwidth period (wall time); 0 until the first RT enqueue.
    period_end: u64,
    /// curr (SCHED_RR) used its slice and goes behind the next task of its priority.
    rr_yield: bool,
    /// `rq_clock_task` when the class last accounted.
    last: u64,
    server: FairServer,
    /// Generation of this CPU's RT timer (`Ev::Rt`).
    pub(super) gen: u32,
}

/// Everything the classes above fair keep.
#[derive(Clone, Debug, Default)]
pub(super) struct RtState {
    /// Whether any task is RT: every hook returns at once otherwise.
    pub(super) on: bool,
    /// Per task: its RT priority (0: a fair task) and whether it is SCHED_RR.
    prio: Vec<u32>,
    rr: Vec<bool>,
    /// Per task: SCHED_RR time slice left (`p->rt.time_slice`).
    slice_left: Vec<u64>,
    pub(super) cpus: Vec<RtRq>,
    /// The first RT enqueue (the global period timer starts there).
    t0: Option<u64>,
}

impl RtState {
    pub(super) fn new(cfg: &SimConfig) -> RtState {
        let n = cfg.tasks.len();
        let mut s = RtState {
            on: !cfg.rt_tasks.is_empty(),
            prio: alloc::vec![0; n],
            rr: alloc::vec![false; n],
            slice_left: alloc::vec![RR_TIMESLICE_NS; n],
            cpus: (0..cfg.cpus).map(|_| RtRq::default()).collect(),
            t0: None,
        };
        for r in &cfg.rt_tasks {
            s.prio[r.task as usize] = r.priority;
            s.rr[r.task as usize] = r.policy == RtPolicy::Rr;
        }
        s
    }
}

impl Simulator {
    /// Whether `id` is an RT task.
    pub(super) fn rt_task(&self, id: Tid) -> bool {
        self.rt.on && self.rt.prio[id] > 0
    }

    /// The RT task running on `cpu`.
    pub(super) fn rt_curr(&self, cpu: u32) -> Option<Tid> {
        if self.rt.on {
            self.rt.cpus[cpu as usize].curr
        } else {
            None
        }
    }

    /// Whether the RT class leaves `cpu` idle (nothing running or queued).
    pub(super) fn rt_idle(&self, cpu: u32) -> bool {
        !self.rt.on || {
            let r = &self.rt.cpus[cpu as usize];
            r.curr.is_none() && r.queue.is_empty()
        }
    }

    fn rt_clock(&mut self, cpu: u32) -> u64 {
        let cp = &mut self.cpus[cpu as usize];
        cp.clock_task = cp.clock_task.max(self.now.saturating_sub(cp.irq_ns));
        cp.clock_task
    }

    fn fair_server(&self) -> bool {
        self.fair.sw.fair_server
    }

    /// `update_curr_rt` and the fair server's `dl_server_update`: charges the time since the
    /// last call to whoever ran on `cpu`.
    pub(super) fn rt_account(&mut self, cpu: u32) {
        if !self.rt.on {
            return;
        }
        let ct = self.rt_clock(cpu);
        let fair_curr = self.cpus[cpu as usize].rq.curr.is_some();
        let r = &mut self.rt.cpus[cpu as usize];
        let d = ct.saturating_sub(r.last);
        r.last = ct;
        if let Some(id) = r.curr {
            let e = &mut self.ents[id];
            let ran = ct.saturating_sub(e.exec_start);
            e.sum_exec_runtime += ran;
            e.exec_start = ct;
            r.rt_time += d;
            if self.rt.rr[id] {
                let s = &mut self.rt.slice_left[id];
                *s = s.saturating_sub(d);
            }
            if ran > 0 {
                // update_curr_common's sched_stat_runtime.
                self.emit(
                    cpu,
                    EventKind::StatRuntime {
                        pid: id as u32 + 1,
                        runtime_ns: ran,
                    },
                );
            }
        } else if fair_curr && r.server.active {
            r.server.runtime -= d as i64;
        }
    }

    /// The budgets' transitions at `now`; returns whether `cpu` must reschedule.
    fn rt_check(&mut self, cpu: u32) -> bool {
        let now = self.now;
        let bw = self.cfg.rt_bandwidth;
        let fair_tasks = self.cpus[cpu as usize].rq.nr_running > 0;
        let fair_curr = self.cpus[cpu as usize].rq.curr.is_some();
        let fair_server = self.fair_server();
        let t0 = self.rt.t0;
        let r = &mut self.rt.cpus[cpu as usize];
        let rt_ready = r.curr.is_some() || !r.queue.is_empty();
        let mut resched = false;
        if !fair_server {
            if let (Some(t0), Some(runtime)) = (t0, bw.rt_runtime_ns) {
                let p = bw.rt_period_ns;
                if r.period_end == 0 {
                    r.period_end = t0 + ((now - t0) / p + 1) * p;
                }
                // do_sched_rt_period_timer, once per period passed.
                while now >= r.period_end {
                    r.period_end += p;
                    r.rt_time -= r.rt_time.min(runtime);
                    if r.throttled && r.rt_time < runtime {
                        r.throttled = false;
                        resched |= rt_ready;
                    }
                }
                // sched_rt_runtime_exceeded.
                if !r.throttled && r.rt_time >= runtime && runtime < p {
                    r.throttled = true;
                    resched |= r.curr.is_some();
                }
            }
        } else {
            let s = &mut r.server;
            let (runtime, period) = (bw.fair_server_runtime_ns as i64, bw.fair_server_period_ns);
            if fair_tasks && !s.active && runtime > 0 {
                // dl_server_start: a deferred reservation, a new period from now.
                *s = FairServer {
                    active: true,
                    running: false,
                    throttled: false,
                    runtime,
                    deadline: now + period,
                };
            } else if !fair_tasks && s.active {
                // dl_server_stop.
                *s = FairServer::default();
            }
            if s.active {
                if !s.running {
                    if s.runtime <= 0 {
                        // Fair tasks got the runtime in the background: not needed this
                        // period; a new one from now.
                        s.runtime = runtime;
                        s.deadline = now + period;
                    } else if now + s.runtime as u64 >= s.deadline {
                        // The zero-laxity timer (dl_server_timer): the server runs
                        // (dl_defer_running). Its replenishment (enqueue_dl_entity with
                        // ENQUEUE_REPLENISH) finds the runtime left over the time to the
                        // deadline above the server's bandwidth (dl_entity_overflow, with
                        // dl_defer_armed): a new period from now, with the full runtime.
                        s.running = true;
                        let to_deadline = (s.deadline - now) as u128;
                        if to_deadline * (runtime as u128) < period as u128 * s.runtime as u128 {
                            s.runtime = runtime;
                            s.deadline = now + period;
                        }
                        resched |= r.curr.is_some();
                    }
                } else if s.throttled {
                    if now >= s.deadline {
                        // Replenished at its deadline; still dl_defer_running: it runs at once.
                        s.throttled = false;
                        s.runtime = runtime;
                        while s.deadline <= now {
                            s.deadline += period;
                        }
                        resched |= r.curr.is_some();
                    }
                } else if s.runtime <= 0 {
                    // Runtime spent: throttled until the deadline (update_curr_dl_se); RT
                    // runs again. The fair task's own update_curr as it is switched out
                    // (dl_server_update) then finds a deferred, throttled server out of
                    // runtime: no longer dl_defer_running, a new period from now and the
                    // zero-laxity timer re-armed (replenish_dl_new_period): it defers again.
                    if fair_curr {
                        *s = FairServer {
                            active: true,
                            running: false,
                            throttled: false,
                            runtime,
                            deadline: now + period,
                        };
                    } else {
                        s.throttled = true;
                    }
                    resched |= rt_ready;
                }
            }
        }
        if let Some(id) = r.curr {
            if self.rt.rr[id] && self.rt.slice_left[id] == 0 {
                // task_tick_rt: a new slice; behind the next task of its priority, if any.
                self.rt.slice_left[id] = RR_TIMESLICE_NS;
                let p = self.rt.prio[id];
                if r.queue.iter().any(|&q| self.rt.prio[q] == p) {
                    r.rr_yield = true;
                    resched = true;
                }
            }
        }
        resched
    }

    /// Whether the RT class may run on `cpu` now (not throttled, no fair server running).
    fn rt_allowed(&self, cpu: u32) -> bool {
        let r = &self.rt.cpus[cpu as usize];
        if self.fair_server() {
            let s = &r.server;
            !(s.active && s.running && !s.throttled && self.cpus[cpu as usize].rq.nr_running > 0)
        } else {
            !r.throttled
        }
    }

    /// `pick_next_task_rt` (after `rt_account` and `rt_check`): the highest-priority runnable
    /// RT task, curr first among equals unless its RR slice just ended.
    pub(super) fn rt_pick(&mut self, cpu: u32) -> Option<Tid> {
        if !self.rt.on {
            return None;
        }
        self.rt_account(cpu);
        self.rt_check(cpu);
        if !self.rt_allowed(cpu) {
            return None;
        }
        let r = &self.rt.cpus[cpu as usize];
        let head = r.queue.first().copied();
        let curr = r.curr.filter(|&c| self.tasks[c].state == TState::Runnable);
        match (curr, head) {
            (Some(c), Some(h)) => {
                let (pc, ph) = (self.rt.prio[c], self.rt.prio[h]);
                if ph > pc || (ph == pc && r.rr_yield) {
                    Some(h)
                } else {
                    Some(c)
                }
            }
            (c, h) => c.or(h),
        }
    }

    /// Queues `id` behind the tasks of its priority (or ahead of them: `head`).
    fn rt_queue(&mut self, cpu: u32, id: Tid, head: bool) {
        let p = self.rt.prio[id];
        let prio = &self.rt.prio;
        let q = &mut self.rt.cpus[cpu as usize].queue;
        let at = q
            .iter()
            .position(|&t| if head { prio[t] <= p } else { prio[t] < p })
            .unwrap_or(q.len());
        q.insert(at, id);
    }

    /// `put_prev_task_rt`: a preempted RT task keeps its place at the head of its priority; one
    /// whose RR slice ended goes behind the others.
    pub(super) fn rt_put_prev(&mut self, cpu: u32, id: Tid) {
        let r = &mut self.rt.cpus[cpu as usize];
        r.curr = None;
        let tail = core::mem::take(&mut r.rr_yield);
        if self.tasks[id].state == TState::Runnable {
            self.rt_queue(cpu, id, !tail);
        }
    }

    /// `set_next_task_rt`.
    pub(super) fn rt_set_next(&mut self, cpu: u32, id: Tid) {
        let ct = self.rt_clock(cpu);
        let r = &mut self.rt.cpus[cpu as usize];
        r.queue.retain(|&t| t != id);
        r.curr = Some(id);
        r.rr_yield = false;
        self.ents[id].exec_start = ct;
    }

    /// Re-arms `cpu`'s RT timer at the next budget event: an RR slice's end, the throttling
    /// point or the period's end, the fair server's zero-laxity point, exhaustion or deadline.
    pub(super) fn rt_rearm(&mut self, cpu: u32) {
        if !self.rt.on {
            return;
        }
        let now = self.now;
        let bw = self.cfg.rt_bandwidth;
        let fair_curr = self.cpus[cpu as usize].rq.curr.is_some();
        let r = &self.rt.cpus[cpu as usize];
        let mut next = u64::MAX;
        if let Some(id) = r.curr {
            if self.rt.rr[id] {
                next = next.min(now + self.rt.slice_left[id]);
            }
        }
        if !self.fair_server() {
            if let Some(runtime) = bw.rt_runtime_ns {
                if r.curr.is_some() && !r.throttled && runtime < bw.rt_period_ns {
                    next = next.min(now + runtime.saturating_sub(r.rt_time));
                }
                if (r.rt_time > 0 || r.throttled) && r.period_end > 0 {
                    next = next.min(r.period_end);
                }
            }
        } else if r.server.active {
            let s = &r.server;
            let left = s.runtime.max(0) as u64;
            if s.throttled {
                next = next.min(s.deadline);
            } else {
                if !s.running {
                    next = next.min(s.deadline.saturating_sub(left));
                }
                if fair_curr {
                    next = next.min(now + left);
                }
            }
        }
        let r = &mut self.rt.cpus[cpu as usize];
        r.gen = r.gen.wrapping_add(1);
        let gen = r.gen;
        if next == u64::MAX {
            self.cancel(Ev::Rt(cpu, 0));
        } else {
            self.push(next.max(now + 1), Ev::Rt(cpu, gen));
        }
    }

    /// `cpu`'s RT timer: account, apply the budgets, reschedule if the running class changes.
    pub(super) fn rt_timer(&mut self, cpu: u32) {
        self.rt_account(cpu);
        if self.rt_check(cpu) {
            self.rt_resched(cpu);
        }
        self.rt_rearm(cpu);
    }

    fn rt_resched(&mut self, cpu: u32) {
        let rq = &mut self.cpus[cpu as usize].rq;
        if !rq.need_resched {
            rq.resched_cause = Some(Cause::Other);
        }
        rq.need_resched = true;
        self.kick(cpu);
    }

    /// A fair task was enqueued on `cpu` (the wakeup-preemption check follows every enqueue):
    /// the fair server starts if it was stopped. Returns whether an RT task runs there (then
    /// the fair wakee does not preempt: `wakeup_preempt` only acts within a class).
    pub(super) fn rt_fair_enqueued(&mut self, cpu: u32) -> bool {
        if !self.rt.on {
            return false;
        }
        if self.fair_server() && !self.rt.cpus[cpu as usize].server.active {
            self.rt_account(cpu);
            if self.rt_check(cpu) {
                self.rt_resched(cpu);
            }
            self.rt_rearm(cpu);
        }
        self.rt.cpus[cpu as usize].curr.is_some()
    }

    /// An RT task becomes runnable on its CPU: queued, and it preempts a fair or idle CPU or a
    /// lower-priority RT task (`wakeup_preempt_rt`).
    fn rt_enqueue(&mut self, id: Tid) {
        let cpu = self.tasks[id].cpu;
        if self.rt.t0.is_none() {
            // start_rt_bandwidth: the period timer starts with the first RT task.
            self.rt.t0 = Some(self.now);
        }
        self.rt_account(cpu);
        self.rt_queue(cpu, id, false);
        self.sched_info_enqueue(id);
        let preempt = match self.rt.cpus[cpu as usize].curr {
            Some(c) => self.rt.prio[id] > self.rt.prio[c],
            None => true,
        };
        if preempt && self.rt_allowed(cpu) {
            let idle = self.cpus[cpu as usize].rq.curr.is_none()
                && self.rt.cpus[cpu as usize].curr.is_none();
            let rq = &mut self.cpus[cpu as usize].rq;
            if !rq.need_resched {
                rq.resched_cause = Some(if idle { Cause::IdleCpu } else { Cause::Other });
            }
            rq.need_resched = true;
        }
    }

    /// `wake_up_new_task` for an RT task: it starts on its first allowed CPU.
    pub(super) fn rt_wake_up_new_task(&mut self, id: Tid) {
        let cpu = self.tasks[id].cpu;
        self.tasks[id].state = TState::Runnable;
        self.rt_enqueue(id);
        self.emit(
            cpu,
            EventKind::WakeupNew {
                pid: id as u32 + 1,
                target_cpu: cpu,
            },
        );
        self.kick(cpu);
    }

    /// `try_to_wake_up` for an RT task: it wakes on the CPU it last ran on.
    pub(super) fn rt_try_to_wake_up(&mut self, id: Tid, waker_cpu: u32, waker: Option<Tid>) {
        let cpu = self.tasks[id].cpu;
        let pid = id as u32 + 1;
        self.emit(
            waker_cpu,
            EventKind::Waking {
                pid,
                target_cpu: cpu,
            },
        );
        self.tasks[id].stats.wakeups += 1;
        self.tasks[id].state = TState::Runnable;
        let idle_target = self.idle_cpu(cpu);
        let resched_was_set = self.cpus[cpu as usize].rq.need_resched;
        self.rt_enqueue(id);
        let ipi_ns = self.charge_wakeup(waker, waker_cpu, cpu, idle_target, resched_was_set);
        let ws = &mut self.cpus[waker_cpu as usize].rq.stats;
        ws.ttwu_count += 1;
        if waker_cpu == cpu {
            ws.ttwu_local += 1;
        }
        self.emit(
            cpu,
            EventKind::Wakeup {
                pid,
                target_cpu: cpu,
            },
        );
        if waker_cpu != cpu {
            self.irq_exit(cpu);
        }
        if idle_target && waker_cpu != cpu {
            self.kick_idle(cpu);
        } else {
            self.kick_after(cpu, ipi_ns);
        }
    }

    /// The running RT task blocks or exits.
    pub(super) fn rt_block(&mut self, id: Tid, state: TState) {
        let cpu = self.tasks[id].cpu;
        self.rt_account(cpu);
        self.tasks[id].state = state;
        self.tasks[id].burst = Burst::Idle;
        if state == TState::Dead && !self.cfg.tasks[id].daemon {
            self.alive -= 1;
        }
        self.schedule(cpu);
    }
}
