//! `tracetui bench`: every line it promises is printed, the replay's jumps
//! both at engine level and through the app with a frame drawn. (Figures
//! are measurements: only their presence and form are checked here.)

use crate::common;

use common::cli::{stderr, stdout, tracetui, SAMPLE};

#[test]
fn bench_prints_the_load_the_runs_and_the_jumps_engine_only_and_drawn() {
    let o = tracetui(&["bench", "itp", SAMPLE, "--policies", "fifo,sjf"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = |start: &str| {
        out.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{out}"))
    };
    for start in [
        "load ",
        "first frame ",
        "fifo ",
        "sjf ",
        "checkpoints ",
        "peak RSS ",
    ] {
        line(start);
    }
    // The jumps' times: one for `g`, eight for the `b`s after it, each a number.
    let numbers = |l: &str| -> Vec<f64> {
        l.split([' ', ','])
            .filter_map(|w| w.parse::<f64>().ok())
            .collect()
    };
    let g = line("g a month, drawn ");
    assert!(g.contains("120x40 frame"), "{g}");
    assert_eq!(numbers(g).len(), 1, "{g}");
    for start in ["b after a g ", "b after g, drawn "] {
        let b = line(start);
        // day 30, 10, 20, 35, 50 (the day numbers too), then three "again".
        let n = numbers(b.split_once(' ').unwrap().1);
        assert_eq!(n.len(), 5 * 2 + 3, "{b}");
        assert!(n.iter().all(|x| x.is_finite() && *x >= 0.0), "{b}");
    }
}
