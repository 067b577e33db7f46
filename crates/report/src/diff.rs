//! Where two runs of one scenario first part ways.
//!
//! Two variants of the same scenario and seed start from the same state, so their traces are
//! the same up to the first scheduling decision the variants make differently. That decision
//! is the first event where the traces differ. [`first_divergence`] finds it, comparing the
//! decisions (`sched_waking`, `sched_wakeup`, `sched_wakeup_new`, `sched_switch`,
//! `sched_migrate_task`) and, unless asked to, not `sched_stat_runtime`: that one records where
//! `update_curr` ran, which variants may do at different points without deciding anything
//! differently.
//!
//! [`format_divergence`] prints it with the common events before it and what the fair class
//! saw of the tasks involved on each side (vruntime, deadline, lag against V, eligibility) at
//! their last snapshot, when the runs recorded snapshots.

use std::fmt::Write as _;

use schedlab_sim::decision::{Cause, Decision, DecisionKind, EntityView};
use schedlab_sim::{Event, EventKind, Pid, PrevState, Snapshot, Trace, Variant, ALL_FEATURES};

/// The first place two traces differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// How many compared events the traces share before it.
    pub common: usize,
    /// The index of the first differing event in each trace's event list.
    pub index: (usize, usize),
    /// The events at the divergence (`None`: that trace ended there).
    pub a: Option<Event>,
    /// See `a`.
    pub b: Option<Event>,
}

impl Divergence {
    /// When it happens: the earlier of the two events (one side did something the other did
    /// not, or not yet).
    pub fn t_ns(&self) -> u64 {
        self.a
            .iter()
            .chain(self.b.iter())
            .map(|e| e.t_ns)
            .min()
            .unwrap_or(0)
    }

    /// The tasks the two events name, in pid order.
    pub fn involved(&self) -> Vec<Pid> {
        let mut v: Vec<Pid> = self.a.iter().chain(self.b.iter()).flat_map(pids).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn compared(e: &Event, runtime: bool) -> bool {
    runtime || !matches!(e.kind, EventKind::StatRuntime { .. })
}

/// The first compared event where `a` and `b` differ, or `None` if they agree to the end of
/// both. With `runtime`, `sched_stat_runtime` events are compared too.
pub fn first_divergence(a: &Trace, b: &Trace, runtime: bool) -> Option<Divergence> {
    let mut ia = a
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| compared(e, runtime));
    let mut ib = b
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| compared(e, runtime));
    let mut common = 0;
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return None,
            (Some((_, x)), Some((_, y))) if x == y => common += 1,
            (x, y) => {
                return Some(Divergence {
                    common,
                    index: (
                        x.map_or(a.events.len(), |(i, _)| i),
                        y.map_or(b.events.len(), |(j, _)| j),
                    ),
                    a: x.map(|(_, e)| e),
                    b: y.map(|(_, e)| e),
                })
            }
        }
    }
}

/// What differs between two variants' settings: features on in one and off in the other, and
/// tunables in force (after CPU scaling) that differ.
pub fn setting_differences(a: &Variant, b: &Variant, ncpus: u32) -> Vec<String> {
    let mut out = vec![];
    for f in ALL_FEATURES {
        let (x, y) = (a.has(f), b.has(f));
        let avail = |v: &Variant| v.version.available.contains(&f);
        if x != y && (avail(a) || avail(b)) {
            let on = |v: bool| if v { "on" } else { "off" };
            out.push(format!("{} {} / {}", f.name(), on(x), on(y)));
        }
    }
    let (p, q) = (a.params(ncpus), b.params(ncpus));
    for (name, x, y) in [
        ("base_slice_ns", p.base_slice_ns, q.base_slice_ns),
        ("latency_ns", p.latency_ns, q.latency_ns),
        (
            "min_granularity_ns",
            p.min_granularity_ns,
            q.min_granularity_ns,
        ),
        (
            "wakeup_granularity_ns",
            p.wakeup_granularity_ns,
            q.wakeup_granularity_ns,
        ),
        (
            "migration_cost_ns",
            p.migration_cost_ns,
            q.migration_cost_ns,
        ),
    ] {
        if x != y {
            out.push(format!("{name} {x} / {y}"));
        }
    }
    if a.version.name != b.version.name {
        out.insert(0, format!("kernel {} / {}", a.version.name, b.version.name));
    }
    out
}

/// A task as the events print it: `comm:pid`, or `swapper` for the idle task.
pub fn task_label(t: &Trace, pid: Pid) -> String {
    if pid == 0 {
        "swapper".into()
    } else {
        format!("{}:{pid}", t.comm(pid))
    }
}

/// One event as a line: time, CPU, tracepoint and its fields (perf script's spirit).
pub fn event_text(t: &Trace, e: &Event) -> String {
    let what = match e.kind {
        EventKind::Waking { pid, target_cpu } => {
            format!(
                "sched_waking       {} target_cpu={target_cpu}",
                task_label(t, pid)
            )
        }
        EventKind::Wakeup { pid, target_cpu } => {
            format!(
                "sched_wakeup       {} target_cpu={target_cpu}",
                task_label(t, pid)
            )
        }
        EventKind::WakeupNew { pid, target_cpu } => {
            format!(
                "sched_wakeup_new   {} target_cpu={target_cpu}",
                task_label(t, pid)
            )
        }
        EventKind::Switch {
            prev_pid,
            prev_state,
            next_pid,
        } => format!(
            "sched_switch       {} [{}] ==> {}",
            task_label(t, prev_pid),
            prev_state.letter(),
            task_label(t, next_pid)
        ),
        EventKind::MigrateTask {
            pid,
            orig_cpu,
            dest_cpu,
        } => format!(
            "sched_migrate_task {} orig_cpu={orig_cpu} dest_cpu={dest_cpu}",
            task_label(t, pid)
        ),
        EventKind::StatRuntime { pid, runtime_ns } => {
            format!(
                "sched_stat_runtime {} runtime={runtime_ns} [ns]",
                task_label(t, pid)
            )
        }
    };
    format!("{:>14.6} [{:03}] {what}", e.t_ns as f64 / 1e9, e.cpu)
}

/// The tasks an event names (not the idle task).
pub fn pids(e: &Event) -> Vec<Pid> {
    let v = match e.kind {
        EventKind::Waking { pid, .. }
        | EventKind::Wakeup { pid, .. }
        | EventKind::WakeupNew { pid, .. }
        | EventKind::MigrateTask { pid, .. }
        | EventKind::StatRuntime { pid, .. } => vec![pid],
        EventKind::Switch {
            prev_pid, next_pid, ..
        } => vec![prev_pid, next_pid],
    };
    v.into_iter().filter(|&p| p != 0).collect()
}

/// The last snapshot of `pid` at or before `t_ns`.
pub fn last_snapshot(t: &Trace, pid: Pid, t_ns: u64) -> Option<&Snapshot> {
    t.snapshots
        .iter()
        .take_while(|s| s.t_ns <= t_ns)
        .filter(|s| s.pid == pid)
        .last()
}

fn view_text(t: &Trace, v: &EntityView) -> String {
    format!(
        "{} vruntime {} deadline {} lag {} {}{}",
        task_label(t, v.pid),
        v.vruntime,
        v.deadline,
        v.lag,
        if v.eligible { "eligible" } else { "ineligible" },
        if v.protected { ", protected" } else { "" }
    )
}

/// A decision record as lines: the rule in fair.c's terms, then its inputs.
pub fn decision_text(t: &Trace, d: &Decision) -> Vec<String> {
    let at = format!("{:.6} [{:03}]", d.t_ns as f64 / 1e9, d.cpu);
    match d.kind {
        DecisionKind::Wakeup {
            func,
            curr,
            wakee,
            v,
            nr_running,
            outcome,
        } => {
            let verdict = match outcome {
                Ok(r) => format!(
                    "{} preempts {}: {}",
                    task_label(t, wakee.pid),
                    task_label(t, curr.pid),
                    r.text()
                ),
                Err(k) => format!(
                    "{} does not preempt {}: {}",
                    task_label(t, wakee.pid),
                    task_label(t, curr.pid),
                    k.text()
                ),
            };
            vec![
                format!("{at} wakeup, {func}: {verdict}"),
                format!("    curr  {}", view_text(t, &curr)),
                format!("    wakee {}", view_text(t, &wakee)),
                format!("    V {v}, nr_running {nr_running}"),
            ]
        }
        DecisionKind::Preempt { prev, next, cause } => vec![format!(
            "{at} {} switched out for {}: {}",
            task_label(t, prev),
            task_label(t, next),
            cause.text()
        )],
        _ => vec![format!(
            "{at} {}: {}",
            d.kind.name(),
            crate::why::sentence(t, d)
        )],
    }
}

/// Why each preemption of a trace happened, from its decision records: (time, CPU, lines),
/// in time order. The lines are the preemption's record and, when a wakeup raised it, that
/// wakeup check with its inputs (the first successful check on the CPU since its last
/// switch: a later one finds the reschedule already pending).
pub fn preemption_reasons(t: &Trace) -> Vec<(u64, u32, Vec<String>)> {
    let mut last_ok: Vec<Option<&Decision>> = vec![None; t.cpus as usize];
    let mut out = vec![];
    for d in &t.decisions {
        let slot = match last_ok.get_mut(d.cpu as usize) {
            Some(s) => s,
            None => continue,
        };
        match d.kind {
            DecisionKind::Wakeup { outcome: Ok(_), .. } if slot.is_none() => *slot = Some(d),
            DecisionKind::Preempt { cause, .. } => {
                let mut lines = decision_text(t, d);
                if let (Cause::Wakeup { wakee, .. }, Some(w)) = (cause, *slot) {
                    if matches!(w.kind, DecisionKind::Wakeup { wakee: v, .. } if v.pid == wakee) {
                        lines.extend(decision_text(t, w));
                    }
                }
                out.push((d.t_ns, d.cpu, lines));
                *slot = None;
            }
            _ => {}
        }
    }
    out
}

/// The decision records behind a divergence as lines, per side ([`decision_text`] of each,
/// in time order): what `schedlab diff` prints under "why".
pub fn explain_lines(a: &Trace, b: &Trace, d: &Divergence) -> [Vec<String>; 2] {
    let at = d.t_ns();
    let mut out: [Vec<String>; 2] = [vec![], vec![]];
    for (side, x) in explain([a, b], d, at) {
        let t = if side == 0 { a } else { b };
        out[side].extend(decision_text(t, x));
    }
    out
}

/// The decisions behind a divergence, per side (0: `a`, 1: `b`). Where a side's differing
/// event is a preemption, its record and, for a wakeup preemption, the wakeup check that caused
/// it, together with the other side's check of the same wakeup (the pair of decisions that
/// differ). Otherwise, on each CPU of the differing events, the last wakeup check up to the
/// divergence.
fn explain<'a>(tr: [&'a Trace; 2], d: &Divergence, at: u64) -> Vec<(usize, &'a Decision)> {
    let evs = [d.a, d.b];
    let mut out: Vec<(usize, &Decision)> = vec![];
    for side in 0..2 {
        let Some(e) = evs[side] else { continue };
        let EventKind::Switch {
            prev_state: PrevState::Running,
            prev_pid,
            ..
        } = e.kind
        else {
            continue;
        };
        let Some(pre) = tr[side].decisions.iter().find(|x| {
            x.t_ns == e.t_ns
                && x.cpu == e.cpu
                && matches!(x.kind, DecisionKind::Preempt { prev, .. } if prev == prev_pid)
        }) else {
            continue;
        };
        if let DecisionKind::Preempt {
            cause: Cause::Wakeup { wakee, .. },
            ..
        } = pre.kind
        {
            let check = tr[side].decisions.iter().rev().find(|x| {
                x.t_ns <= e.t_ns
                    && x.cpu == e.cpu
                    && matches!(x.kind, DecisionKind::Wakeup { wakee: w, outcome: Ok(_), .. } if w.pid == wakee)
            });
            if let Some(check) = check {
                out.push((side, check));
                let other = 1 - side;
                if let Some(o) = tr[other].decisions.iter().find(|x| {
                    x.t_ns == check.t_ns
                        && x.cpu == check.cpu
                        && matches!(x.kind, DecisionKind::Wakeup { wakee: w, .. } if w.pid == wakee)
                }) {
                    out.push((other, o));
                }
            }
        }
        out.push((side, pre));
    }
    if out.is_empty() {
        let mut cpus: Vec<u32> = evs.iter().flatten().map(|e| e.cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        for (side, t) in tr.iter().enumerate() {
            for &cpu in &cpus {
                if let Some(w) = t.decisions.iter().rev().find(|x| {
                    x.cpu == cpu && x.t_ns <= at && matches!(x.kind, DecisionKind::Wakeup { .. })
                }) {
                    out.push((side, w));
                }
            }
        }
    }
    out.sort_by_key(|(side, x)| (x.t_ns, *side));
    out.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
    out
}

/// The divergence as text: the shared events just before it, the two differing events, and
/// the fair-class state of the tasks involved on each side. `names` are the two runs' names;
/// `context` is how many shared events to show.
pub fn format_divergence(
    names: (&str, &str),
    a: &Trace,
    b: &Trace,
    d: Option<&Divergence>,
    context: usize,
) -> String {
    let mut s = String::new();
    let Some(d) = d else {
        let n = a.events.len();
        let _ = writeln!(
            s,
            "no divergence: {} and {} make the same scheduling decisions ({n} events, to {:.6} s)",
            names.0,
            names.1,
            a.end_ns as f64 / 1e9
        );
        return s;
    };
    let at = d.t_ns();
    let _ = writeln!(
        s,
        "first divergence at {:.6} s, after {} shared events",
        at as f64 / 1e9,
        d.common
    );
    let shared: Vec<Event> = a
        .events
        .range(..d.index.0)
        .filter(|e| !matches!(e.kind, EventKind::StatRuntime { .. }))
        .collect();
    if !shared.is_empty() {
        let _ = writeln!(s, "\nshared, just before:");
        for e in &shared[shared.len().saturating_sub(context)..] {
            let _ = writeln!(s, "  {}", event_text(a, e));
        }
    }
    let w = names.0.len().max(names.1.len());
    let _ = writeln!(s, "\nthen:");
    for (name, t, e) in [(names.0, a, d.a), (names.1, b, d.b)] {
        match e {
            Some(e) => {
                let _ = writeln!(s, "  {name:<w$}  {}", event_text(t, &e));
            }
            None => {
                let _ = writeln!(s, "  {name:<w$}  (the run ends here)");
            }
        }
    }
    if !a.decisions.is_empty() || !b.decisions.is_empty() {
        let _ = writeln!(s, "\nwhy (decision records):");
        let ds = explain([a, b], d, at);
        if ds.is_empty() {
            let _ = writeln!(
                s,
                "  no decision record explains it (no preemption or wakeup check on these CPUs)"
            );
        }
        for (side, dd) in ds {
            let (name, t) = if side == 0 {
                (names.0, a)
            } else {
                (names.1, b)
            };
            for (i, line) in decision_text(t, dd).into_iter().enumerate() {
                if i == 0 {
                    let _ = writeln!(s, "  {name:<w$}  {line}");
                } else {
                    let _ = writeln!(s, "  {:<w$}  {line}", "");
                }
            }
        }
    }
    let involved = d.involved();
    if !a.snapshots.is_empty() || !b.snapshots.is_empty() {
        let _ = writeln!(
            s,
            "\nwhat the fair class saw (each task's last snapshot, at a switch or tick):"
        );
        for (name, t) in [(names.0, a), (names.1, b)] {
            for &p in &involved {
                match last_snapshot(t, p, at) {
                    Some(sn) => {
                        let _ = writeln!(
                            s,
                            "  {name:<w$}  {:<20} at {:.6} s cpu {}: vruntime {} deadline {} V {} lag {} {}",
                            task_label(t, p),
                            sn.t_ns as f64 / 1e9,
                            sn.cpu,
                            sn.vruntime,
                            sn.deadline,
                            sn.v,
                            sn.lag,
                            if sn.eligible { "eligible" } else { "ineligible" }
                        );
                    }
                    None => {
                        let _ =
                            writeln!(s, "  {name:<w$}  {:<20} no snapshot yet", task_label(t, p));
                    }
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_sim::TaskInfo;

    fn ev(t_ns: u64, kind: EventKind) -> Event {
        Event { t_ns, cpu: 0, kind }
    }

    fn trace(events: Vec<Event>) -> Trace {
        Trace {
            cpus: 1,
            tasks: vec![
                TaskInfo {
                    pid: 1,
                    comm: "a".into(),
                    group: None,
                },
                TaskInfo {
                    pid: 2,
                    comm: "b".into(),
                    group: None,
                },
            ],
            events: events.into(),
            end_ns: 100,
            ..Trace::default()
        }
    }

    fn sw(t: u64, prev: Pid, next: Pid) -> Event {
        ev(
            t,
            EventKind::Switch {
                prev_pid: prev,
                prev_state: PrevState::Running,
                next_pid: next,
            },
        )
    }

    #[test]
    fn finds_the_first_differing_decision() {
        let base = vec![sw(1, 0, 1), sw(5, 1, 2)];
        let a = trace(base.clone());
        assert_eq!(first_divergence(&a, &a, true), None);
        let mut other = base.clone();
        other[1] = sw(6, 1, 2);
        let d = first_divergence(&a, &trace(other), false).unwrap();
        assert_eq!(d.common, 1);
        assert_eq!(d.index, (1, 1));
        assert_eq!(d.a.unwrap().t_ns, 5);
        assert_eq!(d.b.unwrap().t_ns, 6);
        // One trace a prefix of the other: the divergence is where the shorter ends.
        let d = first_divergence(&a, &trace(base[..1].to_vec()), false).unwrap();
        assert_eq!((d.common, d.b), (1, None));
    }

    #[test]
    fn runtime_accounting_alone_is_not_a_divergence() {
        let a = trace(vec![
            sw(1, 0, 1),
            ev(
                3,
                EventKind::StatRuntime {
                    pid: 1,
                    runtime_ns: 2,
                },
            ),
            sw(5, 1, 2),
        ]);
        let b = trace(vec![sw(1, 0, 1), sw(5, 1, 2)]);
        assert_eq!(first_divergence(&a, &b, false), None);
        let d = first_divergence(&a, &b, true).unwrap();
        assert_eq!(d.index, (1, 1));
        let text = format_divergence(("x", "y"), &a, &b, None, 3);
        assert!(text.starts_with("no divergence"), "{text}");
    }
}
