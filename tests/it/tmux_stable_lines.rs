//! Lines that hold still (issue 61, item 6), in a real terminal (tmux) at
//! 80×24 and 120×40, colour and NO_COLOR: as the replay goes from its first
//! minute to its busiest hours and past its end, the header's clock, state
//! and speed and the metrics line's figures keep their columns and their
//! words; in a job's drill-down at 80×24 every 60-character id shows whole
//! on one line.

use crate::common;

use common::tmux::Tmux;

/// The columns where each of `words` starts in `line` (None: absent).
fn columns(line: &str, words: &[&str]) -> Vec<Option<usize>> {
    words
        .iter()
        .map(|w| line.find(w).map(|b| line[..b].chars().count()))
        .collect()
}

/// `line`'s words without its numbers and durations (`527`, `32m54s`,
/// `-`): its wording.
fn wording(line: &str) -> String {
    let number = |w: &&str| w.starts_with(|c: char| c.is_ascii_digit()) || *w == "-";
    let words: Vec<&str> = line.split_whitespace().filter(|w| !number(w)).collect();
    words.join(" ")
}

/// At one moment: the header's columns, the figures' columns and wording.
type Seen = (Vec<Option<usize>>, Vec<Option<usize>>, String);

fn check(size: (u16, u16), no_color: bool) {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = common::tmux::colour_env(no_color);
    let t = Tmux::start(
        &format!("stable-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!("env {env} {bin} pai {} --fps 20", common::cli::PAI),
    );
    t.wait_for("PAUSED");
    let mut seen: Vec<Seen> = Vec::new();
    for when in [
        "day 1 00:01",
        "day 1 00:30",
        "day 1 12:00",
        "day 2 16:30",
        "day 9",
    ] {
        t.keys(&["g"]);
        t.type_text(when);
        t.keys(&["Enter"]);
        std::thread::sleep(std::time::Duration::from_millis(500));
        let s = t.screen();
        let lines: Vec<&str> = s.lines().collect();
        let header = lines[0];
        let figures = lines
            .iter()
            .find(|l| l.starts_with("util"))
            .unwrap_or_else(|| panic!("no metrics line:\n{s}"));
        let at = figures.find("done").expect("the figures");
        let figures = &figures[at..];
        let head = columns(header, &["day", "UTC+8", "PAUSED", "x60"]);
        let figs = columns(figures, &["run", "JCT", "p99"]);
        assert!(
            head.iter().all(Option::is_some),
            "{size:?} at {when}:\n{header}"
        );
        seen.push((head, figs, wording(figures)));
    }
    for w in seen.windows(2) {
        assert_eq!(w[0].0, w[1].0, "{size:?}: the header moved");
        assert_eq!(w[0].1, w[1].1, "{size:?}: the figures moved");
        assert_eq!(w[0].2, w[1].2, "{size:?}: the figures changed wording");
    }
    // Faster (x60 → x3600) and a longer tick (1m → 15m): the clock and
    // the state stay where they were, the trace's label as it was.
    let before = t.screen().lines().next().unwrap_or("").to_string();
    t.keys(&["+", "+", "+", "+", "+", "]", "]"]);
    t.wait_for("x3600");
    // The ticks' keys come after the speeds': wait for the last of them
    // (`tick 15m`, or `15m` alone at 80 columns).
    let s = (0..50)
        .find_map(|_| {
            let s = t.screen();
            let head = s.lines().next().unwrap_or("");
            if head.contains(" 15m") {
                return Some(s);
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            None
        })
        .unwrap_or_else(|| t.screen());
    let after = s.lines().next().unwrap_or("");
    let still = ["tracetui", "day", "UTC+8", "PAUSED"];
    assert_eq!(
        columns(&before, &still),
        columns(after, &still),
        "{before}\n{after}"
    );
    assert!(after.contains("15m"), "{after}");
    t.keys(&["q"]);
}

#[test]
fn the_header_and_metrics_keep_their_columns_and_words_as_numbers_grow() {
    common::tmux::at_both_sizes(check);
}

#[test]
fn a_drill_down_at_80x24_shows_every_60_character_id_whole() {
    if !common::tmux::available() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "ids-80x24",
        (80, 24),
        &format!("env NO_COLOR=1 {bin} pai {} --fps 20", common::cli::PAI),
    );
    t.wait_for("PAUSED");
    t.keys(&["g"]);
    t.type_text("day 1 12:00");
    t.keys(&["Enter"]);
    t.wait_for("at Mon 12:00:00");
    t.keys(&["Enter"]);
    t.wait_for("the others");
    let mut ids = 0;
    for _ in 0..12 {
        let s = t.screen();
        for line in s.lines() {
            // A run of hex inside the box: a whole id or a piece of one.
            let inner: String = line.chars().skip(5).take(70).collect();
            for word in inner.split(|c: char| !c.is_ascii_hexdigit()) {
                if word.len() >= 40 {
                    assert_eq!(word.len(), 60, "an id cut at the box: {word}\n{s}");
                    ids += 1;
                }
            }
        }
        t.keys(&["PageDown"]);
    }
    assert!(ids >= 4, "{ids} ids seen");
    t.keys(&["q"]);
}
