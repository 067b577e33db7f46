//! Group scheduling (`CONFIG_FAIR_GROUP_SCHED`) on a flat run queue.
//!
//! The kernel queues one group entity per group per CPU, each with its own `cfs_rq`, and picks
//! down the hierarchy. The model keeps one flat queue per CPU and gives every task in a group
//! its hierarchical effective weight, as `task_h_load` computes it for the load balancer: the
//! task's own weight scaled, at each level up to the root, by the group entity's weight over
//! the group's queued load on this CPU. The group entity's weight is `calc_group_shares`
//! (`update_cfs_group`), from the group's load here and `tg->load_avg`, which each CPU updates
//! through `update_tg_load_avg`'s 1/64 filter. A group with `cpu.idle = 1` has the weight
//! `WEIGHT_IDLEPRIO` and its tasks count as idle entities (`se_is_idle`).
//!
//! Where every queued task on a CPU is of one group, the root holds only that group's entity
//! and the flat queue stands for the group's cfs_rq: its tasks are picked with their own
//! weights, as without groups, and the hierarchical weights count only in the loads (PELT and
//! the root's `load.weight`, `Cpu::root_load`). A CPU passing between that state and a mixed
//! one rescales its tasks' vruntimes into the new units (`Fair::rescale`).
//!
//! DEVIATION(kernel): no group entities, so where tasks of several groups share a CPU there
//! is no per-group vruntime, slice, placement or pick: the share of CPU time between groups
//! follows from the weights, but the order within a period is that of a flat queue of the
//! same effective weights. A group's load on a CPU is
//! its queued weight (`cfs_rq->load.weight`), not the PELT average the kernel takes the
//! larger of; `tg->load_avg` is updated at every group update (the kernel's 6.7+ rate limit
//! of once per ms is not modelled).
//!
//! With no task outside the root group (the default) none of this runs.

use alloc::vec;
use alloc::vec::Vec;

use super::Simulator;
use crate::config::SimConfig;
use crate::weight::LoadWeight;

/// The per-group state the kernel keeps in `struct task_group` and the group `cfs_rq`s.
#[derive(Default)]
pub(super) struct GroupState {
    /// `cfs_rq->tg_load_avg_contrib`, by group × CPU.
    contrib: Vec<u64>,
    /// `tg->load_avg`, by group.
    load_avg: Vec<u64>,
}

impl GroupState {
    pub(super) fn new(cfg: &SimConfig) -> GroupState {
        if !cfg.cgroups.active() {
            return GroupState::default();
        }
        let ng = cfg.cgroups.groups.len();
        GroupState {
            contrib: vec![0; ng * cfg.cpus as usize],
            load_avg: vec![0; ng],
        }
    }
}

impl Simulator {
    /// Marks the tasks of idle groups as idle entities (at set-up, before anything is queued).
    pub(super) fn group_init(&mut self) {
        if !self.cfg.cgroups.active() {
            return;
        }
        for (id, &g) in self.cfg.cgroups.task_group.iter().enumerate() {
            self.ents[id].group_idle = self.cfg.cgroups.idle_path(g);
            self.ents[id].group = g;
        }
    }

    /// `update_cfs_group` for every group with tasks queued on `cpu`, bottom-up, then the
    /// queued tasks' effective weights (`reweight_entity` where one changed). `incoming` is a
    /// task about to be enqueued here: it counts as queued and gets its weight before its
    /// placement, which scales by it (START_DEBIT, the lag).
    pub(super) fn group_update(&mut self, cpu: u32, incoming: Option<super::Tid>) {
        if self.grp.load_avg.is_empty() {
            return;
        }
        // The tasks queued here (the run queue's tree and its curr) and the incoming one, in
        // pid order.
        let rq = &self.cpus[cpu as usize].rq;
        let mut here: Vec<super::Tid> = rq
            .tree
            .iter()
            .chain(rq.curr)
            .chain(incoming)
            .filter(|&id| {
                Some(id) == incoming || (self.tasks[id].cpu == cpu && self.ents[id].on_rq)
            })
            .collect();
        here.sort_unstable();
        here.dedup();
        let cg = &self.cfg.cgroups;
        let ng = cg.groups.len();
        let ncpu = self.cfg.cpus as usize;
        // cfs_rq->load.weight of each group on this CPU, user units.
        let mut load = vec![0u64; ng];
        for &id in &here {
            let g = cg.task_group[id];
            if g != 0 {
                load[g as usize] += crate::weight::scale_load_down(self.ents[id].own_weight);
            }
        }
        // Children come after their parents: walking backwards, a group's load is complete
        // (its own tasks plus its child entities) before its share goes to its parent.
        let mut share = vec![0u64; ng];
        for g in (1..ng).rev() {
            let k = g * ncpu + cpu as usize;
            let old = self.grp.contrib[k];
            let new = crate::cgroup::filtered_contrib(load[g], old);
            if new != old {
                self.grp.load_avg[g] = self.grp.load_avg[g] - old + new;
                self.grp.contrib[k] = new;
            }
            if load[g] == 0 {
                continue;
            }
            share[g] = crate::cgroup::calc_group_shares(
                cg.groups[g].shares,
                load[g],
                self.grp.load_avg[g],
                self.grp.contrib[k],
            );
            load[cg.groups[g].parent as usize] += share[g];
        }
        // One group alone on this CPU (every queued task in it): the root holds only its
        // group entity, so its tasks are picked among themselves with their own weights, as
        // on a CPU without groups; the hierarchical weights count only in the loads. With
        // tasks of several groups here, the flat queue picks by the hierarchical weights.
        let mut only: Option<u32> = None;
        let mut several = false;
        for &id in &here {
            let g = cg.task_group[id];
            match only {
                None => only = Some(g),
                Some(o) if o != g => several = true,
                _ => {}
            }
        }
        let alone = !several && only.is_some_and(|g| g != 0);
        let mut root_load = 0u64;
        for id in here {
            let g = self.cfg.cgroups.task_group[id];
            if g == 0 {
                root_load += self.ents[id].load.weight;
                continue;
            }
            let mut w = self.ents[id].own_weight as u128;
            let mut h = g as usize;
            while h != 0 {
                w = w * share[h] as u128 / load[h] as u128;
                h = self.cfg.cgroups.groups[h].parent as usize;
            }
            let w = (w as u64).max(crate::cgroup::MIN_SHARES);
            self.ents[id].h_weight = w;
            root_load += w;
            let pick = if alone { self.ents[id].own_weight } else { w };
            if pick != self.ents[id].load.weight {
                if alone != self.cpus[cpu as usize].group_alone {
                    self.with_rq(cpu, |f, c| f.rescale(c, id, LoadWeight::sum(pick)));
                } else {
                    self.with_rq(cpu, |f, c| f.reweight(c, id, LoadWeight::sum(pick)));
                }
            }
        }
        let c = &mut self.cpus[cpu as usize];
        c.root_load = Some(root_load);
        c.group_alone = alone;
    }
}
