//! Text for a terminal: made safe where it is shown, and measured, cut and
//! wrapped by display columns (a CJK character or an emoji takes two).
//!
//! Ids stay exact in the model; every text that reaches the terminal passes
//! through `sanitize` (or a borrowing form) where it is shown. This module
//! names nothing else in the crate: loaders, the engine, the command line
//! and the views all take their terminal safety from here.

use std::borrow::Cow;
use unicode_width::UnicodeWidthChar;

/// A field (an id, a name, a path, anything from a trace, a flag or a
/// program) made safe for a terminal, visibly: every control, escape,
/// bidirectional, invisible or format character is written as an escape
/// (`\x07`, `\x1b`, `\u{202e}`, `\u{200b}`), and a backslash as `\\`, so
/// nothing reaches the terminal raw and two ids that differ by such a
/// character — or by a backslash that looks like an escape — look different.
/// This is the one escape: assembled messages of escaped fields go through
/// `guarded` on their way out, which changes nothing already escaped.
pub fn sanitize(s: &str) -> String {
    sanitized(s).into_owned()
}

/// Borrowing form of `sanitize` for the common case of clean text.
pub fn sanitized(s: &str) -> Cow<'_, str> {
    escaped(s, Keep::Nothing, true)
}

/// What an escape keeps as it is.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    Nothing,
    /// Newlines and tabs (a message of several lines).
    Lines,
}

fn unsafe_char(c: char, keep: Keep) -> bool {
    (c.is_control() && !(keep == Keep::Lines && matches!(c, '\n' | '\t')))
        || is_bidi_control(c)
        || is_invisible(c)
}

/// A message assembled from escaped fields (an error, a flash, a log line,
/// a table), guarded on its way to the terminal: any character `sanitize`
/// escapes is escaped the same way, a backslash is left alone (the fields'
/// own were escaped once, where they were put in).
pub fn guarded(s: &str) -> Cow<'_, str> {
    escaped(s, Keep::Nothing, false)
}

/// `guarded`, for messages of several lines: newlines and tabs are kept.
pub fn guarded_lines(s: &str) -> Cow<'_, str> {
    escaped(s, Keep::Lines, false)
}

fn escaped(s: &str, keep: Keep, backslash: bool) -> Cow<'_, str> {
    // Printable ASCII, the common case, without decoding characters.
    let ascii_ok = |b: &u8| (0x20..0x7f).contains(b) && !(backslash && *b == b'\\');
    if s.bytes().all(|b| ascii_ok(&b))
        || !s
            .chars()
            .any(|c| unsafe_char(c, keep) || (backslash && c == '\\'))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if backslash && c == '\\' {
            out.push_str("\\\\");
        } else if !unsafe_char(c, keep) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// A JSON document for standard output, guarded for a terminal: lines and
/// tabs kept, every other unsafe character written as a JSON escape
/// (`\u200b`; a surrogate pair past U+FFFF), so a JSON reader gets the
/// exact text back (serde_json escapes the C0 controls itself, not DEL, C1,
/// bidirectional or invisible characters).
pub fn guarded_json(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| unsafe_char(c, Keep::Lines)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut units = [0u16; 2];
    for c in s.chars() {
        if unsafe_char(c, Keep::Lines) {
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether a character is one `sanitize` would escape (a backslash aside).
pub fn is_unsafe(c: char) -> bool {
    unsafe_char(c, Keep::Nothing)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that show nothing, or change how their neighbours show:
/// Unicode's format characters (Cf: zero-width spaces and joiners, word
/// joiners, the byte-order mark, the soft hyphen, tags, …), the line and
/// paragraph separators, and the blank fillers. `dup` and `dup\u{200b}`
/// would otherwise look the same.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{0600}'..='\u{0605}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2028}'..='\u{2029}'
            | '\u{2060}'..='\u{2065}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Columns a character takes on a terminal (0 for a combining mark, 2 for
/// a wide character).
fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Columns `s` takes on a terminal.
pub fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// The longest start of `s` that takes at most `cols` columns.
pub fn take_cols(s: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        used += char_width(c);
        if used > cols {
            return &s[..i];
        }
    }
    s
}

/// The longest end of `s` that takes at most `cols` columns.
fn tail(s: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        used += char_width(c);
        if used > cols {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// `s` in at most `cols` columns: whole if it fits, else cut with `…`.
pub fn fit(s: &str, cols: usize) -> String {
    if width(s) <= cols {
        return s.to_string();
    }
    if cols == 0 {
        return String::new();
    }
    format!("{}…", take_cols(s, cols - 1))
}

/// `s` padded with spaces to `cols` columns (as it is if it is wider):
/// `format!("{s:<cols$}")` by display columns, not characters.
pub fn padded(mut s: String, cols: usize) -> String {
    let w = width(&s);
    s.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
    s
}

/// `s` in exactly `cols` columns: padded with spaces, or cut with `…`.
pub fn fit_padded(s: &str, cols: usize) -> String {
    padded(fit(s, cols), cols)
}

/// `s` in exactly `cols` columns, cut from the left (`…_10238`) when it
/// does not fit: for ids that differ only at their end.
pub fn fit_left_padded(s: &str, cols: usize) -> String {
    if width(s) <= cols {
        return fit_padded(s, cols);
    }
    if cols == 0 {
        return String::new();
    }
    padded(format!("…{}", tail(s, cols - 1)), cols)
}

/// `text` in lines of at most `cols` columns after an `indent` of columns
/// each, broken at spaces (a word longer than a line is cut where it must).
pub fn wrap_words(text: &str, cols: usize, indent: usize) -> Vec<String> {
    let room = cols.saturating_sub(indent).max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split(' ') {
        let mut word = word;
        // Measured once, then less each piece cut off: linear in the
        // word's length however many lines it takes.
        let mut w = width(word);
        loop {
            let gap = usize::from(used > 0);
            if used + gap + w <= room {
                if gap == 1 {
                    line.push(' ');
                }
                line.push_str(word);
                used += gap + w;
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
                continue;
            }
            // A word longer than the line: as much as fits, the rest next
            // (at least one character, so a wide one on a 1-column line moves on).
            let mut first = take_cols(word, room);
            if first.is_empty() {
                first = &word[..word.chars().next().map_or(0, char::len_utf8)];
            }
            if first.len() == word.len() {
                // Only a too-wide character on a too-narrow line: it stands alone.
                line.push_str(first);
                used = width(first);
                break;
            }
            lines.push(first.to_string());
            w -= width(first);
            word = &word[first.len()..];
        }
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_escapes_and_controls() {
        assert_eq!(
            sanitize("ab\x1b[31mc\x07d\u{202E}e\n\u{9b}"),
            "ab\\x1b[31mc\\x07d\\u{202e}e\\x0a\\u{9b}"
        );
        assert_eq!(guarded_lines("a\nb\tc\x07"), "a\nb\tc\\x07");
        assert_ne!(sanitize("dup"), sanitize("dup\x07"));
        let json = serde_json::to_string(&"a\x07\u{9b}\u{202e}\u{200b}\u{e0041}").unwrap();
        let out = guarded_json(&json);
        assert_eq!(out, r#""a\u0007\u009b\u202e\u200b\udb40\udc41""#);
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, "a\x07\u{9b}\u{202e}\u{200b}\u{e0041}");
        assert!(matches!(sanitized("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn invisible_characters_and_the_backslash_are_shown() {
        for c in [
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{2060}',
            '\u{feff}',
            '\u{061c}',
            '\u{2028}',
            '\u{00ad}',
            '\u{e0041}',
        ] {
            let id = format!("al{c}ice");
            let shown = sanitize(&id);
            assert_eq!(shown, format!("al\\u{{{:x}}}ice", c as u32), "{c:?}");
            assert_ne!(shown, "alice");
        }
        // A literal backslash is escaped: `dup\x07` (7 characters) and
        // `dup` + BEL no longer look the same.
        assert_eq!(sanitize("dup\\x07"), "dup\\\\x07");
        assert_eq!(sanitize("dup\x07"), "dup\\x07");
        // Guarding an assembled message changes nothing escaped: one escape.
        let msg = format!("job '{}' is bad", sanitize("a\\b\u{200b}\x1b"));
        assert_eq!(guarded(&msg), msg);
        assert_eq!(guarded_lines(&msg), msg);
        // The same notation on both paths.
        assert_eq!(guarded("x\x1by"), sanitize("x\x1by"));
    }

    #[test]
    fn widths_count_columns_not_characters() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("作业"), 4);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("🚀x"), 3);
    }

    #[test]
    fn fitting_cuts_by_columns() {
        assert_eq!(fit("abcdef", 6), "abcdef");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("作业调度器", 6), "作业…");
        assert_eq!(width(&fit("作业调度器", 6)), 5);
        assert_eq!(fit("作业调度器", 0), "");
        assert_eq!(fit_padded("作业", 6), "作业  ");
        assert_eq!(fit_padded("作业调度器", 5), "作业…");
        assert_eq!(fit_left_padded("job_10238", 6), "…10238");
        assert_eq!(fit_left_padded("任务_作业", 5), "…作业");
        assert_eq!(fit_left_padded("ab", 4), "ab  ");
        for s in [
            "作业调度器",
            "a🚀b🚀c",
            "plain text",
            "e\u{301}e\u{301}e\u{301}",
        ] {
            for cols in 0..12 {
                assert!(width(&fit(s, cols)) <= cols, "{s:?} in {cols}");
                assert!(
                    width(&fit_padded(s, cols)) == cols || cols == 0,
                    "{s:?} in {cols}"
                );
                assert!(
                    width(&fit_left_padded(s, cols)) <= cols.max(1),
                    "{s:?} in {cols}"
                );
            }
        }
    }

    #[test]
    fn wrapping_breaks_between_words_and_cuts_only_longer_ones() {
        assert_eq!(
            wrap_words("day 1 00:41:42 started abcdef on 2 machines", 20, 2),
            ["day 1 00:41:42", "started abcdef on", "2 machines"]
        );
        assert_eq!(wrap_words("abcdefghij", 6, 2), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_words("", 10, 2), [""]);
        assert_eq!(wrap_words("作业调度 ok", 6, 2), ["作业", "调度", "ok"]);
        assert_eq!(wrap_words("作业", 3, 2), ["作", "业"]);
    }
}
