//! The TUI without a terminal: every action through `update`, widgets
//! against buffers, and byte budgets through a crossterm backend.

mod common;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{Phase, Placement, Policy};
use tracetui::trace::Trace;
use tracetui::ui::app::{Action, App, ColorBy, Focus, Popup, Zoom, SPEEDS, TICKS};
use tracetui::ui::keymap::{Command, Keymap};
use tracetui::ui::theme::{Depth, Theme};

const T0: i64 = 4_550_879;

fn themes() -> Vec<Theme> {
    tracetui::ui::theme::EMBEDDED
        .iter()
        .map(|(n, _)| Theme::embedded(n, Depth::TrueColor).unwrap())
        .collect()
}

pub fn app_for(trace: Arc<Trace>, policy: Policy, size: (u16, u16)) -> App {
    let mut app = App::new(
        trace,
        policy,
        Placement::Consolidate,
        "test".into(),
        themes(),
        Keymap::defaults(),
    );
    app.update(Action::Resize(size.0, size.1));
    app
}

fn pai() -> Arc<Trace> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pai");
    Arc::new(
        tracetui::trace::pai::load(&dir, &Default::default())
            .unwrap()
            .0,
    )
}

fn sample() -> Arc<Trace> {
    Arc::new(tracetui::sample::itp().unwrap().0)
}

fn cmd(app: &mut App, c: Command) {
    app.update(Action::Command(c));
}

fn render(app: &App, w: u16, h: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    tracetui::ui::draw::render(app, buf.area, &mut buf);
    buf
}

fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// The grid cell of GPU `k` of display machine `pos` (GPU mode), by layout.
fn gpu_cell<'a>(app: &App, buf: &'a Buffer, pos: usize, k: u16) -> &'a ratatui::buffer::Cell {
    let a = tracetui::ui::layout::areas(buf.area);
    let inner = tracetui::ui::layout::inner(a.grid);
    let lay = tracetui::ui::grid::layout(app, inner);
    let p = lay.cells[pos];
    &buf[(inner.x + p.x + 1 + k * lay.cell_w, inner.y + p.row as u16)]
}

#[test]
fn grid_shows_fractional_sharing_with_glyphs() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    assert_eq!(
        app.zoom,
        Zoom::Gpus,
        "the small fixture fits one cell per GPU"
    );
    app.move_to(T0 + 45, true);
    let buf = render(&app, 120, 40);
    // Display order: V100 (m1), T4 (m2), P100 (m3), unknown (mX).
    let m2 = app.machines.iter().position(|&m| m == 1).unwrap();
    assert_eq!(
        gpu_cell(&app, &buf, m2, 0).symbol(),
        "█",
        "two halves fill GPU 0"
    );
    assert_eq!(gpu_cell(&app, &buf, m2, 1).symbol(), "░", "a quarter");
    let m1 = app.machines.iter().position(|&m| m == 0).unwrap();
    assert_eq!(gpu_cell(&app, &buf, m1, 7).symbol(), "·", "free");
    app.move_to(T0 + 85, true);
    let buf = render(&app, 120, 40);
    let m3 = app.machines.iter().position(|&m| m == 2).unwrap();
    assert_eq!(gpu_cell(&app, &buf, m3, 0).symbol(), "!", "over capacity");
    assert!(
        text(&buf).contains("P100 · 1 machines × 2 GPUs · 3/2 busy"),
        "{}",
        text(&buf)
    );
    app.ascii = true;
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
    assert_eq!(app.zoom, Zoom::Machines);
    app.move_to(T0 + 45, true);
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
    app.move_to(T0 + 72, true);
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
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    app.theme = app.themes.iter().position(|t| t.name == "mono").unwrap();
    app.move_to(T0 + 45, true);
    let buf = render(&app, 120, 40);
    for c in buf.content() {
        assert_eq!(
            (c.fg, c.bg),
            (Color::Reset, Color::Reset),
            "cell {:?} has colour",
            c.symbol()
        );
    }
    let cursor = gpu_cell(&app, &buf, 0, 0);
    assert!(cursor.modifier.contains(Modifier::REVERSED));
    assert!(text(&buf).contains("▸"), "a marker glyph, not colour alone");
}

#[test]
fn play_pause_step_and_step_back() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    let start = app.engine().now();
    assert!(app.paused);
    cmd(&mut app, Command::TogglePlay);
    assert!(!app.paused);
    // x60, 1-minute ticks: one tick per wall second.
    app.update(Action::Elapsed(2.5));
    assert_eq!(app.engine().now(), start + 120);
    cmd(&mut app, Command::Step);
    assert!(app.paused, "stepping pauses");
    assert_eq!(app.engine().now(), start + 180);
    app.update(Action::Elapsed(10.0));
    assert_eq!(app.engine().now(), start + 180, "paused: time stands still");
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), start + 120);
    cmd(&mut app, Command::StepBack);
    cmd(&mut app, Command::StepBack);
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), start, "not before the start");
    assert!(
        app.flash.as_deref().unwrap_or("").contains("start"),
        "{:?}",
        app.flash
    );
}

#[test]
fn speed_and_tick_clamp_at_their_ends() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    for _ in 0..40 {
        cmd(&mut app, Command::Faster);
        cmd(&mut app, Command::TickUp);
    }
    assert_eq!((app.speed, app.tick), (SPEEDS.len() - 1, TICKS.len() - 1));
    for _ in 0..40 {
        cmd(&mut app, Command::Slower);
        cmd(&mut app, Command::TickDown);
    }
    assert_eq!((app.speed, app.tick), (0, 0));
    // The last tick is "next event": a step lands on it, a step back returns.
    app.tick = TICKS.len() - 1;
    let start = app.engine().now();
    let next = app.engine().next_event_time().unwrap();
    cmd(&mut app, Command::Step);
    assert_eq!(app.engine().now(), next);
    cmd(&mut app, Command::Step);
    assert!(app.engine().now() > next);
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), next);
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), start);
}

#[test]
fn the_policy_picker_switches_live_and_the_header_says_so() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.move_to(app.engine().now() + 86_400 * 3, true);
    cmd(&mut app, Command::Policy);
    assert_eq!(
        app.popup,
        Some(Popup::Picker { at: 1 }),
        "opens on the current policy"
    );
    for _ in 0..3 {
        cmd(&mut app, Command::Down);
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.popup, None);
    assert_eq!(app.engine().policy(), Policy::Sjf);
    assert_eq!(app.replay.switches().len(), 1);
    let t = text(&render(&app, 120, 40));
    assert!(t.contains("SJF since"), "{t}");
    assert!(t.contains("order sjf"), "{t}");
    // recorded is refused on a trace that records no starts.
    cmd(&mut app, Command::Policy);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().policy(), Policy::Sjf);
    assert!(app
        .flash
        .as_deref()
        .unwrap()
        .contains("no recorded start times"));
}

#[test]
fn find_a_job_or_a_machine_and_go_to_a_time() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    app.move_to(T0 + 100, true);
    cmd(&mut app, Command::Find);
    for ch in "j10".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    let j10 = app.trace().jobs.iter().position(|j| j.id == "j10").unwrap() as u32;
    assert_eq!(app.selected, Some(j10));
    assert_eq!(app.machines[app.cursor], 0, "cursor on j10's machine m1");
    cmd(&mut app, Command::Find);
    for ch in "m3".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.machines[app.cursor], 2);
    cmd(&mut app, Command::Find);
    app.update(Action::Char('z'));
    app.update(Action::Backspace);
    app.update(Action::Char('q'));
    cmd(&mut app, Command::Detail);
    assert!(app
        .flash
        .as_deref()
        .unwrap()
        .contains("no job or machine matches 'q'"));
    cmd(&mut app, Command::Goto);
    for ch in "day 1 02:00".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().now(), T0 - 479 + 7200);
    cmd(&mut app, Command::Goto);
    for ch in "-1h".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().now(), T0 - 479 + 3600);
    cmd(&mut app, Command::Goto);
    for ch in "whenever".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert!(app.flash.as_deref().unwrap().contains("try +2h"));
}

#[test]
fn selection_follows_the_cursor_and_the_drill_down_opens() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    app.move_to(T0 + 45, true);
    cmd(&mut app, Command::Right); // m2 (T4): j02 and j03 share GPU 0
    let id = |a: &App| a.selected.map(|j| a.trace().jobs[j as usize].id.clone());
    assert_eq!(
        id(&app).as_deref(),
        Some("j02"),
        "largest holder, then the lower job index"
    );
    cmd(&mut app, Command::Detail);
    let Some(Popup::Detail { lines, .. }) = &app.popup else {
        panic!("{:?}", app.popup)
    };
    let all = lines.join("\n");
    assert!(all.contains("phase       running"), "{all}");
    assert!(all.contains("job_name          j02"), "{all}");
    assert!(all.contains("start_time_local  Mon 00:08:19"), "{all}");
    cmd(&mut app, Command::Close);
    assert_eq!(app.popup, None);
    cmd(&mut app, Command::Left);
    assert_eq!(app.machines[app.cursor], 0);
}

#[test]
fn focus_cycles_and_the_queue_selects_jobs() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.move_to(app.engine().now() + 86_400 * 10, true);
    assert!(
        app.engine().queue_len() > 0,
        "the fifo sample has a queue by day 11"
    );
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus, Focus::Queue);
    cmd(&mut app, Command::Down);
    let queued = app.engine().queue_in_order(2);
    assert_eq!(app.selected, Some(queued[1]));
    assert_eq!(app.engine().job_state(queued[1]).phase, Phase::Queued);
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus, Focus::Log);
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus, Focus::Grid);
    cmd(&mut app, Command::ColorBy);
    assert_eq!(app.color_by, ColorBy::User);
    cmd(&mut app, Command::Theme);
    assert_eq!(app.theme().name, "light");
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

#[test]
fn quitting() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    cmd(&mut app, Command::QuitKeep);
    assert_eq!(app.quit, Some(tracetui::ui::app::Quit::KeepFrame));
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    cmd(&mut app, Command::Help);
    cmd(&mut app, Command::Quit);
    assert_eq!(
        app.quit,
        Some(tracetui::ui::app::Quit::Clear),
        "q quits from a popup too"
    );
}

#[test]
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
    let (t, _) = tracetui::trace::pai::load(&dir, &Default::default()).unwrap();
    let app = app_for(Arc::new(t), Policy::FirstFit, (200, 60));
    assert_eq!(
        app.zoom,
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

#[test]
fn philly_cells_colour_by_measured_utilisation_and_the_machine_drill_down_shows_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/philly");
    let (t, _) = tracetui::trace::philly::load(&dir, &Default::default()).unwrap();
    let t = Arc::new(t);
    let Some(n) = t.native_as::<tracetui::trace::philly::PhillyTables>() else {
        panic!()
    };
    let _ = n.gpu_util.as_ref().unwrap().index();
    let _ = n.cpu_util.as_ref().unwrap().index();
    let _ = n.mem_util.as_ref().unwrap().index();
    let mut app = app_for(t.clone(), Policy::Recorded, (120, 40));
    app.update(Action::Indexed(None));
    app.move_to(
        tracetui::trace::philly::parse_local("2017-10-07 01:12:30").unwrap(),
        true,
    );
    let (when, u) = app.gpu_util.clone().unwrap();
    assert_eq!(
        tracetui::trace::clock::weekday_time(t.zone, when),
        "Sat 01:12:00"
    );
    assert_eq!(u[0], 95.5);
    cmd(&mut app, Command::ColorBy);
    cmd(&mut app, Command::ColorBy);
    assert_eq!(app.color_by, ColorBy::Util);
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
    let Some(Popup::Detail { title, lines, .. }) = &app.popup else {
        panic!("{:?}", app.popup)
    };
    assert_eq!(title, "machine m1");
    let all = lines.join("\n");
    assert!(all.contains("gpu0: p1 (1.00) · measured 95.5 %"), "{all}");
    assert!(all.contains("cpu_util  45.5"), "{all}");
    assert!(all.contains("mem_free   100"), "{all}");
}

#[test]
fn energy_shows_power_and_p_switches_the_limits_live() {
    use tracetui::sim::energy::{EnergyModel, PowerPolicy};
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
    app.move_to(t0 + 6 * 3600, true);
    let screen = text(&render(&app, 120, 40));
    assert!(screen.contains("· max power ·"), "{screen}");
    assert!(screen.contains("power "), "{screen}");
    assert!(screen.contains("kWh so far"), "{screen}");
    let watts = app.engine().watts().unwrap();
    assert!(watts > 0.0);
    // P: zeus from now on, in the header and the log of switches.
    cmd(&mut app, Command::Power);
    assert_eq!(app.engine().power_policy(), Some(PowerPolicy::Zeus));
    assert!(app.flash.as_deref().unwrap().contains("power limits: zeus"));
    assert!(text(&render(&app, 120, 40)).contains("· zeus power ·"));
    // Colour by: job → user → utilisation → power → job.
    for _ in 0..3 {
        cmd(&mut app, Command::ColorBy);
    }
    assert_eq!(app.color_by, ColorBy::Power);
    assert!(text(&render(&app, 120, 40)).contains("colour: power per GPU"));
    cmd(&mut app, Command::ColorBy);
    assert_eq!(app.color_by, ColorBy::Job);
    // The drill-down of a running job shows its limit, watts and energy.
    let running = *app.engine().running().keys().next().unwrap();
    app.selected = Some(running);
    let all = app.detail_lines(running).join("\n");
    assert!(all.contains("power_limit_w  200"), "{all}");
    assert!(all.contains("power_now_w"), "{all}");
    assert!(all.contains("energy_kwh"), "{all}");
    assert!(all.contains("zeus_workload"), "{all}");

    // Without an energy model: P explains, and colour-by skips power.
    let mut plain = app_for(sample(), Policy::Fifo, (120, 40));
    cmd(&mut plain, Command::Power);
    assert!(plain.flash.as_deref().unwrap().contains("--energy"));
    for _ in 0..3 {
        cmd(&mut plain, Command::ColorBy);
    }
    assert_eq!(plain.color_by, ColorBy::Job);
    assert!(!text(&render(&plain, 120, 40)).contains("kWh"));
}
