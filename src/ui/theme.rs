//! Themes: TOML files of named roles (no colour names in drawing code),
//! embedded in the binary and loadable from a path or the user's config
//! directory; colours reduced to what the terminal can show.

pub use super::colour::Depth;
use super::colour::{parse_color, reduce};
use super::error::UiError;
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The themes compiled into the binary, in cycling order.
pub const EMBEDDED: [(&str, &str); 5] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("okabe-ito", include_str!("../../themes/okabe-ito.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// The roles every theme file names.
pub const ROLES: [&str; 18] = [
    "text",
    "dim",
    "accent",
    "border",
    "title",
    "header_fg",
    "header_bg",
    "playing",
    "paused",
    "warn",
    "error",
    "free",
    "cursor_fg",
    "cursor_bg",
    "selected",
    "util_low",
    "util_mid",
    "util_high",
];

#[derive(Debug, Deserialize)]
struct ThemeFile {
    name: String,
    #[serde(default)]
    description: String,
    roles: BTreeMap<String, toml::Value>,
}

impl ThemeFile {
    /// Every role present, or the missing ones named.
    fn check_roles(&self) -> Result<(), UiError> {
        let missing: Vec<&str> = ROLES
            .iter()
            .copied()
            .filter(|r| !self.roles.contains_key(*r))
            .collect();
        if !missing.is_empty() {
            return Err(UiError::MissingRoles(missing.join(", ")));
        }
        Ok(())
    }

    /// Role `name`'s colour, reduced to what the terminal shows (`depth`).
    fn color(&self, name: &str, depth: Depth) -> Result<Color, UiError> {
        let v = self
            .roles
            .get(name)
            .ok_or_else(|| UiError::MissingRole(name.into()))?;
        let s = v.as_str().ok_or_else(|| UiError::NotAString(name.into()))?;
        parse_color(s)
            .map(|c| reduce(c, depth))
            .map_err(|e| UiError::Role {
                name: name.into(),
                why: Box::new(e),
            })
    }

    /// The jobs' colours (`jobs`, a list of at least one), reduced to `depth`.
    fn job_colors(&self, depth: Depth) -> Result<Vec<Color>, UiError> {
        let jobs: Vec<Color> = match self.roles.get("jobs") {
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or(UiError::JobsNotStrings)
                        .and_then(parse_color)
                })
                .map(|c| c.map(|c| reduce(c, depth)))
                .collect::<Result<_, _>>()?,
            _ => return Err(UiError::NoJobs),
        };
        if jobs.is_empty() {
            return Err(UiError::EmptyJobs);
        }
        Ok(jobs)
    }

    /// The background it paints, as written (none: `Color::Reset`, the
    /// terminal's own).
    fn background(&self) -> Result<Color, UiError> {
        Ok(match self.roles.get("background") {
            None => Color::Reset,
            Some(v) => {
                let s = v
                    .as_str()
                    .ok_or_else(|| UiError::NotAString("background".into()))?;
                parse_color(s).map_err(|e| UiError::Role {
                    name: "background".into(),
                    why: Box::new(e),
                })?
            }
        })
    }
}

/// A theme, ready to draw with.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub description: String,
    pub text: Style,
    pub dim: Style,
    pub accent: Style,
    pub border: Style,
    pub title: Style,
    pub header: Style,
    pub playing: Style,
    pub paused: Style,
    pub warn: Style,
    pub error: Style,
    pub free: Style,
    pub cursor: Style,
    pub selected: Style,
    pub util: [Color; 3],
    pub jobs: Vec<Color>,
    /// Whether this theme draws any colour (mono does not).
    pub colored: bool,
    /// The background it paints (`Color::Reset`: the terminal's own).
    pub background: Color,
    /// Its page for exports, whatever the terminal shows: background and
    /// text as `#rrggbb` (a theme on the terminal's background: dark).
    pub paper: (String, String),
}

impl Theme {
    /// Parses a theme file; every role must be present.
    pub fn parse(text: &str, depth: Depth) -> Result<Theme, UiError> {
        let f: ThemeFile =
            toml::from_str(text).map_err(|e| UiError::Toml(crate::config::toml_error(&e)))?;
        f.check_roles()?;
        let role = |name: &str| f.color(name, depth);
        let fg = |name: &str| role(name).map(|c| Style::default().fg(c));
        let jobs = f.job_colors(depth)?;
        let colored = depth != Depth::None && f.name != "mono";
        let background = f.background()?;
        let paper = paper(background, &f.roles);
        let cursor = Style::default()
            .fg(role("cursor_fg")?)
            .bg(role("cursor_bg")?)
            .add_modifier(Modifier::BOLD);
        Ok(Theme {
            name: f.name.clone(),
            description: f.description.clone(),
            text: fg("text")?,
            dim: fg("dim")?,
            accent: fg("accent")?,
            border: fg("border")?,
            title: fg("title")?.add_modifier(Modifier::BOLD),
            header: Style::default()
                .fg(role("header_fg")?)
                .bg(role("header_bg")?),
            playing: fg("playing")?.add_modifier(Modifier::BOLD),
            paused: fg("paused")?.add_modifier(Modifier::BOLD | Modifier::REVERSED),
            warn: fg("warn")?,
            error: fg("error")?.add_modifier(Modifier::BOLD),
            free: fg("free")?,
            // Without colour the cursor is reverse video (with a marker glyph, drawn elsewhere).
            cursor: if colored {
                cursor
            } else {
                Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
            },
            selected: fg("selected")?.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            util: [role("util_low")?, role("util_mid")?, role("util_high")?],
            jobs: if colored { jobs } else { vec![Color::Reset] },
            colored,
            background: reduce(background, depth),
            paper,
        })
    }

    pub fn embedded(name: &str, depth: Depth) -> Option<Theme> {
        EMBEDDED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| Theme::parse(t, depth).expect("embedded themes parse"))
    }

    /// The colour for `key` (a job or user), stable across runs.
    pub(crate) fn palette(&self, key: u64) -> Color {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        self.jobs[(h % self.jobs.len() as u64) as usize]
    }

    /// Low / mid / high utilisation colour for a fraction in [0, 1].
    pub(crate) fn util_color(&self, frac: f64) -> Color {
        self.util[if frac < 0.34 {
            0
        } else if frac < 0.67 {
            1
        } else {
            2
        }]
    }
}

/// A theme's page for exports: its own background and text colours as
/// written (not as the terminal shows them); the dark page where it
/// paints none (it is drawn on the terminal's background).
fn paper(background: Color, roles: &BTreeMap<String, toml::Value>) -> (String, String) {
    use super::colour::hex;
    if background == Color::Reset {
        return ("#101010".into(), "#e0e0e0".into());
    }
    let text = roles
        .get("text")
        .and_then(|v| v.as_str())
        .and_then(|s| parse_color(s).ok())
        .unwrap_or(Color::Black);
    (hex(background, "#ffffff"), hex(text, "#000000"))
}

/// `--theme NAME|PATH`: an embedded name, a file, or a theme in `user_dir`.
pub(crate) fn resolve(spec: &str, depth: Depth, user_dir: Option<&Path>) -> Result<Theme, UiError> {
    if let Some(t) = Theme::embedded(spec, depth) {
        return Ok(t);
    }
    let path = Path::new(spec);
    let candidates = [
        Some(path.to_path_buf()),
        user_dir.map(|d| d.join(format!("{spec}.toml"))),
    ];
    for p in candidates.into_iter().flatten() {
        if p.is_file() {
            return read(&p, depth);
        }
    }
    Err(UiError::NoTheme {
        spec: spec.to_string(),
        choices: EMBEDDED.map(|e| e.0).join(", "),
    })
}

/// The theme in file `p`: what is wrong with it names the file.
fn read(p: &Path, depth: Depth) -> Result<Theme, UiError> {
    let text = crate::config::read_bounded(p).map_err(|source| UiError::Read {
        path: p.to_path_buf(),
        source,
    })?;
    Theme::parse(&text, depth).map_err(|e| UiError::InFile {
        path: p.to_path_buf(),
        why: Box::new(e),
    })
}

/// Every theme to cycle through: the embedded ones, then the user's.
pub fn all(depth: Depth, user_dir: Option<&Path>) -> (Vec<Theme>, Vec<String>) {
    let mut themes: Vec<Theme> = EMBEDDED
        .iter()
        .filter_map(|(n, _)| Theme::embedded(n, depth))
        .collect();
    let mut problems = Vec::new();
    if let Some(dir) = user_dir {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for p in files
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        {
            match read(&p, depth) {
                Ok(t) if !themes.iter().any(|x| x.name == t.name) => themes.push(t),
                Ok(_) => {}
                Err(e) => problems.push(format!("theme {e}")),
            }
        }
    }
    (themes, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_theme_parses_with_every_role() {
        for (name, text) in EMBEDDED {
            let t = Theme::parse(text, Depth::TrueColor).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.name, name);
            for role in ROLES {
                assert!(
                    text.contains(&format!("\n{role} = ")),
                    "{name} names {role}"
                );
            }
        }
    }

    #[test]
    fn colours_fall_back_to_what_the_terminal_shows() {
        assert_eq!(
            reduce(Color::Rgb(255, 0, 0), Depth::Ansi256),
            Color::Indexed(196)
        );
        assert_eq!(
            reduce(Color::Rgb(128, 128, 128), Depth::Ansi256),
            Color::Indexed(244)
        );
        assert_eq!(
            reduce(Color::Rgb(250, 10, 10), Depth::Ansi16),
            Color::LightRed
        );
        assert_eq!(reduce(Color::Rgb(250, 10, 10), Depth::None), Color::Reset);
        let t = Theme::embedded("dark", Depth::Ansi16).unwrap();
        assert!(t
            .jobs
            .iter()
            .all(|c| !matches!(c, Color::Rgb(..) | Color::Indexed(_))));
    }

    #[test]
    fn mono_has_no_colour_and_marks_the_cursor_with_reverse() {
        let t = Theme::embedded("mono", Depth::TrueColor).unwrap();
        assert!(!t.colored);
        assert!(t.cursor.add_modifier.contains(Modifier::REVERSED));
        assert_eq!(t.cursor.fg, None);
    }

    #[test]
    fn bad_theme_files_say_what_is_wrong() {
        let dark = EMBEDDED[0].1;
        let bad = dark.replace("text = \"#d0d0d0\"", "text = \"#fff\"");
        assert_eq!(
            Theme::parse(&bad, Depth::TrueColor)
                .unwrap_err()
                .to_string(),
            "role 'text': '#fff' is not a colour (#rrggbb, reset, an ANSI name or idx:N)"
        );
        let short = "name = \"x\"\n[roles]\ntext = \"#ffffff\"";
        assert!(Theme::parse(short, Depth::TrueColor)
            .unwrap_err()
            .to_string()
            .starts_with("missing roles: dim, accent"));
        assert!(resolve("nope", Depth::TrueColor, None)
            .unwrap_err()
            .to_string()
            .contains("choose dark, light"));
        assert!(parse_color("#12345").is_err());
        assert_eq!(parse_color("idx:42").ok(), Some(Color::Indexed(42)));
    }

    #[test]
    fn a_theme_file_that_cannot_be_read_says_why() {
        let e = read(Path::new("/no/such/dir/t.toml"), Depth::TrueColor).unwrap_err();
        let said = e.to_string();
        assert!(said.starts_with("/no/such/dir/t.toml: "), "{said}");
        assert!(said.contains("No such file or directory"), "{said}");
        assert!(std::error::Error::source(&e).is_some());
    }
}
