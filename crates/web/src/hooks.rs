//! Effects: the bridge to the simulation worker.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::worker::{Spawnable, WorkerBridge};
use yew::prelude::*;

use schedlab_scenario::Scenario;

use crate::codec::Cbor;
use crate::state::Action;
use crate::worker::{Reply, Request, SimWorker};

/// A handle on the simulation worker; replies become actions on `dispatch`.
#[derive(Clone)]
pub struct SimHandle {
    bridge: Rc<RefCell<Option<WorkerBridge<SimWorker>>>>,
    dispatch: Callback<Action>,
}

impl PartialEq for SimHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.bridge, &other.bridge)
    }
}

impl SimHandle {
    fn send(&self, req: Request) {
        let mut slot = self.bridge.borrow_mut();
        if slot.is_none() {
            let dispatch = self.dispatch.clone();
            let bridge = SimWorker::spawner()
                .encoding::<Cbor>()
                .callback(move |reply: Reply| {
                    dispatch.emit(match reply {
                        Reply::Progress(p) => Action::Progress(p),
                        Reply::Done(r) => Action::Finished(r),
                        Reply::Failed(m) => Action::Failed(m),
                    })
                })
                .spawn(&crate::browser::asset_url("worker.js"));
            *slot = Some(bridge);
        }
        if let Some(b) = slot.as_ref() {
            b.send(req);
        }
    }

    /// Starts a run (the state has already checked it may).
    pub fn run(&self, scenario: Scenario) {
        self.send(Request::Run(Box::new(scenario)));
    }

    /// Stops the run in progress.
    pub fn cancel(&self) {
        self.send(Request::Cancel);
    }
}

/// The page's simulation worker, spawned once.
#[hook]
pub fn use_sim_worker(dispatch: Callback<Action>) -> SimHandle {
    let bridge = use_mut_ref(|| None);
    SimHandle { bridge, dispatch }
}
