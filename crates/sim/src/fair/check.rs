//! The run queue's invariants, checked after every event by the property tests through
//! `Simulator::check_invariants`: curr is not in the tree, every tree member is on the run
//! queue, `nr_running` and `load` match what is queued, `min_vruntime` never goes back, and
//! under EEVDF the lags sum to zero (within the flooring of V).

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
