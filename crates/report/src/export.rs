//! One report of a run for every front end: per variant the per-task `perf sched latency`
//! figures with the kernel's own counters, the per-CPU schedstat counters, and the comparison
//! summary; and its CSV and JSON forms.
//!
//! The command line builds a [`RunReport`] from its runs, the page builds it in its worker and
//! receives it with the results; both print it with [`csv`] and [`json`], so the same run gives
//! the same bytes in a terminal and in a download.

use std::fmt::Write as _;

use schedlab_scenario::Scenario;
use schedlab_sim::cgroup::Cgroups;
use schedlab_sim::{BandwidthStats, CpuStats, Output, TaskStats, Trace};

use crate::compare::VariantSummary;
use crate::csv_field;
use crate::figures::summaries;
use crate::groups::{group_shares, task_group_paths, GroupShare};
use crate::latency::{latency_rows, LatencyRow};

/// One task of one run: its perf latency row (per thread, not merged) and its counters.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TaskRecord {
    /// The `perf sched latency` figures of this thread (zero when it never ran or waited).
    pub row: LatencyRow,
    /// `/proc/<pid>/schedstat` and `status` counters.
    pub stats: TaskStats,
    /// Its task group's path, when the scenario has groups.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub group: Option<String>,
}

/// One variant's run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VariantReport {
    /// The variant string.
    pub variant: String,
    /// Events the engine processed.
    pub events: u64,
    /// Where the run ended (ns): the duration, or when the last task exited.
    pub end_ns: u64,
    /// Every task, by pid.
    pub tasks: Vec<TaskRecord>,
    /// Per CPU, its `/proc/schedstat` counters.
    pub cpus: Vec<CpuStats>,
    /// [`trace_hash`] of the run's trace: equal hashes, equal traces (native, wasm, any build).
    pub trace_hash: u64,
    /// The `cpu.stat` of each cgroup with a `cpu.max` limit (empty without one).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub bandwidth: Vec<BandwidthStats>,
    /// Each task group's CPU time and share of the machine (empty without groups).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub groups: Vec<GroupShare>,
    /// When the scenario is a preset's (its variants aside): each figure its source reports,
    /// with the source's value for this variant (if it gives one) and the model's.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub source_figures: Vec<SourceFigure>,
}

/// One figure a preset's source reports, for one variant (`crate::observed`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SourceFigure {
    /// Its key (`crate::observed::FIGURES`).
    pub figure: String,
    /// What it measures, with its unit.
    pub label: String,
    /// The source's value for this variant; none when the source gives none for it.
    pub source: Option<f64>,
    /// The model's value on this run; none when the run has nothing to measure it on.
    pub model: Option<f64>,
}

/// A 64-bit FNV-1a hash of a trace's events and end, the same on every platform: integers are
/// fed little-endian and `usize`/`isize` (enum discriminants) as 64 bits, so a native and a
/// wasm32 run of the same scenario, variant and seed hash alike exactly when they agree.
pub fn trace_hash(trace: &Trace) -> u64 {
    use std::hash::{Hash, Hasher};
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        fn write_u8(&mut self, i: u8) {
            self.write(&[i]);
        }
        fn write_u16(&mut self, i: u16) {
            self.write(&i.to_le_bytes());
        }
        fn write_u32(&mut self, i: u32) {
            self.write(&i.to_le_bytes());
        }
        fn write_u64(&mut self, i: u64) {
            self.write(&i.to_le_bytes());
        }
        fn write_usize(&mut self, i: usize) {
            self.write_u64(i as u64);
        }
        fn write_isize(&mut self, i: isize) {
            self.write_u64(i as i64 as u64);
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    trace.end_ns.hash(&mut h);
    for e in &trace.events {
        e.hash(&mut h);
    }
    h.finish()
}

/// A scenario's runs, one per variant, as every front end reports them.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunReport {
    /// The scenario's name.
    pub scenario: String,
    /// Online CPUs.
    pub cpus: u64,
    /// CONFIG_HZ.
    pub hz: u64,
    /// Simulated time asked for, ns.
    pub duration_ns: u64,
    /// The seed.
    pub seed: u64,
    /// Per variant, in order.
    pub variants: Vec<VariantReport>,
    /// The comparison figures, one per variant.
    pub summary: Vec<VariantSummary>,
}

impl RunReport {
    /// The report of `scenario`'s runs (`outs`, one per variant, in order).
    pub fn new(scenario: &Scenario, outs: &[Output]) -> RunReport {
        RunReport {
            scenario: scenario.name.clone(),
            cpus: scenario.cpus,
            hz: scenario.hz,
            duration_ns: scenario.duration_ns(),
            seed: scenario.seed,
            variants: {
                let cgroups = scenario.sim_config().cgroups;
                let paths = task_group_paths(&cgroups);
                let figures =
                    schedlab_scenario::presets::preset_of(scenario).map_or(&[][..], |p| p.figures);
                outs.iter()
                    .map(|o| {
                        let mut v = variant_report(o, &cgroups, &paths);
                        v.source_figures = source_figures(scenario, o, figures);
                        v
                    })
                    .collect()
            },
            summary: summaries(scenario, outs),
        }
    }
}

/// The figures of a preset's source for run `o` (empty when `figures` is).
fn source_figures(
    sc: &Scenario,
    o: &Output,
    figures: &[schedlab_scenario::presets::ThreadFigure],
) -> Vec<SourceFigure> {
    let model = crate::observed::model_values(sc, o, figures);
    figures
        .iter()
        .zip(model)
        .map(|(f, model)| SourceFigure {
            figure: f.key.to_string(),
            label: crate::observed::label(f.key).unwrap_or_default(),
            source: f
                .values
                .iter()
                .find(|(v, _)| *v == o.variant || *v == "*")
                .map(|&(_, x)| x),
            model,
        })
        .collect()
}

fn variant_report(r: &Output, cgroups: &Cgroups, paths: &[String]) -> VariantReport {
    let rows = latency_rows(&r.trace, false);
    let tasks = r
        .trace
        .tasks
        .iter()
        .map(|t| TaskRecord {
            row: rows
                .iter()
                .find(|x| x.pid == t.pid)
                .cloned()
                .unwrap_or(LatencyRow {
                    comm: t.comm.clone(),
                    pid: t.pid,
                    threads: 1,
                    runtime_ns: 0,
                    count: 0,
                    delay_sum_ns: 0,
                    delay_max_ns: 0,
                    max_start_ns: 0,
                    max_end_ns: 0,
                }),
            stats: r.tasks.get(t.pid as usize - 1).copied().unwrap_or_default(),
            group: paths.get(t.pid as usize - 1).cloned(),
        })
        .collect();
    VariantReport {
        variant: r.variant.clone(),
        events: r.events_processed,
        end_ns: r.trace.end_ns,
        tasks,
        cpus: r.cpus.clone(),
        trace_hash: trace_hash(&r.trace),
        bandwidth: r.bandwidth.clone(),
        groups: group_shares(cgroups, r),
        source_figures: vec![],
    }
}

fn cpu_value(cpu: usize, c: &CpuStats) -> serde_json::Value {
    serde_json::json!({
        "cpu": cpu,
        "sched_count": c.sched_count,
        "sched_goidle": c.sched_goidle,
        "ttwu_count": c.ttwu_count,
        "ttwu_local": c.ttwu_local,
        "rq_cpu_time_ns": c.rq_cpu_time_ns,
        "run_delay_ns": c.run_delay_ns,
        "pcount": c.pcount,
        "check_preempt_count": c.check_preempt_count,
        "need_preempt_count": c.need_preempt_count,
        "curr_noeli_preempt_count": c.curr_noeli_preempt_count,
        "curr_lowdl_preempt_count": c.curr_lowdl_preempt_count,
        "curr_lowgran_preempt_count": c.curr_lowgran_preempt_count,
        "curr_lownr_preempt_count": c.curr_lownr_preempt_count,
        "preempt_idle_curr": c.preempt_idle_curr,
        "preempt_wakeup_gran": c.preempt_wakeup_gran,
        "preempt_curr_ineligible": c.preempt_curr_ineligible,
        "preempt_earlier_deadline": c.preempt_earlier_deadline,
        "preempt_short": c.preempt_short,
        "preempt_resched_ineligible": c.preempt_resched_ineligible,
    })
}

/// The JSON report: the comparison summary, the scenario's machine, and per variant every
/// task's figures and every CPU's counters.
pub fn json(r: &RunReport) -> String {
    let variants: Vec<serde_json::Value> = r
        .variants
        .iter()
        .map(|v| {
            let tasks: Vec<serde_json::Value> = v
                .tasks
                .iter()
                .map(
                    |TaskRecord {
                         row,
                         stats: st,
                         group,
                     }| {
                        let mut t = serde_json::json!({
                            "name": row.comm,
                            "pid": row.pid,
                            "runtime_ns": row.runtime_ns,
                            "switches": row.count,
                            "delay_avg_ns": row.delay_avg_ns(),
                            "delay_max_ns": row.delay_max_ns,
                            "delay_sum_ns": row.delay_sum_ns,
                            "sum_exec_runtime_ns": st.sum_exec_runtime_ns,
                            "run_delay_ns": st.run_delay_ns,
                            "pcount": st.pcount,
                            "voluntary_switches": st.voluntary_switches,
                            "involuntary_switches": st.involuntary_switches,
                        });
                        if let Some(g) = group {
                            t["group"] = g.as_str().into();
                        }
                        t
                    },
                )
                .collect();
            let cpus: Vec<serde_json::Value> = v
                .cpus
                .iter()
                .enumerate()
                .map(|(i, c)| cpu_value(i, c))
                .collect();
            let mut o = serde_json::json!({
                "variant": v.variant,
                "events": v.events,
                "end_ns": v.end_ns,
                "trace_hash": format!("{:016x}", v.trace_hash),
                "tasks": tasks,
                "cpus": cpus,
            });
            if !v.bandwidth.is_empty() {
                // Each cpu.max cgroup's cpu.stat (present only when a cgroup has cpu.max).
                o["cgroups"] = v
                    .bandwidth
                    .iter()
                    .map(|b| {
                        serde_json::json!({
                            "path": b.path,
                            "nr_periods": b.nr_periods,
                            "nr_throttled": b.nr_throttled,
                            "throttled_time_ns": b.throttled_time_ns,
                            "nr_bursts": b.nr_bursts,
                            "burst_time_ns": b.burst_time_ns,
                        })
                    })
                    .collect();
            }
            if !v.source_figures.is_empty() {
                // A preset's source figures beside the model's (present only for a preset).
                o["source_figures"] = v
                    .source_figures
                    .iter()
                    .map(|f| {
                        serde_json::json!({
                            "figure": f.figure,
                            "label": f.label,
                            "source": f.source,
                            "model": f.model,
                        })
                    })
                    .collect();
            }
            if !v.groups.is_empty() {
                // CPU time per task group (present only when the scenario has groups).
                o["group_shares"] = v
                    .groups
                    .iter()
                    .map(|g| {
                        let mut x = serde_json::json!({
                            "path": g.path,
                            "tasks": g.tasks,
                            "runtime_ns": g.runtime_ns,
                            "share": g.share,
                        });
                        if let Some(b) = &g.cpu_stat {
                            x["nr_periods"] = b.nr_periods.into();
                            x["nr_throttled"] = b.nr_throttled.into();
                            x["throttled_time_ns"] = b.throttled_time_ns.into();
                        }
                        x
                    })
                    .collect();
            }
            o
        })
        .collect();
    let summary: Vec<serde_json::Value> = r
        .summary
        .iter()
        .map(|v| {
            serde_json::json!({
                "variant": v.variant,
                "switches": v.switches,
                "delay_avg_ns": v.delay_avg_ns,
                "delay_max_ns": v.delay_max_ns,
                "wakeup_preempt_ratio": v.preempt_ratio,
                "cpu_shares": v.shares.iter().map(|(l, x)| serde_json::json!({"tasks": l, "share": x})).collect::<Vec<_>>(),
                "throughput": v.throughput.as_ref().map(|(u, x)| serde_json::json!({"unit": u, "value": x})),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "summary": summary,
        "scenario": r.scenario,
        "cpus": r.cpus,
        "hz": r.hz,
        "duration_ns": r.duration_ns,
        "seed": r.seed,
        "variants": variants,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The CSV report: one row per variant and task; a last column `group` (the task's group's
/// path) when the scenario has groups.
pub fn csv(r: &RunReport) -> String {
    let grouped = r
        .variants
        .iter()
        .any(|v| v.tasks.iter().any(|t| t.group.is_some()));
    let mut s = String::from(
        "variant,name,pid,runtime_ns,switches,delay_avg_ns,delay_max_ns,delay_sum_ns,run_delay_ns,pcount,voluntary_switches,involuntary_switches",
    );
    s.push_str(if grouped { ",group\n" } else { "\n" });
    for v in &r.variants {
        for TaskRecord {
            row,
            stats: st,
            group,
        } in &v.tasks
        {
            let _ = write!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&v.variant),
                csv_field(&row.comm),
                row.pid,
                row.runtime_ns,
                row.count,
                row.delay_avg_ns(),
                row.delay_max_ns,
                row.delay_sum_ns,
                st.run_delay_ns,
                st.pcount,
                st.voluntary_switches,
                st.involuntary_switches
            );
            if grouped {
                s.push(',');
                s.push_str(&csv_field(group.as_deref().unwrap_or("/")));
            }
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::trace_hash;
    use schedlab_sim::{Event, EventKind, PrevState, Trace};

    #[test]
    fn the_trace_hash_sees_every_field_and_the_order() {
        let ev = |t_ns, next_pid| Event {
            t_ns,
            cpu: 0,
            kind: EventKind::Switch {
                prev_pid: 0,
                prev_state: PrevState::Running,
                next_pid,
            },
        };
        let trace = |events: Vec<Event>| Trace {
            cpus: 1,
            events: events.into(),
            end_ns: 10,
            ..Trace::default()
        };
        let a = trace_hash(&trace(vec![ev(1, 1), ev(2, 2)]));
        assert_eq!(
            a,
            trace_hash(&trace(vec![ev(1, 1), ev(2, 2)])),
            "a function of the trace"
        );
        assert_ne!(
            a,
            trace_hash(&trace(vec![ev(2, 2), ev(1, 1)])),
            "order matters"
        );
        assert_ne!(
            a,
            trace_hash(&trace(vec![ev(1, 1), ev(2, 3)])),
            "a pid matters"
        );
        assert_ne!(
            a,
            trace_hash(&trace(vec![ev(1, 1), ev(3, 2)])),
            "a time matters"
        );
        // FNV-1a of end_ns = 10 as 8 little-endian bytes, computed by hand (offset basis
        // 0xcbf29ce484222325, prime 0x100000001b3): the hash is the published FNV-1a.
        assert_eq!(trace_hash(&trace(vec![])), 0xde93_be8c_9573_1f0f);
    }
}
