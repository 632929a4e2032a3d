//! The command line's shape: where the replay's look is given.

use super::*;

fn view_of(args: &[&str]) -> ViewArgs {
    let cli = Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    match cli.command {
        Some(Command::Replay(r)) => r.args.view.over(&cli.view),
        Some(Command::Lesson(a)) => a.view.over(&cli.view),
        None => cli.view,
        Some(other) => panic!("{other:?}"),
    }
}

#[test]
fn the_look_is_the_replays_given_before_or_after_its_subcommand() {
    let before = view_of(&["tracetui", "--ascii", "--fps", "20", "itp", "t.csv"]);
    let after = view_of(&["tracetui", "itp", "t.csv", "--ascii", "--fps", "20"]);
    assert_eq!((before.ascii, before.fps), (true, Some(20)));
    assert_eq!((after.ascii, after.fps), (true, Some(20)));
    let lesson = view_of(&["tracetui", "lesson", "hol", "--theme", "light"]);
    assert_eq!(lesson.theme.as_deref(), Some("light"));
    assert_eq!(view_of(&["tracetui", "--fps", "5"]).fps, Some(5));
    // The headless commands do not take it, and their help does not list it.
    for cmd in ["sim", "compare", "gen", "stats", "job"] {
        assert!(Cli::try_parse_from(["tracetui", cmd, "itp", "t.csv", "--ascii"]).is_err());
    }
    let mut c = <Cli as clap::CommandFactory>::command();
    let help = c
        .find_subcommand_mut("sim")
        .unwrap()
        .render_long_help()
        .to_string();
    assert!(
        help.contains("--policy-timeout") && !help.contains("--fps"),
        "{help}"
    );
}
