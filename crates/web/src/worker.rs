//! The simulation worker: runs in a Web Worker, never on the page's thread. It simulates the
//! variants one after the other in chunks of events, yielding to its event loop between chunks
//! so that a Cancel is seen at once, and reports progress after every chunk.

use gloo::worker::{HandlerId, Worker, WorkerScope};
use schedlab_scenario::Scenario;
use schedlab_sim::{Output, SimConfig, Simulator, Status};
use serde::{Deserialize, Serialize};

use crate::model::{results, Progress, Results};

/// Events simulated between two progress reports.
pub const CHUNK_EVENTS: u64 = 200_000;
/// Most work (events and zero-time program steps) one variant may take before the run stops
/// with a message.
pub const MAX_EVENTS: u64 = 100_000_000;

/// What the page asks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Request {
    /// Simulate every variant of this (validated) scenario; `run` tags every reply.
    Run {
        run: u64,
        scenario: Box<Scenario>,
    },
    Cancel,
}

/// What the worker answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Reply {
    Progress(Progress),
    Done(Box<Results>),
    Failed { run: u64, message: String },
}

struct Job {
    id: HandlerId,
    run: u64,
    scenario: Scenario,
    cfg: SimConfig,
    sim: Option<Simulator>,
    outs: Vec<Output>,
}

/// The worker.
pub struct SimWorker {
    job: Option<Job>,
}

/// Internal: time to simulate the next chunk of run `.0` (a step of a run that was replaced or
/// cancelled since is dropped, so one job is never driven by two step chains).
pub struct Step(u64);

fn schedule(scope: &WorkerScope<SimWorker>, run: u64) {
    scope.send_future(async move {
        gloo::timers::future::TimeoutFuture::new(0).await;
        Step(run)
    });
}

impl Worker for SimWorker {
    type Message = Step;
    type Input = Request;
    type Output = Reply;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        SimWorker { job: None }
    }

    fn update(&mut self, scope: &WorkerScope<Self>, step: Step) {
        let Some(job) = self.job.as_mut().filter(|j| j.run == step.0) else {
            return;
        };
        let run = job.run;
        let index = job.outs.len();
        let variant = &job.scenario.variants()[index];
        if job.sim.is_none() {
            match Simulator::new(&job.cfg, variant) {
                Ok(s) => job.sim = Some(s),
                Err(e) => {
                    scope.respond(
                        job.id,
                        Reply::Failed {
                            run,
                            message: format!("{}: {e}", variant.name),
                        },
                    );
                    self.job = None;
                    return;
                }
            }
        }
        let sim = job.sim.as_mut().expect("set above");
        let status = sim.run(CHUNK_EVENTS);
        scope.respond(
            job.id,
            Reply::Progress(Progress {
                run,
                index,
                of: job.scenario.variants().len(),
                variant: variant.name.clone(),
                sim_ns: sim.now_ns(),
                duration_ns: job.cfg.duration_ns,
                events: sim.events_processed(),
            }),
        );
        if status == Status::Running && sim.work_done() >= MAX_EVENTS {
            let msg = format!(
                "{}: stopped after {} events and zero-time program steps at {:.3} s of {:.3} s simulated (the page's limit); shorten duration_ms or use the command line",
                variant.name,
                sim.work_done(),
                sim.now_ns() as f64 / 1e9,
                job.cfg.duration_ns as f64 / 1e9
            );
            scope.respond(job.id, Reply::Failed { run, message: msg });
            self.job = None;
            return;
        }
        if status == Status::Done {
            let done = job.sim.take().expect("set above").finish();
            job.outs.push(done);
            if job.outs.len() == job.scenario.variants().len() {
                let r = results(run, &job.scenario, &job.outs);
                scope.respond(job.id, Reply::Done(Box::new(r)));
                self.job = None;
                return;
            }
        }
        schedule(scope, run);
    }

    fn received(&mut self, scope: &WorkerScope<Self>, msg: Request, id: HandlerId) {
        match msg {
            Request::Cancel => self.job = None,
            Request::Run { run, scenario } => {
                if scenario.variants().is_empty() {
                    let message = "no variants to run".into();
                    scope.respond(id, Reply::Failed { run, message });
                    return;
                }
                let mut cfg = scenario.sim_config();
                // The timeline's overlays need the scheduler state at switches and ticks.
                cfg.record_snapshots = true;
                self.job = Some(Job {
                    id,
                    run,
                    cfg,
                    scenario: *scenario,
                    sim: None,
                    outs: vec![],
                });
                schedule(scope, run);
            }
        }
    }
}
