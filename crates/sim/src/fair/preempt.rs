//! Preemption (`kernel/sched/fair.c`):
//! - the tick: `task_tick_fair` → `entity_tick`, CFS `check_preempt_tick`;
//! - wakeup preemption in the kernel's three shapes: CFS `check_preempt_wakeup` (5.14, 6.1)
//!   with `wakeup_preempt_entity`; EEVDF 6.6–6.16 `check_preempt_wakeup` /
//!   `check_preempt_wakeup_fair` (renamed in 6.7) with `do_preempt_short` /
//!   `did_preempt_short` (6.12); EEVDF 6.19's restructured `check_preempt_wakeup_fair`
//!   (`wakeup_preempt_fair` in later trees);
//! - the hrtick: `hrtick_start_fair` and when `hrtick_update` re-arms.

use crate::config::SchedPolicy;
use crate::decision::{Cause, KeepRule, PickRule, PreemptRule};
use crate::variant::Feature;
use crate::weight::calc_delta_fair;

use super::{before, Ctx, Fair, Tid};

/// Why a wakee preempted, for the counters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reason {
    IdleCurr,
    Gran,
    Short,
    /// `pick_eevdf` chose the wakee; whether curr was eligible then.
    Pick {
        curr_eligible: bool,
    },
    /// `pick_eevdf` chose the wakee with curr off the queue (`!curr->on_rq`).
    CurrDequeued,
    Sync,
    ReschedIneligible,
}

impl Reason {
    fn rule(self) -> PreemptRule {
        match self {
            Reason::IdleCurr => PreemptRule::IdleCurr,
            Reason::Gran => PreemptRule::WakeupGranularity,
            Reason::Short => PreemptRule::PreemptShort,
            Reason::Pick {
                curr_eligible: false,
            } => PreemptRule::CurrIneligible,
            Reason::Pick {
                curr_eligible: true,
            } => PreemptRule::EarlierDeadline,
            Reason::CurrDequeued => PreemptRule::CurrDequeued,
            Reason::Sync => PreemptRule::Sync,
            Reason::ReschedIneligible => PreemptRule::ReschedIneligible,
        }
    }
}

/// A wakeup check's outcome: the preempting reason or the rule that kept curr.
type Verdict = Result<Reason, KeepRule>;

impl Fair {
    /// `wakeup_preempt_entity(curr, se)`: −1, 0 or 1; gran is in `se`'s virtual units.
    pub(super) fn wakeup_preempt_entity(&self, c: &Ctx, curr: Tid, se: Tid) -> i32 {
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

    /// 6.12 `did_preempt_short`: curr lost its protection (vlag ≠ deadline) and is ineligible.
    pub(super) fn did_preempt_short(&self, c: &Ctx, id: Tid) -> bool {
        self.has(Feature::PreemptShort)
            && c.ents[id].vlag != c.ents[id].deadline
            && !self.entity_eligible(c, id)
    }

    /// 6.12 `do_preempt_short(cfs_rq, pse, se)`.
    pub(super) fn do_preempt_short(&self, c: &Ctx, pse: Tid, se: Tid) -> bool {
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

    // ----------------------------------------------------------------------------------------
    // Preemption

    /// `task_tick_fair` → `entity_tick`. `queued` is an hrtick expiry; `hrtick_armed` whether an
    /// hrtick is pending.
    pub fn task_tick(&self, c: &mut Ctx, queued: bool, hrtick_armed: bool) {
        let Some(cu) = c.rq.curr else { return };
        self.update_curr(c);
        if queued {
            self.resched(c, Cause::Hrtick);
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
            self.resched(c, Cause::TickIneligible);
        }
    }

    /// CFS `check_preempt_tick`.
    pub(super) fn check_preempt_tick(&self, c: &mut Ctx, cu: Tid) {
        let ideal = self.sched_slice(c, cu);
        let ran = c.ents[cu].sum_exec_runtime - c.ents[cu].prev_sum_exec_runtime;
        if ran > ideal {
            self.resched(c, Cause::SliceUsed);
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
        // Virtual against real time: what the kernel does, in the cfs_rq the two share (their
        // group's when both are in one: its entity_tick; the root's otherwise).
        let ideal = if c.ents[left].group == c.ents[cu].group {
            c.ents[cu].own_to_flat(ideal)
        } else {
            ideal
        };
        if delta as u64 > ideal {
            self.resched(c, Cause::VruntimeAhead);
        }
    }

    /// The kernel function whose branches decide a wakeup preemption in this version.
    pub fn wakeup_func(&self) -> &'static str {
        if !self.eevdf() {
            "check_preempt_wakeup (CFS, 6.1)"
        } else if self.v619() {
            "check_preempt_wakeup_fair (6.19)"
        } else if self.sw.deadline_tree {
            "check_preempt_wakeup_fair (6.12)"
        } else {
            "check_preempt_wakeup (EEVDF, 6.6)"
        }
    }

    /// `check_preempt_wakeup` (6.1, 6.6) / `check_preempt_wakeup_fair` (6.12, 6.19): may the
    /// woken (or new) task `p` preempt curr? The outcome (`None` when there is no other curr):
    /// the rule that preempted, or the one that kept curr.
    pub fn check_preempt_wakeup(
        &self,
        c: &mut Ctx,
        p: Tid,
        fork: bool,
        sync: bool,
    ) -> Option<Result<PreemptRule, KeepRule>> {
        c.rq.stats.check_preempt_count += 1;
        let se = c.rq.curr?;
        if se == p {
            return None;
        }
        let verdict = if !self.eevdf() {
            self.cfs_wakeup(c, se, p, fork)
        } else if self.v619() {
            self.eevdf619_wakeup(c, se, p, fork, sync)
        } else {
            self.eevdf_wakeup(c, se, p, fork)
        };
        let reason = match verdict {
            Ok(r) => r,
            Err(keep) => return Some(Err(keep)),
        };
        self.resched(
            c,
            Cause::Wakeup {
                wakee: p as u32 + 1,
                rule: reason.rule(),
            },
        );
        let s = &mut c.rq.stats;
        s.need_preempt_count += 1;
        match reason {
            Reason::IdleCurr => s.preempt_idle_curr += 1,
            Reason::Gran => s.preempt_wakeup_gran += 1,
            Reason::Short => s.preempt_short += 1,
            Reason::ReschedIneligible => s.preempt_resched_ineligible += 1,
            Reason::Pick { .. } | Reason::CurrDequeued | Reason::Sync => {}
        }
        Some(Ok(reason.rule()))
    }

    fn cfs_wakeup(&self, c: &mut Ctx, se: Tid, p: Tid, fork: bool) -> Verdict {
        let scale = c.rq.nr_running as u64 >= self.p.nr_latency;
        let mut marked = false;
        if self.has(Feature::NextBuddy) && scale && !fork {
            self.set_next_buddy(c, p);
            marked = true;
        }
        if c.rq.need_resched {
            return Err(KeepRule::AlreadyResched);
        }
        let reason = if c.ents[se].idle() && !c.ents[p].idle() {
            Reason::IdleCurr
        } else {
            if c.ents[p].policy != SchedPolicy::Normal {
                return Err(KeepRule::Policy);
            }
            if !self.has(Feature::WakeupPreemption) {
                return Err(KeepRule::WakeupPreemptionOff);
            }
            self.update_curr(c);
            if self.wakeup_preempt_entity(c, se, p) != 1 {
                return Err(KeepRule::WakeupGranularity);
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
        Ok(reason)
    }

    /// The 2024 proposal's wakeup hook: curr ineligible → reschedule (before the pick).
    pub(super) fn resched_ineligible(&self, c: &Ctx, se: Tid) -> bool {
        self.has(Feature::ReschedIneligible) && !self.entity_eligible(c, se)
    }

    /// 6.6 and 6.12.
    fn eevdf_wakeup(&self, c: &mut Ctx, se: Tid, p: Tid, fork: bool) -> Verdict {
        let v612 = self.sw.deadline_tree;
        if self.has(Feature::NextBuddy) && !fork && !(v612 && c.ents[p].sched_delayed) {
            self.set_next_buddy(c, p);
        }
        if c.rq.need_resched {
            return Err(KeepRule::AlreadyResched);
        }
        let (cse_idle, pse_idle) = (c.ents[se].idle(), c.ents[p].idle());
        if !v612 {
            // 6.6: the idle-policy check comes before the WAKEUP_PREEMPTION check.
            if cse_idle && !pse_idle {
                return Ok(Reason::IdleCurr);
            }
            if c.ents[p].policy != SchedPolicy::Normal {
                return Err(KeepRule::Policy);
            }
            if !self.has(Feature::WakeupPreemption) {
                return Err(KeepRule::WakeupPreemptionOff);
            }
        } else {
            if !self.has(Feature::WakeupPreemption) {
                return Err(KeepRule::WakeupPreemptionOff);
            }
            if cse_idle && !pse_idle {
                return Ok(Reason::IdleCurr);
            }
            if cse_idle != pse_idle || c.ents[p].policy != SchedPolicy::Normal {
                return Err(KeepRule::Policy);
            }
        }
        if self.resched_ineligible(c, se) {
            return Ok(Reason::ReschedIneligible);
        }
        self.update_curr(c);
        if self.has(Feature::WakeupDeadline) && before(c.ents[se].deadline, c.ents[p].deadline) {
            return Err(KeepRule::WakeupDeadline);
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
    ) -> Verdict {
        // A check during a newidle pull meets curr dequeued: `pick_eevdf` sets it aside.
        let on_rq = c.ents[se].on_rq;
        let curr_eligible = on_rq && self.entity_eligible(c, se);
        let protected = protect && curr_eligible && {
            if self.v619() {
                self.protect_slice(c, se)
            } else {
                self.has(Feature::RunToParity) && c.ents[se].vlag == c.ents[se].deadline
            }
        };
        let pick = self.pick_eevdf_why(c, protect, true);
        if pick.map(|(t, _)| t) != Some(p) {
            return Err(if matches!(pick, Some((_, PickRule::WakeupParity))) {
                KeepRule::WakeupParity
            } else if protected {
                KeepRule::Protected
            } else {
                KeepRule::PickNotWakee
            });
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
            Ok(Reason::Short)
        } else if !on_rq {
            s.preempt_curr_ineligible += 1;
            Ok(Reason::CurrDequeued)
        } else {
            if curr_eligible {
                s.preempt_earlier_deadline += 1;
            } else {
                s.preempt_curr_ineligible += 1;
            }
            Ok(Reason::Pick { curr_eligible })
        }
    }

    /// 6.19 `check_preempt_wakeup_fair`.
    fn eevdf619_wakeup(&self, c: &mut Ctx, se: Tid, p: Tid, fork: bool, sync: bool) -> Verdict {
        if c.rq.need_resched {
            return Err(KeepRule::AlreadyResched);
        }
        if !self.has(Feature::WakeupPreemption) {
            return Err(KeepRule::WakeupPreemptionOff);
        }
        let (cse_idle, pse_idle) = (c.ents[se].idle(), c.ents[p].idle());
        if cse_idle && !pse_idle {
            // PREEMPT_WAKEUP_SHORT: cancel the idle task's protection (f553741ac8c0, 6.15).
            self.cancel_protect_slice(c, se);
            return Ok(Reason::IdleCurr);
        }
        if cse_idle != pse_idle || c.ents[p].policy != SchedPolicy::Normal {
            return Err(KeepRule::Policy);
        }
        if self.resched_ineligible(c, se) {
            return Ok(Reason::ReschedIneligible);
        }
        self.update_curr(c);
        if self.has(Feature::WakeupDeadline) && before(c.ents[se].deadline, c.ents[p].deadline) {
            return Err(KeepRule::WakeupDeadline);
        }
        let short = self.has(Feature::PreemptShort) && c.ents[p].slice < c.ents[se].slice;
        if !short {
            // Skipped by the PREEMPT_SHORT and idle branches, which jump past it.
            if fork || c.ents[p].sched_delayed {
                return Err(KeepRule::ForkOrDelayed);
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
                        return Ok(Reason::Sync);
                    }
                    return Err(KeepRule::SyncTooSoon);
                }
            }
        }
        match self.eevdf_pick_preempts(c, se, p, !short, short) {
            Ok(r) => {
                if short {
                    self.cancel_protect_slice(c, se);
                }
                Ok(r)
            }
            Err(keep) => {
                if self.has(Feature::RunToParity) {
                    self.update_protect_slice(c, se);
                }
                Err(keep)
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

    /// How much CPU time (ns) curr must be charged beyond its `exec_start` for an
    /// `update_curr` to reschedule it: until its vruntime reaches its deadline or, from 6.17,
    /// the end of its slice protection (`vprot`), whichever comes first (0: already there);
    /// `None` where `update_curr` does not reschedule (CFS, or curr alone).
    pub fn clock_read_charge(&self, c: &Ctx) -> Option<u64> {
        let cu = c.rq.curr?;
        if !self.eevdf() || c.rq.nr_running <= 1 {
            return None;
        }
        let e = &c.ents[cu];
        // 6.12: with its protection cancelled (vlag ≠ deadline), `did_preempt_short`
        // reschedules it once it is no longer eligible, which moves with V: read at once (the
        // engine then reads once per `CLOCK_READ_NS`).
        if self.sw.deadline_tree && !self.v619() && e.vlag != e.deadline {
            return Some(0);
        }
        let mut end = e.deadline;
        if self.v619() && e.vprot.wrapping_sub(end) < 0 {
            end = e.vprot;
        }
        let left = end.wrapping_sub(e.vruntime);
        if left <= 0 {
            return Some(0);
        }
        // calc_delta_fair's inverse: CPU time = virtual time × weight / NICE_0_LOAD.
        let w = u128::from(e.load.weight.max(1));
        Some(((left as u128 * w).div_ceil(u128::from(crate::weight::NICE_0_LOAD))) as u64)
    }

    /// Whether `hrtick_update` re-arms after an enqueue or dequeue.
    pub fn hrtick_update_allowed(&self, c: &Ctx) -> bool {
        self.eevdf() || (c.rq.nr_running as u64) < self.p.nr_latency
    }
}
