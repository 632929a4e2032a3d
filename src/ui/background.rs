//! The terminal's background, so the default theme is one made for it:
//! asked with OSC 11 (with DA1 as a sentinel, a short wait, the terminal's
//! settings put back), else read from `COLORFGBG` (rxvt, Konsole); light:
//! the light theme; dark: the dark one, on the terminal's own background;
//! unknown: the dark one painting its own dark background, so its pale
//! text never lands on a light terminal's white. Pure: the runner asks
//! (`driver::ask_terminal`) and hands the answer here.

use std::time::Duration;

/// The longest the terminal is waited for (most answer within
/// milliseconds; one that ignores OSC 11 still answers DA1 at once).
pub(crate) const WAIT: Duration = Duration::from_millis(300);

/// OSC 11 asking the background colour.
pub(crate) const QUERY: &[u8] = b"\x1b]11;?\x1b\\";

/// What is known of the terminal's background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Background {
    Light,
    Dark,
    Unknown,
}

/// The background and how it was found out, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sensed {
    pub background: Background,
    pub how: String,
}

/// The background from the terminal's answer (if any) and `COLORFGBG`.
pub(crate) fn judge(answer: Option<&[u8]>, colorfgbg: Option<&str>) -> Sensed {
    if let Some((rgb, text)) = answer.and_then(parse_osc11) {
        let light = luminance(rgb) > 0.5;
        return Sensed {
            background: if light {
                Background::Light
            } else {
                Background::Dark
            },
            how: format!("the terminal says its background is {text}"),
        };
    }
    if let Some(light) = colorfgbg.and_then(from_colorfgbg) {
        return Sensed {
            background: if light {
                Background::Light
            } else {
                Background::Dark
            },
            how: format!(
                "COLORFGBG={}",
                crate::text::sanitize(colorfgbg.unwrap_or(""))
            ),
        };
    }
    Sensed {
        background: Background::Unknown,
        how: "the terminal does not say its background".into(),
    }
}

/// An OSC 11 answer (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB` ended by BEL or ST,
/// 1–4 hex digits a channel): each channel 0–1, and `#rrggbb`.
pub(crate) fn parse_osc11(b: &[u8]) -> Option<([f64; 3], String)> {
    let text = String::from_utf8_lossy(b);
    let start = text.find("\x1b]11;rgb:")? + "\x1b]11;rgb:".len();
    let rest = &text[start..];
    let end = rest.find(['\x07', '\x1b']).unwrap_or(rest.len());
    let parts: Vec<&str> = rest[..end].split('/').collect();
    let [r, g, b] = parts.as_slice() else {
        return None;
    };
    let channel = |h: &str| -> Option<f64> {
        let ok = (1..=4).contains(&h.len()) && h.chars().all(|c| c.is_ascii_hexdigit());
        let v = u32::from_str_radix(h, 16).ok().filter(|_| ok)?;
        Some(v as f64 / ((1u32 << (4 * h.len())) - 1) as f64)
    };
    let rgb = [channel(r)?, channel(g)?, channel(b)?];
    let byte = |v: f64| (v * 255.0).round() as u8;
    let hex = format!(
        "#{:02x}{:02x}{:02x}",
        byte(rgb[0]),
        byte(rgb[1]),
        byte(rgb[2])
    );
    Some((rgb, hex))
}

/// Relative luminance (sRGB weights on the channels as given).
fn luminance([r, g, b]: [f64; 3]) -> f64 {
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

/// `COLORFGBG` (`fg;bg` or `fg;default;bg`): a light background is ANSI
/// colour 7 or 9–15.
fn from_colorfgbg(s: &str) -> Option<bool> {
    let bg: u8 = s.rsplit(';').next()?.trim().parse().ok()?;
    Some(bg == 7 || (9..=15).contains(&bg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_osc_11_answer_names_the_background_in_any_digit_count() {
        let white = parse_osc11(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?1;2c").unwrap();
        assert_eq!(white.1, "#ffffff");
        let dark = parse_osc11(b"\x1b]11;rgb:1c/1c/1c\x07").unwrap();
        assert_eq!(dark.1, "#1c1c1c");
        assert_eq!(parse_osc11(b"\x1b]11;rgb:f/8/0\x07").unwrap().1, "#ff8800");
        assert!(parse_osc11(b"\x1b]11;rgb:zz/00/00\x07").is_none());
        assert!(parse_osc11(b"\x1b]11;rgb:00000/0/0\x07").is_none());
        assert!(parse_osc11(b"\x1b[?1;2c").is_none());
    }

    #[test]
    fn the_answer_decides_then_colorfgbg_then_unknown() {
        let light = b"\x1b]11;rgb:f0f0/f0f0/f0f0\x1b\\";
        assert_eq!(
            judge(Some(light), Some("15;0")).background,
            Background::Light
        );
        let dark = b"\x1b]11;rgb:0000/2b2b/3636\x07";
        assert_eq!(judge(Some(dark), None).background, Background::Dark);
        assert_eq!(
            judge(Some(b"\x1b[?1;2c"), Some("0;15")).background,
            Background::Light
        );
        assert_eq!(
            judge(None, Some("15;default;0")).background,
            Background::Dark
        );
        assert_eq!(judge(None, Some("junk")).background, Background::Unknown);
        assert_eq!(judge(None, None).background, Background::Unknown);
    }
}
