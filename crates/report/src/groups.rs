//! CPU share per task group: what each cgroup (the root, each listed cgroup, each autogroup
//! session) got of the machine over a run, and the `cpu.stat` of the groups with `cpu.max`.
//!
//! A group's CPU time is the `sum_exec_runtime` of every task in it or in a group below it, as
//! the cgroup's `cpu.stat` `usage_usec` counts it (`cpuacct_charge` charges every level of the
//! hierarchy); the root's is therefore every task's. Its share is that time over the machine's
//! CPU time, online CPUs × the run's length, so a busy group on one of two CPUs shows 50 %.
//!
//! A scenario without groups (the engine's [`Cgroups`] is empty) has no rows: every report of a
//! flat scenario is what it was before groups existed.

use std::fmt::Write as _;

use schedlab_sim::cgroup::Cgroups;
use schedlab_sim::{BandwidthStats, Output, Trace};

use crate::latency::LatencyRow;

/// One group's CPU time over a run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GroupShare {
    /// The group's path (`/`, `/db`, `/db/replica`, `/autogroup-2`).
    pub path: String,
    /// Tasks in the group or below it.
    pub tasks: u32,
    /// Their CPU time (`sum_exec_runtime`), ns: the group's `cpu.stat` `usage_usec` × 1000.
    pub runtime_ns: u64,
    /// `runtime_ns` over the machine's CPU time (CPUs × the run's length), 0..=1.
    pub share: f64,
    /// The group's `cpu.stat` throttling counters, when it has a `cpu.max` limit.
    #[cfg_attr(feature = "serde", serde(default))]
    pub cpu_stat: Option<BandwidthStats>,
}

/// The path of each task's group, by pid − 1 (empty without groups).
pub fn task_group_paths(cgroups: &Cgroups) -> Vec<String> {
    if cgroups.groups.is_empty() {
        return vec![];
    }
    cgroups
        .task_group
        .iter()
        .map(|&g| {
            cgroups
                .groups
                .get(g as usize)
                .map_or_else(|| "/".to_string(), |x| x.path.clone())
        })
        .collect()
}

/// Each group's CPU time in `out`, in the hierarchy's order (the root first, a parent before
/// its children); empty without groups.
pub fn group_shares(cgroups: &Cgroups, out: &Output) -> Vec<GroupShare> {
    let n = cgroups.groups.len();
    if n == 0 {
        return vec![];
    }
    let mut tasks = vec![0u32; n];
    let mut runtime = vec![0u64; n];
    for (i, &g) in cgroups.task_group.iter().enumerate() {
        let ran = out.tasks.get(i).map_or(0, |t| t.sum_exec_runtime_ns);
        // Charge the task's group and every group above it; a parent always has a smaller
        // index than its child, so the walk ends at the root within `n` steps.
        let mut g = g as usize;
        for _ in 0..n {
            if g >= n {
                break;
            }
            tasks[g] += 1;
            runtime[g] += ran;
            if g == 0 {
                break;
            }
            g = cgroups.groups[g].parent as usize;
        }
    }
    let machine_ns = out.trace.cpus as u64 * out.trace.end_ns;
    cgroups
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| GroupShare {
            path: g.path.clone(),
            tasks: tasks[i],
            runtime_ns: runtime[i],
            share: if machine_ns == 0 {
                0.0
            } else {
                runtime[i] as f64 / machine_ns as f64
            },
            cpu_stat: out.bandwidth.iter().find(|b| b.path == g.path).cloned(),
        })
        .collect()
}

/// The group column of a latency row: its task's group, or for a row merged by name the group
/// its threads share (`*` when they are in different groups).
pub fn row_group(paths: &[String], trace: &Trace, row: &LatencyRow) -> String {
    let of = |pid: u32| {
        paths
            .get((pid as usize).wrapping_sub(1))
            .map_or("/", |p| p.as_str())
    };
    if row.threads <= 1 {
        return of(row.pid).to_string();
    }
    let mut found: Option<&str> = None;
    for t in trace.tasks.iter().filter(|t| t.comm == row.comm) {
        match found {
            None => found = Some(of(t.pid)),
            Some(p) if p != of(t.pid) => return "*".to_string(),
            Some(_) => {}
        }
    }
    found.unwrap_or("/").to_string()
}

/// The group column of each row (see [`row_group`]); empty without groups, so that the tables
/// print without the column.
pub fn row_groups(paths: &[String], trace: &Trace, rows: &[LatencyRow]) -> Vec<String> {
    if paths.is_empty() {
        return vec![];
    }
    rows.iter().map(|r| row_group(paths, trace, r)).collect()
}

/// A share (0..=1) as a percentage with one decimal, `%.1f%%` as glibc rounds it: `25.0%`.
pub fn share_text(share: f64) -> String {
    format!("{}%", crate::cfmt::c_fixed(share * 100.0, 1))
}

/// `ns` as `%.3f` ms.
fn ms(ns: u64) -> String {
    crate::cfmt::ms3(ns)
}

/// The group shares as the command line prints them (empty without groups):
///
/// ```text
///   group shares:
///     group                  tasks   cpu time ms    share
///     /                          2      1997.405    99.9%
///     /web                       1       499.250    25.0%
/// ```
pub fn format_group_shares(groups: &[GroupShare]) -> String {
    if groups.is_empty() {
        return String::new();
    }
    let w = groups
        .iter()
        .map(|g| g.path.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let mut s = String::from("  group shares:\n");
    let _ = writeln!(
        s,
        "    {:<w$}  {:>5}  {:>12}  {:>7}",
        "group", "tasks", "cpu time ms", "share"
    );
    for g in groups {
        let _ = writeln!(
            s,
            "    {:<w$}  {:>5}  {:>12}  {:>7}",
            g.path,
            g.tasks,
            ms(g.runtime_ns),
            share_text(g.share)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_sim::cgroup::Group;
    use schedlab_sim::{TaskInfo, TaskStats};

    fn group(path: &str, parent: u32) -> Group {
        Group {
            path: path.into(),
            parent,
            shares: 1024,
            idle: false,
            bandwidth: None,
        }
    }

    fn output(cpus: u32, end_ns: u64, runtimes: &[u64]) -> Output {
        Output {
            variant: "v".into(),
            trace: Trace {
                cpus,
                end_ns,
                tasks: (1..=runtimes.len() as u32)
                    .map(|pid| TaskInfo {
                        pid,
                        comm: format!("t{pid}"),
                        group: None,
                    })
                    .collect(),
                ..Default::default()
            },
            trace_counts: Default::default(),
            tasks: runtimes
                .iter()
                .map(|&r| {
                    let mut t = TaskStats::default();
                    t.sum_exec_runtime_ns = r;
                    t
                })
                .collect(),
            cpus: vec![],
            events_processed: 0,
            deadlock: None,
            bandwidth: vec![BandwidthStats {
                path: "/a/b".into(),
                nr_periods: 3,
                ..Default::default()
            }],
        }
    }

    #[test]
    fn a_group_is_charged_for_its_children_and_the_root_for_everything() {
        let c = Cgroups {
            groups: vec![
                group("/", 0),
                group("/a", 0),
                group("/a/b", 1),
                group("/c", 0),
            ],
            task_group: vec![2, 1, 3, 0],
        };
        // Two CPUs for 100 ns: 200 ns of machine time.
        let g = group_shares(&c, &output(2, 100, &[10, 20, 30, 40]));
        let got: Vec<(&str, u32, u64)> = g
            .iter()
            .map(|x| (x.path.as_str(), x.tasks, x.runtime_ns))
            .collect();
        assert_eq!(
            got,
            [("/", 4, 100), ("/a", 2, 30), ("/a/b", 1, 10), ("/c", 1, 30)]
        );
        assert_eq!(g[0].share, 0.5);
        assert_eq!(g[1].share, 0.15);
        assert_eq!(g[2].cpu_stat.as_ref().map(|s| s.nr_periods), Some(3));
        assert!(g[1].cpu_stat.is_none());
    }

    #[test]
    fn no_groups_no_rows() {
        let c = Cgroups::default();
        assert!(group_shares(&c, &output(1, 100, &[10])).is_empty());
        assert!(task_group_paths(&c).is_empty());
        assert_eq!(format_group_shares(&[]), "");
    }

    #[test]
    fn merged_rows_name_their_common_group() {
        let c = Cgroups {
            groups: vec![group("/", 0), group("/a", 0)],
            task_group: vec![1, 1, 0],
        };
        let paths = task_group_paths(&c);
        let mut o = output(1, 100, &[1, 1, 1]);
        o.trace.tasks[1].comm = "t1".into();
        let row = |pid, threads, comm: &str| LatencyRow {
            comm: comm.into(),
            pid,
            threads,
            runtime_ns: 0,
            count: 1,
            delay_sum_ns: 0,
            delay_max_ns: 0,
            max_start_ns: 0,
            max_end_ns: 0,
        };
        assert_eq!(row_group(&paths, &o.trace, &row(2, 2, "t1")), "/a");
        assert_eq!(row_group(&paths, &o.trace, &row(3, 1, "t3")), "/");
        o.trace.tasks[2].comm = "t1".into();
        assert_eq!(row_group(&paths, &o.trace, &row(3, 3, "t1")), "*");
    }
}
