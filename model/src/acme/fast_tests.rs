//! The fast path gives exactly what the CSV reader gives, whatever the
//! rows hold and however the file is cut.

use super::super::{finish, load_csv, AcmeTables};
use super::load_by;
use crate::fast_check::{self, Rng};
use crate::model::Trace;

/// A Seren file of good rows mixed with every kind of bad or odd one.
fn file(rng: &mut Rng) -> Vec<u8> {
    let mut out = super::super::SEREN.join(",").into_bytes();
    out.push(b'\n');
    let rows = 1 + rng.below(300);
    let at = |s: u64| {
        let (d, h, m, x) = (1 + s / 86_400 % 28, s / 3600 % 24, s / 60 % 60, s % 60);
        format!("2023-03-{d:02} {h:02}:{m:02}:{x:02}+08:00")
    };
    for _ in 0..rows {
        let id = format!("dlc{}", rng.below(rows * 2));
        let submit = rng.below(2_000_000);
        let wait = rng.below(5000);
        let run = rng.below(90_000);
        let gpus = [0, 1, 2, 8, 16][rng.below(5) as usize];
        let user = format!("u{}", rng.below(9));
        let ty = ["SFT", "Pretrain", "Eval", "Debug", ""][rng.below(5) as usize];
        let state = [
            "COMPLETED",
            "FAILED",
            "CANCELLED",
            "TIMEOUT",
            "",
            "ODD\u{7}",
        ][rng.below(6) as usize];
        let (start, end) = match rng.below(8) {
            0 => (String::new(), String::new()),
            1 => (at(submit + wait), String::new()),
            _ => (at(submit + wait), at(submit + wait + run)),
        };
        let duration = if rng.below(6) == 0 { run + 1 } else { run };
        let queue = if rng.below(6) == 0 { wait + 3 } else { wait };
        let mut line = format!(
            "{id},{user},1,{gpus},8,{ty},{state},{},{start},{end},{duration},{queue},0",
            at(submit)
        );
        match rng.below(16) {
            0 => line = format!("{line},extra"),
            1 => line = line.replacen("2023-03", "2023-13", 1),
            2 => line = line.replacen(&at(submit), "", 1),
            3 => line = "\t".into(),
            4 => line = format!("  {line}\r"),
            5 => line = "   ".into(),
            6 => line = line.replacen(&id, "", 1),
            7 if !end.is_empty() => line = line.replacen(&end, &at(submit.saturating_sub(9)), 1),
            8 => line = line.replacen(",8,", ",x,", 1),
            _ => {}
        }
        fast_check::row(rng, &mut out, &line);
    }
    fast_check::end(rng, &mut out);
    out
}

/// The tables kept for drill-down and counts: offsets, ids, states.
fn tables(t: &Trace) -> String {
    let n = t.native.as_ref().expect("acme keeps its tables");
    let a = n
        .as_any()
        .downcast_ref::<AcmeTables>()
        .expect("acme tables");
    format!("{:?}\n{:?}\n{:?}", a.offsets, a.ids, a.states)
}

#[test]
fn the_parts_read_what_the_csv_reader_reads() {
    let loaded = fast_check::parts_read_what_the_csv_reader_reads(
        "acme-fast",
        240,
        &mut |rng, _| file(rng),
        &|path, opts| load_csv(path, "f.csv", opts),
        &|path, opts, workers| match load_by(path, "f.csv", opts, &move |_| workers)? {
            Some((b, policy)) => finish(b, policy, "f.csv", opts).map(Some),
            None => Ok(None),
        },
        &tables,
    );
    assert!(loaded > 200, "most cases load: {loaded}");
}

#[test]
fn a_quote_anywhere_is_left_to_the_csv_reader() {
    let path = fast_check::folder("acme-fast-one").join("q.csv");
    let row = "2023-03-01 00:00:00+08:00";
    std::fs::write(
        &path,
        format!(
            "{}\n\"a,b\",u,1,1,8,SFT,COMPLETED,{row},{row},{row},0,0,0\n",
            super::super::SEREN.join(",")
        ),
    )
    .unwrap();
    let opts = crate::LoadOptions::default();
    assert!(load_by(&path, "q", &opts, &|_| 2).unwrap().is_none());
    let (t, _) = super::super::load(&path, &opts).unwrap();
    assert_eq!(t.jobs[0].id, "a,b");
}
