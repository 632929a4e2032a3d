//! The timeline view (`T`): snapshots at 80×24 and 120×40, in colour and
//! mono (the same text: nothing is told by colour alone); zoom, scroll,
//! step back and `--ascii`.

use crate::common;

use common::ui::{app_for, cmd, render, sample, text, theme_index};
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// The sample from day 8, stepped a day in ten-minute ticks, timeline open
/// on the one-day window.
fn stepped(size: (u16, u16), theme: &str) -> App {
    let mut app = app_for(sample(), Policy::Fifo, size).with_theme(theme_index(theme));
    app.update(Action::GoTo(8 * 86_400));
    // Ticks: 1 s, 10 s, 1 m, 10 m, …: two up from the default minute.
    cmd(&mut app, Command::TickUp);
    for _ in 0..144 {
        cmd(&mut app, Command::Step);
    }
    cmd(&mut app, Command::Timeline);
    cmd(&mut app, Command::Zoom);
    cmd(&mut app, Command::Zoom);
    app
}

#[test]
fn timeline_snapshots_in_colour_and_mono() {
    for (w, h) in [(80u16, 24u16), (120, 40)] {
        let colour = text(&render(&stepped((w, h), "dark"), w, h));
        let mono = text(&render(&stepped((w, h), "mono"), w, h));
        assert_eq!(colour, mono, "mono shows everything colour does");
        insta::assert_snapshot!(format!("timeline_{w}x{h}"), colour);
        assert!(
            colour.contains("Timeline · 1 day · follows now"),
            "{colour}"
        );
        for chart in ["util %", "queue", "running"] {
            assert!(colour.contains(chart), "{chart}");
        }
    }
}

#[test]
fn zoom_scroll_step_back_and_close() {
    let (w, h) = (100, 30);
    let mut app = stepped((w, h), "dark");
    let right_label = |app: &App| {
        let s = text(&render(app, w, h));
        // The time axis: the timeline's last line with a clock on it.
        let axis = s
            .lines()
            .rfind(|l| l.starts_with("│ ") && l.contains("day "))
            .unwrap()
            .to_string();
        axis.trim_end_matches(['│', ' '])
            .rsplit("  ")
            .next()
            .unwrap()
            .trim()
            .to_string()
    };
    let now = right_label(&app);
    cmd(&mut app, Command::Left);
    let s = text(&render(&app, w, h));
    assert!(s.contains("← earlier · → later"), "{s}");
    assert_ne!(right_label(&app), now, "scrolled back");
    cmd(&mut app, Command::Right);
    assert_eq!(right_label(&app), now, "and forward to now again");
    // A step back moves the window's end with the replay.
    cmd(&mut app, Command::StepBack);
    assert_ne!(right_label(&app), now);
    cmd(&mut app, Command::Zoom);
    assert!(text(&render(&app, w, h)).contains("Timeline · 1 week"));
    cmd(&mut app, Command::Timeline);
    assert!(
        !text(&render(&app, w, h)).contains("Timeline"),
        "T closes it"
    );
}

#[test]
fn ascii_keeps_the_series_and_the_time_shown_apart() {
    let (w, h) = (80, 24);
    let app = stepped((w, h), "mono").with_ascii(true);
    let s = text(&render(&app, w, h));
    assert!(s.is_ascii(), "{s}");
    assert!(s.contains('#'), "the time shown: {s}");
    assert!(s.contains('.'), "the series: {s}");
}

/// A `g` jump a day ahead samples the timeline on its way: about a hundred
/// points across the day, each what the engine shows at that time — not a
/// straight line from the jump's start to its end.
#[test]
fn a_jump_fills_the_timeline_on_its_way() {
    use tracetui::sim::{Engine, Placement};
    let mut app = app_for(sample(), Policy::Fifo, (100, 30));
    app.update(Action::GoTo(8 * 86_400));
    app.update(Action::GoTo(9 * 86_400));
    let between: Vec<(i64, f64)> = app
        .timeline_util()
        .into_iter()
        .filter(|&(t, _)| t > 8 * 86_400 && t < 9 * 86_400)
        .collect();
    assert!(between.len() >= 90, "{} samples in the day", between.len());
    let mut e = Engine::new(sample(), Policy::Fifo, Placement::Consolidate);
    let gpus = app.trace().cluster.total_gpus() as f64;
    for &(t, util) in &between {
        e.advance_to(t);
        let want = e.cluster().allocated_milli() as f64 / (gpus * 10.0);
        assert!((util - want).abs() < 1e-9, "at {t}: {util} vs {want}");
    }
    // They are not on one line: the day had ups and downs.
    let distinct: std::collections::BTreeSet<u64> =
        between.iter().map(|&(_, u)| (u * 1000.0) as u64).collect();
    assert!(distinct.len() > 3, "{distinct:?}");
}

/// `e` writes what the timeline shows (the export renders the screen).
#[test]
fn export_writes_the_timeline() {
    let app = stepped((120, 40), "dark");
    let dir = common::scratch_dir("timeline-export");
    let (txt, _svg, _) = tracetui::ui::effects::export_to(&app, &dir).unwrap();
    let txt = std::fs::read_to_string(txt).unwrap();
    assert!(txt.contains("Timeline · 1 day · follows now"), "{txt}");
    assert!(txt.contains("util %") && txt.contains("running"));
}

/// Issue 33 item 24: with the split open, `T` draws B's utilisation and
/// queue over A's, sampled at the same times; B's past before the split is
/// A's.
#[test]
fn the_split_overlays_b_on_the_timeline() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(9 * 86_400 + 6 * 3600));
    common::split::split_with(&mut app, Policy::Sjf);
    app.update(Action::GoTo(9 * 86_400 + 12 * 3600));
    let (a, b) = (app.timeline_util(), app.split().unwrap().timeline_util());
    let since = app.split().unwrap().since();
    let times = |v: &[(i64, f64)]| v.iter().map(|p| p.0).collect::<Vec<_>>();
    assert_eq!(times(&a), times(&b), "the same times");
    let before = |v: &[(i64, f64)]| {
        v.iter()
            .filter(|p| p.0 <= since)
            .copied()
            .collect::<Vec<_>>()
    };
    assert_eq!(before(&a), before(&b), "B's past is A's");
    assert_ne!(a, b, "after the split they differ");
    let last = b.last().unwrap();
    let e = app.split().unwrap().replay().engine();
    assert_eq!(last.0, e.now());
    cmd(&mut app, Command::Timeline);
    cmd(&mut app, Command::Zoom);
    let s = text(&render(&app, 120, 40));
    assert!(s.contains("util % · A fifo ⠒ · B sjf ∘"), "{s}");
    assert!(s.contains("queue · A fifo ⠒ · B sjf ∘"), "{s}");
    assert!(s.matches('∘').count() > 50, "{s}");
}
