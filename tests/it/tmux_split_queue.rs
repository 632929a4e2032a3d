//! The A/B split explains each side's order and says its headlines whole
//! (issue 61, item 3), in a real terminal (tmux) at 80×24 and 120×40,
//! colour and NO_COLOR: side B under sjf lists its queue with the run
//! time it orders by, shortest first; side A under fifo with the wait;
//! neither side's figures are squeezed ("done 679 run 14 queue 11 100%").

use crate::common;

use common::tmux::Tmux;

/// Seconds of a shown duration (`45m03s`, `1h12m`, `2d21h`, `24s`).
fn secs(s: &str) -> Option<i64> {
    let mut total = 0i64;
    let mut n = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            n.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        total += n.parse::<i64>().ok()? * unit;
        n.clear();
    }
    n.is_empty().then_some(total)
}

/// The text of each pane's row `row` (inside the borders), A then B.
fn halves(line: &str) -> (String, String) {
    let cells: Vec<char> = line.chars().collect();
    let mid = cells.len() / 2;
    let a: String = cells[1..mid - 1].iter().collect();
    let b: String = cells[mid + 1..cells.len() - 1].iter().collect();
    (a, b)
}

fn check(size: (u16, u16), no_color: bool) {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = common::tmux::colour_env(no_color);
    let t = Tmux::start(
        &format!("split-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!(
            "env {env} {bin} itp {} --gpus 48 --fps 20",
            common::cli::SAMPLE
        ),
    );
    t.wait_for("PAUSED");
    t.keys(&["g"]);
    t.type_text("day 3");
    t.keys(&["Enter", "A"]);
    t.wait_for("fifo");
    for _ in 0..6 {
        if t.screen().lines().any(|l| l.contains("▸   sjf")) {
            break;
        }
        t.keys(&["s"]);
    }
    t.keys(&["Enter"]);
    t.wait_for("B · sjf");
    t.keys(&["g"]);
    t.type_text("day 5 06:00");
    t.keys(&["Enter"]);
    let s = t.wait_for("day 5 06:00:00");
    let lines: Vec<&str> = s.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.contains("queue head (fifo order)"))
        .unwrap_or_else(|| panic!("{size:?}: no queue head\n{s}"));
    let (a, b) = halves(lines[head]);
    assert!(a.trim_end().ends_with("waited"), "{size:?} A: {a}");
    assert!(
        b.contains("(sjf order)") && b.trim_end().ends_with("runtime"),
        "{size:?} B: {b}"
    );
    // B's waiting jobs, shortest run time first.
    let mut runtimes = Vec::new();
    for l in &lines[head + 1..] {
        let (_, b) = halves(l);
        match b.split_whitespace().last().and_then(secs) {
            Some(v) if b.contains(" GPU ") => runtimes.push(v),
            _ => break,
        }
    }
    assert!(runtimes.len() >= 2, "{size:?}: B's queue {runtimes:?}\n{s}");
    assert!(
        runtimes.windows(2).all(|w| w[0] <= w[1]),
        "{size:?}: {runtimes:?}\n{s}"
    );
    // Each side's figures whole: counts with their words, the busy share
    // said as such, nothing cut.
    for l in &lines[2..5] {
        let (a, b) = halves(l);
        for side in [a, b] {
            assert!(!side.contains('…'), "{size:?}: cut: {side}");
        }
    }
    let block: String = lines[2..5].join("\n");
    assert_eq!(block.matches("done ").count(), 2, "{block}");
    assert_eq!(block.matches("· queue ").count(), 2, "{block}");
    assert_eq!(block.matches("% busy").count(), 2, "{block}");
    t.keys(&["q"]);
}

#[test]
fn the_split_shows_each_order_and_both_headlines_whole() {
    common::tmux::at_both_sizes(check);
}
