//! Paging in the replay at 80×24: a drill-down and the help move by the
//! rows they show (no line skipped), and Home, End and `G` jump.

use crate::common;

use common::ui::{app_for, cmd, render, text};
use tracetui::sim::Policy;
use tracetui::ui::action::Action;
use tracetui::ui::app::App;
use tracetui::ui::keymap::Command;

fn screen(app: &App) -> String {
    text(&render(app, 80, 24))
}

/// The drill-down's scroll and its rows (its lines, wrapped to the box).
fn detail_scroll(app: &App) -> (usize, usize) {
    let Some(tracetui::ui::app::Popup::Detail { scroll, .. }) = app.popup() else {
        panic!("no drill-down")
    };
    (*scroll, app.detail_rows().unwrap())
}

#[test]
fn paging_shows_every_drill_down_line_once_and_home_end_and_g_jump() {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    // A PAI job's drill-down (job, tasks, instances) runs to several pages.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/pai");
    let trace = tracetui::trace::load_pai(&dir, &Default::default())
        .unwrap()
        .0;
    let t0 = trace.jobs.iter().map(|j| j.submit).min().unwrap();
    let mut app = app_for(std::sync::Arc::new(trace), Policy::Recorded, (80, 24));
    app.update(Action::GoTo(t0 + 86_400 + 12 * 3600));
    cmd(&mut app, Command::Focus);
    cmd(&mut app, Command::Detail);
    let small = |app: &App| screen(app);
    let s = small(&app);
    let rows: Vec<&str> = s.lines().collect();
    let top = rows
        .iter()
        .position(|l| l.contains("┌ job "))
        .unwrap_or_else(|| panic!("{s}"));
    // The box's own bottom: the first row below with `└` in its left column.
    let col = rows[top].chars().position(|c| c == '┌').unwrap();
    let bottom = (top + 1..rows.len())
        .find(|&r| rows[r].chars().nth(col) == Some('└'))
        .unwrap_or_else(|| panic!("{s}"));
    let visible = bottom - top - 1;
    let (_, n) = detail_scroll(&app);
    assert!(
        n > 2 * visible,
        "a drill-down longer than two pages ({n} lines, {visible} rows)"
    );
    let max = n - visible;
    let mut want = 0;
    while want < max {
        want = (want + visible).min(max);
        cmd(&mut app, Command::PageDown);
        assert_eq!(
            detail_scroll(&app).0,
            want,
            "a page is the {visible} rows shown"
        );
    }
    cmd(&mut app, Command::PageUp);
    assert_eq!(detail_scroll(&app).0, max - visible);
    cmd(&mut app, Command::Home);
    assert_eq!(detail_scroll(&app).0, 0);
    let keys = tracetui::ui::keymap::Keymap::defaults();
    let g = keys.command(&KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT));
    assert_eq!(g, Some(Command::End), "G is End, as in less and vim");
    cmd(&mut app, Command::End);
    assert_eq!(detail_scroll(&app).0, max);
    // The help pages too, and stops with its last line at the bottom.
    cmd(&mut app, Command::Close);
    cmd(&mut app, Command::Help);
    cmd(&mut app, Command::PageDown);
    let paged = small(&app);
    assert!(
        !paged.contains("play / pause") && !paged.contains("step one tick"),
        "PgDn moves the help a page, not one line:\n{paged}"
    );
    cmd(&mut app, Command::End);
    let end = small(&app);
    assert!(end.contains("keys rebind in"), "{end}");
    cmd(&mut app, Command::Home);
    assert!(small(&app).contains("play / pause"));
}
