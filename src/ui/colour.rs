//! Colours: a theme file's colour names, and a colour reduced to what the
//! terminal shows (truecolor, 256, 16 or none) or written as `#rrggbb`
//! for an export. A leaf: themes, the ANSI writer and exports use it.

use super::error::UiError;
use ratatui::style::Color;

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

/// A terminal colour as `#rrggbb` (the xterm palette for indexed colours).
pub(crate) fn hex(c: Color, default: &str) -> String {
    const ANSI: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 49, 49),
        (13, 188, 121),
        (229, 229, 16),
        (36, 114, 200),
        (188, 63, 188),
        (17, 168, 205),
        (229, 229, 229),
        (102, 102, 102),
        (241, 76, 76),
        (35, 209, 139),
        (245, 245, 67),
        (59, 142, 234),
        (214, 112, 214),
        (41, 184, 219),
        (255, 255, 255),
    ];
    let rgb = match c {
        Color::Reset => return default.to_string(),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(i) if i < 16 => ANSI[i as usize],
        Color::Indexed(i) if i < 232 => {
            let i = i - 16;
            let l = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (l(i / 36), l((i / 6) % 6), l(i % 6))
        }
        Color::Indexed(i) => {
            let v = 8 + (i - 232) * 10;
            (v, v, v)
        }
        named => ANSI[ansi16(named).unwrap_or(15) as usize],
    };
    format!("#{:02x}{:02x}{:02x}", rgb.0, rgb.1, rgb.2)
}
