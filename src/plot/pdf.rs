//! A figure as PDF: the SVG plotters draws (rectangles, lines, polylines
//! and text, nothing else) redrawn as one PDF page, with no system
//! library and no embedded font — text in Helvetica, which every PDF
//! reader has, in its WinAnsi characters (others print as `?`). One SVG
//! pixel is ¾ of a point (a 1500×1000 figure is 15.6 × 10.4 in); an
//! element's opacity is blended with the white page. The same SVG gives
//! the same bytes.

use std::fmt::Write as _;

/// Points per SVG pixel.
const PT: f64 = 0.75;

/// The PDF of `svg` (as `figure` draws it), with `meta` (JSON) in its
/// document information as `/tracetui`.
pub(crate) fn from_svg(svg: &str, meta: Option<&str>) -> Vec<u8> {
    let (w, h) = size(svg);
    let mut ops = String::new();
    for el in elements(svg) {
        draw(&mut ops, &el, h);
    }
    let content = miniz_oxide::deflate::compress_to_vec_zlib(ops.as_bytes(), 6);
    document(w * PT, h * PT, &content, meta)
}

/// One element of the SVG: its tag, attributes, and text.
struct Element<'a> {
    tag: &'a str,
    attrs: Vec<(&'a str, &'a str)>,
    text: String,
}

impl Element<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
    }

    fn num(&self, name: &str) -> f64 {
        self.get(name)
            .and_then(|v| v.trim_end_matches("px").parse().ok())
            .unwrap_or(0.0)
    }
}

fn size(svg: &str) -> (f64, f64) {
    let root = elements(svg).into_iter().find(|e| e.tag == "svg");
    root.map_or((1500.0, 1000.0), |e| (e.num("width"), e.num("height")))
}

/// The SVG's elements in order (the `<metadata>` left out).
fn elements(svg: &str) -> Vec<Element<'_>> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find('>') else { break };
        let tag_text = &rest[..close];
        rest = &rest[close + 1..];
        if tag_text.starts_with(['/', '?', '!']) {
            continue;
        }
        let (tag, body) = tag_text
            .split_once(char::is_whitespace)
            .unwrap_or((tag_text, ""));
        let tag = tag.trim_end_matches('/');
        let mut text = String::new();
        if matches!(tag, "text" | "metadata") && !tag_text.ends_with('/') {
            let end = format!("</{tag}>");
            let at = rest.find(&end).unwrap_or(rest.len());
            text = unescape(rest[..at].trim());
            rest = &rest[(at + end.len()).min(rest.len())..];
        }
        if tag != "metadata" {
            out.push(Element {
                tag,
                attrs: attributes(body),
                text,
            });
        }
    }
    out
}

/// `name="value"` pairs.
fn attributes(body: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].trim();
        let after = &rest[eq + 2..];
        let Some(end) = after.find('"') else { break };
        out.push((name, &after[..end]));
        rest = &after[end + 1..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// `#rrggbb` blended with white by `opacity`, as PDF's 0–1 numbers.
fn colour(hex: &str, opacity: f64) -> Option<[f64; 3]> {
    let hex = hex.strip_prefix('#')?;
    let v = u32::from_str_radix(hex, 16).ok()?;
    let c = |shift: u32| {
        let x = f64::from((v >> shift) & 0xff) / 255.0;
        x * opacity + (1.0 - opacity)
    };
    Some([c(16), c(8), c(0)])
}

fn pt(x: f64) -> String {
    let r = (x * 100.0).round() / 100.0;
    format!("{r}")
}

/// One element's drawing, on a page `h` pixels high (PDF's y goes up).
fn draw(ops: &mut String, e: &Element, h: f64) {
    let opacity = e.get("opacity").and_then(|o| o.parse().ok()).unwrap_or(1.0);
    let at = |x: f64, y: f64| format!("{} {}", pt(x * PT), pt((h - y) * PT));
    let stroke = e.get("stroke").and_then(|s| colour(s, opacity));
    let fill = e.get("fill").and_then(|f| colour(f, opacity));
    let width = e
        .get("stroke-width")
        .and_then(|w| w.parse().ok())
        .unwrap_or(1.0)
        * PT;
    match e.tag {
        "rect" => {
            if let Some([r, g, b]) = fill {
                let (x, y, w, hh) = (e.num("x"), e.num("y"), e.num("width"), e.num("height"));
                let _ = writeln!(
                    ops,
                    "{r:.3} {g:.3} {b:.3} rg {} {} {} re f",
                    at(x, y + hh),
                    pt(w * PT),
                    pt(hh * PT)
                );
            }
        }
        "line" | "polyline" => {
            let pts: Vec<(f64, f64)> = match e.tag {
                "line" => vec![(e.num("x1"), e.num("y1")), (e.num("x2"), e.num("y2"))],
                _ => e
                    .get("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .filter_map(|p| p.split_once(','))
                    .filter_map(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))
                    .collect(),
            };
            let Some([r, g, b]) = stroke else { return };
            if pts.len() < 2 {
                return;
            }
            let _ = write!(ops, "{r:.3} {g:.3} {b:.3} RG {} w ", pt(width));
            for (i, &(x, y)) in pts.iter().enumerate() {
                let _ = write!(ops, "{} {} ", at(x, y), if i == 0 { "m" } else { "l" });
            }
            ops.push_str("S\n");
        }
        "text" => text(ops, e, h, fill.unwrap_or([0.0; 3])),
        _ => {}
    }
}

/// A text element: Helvetica at its size, anchored and shifted as the
/// SVG says, turned by its `rotate(θ, x, y)`.
fn text(ops: &mut String, e: &Element, h: f64, [r, g, b]: [f64; 3]) {
    let size = e.num("font-size").max(1.0) * PT;
    let (x, y) = (e.num("x"), e.num("y"));
    let dy = match e.get("dy") {
        Some(d) if d.ends_with("em") => d.trim_end_matches("em").parse().unwrap_or(0.0),
        Some(d) if d.ends_with("ex") => {
            d.trim_end_matches("ex").parse::<f64>().unwrap_or(0.0) * 0.5
        }
        _ => 0.0,
    };
    let bytes = win_ansi(&e.text);
    let w = width(&bytes) * size;
    let dx = match e.get("text-anchor") {
        Some("middle") => -w / 2.0,
        Some("end") => -w,
        _ => 0.0,
    };
    // The text's frame: x along the text, y up; SVG's rotate turns clockwise.
    let angle = e
        .get("transform")
        .and_then(|t| t.strip_prefix("rotate("))
        .and_then(|t| t.split([',', ')']).next())
        .and_then(|a| a.trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    let (s, c) = (-angle.to_radians()).sin_cos();
    let (tx, ty) = (dx, -dy * size);
    let ox = x * PT + c * tx - s * ty;
    let oy = (h - y) * PT + s * tx + c * ty;
    let _ = writeln!(
        ops,
        "BT {r:.3} {g:.3} {b:.3} rg /F1 {} Tf {:.4} {:.4} {:.4} {:.4} {} {} Tm ({}) Tj ET",
        pt(size),
        c,
        s,
        -s,
        c,
        pt(ox),
        pt(oy),
        escaped(&bytes)
    );
}

/// `s` in WinAnsi (Latin-1 and a few more); other characters as `?`.
fn win_ansi(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| match c {
            ' '..='~' => c as u8,
            '\u{a0}'..='\u{ff}' => c as u32 as u8,
            '—' => 0x97,
            '–' => 0x96,
            '•' => 0x95,
            '…' => 0x85,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '€' => 0x80,
            _ => b'?',
        })
        .collect()
}

/// The width of `text` in Helvetica, in ems (near enough to anchor it).
fn width(text: &[u8]) -> f64 {
    text.iter()
        .map(|&b| match b {
            b'i' | b'j' | b'l' | b'I' | b'.' | b',' | b':' | b';' | b'\'' | b'!' | b'|' => 0.25,
            b' ' | b'f' | b't' | b'r' | b'(' | b')' | b'[' | b']' | b'-' | b'/' => 0.31,
            b'm' | b'w' | b'M' | b'W' | b'%' => 0.86,
            b'A'..=b'Z' => 0.69,
            b'0'..=b'9' | b'a'..=b'z' => 0.55,
            _ => 0.58,
        })
        .sum()
}

fn escaped(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        match b {
            b'(' | b')' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s
}

/// The file: catalog, pages, the page, its content, the font and the
/// information, with their cross-reference table.
fn document(w: f64, h: f64, content: &[u8], meta: Option<&str>) -> Vec<u8> {
    let info = match meta {
        Some(m) => format!(
            "<< /Producer (tracetui) /tracetui ({}) >>",
            escaped(&win_ansi(m))
        ),
        None => "<< /Producer (tracetui) >>".to_string(),
    };
    let objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
            pt(w),
            pt(h)
        )
        .into_bytes(),
        [
            format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", content.len()).as_bytes(),
            content,
            b"\nendstream",
        ]
        .concat(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
        info.into_bytes(),
    ];
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for o in &offsets {
        let _ = writeln!(table, "{o:010} 00000 n ");
    }
    let _ = write!(
        table,
        "trailer\n<< /Size {} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    );
    out.extend_from_slice(table.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_svg_becomes_a_page_with_its_lines_and_text() {
        let svg = r##"<svg width="200" height="100" viewBox="0 0 200 100" xmlns="http://www.w3.org/2000/svg">
<metadata id="m">{"a":1} &lt;x&gt;</metadata>
<rect x="0" y="0" width="200" height="100" opacity="1" fill="#FFFFFF" stroke="none"/>
<line opacity="0.2" stroke="#000000" stroke-width="1" x1="10" y1="90" x2="190" y2="90"/>
<polyline fill="none" opacity="1" stroke="#0072B2" stroke-width="2" points="10,10 50,50 90,20 "/>
<text x="100" y="5" dy="0.76em" text-anchor="middle" font-family="sans-serif" font-size="16" opacity="1" fill="#000000">
a (b) · ±
</text>
</svg>"##;
        let els = elements(svg);
        let tags: Vec<&str> = els.iter().map(|e| e.tag).collect();
        assert_eq!(tags, ["svg", "rect", "line", "polyline", "text"]);
        assert_eq!(els[4].text, "a (b) · ±");
        let pdf = from_svg(svg, Some("{\"x\":1}"));
        let has = |s: &str| pdf.windows(s.len()).any(|w| w == s.as_bytes());
        assert!(pdf.starts_with(b"%PDF-1.4"));
        assert!(has("/MediaBox [0 0 150 75]"));
        assert!(has("/tracetui ({\"x\":1})"));
        assert!(pdf.ends_with(b"%%EOF\n"));
        // The xref's offsets point at their objects (bytes, not text).
        let at = pdf.windows(10).rposition(|w| w == b"startxref\n").unwrap();
        let tail = String::from_utf8_lossy(&pdf[at + 10..]).into_owned();
        let xref: usize = tail.lines().next().unwrap().parse().unwrap();
        assert!(pdf[xref..].starts_with(b"xref"));
        let table = String::from_utf8_lossy(&pdf[xref..]).into_owned();
        for (i, line) in table.lines().skip(3).take(6).enumerate() {
            let off: usize = line[..10].parse().unwrap();
            let obj = format!("{} 0 obj", i + 1);
            assert!(pdf[off..].starts_with(obj.as_bytes()), "{obj}");
        }
        assert_eq!(from_svg(svg, None), from_svg(svg, None));
        let ops = {
            let mut o = String::new();
            for e in elements(svg) {
                draw(&mut o, &e, 100.0);
            }
            o
        };
        assert!(ops.contains("0.800 0.800 0.800 RG"), "{ops}");
        assert!(ops.contains("(a \\(b\\) \\267 \\261) Tj"), "{ops}");
    }
}
