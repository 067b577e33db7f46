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
    /// `cpu.max` (bandwidth control, `tg->cfs_bandwidth`); `None`: "max", no limit.
    pub bandwidth: Option<Bandwidth>,
}

/// A group's CFS bandwidth (`cpu.max` "QUOTA PERIOD" and `cpu.max.burst`; cgroup v1
/// `cpu.cfs_quota_us`, `cpu.cfs_period_us`, `cpu.cfs_burst_us`), in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Bandwidth {
    /// Runtime per period (`cfs_b->quota`).
    pub quota_ns: u64,
    /// `cfs_b->period`.
    pub period_ns: u64,
    /// `cfs_b->burst`: unused quota a period may carry into the next, up to this.
    pub burst_ns: u64,
}

/// `min_cfs_quota_period`: the shortest period and quota (1 ms).
pub const MIN_CFS_QUOTA_NS: u64 = 1_000_000;
/// `max_cfs_quota_period`: the longest period (1 s).
pub const MAX_CFS_PERIOD_NS: u64 = 1_000_000_000;
/// `max_cfs_runtime`: the largest quota (and quota + burst), `MAX_BW` µs.
pub const MAX_CFS_RUNTIME_NS: u64 = ((1 << 44) - 1) * 1_000;

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

    /// Whether any group with a task in it (or below it) has a bandwidth limit.
    pub fn bandwidth_active(&self) -> bool {
        self.active() && self.groups.iter().any(|g| g.bandwidth.is_some())
    }

    /// The groups on `g`'s path to the root that have a bandwidth limit, innermost first.
    pub fn limited_path(&self, mut g: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while g != 0 {
            let grp = &self.groups[g as usize];
            if grp.bandwidth.is_some() {
                out.push(g);
            }
            g = grp.parent;
        }
        out
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
            if let Some(b) = g.bandwidth {
                if !(MIN_CFS_QUOTA_NS..=MAX_CFS_PERIOD_NS).contains(&b.period_ns) {
                    return Err(format!(
                        "cgroups: group {} has a period of {} ns (allowed {MIN_CFS_QUOTA_NS}..={MAX_CFS_PERIOD_NS})",
                        g.path, b.period_ns
                    ));
                }
                if b.quota_ns < MIN_CFS_QUOTA_NS
                    || b.burst_ns > b.quota_ns
                    || b.quota_ns + b.burst_ns > MAX_CFS_RUNTIME_NS
                {
                    return Err(format!(
                        "cgroups: group {} has quota {} ns and burst {} ns (quota at least {MIN_CFS_QUOTA_NS}, burst at most the quota, their sum at most {MAX_CFS_RUNTIME_NS})",
                        g.path, b.quota_ns, b.burst_ns
                    ));
                }
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
