//! Themes: TOML files of named roles (no colour names in drawing code),
//! embedded in the binary and loadable from a path or the user's config
//! directory; colours reduced to what the terminal can show.

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

/// How many colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    TrueColor,
    Ansi256,
    Ansi16,
    None,
}

impl Depth {
    /// From `NO_COLOR`, `COLORTERM` and `TERM`.
    pub(crate) fn detect() -> Depth {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        if !var("NO_COLOR").is_empty() {
            Depth::None
        } else if matches!(var("COLORTERM").as_str(), "truecolor" | "24bit") {
            Depth::TrueColor
        } else if var("TERM").contains("256") {
            Depth::Ansi256
        } else {
            Depth::Ansi16
        }
    }
}

#[derive(Debug, Deserialize)]
struct ThemeFile {
    name: String,
    #[serde(default)]
    description: String,
    roles: BTreeMap<String, toml::Value>,
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

fn named(s: &str) -> Option<Color> {
    Some(match s {
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "darkgray" | "darkgrey" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        _ => return None,
    })
}

/// `#rrggbb`, `reset`, an ANSI name, or `idx:N`.
/// A named colour's index in the 16-colour palette (black 0 … white 15).
pub(crate) fn ansi16(c: Color) -> Option<u8> {
    Some(match c {
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
        _ => return None,
    })
}

pub(crate) fn parse_color(s: &str) -> Result<Color, UiError> {
    let s = s.trim().to_ascii_lowercase();
    if s == "reset" || s == "default" {
        return Ok(Color::Reset);
    }
    if let Some(hex) = s.strip_prefix('#') {
        if hex.len() == 6 {
            if let Ok(v) = u32::from_str_radix(hex, 16) {
                return Ok(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
            }
        }
    }
    if let Some(n) = s.strip_prefix("idx:") {
        if let Ok(i) = n.parse::<u8>() {
            return Ok(Color::Indexed(i));
        }
    }
    named(&s).ok_or(UiError::Color(s))
}

const ANSI16: [(Color, (u8, u8, u8)); 16] = [
    (Color::Black, (0, 0, 0)),
    (Color::Red, (205, 0, 0)),
    (Color::Green, (0, 205, 0)),
    (Color::Yellow, (205, 205, 0)),
    (Color::Blue, (0, 0, 238)),
    (Color::Magenta, (205, 0, 205)),
    (Color::Cyan, (0, 205, 205)),
    (Color::Gray, (229, 229, 229)),
    (Color::DarkGray, (127, 127, 127)),
    (Color::LightRed, (255, 0, 0)),
    (Color::LightGreen, (0, 255, 0)),
    (Color::LightYellow, (255, 255, 0)),
    (Color::LightBlue, (92, 92, 255)),
    (Color::LightMagenta, (255, 0, 255)),
    (Color::LightCyan, (0, 255, 255)),
    (Color::White, (255, 255, 255)),
];

fn dist(a: (u8, u8, u8), b: (u8, u8, u8)) -> u32 {
    let d = |x: u8, y: u8| (x as i32 - y as i32).pow(2) as u32;
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)
}

/// The nearest xterm-256 index (the 6×6×6 cube or the grey ramp).
pub(crate) fn to_256(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| -> u8 {
        if v < 48 {
            0
        } else if v < 115 {
            1
        } else {
            (v - 35) / 40
        }
    };
    let (lr, lg, lb) = (level(r), level(g), level(b));
    let cube = |l: u8| if l == 0 { 0 } else { 55 + 40 * l };
    let cube_rgb = (cube(lr), cube(lg), cube(lb));
    let grey_avg = (r as u32 + g as u32 + b as u32) / 3;
    let grey_i = if grey_avg > 238 {
        23
    } else {
        (grey_avg.saturating_sub(3) / 10) as u8
    };
    let grey_v = 8 + 10 * grey_i;
    if dist((r, g, b), (grey_v, grey_v, grey_v)) < dist((r, g, b), cube_rgb) {
        232 + grey_i
    } else {
        16 + 36 * lr + 6 * lg + lb
    }
}

/// A colour as the terminal can show it.
pub(crate) fn reduce(c: Color, depth: Depth) -> Color {
    match (c, depth) {
        (_, Depth::None) => Color::Reset,
        (Color::Rgb(r, g, b), Depth::Ansi256) => Color::Indexed(to_256(r, g, b)),
        (Color::Rgb(r, g, b), Depth::Ansi16) => ANSI16
            .iter()
            .min_by_key(|(_, rgb)| dist(*rgb, (r, g, b)))
            .map_or(Color::Reset, |(c, _)| *c),
        (c, _) => c,
    }
}

impl Theme {
    /// Parses a theme file; every role must be present.
    pub fn parse(text: &str, depth: Depth) -> Result<Theme, UiError> {
        let f: ThemeFile = toml::from_str(text)?;
        let missing: Vec<&str> = ROLES
            .iter()
            .copied()
            .filter(|r| !f.roles.contains_key(*r))
            .collect();
        if !missing.is_empty() {
            return Err(UiError::MissingRoles(missing.join(", ")));
        }
        let role = |name: &str| -> Result<Color, UiError> {
            let v = f
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
        };
        let fg = |name: &str| role(name).map(|c| Style::default().fg(c));
        let jobs: Vec<Color> = match f.roles.get("jobs") {
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
        let colored = depth != Depth::None && f.name != "mono";
        let background = match f.roles.get("background") {
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
        };
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
    use super::export::hex;
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
    let text = super::keymap::read_config_file(p).map_err(|source| UiError::Read {
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
