//! The grid's cursor in a real terminal (tmux): it marks the machine
//! without changing what its cells show (issue 61 item 1). In `lesson
//! starvation` the one 8-GPU machine is full and the cursor is on it: its
//! cells stay the jobs' blocks in the jobs' colours — not the theme's
//! cursor colours (black on yellow in the dark theme made busy cells look
//! empty) and never reverse video.

use crate::common;

use common::tmux::Tmux;

/// The SGR parameter lists in force over each `█` of `row` after the
/// marker `▸` (tmux writes an attribute where it changes).
fn block_attributes(row: &str) -> Vec<String> {
    let Some(start) = row.find('▸') else {
        return Vec::new();
    };
    let mut now: Vec<String> = Vec::new();
    let mut out = Vec::new();
    // Attributes set before the marker are in force at it.
    let (before, after) = row.split_at(start);
    for part in before.split("\x1b[").skip(1) {
        let params = part.split_once('m').map_or(part, |p| p.0);
        now.push(params.to_string());
    }
    for (i, part) in after.split("\x1b[").enumerate() {
        let text = if i == 0 {
            part
        } else {
            let (params, text) = part.split_once('m').unwrap_or((part, ""));
            if params.is_empty() || params == "0" {
                now.clear();
            }
            now.push(params.to_string());
            text
        };
        for ch in text.chars() {
            if ch == '█' {
                out.push(now.join(";"));
            }
        }
    }
    out
}

fn check(size: (u16, u16), no_color: bool) {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = if no_color {
        "NO_COLOR=1 TERM=xterm-256color"
    } else {
        "TERM=xterm-256color COLORTERM="
    };
    let t = Tmux::start(
        &format!("cursor-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!("env {env} {bin} lesson starvation --fps 20"),
    );
    t.wait_for("PAUSED");
    for _ in 0..5 {
        t.keys(&["n"]);
    }
    t.wait_for("8/8 busy");
    let raw = t.run(&["capture-pane", "-t", &t.session, "-p", "-e"]);
    let row = raw
        .lines()
        .find(|l| l.contains('▸') && l.contains('█'))
        .unwrap_or_else(|| panic!("no cursor row of blocks: {raw}"));
    let attrs = block_attributes(row);
    assert!(attrs.len() >= 8, "{size:?}: 8 busy GPUs: {row:?}");
    for a in &attrs {
        let params: Vec<&str> = a.split(';').collect();
        assert!(!params.contains(&"7"), "{size:?} reverse video: {row:?}");
        // The dark theme's cursor colours: #000000 on #ffd75f.
        assert!(
            !a.contains("38;5;16") && !a.contains("48;5;221"),
            "{size:?} the cursor's colours on a busy cell: {row:?}"
        );
    }
    if !no_color {
        // Each block in its job's colour (two jobs: two colours).
        let fgs: std::collections::BTreeSet<String> = attrs
            .iter()
            .filter_map(|a| {
                a.rsplit("38;5;")
                    .next()
                    .map(|c| c.split(';').next().unwrap_or("").to_string())
            })
            .collect();
        assert!(fgs.len() >= 2, "{size:?} the jobs' colours: {row:?}");
    }
    t.keys(&["q"]);
}

#[test]
fn the_cursor_never_changes_what_a_cell_shows() {
    common::tmux::at_both_sizes(check);
}
