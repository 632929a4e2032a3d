//! TUI benchmarks: drawing the whole PAI cluster, one played tick on a
//! large trace, stepping back on the 1.26 M-job trace, and frames in the
//! A/B split beside the single replay's.
//!
//! Run: `cargo bench --bench ui`.

#[path = "../tests/it/common/split.rs"]
mod split;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::{Arc, Mutex, OnceLock};
use tracetui::gen::itp::{self as gen, GenOptions, Schema};
use tracetui::sim::{Engine, Placement, Policy, Replay};
use tracetui::trace::{load_itp_from, LoadOptions, Trace};
use tracetui::ui::app::{Action, App};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::{Command, Keymap};
use tracetui::ui::theme::{Depth, Theme};

fn main() {
    divan::main();
}

fn themes() -> Vec<Theme> {
    vec![Theme::embedded("dark", Depth::TrueColor).unwrap()]
}

/// A PAI trace on the full released cluster (1,897 machines, 6,742 GPUs),
/// as `gen pai --jobs 2000 --seed 42` writes it.
fn pai_app(w: u16, h: u16) -> App {
    let dir = std::env::temp_dir().join(format!("tracetui-bench-pai-{}", std::process::id()));
    tracetui::gen::pai::write(&tracetui::gen::pai::GenOptions::released(2000, 42), &dir).unwrap();
    let trace = Arc::new(
        tracetui::trace::load_pai(&dir, &Default::default())
            .unwrap()
            .0,
    );
    let mut app = App::new(
        trace,
        Policy::Recorded,
        Placement::Consolidate,
        "pai".into(),
        themes(),
        Keymap::defaults(),
    );
    app.update(Action::Resize(w, h));
    app.update(Action::GoTo(app.engine().now() + 3600));
    app
}

#[divan::bench(sample_count = 50)]
fn draw_pai_cluster_200x60(bencher: divan::Bencher) {
    let app = pai_app(200, 60);
    let area = Rect::new(0, 0, 200, 60);
    bencher.bench_local(|| {
        let mut buf = Buffer::empty(area);
        tracetui::ui::draw::render(&app, area, &mut buf);
        divan::black_box(buf);
    });
}

#[divan::bench(sample_count = 50)]
fn draw_pai_cluster_200x60_one_cell_per_gpu(bencher: divan::Bencher) {
    let mut app = pai_app(200, 60);
    app.update(Action::Command(Command::Zoom));
    let area = Rect::new(0, 0, 200, 60);
    bencher.bench_local(|| {
        let mut buf = Buffer::empty(area);
        tracetui::ui::draw::render(&app, area, &mut buf);
        divan::black_box(buf);
    });
}

fn big() -> Arc<Trace> {
    static T: OnceLock<Arc<Trace>> = OnceLock::new();
    T.get_or_init(|| {
        let g = GenOptions {
            jobs: 1_260_000,
            seed: 7,
            schema: Schema::Raw,
            target: Some((6744, 0.9)),
        };
        let mut v = Vec::new();
        gen::write(&g, &mut v).unwrap();
        let opts = LoadOptions {
            gpus: Some(6744),
            ..LoadOptions::default()
        };
        Arc::new(load_itp_from(&v[..], "generated-1.26M", &opts).unwrap().0)
    })
    .clone()
}

/// A first-fit replay of the 1.26 M-job trace.
fn big_app(t: &Arc<Trace>) -> App {
    App::new(
        t.clone(),
        Policy::FirstFit,
        Placement::Consolidate,
        "big".into(),
        themes(),
        Keymap::defaults(),
    )
}

/// Playing one 1-minute tick, mid-trace on the 1.26 M-job trace: the engine
/// step plus the app's bookkeeping (history, log, figures when due).
#[divan::bench(sample_count = 200)]
fn played_tick_one_minute_mid_trace(bencher: divan::Bencher) {
    let t = big();
    let mut app = big_app(&t);
    app.update(Action::Resize(200, 60));
    let mid = (t.first_submit().unwrap() + t.last_submit().unwrap()) / 2;
    app.update(Action::GoTo(mid));
    app.update(Action::Command(Command::TogglePlay));
    let app = Mutex::new(app);
    bencher.bench(|| {
        // x60 with 1-minute ticks: one second of wall time is one tick.
        app.lock().unwrap().update(Action::Elapsed(1.0))
    });
}

/// A `g` jump of eleven days from the start of the 1.26 M-job trace, as
/// the app makes it: the timeline sampled at the tick (1 minute) on the
/// way, 15,840 stops.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn jump_eleven_days_on_the_1m26_trace(bencher: divan::Bencher) {
    let t = big();
    let first = t.first_submit().unwrap();
    bencher
        .with_inputs(|| {
            let mut app = big_app(&t);
            app.update(Action::Resize(200, 60));
            app
        })
        .bench_values(|mut app| {
            app.update(Action::GoTo(first + 11 * 86_400));
            app
        });
}

/// Going back from the end to times spread over the 1.26 M-job trace.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn step_back_anywhere_on_the_1m26_trace(bencher: divan::Bencher) {
    let t = big();
    let mut r = Replay::new(Engine::new(
        t.clone(),
        Policy::FirstFit,
        Placement::Consolidate,
    ));
    let (first, last) = (t.first_submit().unwrap(), t.last_submit().unwrap());
    r.seek(last);
    let targets: Vec<i64> = (0..20)
        .map(|i| first + (last - first) * (19 - i) / 20 + 7)
        .collect();
    let r = Mutex::new(r);
    let i = std::sync::atomic::AtomicUsize::new(0);
    bencher
        .with_inputs(|| {
            // Untimed: back to the end first.
            r.lock().unwrap().seek(last);
            targets[i.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % targets.len()]
        })
        .bench_values(|target| r.lock().unwrap().seek(target));
}

/// A played tick while the what-if fork runs every policy on two background
/// threads (the UI's share of a 2-core machine).
#[divan::bench(sample_count = 200)]
fn played_tick_during_what_if(bencher: divan::Bencher) {
    let t = big();
    let mut app = big_app(&t);
    app.update(Action::Resize(200, 60));
    let mid = (t.first_submit().unwrap() + t.last_submit().unwrap()) / 2;
    app.update(Action::GoTo(mid));
    // The runner's side starts the fork and sends its results in.
    let mut fx = Effects::new(std::env::temp_dir());
    fx.dispatch(&mut app, Action::Command(Command::WhatIf));
    fx.dispatch(&mut app, Action::Command(Command::Close));
    fx.dispatch(&mut app, Action::Command(Command::TogglePlay));
    let state = Mutex::new((app, fx));
    bencher.bench(|| {
        let mut s = state.lock().unwrap();
        let (a, fx) = &mut *s;
        fx.poll(a);
        fx.dispatch(a, Action::Elapsed(1.0));
        let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, 200, 60));
        tracetui::ui::draw::render(a, buf.area, &mut buf);
        divan::black_box(buf);
    });
}

/// A frame while playing mid-trace on the 1.26 M-job trace: one 1-minute
/// tick (x60, a second of wall time) then the whole screen drawn at
/// `size`; with `split`, first-fit beside sjf (issue 12), else first-fit
/// alone — the two measured in one run.
fn played_frame(bencher: divan::Bencher, size: (u16, u16), split: bool) {
    let t = big();
    let mut app = big_app(&t);
    app.update(Action::Resize(size.0, size.1));
    let mid = (t.first_submit().unwrap() + t.last_submit().unwrap()) / 2;
    app.update(Action::GoTo(mid));
    if split {
        split::split_with(&mut app, Policy::Sjf);
        assert!(app.split().is_some());
    }
    app.update(Action::Command(Command::TogglePlay));
    let app = Mutex::new(app);
    let area = Rect::new(0, 0, size.0, size.1);
    bencher.bench(|| {
        let mut a = app.lock().unwrap();
        a.update(Action::Elapsed(1.0));
        let mut buf = Buffer::empty(area);
        tracetui::ui::draw::render(&a, area, &mut buf);
        divan::black_box(buf);
    });
}

#[divan::bench(sample_count = 200)]
fn frame_split_80x24(bencher: divan::Bencher) {
    played_frame(bencher, (80, 24), true);
}

#[divan::bench(sample_count = 200)]
fn frame_single_80x24(bencher: divan::Bencher) {
    played_frame(bencher, (80, 24), false);
}

#[divan::bench(sample_count = 200)]
fn frame_split_200x60(bencher: divan::Bencher) {
    played_frame(bencher, (200, 60), true);
}

/// The whole PAI cluster split (recorded beside fifo) drawn at 200×60.
#[divan::bench(sample_count = 50)]
fn draw_pai_cluster_split_200x60(bencher: divan::Bencher) {
    let mut app = pai_app(200, 60);
    split::split_with(&mut app, Policy::Fifo);
    assert!(app.split().is_some());
    let area = Rect::new(0, 0, 200, 60);
    bencher.bench_local(|| {
        let mut buf = Buffer::empty(area);
        tracetui::ui::draw::render(&app, area, &mut buf);
        divan::black_box(buf);
    });
}

/// The log pane's wrapping of a 256 KiB word (a job id or config key that
/// long) at 78 columns: was quadratic in the word's length, now linear.
#[divan::bench(sample_count = 10)]
fn wrap_a_256_kib_word_at_78_columns(bencher: divan::Bencher) {
    let word = "x".repeat(256 << 10);
    bencher.bench(|| tracetui::text::wrap_words(divan::black_box(&word), 78, 2).len());
}
