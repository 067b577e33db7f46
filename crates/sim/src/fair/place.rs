//! Placement, enqueue and dequeue (`kernel/sched/fair.c`):
//! - `place_entity`: CFS (5.14, 6.1) sleeper credit and START_DEBIT; EEVDF (6.6+) PLACE_LAG
//!   with the (W + w)/W inflation, PLACE_DEADLINE_INITIAL, PLACE_REL_DEADLINE (6.12+);
//! - `update_entity_lag` and its clamp;
//! - `enqueue_entity` (new, woken, migrated, attached), `dequeue_entity` with DELAY_DEQUEUE and
//!   DELAY_ZERO (6.12+), `requeue_delayed_entity` (`ttwu_runnable`'s path);
//! - what a migration carries: CFS `vruntime − min_vruntime` (`migrate_task_rq_fair`, 6.1),
//!   EEVDF the lag and, with PLACE_REL_DEADLINE, a relative deadline.

use crate::decision::{DecisionKind, DelayEnd, Enqueue, PlaceRules, Placement};
use crate::variant::Feature;
use crate::weight::calc_delta_fair;

use super::{before, Ctx, Fair, Tid};

impl Fair {
    /// CFS `place_entity(cfs_rq, se, initial)`.
    pub(super) fn cfs_place(&self, c: &mut Ctx, id: Tid, initial: bool, why: Enqueue) {
        let own = c.ents[id].vruntime;
        let mut v = c.rq.min_vruntime;
        let mut rules = 0;
        let mut credit = 0;
        if initial && self.has(Feature::StartDebit) {
            let slice = self.sched_slice(c, id);
            let debit = calc_delta_fair(slice, &c.ents[id].load) as i64;
            v = v.wrapping_add(debit);
            credit = -debit;
            rules |= PlaceRules::START_DEBIT;
        }
        if !initial {
            let mut thresh = if self.sw.idle_min_granularity && c.ents[id].idle() {
                self.p.min_granularity_ns
            } else {
                self.p.latency_ns
            };
            if self.has(Feature::GentleFairSleepers) {
                thresh >>= 1;
                rules |= PlaceRules::GENTLE_FAIR_SLEEPERS;
            }
            // The credit is taken in the task's own cfs_rq: its group's, in the group's units,
            // when other tasks of the group are queued here; a group empty here is enqueued
            // at the root with the credit in the root's units (the flat queue's).
            let g = c.ents[id].group;
            let thresh = if g != 0
                && c.ents[id].own_weight != c.ents[id].load.weight
                && c.rq
                    .tree
                    .iter()
                    .chain(c.rq.curr)
                    .any(|t| t != id && c.ents[t].group == g)
            {
                c.ents[id].own_to_flat(thresh)
            } else {
                thresh
            };
            v = v.wrapping_sub(thresh as i64);
            credit = thresh as i64;
            rules |= PlaceRules::SLEEPER_CREDIT;
        }
        // Never gain time by being placed backwards.
        if before(c.ents[id].vruntime, v) {
            c.ents[id].vruntime = v;
        } else {
            rules |= PlaceRules::KEPT_OWN;
        }
        if c.out.decisions {
            let place = Placement {
                pid: id as u32 + 1,
                why,
                v: c.rq.min_vruntime,
                vlag: own,
                lag: credit,
                load: 0,
                vruntime: c.ents[id].vruntime,
                deadline: 0,
                vslice: 0,
                rules: PlaceRules(rules),
            };
            let func = "place_entity (CFS)";
            c.out
                .decide(c.now, c.cpu, DecisionKind::Place { func, place });
        }
    }

    // ----------------------------------------------------------------------------------------
    // EEVDF placement and lag

    /// `update_entity_lag`: vlag = clamp(V − v, ±calc_delta_fair(max(2·slice, TICK_NSEC))).
    pub(super) fn update_entity_lag(&self, c: &mut Ctx, id: Tid) {
        let lag = self.avg(c).v().wrapping_sub(c.ents[id].vruntime);
        let e = &mut c.ents[id];
        let limit = calc_delta_fair((2 * e.slice).max(self.tick_ns), &e.load) as i64;
        e.vlag = lag.clamp(-limit, limit);
    }

    pub(super) fn base_slice_for(&self, c: &mut Ctx, id: Tid) {
        let e = &mut c.ents[id];
        if !(self.sw.custom_slice && e.custom_slice) {
            e.slice = self.p.base_slice_ns;
        }
    }

    /// EEVDF `place_entity(cfs_rq, se, flags)`: vruntime = V − lag, deadline = vruntime + vslice
    /// (half a vslice for a new task with PLACE_DEADLINE_INITIAL; the saved relative deadline
    /// after a migration with PLACE_REL_DEADLINE).
    ///
    /// PLACE_LAG's inflation, as fair.c derives it. Let W = Σ w_j be the weight already queued
    /// (the tree and a queued curr: `avg_load`, plus curr's) and V their average vruntime
    /// (`avg_vruntime`). Placing the entity, of weight w_i, at v_i = V − vl moves the average,
    /// because the entity is part of it once queued:
    ///
    /// ```text
    /// V' = (W·V + w_i·v_i) / (W + w_i) = (W·V + w_i·V − w_i·vl) / (W + w_i)
    ///    = V − w_i·vl / (W + w_i),
    /// ```
    ///
    /// so the lag it has once queued is
    ///
    /// ```text
    /// V' − v_i = V − w_i·vl / (W + w_i) − V + vl = vl·W / (W + w_i),
    /// ```
    ///
    /// less than the vl it left with: placing by vl itself would shrink every lag by
    /// W/(W + w_i) at each sleep and wakeup, and a task that sleeps often would see its lag,
    /// credit or debt, melt away. Placing with the inflated lag vl' = vl·(W + w_i)/W instead
    /// gives V' − v_i = vl'·W/(W + w_i) = vl: after its own weight is added to V, the entity
    /// has exactly the lag it had. The others pay for it: V moves by V' − V = −w_i·vl/W, so
    /// their summed weighted lag W·(V' − V) = −w_i·vl balances the newcomer's w_i·vl and
    /// Σ lag stays 0 (test C9 below works one case through). The kernel computes
    /// `lag *= load + scale_load_down(se->load.weight); lag = div_s64(lag, load)`, the division
    /// truncating toward zero, with a WARN guard against W = 0.
    ///
    /// `why` is the enqueue, for the decision record.
    pub(super) fn eevdf_place_why(&self, c: &mut Ctx, id: Tid, initial: bool, why: Enqueue) {
        let avg = self.avg(c);
        let v_avg = avg.v();
        self.base_slice_for(c, id);
        let mut vslice = calc_delta_fair(c.ents[id].slice, &c.ents[id].load) as i64;
        let full_vslice = vslice;
        let mut lag: i64 = 0;
        let mut rules = 0;
        let mut queued = 0;
        // 6.6/6.12 apply the inflation whenever the queue is non-empty; 6.19 skips vlag == 0,
        // which multiplies to the same 0.
        if self.has(Feature::PlaceLag) && c.rq.nr_running > 0 {
            let mut load = self.avg_load_tree(c);
            if let Some(cu) = self.curr_on_rq(c) {
                load += c.ents[cu].w();
            }
            queued = load;
            // s64 as in the kernel (wrapping where it would).
            let mut l = c.ents[id].vlag.wrapping_mul(load + c.ents[id].w());
            if load == 0 {
                load = 1;
            }
            l = l.wrapping_div(load); // div_s64 truncates toward zero
            lag = l;
            rules |= PlaceRules::PLACE_LAG;
        }
        let vlag = c.ents[id].vlag;
        let e = &mut c.ents[id];
        e.vruntime = v_avg.wrapping_sub(lag);
        let rel_gate = self.v619() || self.has(Feature::PlaceRelDeadline);
        if e.rel_deadline && rel_gate {
            e.deadline = e.deadline.wrapping_add(e.vruntime);
            e.rel_deadline = false;
            rules |= PlaceRules::PLACE_REL_DEADLINE;
        } else {
            if self.has(Feature::PlaceDeadlineInitial) && initial {
                vslice /= 2;
                rules |= PlaceRules::PLACE_DEADLINE_INITIAL;
            }
            e.deadline = e.vruntime.wrapping_add(vslice);
        }
        if c.out.decisions {
            let e = &c.ents[id];
            let place = Placement {
                pid: id as u32 + 1,
                why,
                v: v_avg,
                vlag,
                lag,
                load: queued,
                vruntime: e.vruntime,
                deadline: e.deadline,
                vslice: full_vslice,
                rules: PlaceRules(rules),
            };
            let func = self.place_func();
            c.out
                .decide(c.now, c.cpu, DecisionKind::Place { func, place });
        }
    }

    /// `place_entity` with the version, for the decision records.
    fn place_func(&self) -> &'static str {
        if !self.eevdf() {
            "place_entity (CFS)"
        } else if self.v619() {
            "place_entity (6.19)"
        } else if self.sw.deadline_tree {
            "place_entity (6.12)"
        } else {
            "place_entity (6.6)"
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
        debug_assert!(
            !c.ents[id].on_rq,
            "cpu {}: enqueue_new of task {} that is already queued (a task is on one run queue at most)",
            c.cpu,
            id + 1
        );
        if self.eevdf() {
            // 6.6: task_fork_fair's INITIAL placement is overwritten by the activation's plain
            // one; 6.12+ pass ENQUEUE_INITIAL at activation.
            c.ents[id].vlag = 0;
            self.eevdf_enqueue(c, id, self.sw.initial_half_slice_effective, Enqueue::New);
            return;
        }
        self.update_curr(c);
        let base = match c.rq.curr {
            Some(cu) => c.ents[cu].vruntime,
            None => c.rq.min_vruntime,
        };
        c.ents[id].vruntime = base;
        self.cfs_place(c, id, true, Enqueue::New);
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
        debug_assert!(
            !c.ents[id].on_rq,
            "cpu {}: enqueue_wakeup of task {} that is already queued (a task is on one run queue at most)",
            c.cpu,
            id + 1
        );
        if self.eevdf() {
            let why = if migrated {
                Enqueue::Migrated
            } else {
                Enqueue::Wakeup
            };
            self.eevdf_enqueue(c, id, false, why);
            return;
        }
        self.update_curr(c);
        if migrated {
            c.ents[id].vruntime = c.ents[id].vruntime.wrapping_add(c.rq.min_vruntime);
        }
        self.account_enqueue(c, id);
        let why = if migrated {
            Enqueue::Migrated
        } else {
            Enqueue::Wakeup
        };
        self.cfs_place(c, id, false, why);
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
        debug_assert!(
            !c.ents[id].on_rq,
            "cpu {}: enqueue_attach of task {} that is already queued (a task is on one run queue at most)",
            c.cpu,
            id + 1
        );
        if self.eevdf() {
            self.eevdf_enqueue(c, id, false, Enqueue::Attach);
            return;
        }
        self.update_curr(c);
        c.ents[id].vruntime = c.ents[id].vruntime.wrapping_add(c.rq.min_vruntime);
        self.account_enqueue(c, id);
        self.tree_insert(c, id);
        c.ents[id].on_rq = true;
    }

    pub(super) fn eevdf_enqueue(&self, c: &mut Ctx, id: Tid, initial: bool, why: Enqueue) {
        // For an entity that is not curr: update_curr first, then place.
        self.update_curr(c);
        self.eevdf_place_why(c, id, initial, why);
        self.account_enqueue(c, id);
        if c.rq.curr != Some(id) {
            self.tree_insert(c, id);
        }
        c.ents[id].on_rq = true;
    }

    /// `requeue_delayed_entity`: a delayed task is woken before it was picked (6.12+).
    ///
    /// No `update_curr` comes first (`enqueue_task_fair` returns right after
    /// `requeue_delayed_entity` for ENQUEUE_DELAYED, and `ttwu_runnable` reaches
    /// `wakeup_preempt` only after it), so the wakee's lag and placement see curr's vruntime as
    /// the kernel last accounted it: without the CPU time in `Rq::unaccounted_ns`.
    pub fn requeue_delayed(&self, c: &mut Ctx, id: Tid) {
        let stale = match c.rq.curr {
            Some(cu) if self.sw.requeue_stale_curr && cu != id && c.rq.unaccounted_ns > 0 => {
                let back = calc_delta_fair(c.rq.unaccounted_ns, &c.ents[cu].load) as i64;
                c.ents[cu].vruntime = c.ents[cu].vruntime.wrapping_sub(back);
                Some((cu, back))
            }
            _ => None,
        };
        let zeroed = self.requeue_delayed_zero(c, id);
        if c.out.decisions {
            let lag = match zeroed {
                Some(l) => l,
                None => self.avg(c).v().wrapping_sub(c.ents[id].vruntime),
            };
            let kind = DecisionKind::DelayEnd {
                pid: id as u32 + 1,
                how: DelayEnd::Woken,
                lag,
                zeroed: zeroed.is_some_and(|l| l > 0),
            };
            c.out.decide(c.now, c.cpu, kind);
        }
        if let Some((cu, back)) = stale {
            c.ents[cu].vruntime = c.ents[cu].vruntime.wrapping_add(back);
        }
        c.ents[id].sched_delayed = false;
        c.rq.nr_delayed -= 1;
    }

    /// DELAY_ZERO's part of `requeue_delayed_entity`: the lag it took (None without
    /// DELAY_ZERO); a positive one is cleared and the task re-placed.
    fn requeue_delayed_zero(&self, c: &mut Ctx, id: Tid) -> Option<i64> {
        if self.has(Feature::DelayZero) {
            self.update_entity_lag(c, id);
            let lag = c.ents[id].vlag;
            if c.ents[id].vlag > 0 {
                debug_assert!(
                    c.rq.nr_running > 0,
                    "cpu {}: nr_running underflow requeuing task {} (it is still queued)",
                    c.cpu,
                    id + 1
                );
                c.rq.nr_running -= 1;
                let is_curr = c.rq.curr == Some(id);
                if !is_curr {
                    self.tree_remove(c, id);
                }
                c.ents[id].vlag = 0;
                self.eevdf_place_why(c, id, false, Enqueue::DelayZero);
                if !is_curr {
                    self.tree_insert(c, id);
                }
                c.rq.nr_running += 1;
            }
            return Some(lag);
        }
        None
    }

    /// A task blocks (`dequeue_entity` with DEQUEUE_SLEEP). Returns false when DELAY_DEQUEUE
    /// keeps it queued. `special` marks a dequeue that may not be delayed (exit).
    pub fn dequeue_sleep(&self, c: &mut Ctx, id: Tid, special: bool) -> bool {
        self.dequeue_entity(c, id, true, special, false)
    }

    /// The task's group is throttled (`throttle_cfs_rq` dequeues the group's entity with
    /// DEQUEUE_SLEEP, never delayed): a queued task leaves as a sleeper would, saving its lag;
    /// a delayed one finishes its dequeue.
    pub fn dequeue_throttled(&self, c: &mut Ctx, id: Tid) {
        let delayed = c.ents[id].sched_delayed;
        self.dequeue_entity(c, id, true, true, delayed);
    }

    pub(super) fn dequeue_entity(
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
            c.rq.nr_delayed += 1;
            if c.out.decisions {
                let lag = self.avg(c).v().wrapping_sub(c.ents[id].vruntime);
                let kind = DecisionKind::Delay {
                    pid: id as u32 + 1,
                    lag,
                };
                c.out.decide(c.now, c.cpu, kind);
            }
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
            let lag = c.ents[id].vlag;
            let zeroed = self.has(Feature::DelayZero) && lag > 0;
            if zeroed {
                c.ents[id].vlag = 0;
            }
            if c.out.decisions {
                let kind = DecisionKind::DelayEnd {
                    pid: id as u32 + 1,
                    how: if special {
                        DelayEnd::Throttled
                    } else {
                        DelayEnd::Picked
                    },
                    lag,
                    zeroed,
                };
                c.out.decide(c.now, c.cpu, kind);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Ctx, Entity, Fair, Rq};
    use crate::config::SchedPolicy;
    use crate::decision::Enqueue;
    use crate::variant::Variant;
    use crate::weight::LoadWeight;
    use alloc::vec;

    const MS: i64 = 1_000_000;

    fn fair(v: &str, hz: u64) -> Fair {
        let variant = Variant::parse(v).unwrap();
        Fair {
            p: variant.params(16),
            sw: variant.version.switches,
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
        let mut out = crate::trace::Recorder::default();
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
        f.eevdf_place_why(&mut c, 2, false, Enqueue::Wakeup);
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
            let mut out = crate::trace::Recorder::default();
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
