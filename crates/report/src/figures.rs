//! Figures of a scenario's runs that need the scenario as well as the trace: each workload's
//! tool-style figures (hackbench's `Time:`, schbench's blocks, rates, percentiles), the
//! throughput the comparison uses, and the comparison rows with each task set's CPU share.
//! The command line and the page both print these.

use std::fmt::Write as _;

use schedlab_scenario::{Role, Scenario, Workload, WorkloadInfo};
use schedlab_sim::Output;

use crate::compare::{summarize, VariantSummary};
use crate::workload as wl;

/// The figures of a run's workloads: their tool-style text, the throughput figure the
/// comparison uses (the first workload that has one), and the task sets whose CPU shares it
/// shows.
pub struct Figures {
    /// The tools' own text (hackbench's `Time:`, schbench's blocks, rates, percentiles).
    pub text: String,
    /// The throughput figure the comparison uses: unit label and value.
    pub throughput: Option<(String, f64)>,
}

fn pids_of(r: &Output, info: &WorkloadInfo, roles: &[Role]) -> Vec<schedlab_sim::Pid> {
    role_pids(core::slice::from_ref(info), r, roles)
}

/// The pids of a run's tasks that play one of `roles` (any role when `roles` is empty) in the
/// workloads `infos` (`Scenario::workloads`), in pid order.
pub fn role_pids(infos: &[WorkloadInfo], r: &Output, roles: &[Role]) -> Vec<schedlab_sim::Pid> {
    let groups: Vec<u32> = infos
        .iter()
        .flat_map(|info| &info.roles)
        .filter(|(role, _)| roles.is_empty() || roles.contains(role))
        .flat_map(|(_, g)| g.iter().copied())
        .collect();
    wl::pids_of_groups(&r.trace, &groups)
}

/// The figures of one run of a scenario's workloads.
pub fn workload_figures(infos: &[WorkloadInfo], r: &Output) -> Figures {
    let mut text = String::new();
    let mut throughput = None;
    let end = r.trace.end_ns;
    let secs = end as f64 / 1e9;
    let rate = |n: u64| if end > 0 { n as f64 / secs } else { 0.0 };
    for info in infos {
        let _ = writeln!(text, "[{}]", info.label);
        let fig = match &info.params {
            Workload::Hackbench(h) => {
                let threads = pids_of(r, info, &[Role::Sender, Role::Receiver]);
                let time = wl::hackbench_time_ns(&r.trace, &threads);
                text.push_str(&wl::format_hackbench(
                    h.groups as u32,
                    h.fds as u32,
                    h.loops as u32,
                    h.datasize as u32,
                    h.threads,
                    time,
                ));
                time.map(|t| ("hackbench ms".to_string(), t as f64 / 1e6))
            }
            Workload::Schbench(s) => {
                let workers = pids_of(r, info, &[Role::Worker]);
                let msg = pids_of(r, info, &[Role::MessageThread]);
                let sb = wl::schbench_samples(&r.trace, &workers, &msg, s.sleep_ns());
                let rps = wl::per_second(&sb.done_ns, end);
                text.push_str(&wl::format_schbench(
                    (end / 1_000_000_000).max(1),
                    &sb.wakeup_ns,
                    &sb.request_ns,
                    &rps,
                ));
                if s.lock {
                    // Not schbench's output: what its per-CPU lock cost, which schbench
                    // cannot see (the spinning is inside its request latency).
                    let stats = |p: &schedlab_sim::Pid| &r.tasks[*p as usize - 1];
                    let spin: u64 = workers.iter().map(|p| stats(p).spin_ns).sum();
                    let cpu: u64 = workers.iter().map(|p| stats(p).sum_exec_runtime_ns).sum();
                    text.push_str(&wl::format_spin(spin, cpu));
                }
                Some(("requests/s".to_string(), rate(sb.done_ns.len() as u64)))
            }
            Workload::PipePair(_) => {
                // A round trip is a reply the client read (counting its blocks would miss the
                // replies that were already waiting).
                let n: u64 = pids_of(r, info, &[Role::Client])
                    .iter()
                    .map(|&p| r.tasks[p as usize - 1].reads)
                    .sum();
                text.push_str(&wl::format_rate("round trips", n, end));
                Some(("round trips/s".to_string(), rate(n)))
            }
            Workload::MassiveIntr(_) => {
                let hogs = pids_of(r, info, &[]);
                let n = wl::completions(&r.trace, &hogs);
                text.push_str(&wl::format_rate("massive_intr work loops", n, end));
                let _ = writeln!(
                    text,
                    "massive_intr switches: {}",
                    wl::switches(&r.trace, &hogs)
                );
                Some(("loops/s".to_string(), rate(n)))
            }
            Workload::Periodic(p) => {
                let lat = wl::wakeup_latencies_ns(&r.trace, &pids_of(r, info, &[]));
                let [p50, p90, p99, p999] = wl::latency_percentiles_us(&lat);
                let _ = writeln!(
                    text,
                    "{} wakeup latency (us): p50 {p50}  p90 {p90}  p99 {p99}  p99.9 {p999}  ({} wakeups)",
                    p.name,
                    lat.len()
                );
                None
            }
            Workload::FioLike(_) => {
                // I/Os the jobs reaped (io_getevents), not their sleeps: with an iodepth above
                // one a job reaps many completions per wakeup.
                let n = pids_of(r, info, &[Role::Job])
                    .iter()
                    .map(|&p| r.tasks[p as usize - 1].io_completions)
                    .sum();
                text.push_str(&wl::format_rate("fio I/Os", n, end));
                Some(("IO/s".to_string(), rate(n)))
            }
        };
        if throughput.is_none() {
            throughput = fig;
        }
    }
    Figures { text, throughput }
}

/// Labelled task sets for CPU shares: each plain task group by name, each workload by its kind
/// (a periodic workload by its task name).
fn task_sets(
    scenario: &Scenario,
    infos: &[WorkloadInfo],
    r: &Output,
) -> Vec<(String, Vec<schedlab_sim::Pid>)> {
    let mut sets: Vec<(String, Vec<schedlab_sim::Pid>)> = vec![];
    let mut add = |label: String, pids: Vec<schedlab_sim::Pid>| match sets
        .iter_mut()
        .find(|(l, _)| *l == label)
    {
        Some((_, v)) => v.extend(pids),
        None => sets.push((label, pids)),
    };
    for (g, t) in scenario.tasks.iter().enumerate() {
        add(t.name.clone(), wl::pids_of_groups(&r.trace, &[g as u32]));
    }
    for info in infos {
        let label = match &info.params {
            Workload::Periodic(p) => p.name.clone(),
            w => w.kind().name().to_string(),
        };
        add(label, pids_of(r, info, &[]));
    }
    sets
}

/// The comparison rows of a scenario's runs, one per variant.
pub fn summaries(scenario: &Scenario, results: &[Output]) -> Vec<VariantSummary> {
    let infos = scenario.workloads();
    results
        .iter()
        .map(|r| {
            let figures = workload_figures(&infos, r);
            summarize(
                &r.variant,
                &r.trace,
                &r.cpus,
                &task_sets(scenario, &infos, r),
                figures.throughput,
            )
        })
        .collect()
}
