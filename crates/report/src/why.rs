//! Decision records as sentences in fair.c's terms: what `schedlab run --why` prints, one line
//! per record, and what the page's switch notes show.
//!
//! Virtual times are printed relative to the queue's V (EEVDF `avg_vruntime`) or min_vruntime
//! (CFS), in ms with integer arithmetic (the same bytes on every platform).

use core::fmt::Write as _;

use schedlab_sim::decision::{
    Affine, Balance, Decision, DecisionKind, Enqueue, EntityView, PickRule, PlaceRules, SelectPath,
    Sis,
};
use schedlab_sim::{Pid, Trace};

use crate::diff::task_label;

/// `ns` as signed ms with three decimals (`+1.250 ms`, `-0.003 ms`).
pub fn ms_signed(ns: i64) -> String {
    let sign = if ns < 0 { '-' } else { '+' };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:03} ms", a / 1_000_000, a % 1_000_000 / 1_000)
}

/// `ns` as ms with three decimals, no sign for positive values.
pub fn ms(ns: i64) -> String {
    let a = ns.unsigned_abs();
    let sign = if ns < 0 { "-" } else { "" };
    format!("{sign}{}.{:03} ms", a / 1_000_000, a % 1_000_000 / 1_000)
}

/// Time in seconds with six decimals, as perf prints it.
pub fn secs(t_ns: u64) -> String {
    format!(
        "{}.{:06}",
        t_ns / 1_000_000_000,
        t_ns % 1_000_000_000 / 1_000
    )
}

/// What the fair class saw of an entity, against V (EEVDF) or min_vruntime (CFS).
fn view_brief(v: &EntityView, eevdf: bool) -> String {
    if !eevdf {
        // lag = min_vruntime − vruntime.
        return format!("vruntime min_vruntime{}", ms_signed(-v.lag));
    }
    let dl = v.deadline.wrapping_sub(v.vruntime.wrapping_add(v.lag));
    let mut s = if !v.queued {
        format!(
            "off the queue (it blocked), lag {}, deadline V{}",
            ms_signed(v.lag),
            ms_signed(dl)
        )
    } else if v.eligible {
        format!(
            "eligible, lag {}, deadline V{}",
            ms_signed(v.lag),
            ms_signed(dl)
        )
    } else {
        format!(
            "ineligible: vruntime past V by {}, deadline V{}",
            ms(-v.lag),
            ms_signed(dl)
        )
    };
    if v.protected {
        s.push_str(", protected");
    }
    s
}

fn is_eevdf(func: &str) -> bool {
    !func.contains("CFS")
}

/// The sentence of a record (without time and CPU), with its inputs.
pub fn sentence(t: &Trace, d: &Decision) -> String {
    let l = |p: Pid| task_label(t, p);
    match d.kind {
        DecisionKind::Wakeup {
            func,
            curr,
            wakee,
            v,
            nr_running,
            outcome,
        } => {
            let eevdf = is_eevdf(func);
            let verdict = match outcome {
                Ok(r) => format!("{} preempts {}: {}", l(wakee.pid), l(curr.pid), r.text()),
                Err(k) => format!(
                    "{} does not preempt {}: {}",
                    l(wakee.pid),
                    l(curr.pid),
                    k.text()
                ),
            };
            format!(
                "{func}: {verdict}; curr {}; wakee {}; V {v}, nr_running {nr_running}",
                view_brief(&curr, eevdf),
                view_brief(&wakee, eevdf)
            )
        }
        DecisionKind::Preempt { prev, next, cause } => {
            format!("{} switched out for {}: {}", l(prev), l(next), cause.text())
        }
        DecisionKind::Pick {
            func,
            prev,
            next,
            rule,
            chosen,
            curr,
            v,
            nr_running,
        } => {
            let eevdf = is_eevdf(func);
            let what = match (rule, chosen) {
                (PickRule::Idle, _) => "nothing runnable: idle".to_string(),
                (PickRule::HigherClass, _) => format!("{}: {}", l(next), rule.text()),
                (_, Some(c)) => {
                    let again = if next == prev { " again" } else { "" };
                    format!(
                        "chose {}{again} ({}; {})",
                        l(c.pid),
                        rule.text(),
                        view_brief(&c, eevdf)
                    )
                }
                (_, None) => format!("chose {} ({})", l(next), rule.text()),
            };
            let over = match curr {
                Some(c) if c.pid != next => {
                    format!(" over curr {} ({})", l(c.pid), view_brief(&c, eevdf))
                }
                None if prev != 0 && prev != next => {
                    format!(" after prev {} left the queue", l(prev))
                }
                _ => String::new(),
            };
            let q = if eevdf { "V" } else { "min_vruntime" };
            format!("{func}: {what}{over}; {q} {v}, nr_running {nr_running}")
        }
        DecisionKind::Place { func, place: p } => {
            let r = p.rules;
            let who = format!("{} ({})", l(p.pid), p.why.text());
            if !is_eevdf(func) {
                let mut s = format!(
                    "{func}: {who}: vruntime min_vruntime{}",
                    ms_signed(p.vruntime.wrapping_sub(p.v))
                );
                if r.has(PlaceRules::START_DEBIT) {
                    s.push_str(&format!(", START_DEBIT: a vslice ({}) late", ms(-p.lag)));
                }
                if r.has(PlaceRules::SLEEPER_CREDIT) {
                    s.push_str(&format!(
                        ", sleeper credit {}{}",
                        ms(p.lag),
                        if r.has(PlaceRules::GENTLE_FAIR_SLEEPERS) {
                            " (GENTLE_FAIR_SLEEPERS: half of sched_latency)"
                        } else {
                            " (sched_latency)"
                        }
                    ));
                }
                if r.has(PlaceRules::KEPT_OWN) {
                    s.push_str(&format!(
                        "; its own vruntime (min_vruntime{}) was later and is kept",
                        ms_signed(p.vlag.wrapping_sub(p.v))
                    ));
                }
                return s;
            }
            let lag = if r.has(PlaceRules::PLACE_LAG) {
                format!(
                    "PLACE_LAG: vlag {} inflated by (W + w)/W with W = {} to {}",
                    ms_signed(p.vlag),
                    p.load,
                    ms_signed(p.lag)
                )
            } else if p.why == Enqueue::DelayZero {
                "DELAY_ZERO: lag 0".to_string()
            } else {
                "no lag (NO_PLACE_LAG or an empty queue)".to_string()
            };
            let dl = p.deadline.wrapping_sub(p.vruntime);
            let dl_rule = if r.has(PlaceRules::PLACE_REL_DEADLINE) {
                "PLACE_REL_DEADLINE: the relative deadline it carried".to_string()
            } else if r.has(PlaceRules::PLACE_DEADLINE_INITIAL) {
                format!(
                    "PLACE_DEADLINE_INITIAL: half the vslice {}",
                    ms(p.vslice)
                )
            } else {
                format!("the vslice {}", ms(p.vslice))
            };
            format!(
                "{func}: {who}: {lag}; vruntime V{} (V {}), deadline vruntime+{} ({dl_rule})",
                ms_signed(p.vruntime.wrapping_sub(p.v)),
                p.v,
                ms(dl)
            )
        }
        DecisionKind::Delay { pid, lag } => format!(
            "dequeue_entity (DELAY_DEQUEUE): {} blocked while ineligible (lag {}): stays queued, sched_delayed",
            l(pid),
            ms_signed(lag)
        ),
        DecisionKind::DelayEnd {
            pid,
            how,
            lag,
            zeroed,
        } => format!(
            "{}'s delayed dequeue ends: {}; lag {}{}",
            l(pid),
            how.text(),
            ms_signed(lag),
            if zeroed { ", DELAY_ZERO cleared it" } else { "" }
        ),
        DecisionKind::Select {
            pid,
            prev_cpu,
            waker_cpu,
            cpu,
            path,
        } => match path {
            SelectPath::OnlyCpu => format!(
                "select_task_rq: {} on cpu{cpu}, the only CPU it may use",
                l(pid)
            ),
            SelectPath::Fork { idle } => format!(
                "find_idlest_cpu (fork): {} placed on cpu{cpu}, {}",
                l(pid),
                if idle {
                    "idle (find_idlest_group kept the forking CPU's group or found an idler one)"
                } else {
                    "no idle CPU in the group chosen: the least loaded"
                }
            ),
            SelectPath::Wakeup {
                wide,
                sync,
                affine,
                target,
                sis,
                flips,
                eff_load,
            } => {
                let waker = waker_cpu.map_or(String::new(), |w| format!(" by cpu{w}"));
                let mut flags = String::new();
                if wide {
                    flags.push_str(", wake_wide");
                }
                if sync {
                    flags.push_str(", sync");
                }
                if flips != [0, 0] {
                    let _ = write!(
                        flags,
                        " (wakee_flips: waker {}, wakee {})",
                        flips[0], flips[1]
                    );
                }
                let mut aff = match affine {
                    Affine::NotWanted | Affine::SameCpu => affine.text().to_string(),
                    _ => format!("{} (target cpu{target})", affine.text()),
                };
                if let Some([this_eff, prev_eff]) = eff_load {
                    let cmp = if this_eff < prev_eff { "<" } else { ">=" };
                    let _ = write!(
                        aff,
                        " [this_eff_load {this_eff} {cmp} prev_eff_load {prev_eff}]"
                    );
                }
                let moved = if cpu == prev_cpu {
                    format!("stays on cpu{cpu}")
                } else {
                    format!("cpu{prev_cpu} -> cpu{cpu}")
                };
                let sis = if let Sis::SisUtil(n) = sis {
                    format!("{} cpu{target} (nr_idle_scan {n})", sis.text())
                } else if sis == Sis::Busy {
                    format!("{} cpu{target}", sis.text())
                } else {
                    sis.text().to_string()
                };
                format!(
                    "select_task_rq_fair: {} woken{waker}{flags}: {moved}; {aff}; {sis}",
                    l(pid)
                )
            }
        },
        DecisionKind::Move { pid, src, dst, why } => {
            let mut s = format!(
                "{}: {} cpu{src} -> cpu{dst}",
                why.balance.text(),
                l(pid)
            );
            if let Balance::Kick { from, delay_ns } = why.balance {
                s.push_str(&format!(
                    " for cpu{from}'s kick (kick_ilb at its tick; the IPI reached nohz_csd_func {:.1} µs later)",
                    delay_ns as f64 / 1_000.0
                ));
            }
            if why.balance != Balance::Affinity {
                s.push_str(&format!(", domain level {}", why.level));
            }
            if let Some((m, imb)) = why.imbalance {
                let shifted = why.load >> why.nr_balance_failed.min(63);
                s.push_str(&format!(
                    ", {} imbalance {imb}: its load {} >> nr_balance_failed {} = {shifted} fits",
                    m.name(),
                    why.load,
                    why.nr_balance_failed
                ));
            } else if why.balance == Balance::Active {
                s.push_str(&format!(
                    ": the first movable task (no cache-hot test), after {} failed balances",
                    why.nr_balance_failed
                ));
            }
            if why.hot {
                s.push_str("; cache hot (task_hot), moved as nr_balance_failed > cache_nice_tries");
                if why.buddy {
                    // A fact, not the cause: with NO_CACHE_HOT_BUDDY a buddy is hot only by time.
                    s.push_str(" (its run queue's buddy: hot under CACHE_HOT_BUDDY)");
                }
            }
            if why.delayed {
                s.push_str("; a delayed task (blocked, still queued): its load moves, and it stays delayed there");
            } else if !why.eligible && why.balance != Balance::Affinity {
                s.push_str("; not eligible on its CPU");
            }
            if why.skipped > 0 {
                s.push_str(&format!(
                    "; {} task(s) passed over (running, delayed, pinned, cache hot, too heavy or not eligible)",
                    why.skipped
                ));
            }
            s
        }
    }
}

/// One record as one line: time, CPU, kind, the sentence and its inputs.
pub fn decision_line(t: &Trace, d: &Decision) -> String {
    format!(
        "{} cpu{} {:<9} {}",
        secs(d.t_ns),
        d.cpu,
        d.kind.name(),
        sentence(t, d)
    )
}

/// Whether a record concerns `pid` (as a chosen, preempted, placed, moved or woken task).
pub fn involves(d: &Decision, pid: Pid) -> bool {
    d.kind.pids().contains(&pid)
}

/// The records that explain the switch at (`t_ns`, `cpu`) that switched `prev` out for
/// `next`: the preemption's record and, for a wakeup preemption, the wakeup check that
/// raised it (the first successful one for that wakee on the CPU since the last switch there),
/// then the pick, then for `next` its latest CPU selection and placement before the switch.
/// Indices into `t.decisions`, in time order.
pub fn switch_records(t: &Trace, t_ns: u64, cpu: u32, prev: Pid, next: Pid) -> Vec<usize> {
    let ds = &t.decisions;
    // Records up to the switch's time.
    let end = ds.partition_point(|d| d.t_ns <= t_ns);
    let mut out = vec![];
    let pick = (0..end).rev().find(|&i| {
        let d = &ds[i];
        d.t_ns == t_ns
            && d.cpu == cpu
            && matches!(d.kind, DecisionKind::Pick { prev: p, next: n, .. } if p == prev && n == next)
    });
    let pre = (0..end).rev().find(|&i| {
        let d = &ds[i];
        d.t_ns == t_ns
            && d.cpu == cpu
            && matches!(d.kind, DecisionKind::Preempt { prev: p, .. } if p == prev)
    });
    if let Some(p) = pre {
        if let DecisionKind::Preempt {
            cause: schedlab_sim::decision::Cause::Wakeup { wakee, .. },
            ..
        } = ds[p].kind
        {
            // The previous pick on this CPU bounds the search (a check before it was for an
            // earlier run).
            let before = pick.map_or(p, |k| k.min(p));
            let since = (0..before)
                .rev()
                .find(|&i| ds[i].cpu == cpu && matches!(ds[i].kind, DecisionKind::Pick { .. }))
                .map_or(0, |i| i + 1);
            if let Some(w) = (since..before).find(|&i| {
                ds[i].cpu == cpu
                    && matches!(ds[i].kind, DecisionKind::Wakeup { wakee: w, outcome: Ok(_), .. } if w.pid == wakee)
            }) {
                out.push(w);
            }
        }
        out.push(p);
    }
    if let Some(p) = pick {
        out.push(p);
    }
    if next != 0 {
        // The next task's last selection and placement, since its previous run ended.
        let last_run = (0..end).rev().find(|&i| {
            matches!(ds[i].kind, DecisionKind::Pick { prev: p, next: n, .. } if p == next && n != next)
        });
        let from = last_run.map_or(0, |i| i + 1);
        let sel = (from..end)
            .rev()
            .find(|&i| matches!(ds[i].kind, DecisionKind::Select { pid, .. } if pid == next));
        let place = (from..end).rev().find(
            |&i| matches!(ds[i].kind, DecisionKind::Place { place, .. } if place.pid == next),
        );
        let mv = (from..end)
            .rev()
            .find(|&i| matches!(ds[i].kind, DecisionKind::Move { pid, .. } if pid == next));
        out.extend(sel);
        out.extend(mv);
        out.extend(place);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The time of the wakeup that caused the preemption at (`t_ns`, `cpu`), if a wakeup did:
/// the wakeup check's time (to jump to the cause).
pub fn cause_time(t: &Trace, t_ns: u64, cpu: u32, prev: Pid, next: Pid) -> Option<u64> {
    switch_records(t, t_ns, cpu, prev, next)
        .into_iter()
        .map(|i| &t.decisions[i])
        .find(|d| matches!(d.kind, DecisionKind::Wakeup { outcome: Ok(_), .. }))
        .map(|d| d.t_ns)
}

/// Why the switch at (`t_ns`, `cpu`) that switched `prev` out happened, as lines: what became
/// of prev (blocked, exited, or preempted and why), then every record behind it
/// ([`switch_records`]: the wakeup check that raised the preemption, the preemption, the pick
/// of the next task, and that task's CPU selection, move and placement), one line each. With
/// the time of the wakeup that caused a preemption, to jump to. Empty lines when the trace
/// has no such switch or no records.
pub fn switch_explanation(t: &Trace, t_ns: u64, cpu: u32, prev: Pid) -> (Vec<String>, Option<u64>) {
    use schedlab_sim::{EventKind, PrevState};
    let from = t.events.partition_point(|e| e.t_ns < t_ns);
    let sw = t
        .events
        .range(from..)
        .take_while(|e| e.t_ns == t_ns)
        .find_map(|e| match e.kind {
            EventKind::Switch {
                prev_pid,
                prev_state,
                next_pid,
            } if e.cpu == cpu && prev_pid == prev => Some((prev_state, next_pid)),
            _ => None,
        });
    let Some((state, next)) = sw else {
        return (vec![], None);
    };
    let mut lines = vec![match state {
        _ if prev == 0 => "the CPU was idle".to_string(),
        PrevState::Sleeping => format!(
            "prev {} blocked (S): it switched itself out",
            task_label(t, prev)
        ),
        PrevState::Dead => format!("prev {} exited (X)", task_label(t, prev)),
        PrevState::Running => format!(
            "prev {} was preempted (R): still runnable",
            task_label(t, prev)
        ),
    }];
    let recs = switch_records(t, t_ns, cpu, prev, next);
    lines.extend(recs.iter().map(|&i| decision_line(t, &t.decisions[i])));
    let cause = cause_time(t, t_ns, cpu, prev, next);
    (lines, cause)
}
