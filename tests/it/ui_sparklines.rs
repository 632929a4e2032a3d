//! The metrics strip's sparklines and the timeline are sampled by trace
//! time along every move (issue 33 items 4 and 5): a `g` jump fills them
//! at the tick on its way, also while an external policy answers; going
//! back forgets the future, so the strip shows what the replay was then,
//! the same as a replay that went there directly.

use crate::common;

use common::ui::{act, app_for, cmd, render, sample, text};
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

const DAY: i64 = 86_400;

/// The metrics strip's two sparkline rows.
fn strip(app: &App) -> Vec<String> {
    let s = text(&render(app, 80, 24));
    s.lines()
        .filter(|l| l.starts_with("util") || l.starts_with("queue"))
        .map(|l| l.chars().take(34).collect())
        .collect()
}

/// The timeline's samples in the hour before now.
fn last_hour(app: &App) -> Vec<(i64, f64)> {
    let now = app.engine().now();
    app.timeline_util()
        .into_iter()
        .filter(|(t, _)| *t > now - 3600)
        .collect()
}

#[test]
fn going_back_shows_what_was_then_and_a_jump_fills_the_timeline() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut app, Action::GoTo(9 * DAY + 12 * 3600));
    let later = strip(&app);
    assert!(later[1].contains("queue     36"), "{later:?}");
    // A sample a minute (the tick) on the way: the last hour has 60.
    let hour = last_hour(&app);
    assert!(hour.len() >= 60, "{} samples in the last hour", hour.len());
    act(&mut app, Action::GoTo(2 * DAY + 12 * 3600));
    let back = strip(&app);
    let mut direct = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut direct, Action::GoTo(2 * DAY + 12 * 3600));
    assert_eq!(
        back,
        strip(&direct),
        "the strip after g back is the replay's then"
    );
    assert_eq!(
        app.timeline_util(),
        direct.timeline_util(),
        "and so is the timeline"
    );
    assert!(
        back[1].starts_with("queue      0") && !back[1].contains('█'),
        "{back:?}"
    );
    // A step forward and back: the strip as it was (no bar added).
    cmd(&mut app, Command::Step);
    cmd(&mut app, Command::StepBack);
    assert_eq!(strip(&app), back);
}

#[test]
fn a_jump_under_an_external_policy_is_sampled_on_its_way() {
    if std::process::Command::new("python3")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/fifo.py");
    let p: Policy = tracetui::driver::resolve(
        &format!("exec:python3 {script}"),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap();
    let mut app = app_for(sample(), p, (80, 24));
    act(&mut app, Action::GoTo(DAY + 12 * 3600));
    assert_eq!(app.engine().now(), DAY + 12 * 3600, "the jump arrived");
    let mut fifo = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut fifo, Action::GoTo(DAY + 12 * 3600));
    // fifo.py orders as fifo does: the same samples, a minute apart.
    assert!(
        last_hour(&app).len() >= 60,
        "{} in the last hour",
        last_hour(&app).len()
    );
    // The same samples, and one more where the replay stood at its first
    // question (the state then, before the policy answered).
    let (a, b) = (app.timeline_util(), fifo.timeline_util());
    let times: std::collections::HashSet<i64> = b.iter().map(|s| s.0).collect();
    let shared: Vec<(i64, f64)> = a.iter().copied().filter(|s| times.contains(&s.0)).collect();
    let first = shared.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(
        (shared.len(), first),
        (b.len(), None),
        "{:?}",
        first.map(|i| (shared[i], b[i]))
    );
    assert!(
        a.len() - b.len() <= 2,
        "{} extra samples",
        a.len() - b.len()
    );
    assert_eq!(strip(&app), strip(&fifo));
}
