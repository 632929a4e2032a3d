//! The lecture layout (`L`, issue 33 item 19): GPU cells scaled up to fill
//! the pane and labelled with their jobs' ids where they fit; the headline
//! figures (queue, mean wait, utilisation) kept, large; the timeline in
//! half blocks a projector shows. Snapshots at 80×24 and 120×40 in colour
//! and without (the done-when's set: `L`, the summary card, the rankings
//! and the machine table; the split's figures are in tests/ui_split.rs).

use crate::common;

use common::ui::{app_for, cmd, render, text, theme_index};
use ratatui::style::Modifier;
use std::sync::Arc;
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// The hol lesson's trace at 10 minutes, under `theme`, at `size`.
fn hol(size: (u16, u16), theme: &str) -> App {
    let l = tracetui::lesson::find("hol").unwrap();
    let mut app = app_for(Arc::new(l.trace().0), Policy::Fifo, size)
        .with_theme(theme_index(theme))
        .with_captions(l.captions.clone());
    app.update(Action::GoTo(600));
    app
}

#[test]
fn the_lecture_layout_is_big_and_labelled() {
    let mut app = hol((100, 30), "dark");
    cmd(&mut app, Command::Lecture);
    let buf = render(&app, 100, 30);
    let s = text(&buf);
    // Cells 6 wide (the widest whose machines fit), each job's id over its cells.
    assert!(
        s.contains("│▸01·1…█02·1…█03·1…█04·1…█05·1…█06·1…█07·1…█08·1…█"),
        "{s}"
    );
    let label = s.lines().position(|l| l.contains("│▸01·1…")).unwrap() as u16;
    let x = s
        .lines()
        .nth(label as usize)
        .unwrap()
        .chars()
        .position(|c| c == '0')
        .unwrap() as u16;
    assert!(buf[(x, label)].modifier.contains(Modifier::REVERSED));
    // The headline figures, large, where the metrics strip was.
    let head = s.lines().find(|l| l.contains("QUEUE")).expect("a headline");
    let e = app.engine();
    let (q, u) = (e.queue_len(), e.cluster().allocated_milli() as f64 / 160.0);
    assert!(
        head.contains(&format!("QUEUE {q} "))
            && head.contains("MEAN WAIT")
            && head.contains(&format!("UTIL {u:.0} %")),
        "{head}"
    );
    // The timeline in half blocks.
    cmd(&mut app, Command::Timeline);
    let t = text(&render(&app, 100, 30));
    assert!(t.contains('▀') || t.contains('▄') || t.contains('█'), "{t}");
    assert!(
        !t.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)),
        "no braille in L:\n{t}"
    );
}

/// `L`, the card, the rankings and the machine table at both sizes, in
/// colour and without.
#[test]
fn snapshots_in_colour_and_mono() {
    for (w, h) in [(80u16, 24u16), (120, 40)] {
        for theme in ["dark", "mono"] {
            let tag = format!("{w}x{h}_{theme}");
            let mut app = hol((w, h), theme);
            cmd(&mut app, Command::Lecture);
            insta::assert_snapshot!(format!("lecture_{tag}"), text(&render(&app, w, h)));
            let mut app = hol((w, h), theme);
            let q = app.engine().queue_in_order(1)[0];
            app.update(Action::JobDetailRead {
                job: q,
                at: 600,
                record: serde_json::json!({}),
            });
            insta::assert_snapshot!(format!("card_{tag}"), text(&render(&app, w, h)));
            let mut app = hol((w, h), theme);
            cmd(&mut app, Command::Rankings);
            insta::assert_snapshot!(format!("rankings_{tag}"), text(&render(&app, w, h)));
            cmd(&mut app, Command::Right);
            cmd(&mut app, Command::Right);
            insta::assert_snapshot!(format!("machines_{tag}"), text(&render(&app, w, h)));
        }
    }
}
