//! Effects: the bridge to the workers.
//!
//! The page spawns its worker itself (a `web_sys::Worker` running `worker.js`), so that it
//! hears the worker's `error` event (a wasm trap, running out of memory) and can terminate it
//! at once. Each run is tagged with its number, and so is every reply, so a reply of a cancelled
//! or replaced run is dropped by the reducer. Cancel terminates the worker (its memory goes with
//! it) and the next run starts a fresh one; so does a failure. A worker that stops answering
//! without an error is noticed by a watchdog, and a run that takes longer than the page's
//! wall-clock budget is stopped: either way the run is marked failed with a message.
//!
//! Recordings are read by a second worker of the same kind: the file is sliced into chunks
//! (`File.slice`), each read and handed over only once the worker has taken the one before, so
//! neither side ever holds the whole text.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::timers::callback::Interval;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use schedlab_scenario::Scenario;

use crate::codec::Bytes;
use crate::recording::CHUNK_BYTES;
use crate::state::Action;
use crate::worker::{Reply, Request};

/// How long a running worker may stay silent before the page gives up on it. It reports after
/// every chunk of events, normally many times a second.
const WATCHDOG_MS: f64 = 60_000.0;

/// The longest a run may take in the page, wall-clock.
pub const RUN_BUDGET_MS: f64 = 180_000.0;

/// The run budget in force: [`RUN_BUDGET_MS`], or a shorter one the page's own script set in
/// `globalThis.schedlabRunBudgetMs` (the browser tests do; a link cannot).
fn run_budget_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"schedlabRunBudgetMs".into())
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|v| v.is_finite() && *v >= 100.0)
        .map_or(RUN_BUDGET_MS, |v| v.min(RUN_BUDGET_MS))
}

/// One worker: its `Worker` object, the messages waiting for it to load, and its handlers
/// (which live as long as it does). Dropping it terminates the worker.
struct Bridge {
    worker: web_sys::Worker,
    queue: Rc<RefCell<Option<Vec<JsValue>>>>,
    _on_message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::ErrorEvent)>,
}

impl Bridge {
    /// Starts a worker; its replies go to `on_reply`, its failure (a trap, an uncaught error,
    /// a script that does not load) to `on_error`.
    fn spawn(
        on_reply: impl Fn(Reply) + 'static,
        on_error: impl Fn(String) + 'static,
    ) -> Result<Bridge, String> {
        let js = crate::browser::asset_url("worker.js");
        let wasm = js.replace(".js", "_bg.wasm");
        let loader =
            js_sys::Array::of1(&format!("importScripts({js:?});wasm_bindgen({wasm:?});").into());
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type("application/javascript");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&loader, &opts)
            .map_err(|e| format!("{e:?}"))?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
        let worker = web_sys::Worker::new(&url).map_err(|e| format!("{e:?}"))?;
        let queue: Rc<RefCell<Option<Vec<JsValue>>>> = Rc::new(RefCell::new(Some(vec![])));
        // The message of a panic in the worker, which its error event does not carry.
        let panic: Rc<RefCell<Option<String>>> = Rc::default();
        let on_message = {
            let queue = queue.clone();
            let panic = panic.clone();
            let worker = worker.clone();
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                match crate::codec::decode::<Reply>(e.data()) {
                    Reply::Loaded => {
                        for m in queue.borrow_mut().take().unwrap_or_default() {
                            let _ = worker.post_message(&m);
                        }
                    }
                    Reply::Panicked(m) => *panic.borrow_mut() = Some(m),
                    r => on_reply(r),
                }
            })
        };
        let on_error =
            Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                let m = e.message();
                let m = if m.is_empty() {
                    "the worker's script could not be loaded".into()
                } else {
                    m
                };
                on_error(match panic.borrow_mut().take() {
                    Some(p) => format!("{m}: {p}"),
                    None => m,
                });
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Bridge {
            worker,
            queue,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    fn send(&self, r: &Request) {
        let m = crate::codec::encode(r);
        match self.queue.borrow_mut().as_mut() {
            Some(q) => q.push(m),
            None => {
                let _ = self.worker.post_message(&m);
            }
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// What the page knows of the worker of the current run.
#[derive(Default)]
struct Slot {
    bridge: Option<Bridge>,
    /// The run in progress, when it started and when the worker last answered for it (ms
    /// since the epoch), and the budget it runs under.
    run: Option<u64>,
    started_ms: f64,
    budget_ms: f64,
    last_reply_ms: Rc<Cell<f64>>,
    watchdog: Option<Interval>,
    /// The import in progress: its worker and the file being read.
    import: Option<Import>,
    /// Imports started so far.
    imports: u64,
}

struct Import {
    id: u64,
    bridge: Bridge,
    file: web_sys::File,
    /// The next byte to read.
    offset: f64,
}

/// A handle on the workers; replies become actions on `dispatch`.
#[derive(Clone)]
pub struct SimHandle {
    slot: Rc<RefCell<Slot>>,
    dispatch: Callback<Action>,
}

impl PartialEq for SimHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.slot, &other.slot)
    }
}

impl SimHandle {
    /// Starts run number `run` (the state has already checked it may).
    pub fn run(&self, run: u64, scenario: Scenario) {
        let mut slot = self.slot.borrow_mut();
        if slot.bridge.is_none() {
            let dispatch = self.dispatch.clone();
            let last = slot.last_reply_ms.clone();
            let this = self.clone();
            let on_reply = move |reply: Reply| {
                last.set(js_sys::Date::now());
                match reply {
                    Reply::Progress(p) => dispatch.emit(Action::Progress(p)),
                    Reply::Variant(v) => dispatch.emit(Action::VariantDone(v)),
                    Reply::Failed { run, message } => {
                        dispatch.emit(Action::Failed { run, message });
                        // A worker's wasm memory never shrinks: end the worker so that what
                        // the failed run took goes back (once this handler has returned).
                        let h = this.clone();
                        gloo::timers::callback::Timeout::new(0, move || {
                            let mine = h.slot.borrow().run.is_none_or(|r| r == run);
                            if mine {
                                h.cancel();
                            }
                        })
                        .forget();
                    }
                    Reply::Explained(x) => dispatch.emit(Action::Explained(x)),
                    _ => {}
                }
            };
            let handle = self.clone();
            let on_error = move |message: String| handle.worker_failed(&message);
            match Bridge::spawn(on_reply, on_error) {
                Ok(b) => slot.bridge = Some(b),
                Err(e) => {
                    drop(slot);
                    self.dispatch.emit(Action::Failed {
                        run,
                        message: format!("the simulation worker could not be started: {e}"),
                    });
                    return;
                }
            }
        }
        slot.run = Some(run);
        let now = js_sys::Date::now();
        slot.started_ms = now;
        slot.budget_ms = run_budget_ms();
        slot.last_reply_ms.set(now);
        if let Some(b) = slot.bridge.as_ref() {
            b.send(&Request::Run {
                run,
                scenario: Box::new(scenario),
            });
        }
        let handle = self.clone();
        slot.watchdog = Some(Interval::new(1_000, move || handle.check(run)));
    }

    /// Asks the run's worker why a switch happened (it keeps the last run's decision records);
    /// the answer comes back as [`Action::Explained`]. Nothing when the worker is gone.
    pub fn explain(&self, req: crate::model::ExplainReq) {
        if let Some(b) = self.slot.borrow().bridge.as_ref() {
            b.send(&Request::Explain(req));
        }
    }

    /// Stops the run in progress: the worker is terminated, and the next run starts a new one.
    pub fn cancel(&self) {
        let mut slot = self.slot.borrow_mut();
        slot.bridge = None;
        slot.run = None;
        slot.watchdog = None;
    }

    /// The worker of the run failed (its `error` event): the run is marked failed, the worker
    /// is dropped, and the next run starts a new one.
    fn worker_failed(&self, error: &str) {
        let run = self.slot.borrow().run;
        // Not here: dropping the worker inside its own event handler is fine, but the Bridge
        // holds the closure that is running; end it once the handler has returned.
        let handle = self.clone();
        gloo::timers::callback::Timeout::new(0, move || handle.cancel()).forget();
        if let Some(run) = run {
            self.dispatch.emit(Action::Failed {
                run,
                message: format!(
                    "the simulation worker failed ({error}); this run is marked failed, and the next run starts a new worker"
                ),
            });
        }
    }

    /// Marks the run failed if its worker has been silent too long or the run is over the
    /// wall-clock budget, and drops that worker.
    fn check(&self, run: u64) {
        let (silent_ms, took_ms, budget_ms) = {
            let slot = self.slot.borrow();
            if slot.run != Some(run) {
                return;
            }
            let now = js_sys::Date::now();
            (
                now - slot.last_reply_ms.get(),
                now - slot.started_ms,
                slot.budget_ms,
            )
        };
        let message = if took_ms > budget_ms {
            format!(
                "stopped: a run in the page may take at most {} s of wall-clock time (the page's limit); shorten duration_ms, use fewer variants, or run it with the command line",
                (budget_ms / 1000.0).round()
            )
        } else if silent_ms > WATCHDOG_MS {
            format!(
                "the simulation worker stopped answering ({} s without a word; it may have run out of memory): this run is marked failed, and the next run starts a new worker",
                (silent_ms / 1000.0).round()
            )
        } else {
            return;
        };
        self.cancel();
        self.dispatch.emit(Action::Failed { run, message });
    }

    /// The run ended (done or failed): no more watching.
    pub fn settled(&self, run: u64) {
        let mut slot = self.slot.borrow_mut();
        if slot.run == Some(run) {
            slot.run = None;
            slot.watchdog = None;
        }
    }

    /// Reads `file` as the next recording in a worker of its own (ending any import in
    /// progress); its derived scenario runs under `variants`.
    pub fn import(&self, file: web_sys::File, variants: Vec<String>) {
        let id = {
            let mut slot = self.slot.borrow_mut();
            slot.import = None;
            slot.imports += 1;
            slot.imports
        };
        self.dispatch.emit(Action::ImportStarted {
            id,
            file: file.name(),
            total: file.size() as u64,
        });
        let dispatch = self.dispatch.clone();
        let handle = self.clone();
        let on_reply = move |reply: Reply| match reply {
            Reply::ImportRead { id, bytes } => {
                dispatch.emit(Action::ImportProgress { id, bytes });
                handle.next_chunk(id);
            }
            Reply::Imported(r) => {
                let id = r.id;
                dispatch.emit(Action::Imported(r));
                handle.import_over(id);
            }
            Reply::ImportFailed { id, message } => {
                dispatch.emit(Action::ImportFailed { id, message });
                handle.import_over(id);
            }
            _ => {}
        };
        let on_error = {
            let dispatch = self.dispatch.clone();
            let handle = self.clone();
            move |error: String| {
                dispatch.emit(Action::ImportFailed {
                    id,
                    message: format!("the worker reading the recording failed ({error})"),
                });
                handle.import_over(id);
            }
        };
        let bridge = match Bridge::spawn(on_reply, on_error) {
            Ok(b) => b,
            Err(e) => {
                self.dispatch.emit(Action::ImportFailed {
                    id,
                    message: format!("the worker could not be started: {e}"),
                });
                return;
            }
        };
        bridge.send(&Request::ImportStart {
            id,
            file: file.name(),
            variants,
        });
        self.slot.borrow_mut().import = Some(Import {
            id,
            bridge,
            file,
            offset: 0.0,
        });
        self.next_chunk(id);
    }

    /// Reads the next chunk of import `id` and hands it to its worker (or says the file is
    /// over).
    fn next_chunk(&self, id: u64) {
        let (blob, end) = {
            let mut slot = self.slot.borrow_mut();
            let Some(imp) = slot.import.as_mut().filter(|i| i.id == id) else {
                return;
            };
            let size = imp.file.size();
            if imp.offset >= size {
                imp.bridge.send(&Request::ImportEnd { id });
                return;
            }
            let end = (imp.offset + CHUNK_BYTES).min(size);
            match imp.file.slice_with_f64_and_f64(imp.offset, end) {
                Ok(b) => (b, end),
                Err(e) => {
                    drop(slot);
                    self.dispatch.emit(Action::ImportFailed {
                        id,
                        message: format!("the file could not be read: {e:?}"),
                    });
                    self.import_over(id);
                    return;
                }
            }
        };
        let handle = self.clone();
        yew::platform::spawn_local(async move {
            let read = gloo::file::futures::read_as_bytes(&gloo::file::Blob::from(blob)).await;
            let mut slot = handle.slot.borrow_mut();
            let Some(imp) = slot.import.as_mut().filter(|i| i.id == id) else {
                return; // cancelled meanwhile
            };
            match read {
                Ok(bytes) => {
                    imp.offset = end;
                    imp.bridge.send(&Request::ImportChunk {
                        id,
                        bytes: Bytes(bytes),
                    });
                }
                Err(e) => {
                    let name = imp.file.name();
                    drop(slot);
                    handle.dispatch.emit(Action::ImportFailed {
                        id,
                        message: format!("{name} could not be read: {e}"),
                    });
                    handle.import_over(id);
                }
            }
        });
    }

    /// Import `id` is over (read, failed or cancelled): its worker is terminated.
    fn import_over(&self, id: u64) {
        let handle = self.clone();
        // After the handler that may be running in that worker's closure has returned.
        gloo::timers::callback::Timeout::new(0, move || {
            let mut slot = handle.slot.borrow_mut();
            if slot.import.as_ref().is_some_and(|i| i.id == id) {
                slot.import = None;
            }
        })
        .forget();
    }

    /// Stops reading the recording: its worker is terminated.
    pub fn cancel_import(&self) {
        self.slot.borrow_mut().import = None;
    }
}

/// The page's workers: the simulation worker is spawned on the first run and after a cancel
/// or a failure; a recording's worker for each recording.
#[hook]
pub fn use_sim_worker(dispatch: Callback<Action>) -> SimHandle {
    let slot = use_mut_ref(Slot::default);
    SimHandle { slot, dispatch }
}

/// Most workers a sweep runs at once, whatever the machine says it has.
pub const MAX_SWEEP_WORKERS: usize = 8;

/// How many workers a sweep runs at once: one per logical core (`navigator.hardwareConcurrency`),
/// at most [`MAX_SWEEP_WORKERS`].
fn sweep_workers() -> usize {
    let n = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    (n as usize).clamp(1, MAX_SWEEP_WORKERS)
}

/// The sweep in progress: the runs waiting and each running one's worker.
struct Pool {
    id: u64,
    queue: std::collections::VecDeque<(usize, Scenario, usize)>,
    running: Vec<(usize, Bridge)>,
    width: usize,
}

/// A handle on the sweep's workers: each run of a sweep (a point and a variant) gets a fresh
/// worker, at most [`sweep_workers`] at once; Cancel terminates them all.
#[derive(Clone)]
pub struct SweepHandle {
    pool: Rc<RefCell<Option<Pool>>>,
    dispatch: Callback<Action>,
}

impl PartialEq for SweepHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.pool, &other.pool)
    }
}

impl SweepHandle {
    /// Runs sweep `run` (ending any sweep in progress).
    pub fn start(&self, run: &crate::state::SweepRun) {
        *self.pool.borrow_mut() = Some(Pool {
            id: run.id,
            queue: run.work().into(),
            running: vec![],
            width: sweep_workers(),
        });
        self.fill();
    }

    /// Stops the sweep: its workers are terminated.
    pub fn cancel(&self) {
        self.pool.borrow_mut().take();
    }

    /// Starts runs until the pool is full or nothing waits.
    fn fill(&self) {
        let mut started = vec![];
        let mut failed = vec![];
        {
            let mut g = self.pool.borrow_mut();
            let Some(p) = g.as_mut() else { return };
            while p.running.len() < p.width {
                let Some((job, scenario, variant)) = p.queue.pop_front() else {
                    break;
                };
                let id = p.id;
                let on_reply = {
                    let d = self.dispatch.clone();
                    let h = self.clone();
                    move |reply: Reply| match reply {
                        Reply::SweepRow { id, job, figures } => {
                            d.emit(Action::SweepRow { id, job, figures });
                            h.job_over(id, job, false);
                        }
                        Reply::SweepFailed { id, job, message } => {
                            d.emit(Action::SweepFailed { id, job, message });
                            h.job_over(id, job, true);
                        }
                        _ => {}
                    }
                };
                let on_error = {
                    let d = self.dispatch.clone();
                    let h = self.clone();
                    move |error: String| {
                        d.emit(Action::SweepFailed {
                            id,
                            job,
                            message: format!("its worker failed ({error})"),
                        });
                        h.job_over(id, job, true);
                    }
                };
                match Bridge::spawn(on_reply, on_error) {
                    Ok(b) => {
                        b.send(&Request::SweepPoint {
                            id,
                            job,
                            scenario: Box::new(scenario),
                            variant,
                        });
                        p.running.push((job, b));
                        started.push((id, job));
                    }
                    Err(e) => {
                        failed.push((id, job, format!("a worker could not be started: {e}")));
                        *g = None;
                        break;
                    }
                }
            }
        }
        for (id, job) in started {
            self.dispatch.emit(Action::SweepJobRunning { id, job });
        }
        for (id, job, message) in failed {
            self.dispatch.emit(Action::SweepFailed { id, job, message });
        }
    }

    /// Run `job` of sweep `id` is over: its worker is terminated (once the handler that may be
    /// running in its closure has returned), and the next run starts; a failure ends the sweep.
    fn job_over(&self, id: u64, job: usize, failed: bool) {
        let h = self.clone();
        gloo::timers::callback::Timeout::new(0, move || {
            {
                let mut g = h.pool.borrow_mut();
                let Some(p) = g.as_mut().filter(|p| p.id == id) else {
                    return;
                };
                if failed {
                    *g = None;
                    return;
                }
                p.running.retain(|(j, _)| *j != job);
                if p.running.is_empty() && p.queue.is_empty() {
                    *g = None;
                    return;
                }
            }
            h.fill();
        })
        .forget();
    }
}

/// The sweep's workers.
#[hook]
pub fn use_sweep_workers(dispatch: Callback<Action>) -> SweepHandle {
    let pool = use_mut_ref(|| None::<Pool>);
    SweepHandle { pool, dispatch }
}
