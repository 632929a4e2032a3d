//! Rankings (`u`, issue 33 item 13): users and groups by the GPUs they
//! hold, with their jobs running and queued; machines by GPUs used, jobs
//! and measured utilisation; every column sorts; Enter filters the lists
//! or takes the cursor to a machine. Snapshots at 80×24 and 120×40.

use crate::common;

use common::ui::{act, app_for, cmd, render, sample, text};
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App, Popup};
use tracetui::ui::keymap::Command;
use tracetui::ui::rankings::{RankBy, Target};

/// The PAI sample at day 1 16:00 under the recorded replay, indexed.
fn pai_at_four(size: (u16, u16)) -> App {
    common::ui::pai_sample_indexed(Policy::Recorded, size, 16 * 3600)
}

fn num(s: &str) -> f64 {
    s.trim_end_matches(" %").parse().unwrap_or(f64::NAN)
}

#[test]
fn users_hold_what_runs_and_ask_for_what_waits() {
    let app = pai_at_four((120, 40));
    let e = app.engine();
    let rows = app.rank_rows(RankBy::Users, 0);
    let held: f64 = rows.iter().map(|r| num(&r.cells[0])).sum();
    let allocated = e.cluster().allocated_milli() as f64 / 1000.0;
    assert!((held - allocated).abs() < 1e-6, "{held} vs {allocated}");
    let running: f64 = rows.iter().map(|r| num(&r.cells[2])).sum();
    let queued: f64 = rows.iter().map(|r| num(&r.cells[3])).sum();
    assert_eq!(
        (running as usize, queued as usize),
        (e.running().len(), e.queue_len())
    );
    // Every column sorts, largest first.
    for col in 0..5 {
        let v: Vec<f64> = app
            .rank_rows(RankBy::Users, col)
            .iter()
            .map(|r| num(&r.cells[col]))
            .collect();
        assert!(v.windows(2).all(|w| w[0] >= w[1]), "column {col}: {v:?}");
    }
    let groups = app.rank_rows(RankBy::Groups, 0);
    let g_held: f64 = groups.iter().map(|r| num(&r.cells[0])).sum();
    assert!((g_held - allocated).abs() < 1e-6);
    // Machines: what is used on each adds up too; utilisation is measured.
    let m = app.rank_rows(RankBy::Machines, 1);
    let used: f64 = m.iter().map(|r| num(&r.cells[1])).sum();
    assert!((used - allocated).abs() < 1e-6, "{used} vs {allocated}");
    assert!(
        m.iter().any(|r| num(&r.cells[4]).is_finite()),
        "sensor means"
    );
    let by_util = app.rank_rows(RankBy::Machines, 4);
    let u: Vec<f64> = by_util
        .iter()
        .map(|r| num(&r.cells[4]))
        .filter(|x| x.is_finite())
        .collect();
    assert!(u.windows(2).all(|w| w[0] >= w[1]), "{u:?}");
    let types: Vec<String> = app
        .rank_rows(RankBy::Machines, 0)
        .iter()
        .map(|r| r.cells[0].clone())
        .collect();
    assert!(types.windows(2).all(|w| w[0] <= w[1]), "{types:?}");
}

#[test]
fn keys_move_sort_switch_and_enter_filters_or_goes_to_the_machine() {
    let mut app = pai_at_four((80, 24));
    cmd(&mut app, Command::Rankings);
    let s80 = text(&render(&app, 80, 24));
    assert!(s80.contains("users by GPUs"), "{s80}");
    insta::assert_snapshot!("rankings_users_80x24", s80);
    cmd(&mut app, Command::Down);
    let second = app.rank_rows(RankBy::Users, 0)[1].clone();
    cmd(&mut app, Command::Detail);
    assert!(app.popup().is_none());
    let Target::Filter(f) = &second.target else {
        panic!("{second:?}")
    };
    assert!(
        app.flash().unwrap().starts_with(&format!("filter '{f}'")),
        "{:?}",
        app.flash()
    );
    // Machines, sorted by utilisation; Enter takes the cursor there.
    cmd(&mut app, Command::Rankings);
    cmd(&mut app, Command::Right);
    cmd(&mut app, Command::Right);
    // (Machines open sorted by GPUs used; three more s: by utilisation.)
    for _ in 0..3 {
        cmd(&mut app, Command::Sort);
    }
    assert!(matches!(
        app.popup(),
        Some(Popup::Rankings {
            by: RankBy::Machines,
            sort: 4,
            at: 0
        })
    ));
    app.update(Action::Resize(120, 40));
    insta::assert_snapshot!("rankings_machines_120x40", text(&render(&app, 120, 40)));
    let top = app.rank_rows(RankBy::Machines, 4)[0].clone();
    cmd(&mut app, Command::Detail);
    let Target::Machine(pos) = top.target else {
        panic!()
    };
    assert_eq!(app.cursor(), pos);
    assert_eq!(app.flash(), Some(format!("machine {}", top.name).as_str()));
}

#[test]
fn a_trace_without_users_says_so() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut app, Action::GoTo(9 * 86_400 + 12 * 3600));
    cmd(&mut app, Command::Rankings);
    let s = text(&render(&app, 80, 24));
    assert!(
        s.contains("1–1 of 1 users · this trace names no users"),
        "{s}"
    );
    assert!(s.contains("(none)"), "{s}");
}

/// Issue 61 item 9: a machine's measured utilisation is 0–100 % of its
/// GPUs (PAI's sensor reads per instance, 100 = one GPU; the mean of the
/// raw readings showed 342 %), and a job's card says per GPU, or for a
/// fraction of a GPU, of the share it holds.
#[test]
fn measured_utilisation_is_per_gpu_and_within_100() {
    let app = pai_at_four((120, 40));
    let rows = app.rank_rows(RankBy::Machines, 0);
    let utils: Vec<f64> = rows
        .iter()
        .map(|r| num(&r.cells[4]))
        .filter(|u| u.is_finite())
        .collect();
    assert!(!utils.is_empty(), "no machine measured");
    for u in &utils {
        assert!((0.0..=100.0).contains(u), "{u} in {utils:?}");
    }
    let e = app.engine();
    let mut said = (false, false);
    for &j in e.running().keys() {
        let card = app.job_card(j);
        let Some(line) = card.iter().find(|l| l.starts_with("GPU util")) else {
            continue;
        };
        let per = app.trace().jobs[j as usize]
            .demand
            .gpus_per_instance()
            .unwrap();
        if per >= 1.0 {
            assert!(line.contains("% per GPU ("), "{line}");
            let v = num(line
                .trim_start_matches("GPU util")
                .trim()
                .split(' ')
                .next()
                .unwrap());
            assert!(v <= 100.0 || line.contains("over the"), "{line}");
            said.0 = true;
        } else {
            assert!(line.contains("% of a GPU, of the"), "{line}");
            said.1 = true;
        }
    }
    assert!(said.0 || said.1, "no running job measured");
}

/// Issue 61 item 10: PAI's group tags are its groups — the rankings list
/// them (it said "this trace names no groups" while the drill-down showed
/// `group a1c6…`) and `--fair-by group` shares by them.
#[test]
fn pai_groups_are_ranked_and_shared_by() {
    let app = pai_at_four((120, 40));
    let groups = app.rank_rows(RankBy::Groups, 0);
    assert!(groups.len() > 1, "{}", groups.len());
    let trace = app.trace();
    let tagged = trace.jobs.iter().filter(|j| j.group.is_some()).count();
    assert!(
        tagged * 2 > trace.jobs.len(),
        "{tagged} of {}",
        trace.jobs.len()
    );
    let o = common::cli::tracetui(&[
        "sim",
        "pai",
        common::cli::PAI,
        "--policy",
        "fair",
        "--fair-by",
        "group",
    ]);
    assert!(o.status.success());
    assert!(
        !common::cli::stderr(&o).contains("no groups here"),
        "{}",
        common::cli::stderr(&o)
    );
}

/// Issue 61 item 7: `e` inside the what-if table or the rankings saved
/// nothing. It saves the screen and, beside it, the table whole as CSV:
/// the what-if's results as `compare --format csv` writes them, the
/// rankings as sorted.
#[test]
fn e_in_the_what_if_or_the_rankings_saves_the_table_as_csv() {
    let mut app = common::ui::app_for(common::ui::sample(), Policy::Fifo, (120, 40));
    act(&mut app, Action::GoTo(2 * 86_400));
    common::ui::what_if_done(&mut app);
    assert!(matches!(app.popup(), Some(Popup::WhatIf { .. })));
    let u = cmd(&mut app, Command::Export);
    assert!(
        u.effects.contains(&tracetui::ui::app::Effect::Export),
        "{:?}",
        u.effects
    );
    let dir = common::scratch_dir("whatif-export");
    let (_, _, table) = tracetui::ui::effects::export_to(&app, &dir).unwrap();
    let table = table.expect("the what-if's table saved");
    assert!(
        table.to_string_lossy().ends_with("-what-if.csv"),
        "{table:?}"
    );
    let csv = std::fs::read_to_string(&table).unwrap();
    let rows = app.what_if().unwrap().rows();
    assert_eq!(csv.lines().count(), 1 + rows, "{csv}");
    assert!(csv.starts_with("policy,placement,gpus,"), "{csv}");
    // The rankings: a row per user, as sorted, under a header.
    let mut app = pai_at_four((120, 40));
    cmd(&mut app, Command::Rankings);
    assert!(matches!(app.popup(), Some(Popup::Rankings { .. })));
    let u = cmd(&mut app, Command::Export);
    assert!(u.effects.contains(&tracetui::ui::app::Effect::Export));
    let (_, _, table) = tracetui::ui::effects::export_to(&app, &dir).unwrap();
    let csv = std::fs::read_to_string(table.expect("the rankings saved")).unwrap();
    let Some(Popup::Rankings { by, sort, .. }) = app.popup() else {
        panic!()
    };
    let want = app.rank_rows(*by, *sort);
    assert_eq!(csv.lines().count(), 1 + want.len(), "{csv}");
    assert!(
        csv.lines().nth(1).unwrap().starts_with(&want[0].name),
        "{csv}"
    );
}

/// Issue 61 item 8: the machines the operator counts first — idle, partly
/// used, full — are counted under the rankings' machines, adding up to the
/// machines; `f state=idle` (a machine's state, not a job's) is refused by
/// name instead of showing an empty list.
#[test]
fn machines_are_counted_by_state_and_a_jobs_filter_refuses_idle() {
    let mut app = pai_at_four((120, 40));
    cmd(&mut app, Command::Rankings);
    for _ in 0..2 {
        cmd(&mut app, Command::Right);
    }
    let Some(Popup::Rankings { by, .. }) = app.popup() else {
        panic!("{:?}", app.popup())
    };
    assert_eq!(*by, RankBy::Machines);
    let rows = app.rank_rows(RankBy::Machines, 1);
    let c = app.engine().cluster();
    let (mut idle, mut full) = (0, 0);
    for &m in app.machines() {
        let used: u64 = (c.first_gpu(m)..c.first_gpu(m) + c.cap(m) as usize)
            .map(|g| c.used_milli(g) as u64)
            .sum();
        idle += usize::from(used == 0);
        full += usize::from(used >= c.cap(m) as u64 * 1000);
    }
    let screen = text(&render(&app, 120, 40));
    let want = format!(
        "{idle} idle, {} partly used, {full} full",
        rows.len() - idle - full
    );
    assert!(screen.contains(&want), "{want}:\n{screen}");
    // A job filter of a machine's state is refused, saying where to look.
    cmd(&mut app, Command::Close);
    let log = common::ui::filter_log(&mut app, 0, "state=idle");
    assert!(
        log.iter()
            .any(|l| l.contains("state=idle: a job's state is queued or running")),
        "{log:?}"
    );
}

/// Issue 61 item 8: every column also sorts smallest first — after each
/// column largest first, `s` goes round them again the other way (`▲`):
/// the idle machines first.
#[test]
fn every_column_also_sorts_smallest_first() {
    let app = pai_at_four((120, 40));
    for by in [RankBy::Users, RankBy::Machines] {
        let n = by.columns().len();
        for col in 0..n {
            let down: Vec<String> = app
                .rank_rows(by, col)
                .iter()
                .map(|r| r.cells[col].clone())
                .collect();
            let up: Vec<String> = app
                .rank_rows(by, n + col)
                .iter()
                .map(|r| r.cells[col].clone())
                .collect();
            let mut back = up.clone();
            back.reverse();
            if down.iter().all(|c| num(c).is_finite()) {
                let (d, u): (Vec<f64>, Vec<f64>) = (
                    down.iter().map(|c| num(c)).collect(),
                    up.iter().map(|c| num(c)).collect(),
                );
                assert!(d.windows(2).all(|w| w[0] >= w[1]), "{by:?} {col}: {d:?}");
                assert!(u.windows(2).all(|w| w[0] <= w[1]), "{by:?} {col}: {u:?}");
            }
        }
    }
    // Machines smallest GPUs used first: the idle ones lead.
    let n = RankBy::Machines.columns().len();
    let rows = app.rank_rows(RankBy::Machines, n + 1);
    assert_eq!(num(&rows[0].cells[1]), 0.0, "{:?}", rows[0]);
    let mut app = pai_at_four((120, 40));
    cmd(&mut app, Command::Rankings);
    for _ in 0..n {
        cmd(&mut app, Command::Sort);
    }
    let screen = text(&render(&app, 120, 40));
    assert!(screen.contains('▲'), "{screen}");
}
