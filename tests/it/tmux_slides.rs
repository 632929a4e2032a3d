//! A lesson as slides in a real terminal (tmux), at 80×24 and 120×40, in
//! colour and NO_COLOR (issue 61, item 2): no caption before its moment;
//! `>` twice then `<` shows the first caption at its moment; in `L` each
//! built-in caption shows whole as PageDown steps through them, every
//! number it states on the screen beside it; the header keeps the lesson's
//! name and placement.

use crate::common;

use common::tmux::Tmux;

/// The screen's text with its box borders and line breaks as spaces.
fn flat(screen: &str) -> String {
    let no_borders: String = screen
        .chars()
        .map(|c| {
            if "│┌┐└┘─".contains(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    no_borders.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn start(name: &str, size: (u16, u16), no_color: bool) -> Tmux {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = common::tmux::colour_env(no_color);
    let t = Tmux::start(
        &format!("slides-{name}-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!("env {env} {bin} lesson {name} --fps 20"),
    );
    t.wait_for("PAUSED");
    t
}

fn check(size: (u16, u16), no_color: bool) {
    let hol = tracetui::lesson::find("hol").unwrap().captions;
    let t = start("hol", size, no_color);
    let s = t.screen();
    assert!(s.contains("12 captions · >: the first"), "{s}");
    assert!(
        !flat(&s).contains(&hol[0].1),
        "a caption before its moment:\n{s}"
    );
    let header = s.lines().next().unwrap_or("");
    assert!(
        header.contains("hol") && header.contains("consolidate"),
        "{header}"
    );
    // The clock starts at 00:00 of day 1, not the evening before.
    assert!(header.contains("day 1 00:00:00"), "{header}");
    t.keys(&[">", ">", "<"]);
    let s = t.wait_for("caption 1 of 12");
    assert!(s.contains("day 1 00:00:00"), "{s}");
    assert!(flat(&s).contains(&hol[0].1), "{s}");
    // A step from there moves the clock a minute.
    t.keys(&["n"]);
    t.wait_for("day 1 00:01:00");
    t.keys(&["q"]);
    // `L`: every caption whole, PageDown to the next.
    for l in tracetui::lesson::builtins() {
        let t = start(&l.name, size, no_color);
        let header = t.screen().lines().next().unwrap_or("").to_string();
        assert!(header.contains(&l.name), "{size:?}: {header}");
        assert!(header.contains(l.placement.name()), "{size:?}: {header}");
        t.keys(&["L"]);
        for (k, (_, said)) in l.captions.iter().enumerate() {
            t.keys(&["PageDown"]);
            let s = t.wait_for(&format!("caption {} of {}", k + 1, l.captions.len()));
            assert!(
                flat(&s).contains(said.as_str()),
                "{} {size:?}: not whole: {said}\n{s}",
                l.name
            );
            // Its numbers are on the screen outside the caption (and its
            // "caption k of n").
            let rest = flat(&s)
                .replacen(said.as_str(), " ", 1)
                .replace(&format!("caption {} of {}", k + 1, l.captions.len()), " ")
                .replace(',', "");
            for n in crate::lesson_captions::numbers(said) {
                assert!(
                    rest.contains(&n),
                    "{} {size:?}: {n} is not on screen beside: {said}\n{s}",
                    l.name
                );
            }
        }
        t.keys(&["q"]);
    }
}

#[test]
fn lessons_play_as_slides_at_80x24_and_120x40() {
    common::tmux::at_both_sizes(check);
}
