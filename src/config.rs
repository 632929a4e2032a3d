//! The user's configuration, in one place for the replay and the headless
//! commands alike: `config.toml` in `$XDG_CONFIG_HOME/tracetui` (else
//! `~/.config/tracetui`) — its `[keys]` (the keymap, `ui::keymap`) and
//! `[policies]` (external policies by name: the picker, `--policy NAME`)
//! — and the `themes/` folder beside it (`ui::theme`). Every file the user
//! hands in as configuration (these, theme files, sweep plans) is read
//! through `read_bounded`: a regular file of at most 1 MiB.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `$XDG_CONFIG_HOME/tracetui` or `~/.config/tracetui`.
pub(crate) fn dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        return Some(PathBuf::from(x).join("tracetui"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config").join("tracetui"))
}

/// The config file: `config.toml` in `dir()`.
pub(crate) fn file() -> Option<PathBuf> {
    dir().map(|d| d.join("config.toml"))
}

/// The user's own themes: `themes/` in `dir()`.
pub(crate) fn themes_dir() -> Option<PathBuf> {
    dir().map(|d| d.join("themes"))
}

/// What `config.toml` holds.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Config {
    /// command name → the keys bound to it (`[keys]`).
    #[serde(default)]
    pub(crate) keys: BTreeMap<String, Vec<String>>,
    /// name → command of an external policy (`exec:` without the prefix).
    #[serde(default)]
    pub(crate) policies: BTreeMap<String, String>,
}

/// A config file's text, read.
pub(crate) fn parse(text: &str) -> Result<Config, toml::de::Error> {
    toml::from_str(text)
}

/// The `[policies]` table of the user's config file: (name, command) of
/// each external policy the picker offers. A config that does not parse
/// gives none (its problem is reported with the keys).
pub(crate) fn user_policies() -> Vec<(String, String)> {
    let Some(p) = file() else {
        return Vec::new();
    };
    let Ok(text) = read_bounded(&p) else {
        return Vec::new();
    };
    policies_in(&text)
}

/// The most a config or theme file may hold: 1 MiB (a full keymap and
/// every theme field take a few KB).
pub(crate) const MAX_BYTES: u64 = 1 << 20;

/// A config or theme file's text: only a regular file (a FIFO would hang
/// the start, `/dev/zero` would never end), at most `MAX_BYTES`.
/// Opened without blocking, so a FIFO is refused rather than waited on.
pub(crate) fn read_bounded(p: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NONBLOCK | libc::O_CLOEXEC);
    let f = o.open(p)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let too_big = || {
        Error::new(
            ErrorKind::InvalidData,
            format!(
                "over {} MiB: larger than a config, theme, plan or lesson file",
                MAX_BYTES >> 20
            ),
        )
    };
    if meta.len() > MAX_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    f.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The `[policies]` table of a config file's text (none if it does not parse).
pub(crate) fn policies_in(text: &str) -> Vec<(String, String)> {
    parse(text)
        .map(|c| c.policies.into_iter().collect())
        .unwrap_or_default()
}

/// The widest a line of a TOML file's error is shown: the error quotes
/// the offending line, which may be hundreds of kilobytes long.
const ERROR_LINE: usize = 160;

/// A TOML error as the terminal shows it: each line cut to `ERROR_LINE`
/// columns (a 400 KB line echoed whole buried the message).
pub(crate) fn toml_error(e: &dyn std::fmt::Display) -> String {
    e.to_string()
        .lines()
        .map(|l| crate::text::fit(l, ERROR_LINE))
        .collect::<Vec<_>>()
        .join("\n")
}
