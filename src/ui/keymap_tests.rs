//! The keymap's unit tests.
use super::*;
use crate::config::policies_in;

fn key(c: KeyCode, m: KeyModifiers) -> KeyEvent {
    KeyEvent::new(c, m)
}

#[test]
fn policies_come_from_their_own_table() {
    let text =
        "[keys]\nstep = [\"x\"]\n[policies]\nmine = \"python3 my.py\"\nother = \"./bin/p --x\"\n";
    assert_eq!(
        policies_in(text),
        vec![
            ("mine".to_string(), "python3 my.py".to_string()),
            ("other".to_string(), "./bin/p --x".to_string())
        ]
    );
    assert!(policies_in("[policies]\nmine = 3\n").is_empty());
    assert!(Keymap::from_config(text).problems.is_empty());
}

#[test]
fn defaults_have_no_conflicts() {
    let k = Keymap::defaults();
    assert!(k.problems.is_empty(), "{:?}", k.problems);
    assert_eq!(
        k.command(&key(KeyCode::Char(' '), KeyModifiers::NONE)),
        Some(Command::TogglePlay)
    );
    assert_eq!(
        k.command(&key(KeyCode::Char('Q'), KeyModifiers::SHIFT)),
        Some(Command::QuitKeep)
    );
    assert_eq!(
        k.command(&key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Some(Command::Quit)
    );
    assert_eq!(
        k.command(&key(KeyCode::Char('c'), KeyModifiers::NONE)),
        Some(Command::ColorBy)
    );
}

#[test]
fn config_rebinds_and_reports_conflicts() {
    let k = Keymap::from_config(
        "[keys]\nstep = [\"s\", \"space\"]\nnope = [\"x\"]\nfind = [\"bogus-key\"]\n",
    );
    // What the config binds wins over the defaults (sort's `s`, play's space).
    assert_eq!(
        k.keys_of(Command::Step),
        &["s".to_string(), "space".to_string()]
    );
    assert!(k.keys_of(Command::Sort).is_empty());
    assert!(
        k.problems
            .iter()
            .any(|p| p.contains("'play' has no key left")),
        "{:?}",
        k.problems
    );
    let both = Keymap::from_config("[keys]\nstep = [\"x\"]\nfind = [\"x\"]\n");
    assert!(both
        .problems
        .iter()
        .any(|p| p.contains("key 'x' is bound to both")));
    assert!(k
        .problems
        .iter()
        .any(|p| p.contains("unknown command 'nope'")));
    assert!(k
        .problems
        .iter()
        .any(|p| p.contains("'bogus-key' for 'find' is not a key name")));
    assert_eq!(
        k.command(&key(KeyCode::Char('n'), KeyModifiers::NONE)),
        None,
        "n was step's default"
    );
    let bad = Keymap::from_config("[keys\n");
    assert!(bad.problems[0].starts_with("config: "));
}

#[test]
fn listing_names_every_command() {
    let l = Keymap::defaults().listing();
    assert_eq!(l.lines().count(), COMMANDS.len());
    assert!(l
        .lines()
        .any(|r| r.split_whitespace().take(2).eq(["play", "space"])));
    // The keys start at one column on every line (the longest name,
    // `previous_caption`, included).
    let keys_at = l.lines().next().unwrap().find("space").unwrap();
    for r in l.lines() {
        let chars: Vec<char> = r.chars().collect();
        assert!(chars[keys_at - 1] == ' ' && chars[keys_at] != ' ', "{r}");
    }
}
