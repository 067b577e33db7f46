//! CFS bandwidth control (`CONFIG_CFS_BANDWIDTH`, kernel/sched/fair.c): `cpu.max` quota and
//! period per task group, on the flat run queue of `group.rs`.
//!
//! What the kernel keeps, and the model with it:
//! - per group, the global pool (`struct cfs_bandwidth`): `runtime` refilled to `quota` (at
//!   most `quota + burst`) by the period timer (`sched_cfs_period_timer` →
//!   `do_sched_cfs_period_timer` → `__refill_cfs_bandwidth_runtime`), whose expiries are
//!   multiples of the period from time 0 (an absolute hrtimer forwarded by whole periods); the
//!   timer starts when a CPU first draws runtime (`start_cfs_bandwidth`) and stops after a
//!   period in which nothing drew any (`cfs_b->idle`);
//! - per group and CPU, the local pool (`cfs_rq->runtime_remaining`): the running task's time
//!   is charged to it (`account_cfs_rq_runtime` from `update_curr`, here at the kernel's
//!   points: the tick, `__schedule`'s `put_prev`, an enqueue into the group on that CPU); when
//!   it reaches 0 the CPU draws a slice (`sched_cfs_bandwidth_slice`, 5 ms) plus the deficit
//!   from the global pool (`assign_cfs_rq_runtime`); when the pool cannot cover the deficit
//!   the running task is rescheduled (`resched_curr`), and `__schedule`'s
//!   `check_cfs_rq_runtime` throttles the group there (`throttle_cfs_rq`): every task of the
//!   group (and of its children) queued on the CPU leaves the run queue;
//! - a group throttled on a CPU stays off it until `distribute_cfs_runtime` (from the period
//!   timer, or the slack timer) gives that CPU the deficit plus 1 ns, in the order the CPUs
//!   were throttled, while the pool lasts; `unthrottle_cfs_rq` then puts the tasks back (with
//!   no wakeup preemption: an idle CPU is rescheduled, a busy one is not);
//! - a CPU whose group runs out of tasks returns all but `min_cfs_rq_runtime` (1 ms) of its
//!   local runtime to the pool (`return_cfs_rq_runtime`); if the pool then holds more than a
//!   slice and some CPU is throttled, the slack timer (5 ms, not within 7 ms of the period's
//!   end) distributes it;
//! - a wakeup into a throttled group on its CPU leaves the task off the run queue (it waits
//!   there, `sched_info` counting); the first task enqueued into an empty group on a CPU
//!   whose local runtime is spent and that the pool cannot refill throttles the group at once
//!   (`check_enqueue_throttle`); the balancer does not move a task to a CPU where its group is
//!   throttled (`throttled_lb_pair`);
//! - `cpu.stat`: `nr_periods`, `nr_throttled`, `throttled_time` (from each throttle to its
//!   unthrottle, per CPU; 6.6+ only while a task is queued), `nr_bursts`, `burst_time`.
//!
//! 6.18 made throttling task based (the group stays queued; each task is dequeued when it next
//! returns to user space, through a task_work added when it is picked). The model's tasks are
//! all user time (a program's `run` is user code; its blocking calls take no CPU time), so a
//! task leaves at the instant its group is throttled or it would next run, as before 6.18: the
//! few microseconds of kernel exit each throttled task still runs are left out
//! (ARCHITECTURE.md, deviation 1).
//!
//! DEVIATION(kernel): the group's runtime is charged for the running task's time at the tick,
//! at `__schedule` and at enqueues into the same group (the kernel also charges it at other
//! `update_curr` calls of the group's own run queue, which move when exhaustion is noticed by
//! at most the time to the next of these); remote unthrottles take effect at once (no IPI
//! delay, 6.2+'s asynchronous unthrottle); a throttled task's PELT averages decay as a
//! sleeper's (the kernel stops the throttled group's PELT clock).

use alloc::vec;
use alloc::vec::Vec;

use super::{Ev, Simulator, TState};
use crate::cgroup::Bandwidth;
use crate::decision::Cause;
use crate::fair::Tid;
use crate::stats::BandwidthStats;

/// `sched_cfs_bandwidth_slice`: 5 ms (`sysctl_sched_cfs_bandwidth_slice`, 5000 µs).
pub const CFS_BANDWIDTH_SLICE_NS: i64 = 5_000_000;
/// `min_cfs_rq_runtime`: what a CPU keeps when its group runs out of tasks (1 ms).
const MIN_CFS_RQ_RUNTIME_NS: i64 = 1_000_000;
/// `cfs_bandwidth_slack_period`: 5 ms.
const SLACK_PERIOD_NS: u64 = 5_000_000;
/// `min_bandwidth_expiration`: 2 ms.
const MIN_BANDWIDTH_EXPIRATION_NS: u64 = 2_000_000;

/// How a task kept off the run queue by a throttled group is enqueued when it is let back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    No,
    /// Created into a throttled group (`wake_up_new_task`).
    New,
    /// Woken (or taken off by the throttle itself); `true`: the wakeup migrated it.
    Wakeup(bool),
    /// Moved here by the balancer or an affinity change (`attach_task`).
    Attach,
}

/// `struct cfs_bandwidth`.
#[derive(Clone, Debug)]
struct Pool {
    bw: Bandwidth,
    /// `cfs_b->runtime`.
    runtime: u64,
    /// `cfs_b->runtime_snap`.
    snap: u64,
    /// `cfs_b->idle`.
    idle: bool,
    /// `cfs_b->period_active`.
    active: bool,
    /// The period timer's expiry (kept when it stops: hrtimer_forward_now starts from it).
    expires: u64,
    /// The CPU the period timer is pinned to (the one that started it).
    timer_cpu: u32,
    /// `cfs_b->slack_started`.
    slack_started: bool,
    /// `cfs_b->throttled_cfs_rq`: CPUs, in the order they were throttled.
    throttled: Vec<u32>,
    stats: BandwidthStats,
}

/// The group's `cfs_rq` bandwidth fields on one CPU.
#[derive(Clone, Copy, Debug, Default)]
struct BwRq {
    /// `runtime_remaining`.
    remaining: i64,
    /// `throttled`.
    throttled: bool,
    /// `throttled_clock` (`None`: 0).
    clock: Option<u64>,
}

/// Everything bandwidth control keeps.
#[derive(Default)]
pub(super) struct BwState {
    /// Whether any group with tasks is limited: every hook returns at once otherwise.
    pub(super) on: bool,
    /// Per group (by index), its pool when limited.
    pools: Vec<Option<Pool>>,
    /// Per group × CPU.
    rqs: Vec<BwRq>,
    /// Per task, the limited groups on its path, innermost first.
    path: Vec<Vec<u32>>,
    /// Per limited group, the tasks in it or below it.
    members: Vec<Vec<Tid>>,
    /// Per task: whether (and how) a throttled group keeps it off its CPU's run queue.
    held: Vec<Held>,
    /// Per task, the `sum_exec_runtime` already charged.
    charged: Vec<u64>,
    cpus: usize,
}

impl BwState {
    pub(super) fn new(cfg: &crate::config::SimConfig) -> BwState {
        let cg = &cfg.cgroups;
        if !cg.bandwidth_active() {
            return BwState::default();
        }
        let ng = cg.groups.len();
        let path: Vec<Vec<u32>> = cg.task_group.iter().map(|&g| cg.limited_path(g)).collect();
        let mut members = vec![Vec::new(); ng];
        for (id, p) in path.iter().enumerate() {
            for &g in p {
                members[g as usize].push(id);
            }
        }
        BwState {
            on: path.iter().any(|p| !p.is_empty()),
            pools: cg
                .groups
                .iter()
                .map(|g| {
                    g.bandwidth.map(|bw| Pool {
                        bw,
                        // tg_set_cfs_bandwidth refills the pool: the quota.
                        runtime: bw.quota_ns,
                        snap: bw.quota_ns,
                        idle: false,
                        active: false,
                        expires: 0,
                        timer_cpu: 0,
                        slack_started: false,
                        throttled: Vec::new(),
                        stats: BandwidthStats {
                            path: g.path.clone(),
                            ..Default::default()
                        },
                    })
                })
                .collect(),
            rqs: vec![BwRq::default(); ng * cfg.cpus as usize],
            path,
            members,
            held: vec![Held::No; cfg.tasks.len()],
            charged: vec![0; cfg.tasks.len()],
            cpus: cfg.cpus as usize,
        }
    }

    /// The `cpu.stat` of every limited group.
    pub(super) fn stats(&self) -> Vec<BandwidthStats> {
        self.pools
            .iter()
            .flatten()
            .map(|p| p.stats.clone())
            .collect()
    }

    fn rq(&mut self, g: u32, cpu: u32) -> &mut BwRq {
        &mut self.rqs[g as usize * self.cpus + cpu as usize]
    }

    fn pool(&mut self, g: u32) -> &mut Pool {
        self.pools[g as usize]
            .as_mut()
            .expect("a limited group has a pool")
    }
}

impl Simulator {
    /// Whether a throttled group on `id`'s path keeps it off `cpu` (`throttled_hierarchy`).
    pub(super) fn bw_throttled_on(&self, id: Tid, cpu: u32) -> bool {
        self.bw.on
            && self.bw.path[id]
                .iter()
                .any(|&g| self.bw.rqs[g as usize * self.bw.cpus + cpu as usize].throttled)
    }

    /// Tasks of limited group `g` queued on `cpu` (running, queued or held there).
    fn bw_queued(&self, g: u32, cpu: u32) -> usize {
        self.bw.members[g as usize]
            .iter()
            .filter(|&&m| {
                self.tasks[m].cpu == cpu && (self.ents[m].on_rq || self.bw.held[m] != Held::No)
            })
            .count()
    }

    /// `start_cfs_bandwidth`: the period timer, if it is not running, is forwarded by whole
    /// periods past now and started (on this CPU).
    fn bw_start_period(&mut self, g: u32, cpu: u32) {
        let now = self.now;
        let p = self.bw.pool(g);
        if p.active {
            return;
        }
        p.active = true;
        p.timer_cpu = cpu;
        let period = p.bw.period_ns;
        // hrtimer_forward_now: an expiry still ahead stays; a past one moves by whole periods
        // to the first one after now.
        if p.expires <= now {
            p.expires += ((now - p.expires) / period + 1) * period;
        }
        let t = p.expires;
        self.push(t, Ev::BwPeriod(g));
    }

    /// `__assign_cfs_rq_runtime`: tops `cpu`'s local runtime up towards `target` from the pool.
    /// Returns whether the local runtime is positive.
    fn bw_assign(&mut self, g: u32, cpu: u32, target: i64) -> bool {
        self.bw_start_period(g, cpu);
        let rem = self.bw.rq(g, cpu).remaining;
        let want = (target - rem).max(0) as u64;
        let p = self.bw.pool(g);
        let mut amount = 0;
        if p.runtime > 0 {
            amount = p.runtime.min(want);
            p.runtime -= amount;
            p.idle = false;
        }
        let r = self.bw.rq(g, cpu);
        r.remaining += amount as i64;
        r.remaining > 0
    }

    fn bw_resched(&mut self, cpu: u32) {
        let rq = &mut self.cpus[cpu as usize].rq;
        if !rq.need_resched {
            rq.resched_cause = Some(Cause::Other);
        }
        rq.need_resched = true;
        self.kick(cpu);
    }

    /// `account_cfs_rq_runtime` for the running task's time since it was last charged, on every
    /// limited level of its path: a spent local runtime draws a slice; if the pool has none,
    /// the task is rescheduled (the throttle comes in `__schedule`).
    pub(super) fn bw_account(&mut self, cpu: u32) {
        if !self.bw.on {
            return;
        }
        let Some(curr) = self.cpus[cpu as usize].rq.curr else {
            return;
        };
        let sum = self.ents[curr].sum_exec_runtime;
        let delta = sum - self.bw.charged[curr];
        self.bw.charged[curr] = sum;
        for i in 0..self.bw.path[curr].len() {
            let g = self.bw.path[curr][i];
            let r = self.bw.rq(g, cpu);
            r.remaining -= delta as i64;
            if r.remaining > 0 || r.throttled {
                continue;
            }
            if !self.bw_assign(g, cpu, CFS_BANDWIDTH_SLICE_NS) {
                self.bw_resched(cpu);
            }
        }
    }

    /// `__schedule` before the pick (`put_prev_entity`'s `update_curr` and
    /// `check_cfs_rq_runtime` at each level of prev): charge prev and throttle each of its
    /// groups whose local runtime is spent.
    pub(super) fn bw_schedule(&mut self, cpu: u32) {
        if !self.bw.on {
            return;
        }
        let Some(prev) = self.cpus[cpu as usize].rq.curr else {
            return;
        };
        if self.bw.path[prev].is_empty() {
            return;
        }
        self.with_rq(cpu, |f, c| f.update_curr(c));
        self.bw_account(cpu);
        for i in 0..self.bw.path[prev].len() {
            let g = self.bw.path[prev][i];
            let r = *self.bw.rq(g, cpu);
            if r.remaining <= 0 && !r.throttled {
                self.bw_throttle(g, cpu);
            }
        }
    }

    /// `throttle_cfs_rq`: unless the pool can still cover the deficit, `g` is throttled on
    /// `cpu` and every task of it queued there leaves the run queue. Returns whether it was.
    fn bw_throttle(&mut self, g: u32, cpu: u32) -> bool {
        if self.bw_assign(g, cpu, 1) {
            return false;
        }
        self.bw.pool(g).throttled.push(cpu);
        let queued = self.bw_queued(g, cpu) > 0;
        let now = self.now;
        let counts = queued || !self.fair.sw.throttled_clock_queued;
        let r = self.bw.rq(g, cpu);
        r.throttled = true;
        r.clock = counts.then_some(now);
        // The group's entity leaves the run queue: here, each of its tasks.
        for i in 0..self.bw.members[g as usize].len() {
            let m = self.bw.members[g as usize][i];
            if self.tasks[m].cpu != cpu || !self.ents[m].on_rq {
                continue;
            }
            self.pelt_update(m);
            self.with_rq(cpu, |f, c| f.dequeue_throttled(c, m));
            if self.tasks[m].state == TState::Runnable {
                self.bw.held[m] = Held::Wakeup(false);
            }
        }
        self.group_update(cpu, None);
        true
    }

    /// A task is about to be enqueued on `cpu`: the enqueue's `update_curr` charges a running
    /// task of the same group, then `check_enqueue_throttle` at each limited level the task
    /// enters empty. Returns whether a throttled group keeps it off the run queue (then the
    /// caller does not enqueue it; it is let back at the unthrottle, enqueued as `how` says).
    fn bw_hold(&mut self, id: Tid, cpu: u32, how: Held) -> bool {
        if !self.bw.on || self.bw.path[id].is_empty() {
            return false;
        }
        if let Some(curr) = self.cpus[cpu as usize].rq.curr {
            if self.bw.path[curr]
                .iter()
                .any(|g| self.bw.path[id].contains(g))
            {
                self.with_rq(cpu, |f, c| f.update_curr(c));
                self.bw_account(cpu);
            }
        }
        let curr = self.cpus[cpu as usize].rq.curr;
        for i in 0..self.bw.path[id].len() {
            let g = self.bw.path[id][i];
            if self.bw.rq(g, cpu).throttled {
                let (now, queued) = (self.now, self.fair.sw.throttled_clock_queued);
                let r = self.bw.rq(g, cpu);
                if queued && r.clock.is_none() {
                    r.clock = Some(now);
                }
                break;
            }
            let curr_in = curr.is_some_and(|c| self.bw.path[c].contains(&g));
            if self.bw_queued(g, cpu) == 0 && !curr_in {
                // check_enqueue_throttle: account_cfs_rq_runtime(cfs_rq, 0), then throttle
                // if still nothing left.
                if self.bw.rq(g, cpu).remaining <= 0 {
                    self.bw_assign(g, cpu, CFS_BANDWIDTH_SLICE_NS);
                }
                if self.bw.rq(g, cpu).remaining <= 0 {
                    // Throttled with nothing queued yet: the clock starts with this task.
                    if self.bw_throttle(g, cpu) && self.fair.sw.throttled_clock_queued {
                        let now = self.now;
                        self.bw.rq(g, cpu).clock = Some(now);
                    }
                    break;
                }
            }
        }
        if self.bw_throttled_on(id, cpu) {
            self.bw.held[id] = how;
            true
        } else {
            false
        }
    }

    /// `wake_up_new_task` into a throttled group.
    pub(super) fn bw_hold_new(&mut self, id: Tid, cpu: u32) -> bool {
        self.bw_hold(id, cpu, Held::New)
    }

    /// `try_to_wake_up` into a throttled group (`migrated`: the wakeup moved it).
    pub(super) fn bw_hold_wakeup(&mut self, id: Tid, cpu: u32, migrated: bool) -> bool {
        self.bw_hold(id, cpu, Held::Wakeup(migrated))
    }

    /// `attach_task` into a throttled group.
    pub(super) fn bw_hold_attach(&mut self, id: Tid, cpu: u32) -> bool {
        self.bw_hold(id, cpu, Held::Attach)
    }

    /// `return_cfs_rq_runtime` for every limited group left with no task on `cpu` (called
    /// after the dequeues that can empty one: a block, a pick that finished a delayed dequeue,
    /// a migration away; the kernel returns at the dequeue itself, and a second call returns
    /// nothing).
    pub(super) fn bw_return_slack(&mut self, cpu: u32) {
        if !self.bw.on {
            return;
        }
        for g in 0..self.bw.pools.len() as u32 {
            if self.bw.pools[g as usize].is_none() {
                continue;
            }
            let r = *self.bw.rq(g, cpu);
            let slack = r.remaining - MIN_CFS_RQ_RUNTIME_NS;
            if slack <= 0 || self.bw_queued(g, cpu) > 0 {
                continue;
            }
            let now = self.now;
            let p = self.bw.pool(g);
            p.runtime += slack as u64;
            let start = p.runtime > CFS_BANDWIDTH_SLICE_NS as u64 && !p.throttled.is_empty();
            self.bw.rq(g, cpu).remaining -= slack;
            if start {
                // start_cfs_slack_bandwidth: not if the period ends within slack period +
                // min_bandwidth_expiration, nor twice.
                let p = self.bw.pool(g);
                let refresh_within =
                    p.expires < now + SLACK_PERIOD_NS + MIN_BANDWIDTH_EXPIRATION_NS;
                if !refresh_within && !p.slack_started {
                    p.slack_started = true;
                    self.push(now + SLACK_PERIOD_NS, Ev::BwSlack(g, cpu));
                }
            }
        }
    }

    /// `sched_cfs_slack_timer` → `do_sched_cfs_slack_timer` (fired on `cpu`).
    pub(super) fn bw_slack_timer(&mut self, g: u32, cpu: u32) {
        let now = self.now;
        let p = self.bw.pool(g);
        p.slack_started = false;
        if p.expires >= now + MIN_BANDWIDTH_EXPIRATION_NS
            && p.runtime > CFS_BANDWIDTH_SLICE_NS as u64
        {
            self.bw_distribute(g);
        }
        self.irq_exit(cpu);
    }

    /// `sched_cfs_period_timer` → `do_sched_cfs_period_timer`: one period passed.
    pub(super) fn bw_period_timer(&mut self, g: u32) {
        let p = self.bw.pool(g);
        let cpu = p.timer_cpu;
        p.expires += p.bw.period_ns;
        let throttled = !p.throttled.is_empty();
        p.stats.nr_periods += 1;
        // __refill_cfs_bandwidth_runtime.
        p.runtime += p.bw.quota_ns;
        if p.snap > p.runtime {
            p.stats.burst_time_ns += p.snap - p.runtime;
            p.stats.nr_bursts += 1;
        }
        p.runtime = p.runtime.min(p.bw.quota_ns + p.bw.burst_ns);
        p.snap = p.runtime;
        let stop = if p.idle && !throttled {
            true
        } else if !throttled {
            p.idle = true;
            false
        } else {
            p.stats.nr_throttled += 1;
            while !self.bw.pool(g).throttled.is_empty() && self.bw.pool(g).runtime > 0 {
                if !self.bw_distribute(g) {
                    break;
                }
            }
            self.bw.pool(g).idle = false;
            false
        };
        let p = self.bw.pool(g);
        if stop {
            p.active = false;
        } else {
            let t = p.expires;
            self.push(t, Ev::BwPeriod(g));
        }
        self.irq_exit(cpu);
    }

    /// `distribute_cfs_runtime`: each throttled CPU, in the order throttled, gets its deficit
    /// plus 1 ns while the pool lasts, and is unthrottled once positive. Returns whether it
    /// unthrottled any.
    fn bw_distribute(&mut self, g: u32) -> bool {
        let list = self.bw.pool(g).throttled.clone();
        let mut any = false;
        for cpu in list {
            let rem = self.bw.rq(g, cpu).remaining;
            let p = self.bw.pool(g);
            let give = ((1 - rem).max(0) as u64).min(p.runtime);
            p.runtime -= give;
            let left = p.runtime;
            let r = self.bw.rq(g, cpu);
            r.remaining += give as i64;
            if r.remaining > 0 {
                self.bw_unthrottle(g, cpu);
                any = true;
            }
            if left == 0 {
                break;
            }
        }
        any
    }

    /// `unthrottle_cfs_rq`: `throttled_time` grows by the time since the throttle; the tasks
    /// come back (those no other throttled group holds), and an idle CPU reschedules.
    fn bw_unthrottle(&mut self, g: u32, cpu: u32) {
        let now = self.now;
        let r = self.bw.rq(g, cpu);
        r.throttled = false;
        let clock = r.clock.take();
        let p = self.bw.pool(g);
        if let Some(c) = clock {
            p.stats.throttled_time_ns += now - c;
        }
        p.throttled.retain(|&c| c != cpu);
        for i in 0..self.bw.members[g as usize].len() {
            let m = self.bw.members[g as usize][i];
            let how = self.bw.held[m];
            if how == Held::No || self.tasks[m].cpu != cpu || self.bw_throttled_on(m, cpu) {
                continue;
            }
            self.bw.held[m] = Held::No;
            self.group_update(cpu, Some(m));
            self.with_rq(cpu, |f, c| match how {
                Held::New => f.enqueue_new(c, m),
                Held::Wakeup(migrated) => f.enqueue_wakeup(c, m, migrated),
                Held::Attach | Held::No => f.enqueue_attach(c, m),
            });
        }
        let c = &self.cpus[cpu as usize];
        if c.rq.curr.is_none() && c.rq.nr_running > 0 && self.rt_idle(cpu) {
            let rq = &mut self.cpus[cpu as usize].rq;
            if !rq.need_resched {
                rq.resched_cause = Some(Cause::IdleCpu);
            }
            rq.need_resched = true;
            self.kick(cpu);
        }
        self.clock_arm(cpu);
    }

    /// The `cpu.stat` of every limited group, as the run left it.
    pub(super) fn bw_stats(&self) -> Vec<BandwidthStats> {
        self.bw.stats()
    }
}
