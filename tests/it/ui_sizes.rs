//! Snapshots of the replay's screens at the three sizes users bring:
//! 80×24 (an SSH window), 120×40 and 200×60 — the main screen, help, a
//! drill-down, the what-if table and a lesson.

use crate::common;

use common::ui::{app_for, sample, what_if_done};
use std::sync::Arc;
use tracetui::lesson;
use tracetui::sim::{Placement, Policy};
use tracetui::ui::app::{Action, App};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::{Command, Keymap};

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

fn screen(app: &App, (w, h): (u16, u16)) -> String {
    common::ui::text(&common::ui::render(app, w, h))
}

/// The sample at day 9 00:00 (busy), at `size`, after `cmds` through the runner.
fn busy(size: (u16, u16), cmds: &[Command]) -> App {
    let mut app = app_for(sample(), Policy::Fifo, size);
    app.update(Action::GoTo(8 * 86_400));
    let mut fx = Effects::new(std::env::temp_dir());
    for &c in cmds {
        fx.dispatch(&mut app, Action::Command(c));
    }
    app
}

#[test]
fn main_help_and_drill_down_at_every_size() {
    for size in SIZES {
        let (w, h) = size;
        insta::assert_snapshot!(format!("main_{w}x{h}"), screen(&busy(size, &[]), size));
        insta::assert_snapshot!(
            format!("help_{w}x{h}"),
            screen(&busy(size, &[Command::Help]), size)
        );
        insta::assert_snapshot!(
            format!("drill_down_{w}x{h}"),
            screen(&busy(size, &[Command::Right, Command::Detail]), size)
        );
    }
}

#[test]
fn what_if_at_every_size() {
    for size in SIZES {
        let (w, h) = size;
        let mut app = busy(size, &[]);
        what_if_done(&mut app);
        // Its log line names the wall time taken: not part of the picture.
        let s = screen(&app, size);
        let s: String = s
            .lines()
            .map(|l| {
                if l.contains("runs done in") {
                    "(log line)"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        insta::assert_snapshot!(format!("what_if_{w}x{h}"), s);
    }
}

#[test]
fn a_lesson_at_every_size() {
    let l = lesson::find("hol").unwrap();
    for size in SIZES {
        let (w, h) = size;
        let t = Arc::new(l.trace().0);
        let themes = vec![tracetui::ui::theme::Theme::embedded(
            "dark",
            tracetui::ui::theme::Depth::TrueColor,
        )
        .unwrap()];
        let mut app = App::new(
            t,
            Policy::Fifo,
            Placement::Consolidate,
            format!("lesson {} · {}", l.name, l.title),
            themes,
            Keymap::defaults(),
        )
        .with_captions(l.captions.clone());
        app.update(Action::Resize(w, h));
        app.update(Action::GoTo(400));
        insta::assert_snapshot!(format!("lesson_{w}x{h}"), screen(&app, size));
    }
}
