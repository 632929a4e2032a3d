//! The screen as text and SVG (`e`, for slides; the runner writes the
//! files, see `effects.rs`), and what became of an export.

use super::app::{App, Exported};
use super::colour::hex;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use std::fmt::Write as _;

impl App {
    /// What became of `e`'s export (written by the runner): in the log and the flash.
    pub(super) fn exported(&mut self, e: Exported) {
        match e {
            Exported::Files { txt, svg, detail } => {
                let (txt, svg) = (shown(&txt), shown(&svg));
                match detail {
                    Some(d) => {
                        let what = if d.extension().is_some_and(|x| x == "csv") {
                            "the table"
                        } else {
                            "the drill-down"
                        };
                        let d = shown(&d);
                        self.info(format!("screen exported: {txt} and {svg}; {what}: {d}"));
                        self.view.flash = Some(format!("saved {what}: {d}"));
                    }
                    None => {
                        self.info(format!("screen exported: {txt} and {svg}"));
                        self.view.flash = Some(format!("exported {svg}"));
                    }
                }
            }
            Exported::Failed { dir, error } => {
                let error = crate::text::guarded(&error).into_owned();
                self.warn(format!("export failed in {}: {error}", shown(&dir)));
                self.view.flash = Some(format!("export failed: {error}"));
            }
        }
    }
}

/// A path made safe to show (the log and the flash line alike).
fn shown(p: &std::path::Path) -> String {
    crate::text::sanitize(&p.display().to_string())
}

/// The frame's characters, one line per row, trailing spaces trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut out = String::new();
    for y in a.top()..a.bottom() {
        let mut line = String::new();
        for x in a.left()..a.right() {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

const CW: u32 = 9;
const CH: u32 = 18;

/// The frame as SVG: a rectangle per background run, text per cell, the
/// colours and bold/reverse kept.
/// Cells on the terminal's own colours take the theme's `paper`.
pub(crate) fn buffer_svg(buf: &Buffer, paper: &(String, String)) -> String {
    let a = buf.area;
    let (bg0, fg0) = (paper.0.as_str(), paper.1.as_str());
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"15\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"{bg0}\"/>\n",
        a.width as u32 * CW,
        a.height as u32 * CH
    );
    for y in a.top()..a.bottom() {
        for x in a.left()..a.right() {
            let c = &buf[(x, y)];
            let rev = c.modifier.contains(Modifier::REVERSED);
            let (mut fg, mut bg) = (hex(c.fg, fg0), hex(c.bg, bg0));
            if rev {
                std::mem::swap(&mut fg, &mut bg);
            }
            let (px, py) = ((x - a.x) as u32 * CW, (y - a.y) as u32 * CH);
            if bg != bg0 {
                let _ = writeln!(
                    o,
                    "<rect x=\"{px}\" y=\"{py}\" width=\"{CW}\" height=\"{CH}\" fill=\"{bg}\"/>"
                );
            }
            let s = c.symbol();
            if s.trim().is_empty() {
                continue;
            }
            let weight = if c.modifier.contains(Modifier::BOLD) {
                " font-weight=\"bold\""
            } else {
                ""
            };
            let deco = if c.modifier.contains(Modifier::UNDERLINED) {
                " text-decoration=\"underline\""
            } else {
                ""
            };
            let _ = writeln!(
                o,
                "<text x=\"{px}\" y=\"{}\" fill=\"{fg}\"{weight}{deco}>{}</text>",
                py + CH - 5,
                escape(s)
            );
        }
    }
    o.push_str("</svg>\n");
    o
}

fn escape(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    #[test]
    fn colours_and_escapes() {
        assert_eq!(hex(Color::Rgb(1, 2, 255), "#000000"), "#0102ff");
        assert_eq!(hex(Color::Reset, "#101010"), "#101010");
        assert_eq!(hex(Color::Indexed(196), "#000000"), "#ff0000");
        assert_eq!(hex(Color::Indexed(244), "#000000"), "#808080");
        assert_eq!(escape("<a&\"b\u{1b}>"), "&lt;a&amp;&quot;b&gt;");
    }
}
