//! `:` commands (issue 61, item 5): the operator's questions as typed
//! queries, with Tab completion from the trace; `:idle`'s count is the
//! one `stats --at` prints for the same moment.

use crate::common;

use common::ui::{act, app_for, cmd, pai_sample, render, text};
use tracetui::sim::Policy;
use tracetui::ui::action::{Action, Effect};
use tracetui::ui::app::{App, Popup};
use tracetui::ui::keymap::Command;
use tracetui::ui::rankings::RankBy;

/// `line` typed after `:` and entered: the update's effects.
fn typed(app: &mut App, line: &str) -> Vec<Effect> {
    cmd(app, Command::CommandLine);
    for ch in line.chars() {
        app.update(Action::Char(ch));
    }
    app.update(Action::Command(Command::Detail)).effects
}

#[test]
fn idle_partly_and_full_count_what_stats_counts_at_the_same_moment() {
    for (policy, p) in [(Policy::Recorded, "recorded"), (Policy::Sjf, "sjf")] {
        for when in ["day 1 03:00", "day 1 12:00", "day 2 16:30"] {
            let mut app = app_for(pai_sample(), policy, (120, 40));
            typed(&mut app, &format!("goto {when}"));
            let want = common::cli::machines_at(when, Some(p));
            let counts = [("idle", want.0), ("partly", want.1), ("full", want.2)];
            for (word, n) in counts {
                typed(&mut app, word);
                let flash = app.flash().unwrap_or("").to_string();
                assert!(
                    flash.starts_with(&format!("{n} of 16 machines ")),
                    "{p} {when} :{word}: stats says {n}, the app '{flash}'"
                );
                let Some(Popup::Rankings { by, sort, .. }) = app.popup().cloned() else {
                    panic!("no rankings after :{word}");
                };
                assert_eq!(app.rank_rows(by, sort).len(), n, "{p} {when} :{word}");
            }
            assert!(want.0 + want.1 + want.2 == 16);
        }
    }
}

#[test]
fn idle_lists_only_idle_machines_and_its_footer_counts_every_state() {
    let mut app = app_for(pai_sample(), Policy::Recorded, (120, 40));
    typed(&mut app, "goto day 1 12:00");
    typed(&mut app, "idle");
    assert!(matches!(
        app.popup(),
        Some(Popup::Rankings {
            by: RankBy::MachinesIn(_),
            ..
        })
    ));
    let screen = text(&render(&app, 120, 40));
    let (i, p, f) = common::cli::machines_at("day 1 12:00", Some("recorded"));
    assert!(
        screen.contains(&format!(
            "of {i} idle machines · of 16: {i} idle, {p} partly used, {f} full"
        )),
        "{screen}"
    );
    let Some(Popup::Rankings { by, sort, .. }) = app.popup().cloned() else {
        unreachable!()
    };
    for row in app.rank_rows(by, sort) {
        assert_eq!(row.cells[1], "0", "an idle machine uses no GPU: {row:?}");
    }
}

#[test]
fn user_job_machine_policy_and_placement_act_by_name() {
    let mut app = app_for(pai_sample(), Policy::Recorded, (120, 40));
    typed(&mut app, "goto day 1 12:00");
    let trace = app.trace().clone();
    let running = app.engine().running().keys().next().copied().unwrap();
    let user = trace.sym(trace.jobs[running as usize].user).to_string();
    typed(&mut app, &format!("user {user}"));
    let flash = app.flash().unwrap().to_string();
    assert!(
        flash.starts_with(&format!("filter 'user={user}'")),
        "{flash}"
    );
    typed(&mut app, "user nobody-here");
    assert!(app.flash().unwrap().contains("no user 'nobody-here'"));

    let id = trace.jobs[running as usize].id.to_string();
    let effects = typed(&mut app, &format!("job {id}"));
    assert!(effects.contains(&Effect::ReadJobDetail {
        job: running,
        at: app.engine().now()
    }));
    assert_eq!(app.selected(), Some(running));

    let m = &trace.cluster.machines[app.machines()[3] as usize].name;
    typed(&mut app, &format!("machine {m}"));
    assert_eq!(app.cursor(), 3, "{:?}", app.flash());

    typed(&mut app, "pol sjf");
    assert_eq!(app.engine().policy(), Policy::Sjf, "{:?}", app.flash());
    typed(&mut app, "placement spread");
    assert_eq!(app.engine().placement().name(), "spread");
    typed(&mut app, "placement nowhere");
    assert!(app
        .flash()
        .unwrap()
        .contains("one of consolidate, pack, spread"));
    typed(&mut app, "p");
    assert!(app
        .flash()
        .unwrap()
        .contains("could be partly, policy, placement"));
    typed(&mut app, "idle now");
    assert!(app.flash().unwrap().contains(":idle takes nothing"));
}

#[test]
fn tab_completes_the_command_then_a_name_from_the_trace() {
    let mut app = app_for(pai_sample(), Policy::Recorded, (120, 40));
    let trace = app.trace().clone();
    let id = trace.jobs[7].id.to_string();
    cmd(&mut app, Command::CommandLine);
    for ch in "jo".chars() {
        app.update(Action::Char(ch));
    }
    act(&mut app, Action::Complete);
    let input = |app: &App| match app.popup() {
        Some(Popup::Prompt { input, .. }) => input.clone(),
        _ => panic!("the prompt closed"),
    };
    assert_eq!(input(&app), "job ");
    // Enough of the id to be unique, then Tab: the whole id.
    let mut k = 1;
    while trace.jobs_with_id_prefix(&id[..k]).count() > 1 {
        k += 1;
    }
    for ch in id[..k].chars() {
        app.update(Action::Char(ch));
    }
    act(&mut app, Action::Complete);
    assert_eq!(input(&app), format!("job {id}"));
    // The suggestions show in the bar as they are typed.
    app.update(Action::Command(Command::Close));
    cmd(&mut app, Command::CommandLine);
    for ch in "policy s".chars() {
        app.update(Action::Char(ch));
    }
    let screen = text(&render(&app, 120, 40));
    assert!(
        screen.contains(":policy s▏   tab: sgf sjf srtf"),
        "{screen}"
    );
}

#[test]
fn lesson_asks_the_runner_to_open_a_built_in_one_and_refuses_others_by_name() {
    let mut app = app_for(pai_sample(), Policy::Recorded, (120, 40));
    let effects = typed(&mut app, "lesson starvation");
    assert!(
        effects.contains(&Effect::OpenLesson("starvation".into())),
        "{effects:?}"
    );
    let effects = typed(&mut app, "lesson nope");
    assert!(!effects.iter().any(|e| matches!(e, Effect::OpenLesson(_))));
    let flash = app.flash().unwrap();
    assert!(
        flash.contains(
            "no lesson 'nope' (tab completes; hol, starvation, fragmentation, deadlines)"
        ),
        "{flash}"
    );
    // Tab completes a lesson's name.
    cmd(&mut app, Command::CommandLine);
    for ch in "lesson fr".chars() {
        app.update(Action::Char(ch));
    }
    act(&mut app, Action::Complete);
    assert!(
        matches!(app.popup(), Some(Popup::Prompt { input, .. }) if input == "lesson fragmentation")
    );
}

#[test]
fn in_ascii_the_prompt_s_cursor_is_a_bar_not_a_colon() {
    let mut app = app_for(pai_sample(), Policy::Recorded, (80, 24)).with_ascii(true);
    cmd(&mut app, Command::CommandLine);
    for ch in "us".chars() {
        app.update(Action::Char(ch));
    }
    let screen = text(&render(&app, 80, 24));
    let last = screen.lines().last().unwrap_or("");
    assert!(last.starts_with(":us|   tab: users user"), "{last}");
}

#[test]
fn in_a_list_of_machines_in_one_state_left_and_right_go_through_the_states() {
    let mut app = app_for(pai_sample(), Policy::Recorded, (120, 40));
    typed(&mut app, "goto day 1 12:00");
    typed(&mut app, "idle");
    let by = |app: &App| match app.popup() {
        Some(Popup::Rankings { by, .. }) => *by,
        p => panic!("{p:?}"),
    };
    use tracetui::sim::MachineUse as U;
    cmd(&mut app, Command::Right);
    assert_eq!(by(&app), RankBy::MachinesIn(U::Partly));
    cmd(&mut app, Command::Right);
    assert_eq!(by(&app), RankBy::MachinesIn(U::Full));
    cmd(&mut app, Command::Right);
    assert_eq!(by(&app), RankBy::MachinesIn(U::Idle));
    cmd(&mut app, Command::Left);
    assert_eq!(by(&app), RankBy::MachinesIn(U::Full));
    let screen = text(&render(&app, 120, 40));
    assert!(screen.contains("←→ idle, partly used, full"), "{screen}");
    // A command typed whole says what it does.
    app.update(Action::Command(Command::Close));
    cmd(&mut app, Command::CommandLine);
    for ch in "idle".chars() {
        app.update(Action::Char(ch));
    }
    let screen = text(&render(&app, 120, 40));
    assert!(
        screen.contains(":idle▏   the idle machines, counted"),
        "{screen}"
    );
}
