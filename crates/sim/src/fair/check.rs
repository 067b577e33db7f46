//! The run queue's invariants, checked after every event by the property tests through
//! `Simulator::check_invariants`: curr is not in the tree, every tree member is on the run
//! queue, `nr_running`, `load` and the delayed count match what is queued, `min_vruntime`
//! never goes back, and under EEVDF the lags sum to zero (within the flooring of V).

use alloc::format;
use alloc::string::String;

use super::{before, Ctx, Fair};

impl Fair {
    /// Checks the runqueue's invariants; `Err` names the first one broken.
    pub fn check(&self, c: &Ctx, prev_min_vruntime: i64) -> Result<(), String> {
        if let Some(cu) = c.rq.curr {
            if c.rq.tree.contains(&cu) {
                return Err(format!("cpu {}: curr {} is in the tree", c.cpu, cu + 1));
            }
        }
        let mut nr = 0u32;
        let mut load = 0u64;
        let mut delayed = 0u32;
        c.rq.tree.check(|t| c.ents[t].keys())?;
        for t in c.rq.tree.iter() {
            if !c.ents[t].on_rq {
                return Err(format!(
                    "cpu {}: task {} in the tree but not on_rq",
                    c.cpu,
                    t + 1
                ));
            }
            nr += 1;
            load += c.ents[t].load.weight;
            delayed += u32::from(c.ents[t].sched_delayed);
        }
        if let Some(cu) = self.curr_on_rq(c) {
            nr += 1;
            load += c.ents[cu].load.weight;
            delayed += u32::from(c.ents[cu].sched_delayed);
        }
        if delayed != c.rq.nr_delayed {
            return Err(format!(
                "cpu {}: nr_delayed {} but {} delayed queued",
                c.cpu, c.rq.nr_delayed, delayed
            ));
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
        // The incremental sums against a recomputation from the tree (wrapping as they do).
        let (mut sum, mut w) = (0i64, 0i64);
        for t in c.rq.tree.iter() {
            let e = &c.ents[t];
            sum = sum.wrapping_add(
                e.vruntime
                    .wrapping_sub(c.rq.min_vruntime)
                    .wrapping_mul(e.w()),
            );
            w += e.w();
        }
        if (sum, w) != (c.rq.avg_vruntime, c.rq.avg_load) {
            return Err(format!(
                "cpu {}: avg_vruntime {} / avg_load {} but the tree sums to {} / {}",
                c.cpu, c.rq.avg_vruntime, c.rq.avg_load, sum, w
            ));
        }
        if self.eevdf() {
            // Σ w_i (V − v_i) = W·V − Σ w_i v_i lies in (−W, 0] because V is floored.
            let avg = self.avg(c);
            if avg.load > 0 {
                let (load, sum) = (avg.load as i128, avg.sum as i128);
                let s = load * (avg.v().wrapping_sub(avg.v0) as i128) - sum;
                if s > 0 || s <= -load {
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
