//! `perf sched latency`: per-task scheduling delay, as `tools/perf/builtin-sched.c` computes and
//! prints it (`latency_switch_event`, `latency_wakeup_event`, `latency_runtime_event`,
//! `__merge_work_atoms`, `perf_sched__sort_lat`, `output_lat_thread`, `perf_sched__lat`).
//!
//! perf keeps a list of "work atoms" per thread but only ever looks at the last one, so the
//! engine here keeps just that atom.

use std::collections::BTreeMap;

use schedlab_sim::{Event, EventKind, Pid, Sink, TaskInfo, Trace};

use crate::cfmt::{lpad, ms3, rpad, ts_usec};

/// One line of `perf sched latency` (perf's `struct work_atoms` after merging).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LatencyRow {
    /// `comm` of the thread (the merge key with `merge_by_comm`).
    pub comm: String,
    /// The thread the row is kept under: with merging, the highest tid of that comm.
    pub pid: Pid,
    /// `num_merged`: how many threads were folded into this row.
    pub threads: u32,
    /// `total_runtime`: sum of `sched_stat_runtime` runtimes, ns.
    pub runtime_ns: u64,
    /// `nb_atoms`: scheduling delays measured ("Count"/"Switches").
    pub count: u64,
    /// `total_lat`: sum of the delays, ns.
    pub delay_sum_ns: u64,
    /// `max_lat`: the largest delay, ns.
    pub delay_max_ns: u64,
    /// `max_lat_start`: when the largest delay began (wakeup or preemption), ns.
    pub max_start_ns: u64,
    /// `max_lat_end`: when the largest delay ended (switch-in), ns.
    pub max_end_ns: u64,
}

impl LatencyRow {
    /// perf's `avg = total_lat / nb_atoms` (integer division; 0 when there are no atoms).
    pub fn delay_avg_ns(&self) -> u64 {
        self.delay_sum_ns.checked_div(self.count).unwrap_or(0)
    }

    /// The task column without padding: `comm:(N)` for merged rows, `comm:tid` otherwise.
    pub fn label(&self) -> String {
        if self.threads > 1 {
            format!("{}:({})", self.comm, self.threads)
        } else {
            format!("{}:{}", self.comm, self.pid)
        }
    }

    /// Whether `output_lat_thread` prints it (see [`perf_prints`]).
    fn printed(&self) -> bool {
        perf_prints(&self.comm, self.count)
    }
}

/// perf's `enum thread_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtomState {
    Sleeping,
    WaitCpu,
    SchedIn,
    Ignore,
}

/// The last `struct work_atom` of a thread.
#[derive(Clone, Copy, Debug)]
struct Atom {
    state: AtomState,
    sched_out_time: u64,
    wake_up_time: u64,
}

/// perf's `struct work_atoms` for one thread (before merging).
#[derive(Clone, Debug, Default)]
pub(crate) struct Atoms {
    last: Option<Atom>,
    pub(crate) max_lat: u64,
    pub(crate) max_lat_start: u64,
    pub(crate) max_lat_end: u64,
    pub(crate) total_lat: u64,
    pub(crate) nb_atoms: u64,
    pub(crate) total_runtime: u64,
}

impl Atoms {
    /// `add_sched_out_event`.
    fn sched_out(&mut self, run_state: char, t: u64) {
        self.last = Some(if run_state == 'R' {
            Atom {
                state: AtomState::WaitCpu,
                sched_out_time: t,
                wake_up_time: t,
            }
        } else {
            Atom {
                state: AtomState::Sleeping,
                sched_out_time: t,
                wake_up_time: 0,
            }
        });
    }

    /// `add_sched_in_event`; returns the delay it counted, if any.
    fn sched_in(&mut self, t: u64) -> Option<u64> {
        let atom = self.last.as_mut()?;
        if atom.state != AtomState::WaitCpu {
            return None;
        }
        if t < atom.wake_up_time {
            atom.state = AtomState::Ignore;
            return None;
        }
        atom.state = AtomState::SchedIn;
        let delta = t - atom.wake_up_time;
        self.total_lat += delta;
        if delta > self.max_lat {
            self.max_lat = delta;
            self.max_lat_start = atom.wake_up_time;
            self.max_lat_end = t;
        }
        self.nb_atoms += 1;
        Some(delta)
    }
}

/// Replays the trace through perf's latency handlers (`perf sched latency` without `-C`).
/// `on_delay(pid, t, delay)` is called for every delay counted, in time order.
pub(crate) fn run_atoms(
    trace: &Trace,
    mut on_delay: impl FnMut(Pid, u64, u64),
) -> BTreeMap<Pid, Atoms> {
    // perf_sched__read_events: "prefer sched_waking if it is captured".
    let has_waking = trace
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Waking { .. }));
    let mut map: BTreeMap<Pid, Atoms> = BTreeMap::new();
    for e in &trace.events {
        atom_event(&mut map, &e, has_waking, &mut on_delay);
    }
    map
}

/// One event through perf's latency handlers.
fn atom_event(
    map: &mut BTreeMap<Pid, Atoms>,
    e: &Event,
    has_waking: bool,
    on_delay: &mut impl FnMut(Pid, u64, u64),
) {
    {
        let t = e.t_ns;
        match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } => {
                map.entry(prev_pid)
                    .or_default()
                    .sched_out(prev_state.letter(), t);
                let inn = map.entry(next_pid).or_insert_with(|| {
                    // "Task came in we have not heard about yet, add in an initial atom in
                    // runnable state".
                    let mut a = Atoms::default();
                    a.sched_out('R', t);
                    a
                });
                if let Some(d) = inn.sched_in(t) {
                    on_delay(next_pid, t, d);
                }
            }
            EventKind::StatRuntime { pid, runtime_ns } => {
                let a = map.entry(pid).or_insert_with(|| {
                    let mut a = Atoms::default();
                    a.sched_out('R', t);
                    a
                });
                a.total_runtime += runtime_ns;
            }
            EventKind::Waking { pid, .. } | EventKind::WakeupNew { pid, .. } => wakeup(map, pid, t),
            EventKind::Wakeup { pid, .. } if !has_waking => wakeup(map, pid, t),
            // sched_wakeup with sched_waking recorded is ignored; migrations only matter with -C.
            EventKind::Wakeup { .. } | EventKind::MigrateTask { .. } => {}
        }
    }
}

/// `latency_wakeup_event` (profile_cpu == -1).
fn wakeup(map: &mut BTreeMap<Pid, Atoms>, pid: Pid, t: u64) {
    let a = map.entry(pid).or_insert_with(|| {
        let mut a = Atoms::default();
        a.sched_out('S', t);
        a
    });
    if let Some(atom) = a.last.as_mut() {
        if atom.state != AtomState::Sleeping || atom.sched_out_time > t {
            return;
        }
        atom.state = AtomState::WaitCpu;
        atom.wake_up_time = t;
    }
}

/// Whether `perf sched latency` prints a row (`output_lat_thread`): atoms were counted and it
/// is not the idle task. Its TOTAL line sums the printed rows only.
pub fn perf_prints(comm: &str, count: u64) -> bool {
    count > 0 && comm != "swapper"
}

/// The rows of `perf sched latency` (`merge_by_comm` = perf's default; `false` = `-p`, i.e.
/// `skip_merge`), in perf's default sort order `avg, max, switch, runtime` (each descending;
/// ties keep perf's insertion order: descending comm when merged, descending pid otherwise).
/// The idle task and rows without atoms are left out, as `output_lat_thread` does.
pub fn latency_rows(trace: &Trace, merge_by_comm: bool) -> Vec<LatencyRow> {
    let atoms = run_atoms(trace, |_, _, _| {});
    rows_of(&atoms, trace, merge_by_comm)
}

/// `perf sched latency` kept as a run goes: a [`Sink`] that replays each event through perf's
/// handlers as it happens, so a run needs not keep its trace for the table. A simulation always
/// records `sched_waking`, which perf prefers ([`run_atoms`] checks a recording for it).
#[derive(Clone, Debug, Default)]
pub struct LatencySink {
    atoms: BTreeMap<Pid, Atoms>,
}

impl Sink for LatencySink {
    fn event(&mut self, e: &Event) {
        atom_event(&mut self.atoms, e, true, &mut |_, _, _| {});
    }
}

impl LatencySink {
    /// The rows [`latency_rows`] gives for the same events (`tasks`: the run's, for the comms).
    pub fn rows(&self, tasks: &[TaskInfo], merge_by_comm: bool) -> Vec<LatencyRow> {
        let names = Trace {
            tasks: tasks.to_vec(),
            ..Default::default()
        };
        rows_of(&self.atoms, &names, merge_by_comm)
    }
}

/// The rows from the atoms (`trace` only names the tasks).
fn rows_of(atoms: &BTreeMap<Pid, Atoms>, trace: &Trace, merge_by_comm: bool) -> Vec<LatencyRow> {
    // atom_root is ordered by pid_cmp with "greater goes left": rb_first is the highest pid.
    let per_thread = atoms.iter().rev().map(|(&pid, a)| LatencyRow {
        comm: trace.comm(pid).to_string(),
        pid,
        threads: 1,
        runtime_ns: a.total_runtime,
        count: a.nb_atoms,
        delay_sum_ns: a.total_lat,
        delay_max_ns: a.max_lat,
        max_start_ns: a.max_lat_start,
        max_end_ns: a.max_lat_end,
    });
    let mut rows: Vec<LatencyRow> = if merge_by_comm {
        // __merge_work_atoms: keyed by strcmp(comm), "greater goes left".
        let mut merged: BTreeMap<String, LatencyRow> = BTreeMap::new();
        for r in per_thread {
            match merged.get_mut(&r.comm) {
                Some(m) => {
                    m.threads += 1;
                    m.runtime_ns += r.runtime_ns;
                    m.count += r.count;
                    m.delay_sum_ns += r.delay_sum_ns;
                    if m.delay_max_ns < r.delay_max_ns {
                        m.delay_max_ns = r.delay_max_ns;
                        m.max_start_ns = r.max_start_ns;
                        m.max_end_ns = r.max_end_ns;
                    }
                }
                None => {
                    merged.insert(r.comm.clone(), r);
                }
            }
        }
        merged.into_values().rev().collect()
    } else {
        per_thread.collect()
    };
    rows.retain(|r| r.pid != 0 && r.printed());
    sort_rows(&mut rows);
    rows
}

/// perf's default `--sort avg,max,switch,runtime`, each descending; stable.
fn sort_rows(rows: &mut [LatencyRow]) {
    rows.sort_by(|a, b| {
        b.delay_avg_ns()
            .cmp(&a.delay_avg_ns())
            .then(b.delay_max_ns.cmp(&a.delay_max_ns))
            .then(b.count.cmp(&a.count))
            .then(b.runtime_ns.cmp(&a.runtime_ns))
    });
}

/// `ns / 1e6` as glibc's `printf("%.3f")` prints it: the exact binary value of the double,
/// rounded half-to-even (so 62500 ns gives `0.062`).
pub fn fmt_fixed3(ns: u64) -> String {
    ms3(ns)
}

/// The task column of `output_lat_thread`: `"  comm:(N) "` or `"  comm:tid "`, padded with
/// spaces to 24 bytes.
fn name_cell(r: &LatencyRow) -> String {
    let s = if r.threads > 1 {
        format!("  {}:({}) ", r.comm, r.threads as i32)
    } else {
        format!("  {}:{} ", r.comm, r.pid as i32)
    };
    rpad(&s, 24)
}

/// The group column's header: nothing without groups.
fn group_head(groups: &[String]) -> &'static str {
    if groups.is_empty() {
        ""
    } else {
        " Group"
    }
}

const DASHES_139: &str = "-------------------------------------------------------------------------------------------------------------------------------------------";

/// The text of `perf sched latency` for these rows, byte for byte as current upstream perf
/// prints it (`perf_sched__lat` + `output_lat_thread`; no "INFO:" lines). Rows without atoms
/// and the idle task are skipped, as perf does.
pub fn format_perf(rows: &[LatencyRow]) -> String {
    format_perf_groups(rows, &[])
}

/// [`format_perf`] with a group column after the last: `groups[i]` is row `i`'s task group
/// ([`crate::groups::row_groups`]). With no groups (an empty slice) the table is perf's, byte
/// for byte.
pub fn format_perf_groups(rows: &[LatencyRow], groups: &[String]) -> String {
    let dashes = |n: usize| &DASHES_139[..n];
    let mut out = String::new();
    out.push_str(&format!("\n {}\n", dashes(139)));
    out.push_str("  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |");
    out.push_str(group_head(groups));
    out.push('\n');
    out.push_str(&format!(" {}\n", dashes(139)));
    let (mut all_runtime, mut all_count) = (0u64, 0u64);
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.printed()) {
        all_runtime += r.runtime_ns;
        all_count += r.count;
        out.push_str(&name_cell(r));
        out.push_str(&format!(
            "|{} ms |{} | avg:{} ms | max:{} ms | max start: {} s | max end: {} s",
            lpad(&ms3(r.runtime_ns), 11),
            lpad(&r.count.to_string(), 9),
            lpad(&ms3(r.delay_avg_ns()), 8),
            lpad(&ms3(r.delay_max_ns), 8),
            lpad(&ts_usec(r.max_start_ns), 12),
            lpad(&ts_usec(r.max_end_ns), 12),
        ));
        if let Some(g) = groups.get(i) {
            out.push_str(" | ");
            out.push_str(g);
        }
        out.push('\n');
    }
    out.push_str(&format!(" {}\n", dashes(113)));
    out.push_str(&format!(
        "  TOTAL:                |{} ms |{} |\n",
        lpad(&ms3(all_runtime), 11),
        lpad(&all_count.to_string(), 9)
    ));
    out.push_str(&format!(" {}\n", dashes(51)));
    out.push('\n');
    out
}

/// The "Sum delay" table of Mike Galbraith's local `perf sched latency -T` patch, as posted in
/// LKML threads: perf's columns up to "Max delay ms", then the summed delay; the TOTAL line adds
/// the largest max and the summed sums. Every line is 107 bytes unless a number overflows its
/// field. Rows without atoms and the idle task are skipped.
pub fn format_sum(rows: &[LatencyRow]) -> String {
    format_sum_groups(rows, &[])
}

/// [`format_sum`] with a group column after the last, as [`format_perf_groups`].
pub fn format_sum_groups(rows: &[LatencyRow], groups: &[String]) -> String {
    let dashes = format!(" {}\n", &DASHES_139[..106]);
    let mut out = String::from("\n");
    out.push_str(&dashes);
    out.push_str(
        "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Sum delay ms     |",
    );
    out.push_str(group_head(groups));
    out.push('\n');
    out.push_str(&dashes);
    let (mut all_runtime, mut all_count, mut all_max, mut all_sum) = (0u64, 0u64, 0u64, 0u64);
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.printed()) {
        all_runtime += r.runtime_ns;
        all_count += r.count;
        all_max = all_max.max(r.delay_max_ns);
        all_sum += r.delay_sum_ns;
        out.push_str(&name_cell(r));
        out.push_str(&format!(
            "|{} ms |{} | avg:{} ms | max:{} ms | sum:{} ms |",
            lpad(&ms3(r.runtime_ns), 11),
            lpad(&r.count.to_string(), 9),
            lpad(&ms3(r.delay_avg_ns()), 8),
            lpad(&ms3(r.delay_max_ns), 8),
            lpad(&ms3(r.delay_sum_ns), 9),
        ));
        if let Some(g) = groups.get(i) {
            out.push(' ');
            out.push_str(g);
        }
        out.push('\n');
    }
    out.push_str(&dashes);
    out.push_str(&format!(
        "  TOTAL:                |{} ms |{} |                 |{} ms |{} ms |\n",
        lpad(&ms3(all_runtime), 11),
        lpad(&all_count.to_string(), 9),
        lpad(&ms3(all_max), 13),
        lpad(&ms3(all_sum), 14),
    ));
    out.push_str(&dashes);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt_fixed3_ties() {
        assert_eq!(fmt_fixed3(62_500), "0.062"); // 0.0625: tie, even digit stays
        assert_eq!(fmt_fixed3(187_500), "0.188"); // 0.1875: tie, odd digit rounds up
        assert_eq!(fmt_fixed3(1_062_500), "1.062");
        assert_eq!(fmt_fixed3(312_500), "0.312");
        assert_eq!(fmt_fixed3(500), "0.001"); // 0.0005 is stored slightly above the tie
        assert_eq!(fmt_fixed3(4_500), "0.004"); // 0.0045 is stored slightly below the tie
        assert_eq!(fmt_fixed3(3_250_000), "3.250");
        assert_eq!(fmt_fixed3(0), "0.000");
    }

    #[test]
    fn avg_is_integer_division() {
        let r = LatencyRow {
            comm: "a".into(),
            pid: 1,
            threads: 1,
            runtime_ns: 0,
            count: 3,
            delay_sum_ns: 10,
            delay_max_ns: 0,
            max_start_ns: 0,
            max_end_ns: 0,
        };
        assert_eq!(r.delay_avg_ns(), 3);
        assert_eq!(LatencyRow { count: 0, ..r }.delay_avg_ns(), 0);
    }
}
