//! Task groups (`CONFIG_FAIR_GROUP_SCHED`): the cgroup hierarchy as the engine sees it.
//!
//! The scenario crate turns `"cgroups"`, `"autogroup"` and the task groups' `"cgroup"` and
//! `"session"` keys into this. Group 0 is the root task group; a task in it is scheduled exactly
//! as without groups. An empty [`Cgroups`] (the default) is a flat machine: the engine does no
//! group work at all, so every run without groups is what it was before groups existed.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// `MIN_SHARES`: the smallest weight a group entity gets (`calc_group_shares`' clamp).
pub const MIN_SHARES: u64 = 2;
/// `MAX_SHARES`: the largest `cpu.shares` (`1 << 18`).
pub const MAX_SHARES: u64 = 1 << 18;

/// One task group (`struct task_group`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its path (`/db`, `/autogroup-3`); the root is `/`.
    pub path: String,
    /// Index of its parent group (the root's is 0, itself).
    pub parent: u32,
    /// `tg->shares` in user units (`scale_load_down`): `cpu.weight` 100 = 1024. An idle group
    /// has `WEIGHT_IDLEPRIO` (3), as `sched_group_set_idle` gives it.
    pub shares: u64,
    /// `cpu.idle = 1`: its entity is `se_is_idle`.
    pub idle: bool,
}

/// The hierarchy and which group each task is in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cgroups {
    /// Groups, the root first; a parent always comes before its children.
    pub groups: Vec<Group>,
    /// The group of each task, by task index (empty: every task in the root, no groups).
    pub task_group: Vec<u32>,
}

impl Cgroups {
    /// Whether any task is outside the root group (else the engine does no group work).
    pub fn active(&self) -> bool {
        self.task_group.iter().any(|&g| g != 0)
    }

    /// The hierarchy's invariants; `tasks` is the number of tasks of the config.
    pub fn check(&self, tasks: usize) -> Result<(), String> {
        if self.task_group.is_empty() {
            return Ok(());
        }
        if self.task_group.len() != tasks {
            return Err(format!(
                "cgroups: {} task memberships for {tasks} tasks",
                self.task_group.len()
            ));
        }
        if self.groups.is_empty() {
            return Err("cgroups: the root group is missing".into());
        }
        for (i, g) in self.groups.iter().enumerate().skip(1) {
            if g.parent as usize >= i {
                return Err(format!("cgroups: group {} comes before its parent", g.path));
            }
            if !(MIN_SHARES..=MAX_SHARES).contains(&g.shares) {
                return Err(format!(
                    "cgroups: group {} has shares {} (allowed {MIN_SHARES}..={MAX_SHARES})",
                    g.path, g.shares
                ));
            }
        }
        if let Some(&g) = self
            .task_group
            .iter()
            .find(|&&g| g as usize >= self.groups.len())
        {
            return Err(format!(
                "cgroups: a task is in group {g}, which does not exist"
            ));
        }
        Ok(())
    }

    /// Whether a task in group `g` counts as idle (`se_is_idle` of its group entity): any
    /// group on its path is idle.
    pub fn idle_path(&self, mut g: u32) -> bool {
        while g != 0 {
            let grp = &self.groups[g as usize];
            if grp.idle {
                return true;
            }
            g = grp.parent;
        }
        false
    }
}

/// `calc_group_shares`: a group's entity weight on one CPU, from the group's queued load there
/// (`load`), its `tg->load_avg` and this CPU's contribution to it, and `tg->shares`:
/// `tg_shares · load / (tg_load_avg − contrib + load)`, clamped to `MIN_SHARES..=tg_shares`.
pub fn calc_group_shares(tg_shares: u64, load: u64, tg_load_avg: u64, contrib: u64) -> u64 {
    let tg_weight = tg_load_avg.saturating_sub(contrib) + load;
    let shares = tg_shares.saturating_mul(load);
    // `if (tg_weight) shares /= tg_weight;`
    let shares = shares.checked_div(tg_weight).unwrap_or(shares);
    shares.clamp(MIN_SHARES, tg_shares.max(MIN_SHARES))
}

/// `update_tg_load_avg`'s filter: the CPU's contribution to `tg->load_avg` changes only when it
/// moved by more than 1/64 of itself. Returns the new contribution.
pub fn filtered_contrib(load: u64, contrib: u64) -> u64 {
    if load.abs_diff(contrib) > contrib / 64 {
        load
    } else {
        contrib
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_one_cpu_is_the_group_weight() {
        // One CPU: the CPU's load is the whole group's, so the entity gets tg->shares.
        assert_eq!(calc_group_shares(3072, 1024, 1024, 1024), 3072);
        assert_eq!(calc_group_shares(1024, 15, 15, 15), 1024);
    }

    #[test]
    fn shares_split_by_load_and_clamped() {
        // Two CPUs with 1024 each: half the shares on each.
        assert_eq!(calc_group_shares(1024, 1024, 2048, 1024), 512);
        // A tiny share is clamped up to MIN_SHARES.
        assert_eq!(calc_group_shares(3, 15, 100_000, 0), MIN_SHARES);
    }

    #[test]
    fn filter_ignores_small_changes() {
        assert_eq!(filtered_contrib(1040, 1024), 1024); // 16 = 1024/64: not more
        assert_eq!(filtered_contrib(1041, 1024), 1041);
        assert_eq!(filtered_contrib(0, 1024), 0);
        assert_eq!(filtered_contrib(5, 0), 5);
    }
}
