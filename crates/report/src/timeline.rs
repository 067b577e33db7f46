//! Timeline layout: who ran where and when, and why each run ended, laid out for a viewport.
//!
//! [`Timeline::from_trace`] turns `sched_switch` pairs into slices (one per stint of a task on a
//! CPU) with the reason the stint ended, and runnable-but-waiting intervals per task. [`layout`]
//! maps the slices of one lane to pixel columns for a viewport: a slice at least a pixel wide
//! is drawn as itself; narrower ones are aggregated per pixel column into the busy fraction and
//! the dominant task, so a lane never yields more blocks than the viewport has pixels, whatever
//! the number of slices. Everything is a pure function of (trace, viewport).

use schedlab_sim::{Class, EventKind, Output, Pid, PrevState, Snapshot, Trace, Variant};

/// Why a stint on a CPU ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EndReason {
    /// Switched out while runnable. `by` took the CPU; `wakeup` is true when `by` was woken on
    /// this CPU just before (a wakeup preemption), false for a tick (slice used up).
    Preempted {
        /// The task that took the CPU.
        by: Pid,
        /// Whether it had just been woken on this CPU.
        wakeup: bool,
    },
    /// Blocked (sleep, read).
    Slept,
    /// Exited.
    Exited,
    /// Still running when the trace ends.
    TraceEnd,
}

impl EndReason {
    /// A sentence for tooltips.
    pub fn describe(&self, comm: impl Fn(Pid) -> String) -> String {
        match *self {
            EndReason::Preempted { by, wakeup: true } => {
                format!("preempted by {} (wakeup preemption)", comm(by))
            }
            EndReason::Preempted { by, wakeup: false } => {
                format!("preempted by {} (slice used up, tick)", comm(by))
            }
            EndReason::Slept => "blocked (slept)".to_string(),
            EndReason::Exited => "exited".to_string(),
            EndReason::TraceEnd => "still running at the end of the trace".to_string(),
        }
    }
}

/// One stint of a task on a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Slice {
    /// The CPU.
    pub cpu: u32,
    /// The task.
    pub pid: Pid,
    /// When it was switched in.
    pub start_ns: u64,
    /// When it was switched out.
    pub end_ns: u64,
    /// Why it was switched out.
    pub reason: EndReason,
}

/// A runnable-but-waiting interval of a task (from its wakeup or preemption to its next run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Wait {
    /// The task.
    pub pid: Pid,
    /// When it became runnable (woken or preempted).
    pub start_ns: u64,
    /// When it got a CPU.
    pub end_ns: u64,
}

/// All slices of a trace, sorted by start, and all waits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// Every stint, sorted by start.
    pub slices: Vec<Slice>,
    /// Every wait, sorted by start.
    pub waits: Vec<Wait>,
    /// The end of the trace.
    pub end_ns: u64,
    /// CPUs in the trace.
    pub cpus: u32,
}

/// What a timeline view of one run holds: the run's slices and waits, who is who, and the
/// scheduler state the engine recorded at switches and ticks (for the lag/deadline overlay).
/// The page receives it from its worker; [`crate::plot::draw_timeline`] draws it.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunTimeline {
    /// CPUs of the machine.
    pub cpus: u32,
    /// Where the run ended.
    pub end_ns: u64,
    /// (pid, comm) of every task, by pid from 1.
    pub tasks: Vec<(Pid, String)>,
    /// Stints sorted by start, each with why it ended.
    #[cfg_attr(feature = "serde", serde(with = "crate::packed::slices"))]
    pub slices: Vec<Slice>,
    /// Runnable-but-waiting intervals, sorted by start.
    #[cfg_attr(feature = "serde", serde(with = "crate::packed::waits"))]
    pub waits: Vec<Wait>,
    /// Scheduler state at switches and ticks (empty unless the run recorded it).
    #[cfg_attr(feature = "serde", serde(with = "crate::packed::snapshots"))]
    pub snapshots: Vec<Snapshot>,
    /// Why each preemption happened, from the engine's decision records (time, CPU, lines in
    /// fair.c's terms; empty unless the run recorded them).
    #[cfg_attr(feature = "serde", serde(default))]
    pub why: Vec<(u64, u32, Vec<String>)>,
    /// Whether the kernel is EEVDF (the overlay shows lag, deadline − V and eligibility) or
    /// CFS (vruntime − min_vruntime).
    pub eevdf: bool,
}

impl RunTimeline {
    /// The timeline of a run of `variant`.
    pub fn from_output(o: &Output, variant: &Variant) -> RunTimeline {
        RunTimeline::from_trace(&o.trace, variant.class() == Class::Eevdf)
    }

    /// The timeline of any trace (a recording too); `eevdf` says how to read its snapshots.
    pub fn from_trace(trace: &Trace, eevdf: bool) -> RunTimeline {
        let tl = Timeline::from_trace(trace);
        RunTimeline {
            cpus: trace.cpus,
            end_ns: trace.end_ns,
            tasks: trace
                .tasks
                .iter()
                .map(|t| (t.pid, t.comm.clone()))
                .collect(),
            slices: tl.slices,
            waits: tl.waits,
            snapshots: trace.snapshots.clone(),
            why: crate::diff::preemption_reasons(trace),
            eevdf,
        }
    }

    /// The comm of `pid` (`swapper` for 0, the number for an unknown pid).
    pub fn comm(&self, pid: Pid) -> String {
        if pid == 0 {
            return "swapper".into();
        }
        // Tasks are listed by pid, from 1: look there first.
        match self.tasks.get(pid as usize - 1) {
            Some((p, c)) if *p == pid => c.clone(),
            _ => self
                .tasks
                .iter()
                .find(|(p, _)| *p == pid)
                .map_or_else(|| pid.to_string(), |(_, c)| c.clone()),
        }
    }

    /// Whether the comm of `pid` is `name` ([`RunTimeline::comm`]'s rules, without building
    /// the string for a listed task).
    pub fn comm_is(&self, pid: Pid, name: &str) -> bool {
        if pid == 0 {
            return name == "swapper";
        }
        match self.tasks.get(pid as usize - 1) {
            Some((p, c)) if *p == pid => c == name,
            _ => self.comm(pid) == name,
        }
    }

    /// The lanes to draw, at most `max_lanes`: one per CPU (colour = task), or one per task
    /// that ran (colour = CPU), the tasks named `selected` first so they are never cut off.
    /// With `fold_idle`, the CPUs that never ran a task share one empty lane at the end
    /// (`3 idle CPUs: 1, 5–6`).
    pub fn lanes(
        &self,
        per_task: bool,
        selected: Option<&str>,
        max_lanes: usize,
        fold_idle: bool,
    ) -> Vec<Lane> {
        if !per_task {
            let mut busy = vec![false; self.cpus as usize];
            for s in &self.slices {
                if let Some(b) = busy.get_mut(s.cpu as usize) {
                    *b = true;
                }
            }
            let idle: Vec<u32> = (0..self.cpus).filter(|&c| !busy[c as usize]).collect();
            let fold = fold_idle && idle.len() > 1;
            let mut lanes: Vec<Lane> = (0..self.cpus)
                .filter(|&c| !fold || busy[c as usize])
                .take(max_lanes)
                .map(|cpu| Lane {
                    label: format!("CPU {cpu}"),
                    pid: None,
                    waits: vec![],
                    index: LaneIndex::new(
                        self.slices
                            .iter()
                            .filter(|s| s.cpu == cpu)
                            .copied()
                            .collect(),
                    ),
                })
                .collect();
            if fold {
                lanes.push(Lane {
                    label: format!("{} idle CPUs: {}", idle.len(), cpu_ranges(&idle)),
                    pid: None,
                    waits: vec![],
                    index: LaneIndex::new(vec![]),
                });
            }
            return lanes;
        }
        let mut ran = vec![false; self.tasks.len() + 1];
        for s in &self.slices {
            if let Some(r) = ran.get_mut(s.pid as usize) {
                *r = true;
            }
        }
        let mut pids: Vec<Pid> = self
            .tasks
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| ran.get(*p as usize).copied().unwrap_or(false))
            .collect();
        pids.sort_by_key(|p| (Some(self.comm(*p).as_str()) != selected, *p));
        pids.into_iter()
            .take(max_lanes)
            .map(|pid| Lane {
                label: format!("{}:{pid}", self.comm(pid)),
                pid: Some(pid),
                waits: {
                    let mut w: Vec<Wait> = self
                        .waits
                        .iter()
                        .filter(|w| w.pid == pid)
                        .copied()
                        .collect();
                    w.sort_by_key(|w| w.start_ns);
                    w
                },
                index: LaneIndex::new(
                    self.slices
                        .iter()
                        .filter(|s| s.pid == pid)
                        .copied()
                        .collect(),
                ),
            })
            .collect()
    }
}

/// The runs of the tasks with one comm (a selection), indexed so that the runs in a window are
/// found with binary searches instead of a walk over every slice of the run. Build it once per
/// (run, selection).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskRuns {
    /// The runs, sorted by start (several tasks of one comm may overlap).
    pub slices: Vec<Slice>,
    /// `ends[i]` = the latest end among `slices[..=i]`: non-decreasing, so the runs that end
    /// by a time form a prefix up to where it passes that time.
    ends: Vec<u64>,
    /// The tasks' snapshots as overlay points, in time order.
    points: Vec<OverlayPoint>,
    /// The same per run of [`GROUP`] points (whole groups only), merged.
    point_groups: Vec<OverlayColumn>,
}

/// One snapshot as the overlay draws it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct OverlayPoint {
    t_ns: u64,
    /// Lag (EEVDF) or vruntime − min_vruntime (CFS).
    a: f64,
    /// Deadline − V (EEVDF), else 0.
    b: f64,
    eligible: bool,
}

/// The selected task's snapshots that fall in one pixel column of the overlay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlayColumn {
    /// The first snapshot's x in the viewport.
    pub x: f64,
    /// The range (lowest, highest) of the first series: lag under EEVDF (V − vruntime,
    /// weighted), vruntime − min_vruntime under CFS.
    pub a: (f64, f64),
    /// The range of the second: deadline − V under EEVDF, 0 under CFS.
    pub b: (f64, f64),
    /// Snapshots that found the task eligible, and not.
    pub eligible: u32,
    /// Snapshots that found it ineligible.
    pub ineligible: u32,
    /// The last snapshot's eligibility (breaks a tie, as drawing each in turn would).
    last_eligible: bool,
}

impl OverlayColumn {
    fn new(x: f64, p: &OverlayPoint) -> OverlayColumn {
        OverlayColumn {
            x,
            a: (p.a, p.a),
            b: (p.b, p.b),
            eligible: p.eligible as u32,
            ineligible: !p.eligible as u32,
            last_eligible: p.eligible,
        }
    }

    fn merge(&mut self, o: &OverlayColumn) {
        self.a = (self.a.0.min(o.a.0), self.a.1.max(o.a.1));
        self.b = (self.b.0.min(o.b.0), self.b.1.max(o.b.1));
        self.eligible += o.eligible;
        self.ineligible += o.ineligible;
        self.last_eligible = o.last_eligible;
    }

    /// The band's colour: what most of the column's snapshots found (a tie: the last one).
    pub fn eligible_band(&self) -> bool {
        match self.eligible.cmp(&self.ineligible) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => self.last_eligible,
        }
    }
}

impl TaskRuns {
    /// The runs of the tasks named `name` in `tl`.
    pub fn new(tl: &RunTimeline, name: &str) -> TaskRuns {
        let slices: Vec<Slice> = tl
            .slices
            .iter()
            .filter(|s| tl.comm_is(s.pid, name))
            .copied()
            .collect();
        let ends = slices
            .iter()
            .scan(0u64, |m, s| {
                *m = (*m).max(s.end_ns);
                Some(*m)
            })
            .collect();
        let points: Vec<OverlayPoint> = tl
            .snapshots
            .iter()
            .filter(|s| tl.comm_is(s.pid, name))
            .map(|s| OverlayPoint {
                t_ns: s.t_ns,
                a: if tl.eevdf {
                    s.lag as f64
                } else {
                    -(s.lag as f64)
                },
                b: if tl.eevdf {
                    (s.deadline - s.v) as f64
                } else {
                    0.0
                },
                eligible: s.eligible,
            })
            .collect();
        let point_groups = points
            .chunks_exact(GROUP)
            .map(|g| {
                let mut c = OverlayColumn::new(0.0, &g[0]);
                for p in &g[1..] {
                    c.merge(&OverlayColumn::new(0.0, p));
                }
                c
            })
            .collect();
        TaskRuns {
            slices,
            ends,
            points,
            point_groups,
        }
    }

    /// The overlay in `vp`: one entry per pixel column that holds snapshots of the tasks, in
    /// column order. A column reads its points one by one when it holds few, else the whole
    /// groups of [`GROUP`] in it and the points around them, so a frame costs about
    /// O(width · log n) at any zoom, not O(snapshots in view).
    pub fn overlay_columns(&self, vp: Viewport) -> Vec<OverlayColumn> {
        let p = &self.points;
        let mut out = vec![];
        let mut i = p.partition_point(|q| q.t_ns < vp.t0_ns);
        let mut last_n = 1;
        while i < p.len() && p[i].t_ns < vp.t1_ns {
            let x = vp.x(p[i].t_ns);
            let bound = vp
                .column_start(x.floor() + 1.0)
                .min(vp.t1_ns)
                .max(p[i].t_ns + 1);
            let j = search_near(p, i, i + last_n, |q| q.t_ns < bound);
            last_n = j - i;
            let mut c = OverlayColumn::new(x, &p[i]);
            let (ga, gb) = ((i + 1).div_ceil(GROUP), j / GROUP);
            let one = |q: &OverlayPoint| OverlayColumn::new(x, q);
            if ga >= gb {
                p[i + 1..j].iter().for_each(|q| c.merge(&one(q)));
            } else {
                p[i + 1..ga * GROUP].iter().for_each(|q| c.merge(&one(q)));
                self.point_groups[ga..gb].iter().for_each(|g| c.merge(g));
                p[gb * GROUP..j].iter().for_each(|q| c.merge(&one(q)));
            }
            out.push(c);
            i = j;
        }
        out
    }

    /// The runs that overlap `[t0, t1)`: how many, and the first `max` of them by start.
    /// Costs two binary searches plus the runs that start before `t0` and overlap a run that
    /// ends after it (none for one task, whose runs do not overlap), plus `max`.
    pub fn in_window(&self, t0: u64, t1: u64, max: usize) -> (usize, Vec<Slice>) {
        let s = &self.slices;
        // Before `f` every run ends by t0; from `c` on every run starts at or after t0; from
        // `b` on every run starts at or after t1.
        let f = self.ends.partition_point(|&e| e <= t0);
        let b = s.partition_point(|x| x.start_ns < t1).max(f);
        let c = s.partition_point(|x| x.start_ns < t0).clamp(f, b);
        let ended = s[f..c].iter().filter(|x| x.end_ns <= t0).count();
        let rows = s[f..b]
            .iter()
            .filter(|x| x.end_ns > t0)
            .take(max)
            .copied()
            .collect();
        (b - f - ended, rows)
    }
}

/// CPU numbers as ranges: `1, 5–6, 9–15`.
fn cpu_ranges(cpus: &[u32]) -> String {
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            cpus[i].to_string()
        } else {
            format!("{}–{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

/// One lane of a timeline view: its label, the task it belongs to (per-task lanes), and its
/// slices indexed for layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// `CPU 3` or `comm:pid`.
    pub label: String,
    /// The task of a per-task lane.
    pub pid: Option<Pid>,
    /// A task lane's waits (runnable, not running), sorted by start; none in a CPU lane.
    pub waits: Vec<Wait>,
    /// Its slices.
    pub index: LaneIndex,
}

/// A wakeup this close before a switch on the same CPU counts as the switch's cause.
const WAKEUP_CAUSE_NS: u64 = 100_000;

impl Timeline {
    /// Builds the slices and waits of a trace.
    pub fn from_trace(trace: &Trace) -> Timeline {
        let cpus = trace.cpus as usize;
        let mut running: Vec<Option<(Pid, u64)>> = vec![None; cpus];
        // Last wakeup seen per CPU: (pid, time).
        let mut last_wake: Vec<Option<(Pid, u64)>> = vec![None; cpus];
        let mut ready_since: std::collections::BTreeMap<Pid, u64> = Default::default();
        let mut slices = vec![];
        let mut waits = vec![];
        for e in &trace.events {
            let cpu = e.cpu as usize;
            if cpu >= cpus {
                continue;
            }
            match e.kind {
                EventKind::Waking { pid, .. } | EventKind::WakeupNew { pid, .. } => {
                    ready_since.entry(pid).or_insert(e.t_ns);
                }
                EventKind::Wakeup { pid, target_cpu } => {
                    if (target_cpu as usize) < cpus {
                        last_wake[target_cpu as usize] = Some((pid, e.t_ns));
                    }
                    ready_since.entry(pid).or_insert(e.t_ns);
                }
                EventKind::Switch {
                    prev_pid,
                    prev_state,
                    next_pid,
                } => {
                    if let Some((pid, start)) = running[cpu].take() {
                        if pid == prev_pid && pid != 0 {
                            let reason = match prev_state {
                                PrevState::Running => {
                                    let wakeup = last_wake[cpu].is_some_and(|(w, t)| {
                                        w == next_pid && e.t_ns - t <= WAKEUP_CAUSE_NS
                                    });
                                    ready_since.insert(pid, e.t_ns);
                                    EndReason::Preempted {
                                        by: next_pid,
                                        wakeup,
                                    }
                                }
                                PrevState::Sleeping => EndReason::Slept,
                                PrevState::Dead => EndReason::Exited,
                            };
                            slices.push(Slice {
                                cpu: e.cpu,
                                pid,
                                start_ns: start,
                                end_ns: e.t_ns,
                                reason,
                            });
                        }
                    }
                    if next_pid != 0 {
                        if let Some(since) = ready_since.remove(&next_pid) {
                            if e.t_ns > since {
                                waits.push(Wait {
                                    pid: next_pid,
                                    start_ns: since,
                                    end_ns: e.t_ns,
                                });
                            }
                        }
                        running[cpu] = Some((next_pid, e.t_ns));
                    }
                }
                _ => {}
            }
        }
        for (cpu, r) in running.iter().enumerate() {
            if let Some((pid, start)) = *r {
                slices.push(Slice {
                    cpu: cpu as u32,
                    pid,
                    start_ns: start,
                    end_ns: trace.end_ns.max(start),
                    reason: EndReason::TraceEnd,
                });
            }
        }
        slices.sort_by_key(|s| (s.start_ns, s.cpu));
        waits.sort_by_key(|w| (w.start_ns, w.pid));
        Timeline {
            slices,
            waits,
            end_ns: trace.end_ns,
            cpus: trace.cpus,
        }
    }

    /// The slices of one task, in time order.
    pub fn task_lane(&self, pid: Pid) -> Vec<Slice> {
        self.slices
            .iter()
            .filter(|s| s.pid == pid)
            .copied()
            .collect()
    }

    /// The waits of one task, in time order.
    pub fn task_waits(&self, pid: Pid) -> Vec<Wait> {
        self.waits
            .iter()
            .filter(|w| w.pid == pid)
            .copied()
            .collect()
    }
}

/// The visible window: `[t0_ns, t1_ns)` over `width_px` pixel columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewport {
    /// First visible instant.
    pub t0_ns: u64,
    /// End of the window (exclusive).
    pub t1_ns: u64,
    /// Pixel columns.
    pub width_px: u32,
}

impl Viewport {
    /// Nanoseconds per pixel (at least 1).
    pub fn ns_per_px(&self) -> f64 {
        ((self.t1_ns.saturating_sub(self.t0_ns)) as f64 / self.width_px.max(1) as f64).max(1e-9)
    }

    /// The pixel column of time `t` (may be outside 0..width).
    pub fn x(&self, t: u64) -> f64 {
        (t as f64 - self.t0_ns as f64) / self.ns_per_px()
    }

    /// The time at pixel `x`.
    pub fn t(&self, x: f64) -> u64 {
        (self.t0_ns as f64 + x * self.ns_per_px()).max(0.0) as u64
    }
    /// The first nanosecond that [`Viewport::x`] places at or past column `x`. [`Viewport::t`]
    /// rounds down, so a time just before the exact boundary would otherwise be taken for the
    /// next column while `x` still puts it in this one (and start a second aggregate there).
    pub fn column_start(&self, x: f64) -> u64 {
        let mut t = self.t(x);
        while self.x(t) < x {
            t += 1;
        }
        while t > self.t0_ns && self.x(t - 1) >= x {
            t -= 1;
        }
        t
    }
}

/// What to draw for part of a lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Block {
    /// One slice, at least a pixel wide: pixels `[x0, x1)` (clipped to the viewport); `index`
    /// is its position in the lane's slice list (for tooltips and highlighting).
    Slice {
        /// First pixel column.
        x0: u32,
        /// One past the last pixel column.
        x1: u32,
        /// Its index in the lane.
        index: usize,
    },
    /// One pixel column holding slices narrower than a pixel: the fraction of it that was busy
    /// and the task (or CPU, per key) that had most of that time.
    Aggregate {
        /// The pixel column.
        x: u32,
        /// Busy fraction of the column, 0..=1.
        busy: f32,
        /// The key (task or CPU) with the most time in it.
        dominant: u32,
    },
}

/// Lays out one lane's slices (sorted by start, not overlapping) for `vp`; `key` picks what a
/// block is colored by (the pid in a CPU lane, the CPU in a task lane). At most `width_px`
/// blocks come out: whole slices where they are at least a pixel wide, per-pixel aggregates
/// where they are not.
pub fn layout(slices: &[Slice], vp: Viewport, key: impl Fn(&Slice) -> u32) -> Vec<Block> {
    let width = vp.width_px.max(1);
    let npp = vp.ns_per_px();
    // First slice that ends after t0.
    let first = slices.partition_point(|s| s.end_ns <= vp.t0_ns);
    let mut out: Vec<Block> = vec![];
    // Busy time and per-key time of the pixel column being aggregated.
    let mut col: Option<u32> = None;
    let mut busy = 0f64;
    let mut weights: Vec<(u32, f64)> = vec![];
    let flush = |out: &mut Vec<Block>,
                 col: &mut Option<u32>,
                 busy: &mut f64,
                 weights: &mut Vec<(u32, f64)>| {
        if let Some(x) = col.take() {
            let dominant = weights
                .iter()
                .copied()
                .fold((0u32, -1f64), |a, b| if b.1 > a.1 { b } else { a })
                .0;
            out.push(Block::Aggregate {
                x,
                busy: (*busy / npp).min(1.0) as f32,
                dominant,
            });
            *busy = 0.0;
            weights.clear();
        }
    };
    for (index, s) in slices.iter().enumerate().skip(first) {
        if s.start_ns >= vp.t1_ns {
            break;
        }
        let a = vp.x(s.start_ns).max(0.0);
        let b = vp.x(s.end_ns).min(width as f64);
        if b <= a {
            continue;
        }
        let (x0, x1) = (a.floor() as u32, (b.ceil() as u32).min(width));
        if b - a >= 1.0 {
            flush(&mut out, &mut col, &mut busy, &mut weights);
            // A whole slice starting in a column an aggregate already used begins after it.
            let x0 = match out.last() {
                Some(Block::Aggregate { x, .. }) if *x >= x0 => x + 1,
                Some(Block::Slice { x1: px1, .. }) if *px1 > x0 => *px1,
                _ => x0,
            };
            if x0 < x1 {
                out.push(Block::Slice { x0, x1, index });
            }
            continue;
        }
        // A sub-pixel slice: it lands in column x0 (its start).
        let x = x0.min(width - 1);
        if let Some(Block::Slice { x1, .. }) = out.last() {
            if x < *x1 {
                continue; // covered by the wide slice drawn in that column
            }
        }
        if col != Some(x) {
            flush(&mut out, &mut col, &mut busy, &mut weights);
            col = Some(x);
        }
        let t = (s.end_ns.min(vp.t1_ns) - s.start_ns.max(vp.t0_ns)) as f64;
        busy += t;
        let k = key(s);
        match weights.iter_mut().find(|(kk, _)| *kk == k) {
            Some((_, w)) => *w += t,
            None => weights.push((k, t)),
        }
    }
    flush(&mut out, &mut col, &mut busy, &mut weights);
    out
}

/// A "nice" tick step for an axis spanning `span_ns` over `width_px`: 1, 2 or 5 × 10^k ns,
/// about one tick per 100 px.
pub fn tick_step_ns(span_ns: u64, width_px: u32) -> u64 {
    let target = (span_ns as f64 / (width_px.max(1) as f64 / 100.0)).max(1.0);
    let mut p = 1u64;
    while (p as f64) * 10.0 <= target {
        p *= 10;
    }
    for m in [1, 2, 5, 10] {
        if (p * m) as f64 >= target {
            return p * m;
        }
    }
    p * 10
}

/// A duration with a unit that suits it: `850 ns`, `12.5 µs`, `3.000 ms`, `1.365 s`.
pub fn fmt_duration(ns: u64) -> String {
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.1} µs", ns as f64 / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.3} ms", ns as f64 / 1e6)
    } else {
        format!("{:.3} s", ns as f64 / 1e9)
    }
}

/// What a lane's blocks are coloured by: the task (a CPU lane) or the CPU (a task lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKey {
    /// The slice's pid.
    Pid,
    /// The slice's CPU.
    Cpu,
}

impl LaneKey {
    /// The key of `s`.
    pub fn of(self, s: &Slice) -> u32 {
        match self {
            LaneKey::Pid => s.pid,
            LaneKey::Cpu => s.cpu,
        }
    }
}

/// A lane prepared for fast layout: its slices, the running total of their busy time (so that
/// a pixel column holding many slices costs two searches instead of a walk), their starts
/// packed (what the searches read), and per run of [`GROUP`] slices the key that had most of
/// their time (what a dense column's dominant key is estimated from). Build it once per lane;
/// [`LaneIndex::layout`] then lays out any viewport in about O(width · log n) when zoomed out
/// and O(visible slices) when zoomed in, touching little memory per column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneIndex {
    /// The lane's slices, sorted by start.
    pub slices: Vec<Slice>,
    /// `prefix[i]` = Σ durations of `slices[..i]`.
    prefix: Vec<u64>,
    /// `starts[i]` = `slices[i].start_ns`.
    starts: Vec<u64>,
    /// `groups[k][g]`: among `slices[g·GROUP..(g+1)·GROUP]` (whole groups only), the key of
    /// kind `k` (0 pid, 1 CPU) with the most time and that time.
    groups: [Vec<(u32, u64)>; 2],
}

/// The pixel spans `[x0, x1)` to shade for `waits` (one task's, sorted by start, not
/// overlapping) in `vp`: each wait at least a pixel wide, and waits that touch or share a
/// pixel merged, so a lane yields at most as many spans as the viewport has pixels; a span
/// costs a search, not a walk over the waits it covers (a wait that ends inside the span
/// drawn so far is skipped, so a span's end is exact to a pixel).
pub fn wait_spans(waits: &[Wait], vp: Viewport) -> Vec<(f64, f64)> {
    let width = vp.width_px.max(1) as f64;
    let mut out: Vec<(f64, f64)> = vec![];
    let mut i = waits.partition_point(|w| w.end_ns <= vp.t0_ns);
    while i < waits.len() && waits[i].start_ns < vp.t1_ns {
        let x0 = vp.x(waits[i].start_ns).max(0.0);
        let x1 = vp.x(waits[i].end_ns).min(width).max(x0 + 1.0);
        match out.last_mut() {
            Some(last) if x0 <= last.1 => last.1 = last.1.max(x1),
            _ => out.push((x0, x1)),
        }
        // The waits that end within the span drawn so far add nothing: skip them.
        let covered = vp.t(out.last().map_or(x1, |l| l.1).min(width));
        i = gallop_by(waits, i + 1, |w| w.end_ns <= covered);
    }
    out
}

/// The first index at or after `from` whose entry fails `pred` (true for a prefix of
/// `s[from..]`), found by galloping from `from`: O(log d) probes for an answer d entries on,
/// all near `from`, where a binary search over the rest touches memory far away. The same
/// answer as `from + s[from..].partition_point(pred)`.
fn gallop_by<T>(s: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi) = (from, from + 1);
    while hi <= s.len() && pred(&s[hi - 1]) {
        lo = hi;
        hi = from + 2 * (hi - from);
    }
    let hi = hi.min(s.len());
    lo + s[lo..hi].partition_point(pred)
}

/// Columns with more slices than this are summarised from the prefix sums; the dominant key is
/// then estimated from at most this many group summaries spread evenly over the column.
const DENSE: usize = 32;

/// Slices per group summary.
const GROUP: usize = 16;

/// The first index at or after `lo` whose entry fails `pred` (true for a prefix of `s[lo..]`),
/// searched outward from `guess`: O(log d) probes for an answer d entries from the guess, all
/// near it. The same answer as `lo + s[lo..].partition_point(pred)`.
fn search_near<T>(s: &[T], lo: usize, guess: usize, pred: impl Fn(&T) -> bool) -> usize {
    let g = guess.clamp(lo, s.len());
    if g == lo || pred(&s[g - 1]) {
        // Everything before g passes: the answer is at or after it.
        return gallop_by(s, g, pred);
    }
    // s[hi] fails: the answer is in [lo, hi].
    let (mut hi, mut step) = (g - 1, 1);
    loop {
        if hi - lo <= step {
            return lo + s[lo..hi].partition_point(&pred);
        }
        let probe = hi - step;
        if pred(&s[probe]) {
            return probe + 1 + s[probe + 1..hi].partition_point(&pred);
        }
        hi = probe;
        step *= 2;
    }
}

/// The key with the most weight among `weights` (the first seen on a tie).
fn heaviest(weights: &[(u32, u64)]) -> u32 {
    weights
        .iter()
        .fold((0u32, 0u64, false), |acc, w| {
            if !acc.2 || w.1 > acc.1 {
                (w.0, w.1, true)
            } else {
                acc
            }
        })
        .0
}

impl LaneIndex {
    /// Indexes a lane (slices sorted by start, not overlapping).
    pub fn new(slices: Vec<Slice>) -> LaneIndex {
        let mut prefix = Vec::with_capacity(slices.len() + 1);
        let mut acc = 0u64;
        prefix.push(0);
        for s in &slices {
            acc += s.end_ns - s.start_ns;
            prefix.push(acc);
        }
        let starts = slices.iter().map(|s| s.start_ns).collect();
        let summary = |key: LaneKey| -> Vec<(u32, u64)> {
            slices
                .chunks_exact(GROUP)
                .map(|g| {
                    let mut w = [(0u32, 0u64); GROUP];
                    let mut n = 0;
                    for s in g {
                        let (k, d) = (key.of(s), s.end_ns - s.start_ns);
                        match w[..n].iter_mut().find(|e| e.0 == k) {
                            Some(e) => e.1 += d,
                            None => {
                                w[n] = (k, d);
                                n += 1;
                            }
                        }
                    }
                    let k = heaviest(&w[..n]);
                    (k, w[..n].iter().find(|e| e.0 == k).map_or(0, |e| e.1))
                })
                .collect()
        };
        let groups = [summary(LaneKey::Pid), summary(LaneKey::Cpu)];
        LaneIndex {
            slices,
            prefix,
            starts,
            groups,
        }
    }

    /// The same blocks as [`layout`], except that a pixel column holding more than 32
    /// sub-pixel slices is summed from the prefix sums: its busy fraction is the same, its
    /// dominant key is estimated from the group summaries of its whole groups of 16 slices
    /// (at most 32 of them, spread evenly) and its slices outside those groups.
    pub fn layout(&self, vp: Viewport, key: LaneKey) -> Vec<Block> {
        let width = vp.width_px.max(1);
        let npp = vp.ns_per_px();
        let s = &self.slices;
        let visible = |x: &Slice| (x.end_ns.min(vp.t1_ns)).saturating_sub(x.start_ns.max(vp.t0_ns));
        let wide = |x: &Slice| {
            let a = vp.x(x.start_ns).max(0.0);
            let b = vp.x(x.end_ns).min(width as f64);
            b - a >= 1.0
        };
        let mut out: Vec<Block> = vec![];
        // Columns before this one are taken by the last wide slice drawn.
        let mut covered = 0u32;
        // Slices in the last dense column.
        let mut last_n = 1;
        // A column's weighed keys (filled afresh for each column, never cleared).
        let mut weights = [(0u32, 0u64); DENSE + 2 * GROUP];
        let mut i = s.partition_point(|x| x.end_ns <= vp.t0_ns);
        while i < s.len() && s[i].start_ns < vp.t1_ns {
            let a = vp.x(s[i].start_ns).max(0.0);
            let b = vp.x(s[i].end_ns).min(width as f64);
            if b <= a {
                i += 1;
                continue;
            }
            let x0 = a.floor() as u32;
            if x0 >= width {
                break;
            }
            if b - a >= 1.0 {
                let x0 = match out.last() {
                    Some(Block::Aggregate { x, .. }) if *x >= x0 => x + 1,
                    _ => x0.max(covered),
                };
                let x1 = (b.ceil() as u32).min(width);
                if x0 < x1 {
                    out.push(Block::Slice { x0, x1, index: i });
                    covered = x1;
                }
                i += 1;
                continue;
            }
            // Sub-pixel slices starting in column x0; only the last of them can be wide.
            let bound = vp
                .column_start(x0 as f64 + 1.0)
                .min(vp.t1_ns)
                .max(s[i].start_ns + 1);
            // The previous column's count is the guess: at a steady density the answer is a
            // probe or two from it.
            let mut j = search_near(&self.starts, i, i + last_n, |&y| y < bound);
            last_n = j - i;
            if j - 1 > i && wide(&s[j - 1]) {
                j -= 1;
            }
            if x0 < covered {
                i = j;
                continue;
            }
            let n = j - i;
            let busy = if n > DENSE {
                let mut b = self.prefix[j] - self.prefix[i];
                b -= (s[i].end_ns - s[i].start_ns) - visible(&s[i]);
                if j - 1 > i {
                    b -= (s[j - 1].end_ns - s[j - 1].start_ns) - visible(&s[j - 1]);
                }
                b
            } else {
                s[i..j].iter().map(visible).sum()
            };
            // Weighed: a sparse column's slices; a dense one's whole groups (at most DENSE of
            // them, spread evenly) and the slices before and after those. At most
            // DENSE + 2·GROUP entries, so one array serves every column.
            let mut keys = 0;
            let mut weigh = |kk: u32, d: u64| match weights[..keys].iter_mut().find(|w| w.0 == kk) {
                Some(w) => w.1 += d,
                None => {
                    weights[keys] = (kk, d);
                    keys += 1;
                }
            };
            let (ga, gb) = (i.div_ceil(GROUP), j / GROUP);
            if n <= DENSE || ga >= gb {
                for x in &s[i..j] {
                    weigh(key.of(x), visible(x));
                }
            } else {
                for x in s[i..ga * GROUP].iter().chain(&s[gb * GROUP..j]) {
                    weigh(key.of(x), visible(x));
                }
                let groups = &self.groups[(key == LaneKey::Cpu) as usize][ga..gb];
                let m = groups.len();
                for p in 0..m.min(DENSE) {
                    let (kk, d) = groups[if m > DENSE { p * m / DENSE } else { p }];
                    weigh(kk, d);
                }
            }
            // Ties go to the key seen first, as in `layout`.
            let dominant = heaviest(&weights[..keys]);
            out.push(Block::Aggregate {
                x: x0,
                busy: (busy as f64 / npp).min(1.0) as f32,
                dominant,
            });
            i = j;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::search_near;

    #[test]
    fn a_search_from_a_guess_finds_what_a_binary_search_finds() {
        let s: Vec<u64> = (0..300u64).map(|i| i * 3 / 2).collect();
        for lo in [0, 1, 7, 150, 299, 300] {
            for guess in [0, 1, 5, 64, 150, 151, 298, 299, 300, 1000] {
                for bound in [0, 1, 2, 40, 224, 225, 447, 448, 449, 10_000] {
                    let want = lo + s[lo..].partition_point(|&x| x < bound);
                    assert_eq!(
                        search_near(&s, lo, guess, |&x| x < bound),
                        want,
                        "lo {lo} guess {guess} bound {bound}"
                    );
                }
            }
        }
    }
}
