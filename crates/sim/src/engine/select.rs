//! Wakeup and fork placement (`kernel/sched/fair.c`):
//! - `select_task_rq_fair` with `record_wakee`/`wake_wide`, `wake_affine` (`wake_affine_idle`,
//!   `wake_affine_weight` with WA_BIAS) and `select_idle_sibling` (target, prev,
//!   `recent_used_cpu`, an idle core, an idle SMT sibling, a scan of the LLC);
//! - the fork slow path `find_idlest_cpu` (`sched_balance_find_dst_cpu` since 6.10);
//! - `available_idle_cpu`, `sched_idle_cpu`.
//!
//! To the scope of reference §6.5. Loads are PELT averages (`cpu_load`, `task_h_load` in
//! load.rs), read as the kernel reads them: as last updated, so a sleeping wakee's load is
//! the one it had when it blocked.

use alloc::vec::Vec;

use crate::decision::{Affine, SelectPath, Sis};
use crate::fair::Tid;
use crate::variant::Feature;

use super::topology::affine_domain;
use super::Simulator;

impl Simulator {
    /// `available_idle_cpu`: running the idle task with nothing queued.
    pub(super) fn idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.cpus[cpu as usize].rq;
        rq.curr.is_none() && rq.nr_running == 0 && self.rt_idle(cpu)
    }

    /// `sched_idle_cpu`: only SCHED_IDLE tasks queued.
    pub(super) fn sched_idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.cpus[cpu as usize].rq;
        rq.nr_running > 0 && rq.nr_running == rq.nr_idle
    }

    pub(super) fn idle_or_sched_idle(&self, cpu: u32) -> bool {
        self.idle_cpu(cpu) || self.sched_idle_cpu(cpu)
    }

    /// `record_wakee`: the waker counts how often it switches wakee; flips halve every second.
    pub(super) fn record_wakee(&mut self, waker: Tid, wakee: Tid) {
        let now = self.now;
        let t = &mut self.tasks[waker];
        if now > t.wakee_flip_decay_ns + 1_000_000_000 {
            t.wakee_flips >>= 1;
            t.wakee_flip_decay_ns = now;
        }
        if t.last_wakee != Some(wakee) {
            t.last_wakee = Some(wakee);
            t.wakee_flips += 1;
        }
    }

    /// `wake_wide`: a waker and wakee that both switch partners more than the LLC is wide
    /// should spread out rather than pull together.
    pub(super) fn wake_wide(&self, waker: Tid, wakee: Tid) -> bool {
        let mut master = self.tasks[waker].wakee_flips;
        let mut slave = self.tasks[wakee].wakee_flips;
        let factor = self.llc;
        if master < slave {
            core::mem::swap(&mut master, &mut slave);
        }
        !(slave < factor || master < slave * factor)
    }

    /// `select_task_rq_fair` for a wakeup (`select_task_rq` in core.c calls it), with the path
    /// it took (for the decision records).
    pub(super) fn select_task_rq_fair(
        &mut self,
        id: Tid,
        waker_cpu: u32,
        waker: Option<Tid>,
        sync: bool,
    ) -> (u32, SelectPath) {
        let prev = self.tasks[id].cpu;
        if self.cfg.cpus == 1 {
            return (prev, SelectPath::OnlyCpu);
        }
        let mut want_affine = false;
        let mut wide = false;
        if let Some(w) = waker {
            self.record_wakee(w, id);
            wide = self.wake_wide(w, id);
            want_affine = !wide && self.allowed(id, waker_cpu);
        }
        let mut target = prev;
        let mut affine = if want_affine {
            Affine::SameCpu
        } else {
            Affine::NotWanted
        };
        if want_affine && waker_cpu != prev {
            // The first domain of the waker's CPU with SD_WAKE_AFFINE spanning prev: every
            // level here has it.
            let (doms, n) = self.domains(waker_cpu);
            if let Some(sd) = affine_domain(&doms[..n], prev) {
                (target, affine) =
                    self.wake_affine(sd.imbalance_pct, id, waker_cpu, prev, sync, waker);
            }
        }
        let (cpu, sis) = self.select_idle_sibling(id, prev, target);
        let path = SelectPath::Wakeup {
            wide,
            sync,
            affine,
            target,
            sis,
        };
        (cpu, path)
    }

    /// `wake_affine` in the affine domain (the lowest spanning both CPUs, whose `imbalance_pct`
    /// is `sd_pct`): the waker's CPU or the wakee's previous one, and which test said so.
    pub(super) fn wake_affine(
        &self,
        sd_pct: u64,
        id: Tid,
        this: u32,
        prev: u32,
        sync: bool,
        waker: Option<Tid>,
    ) -> (u32, Affine) {
        let v = &self.fair.variant;
        let mut target = None;
        if v.has(Feature::WaIdle) {
            target = self.wake_affine_idle(this, prev, sync);
        }
        let mut how = match target {
            Some(t) if t == prev => Affine::IdlePrev,
            Some(_) if self.idle_cpu(this) => Affine::IdleThis,
            Some(_) => Affine::Sync,
            None => Affine::Prev,
        };
        if target.is_none() && v.has(Feature::WaWeight) {
            target = self.wake_affine_weight(sd_pct, id, this, prev, sync, waker);
            if target.is_some() {
                how = Affine::Weight;
            }
        }
        match target {
            Some(t) if t == this => (this, how),
            _ => (prev, how),
        }
    }

    /// `wake_affine_idle`.
    pub(super) fn wake_affine_idle(&self, this: u32, prev: u32, sync: bool) -> Option<u32> {
        if self.idle_cpu(this) && self.share_cache(this, prev) {
            return Some(if self.idle_cpu(prev) { prev } else { this });
        }
        if sync && self.cpus[this as usize].rq.nr_running == 1 {
            return Some(this);
        }
        if self.idle_cpu(prev) {
            return Some(prev);
        }
        None
    }

    /// `wake_affine_weight`, with PELT loads and equal CPU capacities.
    pub(super) fn wake_affine_weight(
        &self,
        sd_pct: u64,
        id: Tid,
        this: u32,
        prev: u32,
        sync: bool,
        waker: Option<Tid>,
    ) -> Option<u32> {
        let mut this_eff = self.cpu_load(this);
        if sync {
            if let Some(w) = waker {
                let current = self.task_load(w);
                if current > this_eff {
                    return Some(this);
                }
                this_eff -= current;
            }
        }
        let task = self.task_load(id);
        this_eff += task;
        let mut prev_eff = self.cpu_load(prev) - task;
        if self.fair.variant.has(Feature::WaBias) {
            let pct = sd_pct as i64;
            this_eff *= 100;
            prev_eff *= 100 + (pct - 100) / 2;
        }
        if sync {
            prev_eff += 1;
        }
        (this_eff < prev_eff).then_some(this)
    }

    /// `select_idle_sibling`: an idle CPU near `target`, else `target`. With SIS_UTIL the scan
    /// of the LLC (`select_idle_cpu`) looks at no more than the LLC's `nr_idle_scan` CPUs the
    /// task may use, and at none (not even for an idle core) when that is 0.
    pub(super) fn select_idle_sibling(&mut self, id: Tid, prev: u32, target: u32) -> (u32, Sis) {
        if self.idle_or_sched_idle(target) && self.allowed(id, target) {
            return (target, Sis::Target);
        }
        if prev != target
            && self.share_cache(prev, target)
            && self.idle_or_sched_idle(prev)
            && self.allowed(id, prev)
        {
            return (prev, Sis::Prev);
        }
        let recent = self.tasks[id].recent_used_cpu;
        self.tasks[id].recent_used_cpu = prev;
        if recent != prev
            && recent != target
            && self.share_cache(recent, target)
            && self.idle_or_sched_idle(recent)
            && self.allowed(id, recent)
        {
            return (recent, Sis::Recent);
        }
        let llc = target / self.llc * self.llc;
        let smt = self.cfg.smt;
        let scan = (1..=self.llc).map(|k| llc + (target - llc + k) % self.llc);
        // select_idle_cpu: nr = nr_idle_scan + 1, "if (nr == 1) return -1", then "if (!--nr)
        // return -1" before each CPU of the LLC's span & p->cpus_ptr.
        let limit = if self.fair.variant.has(Feature::SisUtil) {
            self.nr_idle_scan[(target / self.llc) as usize] as usize
        } else {
            usize::MAX
        };
        if smt > 1 && limit > 0 {
            // An idle core first (all siblings idle), then an idle SMT sibling of prev.
            for cpu in scan.clone() {
                let core = cpu / smt * smt;
                if cpu == core && (core..core + smt).all(|c| self.idle_cpu(c)) {
                    if let Some(c) = (core..core + smt).find(|&c| self.allowed(id, c)) {
                        return (c, Sis::IdleCore);
                    }
                }
            }
            if self.share_cache(prev, target) {
                let core = prev / smt * smt;
                if let Some(c) = (core..core + smt)
                    .find(|&c| c != prev && self.idle_cpu(c) && self.allowed(id, c))
                {
                    return (c, Sis::IdleSmt);
                }
            }
        }
        let allowed = scan.clone().filter(|&c| self.allowed(id, c)).count();
        for cpu in scan.filter(|&c| self.allowed(id, c)).take(limit) {
            if self.idle_or_sched_idle(cpu) {
                return (cpu, Sis::Scan);
            }
        }
        if limit < allowed && self.allowed(id, target) {
            return (target, Sis::SisUtil(limit as u32));
        }
        if self.allowed(id, target) {
            (target, Sis::Busy)
        } else {
            (self.tasks[id].affinity[0], Sis::Fallback)
        }
    }

    /// `find_idlest_cpu` (`sched_balance_find_dst_cpu` since 6.10), the fork/exec slow path,
    /// simplified: descend the domains
    /// from the widest, each time into the child group with the most idle CPUs (then the
    /// fewest queued tasks); in the last group take the most recently idled CPU, else the
    /// least loaded. Restricted to the task's affinity.
    pub(super) fn find_idlest_cpu(&self, id: Tid) -> (u32, SelectPath) {
        let aff = &self.tasks[id].affinity;
        if aff.len() == 1 || self.cfg.cpus == 1 {
            return (aff[0], SelectPath::OnlyCpu);
        }
        let groups = |lo: u32, hi: u32, size: u32| {
            (lo..hi).step_by(size as usize).map(move |g| (g, g + size))
        };
        let score = |lo: u32, hi: u32| {
            let cpus: Vec<u32> = (lo..hi).filter(|c| aff.contains(c)).collect();
            let idle = cpus.iter().filter(|&&c| self.idle_cpu(c)).count();
            let queued: u32 = cpus
                .iter()
                .map(|&c| self.cpus[c as usize].rq.nr_running)
                .sum();
            (cpus.is_empty(), core::cmp::Reverse(idle), queued, lo)
        };
        let (mut lo, mut hi) = (0, self.cfg.cpus);
        for size in [self.llc, self.cfg.smt] {
            if size >= hi - lo || size <= 1 {
                continue;
            }
            let best = groups(lo, hi, size).min_by_key(|&(a, b)| score(a, b));
            if let Some((a, b)) = best {
                lo = a;
                hi = b;
            }
        }
        let cands: Vec<u32> = (lo..hi).filter(|c| aff.contains(c)).collect();
        let cands = if cands.is_empty() { aff.clone() } else { cands };
        if let Some(&c) = cands
            .iter()
            .filter(|&&c| self.idle_cpu(c))
            .max_by_key(|&&c| (self.cpus[c as usize].idle_stamp, core::cmp::Reverse(c)))
        {
            return (c, SelectPath::Fork { idle: true });
        }
        let c = *cands
            .iter()
            .min_by_key(|&&c| (self.cpu_load(c), self.cpus[c as usize].rq.nr_running, c))
            .expect("affinity is non-empty");
        (c, SelectPath::Fork { idle: false })
    }
}
