//! # schedlab-web
//!
//! The playground page: a Yew app (`bin/app.rs`) and its simulation worker (`bin/worker.rs`).
//! [`state`] holds the page's state and its one reducer and [`model`] the view models; neither
//! uses Yew, so both are tested natively. Components (one per file in [`components`]) render the
//! state and draw their canvases in effects; the worker bridge is in [`hooks`] (messages encoded by [`codec`]), downloads, the
//! clipboard and the address bar in [`browser`].

#![forbid(unsafe_code)]

pub mod browser;
pub mod canvas;
pub mod codec;
pub mod components;
pub mod examples;
pub mod hooks;
pub mod model;
pub mod recording;
pub mod state;
pub mod worker;
