//! `reweight_entity`: a queued task's weight changes (the model's group scheduling gives tasks
//! their hierarchical weight, see `engine/group.rs`).
//!
//! CFS (5.14, 6.1): the vruntime stays, only the queue's load changes. EEVDF (6.6+): the lag and
//! the relative deadline scale by old/new weight and the entity is placed again, as 6.12's
//! `reweight_entity` does (`vlag = vlag·w_old/w_new`, `deadline = deadline·w_old/w_new` relative
//! to its vruntime, then `place_entity`).
//!
//! DEVIATION(kernel): 6.6's `reweight_eevdf` computes the new vruntime and deadline from V
//! directly; the model uses the 6.12 form for every EEVDF version (the two agree up to
//! rounding when the lag is not clamped).

use crate::weight::LoadWeight;

use super::{Ctx, Fair, Tid};

impl Fair {
    /// Gives task `id` the weight `load`, queued or not.
    pub fn reweight(&self, c: &mut Ctx, id: Tid, load: LoadWeight) {
        if !c.ents[id].on_rq {
            c.ents[id].load = load;
            return;
        }
        self.update_curr(c);
        let is_curr = c.rq.curr == Some(id);
        if !is_curr {
            self.tree_remove(c, id);
        }
        let old = c.ents[id].w();
        if self.eevdf() {
            self.update_entity_lag(c, id);
        }
        c.rq.load -= c.ents[id].load.weight;
        c.ents[id].load = load;
        c.rq.load += load.weight;
        if self.eevdf() {
            let new = c.ents[id].w().max(1);
            let e = &mut c.ents[id];
            e.vlag = e.vlag.wrapping_mul(old) / new;
            if !e.rel_deadline {
                e.deadline = e.deadline.wrapping_sub(e.vruntime);
                e.rel_deadline = true;
            }
            e.deadline = e.deadline.wrapping_mul(old) / new;
            // place_entity sees the queue without this entity (nr_running as requeue does).
            c.rq.nr_running -= 1;
            self.eevdf_place_why(c, id, false, crate::decision::Enqueue::Reweight);
            c.rq.nr_running += 1;
            // The relative deadline only applies where PLACE_REL_DEADLINE exists; elsewhere
            // place_entity gave it a fresh one and the marker is dropped.
            c.ents[id].rel_deadline = false;
        }
        if !is_curr {
            self.tree_insert(c, id);
        }
    }

    /// Changes the units task `id`'s vruntime is kept in, from its weight to `load`'s (the
    /// flat queue passing from one group's cfs_rq to the root's or back, `engine/group.rs`):
    /// its distance from the queue's reference (CFS: `min_vruntime`) scales by old/new
    /// weight, as EEVDF's lag does in [`Fair::reweight`]. Not a kernel event.
    pub fn rescale(&self, c: &mut Ctx, id: Tid, load: LoadWeight) {
        if c.ents[id].on_rq && !self.eevdf() {
            let old = c.ents[id].load.weight as i128;
            let new = (load.weight as i128).max(1);
            let is_curr = c.rq.curr == Some(id);
            self.update_curr(c);
            if !is_curr {
                self.tree_remove(c, id);
            }
            let m = c.rq.min_vruntime;
            let d = c.ents[id].vruntime.wrapping_sub(m) as i128;
            c.ents[id].vruntime = m.wrapping_add((d * old / new) as i64);
            if !is_curr {
                self.tree_insert(c, id);
            }
        }
        self.reweight(c, id, load);
    }
}
