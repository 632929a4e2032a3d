//! `L` in a real terminal (tmux): every row of the screen carries an
//! explicit background colour, so the high-contrast theme's black text is
//! on its white and not on a dark terminal's black (issue 33 item 1).

use crate::common;

use common::tmux::Tmux;

/// Whether an SGR sequence's parameters set a background colour.
fn sets_background(params: &str) -> bool {
    let p: Vec<&str> = params.split(';').collect();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            "48" => return true,
            "38" => i += if p.get(i + 1) == Some(&"5") { 3 } else { 5 },
            x => {
                if let Ok(n) = x.parse::<u16>() {
                    if (40..=47).contains(&n) || (100..=107).contains(&n) {
                        return true;
                    }
                }
                i += 1;
            }
        }
    }
    false
}

#[test]
fn the_lecture_layout_paints_a_background_on_every_row() {
    if !common::tmux::available() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "lecture",
        (80, 24),
        &format!("env TERM=xterm-256color COLORTERM= {bin} --fps 20"),
    );
    t.wait_for("PAUSED");
    t.keys(&["L"]);
    t.wait_for("L goes back");
    let raw = t.run(&["capture-pane", "-t", &t.session, "-p", "-e"]);
    let rows: Vec<&str> = raw.lines().collect();
    assert_eq!(rows.len(), 24, "{raw}");
    // tmux writes an attribute where it changes: the background in force
    // is followed from the top, and every character must be on one.
    let mut painted = false;
    for (y, row) in rows.iter().enumerate() {
        let mut parts = row.split("\x1b[");
        let lead = parts.next().unwrap_or("");
        assert!(
            lead.is_empty() || painted,
            "row {y} starts unpainted: {row:?}"
        );
        for part in parts {
            let (params, text) = part.split_once('m').unwrap_or((part, ""));
            if params.is_empty() || params.split(';').any(|x| x == "0" || x == "49") {
                painted = false;
            }
            if sets_background(params) {
                painted = true;
            }
            assert!(
                text.is_empty() || painted,
                "row {y}: {text:?} on the terminal's background: {row:?}"
            );
        }
    }
    t.keys(&["q"]);
}
