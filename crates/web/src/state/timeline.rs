//! The timeline's view: one window, selection, layout and ruler shared by every variant.

use super::State;

/// The timeline's view: one time window shared by every variant, so A/B differences line up.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimelineView {
    /// Visible window `[t0, t1)` in ns; `t1 == 0` means the whole run.
    pub t0_ns: u64,
    pub t1_ns: u64,
    /// Lanes per task (colour = CPU, waiting hatched) instead of per CPU (colour = task).
    pub per_task: bool,
    /// The highlighted task (by comm, so that it matches across variants).
    pub selected: Option<String>,
    /// Show the selected task's vruntime/lag/deadline/eligibility overlay.
    pub overlay: bool,
    /// Ruler marks (at most two).
    pub ruler: Vec<u64>,
    /// The keyboard help is open.
    pub help: bool,
    /// Per-CPU lanes: show every CPU, instead of folding the CPUs that never ran a task into
    /// one lane.
    pub show_idle_cpus: bool,
}

/// Timeline actions.
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineAction {
    /// Zoom by `factor` (< 1 zooms in) keeping `center_ns` where it is.
    Zoom {
        factor: f64,
        center_ns: u64,
    },
    /// Move the window by a fraction of its width (negative: earlier).
    Pan(f64),
    /// Show the whole run.
    Fit,
    /// Show exactly this window (drag-select).
    Range(u64, u64),
    ToggleLayout,
    /// Show or fold the CPUs that never ran a task.
    ToggleIdleCpus,
    Select(Option<String>),
    ToggleOverlay,
    /// Add a ruler mark (a third click starts over).
    Ruler(u64),
    ToggleHelp,
    /// Close the help and clear the ruler.
    Escape,
}

impl State {
    /// The end of the longest run or recording shown (the timeline's full range), if there are
    /// results or a recording.
    pub fn run_end_ns(&self) -> Option<u64> {
        let runs = self
            .shown_results()
            .and_then(|r| r.variants.iter().map(|v| v.end_ns).max());
        let rec = self.recording.as_ref().map(|r| r.end_ns);
        runs.max(rec).filter(|&e| e > 0)
    }

    /// The timeline's visible window, resolved (`t1 == 0` is the whole run).
    pub fn timeline_window(&self) -> Option<(u64, u64)> {
        let end = self.run_end_ns()?;
        let tl = &self.view.timeline;
        Some(if tl.t1_ns == 0 {
            (0, end)
        } else {
            (tl.t0_ns, tl.t1_ns)
        })
    }

    pub(super) fn timeline_action(&mut self, a: TimelineAction) {
        /// Narrowest window: 1 µs.
        const MIN_SPAN: u64 = 1_000;
        let end = self.run_end_ns();
        let window = self.timeline_window();
        let tl = &mut self.view.timeline;
        let set = |tl: &mut TimelineView, t0: i128, t1: i128, end: u64| {
            let span = (t1 - t0).clamp(MIN_SPAN as i128, end as i128);
            let t0 = t0.clamp(0, end as i128 - span);
            tl.t0_ns = t0 as u64;
            tl.t1_ns = (t0 + span) as u64;
        };
        match a {
            TimelineAction::Zoom { factor, center_ns } => {
                if let (Some(end), Some((t0, t1))) = (end, window) {
                    let f = factor.clamp(0.01, 100.0);
                    let c = center_ns.clamp(t0, t1) as f64;
                    let n0 = c - (c - t0 as f64) * f;
                    let n1 = c + (t1 as f64 - c) * f;
                    set(tl, n0.round() as i128, n1.round() as i128, end);
                }
            }
            TimelineAction::Pan(frac) => {
                if let (Some(end), Some((t0, t1))) = (end, window) {
                    let d = ((t1 - t0) as f64 * frac).round() as i128;
                    set(tl, t0 as i128 + d, t1 as i128 + d, end);
                }
            }
            TimelineAction::Fit => {
                tl.t0_ns = 0;
                tl.t1_ns = 0;
            }
            TimelineAction::Range(a, b) => {
                if let Some(end) = end {
                    let (a, b) = (a.min(b), a.max(b));
                    set(tl, a as i128, b as i128, end);
                }
            }
            TimelineAction::ToggleLayout => tl.per_task = !tl.per_task,
            TimelineAction::ToggleIdleCpus => tl.show_idle_cpus = !tl.show_idle_cpus,
            TimelineAction::Select(t) => tl.selected = t,
            TimelineAction::ToggleOverlay => tl.overlay = !tl.overlay,
            TimelineAction::Ruler(t) => {
                if tl.ruler.len() >= 2 {
                    tl.ruler.clear();
                }
                tl.ruler.push(t);
            }
            TimelineAction::ToggleHelp => tl.help = !tl.help,
            TimelineAction::Escape => {
                tl.help = false;
                tl.ruler.clear();
            }
        }
    }
}
