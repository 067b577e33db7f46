//! What every component receives: the page state and a way to change it. Its own module, so
//! that components depend on it and not on the page (`app.rs`) that composes them.

use std::rc::Rc;

use yew::prelude::*;

use crate::state::{Action, State};

/// The state behind Yew's reducer hook.
#[derive(PartialEq)]
pub struct Store(pub State);

impl Reducible for Store {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(Store(self.0.reduce(action)))
    }
}

/// Properties every part of the page gets: the state and a way to change it.
#[derive(Properties, PartialEq, Clone)]
pub struct Ctx {
    pub state: Rc<Store>,
    pub dispatch: Callback<Action>,
}
