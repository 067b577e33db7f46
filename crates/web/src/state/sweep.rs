//! The sweep panel's state: the parameter and figure typed, and the sweep in progress or done.
//! A point is an ordinary scenario (`schedlab_scenario::sweep::apply`), run in a worker of its
//! own exactly as `schedlab sweep` runs it, so a point's figures equal the command line's.

use schedlab_report::sweep::{Row, RunFigures};
use schedlab_scenario::sweep::{apply, points, Param, Point, MAX_RUNS};
use schedlab_scenario::Scenario;

use super::State;

/// The parameters the picker offers (the `--param` syntax of `schedlab sweep`).
pub const COMMON_PARAMS: &[&str] = &[
    "base_slice_ns=500000..4000000:8",
    "migration_cost_ns=0..2000000:5",
    "wakeup_granularity_ns=500000..4000000:8",
    "latency_ns=3000000..24000000:8",
    "hz=100,250,300,1000",
    "cpus=1..8:8",
    "seed=1..8:8",
    "RUN_TO_PARITY",
    "PLACE_LAG",
    "workloads.0.hackbench.loops=50..400:8",
];

/// What the sweep panel's fields hold.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepForm {
    /// `NAME=FROM..TO:N`, `NAME=A,B,C` or a feature.
    pub param: String,
    /// The figure plotted (`switches`, `wakeup_p99`, `share:NAME`, …).
    pub figure: String,
}

impl Default for SweepForm {
    fn default() -> SweepForm {
        SweepForm {
            param: COMMON_PARAMS[0].into(),
            figure: "switches".into(),
        }
    }
}

/// Where one run (a point and a variant) of a sweep is.
#[derive(Clone, Debug, PartialEq)]
pub enum JobState {
    Pending,
    Running,
    Done(Box<RunFigures>),
    Failed(String),
}

/// A sweep started from the panel.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRun {
    /// Its number (`State::sweeps` when it started); every reply carries it.
    pub id: u64,
    /// The parameter as typed, and parsed.
    pub spec: String,
    pub param: Param,
    /// The scenario's name (the plot's title).
    pub title: String,
    /// The variants, as the scenario names them (one line each).
    pub labels: Vec<String>,
    pub points: Vec<Point>,
    /// Each point's scenario.
    pub scenarios: Vec<Scenario>,
    /// (point, variant) per job, in grid order.
    pub jobs: Vec<(usize, usize)>,
    pub states: Vec<JobState>,
    /// Stopped by Cancel.
    pub cancelled: bool,
}

impl SweepRun {
    /// Every job done.
    pub fn finished(&self) -> bool {
        self.states.iter().all(|s| matches!(s, JobState::Done(_)))
    }

    /// Still running (not finished, failed or cancelled).
    pub fn running(&self) -> bool {
        !self.cancelled
            && !self.finished()
            && !self.states.iter().any(|s| matches!(s, JobState::Failed(_)))
    }

    /// The first failure, if any.
    pub fn failure(&self) -> Option<String> {
        self.jobs
            .iter()
            .zip(&self.states)
            .find_map(|(&(i, _), s)| match s {
                JobState::Failed(m) => {
                    Some(format!("at {}={}: {m}", self.param.name, self.points[i][0]))
                }
                _ => None,
            })
    }

    /// The rows of the jobs done, in grid order (the command line's order).
    pub fn rows(&self) -> Vec<Row> {
        self.jobs
            .iter()
            .zip(&self.states)
            .filter_map(|(&(i, j), s)| match s {
                JobState::Done(f) => Some(Row {
                    point: self.points[i].clone(),
                    variant: self.labels[j].clone(),
                    f: (**f).clone(),
                }),
                _ => None,
            })
            .collect()
    }

    /// The work for the workers: (job, point scenario, variant index).
    pub fn work(&self) -> Vec<(usize, Scenario, usize)> {
        self.jobs
            .iter()
            .enumerate()
            .map(|(k, &(i, j))| (k, self.scenarios[i].clone(), j))
            .collect()
    }

    /// The sweep as CSV: `schedlab sweep --format csv`'s.
    pub fn csv(&self) -> String {
        schedlab_report::sweep::csv(&[self.param.name.as_str()], &self.rows())
    }

    /// The plot of `figure` as SVG, or why there is none.
    pub fn svg(&self, figure: &str) -> Result<String, String> {
        use schedlab_scenario::sweep::Value1;
        if !matches!(self.param.values.first(), Some(Value1::Int(_))) {
            return Err(format!(
                "{} is switched on and off: the table lists its points; a plot needs a numeric parameter",
                self.param.name
            ));
        }
        let rows = self.rows();
        let series = schedlab_report::sweep::series(&rows, &self.labels, figure);
        if series.iter().all(|(_, p)| p.is_empty()) {
            return Err(format!(
                "no run has the figure `{figure}` yet (one of {}; a share names a task group or workload, throughput needs a workload)",
                schedlab_report::sweep::FIGURES.join(", ")
            ));
        }
        schedlab_report::plot::sweep_svg(
            &series,
            &self.title,
            &self.param.name,
            &schedlab_report::sweep::figure_unit(figure, &rows),
            800,
            450,
        )
    }
}

impl State {
    /// The sweep the panel's parameter asks for over the scenario in the editor (its variants),
    /// numbered `sweeps + 1`, or what stops it.
    pub fn sweep_request(&self) -> Result<SweepRun, String> {
        if self.sweep.as_ref().is_some_and(|s| s.running()) {
            return Err("a sweep is in progress".into());
        }
        if self.json_error.is_some() || !self.errors.is_empty() {
            return Err("the scenario is invalid: fix it first".into());
        }
        let base = self
            .scenario
            .as_ref()
            .ok_or("the scenario is invalid: fix it first")?;
        let spec = self.sweep_form.param.trim().to_string();
        let param = Param::parse(&spec)?;
        let pts = points(std::slice::from_ref(&param));
        let labels: Vec<String> = base.variants().iter().map(|v| v.name.clone()).collect();
        if labels.is_empty() {
            return Err("pick at least one kernel variant".into());
        }
        if pts.len() * labels.len() > MAX_RUNS {
            return Err(format!(
                "{} points × {} variants = {} runs; a sweep runs at most {MAX_RUNS}",
                pts.len(),
                labels.len(),
                pts.len() * labels.len()
            ));
        }
        let mut scenarios = vec![];
        for p in &pts {
            let sc = apply(base, &[], std::slice::from_ref(&param), p)
                .map_err(|e| format!("at {}={}: {e}", param.name, p[0]))?;
            scenarios.push(sc);
        }
        let jobs: Vec<(usize, usize)> = (0..pts.len())
            .flat_map(|i| (0..labels.len()).map(move |j| (i, j)))
            .collect();
        Ok(SweepRun {
            id: self.sweeps + 1,
            spec,
            param,
            title: base.name.clone(),
            labels,
            points: pts,
            scenarios,
            states: vec![JobState::Pending; jobs.len()],
            jobs,
            cancelled: false,
        })
    }
}
