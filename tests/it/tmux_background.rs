//! The default theme knows the terminal's background (issue 61, item 3),
//! in a real terminal (tmux, whose `window-style` is the background it
//! answers OSC 11 with) at 80×24 and 120×40: a white background gets the
//! light theme (dark text on the white it paints), a black one the dark
//! theme on the terminal's own background, and a terminal that does not
//! say (tmux without a style) the dark theme painting its own dark
//! background — never pale text on an unknown one. NO_COLOR is mono.

use crate::common;

use common::tmux::Tmux;

/// The SGR codes of the screen with colours (`capture-pane -e`).
fn coloured(t: &Tmux) -> String {
    t.run(&["capture-pane", "-p", "-e", "-t", &t.session])
}

fn started(tag: &str, size: (u16, u16), style: Option<&str>, env: &str) -> Tmux {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(tag, size, "sleep 1");
    if let Some(s) = style {
        t.run(&["set", "-t", &t.session, "window-style", s]);
    }
    t.run(&[
        "respawn-pane",
        "-k",
        "-t",
        &t.session,
        &format!(
            "env TERM=xterm-256color {env} {bin} pai {} --fps 20",
            common::cli::PAI
        ),
    ]);
    t.wait_for("PAUSED");
    t
}

#[test]
fn the_default_theme_follows_the_background_the_terminal_answers() {
    if !common::tmux::available() {
        return;
    }
    for size in [(80, 24), (120, 40)] {
        let tag = |k: &str| format!("bg-{k}-{}x{}", size.0, size.1);
        // White: the light theme's white page and dark text (xterm 231, 235).
        let t = started(&tag("white"), size, Some("bg=#ffffff"), "");
        let s = coloured(&t);
        assert!(s.contains("48;5;231"), "{size:?} white: no light page\n{s}");
        assert!(s.contains("38;5;235"), "{size:?} white: no dark text\n{s}");
        t.keys(&["q"]);
        // Black: the dark theme on the terminal's own background.
        let t = started(&tag("black"), size, Some("bg=#000000"), "");
        let s = coloured(&t);
        assert!(
            s.contains("38;5;252"),
            "{size:?} black: not the dark theme\n{s}"
        );
        assert!(!s.contains("48;5;233"), "{size:?} black: painted over\n{s}");
        t.keys(&["q"]);
        // Unknown: the dark theme painting its own dark page.
        let t = started(&tag("unknown"), size, None, "COLORFGBG=");
        let s = coloured(&t);
        assert!(
            s.contains("38;5;252") && s.contains("48;5;233"),
            "{size:?} unknown\n{s}"
        );
        t.keys(&["q"]);
        // NO_COLOR: mono, nothing asked.
        let t = started(&tag("mono"), size, Some("bg=#ffffff"), "NO_COLOR=1");
        let s = coloured(&t);
        assert!(
            !s.contains("38;5;") && !s.contains("48;5;"),
            "{size:?} mono\n{s}"
        );
        t.keys(&["q"]);
    }
}
