//! The fair scheduling class: CFS (5.14, 6.1) and EEVDF (6.6, 6.12, 6.19), flat hierarchy.
//!
//! Mirrors `kernel/sched/fair.c`, one file per part of it:
//! - this file: `struct sched_entity`, `struct cfs_rq`, and the accounting: `update_curr`,
//!   `update_min_vruntime`, `update_deadline` (EEVDF), `avg_vruntime`, `vruntime_eligible`,
//!   `sched_slice` (CFS);
//! - `place.rs`: `place_entity` (CFS sleeper credit and START_DEBIT; EEVDF PLACE_LAG inflation),
//!   `update_entity_lag`, `enqueue_entity`, `dequeue_entity` (DELAY_DEQUEUE),
//!   `requeue_delayed_entity`, and what a migration carries (`migrate_task_rq_fair`,
//!   `detach_task`/`attach_task`);
//! - `pick.rs`: `pick_next_entity` with buddies (CFS), `pick_eevdf` / `__pick_eevdf` (EEVDF),
//!   `set_next_entity` (the RUN_TO_PARITY vlag marker, 6.19 `set_protect_slice`),
//!   `put_prev_entity`, and 6.19's slice protection (`protect_slice` & co);
//! - `preempt.rs`: `check_preempt_tick` (CFS), `check_preempt_wakeup` (6.1, 6.6) /
//!   `check_preempt_wakeup_fair` (6.7+) in its three shapes, `do_preempt_short` /
//!   `did_preempt_short` (6.12), `hrtick_start_fair`;
//! - `tree.rs`: the ordered run queue (`tasks_timeline`) with its cached leftmost and the
//!   augmented per-subtree minimums;
//! - `check.rs`: the run queue's invariants.
//!
//! The versions differ through [`VersionSwitches`] and the feature set, never through separate
//! copies of the logic. Where the model departs from the kernel the code says
//! `DEVIATION(kernel)`; ARCHITECTURE.md lists them all.
//!
//! The run queue is an ordered tree with the kernel's cached leftmost and augmented minimums
//! (`tree.rs` says which tree and why); `avg_vruntime` and `avg_load` are kept incrementally in
//! 64 bits as the kernel keeps them (see [`Avg`]), so nothing on the hot path scans the queue or
//! needs 128-bit arithmetic.

use crate::config::SchedPolicy;
use crate::decision::{Cause, EntityView};
use crate::stats::CpuStats;
use crate::trace::{Event, EventKind, Recorder};
use crate::variant::{Class, Feature, Protect, SchedParams, Variant, VersionSwitches};
use crate::weight::{calc_delta, calc_delta_fair, LoadWeight};

mod check;
mod pick;
mod place;
mod preempt;
mod reweight;
mod tree;

pub(crate) use tree::Tree;

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
    /// In an idle task group (`cpu.idle = 1`): `se_is_idle` of its group entity.
    pub group_idle: bool,
    /// The weight of its nice or policy: `se->load` in its own cfs_rq, where `load` is the
    /// hierarchical weight the flat run queue gives a task in a group (`engine/group.rs`).
    pub own_weight: u64,
    /// Its task group (0: the root).
    pub group: u32,
    /// Its hierarchical weight (scaled), as `task_h_load` sees it: what its load averages
    /// and its CPU's root load count (`engine/group.rs`); `load` outside a group.
    pub h_weight: u64,
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
            group_idle: false,
            own_weight: load.weight,
            group: 0,
            h_weight: load.weight,
        }
    }
    /// The hierarchical weight in user units (`scale_load_down`).
    pub fn h_user(&self) -> u64 {
        crate::weight::scale_load_down(self.h_weight)
    }
    /// A time in its own cfs_rq's virtual units (where the kernel compares a constant such as
    /// the sleeper credit or the ideal slice with vruntimes) in the flat queue's units: the
    /// same for a task in the root group; × own weight / hierarchical weight in a group, as
    /// its vruntime advances that much faster on the flat queue.
    pub(crate) fn own_to_flat(&self, t: u64) -> u64 {
        if self.load.weight == self.own_weight || self.load.weight == 0 {
            t
        } else {
            (t as u128 * self.own_weight as u128 / self.load.weight as u128) as u64
        }
    }
    /// `se_is_idle` with group scheduling built in: the task's policy, or an idle group on
    /// its path (the flat run queue stands for the group entity, see `engine/group.rs`).
    pub(crate) fn idle(&self) -> bool {
        self.policy == SchedPolicy::Idle || self.group_idle
    }
    /// User-visible weight (`scale_load_down`).
    fn w(&self) -> i64 {
        self.load.user() as i64
    }
    fn keys(&self) -> tree::Keys {
        tree::Keys {
            vruntime: self.vruntime,
            deadline: self.deadline,
            slice: self.slice,
            seq: self.seq,
        }
    }
}

/// The fair part of one CPU's runqueue (`struct cfs_rq`) plus the per-rq counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rq {
    /// Queued entities other than curr (the rb-tree's members).
    pub tree: Tree,
    /// `cfs_rq->avg_vruntime`: Σ (v_i − min_vruntime)·w_i over the tree, in 64 bits, wrapping
    /// as the kernel's s64 does (see [`Avg`]).
    pub avg_vruntime: i64,
    /// `cfs_rq->avg_load`: Σ w_i (`scale_load_down`) over the tree.
    pub avg_load: i64,
    /// `cfs_rq->curr`: the fair task on the CPU.
    pub curr: Option<Tid>,
    /// `nr_running` (6.14+: `nr_queued`): queued entities, curr and delayed ones included.
    pub nr_running: u32,
    /// SCHED_IDLE entities among them (`idle_nr_running`).
    pub nr_idle: u32,
    /// Delayed entities among them (DELAY_DEQUEUE: blocked, kept queued), so that
    /// `nr_running − nr_delayed` is 6.14+'s `h_nr_runnable` with a flat hierarchy.
    pub nr_delayed: u32,
    /// `load.weight`: scaled weights of the queued entities, curr included.
    pub load: u64,
    /// `min_vruntime`: monotonic (the 6.19 `zero_vruntime` is a numerical base only).
    pub min_vruntime: i64,
    pub next: Option<Tid>,
    pub last: Option<Tid>,
    /// TIF_NEED_RESCHED on the running task.
    pub need_resched: bool,
    /// What raised `need_resched` first (decision records; cleared with it).
    pub resched_cause: Option<Cause>,
    /// CPU time of curr that the engine has charged (a program step ends a burst) but no
    /// kernel path has accounted yet: the kernel runs `update_curr` only from its own events
    /// (tick, enqueue, dequeue, wakeup check, switch), so until the next one curr's vruntime
    /// in the kernel lags by this much. Cleared by every kernel-path `update_curr`.
    pub unaccounted_ns: u64,
    pub(crate) seq: u64,
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
    pub out: &'a mut Recorder,
}

/// The fair class of one kernel variant on one machine.
pub(crate) struct Fair {
    pub variant: Variant,
    pub p: SchedParams,
    pub sw: VersionSwitches,
    pub tick_ns: u64,
}

/// Σ (v_i − v0)·w_i and Σ w_i over the tree and a queued curr: the kernel's `avg_vruntime` /
/// `avg_load` with curr folded in (`avg_vruntime()` adds curr the same way). 64-bit and
/// wrapping, as the kernel's s64 sums are: the keys stay within one queue's spread, so the
/// products fit with a wide margin (a 100 000 s spread at nice −20 would be needed to
/// overflow), and where they would not, the model overflows as the kernel does.
///
/// The fluid model behind EEVDF: an entity's lag is the service it was owed minus the service
/// it got, lag_i = S − s_i, which in virtual time is lag_i = w_i·(V − v_i), where V is the
/// virtual time of the ideal scheduler that serves every queued entity in proportion to its
/// weight (`se->vlag` keeps V − v_i). Service is conserved among the queued entities, so
/// Σ lag_i = 0, that is Σ w_i·(V − v_i) = 0, V·Σ w_i = Σ w_i·v_i, and
///
/// ```text
/// V = Σ w_i·v_i / Σ w_i,
/// ```
///
/// the weight-averaged vruntime. The kernel does not keep Σ w_i·v_i itself: vruntimes grow
/// without bound (u64, starting near −2^20 and free to wrap), and their products with weights
/// would overflow any fixed width long before the vruntimes do. It keeps the sum relative to a
/// base v0 that moves with the queue (`min_vruntime`; 6.19's `zero_vruntime`), as
/// `cfs_rq->avg_vruntime` = Σ (v_i − v0)·w_i (`entity_key` is v_i − v0) and
/// `cfs_rq->avg_load` = Σ w_i. Subtracting v0 inside the sum changes nothing but the range:
///
/// ```text
/// Σ w_i·v_i / Σ w_i = Σ w_i·(v_i − v0 + v0) / Σ w_i = v0 + Σ (v_i − v0)·w_i / Σ w_i,
/// ```
///
/// and the keys v_i − v0 stay within the lag bounds and the spread of one queue, so their
/// weighted sum stays small. When v0 advances by d, every key drops by d and the sum by
/// d·Σ w_i (`avg_vruntime_update`). The model keeps the tree's sums as the kernel does:
/// `avg_vruntime_add`/`_sub` at each insertion and removal ([`Fair::tree_insert`],
/// [`Fair::tree_remove`]), `avg_vruntime_update` when min_vruntime moves; curr is added at each
/// use. The base is min_vruntime in every version: 6.19 rebases on `zero_vruntime` instead,
/// which changes the range of the keys and nothing else (V and eligibility are exact either
/// way).
#[derive(Clone, Copy)]
struct Avg {
    v0: i64,
    sum: i64,
    load: i64,
}

impl Avg {
    /// `vruntime_eligible`: an entity is eligible when its lag is not negative,
    /// w·(V − v) ≥ 0, i.e. v ≤ V. With V = v0 + Σ (v_i − v0)·w_i / Σ w_i and Σ w_i > 0,
    /// multiplying both sides of (v − v0) ≤ Σ (v_i − v0)·w_i / Σ w_i by Σ w_i gives
    ///
    /// ```text
    /// Σ (v_i − v0)·w_i ≥ (v − v0)·Σ w_i,
    /// ```
    ///
    /// which is the test. It has no division, so no rounding: an entity between the floored
    /// integer V and the true mean is judged by the exact comparison, not by where the division
    /// happened to truncate (and with Σ w_i = 0 both sides are 0: eligible).
    fn eligible(&self, v: i64) -> bool {
        self.sum >= v.wrapping_sub(self.v0).wrapping_mul(self.load)
    }
    /// `avg_vruntime`: V rounded toward −∞, so that an entity at V is eligible.
    fn v(&self) -> i64 {
        if self.load == 0 {
            return self.v0;
        }
        let mut s = self.sum;
        if s < 0 {
            s = s.wrapping_sub(self.load - 1);
        }
        self.v0.wrapping_add(s.wrapping_div(self.load))
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

    /// `__enqueue_entity` with `avg_vruntime_add`: equal keys go right, so the sequence number
    /// orders them.
    fn tree_insert(&self, c: &mut Ctx, id: Tid) {
        debug_assert!(
            !c.rq.tree.contains(&id),
            "cpu {}: task {} inserted into the tree twice (an entity is in the tree at most once)",
            c.cpu,
            id + 1
        );
        c.rq.seq += 1;
        c.ents[id].seq = c.rq.seq;
        if c.rq.tree.len() == 0 {
            let eevdf_66 = self.eevdf() && !self.sw.deadline_tree;
            c.rq.tree.set_order(self.sw.deadline_tree, eevdf_66);
        }
        let e = &c.ents[id];
        c.rq.tree.insert(id, e.keys());
        let key = e.vruntime.wrapping_sub(c.rq.min_vruntime);
        c.rq.avg_vruntime = c.rq.avg_vruntime.wrapping_add(key.wrapping_mul(e.w()));
        c.rq.avg_load += e.w();
    }

    /// `__dequeue_entity` with `avg_vruntime_sub`.
    fn tree_remove(&self, c: &mut Ctx, id: Tid) {
        let v = c.rq.tree.remove(id);
        debug_assert!(
            v.is_some(),
            "cpu {}: task {} removed from the tree but not in it (the tree holds the queued \
             entities other than curr)",
            c.cpu,
            id + 1
        );
        if let Some(v) = v {
            let w = c.ents[id].w();
            let key = v.wrapping_sub(c.rq.min_vruntime);
            c.rq.avg_vruntime = c.rq.avg_vruntime.wrapping_sub(key.wrapping_mul(w));
            c.rq.avg_load -= w;
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
        // A delayed task moved by the balancer arrives delayed.
        if c.ents[id].sched_delayed {
            c.rq.nr_delayed += 1;
        }
    }

    fn account_dequeue(&self, c: &mut Ctx, id: Tid) {
        debug_assert!(
            c.rq.nr_running > 0,
            "cpu {}: nr_running underflow dequeuing task {} (nr_running counts the queued entities)",
            c.cpu,
            id + 1
        );
        debug_assert!(
            c.rq.load >= c.ents[id].load.weight,
            "cpu {}: negative load dequeuing task {} (load is the sum of the queued weights)",
            c.cpu,
            id + 1
        );
        debug_assert!(
            !c.ents[id].idle() || c.rq.nr_idle > 0,
            "cpu {}: idle_nr_running underflow dequeuing task {} (it counts the queued SCHED_IDLE \
             entities)",
            c.cpu,
            id + 1
        );
        c.rq.nr_running -= 1;
        c.rq.load -= c.ents[id].load.weight;
        if c.ents[id].idle() {
            c.rq.nr_idle -= 1;
        }
        if c.ents[id].sched_delayed {
            c.rq.nr_delayed -= 1;
        }
    }

    fn curr_on_rq(&self, c: &Ctx) -> Option<Tid> {
        c.rq.curr.filter(|&t| c.ents[t].on_rq)
    }

    /// Leftmost of a vruntime-ordered tree (CFS, EEVDF 6.6).
    fn leftmost_by_vruntime(&self, c: &Ctx) -> Option<Tid> {
        debug_assert!(!self.sw.deadline_tree, "the tree is ordered by deadline");
        c.rq.tree.leftmost()
    }

    /// Leftmost of the tree in its own order (EEVDF 6.8+: deadline), from the cache.
    fn leftmost(&self, c: &Ctx) -> Option<Tid> {
        c.rq.tree.leftmost()
    }

    /// `update_min_vruntime`: min of curr (if queued) and the leftmost, never decreasing.
    fn update_min_vruntime(&self, c: &mut Ctx) {
        let mut v = c.rq.min_vruntime;
        let curr = self.curr_on_rq(c);
        if let Some(cu) = curr {
            v = c.ents[cu].vruntime;
        }
        // The root's augmented min_vruntime: the smallest vruntime in the tree.
        if let Some(lv) = c.rq.tree.min_vruntime() {
            v = if curr.is_some() && before(v, lv) {
                v
            } else {
                lv
            };
        }
        if before(c.rq.min_vruntime, v) {
            // avg_vruntime_update: every key drops by the advance.
            let d = v.wrapping_sub(c.rq.min_vruntime);
            c.rq.avg_vruntime =
                c.rq.avg_vruntime
                    .wrapping_sub(d.wrapping_mul(c.rq.avg_load));
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

    /// `resched_curr`: the first cause of a pending reschedule is the one kept.
    fn resched(&self, c: &mut Ctx, cause: Cause) {
        if !c.rq.need_resched {
            c.rq.resched_cause = Some(cause);
        }
        c.rq.need_resched = true;
    }

    /// The sums behind `avg_vruntime`: the tree's, kept incrementally, and a queued curr's
    /// (see [`Avg`]).
    fn avg(&self, c: &Ctx) -> Avg {
        Self::avg_of(c.rq, c.ents)
    }

    /// [`Fair::avg`] of any run queue: the tree's sums and a queued curr's.
    fn avg_of(rq: &Rq, ents: &[Entity]) -> Avg {
        let v0 = rq.min_vruntime;
        let mut sum = rq.avg_vruntime;
        let mut load = rq.avg_load;
        if let Some(cu) = rq.curr.filter(|&t| ents[t].on_rq) {
            let e = &ents[cu];
            sum = sum.wrapping_add(e.vruntime.wrapping_sub(v0).wrapping_mul(e.w()));
            load += e.w();
        }
        Avg { v0, sum, load }
    }

    fn entity_eligible(&self, c: &Ctx, id: Tid) -> bool {
        self.avg(c).eligible(c.ents[id].vruntime)
    }

    /// `entity_eligible(cfs_rq, se)` read from outside a fair-class call (the load balancer's
    /// `can_migrate_task`): `id` against `rq`'s `avg_vruntime`, curr counted as the kernel last
    /// accounted it (no `update_curr`). Always true under CFS, which has no eligibility.
    pub(crate) fn eligible_on(&self, rq: &Rq, ents: &[Entity], id: Tid) -> bool {
        !self.eevdf() || Self::avg_of(rq, ents).eligible(ents[id].vruntime)
    }

    /// Σ w of the tree only (`cfs_rq->avg_load`).
    fn avg_load_tree(&self, c: &Ctx) -> i64 {
        c.rq.avg_load
    }

    /// `cfs_rq_min_slice`: the shortest slice among curr (if queued) and the tree.
    fn min_slice(&self, c: &Ctx) -> u64 {
        let mut m = u64::MAX;
        if let Some(cu) = self.curr_on_rq(c) {
            m = c.ents[cu].slice;
        }
        // The root's augmented min_slice.
        if let Some(s) = c.rq.tree.min_slice() {
            m = m.min(s);
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

    // ----------------------------------------------------------------------------------------
    // Accounting

    /// `update_curr`: charge curr for the time since `exec_start`; EEVDF also renews the
    /// deadline and decides whether curr must give way.
    ///
    /// Time the engine charged since the kernel's last `update_curr` (`Rq::unaccounted_ns`,
    /// see [`Fair::update_curr_user`]) counts as part of this call's delta: one
    /// `sched_stat_runtime` for all of it, and the deadline and the resched decided now, as the
    /// kernel decides them at its next event and not when a user-space burst happens to end.
    pub fn update_curr(&self, c: &mut Ctx) {
        let pending = core::mem::take(&mut c.rq.unaccounted_ns);
        let Some(cu) = c.rq.curr else { return };
        debug_assert!(
            !c.rq.tree.contains(&cu),
            "cpu {}: curr (task {}) is in the tree (curr is kept out of the tree while it runs)",
            c.cpu,
            cu + 1
        );
        let delta = pending + self.charge(c, cu);
        if delta == 0 {
            return;
        }
        c.out.event(Event {
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
            self.resched(c, Cause::DeadlineReached);
            self.clear_buddies(c, cu);
        }
    }

    /// Charges curr's `sum_exec_runtime` and vruntime for the time since `exec_start`; returns
    /// it.
    fn charge(&self, c: &mut Ctx, cu: Tid) -> u64 {
        let e = &mut c.ents[cu];
        let delta = c.clock_task as i64 - e.exec_start as i64;
        if delta <= 0 {
            return 0;
        }
        let delta = delta as u64;
        e.exec_start = c.clock_task;
        e.sum_exec_runtime += delta;
        e.vruntime = e
            .vruntime
            .wrapping_add(calc_delta_fair(delta, &e.load) as i64);
        delta
    }

    /// The engine's own bookkeeping (a burst ends, a program step starts), not a kernel path:
    /// curr's CPU time is charged so that the engine knows where its program stands, but
    /// nothing the kernel would only do in `update_curr` happens (no trace event, no deadline
    /// renewal, no `min_vruntime` update, no resched). The time is remembered as not yet seen
    /// by the kernel (`Rq::unaccounted_ns`) and reported by the next `update_curr`.
    ///
    /// A task that runs in user space calls nothing in the scheduler: a slice that runs out
    /// between two scheduler events is noticed at the next one (a tick, a wakeup or an enqueue
    /// on the CPU, the task's own block), which is when the kernel reschedules.
    pub fn update_curr_user(&self, c: &mut Ctx) {
        let Some(cu) = c.rq.curr else { return };
        let charged = self.charge(c, cu);
        c.rq.unaccounted_ns += charged;
    }

    // ----------------------------------------------------------------------------------------
    // Observation

    /// What a decision record shows of an entity (`pid` = tid + 1, as in the trace).
    pub fn view(&self, c: &Ctx, id: Tid) -> EntityView {
        let (vruntime, deadline, _, lag, eligible) = self.snapshot(c, id);
        let protected = self.eevdf()
            && c.rq.curr == Some(id)
            && if self.v619() {
                self.protect_slice(c, id)
            } else {
                self.has(Feature::RunToParity) && c.ents[id].vlag == c.ents[id].deadline
            };
        EntityView {
            pid: id as u32 + 1,
            vruntime,
            deadline,
            lag,
            eligible,
            protected,
            queued: c.ents[id].on_rq,
        }
    }

    /// V (EEVDF `avg_vruntime`) or min_vruntime (CFS) of the queue.
    pub fn queue_v(&self, c: &Ctx) -> i64 {
        if self.eevdf() {
            self.avg(c).v()
        } else {
            c.rq.min_vruntime
        }
    }

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
}
