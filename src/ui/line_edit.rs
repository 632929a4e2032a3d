//! Editing a prompt's line as a shell does (readline's basics): the
//! cursor moves by character, to either end, and whole words and either
//! side of the cursor can be cut. The cursor is a character index.

/// One edit of a prompt's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// ←, Ctrl-B.
    Left,
    /// →, Ctrl-F.
    Right,
    /// Home, Ctrl-A.
    Home,
    /// End, Ctrl-E.
    End,
    /// Backspace, Ctrl-H: the character before the cursor.
    DeleteBack,
    /// Delete, Ctrl-D: the character under the cursor.
    DeleteForward,
    /// Ctrl-U: everything before the cursor.
    KillToStart,
    /// Ctrl-K: everything from the cursor on.
    KillToEnd,
    /// Ctrl-W: the word before the cursor (and the spaces after it).
    KillWord,
}

/// The byte offset of character `at` in `s` (its length past the end).
fn byte_at(s: &str, at: usize) -> usize {
    s.char_indices().nth(at).map_or(s.len(), |(i, _)| i)
}

/// Inserts `ch` at the cursor, if the line has fewer than `most` characters.
pub(crate) fn insert(line: &mut String, cursor: &mut usize, ch: char, most: usize) -> bool {
    if ch.is_control() || line.chars().count() >= most {
        return false;
    }
    let at = byte_at(line, *cursor);
    line.insert(at, ch);
    *cursor += 1;
    true
}

/// Applies `e` to `line` with its cursor.
pub(crate) fn apply(line: &mut String, cursor: &mut usize, e: Edit) {
    let n = line.chars().count();
    *cursor = (*cursor).min(n);
    let c = *cursor;
    match e {
        Edit::Left => *cursor = c.saturating_sub(1),
        Edit::Right => *cursor = (c + 1).min(n),
        Edit::Home => *cursor = 0,
        Edit::End => *cursor = n,
        Edit::DeleteBack if c > 0 => {
            line.replace_range(byte_at(line, c - 1)..byte_at(line, c), "");
            *cursor = c - 1;
        }
        Edit::DeleteForward if c < n => {
            line.replace_range(byte_at(line, c)..byte_at(line, c + 1), "");
        }
        Edit::KillToStart => {
            line.replace_range(..byte_at(line, c), "");
            *cursor = 0;
        }
        Edit::KillToEnd => line.truncate(byte_at(line, c)),
        Edit::KillWord => {
            let chars: Vec<char> = line.chars().collect();
            let mut from = c;
            while from > 0 && chars[from - 1].is_whitespace() {
                from -= 1;
            }
            while from > 0 && !chars[from - 1].is_whitespace() {
                from -= 1;
            }
            line.replace_range(byte_at(line, from)..byte_at(line, c), "");
            *cursor = from;
        }
        Edit::DeleteBack | Edit::DeleteForward => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(start: &str, cursor: usize, edits: &[Edit]) -> (String, usize) {
        let (mut s, mut c) = (start.to_string(), cursor);
        for &e in edits {
            apply(&mut s, &mut c, e);
        }
        (s, c)
    }

    #[test]
    fn edits_work_on_characters_not_bytes() {
        assert_eq!(
            run("day 3 14:00", 11, &[Edit::KillWord]),
            ("day 3 ".into(), 6)
        );
        assert_eq!(
            run("day 3 14:00", 11, &[Edit::KillWord, Edit::KillWord]),
            ("day ".into(), 4)
        );
        assert_eq!(run("añb", 2, &[Edit::DeleteBack]), ("ab".into(), 1));
        assert_eq!(run("añb", 1, &[Edit::DeleteForward]), ("ab".into(), 1));
        assert_eq!(run("abc", 1, &[Edit::KillToStart]), ("bc".into(), 0));
        assert_eq!(run("abc", 1, &[Edit::KillToEnd]), ("a".into(), 1));
        assert_eq!(
            run("abc", 3, &[Edit::Left, Edit::Left, Edit::Home, Edit::End]),
            ("abc".into(), 3)
        );
        assert_eq!(
            run("", 0, &[Edit::DeleteBack, Edit::Left, Edit::KillWord]),
            ("".into(), 0)
        );
        let (mut s, mut c) = ("ac".to_string(), 1);
        assert!(insert(&mut s, &mut c, 'ñ', 80));
        assert_eq!((s.as_str(), c), ("añc", 2));
        assert!(!insert(&mut s, &mut c, '\u{7}', 80));
        assert!(!insert(&mut s, &mut c, 'x', 3));
    }
}
