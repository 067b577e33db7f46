//! The fair scheduling class: CFS (5.14, 6.1) and EEVDF (6.6, 6.12, 6.19), flat hierarchy.
//!
//! Mirrors `kernel/sched/fair.c`:
//! - accounting: `update_curr`, `update_min_vruntime`, `update_deadline` (EEVDF), `avg_vruntime`,
//!   `vruntime_eligible`, `update_entity_lag`;
//! - enqueue/dequeue: `enqueue_entity`, `dequeue_entity` (DELAY_DEQUEUE), `requeue_delayed_entity`,
//!   `place_entity` (CFS sleeper credit and START_DEBIT; EEVDF PLACE_LAG inflation);
//! - pick: `pick_next_entity` with buddies (CFS), `pick_eevdf` / `__pick_eevdf` (EEVDF),
//!   `set_next_entity` (the RUN_TO_PARITY vlag marker, 6.19 `set_protect_slice`),
//!   `put_prev_entity`;
//! - preemption: `check_preempt_tick` (CFS), `check_preempt_wakeup[_fair]` for each version,
//!   `do_preempt_short` / `did_preempt_short` (6.12), `protect_slice` & co (6.19);
//! - `hrtick_start_fair`.
//!
//! The versions differ through [`VersionSwitches`] and the feature set, never through separate
//! copies of the logic. Where the model departs from the kernel the code says
//! `DEVIATION(kernel)`; ARCHITECTURE.md lists them all.
//!
//! The run queue is a plain vector scanned linearly: the tree's order only matters for ties, and
//! every scan breaks ties with the insertion sequence exactly as an rb-tree that sends equal keys
//! right would.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::SchedPolicy;
use crate::stats::CpuStats;
use crate::trace::{Event, EventKind};
use crate::variant::{Class, Feature, Protect, SchedParams, Variant, VersionSwitches};
use crate::weight::{calc_delta, calc_delta_fair, LoadWeight};

/// Index of a task (pid − 1).
pub(crate) type Tid = usize;

/// `struct sched_entity` for a task.
#[derive(Clone, Debug)]
pub(crate) struct Entity {
    pub load: LoadWeight,
    pub policy: SchedPolicy,
    pub vruntime: i64,
    pub deadline: i64,
    pub vlag: i64,
    pub vprot: i64,
    pub slice: u64,
    pub custom_slice: bool,
    pub on_rq: bool,
    pub sched_delayed: bool,
    pub rel_deadline: bool,
    pub exec_start: u64,
    pub sum_exec_runtime: u64,
    pub prev_sum_exec_runtime: u64,
    /// Insertion sequence in the tree: among equal keys the earlier inserted is further left.
    pub seq: u64,
    /// Position in `rq->cfs_tasks` (most recently enqueued or picked = largest): the load
    /// balancer detaches from the other end, least recently run first.
    pub mru: u64,
}

impl Entity {
    pub fn new(load: LoadWeight, policy: SchedPolicy, custom_slice_ns: Option<u64>) -> Entity {
        Entity {
            load,
            policy,
            vruntime: 0,
            deadline: 0,
            vlag: 0,
            vprot: 0,
            slice: custom_slice_ns.unwrap_or(0),
            custom_slice: custom_slice_ns.is_some(),
            on_rq: false,
            sched_delayed: false,
            rel_deadline: false,
            exec_start: 0,
            sum_exec_runtime: 0,
            prev_sum_exec_runtime: 0,
            seq: 0,
            mru: 0,
        }
    }
    /// `se_is_idle` with group scheduling built in: the task's policy.
    fn idle(&self) -> bool {
        self.policy == SchedPolicy::Idle
    }
    /// User-visible weight.
    pub fn load_user(&self) -> u64 {
        self.load.user()
    }
    /// User-visible weight (`scale_load_down`).
    fn w(&self) -> i128 {
        self.load.user() as i128
    }
}

/// The fair part of one CPU's runqueue (`struct cfs_rq`) plus the per-rq counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rq {
    /// Queued entities other than curr (the rb-tree's members).
    pub tree: Vec<Tid>,
    /// `cfs_rq->curr`: the fair task on the CPU.
    pub curr: Option<Tid>,
    /// `nr_running` (6.14+: `nr_queued`): queued entities, curr and delayed ones included.
    pub nr_running: u32,
    /// SCHED_IDLE entities among them (`idle_nr_running`).
    pub nr_idle: u32,
    /// `load.weight`: scaled weights of the queued entities, curr included.
    pub load: u64,
    /// `min_vruntime`: monotonic (the 6.19 `zero_vruntime` is a numerical base only).
    pub min_vruntime: i64,
    pub next: Option<Tid>,
    pub last: Option<Tid>,
    /// TIF_NEED_RESCHED on the running task.
    pub need_resched: bool,
    seq: u64,
    pub stats: CpuStats,
}

/// What one fair-class call works on.
pub(crate) struct Ctx<'a> {
    pub rq: &'a mut Rq,
    pub ents: &'a mut [Entity],
    /// Wall time (trace timestamps).
    pub now: u64,
    /// `rq_clock_task`: wall time minus IRQ time on this CPU; all runtime accounting uses it.
    pub clock_task: u64,
    pub cpu: u32,
    pub out: &'a mut Vec<Event>,
}

/// Why a wakee preempted, for the counters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reason {
    IdleCurr,
    Gran,
    Short,
    Pick,
    ReschedIneligible,
}

/// The fair class of one kernel variant on one machine.
pub(crate) struct Fair {
    pub variant: Variant,
    pub p: SchedParams,
    pub sw: VersionSwitches,
    pub tick_ns: u64,
}

/// Σ (v_i − v0)·w_i and Σ w_i over the tree and a queued curr: the kernel's `avg_vruntime` /
/// `avg_load` with curr folded in. i128 so that no product can overflow.
#[derive(Clone, Copy)]
struct Avg {
    v0: i64,
    sum: i128,
    load: i128,
}

impl Avg {
    /// `vruntime_eligible`: (Σ (v_i − v0) w_i) ≥ (v − v0) · Σ w_i, exact, no division.
    fn eligible(&self, v: i64) -> bool {
        self.sum >= (v.wrapping_sub(self.v0) as i128) * self.load
    }
    /// `avg_vruntime`: V rounded toward −∞, so that an entity at V is eligible.
    fn v(&self) -> i64 {
        if self.load == 0 {
            return self.v0;
        }
        let mut s = self.sum;
        if s < 0 {
            s -= self.load - 1;
        }
        self.v0.wrapping_add((s / self.load) as i64)
    }
}

fn before(a: i64, b: i64) -> bool {
    a.wrapping_sub(b) < 0
}

impl Fair {
    fn has(&self, f: Feature) -> bool {
        self.variant.has(f)
    }
    fn eevdf(&self) -> bool {
        self.sw.class == Class::Eevdf
    }
    /// 6.19's structure (vprot, restructured wakeup path).
    fn v619(&self) -> bool {
        self.sw.protect == Protect::Vprot
    }

    // ----------------------------------------------------------------------------------------
    // Queue bookkeeping

    fn tree_insert(&self, c: &mut Ctx, id: Tid) {
        c.rq.seq += 1;
        c.ents[id].seq = c.rq.seq;
        c.rq.tree.push(id);
    }

    fn tree_remove(&self, c: &mut Ctx, id: Tid) {
        if let Some(pos) = c.rq.tree.iter().position(|&t| t == id) {
            c.rq.tree.swap_remove(pos);
        }
    }

    fn account_enqueue(&self, c: &mut Ctx, id: Tid) {
        c.rq.seq += 1;
        c.ents[id].mru = c.rq.seq;
        c.rq.nr_running += 1;
        c.rq.load += c.ents[id].load.weight;
        if c.ents[id].idle() {
            c.rq.nr_idle += 1;
        }
    }

    fn account_dequeue(&self, c: &mut Ctx, id: Tid) {
        c.rq.nr_running -= 1;
        c.rq.load -= c.ents[id].load.weight;
        if c.ents[id].idle() {
            c.rq.nr_idle -= 1;
        }
    }

    fn curr_on_rq(&self, c: &Ctx) -> Option<Tid> {
        c.rq.curr.filter(|&t| c.ents[t].on_rq)
    }

    /// Leftmost of a vruntime-ordered tree (CFS, EEVDF 6.6).
    fn leftmost_by_vruntime(&self, c: &Ctx) -> Option<Tid> {
        c.rq.tree.iter().copied().min_by(|&a, &b| {
            let (ea, eb) = (&c.ents[a], &c.ents[b]);
            ea.vruntime
                .wrapping_sub(eb.vruntime)
                .cmp(&0)
                .then(ea.seq.cmp(&eb.seq))
        })
    }

    /// Leftmost of the tree in its own order (EEVDF 6.8+: deadline).
    fn leftmost(&self, c: &Ctx) -> Option<Tid> {
        if !self.sw.deadline_tree {
            return self.leftmost_by_vruntime(c);
        }
        c.rq.tree.iter().copied().min_by(|&a, &b| {
            let (ea, eb) = (&c.ents[a], &c.ents[b]);
            ea.deadline
                .wrapping_sub(eb.deadline)
                .cmp(&0)
                .then(ea.seq.cmp(&eb.seq))
        })
    }

    /// `update_min_vruntime`: min of curr (if queued) and the leftmost, never decreasing.
    fn update_min_vruntime(&self, c: &mut Ctx) {
        let mut v = c.rq.min_vruntime;
        let curr = self.curr_on_rq(c);
        if let Some(cu) = curr {
            v = c.ents[cu].vruntime;
        }
        if let Some(lv) = c.rq.tree.iter().map(|&t| c.ents[t].vruntime).min() {
            v = if curr.is_some() && before(v, lv) {
                v
            } else {
                lv
            };
        }
        if before(c.rq.min_vruntime, v) {
            c.rq.min_vruntime = v;
        }
    }

    fn clear_buddies(&self, c: &mut Ctx, id: Tid) {
        if c.rq.next == Some(id) {
            c.rq.next = None;
        }
        if c.rq.last == Some(id) {
            c.rq.last = None;
        }
    }

    /// `set_next_buddy`: idle entities are never buddies.
    fn set_next_buddy(&self, c: &mut Ctx, id: Tid) {
        if !c.ents[id].idle() {
            c.rq.next = Some(id);
        }
    }

    fn resched(&self, c: &mut Ctx) {
        c.rq.need_resched = true;
    }

    fn avg(&self, c: &Ctx) -> Avg {
        let v0 = c.rq.min_vruntime;
        let mut sum = 0i128;
        let mut load = 0i128;
        for &t in &c.rq.tree {
            let e = &c.ents[t];
            sum += (e.vruntime.wrapping_sub(v0) as i128) * e.w();
            load += e.w();
        }
        if let Some(cu) = self.curr_on_rq(c) {
            let e = &c.ents[cu];
            sum += (e.vruntime.wrapping_sub(v0) as i128) * e.w();
            load += e.w();
        }
        Avg { v0, sum, load }
    }

    fn entity_eligible(&self, c: &Ctx, id: Tid) -> bool {
        self.avg(c).eligible(c.ents[id].vruntime)
    }

    /// Σ w of the tree only (`cfs_rq->avg_load`).
    fn avg_load_tree(&self, c: &Ctx) -> i128 {
        c.rq.tree.iter().map(|&t| c.ents[t].w()).sum()
    }

    /// `cfs_rq_min_slice`: the shortest slice among curr (if queued) and the tree.
    fn min_slice(&self, c: &Ctx) -> u64 {
        let mut m = u64::MAX;
        if let Some(cu) = self.curr_on_rq(c) {
            m = c.ents[cu].slice;
        }
        for &t in &c.rq.tree {
            m = m.min(c.ents[t].slice);
        }
        m
    }

    // ----------------------------------------------------------------------------------------
    // CFS slice arithmetic

    /// `__sched_period(nr)`.
    fn sched_period(&self, nr: u64) -> u64 {
        if nr > self.p.nr_latency {
            nr * self.p.min_granularity_ns
        } else {
            self.p.latency_ns
        }
    }

    /// `sched_slice(cfs_rq, se)` (6.1; 5.14 without the idle clamp). With a flat hierarchy
    /// ALT_PERIOD's `rq->cfs.h_nr_running` equals `nr_running`.
    pub fn sched_slice(&self, c: &Ctx, id: Tid) -> u64 {
        let e = &c.ents[id];
        let nr = c.rq.nr_running as u64 + u64::from(!e.on_rq);
        let period = self.sched_period(nr);
        let load = if e.on_rq {
            c.rq.load
        } else {
            c.rq.load + e.load.weight
        };
        let mut slice = calc_delta(period, e.load.weight, &LoadWeight::sum(load));
        if self.has(Feature::BaseSlice) {
            let sched_idle_cfs_rq = c.rq.nr_running > 0 && c.rq.nr_running == c.rq.nr_idle;
            let min_gran = if self.sw.idle_min_granularity && e.idle() && !sched_idle_cfs_rq {
                self.p.idle_min_granularity_ns
            } else {
                self.p.min_granularity_ns
            };
            slice = slice.max(min_gran);
        }
        slice
    }

    /// `wakeup_preempt_entity(curr, se)`: −1, 0 or 1; gran is in `se`'s virtual units.
    fn wakeup_preempt_entity(&self, c: &Ctx, curr: Tid, se: Tid) -> i32 {
        let vdiff = c.ents[curr].vruntime.wrapping_sub(c.ents[se].vruntime);
        if vdiff <= 0 {
            return -1;
        }
        let gran = calc_delta_fair(self.p.wakeup_granularity_ns, &c.ents[se].load) as i64;
        if vdiff > gran {
            1
        } else {
            0
        }
    }

    /// CFS `place_entity(cfs_rq, se, initial)`.
    fn cfs_place(&self, c: &mut Ctx, id: Tid, initial: bool) {
        let mut v = c.rq.min_vruntime;
        if initial && self.has(Feature::StartDebit) {
            let slice = self.sched_slice(c, id);
            v = v.wrapping_add(calc_delta_fair(slice, &c.ents[id].load) as i64);
        }
        if !initial {
            let mut thresh = if self.sw.idle_min_granularity && c.ents[id].idle() {
                self.p.min_granularity_ns
            } else {
                self.p.latency_ns
            };
            if self.has(Feature::GentleFairSleepers) {
                thresh >>= 1;
            }
            v = v.wrapping_sub(thresh as i64);
        }
        // Never gain time by being placed backwards.
        if before(c.ents[id].vruntime, v) {
            c.ents[id].vruntime = v;
        }
    }

    // ----------------------------------------------------------------------------------------
    // EEVDF placement and lag

    /// `update_entity_lag`: vlag = clamp(V − v, ±calc_delta_fair(max(2·slice, TICK_NSEC))).
    fn update_entity_lag(&self, c: &mut Ctx, id: Tid) {
        let lag = self.avg(c).v().wrapping_sub(c.ents[id].vruntime);
        let e = &mut c.ents[id];
        let limit = calc_delta_fair((2 * e.slice).max(self.tick_ns), &e.load) as i64;
        e.vlag = lag.clamp(-limit, limit);
    }

    fn base_slice_for(&self, c: &mut Ctx, id: Tid) {
        let e = &mut c.ents[id];
        if !(self.sw.custom_slice && e.custom_slice) {
            e.slice = self.p.base_slice_ns;
        }
    }

    /// EEVDF `place_entity(cfs_rq, se, flags)`.
    fn eevdf_place(&self, c: &mut Ctx, id: Tid, initial: bool) {
        let avg = self.avg(c);
        let v_avg = avg.v();
        self.base_slice_for(c, id);
        let mut vslice = calc_delta_fair(c.ents[id].slice, &c.ents[id].load) as i64;
        let mut lag: i64 = 0;
        // 6.6/6.12 apply the inflation whenever the queue is non-empty; 6.19 skips vlag == 0,
        // which multiplies to the same 0.
        if self.has(Feature::PlaceLag) && c.rq.nr_running > 0 {
            let mut load = self.avg_load_tree(c);
            if let Some(cu) = self.curr_on_rq(c) {
                load += c.ents[cu].w();
            }
            let mut l = c.ents[id].vlag as i128 * (load + c.ents[id].w());
            if load == 0 {
                load = 1;
            }
            l /= load; // div_s64 truncates toward zero
            lag = l as i64;
        }
        let e = &mut c.ents[id];
        e.vruntime = v_avg.wrapping_sub(lag);
        let rel_gate = self.v619() || self.has(Feature::PlaceRelDeadline);
        if e.rel_deadline && rel_gate {
            e.deadline = e.deadline.wrapping_add(e.vruntime);
            e.rel_deadline = false;
            return;
        }
        if self.has(Feature::PlaceDeadlineInitial) && initial {
            vslice /= 2;
        }
        e.deadline = e.vruntime.wrapping_add(vslice);
    }

    /// `update_deadline`: renews the request when vruntime reaches the deadline. Returns whether
    /// it did. 6.6 reschedules here; 6.12+ leave that to `update_curr`.
    fn update_deadline(&self, c: &mut Ctx, id: Tid) -> bool {
        if before(c.ents[id].vruntime, c.ents[id].deadline) {
            return false;
        }
        if !self.sw.custom_slice {
            c.ents[id].slice = self.p.base_slice_ns;
        } else {
            self.base_slice_for(c, id);
        }
        let e = &mut c.ents[id];
        e.deadline = e
            .vruntime
            .wrapping_add(calc_delta_fair(e.slice, &e.load) as i64);
        true
    }

    /// 6.12 `did_preempt_short`: curr lost its protection (vlag ≠ deadline) and is ineligible.
    fn did_preempt_short(&self, c: &Ctx, id: Tid) -> bool {
        self.has(Feature::PreemptShort)
            && c.ents[id].vlag != c.ents[id].deadline
            && !self.entity_eligible(c, id)
    }

    /// 6.12 `do_preempt_short(cfs_rq, pse, se)`.
    fn do_preempt_short(&self, c: &Ctx, pse: Tid, se: Tid) -> bool {
        if !self.has(Feature::PreemptShort) {
            return false;
        }
        if c.ents[pse].slice >= c.ents[se].slice {
            return false;
        }
        if !self.entity_eligible(c, pse) {
            return false;
        }
        before(c.ents[pse].deadline, c.ents[se].deadline) || !self.entity_eligible(c, se)
    }

    /// 6.19 `protect_slice`: vruntime < vprot.
    fn protect_slice(&self, c: &Ctx, id: Tid) -> bool {
        c.ents[id].vprot.wrapping_sub(c.ents[id].vruntime) > 0
    }

    /// 6.19 `update_protect_slice`: vprot = min(vprot, vruntime + vslice(min queued slice)).
    fn update_protect_slice(&self, c: &mut Ctx, id: Tid) {
        let s = self.min_slice(c);
        let e = &mut c.ents[id];
        let cand = e.vruntime.wrapping_add(calc_delta_fair(s, &e.load) as i64);
        if before(cand, e.vprot) {
            e.vprot = cand;
        }
    }

    /// 6.19 `cancel_protect_slice`.
    fn cancel_protect_slice(&self, c: &mut Ctx, id: Tid) {
        if self.protect_slice(c, id) {
            c.ents[id].vprot = c.ents[id].vruntime;
        }
    }

    /// 6.19 `set_protect_slice`, from `set_next_entity` with the entity already out of the tree
    /// and no curr: the shortest slice of the *other* queued entities bounds the protection.
    fn set_protect_slice(&self, c: &mut Ctx, id: Tid) {
        let mut s = if self.has(Feature::RunToParity) {
            self.min_slice(c)
        } else {
            // normalized_sysctl_sched_base_slice: the unscaled value (sysctl/factor if tuned).
            self.p.base_slice_norm_ns
        };
        let e = &mut c.ents[id];
        s = s.min(e.slice);
        e.vprot = e.deadline;
        if s != e.slice {
            let cand = e.vruntime.wrapping_add(calc_delta_fair(s, &e.load) as i64);
            if before(cand, e.vprot) {
                e.vprot = cand;
            }
        }
    }

    // ----------------------------------------------------------------------------------------
    // Accounting

    /// `update_curr`: charge curr for the time since `exec_start`; EEVDF also renews the
    /// deadline and decides whether curr must give way.
    pub fn update_curr(&self, c: &mut Ctx) {
        let Some(cu) = c.rq.curr else { return };
        let e = &mut c.ents[cu];
        let delta = c.clock_task as i64 - e.exec_start as i64;
        if delta <= 0 {
            return;
        }
        let delta = delta as u64;
        e.exec_start = c.clock_task;
        e.sum_exec_runtime += delta;
        e.vruntime = e
            .vruntime
            .wrapping_add(calc_delta_fair(delta, &e.load) as i64);
        c.out.push(Event {
            t_ns: c.now,
            cpu: c.cpu,
            kind: EventKind::StatRuntime {
                pid: cu as u32 + 1,
                runtime_ns: delta,
            },
        });
        if !self.eevdf() {
            self.update_min_vruntime(c);
            return;
        }
        let renewed = self.update_deadline(c, cu);
        self.update_min_vruntime(c);
        if c.rq.nr_running <= 1 {
            return;
        }
        let resched = if !self.sw.deadline_tree {
            renewed
        } else if self.v619() {
            renewed || !self.protect_slice(c, cu)
        } else {
            renewed || self.did_preempt_short(c, cu)
        };
        if resched {
            self.resched(c);
            self.clear_buddies(c, cu);
        }
    }

    // ----------------------------------------------------------------------------------------
    // Enqueue and dequeue

    /// A new task joins this runqueue (`task_fork_fair` + `wake_up_new_task`).
    ///
    /// DEVIATION(kernel): tasks are not forked by a modelled parent. A start is modelled as a fork
    /// by the task running on the CPU at that moment (CFS copies its vruntime, exactly the C11
    /// case), or on an idle CPU by a parent sitting at min_vruntime.
    pub fn enqueue_new(&self, c: &mut Ctx, id: Tid) {
        if self.eevdf() {
            // 6.6: task_fork_fair's INITIAL placement is overwritten by the activation's plain
            // one; 6.12+ pass ENQUEUE_INITIAL at activation.
            c.ents[id].vlag = 0;
            self.eevdf_enqueue(c, id, self.sw.initial_half_slice_effective);
            return;
        }
        self.update_curr(c);
        let base = match c.rq.curr {
            Some(cu) => c.ents[cu].vruntime,
            None => c.rq.min_vruntime,
        };
        c.ents[id].vruntime = base;
        self.cfs_place(c, id, true);
        self.account_enqueue(c, id);
        self.tree_insert(c, id);
        c.ents[id].on_rq = true;
    }

    /// A sleeping task wakes onto this runqueue (`enqueue_entity` with ENQUEUE_WAKEUP, plus
    /// ENQUEUE_MIGRATED when it was moved from another CPU). Under CFS a migrated task carries
    /// `vruntime − min_vruntime` of its old queue ([`Fair::migrate_waking`]); the new queue's
    /// min_vruntime is added back after `update_curr`, then the sleeper credit applies. EEVDF
    /// needs nothing: the lag saved at dequeue is what travels.
    pub fn enqueue_wakeup(&self, c: &mut Ctx, id: Tid, migrated: bool) {
        if self.eevdf() {
            self.eevdf_enqueue(c, id, false);
            return;
        }
        self.update_curr(c);
        if migrated {
            c.ents[id].vruntime = c.ents[id].vruntime.wrapping_add(c.rq.min_vruntime);
        }
        self.account_enqueue(c, id);
        self.cfs_place(c, id, false);
        if c.rq.curr != Some(id) {
            self.tree_insert(c, id);
        }
        c.ents[id].on_rq = true;
    }

    /// CFS `migrate_task_rq_fair` for a waking task: make its vruntime relative to the old
    /// queue's min_vruntime (6.1 renormalisation). EEVDF: nothing.
    pub fn migrate_waking(&self, c: &mut Ctx, id: Tid) {
        if !self.eevdf() {
            c.ents[id].vruntime = c.ents[id].vruntime.wrapping_sub(c.rq.min_vruntime);
        }
    }

    /// The load balancer takes a queued task off this runqueue (`detach_task`: a dequeue that
    /// is not a sleep). CFS subtracts min_vruntime; EEVDF saves the lag and, with
    /// PLACE_REL_DEADLINE, makes the deadline relative.
    pub fn dequeue_detach(&self, c: &mut Ctx, id: Tid) {
        self.dequeue_entity(c, id, false, true, false);
    }

    /// The load balancer puts a task on this runqueue (`attach_task`: an enqueue that is not a
    /// wakeup): CFS adds min_vruntime back with no sleeper credit; EEVDF re-places by lag.
    pub fn enqueue_attach(&self, c: &mut Ctx, id: Tid) {
        if self.eevdf() {
            self.eevdf_enqueue(c, id, false);
            return;
        }
        self.update_curr(c);
        c.ents[id].vruntime = c.ents[id].vruntime.wrapping_add(c.rq.min_vruntime);
        self.account_enqueue(c, id);
        self.tree_insert(c, id);
        c.ents[id].on_rq = true;
    }

    fn eevdf_enqueue(&self, c: &mut Ctx, id: Tid, initial: bool) {
        // For an entity that is not curr: update_curr first, then place.
        self.update_curr(c);
        self.eevdf_place(c, id, initial);
        self.account_enqueue(c, id);
        if c.rq.curr != Some(id) {
            self.tree_insert(c, id);
        }
        c.ents[id].on_rq = true;
    }

    /// `requeue_delayed_entity`: a delayed task is woken before it was picked (6.12+).
    pub fn requeue_delayed(&self, c: &mut Ctx, id: Tid) {
        if self.has(Feature::DelayZero) {
            self.update_entity_lag(c, id);
            if c.ents[id].vlag > 0 {
                c.rq.nr_running -= 1;
                let is_curr = c.rq.curr == Some(id);
                if !is_curr {
                    self.tree_remove(c, id);
                }
                c.ents[id].vlag = 0;
                self.eevdf_place(c, id, false);
                if !is_curr {
                    self.tree_insert(c, id);
                }
                c.rq.nr_running += 1;
            }
        }
        c.ents[id].sched_delayed = false;
    }

    /// A task blocks (`dequeue_entity` with DEQUEUE_SLEEP). Returns false when DELAY_DEQUEUE
    /// keeps it queued. `special` marks a dequeue that may not be delayed (exit).
    pub fn dequeue_sleep(&self, c: &mut Ctx, id: Tid, special: bool) -> bool {
        self.dequeue_entity(c, id, true, special, false)
    }

    fn dequeue_entity(
        &self,
        c: &mut Ctx,
        id: Tid,
        sleep: bool,
        special: bool,
        delayed: bool,
    ) -> bool {
        self.update_curr(c);
        if self.v619() {
            self.clear_buddies(c, id);
        }
        if self.eevdf()
            && !delayed
            && sleep
            && !special
            && self.has(Feature::DelayDequeue)
            && !self.entity_eligible(c, id)
        {
            if c.rq.next == Some(id) {
                c.rq.next = None;
            }
            c.ents[id].sched_delayed = true;
            return false;
        }
        self.clear_buddies(c, id);
        if self.eevdf() {
            self.update_entity_lag(c, id);
            if self.has(Feature::PlaceRelDeadline) && !sleep {
                let e = &mut c.ents[id];
                e.deadline = e.deadline.wrapping_sub(e.vruntime);
                e.rel_deadline = true;
            }
        }
        if c.rq.curr != Some(id) {
            self.tree_remove(c, id);
        }
        c.ents[id].on_rq = false;
        self.account_dequeue(c, id);
        if !self.eevdf() && !sleep {
            // Renormalise: what travels to another CPU is vruntime − min_vruntime.
            c.ents[id].vruntime = c.ents[id].vruntime.wrapping_sub(c.rq.min_vruntime);
        }
        self.update_min_vruntime(c);
        if delayed {
            c.ents[id].sched_delayed = false;
            if self.has(Feature::DelayZero) && c.ents[id].vlag > 0 {
                c.ents[id].vlag = 0;
            }
        }
        true
    }

    // ----------------------------------------------------------------------------------------
    // Picking

    /// `pick_next_task_fair` (the group path: curr stays visible to the pick). Returns the task
    /// to run, possibly curr again; `None` means idle. Delayed entities the pick selects are
    /// dequeued for good and the pick restarts (6.12+).
    pub fn pick_next(&self, c: &mut Ctx) -> Option<Tid> {
        // Bounded: every restart removes a delayed entity.
        for _ in 0..=c.ents.len() {
            if c.rq.nr_running == 0 {
                return None;
            }
            if self.curr_on_rq(c).is_some() {
                self.update_curr(c);
            }
            if !self.eevdf() {
                return Some(self.cfs_pick(c));
            }
            let next = c.rq.next.filter(|&n| {
                !self.v619() && self.has(Feature::NextBuddy) && self.entity_eligible(c, n)
            });
            let se = match next {
                Some(n) => n,
                None => self.pick_eevdf(c, true, false)?,
            };
            if c.ents[se].sched_delayed {
                self.dequeue_entity(c, se, true, false, true);
                continue;
            }
            return Some(se);
        }
        None
    }

    /// CFS `pick_next_entity(cfs_rq, curr)` with the next and last buddies (6.1). The skip buddy
    /// is only set by `sched_yield`, which programs do not call.
    fn cfs_pick(&self, c: &Ctx) -> Tid {
        let curr = self.curr_on_rq(c);
        let mut left = self.leftmost_by_vruntime(c);
        if let Some(cu) = curr {
            match left {
                None => left = Some(cu),
                Some(l) if before(c.ents[cu].vruntime, c.ents[l].vruntime) => left = Some(cu),
                _ => {}
            }
        }
        let left = left.expect("nr_running > 0 implies a queued entity");
        if let Some(n) = c.rq.next {
            if self.wakeup_preempt_entity(c, n, left) < 1 {
                return n;
            }
        }
        if let Some(l) = c.rq.last {
            if self.wakeup_preempt_entity(c, l, left) < 1 {
                return l;
            }
        }
        left
    }

    /// `pick_eevdf` / `__pick_eevdf(cfs_rq, protect)`: the eligible entity with the earliest
    /// deadline, curr included while it is queued and eligible.
    ///
    /// Ties: 6.8+ a tree node beats curr (`entity_before` is strict), and among tree nodes the
    /// earlier inserted wins (the deadline-ordered tree sends equal keys right).
    ///
    /// DEVIATION(kernel): in 6.6 the winner of an exact deadline tie depends on the rb-tree's
    /// shape (curr wins against nodes on the descent path, loses against the `best_left`
    /// subtree), and on a real machine exact ties do not survive the ns-scale jitter of the
    /// switch-in delay. With a constant δ the model produces exact ties systematically (two
    /// equal hogs renew to equal deadlines), so it resolves every tie the 6.8+ way: the waiting
    /// tree entity wins, and tree nodes are ordered by (deadline, vruntime, insertion).
    fn pick_eevdf(&self, c: &mut Ctx, protect: bool, wake: bool) -> Option<Tid> {
        let curr_q = self.curr_on_rq(c);
        if self.sw.deadline_tree && c.rq.nr_running == 1 {
            return curr_q.or_else(|| self.leftmost(c));
        }
        let avg = self.avg(c);
        if self.v619() && self.has(Feature::PickBuddy) {
            if let Some(n) = c.rq.next {
                if avg.eligible(c.ents[n].vruntime) {
                    return Some(n);
                }
            }
        }
        let mut curr = curr_q;
        if let Some(cu) = curr {
            if !avg.eligible(c.ents[cu].vruntime) {
                curr = None;
                if wake {
                    c.rq.stats.curr_noeli_preempt_count += 1;
                }
            }
        }
        if let Some(cu) = curr {
            let protected = if self.v619() {
                protect && self.protect_slice(c, cu)
            } else {
                self.has(Feature::RunToParity) && c.ents[cu].vlag == c.ents[cu].deadline
            };
            if protected {
                return Some(cu);
            }
        }
        let key = |t: Tid| {
            let e = &c.ents[t];
            (
                e.deadline.wrapping_sub(avg.v0),
                if self.sw.deadline_tree {
                    0
                } else {
                    e.vruntime.wrapping_sub(avg.v0)
                },
                e.seq,
            )
        };
        let best =
            c.rq.tree
                .iter()
                .copied()
                .filter(|&t| avg.eligible(c.ents[t].vruntime))
                .min_by_key(|&t| key(t));
        match (curr, best) {
            (Some(cu), Some(b)) => {
                let (dc, db) = (c.ents[cu].deadline, c.ents[b].deadline);
                Some(if before(dc, db) { cu } else { b })
            }
            (Some(cu), None) => Some(cu),
            (None, Some(b)) => Some(b),
            // "EEVDF scheduling fail": cannot happen (V is a weighted mean), kernel falls back.
            (None, None) => self.leftmost(c),
        }
    }

    /// `put_prev_entity`: a still-queued prev goes back into the tree.
    pub fn put_prev(&self, c: &mut Ctx, id: Tid) {
        if c.ents[id].on_rq {
            self.update_curr(c);
            self.tree_insert(c, id);
        }
        c.rq.curr = None;
    }

    /// `set_next_entity`.
    pub fn set_next(&self, c: &mut Ctx, id: Tid) {
        self.clear_buddies(c, id);
        if c.ents[id].on_rq {
            self.tree_remove(c, id);
            if self.eevdf() {
                if self.v619() {
                    self.set_protect_slice(c, id);
                } else {
                    // The RUN_TO_PARITY marker: stash the deadline at pick in vlag.
                    let d = c.ents[id].deadline;
                    c.ents[id].vlag = d;
                }
            }
        }
        c.rq.curr = Some(id);
        c.rq.seq += 1;
        c.ents[id].mru = c.rq.seq;
        let e = &mut c.ents[id];
        e.exec_start = c.clock_task;
        e.prev_sum_exec_runtime = e.sum_exec_runtime;
    }

    // ----------------------------------------------------------------------------------------
    // Preemption

    /// `task_tick_fair` → `entity_tick`. `queued` is an hrtick expiry; `hrtick_armed` whether an
    /// hrtick is pending.
    pub fn task_tick(&self, c: &mut Ctx, queued: bool, hrtick_armed: bool) {
        let Some(cu) = c.rq.curr else { return };
        self.update_curr(c);
        if queued {
            self.resched(c);
            return;
        }
        if !self.eevdf() {
            if !self.has(Feature::DoubleTick) && hrtick_armed {
                return;
            }
            if c.rq.nr_running > 1 {
                self.check_preempt_tick(c, cu);
            }
        } else if self.has(Feature::ReschedIneligible) && !self.entity_eligible(c, cu) {
            self.resched(c);
        }
    }

    /// CFS `check_preempt_tick`.
    fn check_preempt_tick(&self, c: &mut Ctx, cu: Tid) {
        let ideal = self.sched_slice(c, cu);
        let ran = c.ents[cu].sum_exec_runtime - c.ents[cu].prev_sum_exec_runtime;
        if ran > ideal {
            self.resched(c);
            self.clear_buddies(c, cu);
            return;
        }
        if ran < self.p.min_granularity_ns {
            return;
        }
        let Some(left) = self.leftmost_by_vruntime(c) else {
            return;
        };
        let delta = c.ents[cu].vruntime.wrapping_sub(c.ents[left].vruntime);
        if delta < 0 {
            return;
        }
        // Virtual against real time: what the kernel does.
        if delta as u64 > ideal {
            self.resched(c);
        }
    }

    /// `check_preempt_wakeup` (6.1, 6.6) / `check_preempt_wakeup_fair` (6.12, 6.19): may the
    /// woken (or new) task `p` preempt curr?
    pub fn check_preempt_wakeup(&self, c: &mut Ctx, p: Tid, fork: bool, sync: bool) {
        c.rq.stats.check_preempt_count += 1;
        let Some(se) = c.rq.curr else { return };
        if se == p {
            return;
        }
        let reason = if !self.eevdf() {
            self.cfs_wakeup(c, se, p, fork)
        } else if self.v619() {
            self.eevdf619_wakeup(c, se, p, fork, sync)
        } else {
            self.eevdf_wakeup(c, se, p, fork)
        };
        let Some(reason) = reason else { return };
        self.resched(c);
        let s = &mut c.rq.stats;
        s.need_preempt_count += 1;
        match reason {
            Reason::IdleCurr => s.preempt_idle_curr += 1,
            Reason::Gran => s.preempt_wakeup_gran += 1,
            Reason::Short => s.preempt_short += 1,
            Reason::ReschedIneligible => s.preempt_resched_ineligible += 1,
            Reason::Pick => {}
        }
    }

    fn cfs_wakeup(&self, c: &mut Ctx, se: Tid, p: Tid, fork: bool) -> Option<Reason> {
        let scale = c.rq.nr_running as u64 >= self.p.nr_latency;
        let mut marked = false;
        if self.has(Feature::NextBuddy) && scale && !fork {
            self.set_next_buddy(c, p);
            marked = true;
        }
        if c.rq.need_resched {
            return None;
        }
        let reason = if c.ents[se].idle() && !c.ents[p].idle() {
            Reason::IdleCurr
        } else {
            if c.ents[p].policy != SchedPolicy::Normal || !self.has(Feature::WakeupPreemption) {
                return None;
            }
            self.update_curr(c);
            if self.wakeup_preempt_entity(c, se, p) != 1 {
                return None;
            }
            // Marked as next buddy even with NEXT_BUDDY off.
            if !marked {
                self.set_next_buddy(c, p);
            }
            Reason::Gran
        };
        if c.ents[se].on_rq && self.has(Feature::LastBuddy) && scale && !c.ents[se].idle() {
            c.rq.last = Some(se);
        }
        Some(reason)
    }

    /// The 2024 proposal's wakeup hook: curr ineligible → reschedule (before the pick).
    fn resched_ineligible(&self, c: &Ctx, se: Tid) -> bool {
        self.has(Feature::ReschedIneligible) && !self.entity_eligible(c, se)
    }

    /// 6.6 and 6.12.
    fn eevdf_wakeup(&self, c: &mut Ctx, se: Tid, p: Tid, fork: bool) -> Option<Reason> {
        let v612 = self.sw.deadline_tree;
        if self.has(Feature::NextBuddy) && !fork && !(v612 && c.ents[p].sched_delayed) {
            self.set_next_buddy(c, p);
        }
        if c.rq.need_resched {
            return None;
        }
        let (cse_idle, pse_idle) = (c.ents[se].idle(), c.ents[p].idle());
        if !v612 {
            // 6.6: the idle-policy check comes before the WAKEUP_PREEMPTION check.
            if cse_idle && !pse_idle {
                return Some(Reason::IdleCurr);
            }
            if c.ents[p].policy != SchedPolicy::Normal || !self.has(Feature::WakeupPreemption) {
                return None;
            }
        } else {
            if !self.has(Feature::WakeupPreemption) {
                return None;
            }
            if cse_idle && !pse_idle {
                return Some(Reason::IdleCurr);
            }
            if cse_idle != pse_idle || c.ents[p].policy != SchedPolicy::Normal {
                return None;
            }
        }
        if self.resched_ineligible(c, se) {
            return Some(Reason::ReschedIneligible);
        }
        self.update_curr(c);
        if self.has(Feature::WakeupDeadline) && before(c.ents[se].deadline, c.ents[p].deadline) {
            return None;
        }
        let mut short = false;
        if v612 && self.do_preempt_short(c, p, se) && c.ents[se].vlag == c.ents[se].deadline {
            // Cancel curr's RUN_TO_PARITY protection; it stays cancelled even if p loses.
            c.ents[se].vlag = c.ents[se].deadline.wrapping_add(1);
            short = true;
        }
        self.eevdf_pick_preempts(c, se, p, true, short)
    }

    /// Runs the wakeup pick and, when it returns the wakee, counts the seed-000 statistics.
    fn eevdf_pick_preempts(
        &self,
        c: &mut Ctx,
        se: Tid,
        p: Tid,
        protect: bool,
        short: bool,
    ) -> Option<Reason> {
        let curr_eligible = self.entity_eligible(c, se);
        if self.pick_eevdf(c, protect, true) != Some(p) {
            return None;
        }
        // Chen Yu's instrumentation (seed 000), with the sysctl wakeup granularity of the CFS days.
        let gran = (1_000_000 * self.p.factor) as i64;
        let s = &mut c.rq.stats;
        if before(c.ents[se].vruntime, c.ents[p].vruntime.wrapping_add(gran)) {
            s.curr_lowgran_preempt_count += 1;
        }
        if before(c.ents[se].deadline, c.ents[p].deadline) {
            s.curr_lowdl_preempt_count += 1;
        }
        if c.rq.nr_running <= 2 {
            s.curr_lownr_preempt_count += 1;
        }
        if short {
            Some(Reason::Short)
        } else {
            if curr_eligible {
                s.preempt_earlier_deadline += 1;
            } else {
                s.preempt_curr_ineligible += 1;
            }
            Some(Reason::Pick)
        }
    }

    /// 6.19 `check_preempt_wakeup_fair`.
    fn eevdf619_wakeup(
        &self,
        c: &mut Ctx,
        se: Tid,
        p: Tid,
        fork: bool,
        sync: bool,
    ) -> Option<Reason> {
        if c.rq.need_resched || !self.has(Feature::WakeupPreemption) {
            return None;
        }
        let (cse_idle, pse_idle) = (c.ents[se].idle(), c.ents[p].idle());
        if cse_idle && !pse_idle {
            // PREEMPT_WAKEUP_SHORT: cancel the idle task's protection (f553741ac8c0, 6.15).
            self.cancel_protect_slice(c, se);
            return Some(Reason::IdleCurr);
        }
        if cse_idle != pse_idle || c.ents[p].policy != SchedPolicy::Normal {
            return None;
        }
        if self.resched_ineligible(c, se) {
            return Some(Reason::ReschedIneligible);
        }
        self.update_curr(c);
        if self.has(Feature::WakeupDeadline) && before(c.ents[se].deadline, c.ents[p].deadline) {
            return None;
        }
        let short = self.has(Feature::PreemptShort) && c.ents[p].slice < c.ents[se].slice;
        if !short {
            // Skipped by the PREEMPT_SHORT and idle branches, which jump past it.
            if fork || c.ents[p].sched_delayed {
                return None;
            }
            if self.has(Feature::NextBuddy) {
                // set_preempt_buddy keeps an existing next buddy with an earlier deadline.
                let keep =
                    c.rq.next
                        .is_some_and(|n| n != p && before(c.ents[n].deadline, c.ents[p].deadline));
                if !keep {
                    self.set_next_buddy(c, p);
                }
                if !keep && sync {
                    // preempt_sync: as read, exec_start was just refreshed by update_curr, so
                    // this preempts only when migration_cost_ns is 0.
                    let ran = c.clock_task.saturating_sub(c.ents[se].exec_start);
                    if before(c.ents[p].deadline, c.ents[se].deadline)
                        && ran >= self.p.migration_cost_ns
                    {
                        return Some(Reason::Pick);
                    }
                    return None;
                }
            }
        }
        match self.eevdf_pick_preempts(c, se, p, !short, short) {
            Some(r) => {
                if short {
                    self.cancel_protect_slice(c, se);
                }
                Some(r)
            }
            None => {
                if self.has(Feature::RunToParity) {
                    self.update_protect_slice(c, se);
                }
                None
            }
        }
    }

    /// `hrtick_start_fair`: ns until the slice ends (negative: already over), or `None` when the
    /// hrtick is not armed (fewer than two queued).
    pub fn hrtick_delay(&self, c: &Ctx) -> Option<i64> {
        let cu = c.rq.curr?;
        if c.rq.nr_running <= 1 {
            return None;
        }
        let e = &c.ents[cu];
        let ran = (e.sum_exec_runtime - e.prev_sum_exec_runtime) as i64;
        let slice = if self.eevdf() {
            e.slice
        } else {
            self.sched_slice(c, cu)
        };
        Some(slice as i64 - ran)
    }

    /// Whether `hrtick_update` re-arms after an enqueue or dequeue.
    pub fn hrtick_update_allowed(&self, c: &Ctx) -> bool {
        self.eevdf() || (c.rq.nr_running as u64) < self.p.nr_latency
    }

    // ----------------------------------------------------------------------------------------
    // Observation

    /// (vruntime, deadline, V or min_vruntime, lag, eligible) of an entity.
    pub fn snapshot(&self, c: &Ctx, id: Tid) -> (i64, i64, i64, i64, bool) {
        let e = &c.ents[id];
        if !self.eevdf() {
            return (
                e.vruntime,
                0,
                c.rq.min_vruntime,
                c.rq.min_vruntime.wrapping_sub(e.vruntime),
                true,
            );
        }
        let avg = self.avg(c);
        let v = avg.v();
        (
            e.vruntime,
            e.deadline,
            v,
            v.wrapping_sub(e.vruntime),
            avg.eligible(e.vruntime),
        )
    }

    /// Checks the runqueue's invariants; `Err` names the first one broken.
    pub fn check(&self, c: &Ctx, prev_min_vruntime: i64) -> Result<(), String> {
        if let Some(cu) = c.rq.curr {
            if c.rq.tree.contains(&cu) {
                return Err(format!("cpu {}: curr {} is in the tree", c.cpu, cu + 1));
            }
        }
        let mut nr = 0u32;
        let mut load = 0u64;
        for &t in &c.rq.tree {
            if !c.ents[t].on_rq {
                return Err(format!(
                    "cpu {}: task {} in the tree but not on_rq",
                    c.cpu,
                    t + 1
                ));
            }
            nr += 1;
            load += c.ents[t].load.weight;
        }
        if let Some(cu) = self.curr_on_rq(c) {
            nr += 1;
            load += c.ents[cu].load.weight;
        }
        if nr != c.rq.nr_running || load != c.rq.load {
            return Err(format!(
                "cpu {}: nr_running {} / load {} but {} / {} queued",
                c.cpu, c.rq.nr_running, c.rq.load, nr, load
            ));
        }
        if before(c.rq.min_vruntime, prev_min_vruntime) {
            return Err(format!("cpu {}: min_vruntime went backwards", c.cpu));
        }
        if self.eevdf() {
            // Σ w_i (V − v_i) = W·V − Σ w_i v_i lies in (−W, 0] because V is floored.
            let avg = self.avg(c);
            if avg.load > 0 {
                let s = avg.load * (avg.v().wrapping_sub(avg.v0) as i128) - avg.sum;
                if s > 0 || s <= -avg.load {
                    return Err(format!(
                        "cpu {}: sum of lags {} not ~0 (W = {})",
                        c.cpu, s, avg.load
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const MS: i64 = 1_000_000;

    fn fair(v: &str, hz: u64) -> Fair {
        let variant = Variant::parse(v).unwrap();
        Fair {
            p: variant.params(16),
            sw: variant.preset.switches,
            variant,
            tick_ns: 1_000_000_000 / hz,
        }
    }

    fn nice0() -> Entity {
        Entity::new(LoadWeight::from_nice(0), SchedPolicy::Normal, None)
    }

    /// C9: two queued nice-0 tasks (W = 2048 with curr) and a nice-0 wakee with vlag = +2 ms:
    /// lag' = 2 ms × 3072/2048 = 3 ms, v = V − 3 ms, V' = V − 1024 × 3 ms/3072 = V − 1 ms, so the
    /// effective lag V' − v is 2 ms; deadline = (V − 3 ms) + 3 ms = the old V.
    #[test]
    fn c9_place_lag_inflation() {
        let f = fair("eevdf-6.6", 1000);
        let mut ents = vec![nice0(), nice0(), nice0()];
        let mut rq = Rq::default();
        let mut out = vec![];
        let mut c = Ctx {
            rq: &mut rq,
            ents: &mut ents,
            now: 0,
            clock_task: 0,
            cpu: 0,
            out: &mut out,
        };
        for id in [0, 1] {
            c.ents[id].on_rq = true;
            f.account_enqueue(&mut c, id);
        }
        c.rq.curr = Some(0);
        f.tree_insert(&mut c, 1);
        let v_before = f.avg(&c).v();
        assert_eq!(v_before, 0);
        c.ents[2].vlag = 2 * MS;
        f.eevdf_place(&mut c, 2, false);
        assert_eq!(c.ents[2].vruntime, v_before - 3 * MS);
        assert_eq!(c.ents[2].deadline, v_before);
        f.account_enqueue(&mut c, 2);
        f.tree_insert(&mut c, 2);
        c.ents[2].on_rq = true;
        let v_after = f.avg(&c).v();
        assert_eq!(v_after, v_before - MS);
        assert_eq!(v_after - c.ents[2].vruntime, 2 * MS);
        // curr's lag dropped by 1 ms: at V it was eligible with lag 0; now it is not.
        assert!(!f.entity_eligible(&c, 0));
    }

    /// C10: the lag clamp ±calc_delta_fair(max(2·slice, TICK_NSEC)).
    #[test]
    fn c10_lag_clamp() {
        let clamp_of = |v: &str, hz: u64, e: Entity| {
            let f = fair(v, hz);
            let mut ents = vec![nice0(), e];
            let mut rq = Rq::default();
            let mut out = vec![];
            let mut c = Ctx {
                rq: &mut rq,
                ents: &mut ents,
                now: 0,
                clock_task: 0,
                cpu: 0,
                out: &mut out,
            };
            for id in [0, 1] {
                c.ents[id].on_rq = true;
                f.account_enqueue(&mut c, id);
                f.tree_insert(&mut c, id);
            }
            f.base_slice_for(&mut c, 1);
            // Entity 1 far to the left: a huge positive lag, clamped.
            c.ents[1].vruntime = -1_000_000 * MS;
            f.update_entity_lag(&mut c, 1);
            c.ents[1].vlag
        };
        // Nice 0, 16 CPUs: 2 × 3 ms = 6 ms (5.6 ms on 6.15+).
        assert_eq!(clamp_of("eevdf-6.6", 1000, nice0()), 6 * MS);
        assert_eq!(clamp_of("eevdf-6.19", 1000, nice0()), 5_600_000);
        // SCHED_IDLE: 6 ms × 1024/3 in virtual time.
        let idle = Entity::new(LoadWeight::idle(), SchedPolicy::Idle, None);
        assert_eq!(clamp_of("eevdf-6.6", 1000, idle), 2_047_999_999);
        // A 0.1 ms custom slice: max(0.2 ms, TICK) = 1 ms at HZ=1000, 4 ms at HZ=250.
        let short = || Entity::new(LoadWeight::from_nice(0), SchedPolicy::Normal, Some(100_000));
        assert_eq!(clamp_of("eevdf-6.12", 1000, short()), MS);
        assert_eq!(clamp_of("eevdf-6.12", 250, short()), 4 * MS);
    }
}
