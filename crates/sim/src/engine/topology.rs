//! Sched domains (`kernel/sched/topology.c`: `sd_init`, the degenerate-domain pruning of
//! `cpu_attach_domain`), for contiguous SMT siblings and LLCs: SMT, MC, PKG.
//!
//! No NUMA levels and no asymmetric capacities (DEVIATION(kernel), listed in ARCHITECTURE.md).

use super::Simulator;

/// The sched domains of `cpu` on `cpus` CPUs with `llc` CPUs per LLC and `smt` threads per core,
/// lowest first: SMT (siblings, `imbalance_pct` 110), MC (the LLC, 117), PKG (all CPUs, 117); a
/// level whose span equals its child's is degenerate and left out, as the kernel does.
pub(super) fn domains_of(cpu: u32, cpus: u32, llc: u32, smt: u32) -> ([Domain; 3], usize) {
    let mut out = [Domain {
        lo: 0,
        hi: 0,
        imbalance_pct: 0,
        cache_nice_tries: 0,
    }; 3];
    let mut n = 0;
    let mut push = |lo: u32, hi: u32, pct: u64, tries: u32| {
        if hi - lo > 1 && (n == 0 || out[n - 1].weight() != hi - lo) {
            out[n] = Domain {
                lo,
                hi,
                imbalance_pct: pct,
                cache_nice_tries: tries,
            };
            n += 1;
        }
    };
    let core = cpu / smt * smt;
    push(core, core + smt, 110, 0);
    let l = cpu / llc * llc;
    push(l, l + llc, 117, 1);
    push(0, cpus, 117, 1);
    (out, n)
}

/// `select_task_rq_fair`'s affine domain: the lowest domain of `this` that spans `prev`.
pub(super) fn affine_domain(doms: &[Domain], prev: u32) -> Option<&Domain> {
    doms.iter().find(|d| d.contains(prev))
}

/// One sched domain as seen from a CPU: the CPUs it spans (a contiguous range) and its
/// `sd_init` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Domain {
    pub(super) lo: u32,
    pub(super) hi: u32,
    pub(super) imbalance_pct: u64,
    pub(super) cache_nice_tries: u32,
}

impl Domain {
    pub(super) fn weight(&self) -> u32 {
        self.hi - self.lo
    }
    pub(super) fn contains(&self, cpu: u32) -> bool {
        (self.lo..self.hi).contains(&cpu)
    }

    /// The domain's groups of `group_size` CPUs in the order of `sd->groups` as
    /// `build_sched_groups` links them on `cpu`: `for_each_cpu_wrap(i, span, cpu)`, so the
    /// local group first, then the following groups, wrapping round to the domain's first.
    /// Loops that keep the first of equals (`update_pick_idlest`, `update_sd_pick_busiest`)
    /// break ties in this order.
    pub(super) fn groups_from(
        &self,
        cpu: u32,
        group_size: u32,
    ) -> impl Iterator<Item = (u32, u32)> {
        let n = self.weight() / group_size;
        let local = (cpu.clamp(self.lo, self.hi - 1) - self.lo) / group_size;
        let lo = self.lo;
        (0..n).map(move |k| {
            let g = lo + (local + k) % n * group_size;
            (g, g + group_size)
        })
    }
}

impl Simulator {
    /// The sched domains of `cpu`, lowest first (see [`domains_of`]).
    pub(super) fn domains(&self, cpu: u32) -> ([Domain; 3], usize) {
        domains_of(cpu, self.cfg.cpus, self.llc, self.cfg.smt)
    }

    /// `cpus_share_cache`: the same LLC.
    pub(super) fn share_cache(&self, a: u32, b: u32) -> bool {
        a / self.llc == b / self.llc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wake_affine_weight` biases by the affine domain's `imbalance_pct` (kernel/sched/fair.c:
    /// `select_task_rq_fair` passes the `tmp` domain it found to `wake_affine`): SMT's 110 for a
    /// sibling, MC's 117 for another core of the LLC, PKG's 117 across LLCs.
    #[test]
    fn the_affine_domain_is_the_lowest_spanning_both_cpus() {
        let (d, n) = domains_of(0, 16, 8, 2);
        assert_eq!(n, 3);
        let pct = |prev| affine_domain(&d[..n], prev).map(|d| d.imbalance_pct);
        assert_eq!(pct(1), Some(110));
        assert_eq!(pct(2), Some(117));
        assert_eq!(
            affine_domain(&d[..n], 2).map(|d| (d.lo, d.hi)),
            Some((0, 8))
        );
        assert_eq!(
            affine_domain(&d[..n], 9).map(|d| (d.lo, d.hi)),
            Some((0, 16))
        );
        // One LLC, no SMT: MC only (PKG is degenerate).
        let (d, n) = domains_of(3, 4, 4, 1);
        assert_eq!((n, d[0].lo, d[0].hi, d[0].imbalance_pct), (1, 0, 4, 117));
    }
}
