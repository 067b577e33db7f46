//! The simulation worker: runs in a Web Worker, never on the page's thread. It simulates the
//! variants one after the other in chunks of events, yielding to its event loop between chunks
//! so that a Cancel is seen at once, and reports progress after every chunk. It also reads
//! recordings: the page hands it a file in chunks, the streaming importer keeps only the trace
//! model, and the recording's views cross back.
//!
//! The page talks to it with plain `postMessage` (CBOR in a `Uint8Array`, see [`crate::codec`])
//! and holds the `Worker` object itself ([`crate::hooks`]), so that it hears the worker's
//! `error` event (a trap, running out of memory) and can terminate it at once.

use std::cell::RefCell;

use schedlab_scenario::Scenario;
use schedlab_sim::{SimConfig, Simulator, Status};
use serde::{Deserialize, Serialize};

use crate::codec::Bytes;
use crate::model::{
    divergence_of, trace_prefix, variant_views, Progress, VariantViews, DIVERGENCE_EVENTS,
};
use crate::recording::{recording, Recording, MAX_RECORDING_EVENTS};

/// Events simulated between two progress reports.
pub const CHUNK_EVENTS: u64 = 200_000;
/// Most work (events and zero-time program steps) one variant may take before the run stops
/// with a message.
pub const MAX_EVENTS: u64 = 250_000_000;
/// Most trace events the variant being simulated may keep in the worker (a decision record
/// counts as many events as its size): its views are built from them when it ends, and at 16
/// bytes an event, kept in 1-MiB chunks, this bounds the trace memory near 1 GiB, inside what
/// a wasm32 worker can allocate (4 GiB). A finished variant keeps only its views and the first
/// [`DIVERGENCE_EVENTS`] events of its trace.
pub const MAX_KEPT_EVENTS: usize = 64_000_000;
/// Most bytes one message from the worker may take (a variant's views, as CBOR): the page
/// holds a copy of it while it decodes it, and a wasm32 buffer cannot grow past 2 GiB. A
/// variant whose views are larger ends its run with a message.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// What the page asks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Request {
    /// Simulate every variant of this (validated) scenario; `run` tags every reply.
    Run {
        run: u64,
        scenario: Box<Scenario>,
    },
    Cancel,
    /// Start reading a recording named `file`; `variants` are the ones its derived scenario
    /// will run under.
    ImportStart {
        id: u64,
        file: String,
        variants: Vec<String>,
    },
    /// The next chunk of the file.
    ImportChunk {
        id: u64,
        bytes: Bytes,
    },
    /// The whole file was sent.
    ImportEnd {
        id: u64,
    },
    /// Explain the switch of run `run`'s variant `variant` at (`t_ns`, `cpu`) that switched
    /// `prev` out: the worker re-simulates that variant of the last run with its decision
    /// records to just past `t_ns` (runs are deterministic), and keeps that simulation for the
    /// next question until the next run.
    Explain(crate::model::ExplainReq),
    /// Run variant `variant` of `scenario` (one point of sweep `id`, its job `job`) and say
    /// what it measured. The page gives each point a fresh worker and terminates it to cancel.
    SweepPoint {
        id: u64,
        job: usize,
        scenario: Box<Scenario>,
        variant: usize,
    },
}

/// What the worker answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Reply {
    /// The worker is ready for requests (sent once, when its wasm has started).
    Loaded,
    Progress(Progress),
    /// A variant finished: its views (the run is done with the last of them).
    Variant(Box<VariantViews>),
    Failed {
        run: u64,
        message: String,
    },
    /// A chunk of import `id` was read: `bytes` in so far; send the next.
    ImportRead {
        id: u64,
        bytes: u64,
    },
    Imported(Box<Recording>),
    ImportFailed {
        id: u64,
        message: String,
    },
    /// A point of a sweep ran.
    SweepRow {
        id: u64,
        job: usize,
        figures: Box<schedlab_report::sweep::RunFigures>,
    },
    SweepFailed {
        id: u64,
        job: usize,
        message: String,
    },
    /// A switch explained (the answer to [`Request::Explain`]).
    Explained(Box<crate::model::Explained>),
    /// The worker panicked (its wasm traps right after this): the panic's message, for the
    /// page's report of the `error` event that follows.
    Panicked(String),
}

struct Job {
    run: u64,
    scenario: Scenario,
    cfg: SimConfig,
    sim: Option<Simulator>,
    /// Variants finished so far: the first [`DIVERGENCE_EVENTS`] events of each one's trace
    /// (to find where the later variants part from it) and how many events it had.
    prefixes: Vec<(schedlab_sim::Trace, usize)>,
}

/// A variant of the last run re-simulated with its decision records, to explain its switches.
struct Explainer {
    run: u64,
    variant: usize,
    sim: Simulator,
}

struct ImportJob {
    id: u64,
    file: String,
    variants: Vec<String>,
    importer: schedlab_trace::Importer,
}

/// The worker's state: the run in progress and the import in progress (the page uses one
/// worker for runs and another for imports, but either may do both).
pub struct SimWorker {
    job: Option<Job>,
    /// The last finished run and its scenario (its switches are explained by re-simulating a
    /// variant), until the next run starts.
    last: Option<(u64, Scenario, SimConfig)>,
    /// The variant re-simulated for the last explanation.
    explainer: Option<Explainer>,
    import: Option<ImportJob>,
    /// Most events kept of a recording ([`MAX_RECORDING_EVENTS`]).
    pub max_recording_events: usize,
    /// Most trace events a variant keeps while it runs ([`MAX_KEPT_EVENTS`]).
    pub max_kept_events: usize,
    /// Events of each finished variant kept to find divergences ([`DIVERGENCE_EVENTS`]).
    pub divergence_events: usize,
}

impl Default for SimWorker {
    fn default() -> SimWorker {
        SimWorker {
            job: None,
            last: None,
            explainer: None,
            import: None,
            max_recording_events: MAX_RECORDING_EVENTS,
            max_kept_events: MAX_KEPT_EVENTS,
            divergence_events: DIVERGENCE_EVENTS,
        }
    }
}

thread_local! {
    static WORKER: RefCell<SimWorker> = RefCell::new(SimWorker::default());
}

/// Sends a reply to the page.
fn respond(reply: Reply) {
    use wasm_bindgen::JsCast;
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let message = match crate::codec::encode_within(&reply, MAX_MESSAGE_BYTES) {
        Ok(m) => m,
        Err(bytes) => {
            // Only a variant's views can be this large: the run ends with a message.
            let (run, what) = match &reply {
                Reply::Variant(v) => (v.run, v.result.variant.clone()),
                _ => (0, "a reply".to_string()),
            };
            WORKER.with(|w| w.borrow_mut().job = None);
            crate::codec::encode(&Reply::Failed {
                run,
                message: format!(
                    "{what}: its results take more than {} MB to send to the page ({} MB so far; the page's limit for one message); shorten duration_ms or use the command line",
                    MAX_MESSAGE_BYTES >> 20,
                    bytes >> 20
                ),
            })
        }
    };
    // Posting a Uint8Array to the page cannot fail.
    let _ = scope.post_message(&message);
}

/// Simulates the next chunk of run `run` once the worker's event loop has seen its messages
/// (a step of a run that was replaced or cancelled since is dropped, so one job is never driven
/// by two step chains).
fn schedule(run: u64) {
    if cfg!(not(target_arch = "wasm32")) {
        // Native tests drive `step` themselves; there is no event loop to post to.
        return;
    }
    gloo::timers::callback::Timeout::new(0, move || {
        let replies = WORKER.with(|w| w.borrow_mut().step(run));
        for r in replies {
            respond(r);
        }
    })
    .forget();
}

/// The worker's entry point: answers the page's messages.
pub fn register() {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    // A panic is a bug: say what it was before the trap ends the worker.
    std::panic::set_hook(Box::new(|info| respond(Reply::Panicked(info.to_string()))));
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
        let req: Request = crate::codec::decode(e.data());
        let replies = WORKER.with(|w| w.borrow_mut().received(req));
        for r in replies {
            respond(r);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    respond(Reply::Loaded);
}

/// Runs variant `v` of `sc` to the end, as `schedlab sweep` runs a point (no snapshots),
/// within the page's [`MAX_EVENTS`].
pub fn sweep_point(sc: &Scenario, v: usize) -> Result<schedlab_report::sweep::RunFigures, String> {
    let variant = sc
        .variants()
        .get(v)
        .ok_or_else(|| format!("no variant {v}"))?;
    let cfg = sc.sim_config();
    let mut sim = Simulator::new(&cfg, variant).map_err(|e| format!("{}: {e}", variant.name))?;
    loop {
        if sim.run(CHUNK_EVENTS) == Status::Done {
            return Ok(schedlab_report::sweep::measure(sc, &sim.finish()));
        }
        if sim.work_done() >= MAX_EVENTS {
            return Err(format!(
                "{}: stopped after {} events and zero-time program steps at {:.3} s of {:.3} s simulated (the page's limit); shorten duration_ms or use schedlab sweep",
                variant.name,
                sim.work_done(),
                sim.now_ns() as f64 / 1e9,
                cfg.duration_ns as f64 / 1e9
            ));
        }
    }
}

impl SimWorker {
    /// One chunk of run `run`: its replies.
    fn step(&mut self, run: u64) -> Vec<Reply> {
        let Some(job) = self.job.as_mut().filter(|j| j.run == run) else {
            return vec![];
        };
        let index = job.prefixes.len();
        let variant = &job.scenario.variants()[index];
        if job.sim.is_none() {
            match Simulator::new(&job.cfg, variant) {
                Ok(mut s) => {
                    s.keep_decisions(crate::model::read_decision);
                    job.sim = Some(s)
                }
                Err(e) => {
                    let message = format!("{}: {e}", variant.name);
                    self.job = None;
                    return vec![Reply::Failed { run, message }];
                }
            }
        }
        let sim = job.sim.as_mut().expect("set above");
        let status = sim.run(CHUNK_EVENTS);
        let mut out = vec![Reply::Progress(Progress {
            run,
            index,
            of: job.scenario.variants().len(),
            variant: variant.name.clone(),
            sim_ns: sim.now_ns(),
            duration_ns: job.cfg.duration_ns,
            events: sim.events_processed(),
        })];
        // Decision records and snapshots weigh as many events as their size.
        let weight = |bytes: usize| bytes.div_ceil(schedlab_sim::events::KEPT_EVENT_BYTES);
        let kept = sim.trace_kept()
            + weight(core::mem::size_of::<schedlab_sim::decision::Decision>())
                * sim.decisions_kept()
            + weight(core::mem::size_of::<schedlab_sim::Snapshot>()) * sim.snapshots_kept();
        if kept > self.max_kept_events {
            let message = format!(
                "{}: the variant keeps more than {} trace events at {:.3} s of {:.3} s simulated (the page's memory limit per variant); shorten duration_ms or use the command line",
                variant.name,
                self.max_kept_events,
                sim.now_ns() as f64 / 1e9,
                job.cfg.duration_ns as f64 / 1e9
            );
            out.push(Reply::Failed { run, message });
            self.job = None;
            return out;
        }
        if status == Status::Running && sim.work_done() >= MAX_EVENTS {
            let message = format!(
                "{}: stopped after {} events and zero-time program steps at {:.3} s of {:.3} s simulated (the page's limit); shorten duration_ms or use the command line",
                variant.name,
                sim.work_done(),
                sim.now_ns() as f64 / 1e9,
                job.cfg.duration_ns as f64 / 1e9
            );
            out.push(Reply::Failed { run, message });
            self.job = None;
            return out;
        }
        if status == Status::Done {
            let done = job.sim.take().expect("set above").finish();
            // Its divergences from the variants before it, from their kept prefixes and its
            // whole trace; then its views, and of its trace only the prefix stays.
            let divergences = job
                .prefixes
                .iter()
                .enumerate()
                .map(|(a, (ta, n))| divergence_of(&job.scenario, (a, ta, *n), (index, &done.trace)))
                .collect();
            let views = variant_views(run, &job.scenario, index, &done, divergences);
            let last = index + 1 == job.scenario.variants().len();
            if !last {
                job.prefixes.push((
                    trace_prefix(&done.trace, self.divergence_events),
                    done.trace.events.len(),
                ));
            }
            drop(done);
            out.push(Reply::Variant(Box::new(views)));
            if last {
                self.last = self.job.take().map(|j| (run, j.scenario, j.cfg));
                return out;
            }
        }
        schedule(run);
        out
    }

    /// Why the switch `req` asks about happened: variant `req.variant` of the last run,
    /// re-simulated with its decision records to just past the switch (the simulation stays
    /// for the next question, and goes on from where it is when that one is later).
    fn explain(&mut self, req: crate::model::ExplainReq) -> crate::model::Explained {
        let none = |lines: Vec<String>| crate::model::Explained {
            req,
            lines,
            cause_ns: None,
        };
        let Some((run, scenario, cfg)) = self.last.as_ref().filter(|(run, ..)| *run == req.run)
        else {
            return none(vec![]);
        };
        let Some(variant) = scenario.variants().get(req.variant) else {
            return none(vec![]);
        };
        let fresh =
            !matches!(&self.explainer, Some(x) if x.run == *run && x.variant == req.variant);
        if fresh {
            // Drop the last one before making the next.
            self.explainer = None;
            let mut cfg = cfg.clone();
            cfg.record_snapshots = false;
            cfg.record_decisions = true;
            match Simulator::new(&cfg, variant) {
                Ok(sim) => {
                    self.explainer = Some(Explainer {
                        run: *run,
                        variant: req.variant,
                        sim,
                    })
                }
                Err(e) => return none(vec![format!("{}: {e}", variant.name)]),
            }
        }
        let x = self.explainer.as_mut().expect("set above");
        let w = core::mem::size_of::<schedlab_sim::decision::Decision>()
            .div_ceil(schedlab_sim::events::KEPT_EVENT_BYTES);
        // Past the switch: every event at its time is in the trace.
        while x.sim.now_ns() <= req.t_ns {
            if x.sim.run(CHUNK_EVENTS) == Status::Done {
                break;
            }
            if x.sim.trace_kept() + w * x.sim.decisions_kept() > self.max_kept_events {
                let message = format!(
                    "{}: the page re-simulates the run with its decision records to explain a switch, and keeps at most {} trace events: this switch is later than that",
                    variant.name, self.max_kept_events
                );
                self.explainer = None;
                return none(vec![message]);
            }
        }
        let (lines, cause_ns) =
            schedlab_report::why::switch_explanation(x.sim.trace(), req.t_ns, req.cpu, req.prev);
        crate::model::Explained {
            req,
            lines,
            cause_ns,
        }
    }

    /// A message of the page: the replies it gets at once.
    pub fn received(&mut self, msg: Request) -> Vec<Reply> {
        match msg {
            Request::Cancel => {
                self.job = None;
                self.last = None;
                self.explainer = None;
                self.import = None;
                vec![]
            }
            Request::Run { run, scenario } => {
                if scenario.variants().is_empty() {
                    let message = "no variants to run".into();
                    return vec![Reply::Failed { run, message }];
                }
                self.last = None;
                self.explainer = None;
                let mut cfg = scenario.sim_config();
                // The timeline's overlays need the scheduler state at switches and ticks.
                cfg.record_snapshots = true;
                // The switch notes say which rule decided each preemption.
                cfg.record_decisions = true;
                self.job = Some(Job {
                    run,
                    cfg,
                    scenario: *scenario,
                    sim: None,
                    prefixes: vec![],
                });
                schedule(run);
                vec![]
            }
            Request::Explain(req) => vec![Reply::Explained(Box::new(self.explain(req)))],
            Request::SweepPoint {
                id,
                job,
                scenario,
                variant,
            } => match sweep_point(&scenario, variant) {
                Ok(f) => vec![Reply::SweepRow {
                    id,
                    job,
                    figures: Box::new(f),
                }],
                Err(message) => vec![Reply::SweepFailed { id, job, message }],
            },
            Request::ImportStart { id, file, variants } => {
                self.import = Some(ImportJob {
                    id,
                    file,
                    variants,
                    importer: schedlab_trace::Importer::new(Default::default()),
                });
                vec![]
            }
            Request::ImportChunk { id, bytes } => {
                let Some(job) = self.import.as_mut().filter(|j| j.id == id) else {
                    return vec![];
                };
                let max = self.max_recording_events;
                let failed = match job.importer.push(&bytes.0) {
                    Err(e) => Some(format!("{}: {e}", job.file)),
                    Ok(()) if job.importer.events() > max => Some(format!(
                        "{}: more than {max} events after {:.1} MB read: the page keeps at most {max} events of a recording; cut it (perf script --time A,B) or read it with `schedlab report` on the command line",
                        job.file,
                        job.importer.bytes_in() as f64 / 1e6
                    )),
                    Ok(()) => None,
                };
                match failed {
                    Some(message) => {
                        self.import = None;
                        vec![Reply::ImportFailed { id, message }]
                    }
                    None => vec![Reply::ImportRead {
                        id,
                        bytes: job.importer.bytes_in(),
                    }],
                }
            }
            Request::ImportEnd { id } => {
                let Some(job) = self.import.take().filter(|j| j.id == id) else {
                    return vec![];
                };
                let max = self.max_recording_events;
                match job.importer.finish() {
                    // schedlab's Perfetto JSON is rebuilt only now: its cap is checked here.
                    Ok(imp) if imp.trace.events.len() > max => vec![Reply::ImportFailed {
                        id,
                        message: format!(
                            "{}: {} events: the page keeps at most {max} events of a recording; read it with `schedlab report` on the command line",
                            job.file,
                            imp.trace.events.len()
                        ),
                    }],
                    Ok(imp) => vec![Reply::Imported(Box::new(recording(
                        id,
                        &job.file,
                        &imp,
                        &job.variants,
                    )))],
                    Err(e) => vec![Reply::ImportFailed {
                        id,
                        message: format!("{}: {e}", job.file),
                    }],
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn import(w: &mut SimWorker, id: u64, file: &str, bytes: &[u8], chunk: usize) -> Vec<Reply> {
        let mut out = w.received(Request::ImportStart {
            id,
            file: file.into(),
            variants: vec![],
        });
        for c in bytes.chunks(chunk) {
            out.extend(w.received(Request::ImportChunk {
                id,
                bytes: Bytes(c.to_vec()),
            }));
            if matches!(out.last(), Some(Reply::ImportFailed { .. })) {
                return out;
            }
        }
        out.extend(w.received(Request::ImportEnd { id }));
        out
    }

    fn fixture() -> Vec<u8> {
        let p = format!(
            "{}/../../tests/fixtures/traces/hogs.perf-script.txt.gz",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(p).unwrap()
    }

    /// Runs `sc` in `w` as Request::Run sets it up (its step chain is the page's event loop):
    /// the variants' views as they came, or the run's message.
    fn drive(w: &mut SimWorker, run: u64, sc: &Scenario) -> Result<Vec<VariantViews>, String> {
        assert!(w
            .received(Request::Run {
                run,
                scenario: Box::new(sc.clone())
            })
            .is_empty());
        let mut got = vec![];
        for _ in 0..100_000 {
            for r in w.step(run) {
                match r {
                    Reply::Failed { message, .. } => return Err(message),
                    Reply::Variant(v) => {
                        let last = v.index + 1 == v.of;
                        got.push(*v);
                        if last {
                            return Ok(got);
                        }
                    }
                    _ => {}
                }
            }
        }
        panic!("the run neither ended nor failed");
    }

    /// The outputs the page's run makes (snapshots and decision records kept).
    fn outputs(sc: &Scenario) -> Vec<schedlab_sim::Output> {
        let mut cfg = sc.sim_config();
        cfg.record_snapshots = true;
        cfg.record_decisions = true;
        sc.variants()
            .iter()
            .map(|v| schedlab_sim::simulate(&cfg, v).unwrap())
            .collect()
    }

    #[test]
    fn the_variants_stream_in_and_make_the_results_of_the_whole_run() {
        let mut sc = schedlab_scenario::presets::preset("tbench-stacked")
            .unwrap()
            .scenario();
        sc.duration_ms = 50.into();
        let whole = crate::model::results(3, &sc, &outputs(&sc));
        let mut w = SimWorker::default();
        let got = drive(&mut w, 3, &sc).unwrap();
        assert_eq!(got.len(), sc.variants().len());
        assert!(got.iter().enumerate().all(|(i, v)| v.index == i));
        let mut r = None;
        for v in got {
            r = Some(crate::model::add_variant(r, v));
        }
        let mut r = r.unwrap();
        r.divergences.sort_by_key(|d| (d.a, d.b));
        assert_eq!(r, whole);
        // A finished variant keeps only a prefix of its trace; the pair compared on a short
        // one agrees to its end, or parts within it as on the whole runs.
        let mut w = SimWorker {
            divergence_events: 50,
            ..SimWorker::default()
        };
        let got = drive(&mut w, 4, &sc).unwrap();
        for d in got.iter().flat_map(|v| &v.divergences) {
            let full = whole
                .divergences
                .iter()
                .find(|x| (x.a, x.b) == (d.a, d.b))
                .unwrap();
            assert_eq!(d.events, full.events);
            match (&d.found, d.compared) {
                (Some(f), None) => assert_eq!(Some(f), full.found.as_ref()),
                (None, Some(n)) => {
                    assert!(n <= 50);
                    assert!(
                        full.found.as_ref().is_none_or(|f| f.common >= n),
                        "{full:?}"
                    );
                }
                x => panic!("{x:?}"),
            }
        }
    }

    #[test]
    fn a_variant_that_keeps_too_many_trace_events_fails_with_a_message() {
        let sc = schedlab_scenario::presets::preset("sched-idle")
            .unwrap()
            .scenario();
        let run = |cap: usize| {
            let mut w = SimWorker {
                max_kept_events: cap,
                ..SimWorker::default()
            };
            drive(&mut w, 4, &sc).map(|v| v.len())
        };
        let e = run(100).unwrap_err();
        assert!(
            e.contains("the variant keeps more than 100 trace events")
                && e.contains("the page's memory limit per variant"),
            "{e}"
        );
        // The cap is per variant: the largest variant's trace fits, and so does the run.
        let most = outputs(&sc)
            .iter()
            .map(|o| {
                let w = core::mem::size_of::<schedlab_sim::decision::Decision>()
                    .div_ceil(schedlab_sim::events::KEPT_EVENT_BYTES);
                o.trace.events.len() + w * o.trace.decisions.len()
            })
            .max()
            .unwrap();
        assert_eq!(run(most + CHUNK_EVENTS as usize * 8), Ok(2));
    }

    /// The hackbench preset, the heaviest, runs in the page as the page runs it (trace,
    /// decision records and snapshots of all four variants) within the page's limit.
    #[test]
    fn the_hackbench_preset_runs_within_the_page_limit() {
        let scenario = schedlab_scenario::presets::preset("hackbench")
            .unwrap()
            .scenario();
        let mut w = SimWorker::default();
        if let Err(message) = drive(&mut w, 3, &scenario) {
            panic!("{message}");
        }
    }

    #[test]
    fn the_last_run_explains_its_switches_until_the_next_run() {
        let mut sc = schedlab_scenario::presets::preset("tbench-stacked")
            .unwrap()
            .scenario();
        sc.duration_ms = 20.into();
        let mut w = SimWorker::default();
        drive(&mut w, 9, &sc).unwrap();
        let outs = outputs(&sc);
        // Every switch of the second variant, by (time, CPU, prev).
        let switches: Vec<(u64, u32, u32, PrevStateLetter)> = outs[1]
            .trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                schedlab_sim::EventKind::Switch {
                    prev_pid,
                    prev_state,
                    ..
                } => Some((e.t_ns, e.cpu, prev_pid, prev_state.letter())),
                _ => None,
            })
            .collect();
        assert!(switches.len() > 100);
        let ask = |w: &mut SimWorker, run: u64, (t_ns, cpu, prev, _): (u64, u32, u32, char)| {
            let req = crate::model::ExplainReq {
                run,
                variant: 1,
                t_ns,
                cpu,
                prev,
            };
            match &w.received(Request::Explain(req))[..] {
                [Reply::Explained(x)] => {
                    assert_eq!(x.req, req);
                    (**x).clone()
                }
                r => panic!("{r:?}"),
            }
        };
        // As the whole run's records explain it, in order, then late and early again.
        let picked = switches
            .iter()
            .take(200)
            .chain([switches.last().unwrap(), &switches[3]]);
        for &sw in picked {
            let x = ask(&mut w, 9, sw);
            let whole = schedlab_report::why::switch_explanation(&outs[1].trace, sw.0, sw.1, sw.2);
            assert_eq!((x.lines.clone(), x.cause_ns), whole, "{sw:?}");
            let what = match sw.3 {
                'S' => "blocked (S)",
                'R' if sw.2 == 0 => "the CPU was idle",
                'R' => "was preempted (R)",
                _ => "exited (X)",
            };
            assert!(x.lines[0].contains(what), "{sw:?}: {:?}", x.lines);
            assert_eq!(
                x.lines.iter().filter(|l| l.contains(" pick ")).count(),
                1,
                "{sw:?}: {:?}",
                x.lines
            );
        }
        // A preemption by a wakeup names the wakeup's time.
        let pre = switches
            .iter()
            .copied()
            .map(|sw| ask(&mut w, 9, sw))
            .find(|x| x.cause_ns.is_some())
            .expect("a wakeup preemption");
        assert!(pre.cause_ns.unwrap() <= pre.req.t_ns);
        // Another run's switch, or after the next run started: nothing.
        assert!(ask(&mut w, 8, switches[0]).lines.is_empty());
        w.received(Request::Cancel);
        assert!(ask(&mut w, 9, switches[0]).lines.is_empty());
    }

    type PrevStateLetter = char;

    #[test]
    fn a_recording_pushed_in_chunks_is_the_same_as_read_whole() {
        let bytes = fixture();
        let mut w = SimWorker::default();
        let out = import(&mut w, 7, "hogs.gz", &bytes, 4096);
        // Every chunk acknowledged with the bytes in so far, then the recording.
        let acks: Vec<u64> = out
            .iter()
            .filter_map(|r| match r {
                Reply::ImportRead { id: 7, bytes } => Some(*bytes),
                _ => None,
            })
            .collect();
        assert_eq!(acks.len(), bytes.len().div_ceil(4096));
        assert_eq!(acks.last(), Some(&(bytes.len() as u64)));
        let Some(Reply::Imported(r)) = out.last() else {
            panic!("no recording: {:?}", out.last());
        };
        let whole = schedlab_trace::import_bytes(&bytes, Default::default()).unwrap();
        assert_eq!(r.id, 7);
        assert_eq!(r.events, whole.trace.events.len() as u64);
        assert_eq!(
            r.merged,
            schedlab_report::latency::latency_rows(&whole.trace, true)
        );
    }

    #[test]
    fn a_recording_over_the_cap_and_a_text_that_is_no_trace_are_refused() {
        let mut w = SimWorker {
            max_recording_events: 1000,
            ..SimWorker::default()
        };
        let out = import(&mut w, 1, "hogs.gz", &fixture(), 8192);
        let Some(Reply::ImportFailed { id: 1, message }) = out.last() else {
            panic!("not refused: {:?}", out.last());
        };
        assert!(
            message.starts_with("hogs.gz: more than 1000 events after "),
            "{message}"
        );
        // The import is gone: a late chunk is ignored.
        assert!(w
            .received(Request::ImportChunk {
                id: 1,
                bytes: Bytes(b"x".to_vec())
            })
            .is_empty());

        // schedlab's Perfetto JSON (the page's own export) is rebuilt at the end: its cap is
        // checked there.
        let sc = schedlab_scenario::presets::preset("sched-idle")
            .unwrap()
            .scenario();
        let cfg = sc.sim_config();
        let outs: Vec<_> = sc
            .variants()
            .iter()
            .map(|v| schedlab_sim::simulate(&cfg, v).unwrap())
            .collect();
        let json = crate::model::export::perfetto(&crate::model::results(1, &sc, &outs));
        // The SCHED_IDLE pair's first run has a few switches: more than 2.
        w.max_recording_events = 2;
        let out = import(&mut w, 3, "run.json", json.as_bytes(), 65536);
        let Some(Reply::ImportFailed { id: 3, message }) = out.last() else {
            panic!("not refused: {:?}", out.last());
        };
        assert!(
            message.contains("run.json: 5 events: the page keeps at most 2 events"),
            "{message}"
        );

        let out = import(&mut w, 2, "notes.txt", b"my notes\nmore notes\n", 64);
        let Some(Reply::ImportFailed { id: 2, message }) = out.last() else {
            panic!("not refused: {:?}", out.last());
        };
        assert!(
            message.starts_with("notes.txt: not a scheduler trace: tried schedlab Perfetto JSON, schedlab JSONL trace, perf script, ftrace / trace-cmd report, perf sched timehist"),
            "{message}"
        );
    }
}
