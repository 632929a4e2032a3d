//! Helpers for the TUI tests: an app on a fixture, commands through
//! `update` (with the trace reads it asks for answered by the runner, as
//! the event loop does), a screen rendered into a buffer and read back.

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{Placement, Policy};
use tracetui::trace::Trace;
use tracetui::ui::app::{Action, App, Effect, Update};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::{Command, Keymap};
use tracetui::ui::theme::{Depth, Theme};

/// The PAI fixture's first submission.
pub const T0: i64 = 4_550_879;

/// Every embedded theme, in their order (`dark` first).
pub fn themes() -> Vec<Theme> {
    tracetui::ui::theme::EMBEDDED
        .iter()
        .map(|(n, _)| Theme::embedded(n, Depth::TrueColor).unwrap())
        .collect()
}

/// The index of a theme in `themes()`.
pub fn theme_index(name: &str) -> usize {
    themes().iter().position(|t| t.name == name).unwrap()
}

/// The replay of `trace` under `policy`, sized.
pub fn app_for(trace: Arc<Trace>, policy: Policy, size: (u16, u16)) -> App {
    let mut app = App::new(
        trace,
        policy,
        Placement::Consolidate,
        "test".into(),
        themes(),
        Keymap::defaults(),
    );
    app.update(Action::Resize(size.0, size.1));
    app
}

/// The hand-written PAI fixture.
pub fn pai() -> Arc<Trace> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pai");
    Arc::new(
        tracetui::trace::load_pai(&dir, &Default::default())
            .unwrap()
            .0,
    )
}

/// The generated PAI sample (`sample-traces/pai`).
pub fn pai_sample() -> Arc<Trace> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/pai");
    Arc::new(
        tracetui::trace::load_pai(&dir, &Default::default())
            .unwrap()
            .0,
    )
}

/// The PAI sample under `policy` at `size`, its sensor and metric tables
/// indexed (as the runner does in the background), gone `secs` past its start.
pub fn pai_sample_indexed(policy: Policy, size: (u16, u16), secs: i64) -> App {
    let trace = pai_sample();
    let util = trace.native.as_ref().unwrap().build_indexes().unwrap();
    let mut app = app_for(trace, policy, size);
    act(&mut app, Action::Indexed(Ok(util.map(Arc::new))));
    let t = app.engine().now() + secs;
    act(&mut app, Action::GoTo(t));
    app
}

/// The built-in ITP sample (2,000 jobs).
pub fn sample() -> Arc<Trace> {
    Arc::new(tracetui::trace::sample_itp().unwrap().0)
}

/// `action` through `update`, then the trace reads among its effects
/// (utilisation, drill-downs) and an external policy's questions (waited
/// for as long as its timeout allows) performed by the runner at once, as
/// the event loop does; the update (every effect listed, the others not performed),
/// `changed` counting the answers too.
pub fn act(app: &mut App, action: Action) -> Update {
    let mut u = app.update(action);
    let reads: Vec<Effect> = u
        .effects
        .iter()
        .filter(|e| {
            matches!(
                e,
                Effect::ReadGpuUtil { .. }
                    | Effect::ReadJobDetail { .. }
                    | Effect::ReadMachine { .. }
                    | Effect::Ask { .. }
            )
        })
        .cloned()
        .collect();
    u.changed |= Effects::new(std::env::temp_dir()).perform(app, reads);
    u
}

/// A command through `act`.
pub fn cmd(app: &mut App, c: Command) -> Update {
    act(app, Action::Command(c))
}

/// `text` typed into the filter prompt (open, after `erase` backspaces)
/// and entered: the log lines it gave.
pub fn filter_log(app: &mut App, erase: usize, text: &str) -> Vec<String> {
    cmd(app, Command::Filter);
    for _ in 0..erase {
        app.update(Action::Backspace);
    }
    for ch in text.chars() {
        app.update(Action::Char(ch));
    }
    cmd(app, Command::Detail)
        .log_lines()
        .iter()
        .map(|l| l.to_string())
        .collect()
}

pub fn render(app: &App, w: u16, h: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    tracetui::ui::draw::render(app, buf.area, &mut buf);
    buf
}

pub fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// The grid cell of GPU `k` of display machine `pos` (GPU mode), by layout.
pub fn gpu_cell<'a>(app: &App, buf: &'a Buffer, pos: usize, k: u16) -> &'a Cell {
    let a = tracetui::ui::layout::areas(buf.area);
    let inner = tracetui::ui::layout::inner(a.grid);
    let lay = tracetui::ui::grid::layout(app, inner);
    let p = lay.cells[pos];
    &buf[(inner.x + p.x + 1 + k * lay.cell_w, inner.y + p.row as u16)]
}

/// `w` through the effects runner, then its rows run to the end (at most
/// two minutes) and their results taken in.
pub fn what_if_done(app: &mut App) {
    let mut fx = Effects::new(std::env::temp_dir());
    fx.dispatch(app, Action::Command(Command::WhatIf));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !app.what_if().unwrap().done() {
        assert!(std::time::Instant::now() < deadline, "what-if runs finish");
        fx.poll(app);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    fx.poll(app);
}

/// A built-in lesson as `tracetui lesson NAME` plays it (its schedule,
/// placement and captions), at `size`.
pub fn lesson_app(name: &str, size: (u16, u16)) -> App {
    let l = tracetui::lesson::find(name).unwrap();
    let trace = Arc::new(l.trace().0);
    let s = tracetui::sim::Schedule::parse(&trace, &l.schedule).unwrap();
    let mut app = App::new(
        trace,
        s.start.unwrap(),
        l.placement,
        format!("lesson {name}"),
        themes(),
        Keymap::defaults(),
    )
    .with_tuning(Default::default(), Some(&s))
    .with_captions(l.captions.clone());
    app.update(Action::Resize(size.0, size.1));
    app
}
