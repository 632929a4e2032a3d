//! `gen pai --machine-spec` (issue 61, item 4): a PAI trace generated for a
//! given machine list — the release's, or a cluster of your own in its
//! layout — writes that spec out unchanged and places every instance on
//! its machines by name, so `tracetui pai` shows no "unknown" machine; a
//! bad spec is an error naming its file, line and field, before anything
//! is written; without the flag the output is what it was.

use crate::common;

use common::cli::{stderr, tracetui};
use std::collections::HashSet;
use std::path::Path;

/// The machine names of a spec, and those the instance table names.
fn names(dir: &Path) -> (HashSet<String>, HashSet<String>) {
    let col = |file: &str, k: usize| -> HashSet<String> {
        std::fs::read_to_string(dir.join(file))
            .unwrap()
            .lines()
            .filter_map(|l| l.split(',').nth(k))
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    (
        col("pai_machine_spec.csv", 0),
        col("pai_instance_table.csv", 8),
    )
}

fn gen(spec: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "gen",
        "pai",
        "--jobs",
        "4000",
        "--seed",
        "5",
        "--machine-spec",
    ];
    args.push(spec.to_str().unwrap());
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    tracetui(&args)
}

#[test]
fn the_released_spec_is_written_unchanged_and_every_instance_is_on_its_machines() {
    let Some(root) = common::real_traces() else {
        return;
    };
    let spec = root.join("pai/pai_machine_spec.csv");
    let dir = common::scratch_dir("gen-spec-real");
    let o = gen(&spec, &dir, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("1897 machines"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&spec).unwrap(),
        std::fs::read(dir.join("pai_machine_spec.csv")).unwrap()
    );
    let (machines, used) = names(&dir);
    assert!(used.len() > 100, "{}", used.len());
    assert!(
        used.is_subset(&machines),
        "{:?}",
        used.difference(&machines).next()
    );
    let s = tracetui(&["stats", "pai", dir.to_str().unwrap()]);
    let said = stderr(&s);
    assert!(
        said.contains("1897 machines, 6742 GPUs from pai_machine_spec"),
        "{said}"
    );
    assert!(!said.contains("unknown"), "{said}");
}

#[test]
fn a_cluster_of_your_own_keeps_its_names_and_types_and_replays_as_recorded() {
    let dir = common::scratch_dir("gen-spec-own");
    let spec = dir.join("mine.csv");
    let mut rows = String::new();
    for i in 0..6 {
        rows.push_str(&format!("a100-{i:02},A100,128,1024,8\n"));
    }
    for i in 0..10 {
        rows.push_str(&format!("l4-{i:02},L4,32,256,4\n"));
    }
    rows.push_str("login,CPU,64,256,0\n");
    std::fs::write(&spec, &rows).unwrap();
    let out = dir.join("trace");
    let o = gen(&spec, &out, &["--days", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("pai_machine_spec.csv")).unwrap(),
        rows
    );
    let (machines, used) = names(&out);
    assert!(used.is_subset(&machines));
    assert!(
        used.iter().any(|m| m.starts_with("a100-")) && used.iter().any(|m| m.starts_with("l4-"))
    );
    // Types asked for are the spec's own.
    let tags = std::fs::read_to_string(out.join("pai_group_tag_table.csv")).unwrap();
    let asked: HashSet<&str> = tags.lines().filter_map(|l| l.split(',').nth(2)).collect();
    assert!(
        asked.is_subset(&["", "A100", "L4"].into_iter().collect()),
        "{asked:?}"
    );
    assert!(asked.contains("A100") && asked.contains("L4"), "{asked:?}");
    let s = tracetui(&["stats", "pai", out.to_str().unwrap()]);
    let text = common::cli::stdout(&s);
    assert!(
        text.contains("A100              6 machines      48 GPUs"),
        "{text}"
    );
    assert!(
        text.contains("L4               10 machines      40 GPUs"),
        "{text}"
    );
    assert!(!stderr(&s).contains("unknown"), "{}", stderr(&s));
    // The same spec and seed: the same bytes.
    let again = dir.join("again");
    assert!(gen(&spec, &again, &["--days", "3"]).status.success());
    for t in [
        "pai_job_table.csv",
        "pai_instance_table.csv",
        "pai_machine_spec.csv",
    ] {
        assert_eq!(
            std::fs::read(out.join(t)).unwrap(),
            std::fs::read(again.join(t)).unwrap(),
            "{t}"
        );
    }
}

#[test]
fn a_bad_spec_is_named_by_file_line_and_field_and_nothing_is_written() {
    let dir = common::scratch_dir("gen-spec-bad");
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "m0,V100,96,512,8\nm1,V100,96,512,eight\n",
            "bad.csv",
            &["bad.csv:2: column cap_gpu"],
        ),
        (
            "m0,V100,96,512,8\nm0,V100,96,512,8\n",
            "twice.csv",
            &["twice.csv:2: column machine: duplicate machine 'm0'"],
        ),
        ("c0,CPU,96,512,0\n", "cpu.csv", &["no machine with GPUs"]),
        ("m0,V100,96\n", "short.csv", &["short.csv:1:"]),
    ];
    for (text, name, says) in cases {
        let spec = dir.join(name);
        std::fs::write(&spec, text).unwrap();
        let out = dir.join(format!("out-{name}"));
        let o = gen(&spec, &out, &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains("--machine-spec"), "{err}");
        assert!(err.contains(&spec.display().to_string()), "{err}");
        for s in says {
            assert!(err.contains(s), "{name}: '{s}' not in {err}");
        }
        assert!(!out.exists(), "{name}: something was written");
    }
    let spec = dir.join("bad.csv");
    let o = tracetui(&[
        "gen",
        "itp",
        "--jobs",
        "10",
        "--machine-spec",
        spec.to_str().unwrap(),
        "--out",
        "-",
    ]);
    assert!(
        stderr(&o).contains("--machine-spec is for pai"),
        "{}",
        stderr(&o)
    );
    let o = tracetui(&[
        "gen",
        "pai",
        "--jobs",
        "10",
        "--gpus",
        "64",
        "--machine-spec",
        "x.csv",
        "--out",
        "y",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
