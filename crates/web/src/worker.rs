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
use schedlab_sim::{Output, SimConfig, Simulator, Status};
use serde::{Deserialize, Serialize};

use crate::codec::Bytes;
use crate::model::{results, Progress, Results};
use crate::recording::{recording, Recording, MAX_RECORDING_EVENTS};

/// Events simulated between two progress reports.
pub const CHUNK_EVENTS: u64 = 200_000;
/// Most work (events and zero-time program steps) one variant may take before the run stops
/// with a message.
pub const MAX_EVENTS: u64 = 100_000_000;
/// Most trace events a run may keep in the worker, all variants together (a decision record
/// counts as many events as its size): the views read them at the end, and at 32 bytes a
/// record (wasm32) this bounds the trace memory near 512 MB, well inside what a worker can
/// allocate.
pub const MAX_KEPT_EVENTS: usize = 16_000_000;

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
    /// `prev` out, from the decision records of the last run (kept until the next one).
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
    Done(Box<Results>),
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
    outs: Vec<Output>,
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
    /// The last finished run and its outputs (their decision records explain its switches),
    /// until the next run starts.
    last: Option<(u64, Vec<Output>)>,
    import: Option<ImportJob>,
    /// Most events kept of a recording ([`MAX_RECORDING_EVENTS`]).
    pub max_recording_events: usize,
    /// Most trace events a run keeps, all variants together ([`MAX_KEPT_EVENTS`]).
    pub max_kept_events: usize,
}

impl Default for SimWorker {
    fn default() -> SimWorker {
        SimWorker {
            job: None,
            last: None,
            import: None,
            max_recording_events: MAX_RECORDING_EVENTS,
            max_kept_events: MAX_KEPT_EVENTS,
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
    // Posting a Uint8Array to the page cannot fail.
    let _ = scope.post_message(&crate::codec::encode(&reply));
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
        let index = job.outs.len();
        let variant = &job.scenario.variants()[index];
        if job.sim.is_none() {
            match Simulator::new(&job.cfg, variant) {
                Ok(s) => job.sim = Some(s),
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
        // Decision records weigh as many events as their size.
        let w = core::mem::size_of::<schedlab_sim::decision::Decision>()
            .div_ceil(core::mem::size_of::<schedlab_sim::Event>());
        let kept: usize = job
            .outs
            .iter()
            .map(|o| o.trace.events.len() + w * o.trace.decisions.len())
            .sum::<usize>()
            + sim.trace_kept()
            + w * sim.decisions_kept();
        if kept > self.max_kept_events {
            let message = format!(
                "{}: the run keeps more than {} trace events across its variants at {:.3} s of {:.3} s simulated (the page's memory limit); shorten duration_ms, run fewer variants, or use the command line",
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
            job.outs.push(done);
            if job.outs.len() == job.scenario.variants().len() {
                let r = results(run, &job.scenario, &job.outs);
                out.push(Reply::Done(Box::new(r)));
                // Its outputs stay for the switch notes (the memory they hold was counted
                // against the cap while the run went on).
                self.last = self.job.take().map(|j| (run, j.outs));
                return out;
            }
        }
        schedule(run);
        out
    }

    /// A message of the page: the replies it gets at once.
    pub fn received(&mut self, msg: Request) -> Vec<Reply> {
        match msg {
            Request::Cancel => {
                self.job = None;
                self.last = None;
                self.import = None;
                vec![]
            }
            Request::Run { run, scenario } => {
                if scenario.variants().is_empty() {
                    let message = "no variants to run".into();
                    return vec![Reply::Failed { run, message }];
                }
                self.last = None;
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
                    outs: vec![],
                });
                schedule(run);
                vec![]
            }
            Request::Explain(req) => {
                let trace = self
                    .last
                    .as_ref()
                    .filter(|(run, _)| *run == req.run)
                    .and_then(|(_, outs)| outs.get(req.variant))
                    .map(|o| &o.trace);
                let (lines, cause_ns) = match trace {
                    Some(t) => {
                        schedlab_report::why::switch_explanation(t, req.t_ns, req.cpu, req.prev)
                    }
                    None => (vec![], None),
                };
                vec![Reply::Explained(Box::new(crate::model::Explained {
                    req,
                    lines,
                    cause_ns,
                }))]
            }
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

    #[test]
    fn a_run_that_keeps_too_many_trace_events_fails_with_a_message() {
        // The job as Request::Run sets it up (its step chain is the page's event loop).
        let sc = schedlab_scenario::presets::preset("sched-idle")
            .unwrap()
            .scenario();
        let run = |cap: usize| {
            let mut w = SimWorker {
                max_kept_events: cap,
                ..SimWorker::default()
            };
            w.job = Some(Job {
                run: 4,
                cfg: sc.sim_config(),
                scenario: sc.clone(),
                sim: None,
                outs: vec![],
            });
            for _ in 0..1000 {
                for r in w.step(4) {
                    match r {
                        Reply::Failed { message, .. } => return Err(message),
                        Reply::Done(_) => return Ok(()),
                        _ => {}
                    }
                }
            }
            panic!("the run neither ended nor failed");
        };
        // sched-idle's two variants keep a few thousand events together.
        let e = run(2000).unwrap_err();
        assert!(
            e.contains("the run keeps more than 2000 trace events across its variants")
                && e.contains("the page's memory limit"),
            "{e}"
        );
        assert_eq!(run(MAX_KEPT_EVENTS), Ok(()));
    }

    /// The hackbench preset, the heaviest, runs in the page as the page runs it (trace,
    /// decision records and snapshots of all four variants) within the page's limit.
    #[test]
    fn the_hackbench_preset_runs_within_the_page_limit() {
        let scenario = schedlab_scenario::presets::preset("hackbench")
            .unwrap()
            .scenario();
        let mut w = SimWorker::default();
        assert!(w
            .received(Request::Run {
                run: 3,
                scenario: Box::new(scenario),
            })
            .is_empty());
        for _ in 0..100_000 {
            for r in w.step(3) {
                match r {
                    Reply::Failed { message, .. } => panic!("{message}"),
                    Reply::Done(_) => return,
                    _ => {}
                }
            }
        }
        panic!("the run neither ended nor failed");
    }

    #[test]
    fn the_last_run_explains_its_switches_until_the_next_run() {
        let sc = schedlab_scenario::presets::preset("tbench-stacked")
            .unwrap()
            .scenario();
        let mut cfg = sc.sim_config();
        cfg.duration_ns = 20_000_000;
        cfg.record_decisions = true;
        let mut w = SimWorker {
            job: Some(Job {
                run: 9,
                cfg,
                scenario: sc.clone(),
                sim: None,
                outs: vec![],
            }),
            ..SimWorker::default()
        };
        let mut done = false;
        for _ in 0..1000 {
            if w.step(9).iter().any(|r| matches!(r, Reply::Done(_))) {
                done = true;
                break;
            }
        }
        assert!(done);
        // Every switch of the second variant, by (time, CPU, prev).
        let switches: Vec<(u64, u32, u32, PrevStateLetter)> = w.last.as_ref().unwrap().1[1]
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
        for &sw in switches.iter().take(200) {
            let x = ask(&mut w, 9, sw);
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
        let json = crate::model::export::perfetto(&results(1, &sc, &outs));
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
