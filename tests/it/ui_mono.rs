//! Without colour (issue 33 item 18): a job of many GPUs reads as one bar
//! and many 1-GPU jobs as many (a wide whole-GPU cell ends in `▌` where
//! the next GPU is not the same job's, and at the machine's end); the
//! cursor marks its machine without reversing it (a free cell must not
//! look busy).

use crate::common;

use common::ui::{app_for, render, text, theme_index};
use ratatui::style::Modifier;
use tracetui::sim::Policy;
use tracetui::ui::app::Action;

/// One 8-GPU job on machine 0 and eight 1-GPU jobs on machine 1.
fn two_machines() -> tracetui::ui::app::App {
    let mut jobs = vec![(0, 1000, 8)];
    jobs.extend((0..8).map(|_| (0, 1000, 1)));
    let trace = common::tiny(&[8, 8], &jobs);
    let mut app = app_for(trace, Policy::Fifo, (80, 24)).with_theme(theme_index("mono"));
    app.update(Action::GoTo(10));
    app
}

#[test]
fn a_big_job_is_one_bar_and_small_jobs_are_many() {
    let app = two_machines();
    let s = text(&render(&app, 80, 24));
    let rows: Vec<&str> = s.lines().filter(|l| l.contains('▌')).collect();
    assert_eq!(rows.len(), 1, "{s}");
    let row = rows[0];
    assert!(row.contains("███████████████▌ █▌█▌█▌█▌█▌█▌█▌█▌"), "{row}");
}

#[test]
fn the_cursor_does_not_reverse_the_cells_without_colour() {
    let app = two_machines();
    let buf = render(&app, 80, 24);
    let s = text(&buf);
    let y = s.lines().position(|l| l.contains('▌')).unwrap() as u16;
    let x = s
        .lines()
        .nth(y as usize)
        .unwrap()
        .chars()
        .position(|c| c == '█')
        .unwrap() as u16;
    let cell = &buf[(x, y)];
    assert!(!cell.modifier.contains(Modifier::REVERSED), "{cell:?}");
    assert!(
        cell.modifier.contains(Modifier::UNDERLINED),
        "the cursor's machine: {cell:?}"
    );
    // In colour the theme's cursor is kept.
    let colour = app_for(common::tiny(&[8], &[(0, 100, 8)]), Policy::Fifo, (80, 24));
    let s2 = text(&render(&colour, 80, 24));
    assert!(
        !s2.contains('▌'),
        "colour tells jobs apart by colour:\n{s2}"
    );
}
