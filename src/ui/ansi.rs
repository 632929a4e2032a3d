//! A drawn buffer as text with SGR colour sequences (`Q` prints it).

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// The buffer as text with SGR colour sequences (for `Q` and exports).
pub(super) fn buffer_to_ansi(buf: &Buffer) -> String {
    let mut out = String::new();
    let area = buf.area;
    for y in area.y..area.y + area.height {
        let mut last: Option<(Color, Color, Modifier)> = None;
        for x in area.x..area.x + area.width {
            let c = &buf[(x, y)];
            let key = (c.fg, c.bg, c.modifier);
            if last != Some(key) {
                out.push_str("\x1b[0m");
                out.push_str(&sgr(c.fg, c.bg, c.modifier));
                last = Some(key);
            }
            out.push_str(c.symbol());
        }
        out.push_str("\x1b[0m\n");
    }
    out
}

fn sgr(fg: Color, bg: Color, m: Modifier) -> String {
    let mut parts: Vec<String> = Vec::new();
    if m.contains(Modifier::BOLD) {
        parts.push("1".into());
    }
    if m.contains(Modifier::UNDERLINED) {
        parts.push("4".into());
    }
    if m.contains(Modifier::REVERSED) {
        parts.push("7".into());
    }
    let col = |c: Color, base: u8| -> Option<String> {
        Some(match c {
            Color::Reset => return None,
            Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
            Color::Indexed(i) => format!("{};5;{i}", base + 8),
            other => {
                // Bright colours (8–15) are SGR 90–97 / 100–107.
                let i = super::colour::ansi16(other).unwrap_or(15) as u32;
                let n = if i < 8 { i } else { 60 + i - 8 };
                format!("{}", base as u32 + n)
            }
        })
    };
    parts.extend(col(fg, 30));
    parts.extend(col(bg, 40));
    if parts.is_empty() {
        String::new()
    } else {
        format!("\x1b[{}m", parts.join(";"))
    }
}
