//! The full-screen replay. Views are pure functions of `App`; every change
//! is an `Action` through `App::update`, which does no I/O and returns the
//! effects (export files, the what-if fork, reads of the trace's files, log
//! lines, mouse, quit) for `effects::Effects` to perform; the terminal is
//! touched only in `run`.

pub mod action;
mod ansi;
pub mod app;
pub mod ascii;
mod background;
mod build;
mod cdf;
mod chrome;
pub mod colour;
mod command_line;
mod commands;
pub mod draw;
pub mod effects;
pub(crate) mod error;
pub mod export;
mod facts;
pub(crate) mod figures;
pub(crate) mod filter;
mod find;
pub mod grid;
mod grid_style;
mod grid_title;
pub(crate) mod hints;
mod job_card;
mod job_detail;
mod key_input;
pub mod keymap;
pub mod layout;
pub(crate) mod lecture;
pub mod line_edit;
pub(crate) mod live;
mod log_view;
mod logfmt;
mod logger;
mod look;
mod machine_detail;
mod measured;
mod metrics_strip;
mod nav;
mod play;
mod playback;
pub(crate) mod popups;
pub(crate) mod queue;
mod queue_column;
pub mod rankings;
pub(crate) mod run;
mod screen;
mod selection;
mod signals;
pub mod split;
mod split_view;
mod state;
mod switches;
pub mod theme;
pub(crate) mod timeline;
pub(crate) mod whatif;
