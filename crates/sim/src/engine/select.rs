//! Wakeup and fork placement (`kernel/sched/fair.c`):
//! - `select_task_rq_fair` with `record_wakee`/`wake_wide`, `wake_affine` (`wake_affine_idle`,
//!   `wake_affine_weight` with WA_BIAS) and `select_idle_sibling` (target, prev, a per-CPU
//!   kthread's wakee stacked on prev, `recent_used_cpu`, an idle core, an idle SMT sibling, a
//!   scan of the LLC);
//! - the fork slow path `find_idlest_cpu` (`sched_balance_find_dst_cpu` since 6.10);
//! - `available_idle_cpu`, `sched_idle_cpu`.
//!
//! To the scope of reference §6.5. Loads are PELT averages (`cpu_load`, `task_h_load` in
//! load.rs), read as the kernel reads them: as last updated, so a sleeping wakee's load is
//! the one it had when it blocked.

use crate::decision::{Affine, SelectPath, Sis};
use crate::fair::Tid;
use crate::variant::Feature;

use super::balance::{group_classify, GroupStats, GroupType, CAPACITY};
use super::topology::{affine_domain, Domain};
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

    /// `record_wakee`: the waker counts how often it switches wakee; flips halve at most once
    /// a second, at the waker's next wakeup (a stamp inherited from the launcher is older).
    pub(super) fn record_wakee(&mut self, waker: Tid, wakee: Tid) {
        let now = self.now;
        let t = &mut self.tasks[waker];
        if t.wakee_flip_decay_ns
            .is_none_or(|d| now > d + 1_000_000_000)
        {
            t.wakee_flips >>= 1;
            t.wakee_flip_decay_ns = Some(now);
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
        !(slave < factor || u64::from(master) < u64::from(slave) * u64::from(factor))
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
        let mut flips = [0, 0];
        // `record_wakee` and `wake_wide` read `current`: in an interrupt (a timer, a device's
        // completion) that is the task the interrupt came in on, whose flips count the wakee
        // as if it had woken it. On an idle CPU it is the idle task, whose flips are not
        // modelled (it then neither records nor affects the choice).
        let current = waker.or_else(|| {
            self.rt_curr(waker_cpu)
                .or(self.cpus[waker_cpu as usize].rq.curr)
        });
        if let Some(w) = current {
            self.record_wakee(w, id);
            flips = [self.tasks[w].wakee_flips, self.tasks[id].wakee_flips];
            wide = self.wake_wide(w, id);
            want_affine = !wide && self.allowed(id, waker_cpu);
        }
        let mut target = prev;
        let mut affine = if want_affine {
            Affine::SameCpu
        } else {
            Affine::NotWanted
        };
        let mut eff_load = None;
        if want_affine && waker_cpu != prev {
            // The first domain of the waker's CPU with SD_WAKE_AFFINE spanning prev: every
            // level here has it.
            let (doms, n) = self.domains(waker_cpu);
            if let Some(sd) = affine_domain(&doms[..n], prev) {
                (target, affine, eff_load) =
                    self.wake_affine(sd.imbalance_pct, id, waker_cpu, prev, sync, waker);
            }
        }
        let (cpu, sis) = self.select_idle_sibling(id, prev, target, waker, waker_cpu);
        let path = SelectPath::Wakeup {
            wide,
            sync,
            affine,
            target,
            sis,
            flips,
            eff_load,
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
    ) -> (u32, Affine, Option<[i64; 2]>) {
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
        let mut eff = None;
        if target.is_none() && v.has(Feature::WaWeight) {
            (target, eff) = self.wake_affine_weight(sd_pct, id, this, prev, sync, waker);
            if target.is_some() {
                how = Affine::Weight;
            }
        }
        match target {
            Some(t) if t == this => (this, how, eff),
            _ => (prev, how, eff),
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

    /// `wake_affine_weight`, with PELT loads and equal CPU capacities; with the
    /// `this_eff_load` and `prev_eff_load` it compared (none when a sync waker's own load
    /// outweighed its CPU's).
    pub(super) fn wake_affine_weight(
        &self,
        sd_pct: u64,
        id: Tid,
        this: u32,
        prev: u32,
        sync: bool,
        waker: Option<Tid>,
    ) -> (Option<u32>, Option<[i64; 2]>) {
        let mut this_eff = self.cpu_load(this);
        if sync {
            if let Some(w) = waker {
                let current = self.task_load(w);
                if current > this_eff {
                    return (Some(this), None);
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
        (
            (this_eff < prev_eff).then_some(this),
            Some([this_eff, prev_eff]),
        )
    }

    /// `select_idle_sibling`: an idle CPU near `target`, else `target`. With SIS_UTIL the scan
    /// of the LLC (`select_idle_cpu`) looks at no more than the LLC's `nr_idle_scan` CPUs the
    /// task may use, and at none (not even for an idle core) when that is 0; an idle SMT
    /// sibling of prev, looked at when the LLC has no idle core, comes before that scan and
    /// whatever its limit.
    pub(super) fn select_idle_sibling(
        &mut self,
        id: Tid,
        prev: u32,
        target: u32,
        waker: Option<Tid>,
        waker_cpu: u32,
    ) -> (u32, Sis) {
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
        // A per-CPU kthread (`is_per_cpu_kthread(current)`, in task context: a waker) that wakes
        // a task whose previous CPU is its own, with nothing else on it (`nr_running <= 1`):
        // the wakee queued work for it that is now done, as good as a sync wakeup, so it stacks
        // on prev (the kernel's example is an I/O completion). Before `recent_used_cpu`, which
        // it leaves as it was.
        if let Some(w) = waker {
            let t = &self.tasks[w];
            if t.kthread
                && t.affinity.len() == 1
                && prev == waker_cpu
                && self.cpus[waker_cpu as usize].rq.nr_running <= 1
                && self.rt_idle(waker_cpu)
                && self.allowed(id, prev)
            {
                return (prev, Sis::KthreadStack);
            }
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
        if smt > 1 {
            // "has_idle_core = test_idle_cores(target)": the LLC has a core whose siblings are
            // all idle (the kernel keeps it as a hint; the model knows it).
            let idle_core = scan.clone().find(|&cpu| {
                let core = cpu / smt * smt;
                cpu == core && (core..core + smt).all(|c| self.idle_cpu(c))
            });
            match idle_core {
                // select_idle_cpu's idle-core scan (none when SIS_UTIL's nr is 1).
                Some(core) if limit > 0 => {
                    if let Some(c) = (core..core + smt).find(|&c| self.allowed(id, c)) {
                        return (c, Sis::IdleCore);
                    }
                }
                Some(_) => {}
                // "if (!has_idle_core && cpus_share_cache(prev, target))
                // select_idle_smt(p, sd, prev)": before select_idle_cpu and not limited by
                // SIS_UTIL; an idle or SCHED_IDLE-only sibling of prev.
                None => {
                    if self.share_cache(prev, target) {
                        let core = prev / smt * smt;
                        if let Some(c) = (core..core + smt).find(|&c| {
                            c != prev && self.idle_or_sched_idle(c) && self.allowed(id, c)
                        }) {
                            return (c, Sis::IdleSmt);
                        }
                    }
                }
            }
        }
        for cpu in scan.clone().filter(|&c| self.allowed(id, c)).take(limit) {
            if self.idle_or_sched_idle(cpu) {
                return (cpu, Sis::Scan);
            }
        }
        // Whether the scan stopped at its limit before the LLC's allowed CPUs ran out.
        let cut =
            limit < self.llc as usize && limit < scan.filter(|&c| self.allowed(id, c)).count();
        if cut && self.allowed(id, target) {
            return (target, Sis::SisUtil(limit as u32));
        }
        if self.allowed(id, target) {
            (target, Sis::Busy)
        } else {
            (self.tasks[id].affinity[0], Sis::Fallback)
        }
    }

    /// `find_idlest_cpu` (`sched_balance_find_dst_cpu` since 6.10), the fork path of
    /// `select_task_rq_fair`: from the forking CPU's widest domain (every modelled level has
    /// SD_BALANCE_FORK) down, `find_idlest_group`, then `find_idlest_group_cpu` in it; moving
    /// to that CPU continues in its domains narrower than the one just searched, staying
    /// continues in the child domain. The forking CPU is the task's first allowed CPU (the
    /// model has no parent task). A task allowed on one CPU goes there (`select_task_rq`).
    pub(super) fn find_idlest_cpu(&self, id: Tid) -> (u32, SelectPath) {
        let aff = &self.tasks[id].affinity;
        if aff.len() == 1 || self.cfg.cpus == 1 {
            return (aff[0], SelectPath::OnlyCpu);
        }
        let mut cpu = self.tasks[id].cpu;
        let mut new_cpu = cpu;
        let (mut doms, n) = self.domains(cpu);
        let mut level = n.checked_sub(1);
        while let Some(l) = level {
            let group_size = if l == 0 { 1 } else { doms[l - 1].weight() };
            let Some(group) = self.find_idlest_group(&doms[l], group_size, id, cpu) else {
                level = l.checked_sub(1);
                continue;
            };
            new_cpu = self.find_idlest_group_cpu(group, id, cpu);
            if new_cpu == cpu {
                level = l.checked_sub(1);
                continue;
            }
            cpu = new_cpu;
            let weight = doms[l].weight();
            let (d, m) = self.domains(cpu);
            doms = d;
            level = (0..m).rev().find(|&k| doms[k].weight() < weight);
        }
        let idle = self.idle_or_sched_idle(new_cpu);
        (new_cpu, SelectPath::Fork { idle })
    }

    /// `update_sg_wakeup_stats` of the group `lo..hi` for a task not yet on any run queue
    /// (a fork: the `_without` variants reduce to `cpu_load`, `cpu_util_cfs`, `cpu_runnable`).
    fn wakeup_group_stats(&self, lo: u32, hi: u32, id: Tid, imbalance_pct: u64) -> GroupStats {
        let mut s = GroupStats {
            group_weight: (hi - lo) as u64,
            group_capacity: CAPACITY * (hi - lo) as u64,
            ..GroupStats::default()
        };
        for c in (lo..hi).filter(|&c| self.allowed(id, c)) {
            let cpu = &self.cpus[c as usize];
            s.group_load += self.cpu_load(c) as u64;
            s.group_util += cpu.avg.util_avg.min(CAPACITY);
            s.group_runnable += cpu.avg.runnable_avg;
            s.sum_nr_running += cpu.rq.nr_running as u64;
            s.sum_h_nr_running += self.nr_runnable(c) as u64;
            if cpu.rq.nr_running == 0 && self.idle_cpu(c) {
                s.idle_cpus += 1;
            }
        }
        s.group_type = group_classify(imbalance_pct, &s);
        if s.group_type >= GroupType::FullyBusy {
            s.avg_load = s.group_load * CAPACITY / s.group_capacity;
        }
        s
    }

    /// `find_idlest_group` (`sched_balance_find_dst_group`) in domain `d` whose groups are
    /// `group_size` CPUs wide: the idlest group other than the forking CPU's own
    /// (`update_pick_idlest`, which keeps the first of equals in `sd->groups` order: from the
    /// local group on, wrapping), and only if it is idler than the local group by the
    /// kernel's margins; `None` stays local.
    fn find_idlest_group(
        &self,
        d: &Domain,
        group_size: u32,
        id: Tid,
        this: u32,
    ) -> Option<(u32, u32)> {
        let mut idlest: Option<((u32, u32), GroupStats)> = None;
        let mut local: Option<GroupStats> = None;
        for (lo, hi) in d.groups_from(this, group_size) {
            if (lo..hi).any(|c| self.allowed(id, c)) {
                let sgs = self.wakeup_group_stats(lo, hi, id, d.imbalance_pct);
                if (lo..hi).contains(&this) {
                    local = Some(sgs);
                } else if idlest
                    .as_ref()
                    .is_none_or(|(_, best)| pick_idlest(best, &sgs))
                {
                    idlest = Some(((lo, hi), sgs));
                }
            }
        }
        let (group, idlest) = idlest?;
        let Some(local) = local else {
            return Some(group);
        };
        if local.group_type != idlest.group_type {
            return (local.group_type > idlest.group_type).then_some(group);
        }
        match local.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => {
                // imbalance = scale_load_down(NICE_0_LOAD) * (imbalance_pct - 100) / 100
                let imbalance = 1024 * (d.imbalance_pct - 100) / 100;
                if idlest.avg_load >= local.avg_load + imbalance
                    || 100 * local.avg_load <= d.imbalance_pct * idlest.avg_load
                {
                    return None;
                }
            }
            GroupType::HasSpare => {
                if local.idle_cpus >= idlest.idle_cpus {
                    return None;
                }
            }
        }
        Some(group)
    }

    /// `find_idlest_group_cpu` (`sched_balance_find_dst_group_cpu`): a single-CPU group's CPU;
    /// else the first CPU running only SCHED_IDLE tasks; else the most recently idled idle
    /// CPU (no idle states are modelled, so no exit latencies to compare); else the first
    /// least loaded (`cpu_load`) CPU, `this` when none is allowed.
    fn find_idlest_group_cpu(&self, (lo, hi): (u32, u32), id: Tid, this: u32) -> u32 {
        if hi - lo == 1 {
            return lo;
        }
        let mut shallowest: Option<(u64, u32)> = None;
        let mut least: Option<(i64, u32)> = None;
        for c in (lo..hi).filter(|&c| self.allowed(id, c)) {
            if self.sched_idle_cpu(c) {
                return c;
            }
            if self.idle_cpu(c) {
                let stamp = self.cpus[c as usize].idle_stamp;
                if shallowest.is_none_or(|(s, _)| stamp > s) {
                    shallowest = Some((stamp, c));
                }
            } else if shallowest.is_none() {
                let load = self.cpu_load(c);
                if least.is_none_or(|(l, _)| load < l) {
                    least = Some((load, c));
                }
            }
        }
        shallowest
            .map(|(_, c)| c)
            .or(least.map(|(_, c)| c))
            .unwrap_or(this)
    }
}

/// `update_pick_idlest`: whether the candidate `sgs` is idler than the idlest so far: a less
/// busy type; among overloaded or fully busy groups the lower `avg_load`; among groups with
/// spare capacity more idle CPUs, then the lower `group_util`.
fn pick_idlest(idlest: &GroupStats, sgs: &GroupStats) -> bool {
    if sgs.group_type != idlest.group_type {
        return sgs.group_type < idlest.group_type;
    }
    match sgs.group_type {
        GroupType::Overloaded | GroupType::FullyBusy => idlest.avg_load > sgs.avg_load,
        GroupType::HasSpare => {
            idlest.idle_cpus < sgs.idle_cpus
                || (idlest.idle_cpus == sgs.idle_cpus && idlest.group_util > sgs.group_util)
        }
    }
}
