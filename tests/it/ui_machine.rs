//! The machine drill-down (`i`, issue 33 item 14): PAI's measurements (the
//! sensors of the instances placed there then, the machine-metric row) as
//! Philly's minute is shown; ↑↓ pick a GPU row and Enter opens its job;
//! the grid's title names the colour mode at 80 columns and, for
//! utilisation, shows its scale.

use crate::common;

use common::ui::{cmd, render, text};
use tracetui::sim::Policy;
use tracetui::ui::app::{App, Popup};
use tracetui::ui::keymap::Command;

/// The PAI sample at day 1 16:00 (recorded), its side tables indexed, the
/// cursor on the grid's `pos`-th machine.
fn pai_at_four(pos: usize) -> App {
    let mut app = common::ui::pai_sample_indexed(Policy::Recorded, (80, 24), 16 * 3600);
    for _ in 0..pos {
        cmd(&mut app, Command::Right);
    }
    app
}

#[test]
fn a_pai_machine_shows_its_sensors_and_metric_and_enter_opens_a_gpus_job() {
    let mut app = pai_at_four(0);
    cmd(&mut app, Command::Machine);
    let Some(Popup::Detail { lines, picks, .. }) = app.popup().cloned() else {
        panic!("{:?}", app.popup())
    };
    let all = lines.join("\n");
    assert!(
        all.contains("sensor:") && all.contains("gpu_wrk_util_mean"),
        "{all}"
    );
    assert!(
        all.contains("machine_metric:") && all.contains("machine_gpu"),
        "{all}"
    );
    assert!(
        !all.contains("e-1") && !all.contains("0000000"),
        "values as written:\n{all}"
    );
    assert_eq!(picks.len(), 2, "a T4 machine's two GPUs");
    // The second GPU: Enter opens the job that holds most of it.
    cmd(&mut app, Command::Down);
    let s = text(&render(&app, 80, 24));
    assert!(s.lines().any(|l| l.contains("▸ - gpu1: ")), "{s}");
    let want = picks[1].1.expect("gpu1 is held");
    cmd(&mut app, Command::Detail);
    match app.popup() {
        Some(Popup::Detail { job: Some(j), .. }) => assert_eq!(*j, want),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_grid_title_names_the_colour_and_its_scale_at_80_columns() {
    let mut app = pai_at_four(0);
    let title = |app: &App| {
        text(&render(app, 80, 24))
            .lines()
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert!(title(&app).contains("colour: job"), "{}", title(&app));
    cmd(&mut app, Command::ColorBy);
    cmd(&mut app, Command::ColorBy);
    assert!(
        title(&app).contains("GPUs · util (sensor) ■<34 ■<67 ■≥67 %"),
        "{}",
        title(&app)
    );
    cmd(&mut app, Command::ColorBy);
    cmd(&mut app, Command::Zoom);
    assert!(
        title(&app).contains("GPUs · colour: job"),
        "{}",
        title(&app)
    );
}
