//! `--ascii`: every cell on screen made ASCII after drawing, whatever a
//! view or a trace field put there — a promise kept in one place rather
//! than in every view.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The ASCII stand-in for a symbol the views draw (`?` for anything else,
/// e.g. a trace's own non-ASCII text).
pub fn fallback(symbol: &str) -> &'static str {
    match symbol {
        "·" | "•" => ".",
        "…" => "~",
        "×" => "x",
        "→" | "▶" | "▸" | "›" => ">",
        "←" | "◂" | "‹" => "<",
        "↑" | "▲" => "^",
        "↓" | "▼" => "v",
        "↺" => "p",
        "▌" => "]",
        "■" => "#",
        "∘" => "o",
        "⠒" => "-",
        "↔" => "-",
        "–" | "—" | "─" | "━" => "-",
        "│" | "┃" => "|",
        "≤" => "<",
        "≥" => ">",
        "●" | "◆" => "*",
        "○" | "◇" => "o",
        "½" => "=",
        "¼" => "-",
        "¾" => "#",
        "█" | "▓" => "#",
        "▒" => "+",
        "░" => ":",
        // A prompt's cursor: an insertion bar (`:` read as the `:` prompt's own).
        "▏" => "|",
        "η" => "n",
        "µ" => "u",
        s if s.contains(['┌', '┐', '└', '┘', '├', '┤', '┬', '┴', '┼']) => "+",
        _ => "?",
    }
}

/// The last guard before the terminal: a cell holding a control, escape or
/// bidi-override character (which a view should already have escaped with
/// `sanitize`) becomes `?`, so no raw byte of a trace reaches the screen.
pub fn scrub(buf: &mut Buffer, area: Rect) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let sym = buf[(x, y)].symbol();
            let suspect = !sym.is_ascii() || sym.bytes().any(|b| b < 0x20 || b == 0x7f);
            if suspect && sym.chars().any(crate::text::is_unsafe) {
                buf[(x, y)].set_symbol("?");
            }
        }
    }
}

/// Replaces every non-ASCII cell of `area` by its stand-in; a wide
/// character's second cell becomes a space, so columns stay where they were.
pub fn make_ascii(buf: &mut Buffer, area: Rect) {
    use unicode_width::UnicodeWidthStr;
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let sym = buf[(x, y)].symbol();
            if sym.is_ascii() {
                continue;
            }
            let wide = sym.width() > 1;
            let f = fallback(sym);
            buf[(x, y)].set_symbol(f);
            if wide && x + 1 < area.right() && buf[(x + 1, y)].symbol().is_empty() {
                buf[(x + 1, y)].set_symbol(" ");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fallback;

    /// The glyphs the rankings, queue marks, mono grid, legend and
    /// timeline overlay draw have stand-ins, not `?`.
    #[test]
    fn the_newer_glyphs_have_stand_ins() {
        for (g, a) in [
            ("▼", "v"),
            ("▲", "^"),
            ("↺", "p"),
            ("▌", "]"),
            ("■", "#"),
            ("∘", "o"),
            ("⠒", "-"),
        ] {
            assert_eq!(fallback(g), a, "{g}");
        }
        assert_eq!(fallback("漢"), "?");
    }
}
