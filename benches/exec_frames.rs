//! Frames while an external policy decides: the sample replay played at
//! x1800 for ten seconds of wall time, 30 frames a second as the event loop
//! paces them (the policy given until 60 % of the frame, the screen drawn
//! at 80×24), under the built-in `sjf`, `policies/sjf.py` and the same
//! policy taking 0.2 s over every answer — and that one with no deadline,
//! every frame waiting for every answer, as the replay did before. Prints each frame's own time
//! (update + draw: what holds the terminal) and how far the replay got.
//!
//! Run: `cargo bench --bench exec_frames`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracetui::sim::{Placement, Policy};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::{Command, Keymap};
use tracetui::ui::theme::{Depth, Theme};

const FRAME: Duration = Duration::from_millis(33);
const FRAMES: usize = 300;

fn main() {
    let python = std::process::Command::new("python3").arg("-V").output();
    if python.is_err() {
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    let file = std::env::temp_dir().join(format!("tracetui-slow-{}.py", std::process::id()));
    std::fs::write(
        &file,
        "import sys, time\nsys.path.insert(0, 'policies')\n\
         from sjf import Sjf\nfrom tracetui_policy import run\n\
         class Slow(Sjf):\n    name = 'slow-sjf'\n\
         \x20   def priority(self, job):\n        time.sleep(0.2)\n        return Sjf.priority(self, job)\n\
         run(Slow())\n",
    )
    .unwrap();
    let slow = format!("exec:python3 {}", file.display());
    let runs: [(&str, &str, bool); 4] = [
        ("built-in sjf", "sjf", true),
        ("policies/sjf.py", "exec:python3 policies/sjf.py", true),
        ("sjf.py, 0.2 s an answer", &slow, true),
        ("the same, no deadline", &slow, false),
    ];
    println!(
        "{:<26} {:>8} {:>8} {:>8} {:>8}  replayed",
        "policy", "median", "p99", "max", "waiting"
    );
    for (label, name, deadline) in runs {
        let p: Policy = name.parse().unwrap_or_else(|e| panic!("{e}"));
        let (mut times, waiting, replayed) = play(p, deadline);
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize] * 1e3;
        println!(
            "{label:<26} {:>6.2}ms {:>6.2}ms {:>6.2}ms {:>7}%  {:.1} h of trace",
            at(0.5),
            at(0.99),
            at(1.0),
            waiting * 100 / FRAMES,
            replayed as f64 / 3600.0
        );
    }
}

/// Frame times (s), frames that ended waiting, trace seconds replayed;
/// without a deadline, each frame waits for every answer (as before).
fn play(p: Policy, deadline: bool) -> (Vec<f64>, usize, i64) {
    let trace = Arc::new(tracetui::trace::sample_itp().unwrap().0);
    let themes = vec![Theme::embedded("dark", Depth::TrueColor).unwrap()];
    let mut app = App::new(
        trace,
        p,
        Placement::Consolidate,
        "bench".into(),
        themes,
        Keymap::defaults(),
    );
    app.update(Action::Resize(80, 24));
    // x60 → x1800.
    for _ in 0..4 {
        app.update(Action::Command(Command::Faster));
    }
    app.update(Action::Command(Command::TogglePlay));
    let start = app.engine().now();
    let mut fx = tracetui::ui::effects::Effects::new(std::env::temp_dir());
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 24));
    let (mut times, mut waiting) = (Vec::with_capacity(FRAMES), 0);
    for _ in 0..FRAMES {
        let t = Instant::now();
        fx.answer_by(deadline.then(|| t + FRAME.mul_f64(0.6)));
        fx.dispatch(&mut app, Action::Elapsed(FRAME.as_secs_f64()));
        buf.reset();
        tracetui::ui::draw::render(&app, buf.area, &mut buf);
        let took = t.elapsed();
        times.push(took.as_secs_f64());
        waiting += app.waiting() as usize;
        std::thread::sleep(FRAME.saturating_sub(took));
    }
    (times, waiting, app.engine().now() - start)
}
