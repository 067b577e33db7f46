//! Effects: the bridge to the simulation worker.
//!
//! Each run is tagged with its number, and so is every reply, so a reply of a cancelled or
//! replaced run is dropped by the reducer. Cancel ends the worker (its memory goes with it) and
//! the next run starts a fresh one. A worker that stops answering (a trap, running out of
//! memory) is noticed by a watchdog: the run is marked failed with a message, and the next run
//! starts a fresh worker.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::timers::callback::Interval;
use gloo::worker::{Spawnable, WorkerBridge};
use yew::prelude::*;

use schedlab_scenario::Scenario;

use crate::codec::Cbor;
use crate::state::Action;
use crate::worker::{Reply, Request, SimWorker};

/// How long a running worker may stay silent before the page gives up on it. It reports after
/// every chunk of events, normally many times a second.
const WATCHDOG_MS: f64 = 60_000.0;

/// What the page knows of the worker of the current run.
#[derive(Default)]
struct Slot {
    bridge: Option<WorkerBridge<SimWorker>>,
    /// The run in progress and when the worker last answered for it (ms since the epoch).
    run: Option<u64>,
    last_reply_ms: Rc<Cell<f64>>,
    watchdog: Option<Interval>,
}

/// A handle on the simulation worker; replies become actions on `dispatch`.
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
            let bridge = SimWorker::spawner()
                .encoding::<Cbor>()
                .callback(move |reply: Reply| {
                    last.set(js_sys::Date::now());
                    dispatch.emit(match reply {
                        Reply::Progress(p) => Action::Progress(p),
                        Reply::Done(r) => Action::Finished(r),
                        Reply::Failed { run, message } => Action::Failed { run, message },
                    })
                })
                .spawn(&crate::browser::asset_url("worker.js"));
            slot.bridge = Some(bridge);
        }
        slot.run = Some(run);
        slot.last_reply_ms.set(js_sys::Date::now());
        if let Some(b) = slot.bridge.as_ref() {
            b.send(Request::Run {
                run,
                scenario: Box::new(scenario),
            });
        }
        let handle = self.clone();
        slot.watchdog = Some(Interval::new(5_000, move || handle.check(run)));
    }

    /// Stops the run in progress: the worker is ended, and the next run starts a new one.
    pub fn cancel(&self) {
        let mut slot = self.slot.borrow_mut();
        if let Some(b) = slot.bridge.take() {
            b.send(Request::Cancel);
        }
        slot.run = None;
        slot.watchdog = None;
    }

    /// Marks the run failed if its worker has been silent too long, and drops that worker.
    fn check(&self, run: u64) {
        let silent_ms = {
            let slot = self.slot.borrow();
            if slot.run != Some(run) {
                return;
            }
            js_sys::Date::now() - slot.last_reply_ms.get()
        };
        if silent_ms > WATCHDOG_MS {
            self.cancel();
            self.dispatch.emit(Action::Failed {
                run,
                message: format!(
                    "the simulation worker stopped answering ({} s without a word; it may have run out of memory): this run is marked failed, and the next run starts a new worker",
                    (silent_ms / 1000.0).round()
                ),
            });
        }
    }

    /// The run ended (done or failed): no more watching.
    pub fn settled(&self, run: u64) {
        let mut slot = self.slot.borrow_mut();
        if slot.run == Some(run) {
            slot.run = None;
            slot.watchdog = None;
        }
    }
}

/// The page's simulation worker, spawned on the first run and after a cancel.
#[hook]
pub fn use_sim_worker(dispatch: Callback<Action>) -> SimHandle {
    let slot = use_mut_ref(Slot::default);
    SimHandle { slot, dispatch }
}
