//! `kernel/sched/core.c`, the paths the fair class hangs off:
//! - `try_to_wake_up` (with `ttwu_runnable` for a task still queued by DELAY_DEQUEUE) and
//!   `wake_up_new_task`, then `check_preempt_curr` (`wakeup_preempt` since 6.7);
//! - `__schedule`: the pick, `put_prev`/`set_next`, `sched_switch`, `sched_info` depart/arrive;
//! - `scheduler_tick` (`sched_tick` since 6.10), `hrtick_start`, `hrtick_update`;
//! - the interrupt and reschedule plumbing: IRQ time at irq exit, TIF_NEED_RESCHED taking
//!   effect δ later, the tick stopping on idle CPUs (NO_HZ idle);
//! - a running task blocking or exiting (the dequeue `__schedule` does for a prev that is no
//!   longer runnable).

use crate::config::Op;
use crate::decision::{Cause, DecisionKind, KeepRule, PickRule, PreemptRule};
use crate::fair::Tid;
use crate::trace::{EventKind, PrevState};
use crate::variant::Feature;

use super::{Burst, Ev, Simulator, TState};

/// `hrtick_start` never arms less than 10 µs ahead.
const HRTICK_MIN_NS: u64 = 10_000;

/// How often a task that reads its own CPU clock reads it where every read reschedules it
/// (`Simulator::clock_arm`): a `clock_gettime` system call and the `schedule()` at its return.
/// A read alone takes 0.19–0.20 µs on the Xeon VM; the `schedule()` adds to it, and the model
/// takes one read per µs.
const CLOCK_READ_NS: u64 = 1_000;

impl Simulator {
    /// The interrupt that delivered the current event ends: its time is hardirq time, accounted
    /// at irq exit (after the handler's `update_curr`) and never charged to a task.
    pub(super) fn irq_exit(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if c.rq.curr.is_some() {
            c.irq_ns += self.cfg.irq_ns;
        }
    }

    /// A raised TIF_NEED_RESCHED takes effect δ later (interrupt return + `__schedule`).
    pub(super) fn kick(&mut self, cpu: u32) {
        self.kick_after(cpu, 0);
    }

    /// `kick` with the IPI that carries the reschedule arriving `ipi_ns` from now.
    pub(super) fn kick_after(&mut self, cpu: u32, ipi_ns: u64) {
        let delay = self.cfg.switch_delay_ns + ipi_ns;
        let c = &mut self.cpus[cpu as usize];
        if c.rq.need_resched && !c.schedule_pending {
            c.schedule_pending = true;
            let gen = c.sched_gen;
            self.push(self.now + delay, Ev::Schedule(cpu, gen));
        }
    }

    /// `kick` for a wakeup onto an idle CPU from another CPU: the IPI and the idle exit come
    /// first (`idle_wakeup_ns`, or the deepest of `idle_states` the CPU has been idle long
    /// enough to reach).
    pub(super) fn kick_idle(&mut self, cpu: u32) {
        let delay = self.cfg.switch_delay_ns + self.idle_exit_ns(cpu);
        let c = &mut self.cpus[cpu as usize];
        if c.rq.need_resched && !c.schedule_pending {
            c.schedule_pending = true;
            let gen = c.sched_gen;
            self.push(self.now + delay, Ev::Schedule(cpu, gen));
        }
    }

    /// How long an IPI takes to bring an idle CPU back (`idle_wakeup_ns`, or the deepest of
    /// `idle_states` the CPU has been idle long enough to reach).
    pub(super) fn idle_exit_ns(&self, cpu: u32) -> u64 {
        let idle_for = self.now.saturating_sub(self.cpus[cpu as usize].idle_stamp);
        self.cfg
            .idle_states
            .iter()
            .rev()
            .find(|s| idle_for >= s.after_ns)
            .map_or(self.cfg.idle_wakeup_ns, |s| s.wakeup_ns)
    }

    /// The next periodic tick, at the next multiple of TICK_NSEC, unless one is armed.
    pub(super) fn arm_tick(&mut self, cpu: u32) {
        let tick = self.fair.tick_ns;
        let c = &mut self.cpus[cpu as usize];
        if !c.tick_armed {
            c.tick_armed = true;
            let t = (self.now / tick + 1) * tick;
            self.push(t, Ev::Tick(cpu));
        }
    }

    /// `wake_up_new_task`: a new task is placed by the fork slow path and enqueued.
    pub(super) fn wake_up_new_task(&mut self, id: Tid) {
        if self.rt_task(id) {
            return self.rt_wake_up_new_task(id);
        }
        // wake_up_new_task → select_task_rq(WF_FORK): the slow path.
        let prev_cpu = self.tasks[id].cpu;
        let (cpu, path) = self.find_idlest_cpu(id);
        if self.cfg.record_decisions {
            let kind = DecisionKind::Select {
                pid: id as u32 + 1,
                prev_cpu,
                waker_cpu: None,
                cpu,
                path,
            };
            self.rec.decide(self.now, cpu, kind);
        }
        self.tasks[id].cpu = cpu;
        self.tasks[id].recent_used_cpu = cpu;
        self.tasks[id].state = TState::Runnable;
        self.pelt_new(id, cpu);
        let held = self.bw_hold_new(id, cpu);
        if !held {
            self.group_update(cpu, Some(id));
            self.with_rq(cpu, |f, c| f.enqueue_new(c, id));
        }
        self.sched_info_enqueue(id);
        self.emit(
            cpu,
            EventKind::WakeupNew {
                pid: id as u32 + 1,
                target_cpu: cpu,
            },
        );
        if !held {
            // A task created into a throttled group waits for the unthrottle (bandwidth.rs).
            self.check_preempt_curr(cpu, id, true, false);
        }
        self.kick(cpu);
        self.hrtick_update(cpu);
    }

    /// A daemon whose program begins with a sleep (the machine's housekeeping) stands for a
    /// kernel thread that exists before the run, asleep: it starts asleep on its CPU with the
    /// sleep's timer armed, and first runs when that timer wakes it (a plain wakeup, not a
    /// fork, so it neither takes a new task's placement nor runs at the run's first instant).
    /// Its PELT averages start empty, attached to its CPU: the decayed blocked load of a thread
    /// that runs a fraction of a percent of the time, where a new task's would start at its
    /// full weight. Returns false for any other task, which is created by `wake_up_new_task`.
    pub(super) fn start_asleep(&mut self, id: Tid) -> bool {
        let spec = &self.cfg.tasks[id];
        let Some(&Op::Sleep(d)) = spec.program.first() else {
            return false;
        };
        if !spec.daemon || self.rt_task(id) {
            return false;
        }
        let cpu = spec.affinity[0];
        let t = &mut self.tasks[id];
        t.cpu = cpu;
        t.recent_used_cpu = cpu;
        t.avg = crate::pelt::SchedAvg::default();
        self.pelt_attach(id, cpu);
        let n = d.sample(&mut self.tasks[id].rng);
        self.tasks[id].state = TState::Sleeping;
        self.sleep_timer(id, n);
        true
    }

    /// `check_preempt_curr` (`wakeup_preempt` since 6.7): an idle CPU is always preempted by a fair task.
    pub(super) fn check_preempt_curr(&mut self, cpu: u32, id: Tid, fork: bool, sync: bool) {
        if self.rt_fair_enqueued(cpu) {
            // An RT task runs there: a fair wakee never preempts it (rt.rs).
            return;
        }
        if self.cpus[cpu as usize].rq.curr.is_none() {
            let rq = &mut self.cpus[cpu as usize].rq;
            if !rq.need_resched {
                rq.resched_cause = Some(Cause::IdleCpu);
            }
            rq.need_resched = true;
        } else {
            let outcome = self.with_rq(cpu, |f, c| f.check_preempt_wakeup(c, id, fork, sync));
            if let (Some(outcome), true) = (outcome, self.cfg.record_decisions) {
                self.record_wakeup_decision(cpu, id, outcome);
            }
        }
    }

    /// The decision record of a wakeup-preemption check: both entities as the check left them.
    fn record_wakeup_decision(
        &mut self,
        cpu: u32,
        wakee: Tid,
        outcome: Result<PreemptRule, KeepRule>,
    ) {
        let Some(curr) = self.cpus[cpu as usize].rq.curr else {
            return;
        };
        let (func, cv, wv, v, nr) = self.with_rq(cpu, |f, c| {
            let (_, _, v, _, _) = f.snapshot(c, curr);
            (
                f.wakeup_func(),
                f.view(c, curr),
                f.view(c, wakee),
                v,
                c.rq.nr_running,
            )
        });
        self.rec.decide(
            self.now,
            cpu,
            DecisionKind::Wakeup {
                func,
                curr: cv,
                wakee: wv,
                v,
                nr_running: nr,
                outcome,
            },
        );
    }

    /// The decision record of a pick, taken before `set_next_entity`: the chosen entity and
    /// prev (when still queued, the pick weighed it) as the pick saw them.
    fn record_pick(&mut self, cpu: u32, prev: Option<Tid>, next: Option<Tid>, rule: PickRule) {
        let fair = |s: &Self, t: Option<Tid>| t.filter(|&t| !s.rt_task(t));
        let chosen = fair(self, next);
        let curr = fair(self, prev)
            .filter(|&p| self.cpus[cpu as usize].rq.curr == Some(p) && self.ents[p].on_rq);
        let (func, cv, pv, v, nr) = self.with_rq(cpu, |f, c| {
            (
                f.pick_func(),
                chosen.map(|t| f.view(c, t)),
                curr.map(|t| f.view(c, t)),
                f.queue_v(c),
                c.rq.nr_running,
            )
        });
        let kind = DecisionKind::Pick {
            func,
            prev: prev.map_or(0, |p| p as u32 + 1),
            next: next.map_or(0, |n| n as u32 + 1),
            rule,
            chosen: cv,
            curr: pv,
            v,
            nr_running: nr,
        };
        self.rec.decide(self.now, cpu, kind);
    }

    /// `try_to_wake_up` by a waker running on `waker_cpu`: `waker` is the task doing it (a
    /// send), `None` for a timer.
    pub(super) fn try_to_wake_up(
        &mut self,
        id: Tid,
        waker_cpu: u32,
        waker: Option<Tid>,
        sync: bool,
    ) {
        if self.tasks[id].state != TState::Sleeping {
            return;
        }
        if self.rt_task(id) {
            return self.rt_try_to_wake_up(id, waker_cpu, waker);
        }
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
        // Whether the wakee lands on an idle CPU (which then pays `idle_wakeup_ns` when the
        // waker is elsewhere).
        let mut idle_target = false;
        // Whether the target's TIF_NEED_RESCHED was already set (`resched_curr` sends no IPI
        // then).
        let mut resched_was_set = self.cpus[cpu as usize].rq.need_resched;
        if self.ents[id].sched_delayed {
            // ttwu_runnable: still queued (delayed dequeue); no CPU selection.
            self.pelt_update(id);
            self.with_rq(cpu, |f, c| f.requeue_delayed(c, id));
            self.sched_info_enqueue(id);
            if self.cpus[cpu as usize].rq.curr != Some(id) {
                self.check_preempt_curr(cpu, id, false, sync);
            }
        } else {
            let (new_cpu, path) = self.select_task_rq_fair(id, waker_cpu, waker, sync);
            if self.cfg.record_decisions {
                let kind = DecisionKind::Select {
                    pid,
                    prev_cpu: cpu,
                    waker_cpu: Some(waker_cpu),
                    cpu: new_cpu,
                    path,
                };
                self.rec.decide(self.now, waker_cpu, kind);
            }
            let migrated = new_cpu != cpu;
            // The wakee's averages catch up with its sleep; migrate_task_rq_fair takes them
            // off the old CPU (remove_entity_load_avg, applied at once) and the enqueue
            // attaches them to the new one; else update_load_avg before the enqueue.
            self.pelt_update(id);
            if migrated {
                self.pelt_detach(id, cpu);
                self.with_rq(cpu, |f, c| f.migrate_waking(c, id));
                self.emit(
                    waker_cpu,
                    EventKind::MigrateTask {
                        pid,
                        orig_cpu: cpu,
                        dest_cpu: new_cpu,
                    },
                );
                self.tasks[id].cpu = new_cpu;
                self.tasks[id].stats.migrations += 1;
                self.pelt_attach(id, new_cpu);
            }
            idle_target = self.idle_cpu(new_cpu);
            resched_was_set = self.cpus[new_cpu as usize].rq.need_resched;
            if self.bw_hold_wakeup(id, new_cpu, migrated) {
                // Its group is throttled there: it waits for the unthrottle (bandwidth.rs).
                self.ttwu_avg_idle(new_cpu);
                self.sched_info_enqueue(id);
            } else {
                self.group_update(new_cpu, Some(id));
                self.with_rq(new_cpu, |f, c| f.enqueue_wakeup(c, id, migrated));
                // ttwu_do_activate: rq->avg_idle learns how long the target was newly idle.
                self.ttwu_avg_idle(new_cpu);
                self.sched_info_enqueue(id);
                self.check_preempt_curr(new_cpu, id, false, sync);
            }
        }
        let cpu = self.tasks[id].cpu;
        let ipi_ns = self.charge_wakeup(waker, waker_cpu, cpu, idle_target, resched_was_set);
        // ttwu_stat(p, task_cpu(p), ...): counted on the waker's runqueue, local when the
        // wakee lands on the waker's CPU (after select_task_rq, not its previous CPU).
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
            // A remote wakeup arrives by IPI (TTWU_QUEUE).
            self.irq_exit(cpu);
        }
        if idle_target && waker_cpu != cpu {
            // DEVIATION(kernel): the wakee is enqueued at once (the kernel queues it on the
            // target's wake list and enqueues it when the IPI arrives); only the switch waits
            // for the IPI and the idle exit.
            self.kick_idle(cpu);
        } else {
            self.kick_after(cpu, ipi_ns);
        }
        self.hrtick_update(cpu);
    }

    /// `scheduler_tick` (`sched_tick` since 6.10) on a busy CPU: `task_tick_fair`, then
    /// `trigger_load_balance`, and the next tick.
    pub(super) fn sched_tick(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        c.tick_armed = false;
        let Some(curr) = c.rq.curr else {
            // NO_HZ idle: the tick stops on an idle CPU. It goes on under an RT task (whose
            // budgets rt.rs enforces with its own timer).
            if self.rt_curr(cpu).is_some() {
                self.arm_tick(cpu);
            }
            return;
        };
        let hr = c.hrtick_expires.is_some_and(|t| t > self.now);
        // entity_tick → update_load_avg(cfs_rq, curr).
        self.pelt_update(curr);
        self.group_update(cpu, None);
        self.with_rq(cpu, |f, c| f.task_tick(c, false, hr));
        self.bw_account(cpu);
        self.irq_exit(cpu);
        if self.cfg.cpus > 1 {
            // trigger_load_balance raises SCHED_SOFTIRQ; its work runs at irq exit, δ later
            // (after the reschedules this tick edge raised, see balance.rs).
            self.push(self.now + self.cfg.switch_delay_ns, Ev::Softirq(cpu));
        }
        self.snapshot(cpu, curr);
        self.arm_tick(cpu);
        self.clock_arm(cpu);
        self.kick(cpu);
    }

    /// `__schedule()`.
    pub(super) fn schedule(&mut self, cpu: u32) {
        let now = self.now;
        {
            // TIF_NEED_RESCHED stays set until after the pick, as in __schedule: a wakeup
            // preemption check during the pick (a newidle pull) sees it and returns early.
            let c = &mut self.cpus[cpu as usize];
            c.sched_gen = c.sched_gen.wrapping_add(1);
            c.schedule_pending = false;
            c.rq.stats.sched_count += 1;
            c.hrtick_gen = c.hrtick_gen.wrapping_add(1);
            c.hrtick_expires = None;
            // A pending reschedule and hrtick are void now: out of the queue.
            self.cancel(Ev::Schedule(cpu, 0));
            self.cancel(Ev::HrTick(cpu, 0));
        }
        let prev = self.cpus[cpu as usize].rq.curr.or(self.rt_curr(cpu));
        let cause = self.cpus[cpu as usize].rq.resched_cause.take();
        // put_prev_entity → update_load_avg (or the idle CPU's own averages).
        match prev {
            Some(p) if self.rt_task(p) => {}
            Some(p) => self.pelt_update(p),
            None => self.pelt_cfs(cpu),
        }
        // put_prev_entity's check_cfs_rq_runtime: a group out of runtime is throttled.
        self.bw_schedule(cpu);
        // Active balance: the stopper preempted prev to push it elsewhere (balance/mod.rs).
        let pushed = self.stopper_push(cpu, prev);
        // ---- The classes above fair first (rt.rs): an RT task, unless throttled or the
        // fair server runs; then the fair class.
        let mut next = self.rt_pick(cpu);
        let mut rule = PickRule::HigherClass;
        if next.is_none() {
            let mut picked = self.with_rq(cpu, |f, c| f.pick_next(c));
            if picked.is_none() && self.newidle_balance(cpu) {
                picked = self.with_rq(cpu, |f, c| f.pick_next(c));
            }
            rule = picked.map_or(PickRule::Idle, |(_, r)| r);
            next = picked.map(|(t, _)| t);
        }
        if self.cfg.record_decisions {
            self.record_pick(cpu, prev, next, rule);
        }
        // A group the block or the pick's delayed dequeue left empty returns its slack.
        self.bw_return_slack(cpu);
        // ----
        // clear_tsk_need_resched(prev) comes after pick_next_task: a resched that the pick's
        // update_curr raised on prev is void.
        self.cpus[cpu as usize].rq.need_resched = false;
        self.cpus[cpu as usize].rq.resched_cause = None;
        if next.is_none() {
            self.cpus[cpu as usize].rq.stats.sched_goidle += 1;
            if prev.is_some() {
                self.cpus[cpu as usize].idle_stamp = now;
            }
            // nohz_balance_enter_idle (the idle loop stops the tick): the CPU's load is now
            // blocked load that the NOHZ stats kick decays (balance/mod.rs).
            self.cpus[cpu as usize].has_blocked_load = true;
            self.nohz_has_blocked = true;
        }
        if next != prev {
            match prev {
                Some(p) if self.rt_task(p) => self.rt_put_prev(cpu, p),
                Some(p) if !pushed => self.with_rq(cpu, |f, c| f.put_prev(c, p)),
                _ => {}
            }
            match next {
                Some(n) if self.rt_task(n) => self.rt_set_next(cpu, n),
                Some(n) => {
                    // set_next_entity → update_load_avg.
                    self.pelt_update(n);
                    self.with_rq(cpu, |f, c| f.set_next(c, n));
                }
                None => {}
            }
            let prev_state = match prev {
                None => PrevState::Running,
                Some(p) => match self.tasks[p].state {
                    TState::Runnable | TState::New => PrevState::Running,
                    TState::Sleeping => PrevState::Sleeping,
                    TState::Dead => PrevState::Dead,
                },
            };
            self.emit(
                cpu,
                EventKind::Switch {
                    prev_pid: prev.map_or(0, |p| p as u32 + 1),
                    prev_state,
                    next_pid: next.map_or(0, |n| n as u32 + 1),
                },
            );
            if let (Some(p), PrevState::Running, true) =
                (prev, prev_state, self.cfg.record_decisions)
            {
                self.rec.decide(
                    now,
                    cpu,
                    DecisionKind::Preempt {
                        prev: p as u32 + 1,
                        next: next.map_or(0, |n| n as u32 + 1),
                        cause: cause.unwrap_or(Cause::Other),
                    },
                );
            }
            if let Some(p) = prev {
                self.end_spin(p);
                let t = &mut self.tasks[p];
                t.gen = t.gen.wrapping_add(1);
                // Its burst end or resume is void: out of the queue.
                self.queue.cancel(Ev::BurstEnd(p as u32, 0));
                // sched_info_depart
                let ran = now - t.stats.last_arrival_ns;
                self.cpus[cpu as usize].rq.stats.rq_cpu_time_ns += ran;
                if prev_state == PrevState::Running {
                    t.stats.involuntary_switches += 1;
                    if t.stats.last_queued_ns == 0 {
                        t.stats.last_queued_ns = now.max(1);
                    }
                } else {
                    t.stats.voluntary_switches += 1;
                }
                self.snapshot(cpu, p);
            }
            self.cache_switch(cpu, prev, next);
            if let Some(n) = next {
                self.charge_switch(n);
                // sched_info_arrive
                let t = &mut self.tasks[n];
                if t.stats.last_queued_ns != 0 {
                    let d = now.saturating_sub(t.stats.last_queued_ns);
                    t.stats.last_queued_ns = 0;
                    t.stats.run_delay_ns += d;
                    t.stats.pcount += 1;
                    let s = &mut self.cpus[cpu as usize].rq.stats;
                    s.run_delay_ns += d;
                    s.pcount += 1;
                }
                t.stats.last_arrival_ns = now;
                let gen = t.gen;
                match t.burst {
                    Burst::Until(end) | Burst::Paying(end) => {
                        let left = end.saturating_sub(self.ents[n].sum_exec_runtime);
                        self.push(now + left, Ev::BurstEnd(n as u32, gen));
                    }
                    Burst::Forever => {}
                    // A spinner was made idle when it left its CPU.
                    Burst::Idle | Burst::Spin => self.push(now, Ev::Resume(n as u32, gen)),
                }
                self.snapshot(cpu, n);
            }
        }
        if next.is_some() {
            self.arm_tick(cpu);
            self.hrtick_start(cpu);
        }
        self.clock_arm(cpu);
        self.rt_rearm(cpu);
        self.kick(cpu);
    }

    /// `hrtick_start` with `hrtick_start_fair`'s delay; an expired slice reschedules at once.
    pub(super) fn hrtick_start(&mut self, cpu: u32) {
        if !self.fair.variant.has(Feature::Hrtick) {
            return;
        }
        let Some(delay) = self.with_rq(cpu, |f, c| f.hrtick_delay(c)) else {
            return;
        };
        if delay < 0 {
            let rq = &mut self.cpus[cpu as usize].rq;
            if !rq.need_resched {
                rq.resched_cause = Some(Cause::Hrtick);
            }
            rq.need_resched = true;
            self.kick(cpu);
            return;
        }
        let t = self.now + (delay as u64).max(HRTICK_MIN_NS);
        let c = &mut self.cpus[cpu as usize];
        c.hrtick_gen = c.hrtick_gen.wrapping_add(1);
        c.hrtick_expires = Some(t);
        let gen = c.hrtick_gen;
        self.push(t, Ev::HrTick(cpu, gen));
    }

    /// Arms curr's next read of its own CPU clock at which `update_curr` reschedules it
    /// (`TaskSpec::cpu_clock`): where its vruntime reaches its deadline or the end of its
    /// protection, with another task queued. Such a task reads its clock all the time it
    /// works, so the read at that instant stands for all of them (the others change nothing
    /// the model keeps). Any earlier pending read is void.
    pub(super) fn clock_arm(&mut self, cpu: u32) {
        let curr = self.cpus[cpu as usize].rq.curr;
        let reads = curr.is_some_and(|t| self.tasks[t].cpu_clock);
        let c = &mut self.cpus[cpu as usize];
        if c.clock_armed {
            c.clock_armed = false;
            c.clock_gen = c.clock_gen.wrapping_add(1);
            self.cancel(Ev::ClockRead(cpu, 0));
        }
        if !reads || self.cpus[cpu as usize].rq.need_resched {
            return;
        }
        let Some(charge) = self.with_rq(cpu, |f, c| f.clock_read_charge(c)) else {
            return;
        };
        // The read that sees that much charged: curr's charge runs from `exec_start` on
        // `rq_clock_task`, which IRQ time holds back. Past that point (its protection over,
        // it was picked again: `set_next_entity` is not called for a curr picked again, so
        // `vprot` stays behind) every read reschedules it; the model takes one read per
        // `CLOCK_READ_NS` then.
        let c = &self.cpus[cpu as usize];
        let Some(curr) = c.rq.curr else { return };
        let due = self.ents[curr].exec_start.saturating_add(charge.max(1)) + c.irq_ns;
        let gen = c.clock_gen;
        let next = if charge == 0 {
            self.now + CLOCK_READ_NS
        } else {
            self.now + 1
        };
        self.cpus[cpu as usize].clock_armed = true;
        self.push(due.max(next), Ev::ClockRead(cpu, gen));
    }

    /// Curr reads its CPU clock where its slice or protection runs out: `task_sched_runtime`
    /// → `update_curr`; the reschedule it raises is taken at the read's return.
    pub(super) fn clock_read(&mut self, cpu: u32) {
        if self.cpus[cpu as usize].rq.curr.is_none() {
            return;
        }
        self.cpus[cpu as usize].clock_armed = false;
        self.with_rq(cpu, |f, c| f.update_curr(c));
        let curr = self.cpus[cpu as usize].rq.curr;
        if !self.cpus[cpu as usize].rq.need_resched {
            self.clock_arm(cpu);
        } else if curr.is_some_and(|t| self.tasks[t].kthread) {
            // A kernel thread never returns to user space (see `syscall_exit`): δ, as an
            // interrupt's reschedule.
            self.kick(cpu);
        } else {
            self.schedule(cpu);
        }
    }

    /// `hrtick_update` after an enqueue or dequeue (and curr's next CPU-clock read that
    /// reschedules: the queue it competes in changed).
    pub(super) fn hrtick_update(&mut self, cpu: u32) {
        self.clock_arm(cpu);
        if !self.fair.variant.has(Feature::Hrtick) || self.cpus[cpu as usize].rq.curr.is_none() {
            return;
        }
        if self.with_rq(cpu, |f, c| f.hrtick_update_allowed(c)) {
            self.hrtick_start(cpu);
        }
    }

    /// `sched_info_enqueue`: the task starts waiting for a CPU.
    pub(super) fn sched_info_enqueue(&mut self, id: Tid) {
        let s = &mut self.tasks[id].stats;
        if s.last_queued_ns == 0 {
            // 0 means "not queued"; a task queued at t = 0 is stamped 1 ns late.
            s.last_queued_ns = self.now.max(1);
        }
    }

    /// The running task blocks (or exits) and calls `schedule()` itself.
    pub(super) fn block(&mut self, id: Tid, state: TState) {
        if self.rt_task(id) {
            return self.rt_block(id, state);
        }
        let cpu = self.tasks[id].cpu;
        self.tasks[id].state = state;
        self.tasks[id].burst = Burst::Idle;
        let special = state == TState::Dead;
        if special && !self.cfg.tasks[id].daemon {
            self.alive -= 1;
        }
        // dequeue_entity → update_load_avg while it still runs.
        self.pelt_update(id);
        self.with_rq(cpu, |f, c| {
            f.dequeue_sleep(c, id, special);
        });
        self.group_update(cpu, None);
        // sched_info_dequeue: a running task has no pending wait.
        let s = &mut self.tasks[id].stats;
        if s.last_queued_ns != 0 {
            let d = self.now.saturating_sub(s.last_queued_ns);
            s.run_delay_ns += d;
            s.last_queued_ns = 0;
            self.cpus[cpu as usize].rq.stats.run_delay_ns += d;
        }
        self.hrtick_update(cpu);
        self.schedule(cpu);
    }
}
