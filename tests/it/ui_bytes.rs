//! Bytes a frame costs over the wire, through a real crossterm backend:
//! steady replay of the whole PAI cluster must stay light over SSH.

use crate::common;

use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::sync::Arc;
use tracetui::sim::{Placement, Policy};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::{Command, Keymap};
use tracetui::ui::theme::{Depth, Theme};

/// A writer that only counts what it is given.
#[derive(Clone, Default)]
struct Counter(std::rc::Rc<std::cell::Cell<usize>>);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bytes written for each of `frames` frames, one 1-minute tick apart.
fn frame_bytes(depth: Depth, frames: usize) -> Vec<usize> {
    frame_bytes_in(depth, frames, (200, 60), None)
}

/// `frame_bytes` at `size`, split with `split` on the B side when given.
fn frame_bytes_in(
    depth: Depth,
    frames: usize,
    size: (u16, u16),
    split: Option<Policy>,
) -> Vec<usize> {
    // The released cluster (6,742 GPUs): the sample is a small one.
    let dir = common::scratch_dir("bytes-pai");
    tracetui::gen::pai::write(&tracetui::gen::pai::GenOptions::released(2000, 42), &dir).unwrap();
    let trace = Arc::new(
        tracetui::trace::load_pai(&dir, &Default::default())
            .unwrap()
            .0,
    );
    let themes = vec![Theme::embedded("dark", depth).unwrap()];
    let mut app = App::new(
        trace,
        Policy::Recorded,
        Placement::Consolidate,
        "pai sample".into(),
        themes,
        Keymap::defaults(),
    );
    app.update(Action::Resize(size.0, size.1));
    app.update(Action::GoTo(app.engine().now() + 3600));
    if let Some(p) = split {
        common::split::split_with(&mut app, p);
        assert!(app.split().is_some(), "{:?}", app.flash());
    }
    let area = Rect::new(0, 0, size.0, size.1);
    let counter = Counter::default();
    let mut term = Terminal::with_options(
        CrosstermBackend::new(counter.clone()),
        TerminalOptions {
            viewport: Viewport::Fixed(area),
        },
    )
    .unwrap();
    let mut out = Vec::new();
    for _ in 0..=frames {
        counter.0.set(0);
        term.draw(|f| tracetui::ui::draw::draw(f, &app)).unwrap();
        out.push(counter.0.get());
        app.update(Action::Command(Command::Step));
    }
    out.remove(0); // the first frame paints everything
    out
}

#[test]
fn steady_one_minute_replay_of_the_pai_cluster_costs_under_10_kb_a_frame() {
    for depth in [Depth::TrueColor, Depth::Ansi256] {
        let bytes = frame_bytes(depth, 30);
        let max = *bytes.iter().max().unwrap();
        let mean = bytes.iter().sum::<usize>() / bytes.len();
        eprintln!("{depth:?}: bytes per frame mean {mean}, max {max}");
        assert!(max <= 10 * 1024, "{depth:?}: a frame took {max} bytes");
        assert!(mean > 0, "frames change something");
    }
}

/// The A/B split (recorded beside fifo, issue 12) keeps the single
/// replay's budget: ≤ 10 KB a frame at 200×60 and at 80×24.
#[test]
fn steady_replay_split_in_two_costs_under_10_kb_a_frame() {
    for size in [(200, 60), (80, 24)] {
        for depth in [Depth::TrueColor, Depth::Ansi256] {
            let bytes = frame_bytes_in(depth, 30, size, Some(Policy::Fifo));
            let max = *bytes.iter().max().unwrap();
            let mean = bytes.iter().sum::<usize>() / bytes.len();
            eprintln!("split {size:?} {depth:?}: bytes per frame mean {mean}, max {max}");
            assert!(max <= 10 * 1024, "{depth:?}: a frame took {max} bytes");
            assert!(mean > 0, "frames change something");
        }
    }
}
