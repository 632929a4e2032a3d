//! The keymap: every command with its description and keys, in one table
//! that drives key handling, the hint bar, the `?` help and `tracetui keys`.
//! Keys can be rebound in `~/.config/tracetui/config.toml` under `[keys]`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    TogglePlay,
    Step,
    StepBack,
    Faster,
    Slower,
    TickUp,
    TickDown,
    Goto,
    Policy,
    Find,
    CommandLine,
    Detail,
    Machine,
    Power,
    Schedule,
    WhatIf,
    Lecture,
    Export,
    Focus,
    Theme,
    ColorBy,
    Zoom,
    Mouse,
    Help,
    Quit,
    QuitKeep,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Close,
    Sort,
    Filter,
    Timeline,
    Split,
    Rankings,
    Placement,
    NextCaption,
    PrevCaption,
    NextMoment,
}

#[path = "keymap_table.rs"]
mod table;
pub use table::COMMANDS;

/// A key as written in config and help: `space`, `n`, `Q`, `ctrl-c`, `enter`.
pub(crate) fn key_name(k: &KeyEvent) -> Option<String> {
    let base = match k.code {
        KeyCode::Char(' ') => "space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "enter".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => "backtab".into(),
        KeyCode::Esc => "esc".into(),
        KeyCode::Up => "up".into(),
        KeyCode::Down => "down".into(),
        KeyCode::Left => "left".into(),
        KeyCode::Right => "right".into(),
        KeyCode::PageUp => "pageup".into(),
        KeyCode::PageDown => "pagedown".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::Backspace => "backspace".into(),
        KeyCode::F(n) => format!("f{n}"),
        _ => return None,
    };
    Some(if k.modifiers.contains(KeyModifiers::CONTROL) {
        format!("ctrl-{base}")
    } else {
        base
    })
}

fn valid_key(s: &str) -> bool {
    let base = s.strip_prefix("ctrl-").unwrap_or(s);
    base.chars().count() == 1
        || matches!(
            base,
            "space"
                | "enter"
                | "tab"
                | "backtab"
                | "esc"
                | "up"
                | "down"
                | "left"
                | "right"
                | "pageup"
                | "pagedown"
                | "home"
                | "end"
                | "backspace"
        )
        || (base.starts_with('f') && base[1..].parse::<u8>().is_ok())
}

/// The effective keymap.
#[derive(Debug, Clone)]
pub struct Keymap {
    /// key → command
    by_key: BTreeMap<String, Command>,
    /// command → keys, in table order
    pub keys: Vec<(Command, Vec<String>)>,
    /// Problems found while building it (conflicts, unknown names).
    pub problems: Vec<String>,
}

impl Keymap {
    pub fn defaults() -> Keymap {
        Keymap::build(&BTreeMap::new())
    }

    /// From the `[keys]` table of a config file's text.
    pub fn from_config(text: &str) -> Keymap {
        match crate::config::parse(text) {
            Ok(c) => Keymap::build(&c.keys),
            Err(e) => {
                let mut k = Keymap::defaults();
                k.problems.push(format!(
                    "config: {}; using the default keys",
                    crate::config::toml_error(&e)
                ));
                k
            }
        }
    }

    fn build(overrides: &BTreeMap<String, Vec<String>>) -> Keymap {
        let mut problems = Vec::new();
        for name in overrides.keys() {
            if !COMMANDS.iter().any(|c| c.1 == name) {
                problems.push(format!("config: unknown command '{name}' in [keys]"));
            }
        }
        let mut keys = Vec::new();
        let mut by_key: BTreeMap<String, Command> = BTreeMap::new();
        // A key the config binds is taken from the command it is a default of.
        let bound: std::collections::BTreeSet<&String> = overrides.values().flatten().collect();
        for (cmd, name, _, defaults, _) in COMMANDS {
            let chosen: Vec<String> = match overrides.get(name) {
                Some(v) => v.clone(),
                None => defaults
                    .iter()
                    .map(|s| s.to_string())
                    .filter(|k| !bound.contains(k))
                    .collect(),
            };
            if chosen.is_empty() && !defaults.is_empty() && !overrides.contains_key(name) {
                problems.push(format!(
                    "'{name}' has no key left: the config binds its default '{}' to another command",
                    defaults[0]
                ));
            }
            let mut mine = Vec::new();
            for k in chosen {
                if !valid_key(&k) {
                    problems.push(format!("config: '{k}' for '{name}' is not a key name"));
                    continue;
                }
                if let Some(other) = by_key.get(&k) {
                    let other_name = COMMANDS.iter().find(|c| c.0 == *other).map_or("?", |c| c.1);
                    problems.push(format!("key '{k}' is bound to both '{other_name}' and '{name}'; '{other_name}' keeps it"));
                    continue;
                }
                by_key.insert(k.clone(), cmd);
                mine.push(k);
            }
            keys.push((cmd, mine));
        }
        Keymap {
            by_key,
            keys,
            problems,
        }
    }

    /// From the user's config file (`crate::config`), if present.
    pub(crate) fn load_user() -> Keymap {
        match crate::config::file() {
            Some(p) if p.symlink_metadata().is_ok() => match crate::config::read_bounded(&p) {
                Ok(t) => {
                    let mut k = Keymap::from_config(&t);
                    for pr in &mut k.problems {
                        *pr = format!("{}: {pr}", p.display());
                    }
                    k
                }
                Err(e) => {
                    let mut k = Keymap::defaults();
                    k.problems.push(format!(
                        "{}: {e}",
                        crate::text::sanitize(&p.display().to_string())
                    ));
                    k
                }
            },
            _ => Keymap::defaults(),
        }
    }

    pub fn command(&self, k: &KeyEvent) -> Option<Command> {
        self.by_key.get(&key_name(k)?).copied()
    }

    pub(crate) fn keys_of(&self, c: Command) -> &[String] {
        self.keys
            .iter()
            .find(|(x, _)| *x == c)
            .map_or(&[], |(_, k)| k.as_slice())
    }

    /// The first key of `c`, for hints.
    pub fn first(&self, c: Command) -> &str {
        self.keys_of(c).first().map_or("", String::as_str)
    }

    /// `tracetui keys`: every command, its keys and what it does.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        // Columns as wide as their longest entry (`previous_caption`).
        let rows: Vec<(&str, String, &str)> = COMMANDS
            .iter()
            .map(|&(cmd, name, desc, _, _)| (name, self.keys_of(cmd).join(", "), desc))
            .collect();
        let name_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let keys_w = rows
            .iter()
            .map(|r| crate::text::width(&r.1))
            .max()
            .unwrap_or(0)
            .max(16);
        for (name, keys, desc) in rows {
            let pad = keys_w - crate::text::width(&keys);
            out.push_str(&format!(
                "{name:<name_w$} {keys}{} {desc}\n",
                " ".repeat(pad)
            ));
        }
        for p in &self.problems {
            out.push_str(&format!("! {p}\n"));
        }
        out
    }
}

#[cfg(test)]
#[path = "keymap_tests.rs"]
mod tests;
