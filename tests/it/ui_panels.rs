//! What the panels draw, checked on buffers (symbols and styles): the GPU
//! grid's glyphs and shading, themes, measured utilisation and power, the
//! hint bar and help from the keymap, and the too-small screen.

use crate::common;

use common::ui::{act, app_for, cmd, gpu_cell, pai, render, sample, text, theme_index, themes, T0};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{Placement, Policy};
use tracetui::trace::Trace;
use tracetui::ui::app::{Action, App, ColorBy, Effect, Popup, Zoom};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::{Command, Keymap};

#[test]
fn grid_shows_fractional_sharing_with_glyphs() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    assert_eq!(
        app.zoom(),
        Zoom::Gpus,
        "the small fixture fits one cell per GPU"
    );
    app.update(Action::GoTo(T0 + 45));
    let buf = render(&app, 120, 40);
    // Display order: V100 (m1), T4 (m2), P100 (m3), unknown (mX).
    let m2 = app.machines().iter().position(|&m| m == 1).unwrap();
    assert_eq!(
        gpu_cell(&app, &buf, m2, 0).symbol(),
        "█",
        "two halves fill GPU 0"
    );
    assert_eq!(gpu_cell(&app, &buf, m2, 1).symbol(), "░", "a quarter");
    let m1 = app.machines().iter().position(|&m| m == 0).unwrap();
    assert_eq!(gpu_cell(&app, &buf, m1, 7).symbol(), "·", "free");
    app.update(Action::GoTo(T0 + 85));
    let buf = render(&app, 120, 40);
    let m3 = app.machines().iter().position(|&m| m == 2).unwrap();
    assert_eq!(gpu_cell(&app, &buf, m3, 0).symbol(), "!", "over capacity");
    assert!(
        text(&buf).contains("P100 · 1 machine × 2 GPUs · 3/2 busy"),
        "{}",
        text(&buf)
    );
    let app = app.with_ascii(true);
    let buf = render(&app, 120, 40);
    assert_eq!(gpu_cell(&app, &buf, m2, 1).symbol(), "-");
    assert_eq!(gpu_cell(&app, &buf, m2, 0).symbol(), "#");
    assert_eq!(buf[(0, 1)].symbol(), "+", "ASCII borders too");
    assert!(
        text(&buf).is_ascii() || !text(&buf).contains('│'),
        "no box-drawing characters"
    );
}

#[test]
fn machine_mode_shades_a_machine_by_its_occupied_fraction() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    cmd(&mut app, Command::Zoom);
    assert_eq!(app.zoom(), Zoom::Machines);
    app.update(Action::GoTo(T0 + 45));
    let buf = render(&app, 120, 40);
    let a = tracetui::ui::layout::areas(buf.area);
    let inner = tracetui::ui::layout::inner(a.grid);
    let lay = tracetui::ui::grid::layout(&app, inner);
    let cell = |pos: usize| {
        buf[(
            inner.x + lay.cells[pos].x,
            inner.y + lay.cells[pos].row as u16,
        )]
            .symbol()
            .to_string()
    };
    // m1 (8 GPUs) at T0+45: only j01's one GPU (j05, j10, j11 start later) → ≤¼.
    assert_eq!(cell(0), "░");
    // At T0+72 j01 1 + j05 2 + j10 4 + j11 1 fill it.
    app.update(Action::GoTo(T0 + 72));
    let full = render(&app, 120, 40);
    assert_eq!(
        full[(inner.x + lay.cells[0].x, inner.y + lay.cells[0].row as u16)].symbol(),
        "█"
    );
    // m2 (2 GPUs): 1.25 of 2 → more than half.
    assert_eq!(cell(1), "▓");
}

#[test]
fn the_mono_theme_draws_no_colour_and_keeps_the_cursor_visible() {
    let app = app_for(pai(), Policy::Recorded, (120, 40));
    let mut app = app.with_theme(theme_index("mono"));
    app.update(Action::GoTo(T0 + 45));
    let buf = render(&app, 120, 40);
    for c in buf.content() {
        assert_eq!(
            (c.fg, c.bg),
            (Color::Reset, Color::Reset),
            "cell {:?} has colour",
            c.symbol()
        );
    }
    // The cursor's machine: bold and underlined, not reversed (reverse
    // video would make a free cell look busy and a busy one free).
    let cursor = gpu_cell(&app, &buf, 0, 0);
    assert!(!cursor.modifier.contains(Modifier::REVERSED));
    assert!(cursor
        .modifier
        .contains(Modifier::UNDERLINED | Modifier::BOLD));
    assert!(text(&buf).contains("▸"), "a marker glyph, not colour alone");
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn the_pai_cluster_fits_a_200x60_screen_one_cell_per_machine() {
    let Some(root) = common::real_traces() else {
        return;
    };
    let dir = common::scratch_dir("pai-tui");
    tracetui::gen::pai::write(
        &tracetui::gen::pai::GenOptions {
            jobs: 500,
            seed: 2,
            tar_gz: false,
            gpus: None,
            days: None,
            spec: None,
        },
        &dir,
    )
    .unwrap();
    for f in [
        "pai_instance_table.csv",
        "pai_sensor_table.csv",
        "pai_machine_metric.csv",
    ] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    std::fs::copy(
        root.join("pai/pai_machine_spec.csv"),
        dir.join("pai_machine_spec.csv"),
    )
    .unwrap();
    let (t, _) = tracetui::trace::load_pai(&dir, &Default::default()).unwrap();
    let app = app_for(Arc::new(t), Policy::FirstFit, (200, 60));
    assert_eq!(
        app.zoom(),
        Zoom::Machines,
        "6,742 GPUs do not fit one cell each"
    );
    let a = tracetui::ui::layout::areas(Rect::new(0, 0, 200, 60));
    let inner = tracetui::ui::layout::inner(a.grid);
    let lay = tracetui::ui::grid::layout(&app, inner);
    assert!(
        lay.fits(inner.height),
        "{} rows in {}",
        lay.rows,
        inner.height
    );
    assert_eq!(lay.cells.len(), 1897 - 83, "every machine with GPUs");
}

/// The Philly fixture's replay with its utilisation files indexed (as the
/// background thread does) and the runner told so.
fn philly_indexed() -> (Arc<Trace>, App) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/philly");
    let (t, _) = tracetui::trace::load_philly(&dir, &Default::default()).unwrap();
    let t = Arc::new(t);
    let Some(n) = t.native_as::<tracetui::trace::PhillyTables>() else {
        panic!()
    };
    let _ = n.gpu_util.as_ref().unwrap().index();
    let _ = n.cpu_util.as_ref().unwrap().index();
    let _ = n.mem_util.as_ref().unwrap().index();
    let mut app = app_for(t.clone(), Policy::Recorded, (120, 40));
    act(&mut app, Action::Indexed(Ok(None)));
    (t, app)
}

fn philly_time(local: &str) -> i64 {
    tracetui::trace::parse_local(local).unwrap()
}

#[test]
fn philly_cells_colour_by_measured_utilisation_and_the_machine_drill_down_shows_it() {
    let (t, mut app) = philly_indexed();
    let at = philly_time("2017-10-07 01:12:30");
    act(&mut app, Action::GoTo(at));
    let (when, u) = app.gpu_util().cloned().unwrap();
    assert_eq!(tracetui::trace::weekday_time(t.zone, when), "Sat 01:12:00");
    assert_eq!(u[0], 95.5);
    cmd(&mut app, Command::ColorBy);
    cmd(&mut app, Command::ColorBy);
    assert_eq!(app.color_by(), ColorBy::Util);
    cmd(&mut app, Command::Right); // the cursor's own style would hide the colour
    let buf = render(&app, 120, 40);
    let theme = app.theme().clone();
    assert_eq!(
        gpu_cell(&app, &buf, 0, 0).fg,
        theme.util[2],
        "95.5 % is high"
    );
    assert!(
        text(&buf).contains("colour: utilisation (measured)"),
        "{}",
        text(&buf)
    );
    cmd(&mut app, Command::Left);
    cmd(&mut app, Command::Machine);
    let Some(Popup::Detail { title, lines, .. }) = app.popup() else {
        panic!("{:?}", app.popup())
    };
    assert_eq!(title, "machine m1");
    let all = lines.join("\n");
    assert!(all.contains("gpu0: p1 (1.00) · measured 95.5 %"), "{all}");
    assert!(all.contains("cpu_util  45.5"), "{all}");
    assert!(all.contains("mem_free   100"), "{all}");
}

#[test]
fn update_alone_reads_no_file_it_asks_the_runner_and_shows_nothing_until_the_answer() {
    let (_, mut app) = philly_indexed();
    cmd(&mut app, Command::ColorBy);
    cmd(&mut app, Command::ColorBy);
    let screen = |app: &App| text(&render(app, 120, 40));
    let at = philly_time("2017-10-07 01:12:30");
    let u = app.update(Action::GoTo(at));
    assert!(
        u.effects.contains(&Effect::ReadGpuUtil { at }),
        "{:?}",
        u.effects
    );
    assert_eq!(app.gpu_util(), None, "not read by update");
    assert!(!screen(&app).contains("utilisation (measured)"));
    let mut fx = Effects::new(std::env::temp_dir());
    assert!(fx.perform(&mut app, u.effects), "the answer shows");
    assert_eq!(app.gpu_util().unwrap().1[0], 95.5);
    assert!(screen(&app).contains("utilisation (measured)"));
    // The drill-downs: asked for, nothing drawn until the runner has read them.
    let m1 = app.machines()[app.cursor()];
    let p1 = app.selected().unwrap();
    for (c, read, title) in [
        (
            Command::Machine,
            Effect::ReadMachine { machine: m1, at },
            "machine m1",
        ),
        (
            Command::Detail,
            Effect::ReadJobDetail { job: p1, at },
            "job p1",
        ),
    ] {
        let before = screen(&app);
        let u = app.update(Action::Command(c));
        assert_eq!(u.effects, [read]);
        assert_eq!(app.popup(), None);
        assert_eq!(screen(&app), before, "nothing visible changed");
        assert!(fx.perform(&mut app, u.effects));
        let Some(Popup::Detail { title: shown, .. }) = app.popup() else {
            panic!("{:?}", app.popup())
        };
        assert_eq!(shown, title);
        cmd(&mut app, Command::Close);
    }
}

#[test]
fn an_answer_for_a_time_or_popup_no_longer_shown_is_ignored() {
    let (_, mut app) = philly_indexed();
    let mut fx = Effects::new(std::env::temp_dir());
    let first = app.update(Action::GoTo(philly_time("2017-10-07 01:12:30")));
    let second = app.update(Action::GoTo(philly_time("2017-10-07 01:13:30")));
    // 01:12's minute arrives while 01:13:30 is shown: dropped.
    assert!(!fx.perform(&mut app, first.effects));
    assert_eq!(app.gpu_util(), None);
    assert!(fx.perform(&mut app, second.effects));
    let (when, u) = app.gpu_util().cloned().unwrap();
    assert_eq!(when, philly_time("2017-10-07 01:13:00"));
    assert_eq!(u[0], 90.0);
    // A drill-down read after another popup opened, or after the replay moved.
    let machine = app.update(Action::Command(Command::Machine));
    assert!(matches!(machine.effects[..], [Effect::ReadMachine { .. }]));
    cmd(&mut app, Command::Help);
    assert!(!fx.perform(&mut app, machine.effects));
    assert_eq!(app.popup(), Some(&Popup::Help { scroll: 0 }));
    cmd(&mut app, Command::Close);
    let job = app.update(Action::Command(Command::Detail));
    assert!(matches!(job.effects[..], [Effect::ReadJobDetail { .. }]));
    cmd(&mut app, Command::Step);
    assert!(!fx.perform(&mut app, job.effects));
    assert_eq!(app.popup(), None);
}

#[test]
fn energy_shows_power_and_p_switches_the_limits_live() {
    use tracetui::sim::{EnergyModel, PowerPolicy};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zeus");
    let model = Arc::new(EnergyModel::load(&dir, "v100", 0.5).unwrap());
    let mut app = App::with_energy(
        sample(),
        Policy::Fifo,
        Placement::Consolidate,
        Some((model, PowerPolicy::Max)),
        "test".into(),
        themes(),
        Keymap::defaults(),
    );
    app.update(Action::Resize(120, 40));
    let t0 = app.engine().now();
    app.update(Action::GoTo(t0 + 6 * 3600));
    let screen = text(&render(&app, 120, 40));
    assert!(screen.contains("· max power ·"), "{screen}");
    assert!(screen.contains("power "), "{screen}");
    assert!(screen.contains("kWh so far"), "{screen}");
    let watts = app.engine().watts().unwrap();
    assert!(watts > 0.0);
    // P: zeus from now on, in the header and the log of switches.
    cmd(&mut app, Command::Power);
    assert_eq!(app.engine().power_policy(), Some(PowerPolicy::Zeus));
    assert!(app.flash().unwrap().contains("power limits: zeus"));
    assert!(text(&render(&app, 120, 40)).contains("· zeus power ·"));
    // Colour by: job → user → utilisation → power → job.
    for _ in 0..3 {
        cmd(&mut app, Command::ColorBy);
    }
    assert_eq!(app.color_by(), ColorBy::Power);
    assert!(text(&render(&app, 120, 40)).contains("colour: power per GPU"));
    cmd(&mut app, Command::ColorBy);
    assert_eq!(app.color_by(), ColorBy::Job);
    // The drill-down of a running job shows its limit, watts and energy.
    let running = *app.engine().running().keys().next().unwrap();
    let record =
        tracetui::trace::detail_of_job(app.trace(), &app.trace().jobs[running as usize], false);
    let all = app.detail_lines(running, record).join("\n");
    assert!(all.contains("power_limit_w  200"), "{all}");
    assert!(all.contains("power_now_w"), "{all}");
    assert!(all.contains("energy_kwh"), "{all}");
    assert!(all.contains("zeus_workload"), "{all}");

    // Without an energy model: P explains, and colour-by skips power.
    let mut plain = app_for(sample(), Policy::Fifo, (120, 40));
    cmd(&mut plain, Command::Power);
    assert!(plain.flash().unwrap().contains("--energy"));
    for _ in 0..3 {
        cmd(&mut plain, Command::ColorBy);
    }
    assert_eq!(plain.color_by(), ColorBy::Job);
    assert!(!text(&render(&plain, 120, 40)).contains("kWh"));
}

#[test]
fn the_hint_bar_and_help_come_from_the_keymap() {
    let mut app = App::new(
        sample(),
        Policy::Fifo,
        Placement::Consolidate,
        "t".into(),
        themes(),
        Keymap::from_config("[keys]\nstep = [\"s\"]\n"),
    );
    app.update(Action::Resize(120, 40));
    let t = text(&render(&app, 120, 40));
    assert!(t.contains("s step"), "{t}");
    cmd(&mut app, Command::Help);
    let t = text(&render(&app, 120, 40));
    assert!(t.contains("s  step one tick (pauses)"), "{t}");
}

#[test]
fn too_small_says_what_is_needed() {
    let app = app_for(sample(), Policy::Fifo, (60, 20));
    let t = text(&render(&app, 60, 20));
    assert!(
        t.contains("terminal too small: tracetui needs 80×24, this is 60×20"),
        "{t}"
    );
}

/// The drill-down of job `job` of `app`, as one text.
fn drill_down(app: &App, job: u32) -> String {
    app.detail_lines(job, serde_json::json!({})).join("\n")
}

#[test]
fn a_waiting_job_s_drill_down_gives_its_policy_key_and_its_place_in_the_order() {
    // Two GPUs held until 1000 s; four one-GPU jobs wait, arriving in the
    // order 400 s, 100 s, 300 s, 200 s of run time.
    let jobs = [
        (0, 1000, 2),
        (10, 400, 1),
        (20, 100, 1),
        (30, 300, 1),
        (40, 200, 1),
    ];
    let trace = common::tiny(&[2], &jobs);
    let mut app = app_for(trace.clone(), Policy::Sjf, (120, 40));
    app.update(Action::GoTo(50));
    let third = drill_down(&app, 3);
    assert!(
        third.contains("3rd of 4 waiting under sjf: 2 jobs ahead"),
        "{third}"
    );
    assert!(
        third.contains("policy_key   run time 5m00s (300 s)"),
        "{third}"
    );
    assert!(third.contains("waiting_for  20s"), "{third}");
    let next = drill_down(&app, 2);
    assert!(
        next.contains("1st of 4 waiting under sjf: next to start"),
        "{next}"
    );
    let running = drill_down(&app, 0);
    assert!(
        !running.contains("policy_key") && !running.contains("waiting under"),
        "{running}"
    );
    // Under fifo the same job is third by arrival, and has no key to speak of.
    let mut app = app_for(trace.clone(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(50));
    let third = drill_down(&app, 3);
    assert!(
        third.contains("3rd of 4 waiting under fifo: 2 jobs ahead"),
        "{third}"
    );
    assert!(third.contains("none: arrival order"), "{third}");
    assert!(drill_down(&app, 4).contains("4th of 4 waiting under fifo: 3 jobs ahead"));
    // An external policy's key is the integer it sent (the sjf port's run time).
    if common::python() {
        let sjf: Policy = tracetui::driver::resolve(
            "exec:python3 policies/sjf.py",
            &mut tracetui::sim::Policies::new(),
        )
        .unwrap();
        let mut app = app_for(trace, sjf, (120, 40));
        act(&mut app, Action::GoTo(50));
        let third = drill_down(&app, 3);
        assert!(
            third.contains("policy_key   300 (lower goes first)"),
            "{third}"
        );
        assert!(
            third.contains("3rd of 4 waiting under sjf-ext: 2"),
            "{third}"
        );
    }
}

#[test]
fn the_metrics_strip_counts_unfinished_jobs_once_nothing_more_happens() {
    // The PAI fixture records jobs that never ended: under a simulated
    // policy they run for ever, and past the last event the strip says so.
    let trace = common::ui::pai();
    let open = trace
        .jobs
        .iter()
        .filter(|j| j.runtime.get().is_none() && j.demand.total_milli() > 0)
        .count();
    assert!(open > 0);
    let mut app = common::ui::app_for(trace.clone(), tracetui::sim::Policy::Fifo, (120, 40));
    let first = trace.jobs.iter().map(|j| j.submit).min().unwrap();
    app.update(tracetui::ui::action::Action::GoTo(first));
    let before = common::ui::text(&common::ui::render(&app, 120, 40));
    assert!(!before.contains("unfinished"), "{before}");
    app.update(tracetui::ui::action::Action::GoTo(first + 365 * 86_400));
    let after = common::ui::text(&common::ui::render(&app, 120, 40));
    let want = format!("unfinished {open}: nothing more happens");
    assert!(after.contains(&want), "{want}\n{after}");
    // At 80×24 in fewer words, never cut.
    app.update(tracetui::ui::action::Action::Resize(80, 24));
    let small = common::ui::text(&common::ui::render(&app, 80, 24));
    let want = format!("rejected 0 · unfinished {open}");
    assert!(small.lines().any(|l| l.contains(&want)), "{want}\n{small}");
}
