//! Slurm's node lists (`gpu[01-04,07]`, `a[1-2]-ib,b3`, `rack[1-2]n[1-2]`)
//! expanded to node names, bounded: a list naming more than `MOST_NODES`
//! nodes is refused rather than grown.

use super::values::Unreadable;

/// The most nodes one list may name (a large cluster has some thousands).
pub(crate) const MOST_NODES: usize = 100_000;

/// The node names `list` names, in order; `Err` says why it cannot be
/// expanded. `None assigned`, `(null)` and an empty list name none.
pub(crate) fn expand(list: &str) -> Result<Vec<String>, Unreadable> {
    let list = list.trim();
    if list.is_empty() || list == "None assigned" || list == "(null)" || list == "None" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for term in top_level_terms(list)? {
        if term.is_empty() {
            return Err(Unreadable("an empty name between commas".into()));
        }
        let mut names = vec![String::new()];
        let mut rest = term;
        while let Some(open) = rest.find('[') {
            let close = rest[open..]
                .find(']')
                .map(|c| open + c)
                .ok_or(Unreadable("a '[' without its ']'".into()))?;
            let prefix = &rest[..open];
            let values = ranges(&rest[open + 1..close])?;
            let mut next = Vec::with_capacity(names.len() * values.len());
            for n in &names {
                for v in &values {
                    next.push(format!("{n}{prefix}{v}"));
                }
            }
            names = next;
            if names.len() + out.len() > MOST_NODES {
                return Err(Unreadable(format!("it names more than {MOST_NODES} nodes")));
            }
            rest = &rest[close + 1..];
        }
        if rest.contains(']') {
            return Err(Unreadable("a ']' without its '['".into()));
        }
        out.extend(names.into_iter().map(|n| n + rest));
    }
    Ok(out)
}

/// `list` split at the commas outside brackets.
fn top_level_terms(list: &str) -> Result<Vec<&str>, Unreadable> {
    let (mut depth, mut start, mut terms) = (0i32, 0usize, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return Err(Unreadable(
                "brackets inside brackets, or a ']' without its '['".into(),
            ));
        }
    }
    if depth != 0 {
        return Err(Unreadable("a '[' without its ']'".into()));
    }
    terms.push(&list[start..]);
    Ok(terms)
}

/// `01-04,07` as `["01", "02", "03", "04", "07"]` (a range's width kept:
/// its first number's digits, zero-padded).
fn ranges(inside: &str) -> Result<Vec<String>, Unreadable> {
    let mut out = Vec::new();
    for part in inside.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let num = |s: &str| {
            (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u64>().ok())
                .flatten()
                .ok_or_else(|| {
                    Unreadable(format!("'{part}' is not a number or a range of numbers"))
                })
        };
        let (lo, hi) = (num(a)?, num(b)?);
        if hi < lo {
            return Err(Unreadable(format!("the range '{part}' runs backwards")));
        }
        if (hi - lo) as usize + out.len() >= MOST_NODES {
            return Err(Unreadable(format!("it names more than {MOST_NODES} nodes")));
        }
        let width = a.len();
        out.extend((lo..=hi).map(|v| format!("{v:0width$}")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_expand_as_slurm_writes_them() {
        assert_eq!(expand("vm").unwrap(), ["vm"]);
        assert_eq!(
            expand("gpu[01-03,07]").unwrap(),
            ["gpu01", "gpu02", "gpu03", "gpu07"]
        );
        assert_eq!(expand("a[1-2]-ib,b3").unwrap(), ["a1-ib", "a2-ib", "b3"]);
        assert_eq!(
            expand("r[1-2]n[8-9]").unwrap(),
            ["r1n8", "r1n9", "r2n8", "r2n9"]
        );
        assert_eq!(expand("n[9-10]").unwrap(), ["n9", "n10"]);
        assert!(expand("None assigned").unwrap().is_empty());
        assert!(expand("").unwrap().is_empty());
    }

    #[test]
    fn what_cannot_be_expanded_says_why() {
        for (bad, why) in [
            ("gpu[01-04", "without its ']'"),
            ("gpu01-04]", "without its '['"),
            ("gpu[a-b]", "not a number"),
            ("gpu[4-1]", "backwards"),
            ("gpu[[1]]", "inside brackets"),
            ("a,,b", "empty name"),
            ("n[0-99999999]", "more than"),
            ("r[0-999]n[0-999]", "more than"),
        ] {
            let e = expand(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
