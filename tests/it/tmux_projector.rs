//! A lecturer's start and switch (issue 61, item 2), in a real terminal
//! (tmux) at 80×24 and 120×40, colour and NO_COLOR: `lesson hol
//! --projector` opens in the lecture layout; `:lesson starvation` plays
//! that lesson in its place, still in `L`, from its start.

use crate::common;

use common::tmux::Tmux;

fn check(size: (u16, u16), no_color: bool) {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = common::tmux::colour_env(no_color);
    let t = Tmux::start(
        &format!("projector-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!("env {env} {bin} lesson hol --projector --fps 20"),
    );
    let s = t.wait_for("QUEUE");
    assert!(s.contains("12 captions"), "{size:?}: not hol's start\n{s}");
    assert!(
        !s.contains("┌ Log"),
        "{size:?}: not the lecture layout\n{s}"
    );
    t.keys(&[">"]);
    t.wait_for("caption 1 of 12");
    t.keys(&[":"]);
    t.type_text("lesson st");
    t.keys(&["Tab"]);
    t.wait_for("lesson starvation▏");
    t.keys(&["Enter"]);
    let s = t.wait_for("8 captions");
    let header = s.lines().next().unwrap_or("");
    assert!(
        header.contains("starvation") && header.contains("SJF"),
        "{header}"
    );
    assert!(
        s.contains("QUEUE"),
        "{size:?}: left the lecture layout\n{s}"
    );
    t.keys(&["PageDown"]);
    t.wait_for("caption 1 of 8");
    t.keys(&["q"]);
}

#[test]
fn projector_starts_in_l_and_colon_lesson_switches_lessons() {
    common::tmux::at_both_sizes(check);
}
