//! Picking the next task (`kernel/sched/fair.c`):
//! - `pick_next_task_fair` (the group path: curr stays visible to the pick), restarting after
//!   a delayed entity is dequeued for good (6.12+);
//! - CFS `pick_next_entity` with the next and last buddies (6.1);
//! - EEVDF `pick_eevdf` / `__pick_eevdf` with RUN_TO_PARITY (6.6–6.16: the vlag marker;
//!   6.17+: `vprot`), NEXT_BUDDY (6.6–6.12) and PICK_BUDDY (6.19);
//! - `put_prev_entity`, `set_next_entity`;
//! - 6.19's slice protection: `protect_slice`, `update_protect_slice`, `cancel_protect_slice`,
//!   `set_protect_slice`.

use crate::decision::PickRule;
use crate::variant::Feature;
use crate::weight::calc_delta_fair;

use super::{before, Ctx, Fair, Tid};

impl Fair {
    /// 6.19 `protect_slice`: vruntime < vprot.
    pub(super) fn protect_slice(&self, c: &Ctx, id: Tid) -> bool {
        c.ents[id].vprot.wrapping_sub(c.ents[id].vruntime) > 0
    }

    /// 6.19 `update_protect_slice`: vprot = min(vprot, vruntime + vslice(min queued slice)).
    pub(super) fn update_protect_slice(&self, c: &mut Ctx, id: Tid) {
        let s = self.min_slice(c);
        let e = &mut c.ents[id];
        let cand = e.vruntime.wrapping_add(calc_delta_fair(s, &e.load) as i64);
        if before(cand, e.vprot) {
            e.vprot = cand;
        }
    }

    /// 6.19 `cancel_protect_slice`.
    pub(super) fn cancel_protect_slice(&self, c: &mut Ctx, id: Tid) {
        if self.protect_slice(c, id) {
            c.ents[id].vprot = c.ents[id].vruntime;
        }
    }

    /// 6.19 `set_protect_slice`, from `set_next_entity` with the entity already out of the tree
    /// and no curr: the shortest slice of the *other* queued entities bounds the protection.
    pub(super) fn set_protect_slice(&self, c: &mut Ctx, id: Tid) {
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
    // Picking

    /// `pick_next_task_fair` (the group path: curr stays visible to the pick). Returns the task
    /// to run, possibly curr again, with the rule that chose it; `None` means idle. Delayed
    /// entities the pick selects are dequeued for good and the pick restarts (6.12+).
    pub fn pick_next(&self, c: &mut Ctx) -> Option<(Tid, PickRule)> {
        // Bounded: every restart removes a delayed entity.
        for _ in 0..=c.ents.len() {
            if c.rq.nr_running == 0 {
                return None;
            }
            if self.curr_on_rq(c).is_some() {
                self.update_curr(c);
            }
            let only = c.rq.nr_running == 1;
            let (se, rule) = if !self.eevdf() {
                self.cfs_pick(c)
            } else {
                let next = c.rq.next.filter(|&n| {
                    !self.v619() && self.has(Feature::NextBuddy) && self.entity_eligible(c, n)
                });
                match next {
                    Some(n) => (n, PickRule::NextBuddy),
                    None => self.pick_eevdf_why(c, true, false)?,
                }
            };
            if c.ents[se].sched_delayed {
                self.dequeue_entity(c, se, true, false, true);
                continue;
            }
            let rule = match rule {
                PickRule::NextBuddy | PickRule::LastBuddy => rule,
                _ if only => PickRule::Only,
                _ => rule,
            };
            return Some((se, rule));
        }
        None
    }

    /// The function whose rule the pick follows, with the version.
    pub fn pick_func(&self) -> &'static str {
        if !self.eevdf() {
            "pick_next_entity (CFS)"
        } else if self.v619() {
            "pick_eevdf (6.19)"
        } else if self.sw.deadline_tree {
            "pick_eevdf (6.12)"
        } else {
            "pick_eevdf (6.6)"
        }
    }

    /// CFS `pick_next_entity(cfs_rq, curr)` with the next and last buddies (6.1). The skip buddy
    /// is only set by `sched_yield`, which programs do not call.
    pub(super) fn cfs_pick(&self, c: &Ctx) -> (Tid, PickRule) {
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
                return (n, PickRule::NextBuddy);
            }
        }
        if let Some(l) = c.rq.last {
            if self.wakeup_preempt_entity(c, l, left) < 1 {
                return (l, PickRule::LastBuddy);
            }
        }
        (left, PickRule::Leftmost)
    }

    /// `pick_eevdf` / `__pick_eevdf(cfs_rq, protect)`: the eligible entity with the earliest
    /// deadline, curr included while it is queued and eligible; with the rule that chose it.
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
    pub(super) fn pick_eevdf_why(
        &self,
        c: &mut Ctx,
        protect: bool,
        wake: bool,
    ) -> Option<(Tid, PickRule)> {
        let curr_q = self.curr_on_rq(c);
        if self.sw.deadline_tree && c.rq.nr_running == 1 {
            return curr_q
                .or_else(|| self.leftmost(c))
                .map(|t| (t, PickRule::Only));
        }
        let avg = self.avg(c);
        if self.v619() && self.has(Feature::PickBuddy) {
            if let Some(n) = c.rq.next {
                if avg.eligible(c.ents[n].vruntime) {
                    return Some((n, PickRule::NextBuddy));
                }
            }
        }
        // "if (curr && (!curr->on_rq || !entity_eligible(cfs_rq, curr)))": Chen Yu's
        // `curr_noeli` counts a curr set aside for either reason.
        let mut curr = curr_q;
        if let Some(cu) = curr {
            if !avg.eligible(c.ents[cu].vruntime) {
                curr = None;
                if wake {
                    c.rq.stats.curr_noeli_preempt_count += 1;
                }
            }
        } else if wake && c.rq.curr.is_some() {
            c.rq.stats.curr_noeli_preempt_count += 1;
        }
        if let Some(cu) = curr {
            if wake && self.has(Feature::WakeupParity) {
                return Some((cu, PickRule::WakeupParity));
            }
            let protected = if self.v619() {
                protect && self.protect_slice(c, cu)
            } else {
                self.has(Feature::RunToParity) && c.ents[cu].vlag == c.ents[cu].deadline
            };
            if protected {
                return Some((cu, PickRule::Protected));
            }
        }
        // The tree's own search: the first eligible in deadline order (6.8+), or the eligible
        // entity with the earliest (deadline, vruntime, insertion) in vruntime order (6.6).
        let best = if self.sw.deadline_tree {
            c.rq.tree.first_eligible(|v| avg.eligible(v))
        } else {
            c.rq.tree.best_eligible(|v| avg.eligible(v))
        };
        let ed = PickRule::EarliestDeadline;
        match (curr, best) {
            (Some(cu), Some(b)) => {
                let (dc, db) = (c.ents[cu].deadline, c.ents[b].deadline);
                Some((if before(dc, db) { cu } else { b }, ed))
            }
            (Some(cu), None) => Some((cu, ed)),
            (None, Some(b)) => Some((b, ed)),
            // "EEVDF scheduling fail": cannot happen (V is a weighted mean), kernel falls back.
            (None, None) => self.leftmost(c).map(|t| (t, PickRule::Fallback)),
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
        debug_assert!(
            c.rq.curr.is_none(),
            "cpu {}: set_next_entity(task {}) while curr is set (put_prev_entity comes first)",
            c.cpu,
            id + 1
        );
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
        debug_assert!(
            !c.rq.tree.contains(&id),
            "cpu {}: task {} becomes curr while in the tree (curr is kept out of the tree)",
            c.cpu,
            id + 1
        );
        c.rq.curr = Some(id);
        c.rq.seq += 1;
        c.ents[id].mru = c.rq.seq;
        let e = &mut c.ents[id];
        e.exec_start = c.clock_task;
        e.prev_sum_exec_runtime = e.sum_exec_runtime;
    }
}
