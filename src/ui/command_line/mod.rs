//! `:` — the operator's questions as typed commands, as k9s has them:
//! `:idle`, `:user NAME`, `:job ID`, `:goto TIME`, `:policy NAME`, …,
//! each word completed with Tab from the trace (its users, groups, job
//! ids, machines) and the replay (its policies, placements).
//!
//! The commands and their parsing and completion here (pure: the words
//! come in a `Words`); what each does to the app in `actions.rs`.

mod actions;

use super::error::UiError;

/// What a command's argument names, for completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    None,
    User,
    Group,
    Job,
    Machine,
    Time,
    Policy,
    Placement,
    /// A built-in lesson's name.
    Lesson,
    /// Free text (a filter, a find).
    Text,
}

/// A command: its name, what its argument names, what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verb {
    pub name: &'static str,
    pub arg: Arg,
    pub what: &'static str,
}

const fn verb(name: &'static str, arg: Arg, what: &'static str) -> Verb {
    Verb { name, arg, what }
}

/// Every command, in the order help lists them.
pub(crate) const VERBS: [Verb; 19] = [
    verb("idle", Arg::None, "the idle machines, counted"),
    verb("partly", Arg::None, "the partly used machines"),
    verb("full", Arg::None, "the full machines"),
    verb("machines", Arg::None, "every machine, by GPUs used"),
    verb("users", Arg::None, "users by GPUs held"),
    verb("groups", Arg::None, "groups by GPUs held"),
    verb("user", Arg::User, "NAME: their jobs (the lists filtered)"),
    verb("group", Arg::Group, "NAME: its jobs (the lists filtered)"),
    verb("job", Arg::Job, "ID: the job's drill-down"),
    verb("machine", Arg::Machine, "NAME: the cursor to the machine"),
    verb("goto", Arg::Time, "TIME: go there (+2h, day 3 14:00)"),
    verb("policy", Arg::Policy, "NAME: switch the policy now"),
    verb("placement", Arg::Placement, "NAME: switch placement now"),
    verb("lesson", Arg::Lesson, "NAME: play a built-in lesson here"),
    verb(
        "filter",
        Arg::Text,
        "TEXT: the lists filtered, as f does (none: cleared)",
    ),
    verb("find", Arg::Text, "TEXT: as /"),
    verb("export", Arg::None, "the screen to files, as e"),
    verb("help", Arg::None, "the keys and these commands"),
    verb("quit", Arg::None, "quit"),
];

/// Other words for some commands.
const ALIASES: [(&str, &str); 6] = [
    ("q", "quit"),
    ("g", "goto"),
    ("go", "goto"),
    ("busy", "partly"),
    ("free", "idle"),
    ("top", "users"),
];

/// The words an argument may be, from the trace and the replay.
pub(crate) trait Words {
    /// The words of kind `arg` starting with `prefix`, sorted, at most `most`.
    fn words(&self, arg: Arg, prefix: &str, most: usize) -> Vec<String>;
}

/// The command a word names: itself, an alias, or the one command it
/// begins (`:pol` is `:policy`); else why not.
pub(crate) fn verb_of(word: &str) -> Result<Verb, UiError> {
    let w = word.to_ascii_lowercase();
    let w = ALIASES
        .iter()
        .find(|(a, _)| *a == w)
        .map_or(w.as_str(), |(_, to)| to);
    if let Some(v) = VERBS.iter().find(|v| v.name == w) {
        return Ok(*v);
    }
    let starting: Vec<&Verb> = VERBS.iter().filter(|v| v.name.starts_with(w)).collect();
    match starting.as_slice() {
        [v] => Ok(**v),
        [] => Err(UiError::NoCommand(word.to_string())),
        many => Err(UiError::AmbiguousCommand(
            word.to_string(),
            many.iter().map(|v| v.name).collect::<Vec<_>>().join(", "),
        )),
    }
}

/// A typed line as its command and argument (trimmed; a leading `:` is
/// allowed, as typed in k9s).
pub(crate) fn parse(line: &str) -> Result<(Verb, String), UiError> {
    let line = line.trim().trim_start_matches(':').trim_start();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let v = verb_of(word)?;
    let arg = rest.trim().to_string();
    match (v.arg, arg.is_empty()) {
        (Arg::None, false) => Err(UiError::TakesNothing(v.name)),
        (Arg::None | Arg::Text, _) | (_, false) => Ok((v, arg)),
        (_, true) => Err(UiError::NeedsArgument(v.name, v.what)),
    }
}

/// Suggestions shown at most (and asked of `Words`).
const MOST: usize = 50;

/// What Tab does to `line`: the line completed as far as its candidates
/// agree, and the candidates (none: nothing to complete).
pub(crate) fn complete(line: &str, words: &dyn Words) -> (String, Vec<String>) {
    let (head, word, arg) = split_last(line);
    let options: Vec<String> = match arg {
        None => {
            let w = word.to_ascii_lowercase();
            VERBS
                .iter()
                .filter(|v| v.name.starts_with(&w))
                .map(|v| v.name.to_string())
                .collect()
        }
        Some(Arg::None | Arg::Text | Arg::Time) => Vec::new(),
        Some(a) => words.words(a, word, MOST),
    };
    // A name no one could type (a control character in it) is not offered.
    let options: Vec<String> = options
        .into_iter()
        .filter(|o| !o.chars().any(char::is_control))
        .collect();
    let completed = match options.as_slice() {
        [] => line.to_string(),
        [one] if arg.is_none() && VERBS.iter().any(|v| v.name == one && v.arg != Arg::None) => {
            format!("{head}{one} ")
        }
        [one] => format!("{head}{one}"),
        many => format!("{head}{}", common_prefix(many).max_by_len(word)),
    };
    (completed, options)
}

/// The line before its last word, the last word, and (after a command) the
/// kind of argument it is; `None`: the word is the command itself.
fn split_last(line: &str) -> (&str, &str, Option<Arg>) {
    let body = line.trim_start();
    let lead = &line[..line.len() - body.len()];
    match body.split_once(char::is_whitespace) {
        None => (lead, body, None),
        Some((verb, rest)) => {
            let arg = verb_of(verb).map_or(Arg::None, |v| v.arg);
            let start = line.len() - rest.trim_start().len();
            (&line[..start], &line[start..], Some(arg))
        }
    }
}

/// The longest start every option shares.
fn common_prefix(options: &[String]) -> String {
    let first = &options[0];
    let mut end = first.len();
    for o in &options[1..] {
        end = first
            .char_indices()
            .zip(o.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

/// A completion never shortens what was typed (options matched case-blind).
trait Longest {
    fn max_by_len(self, typed: &str) -> String;
}

impl Longest for String {
    fn max_by_len(self, typed: &str) -> String {
        if self.len() >= typed.len() {
            self
        } else {
            typed.to_string()
        }
    }
}

#[cfg(test)]
mod tests;
