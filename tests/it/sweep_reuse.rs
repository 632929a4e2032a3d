//! Issue 60's first item: a sweep reuses a record only while everything
//! its run read is as it was — throughput tables, cluster spec, power
//! traces, a policy's script and the modules it imports (not its
//! neighbours), the directory its command runs in, the build — and the
//! per-run files asked for were written; it says why each run runs again,
//! and refuses an `--out` holding files it did not write.

use crate::common;

use common::cli::{stderr, SAMPLE};
use common::sweep::*;
use std::path::Path;

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

/// Two table folders and a spec of 2 nodes × 4 GPUs for one elastic trace.
fn elastic_inputs(dir: &Path) -> (String, String, String, String) {
    let (trace, a) = common::write_elastic(
        dir,
        "a,0,2000,m,9999,32,1,999\nb,100,300,m,1000,2,1,999\nc,150,900,m,700,32,2,999\n",
    );
    let b = dir.join("tables-b");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::copy(a.join("m.csv"), b.join("m.csv")).unwrap();
    let spec = dir.join("spec.csv");
    std::fs::write(
        &spec,
        "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,2,4,64,256\n",
    )
    .unwrap();
    (abs(&trace), abs(&a), abs(&b), abs(&spec))
}

#[test]
fn a_changed_table_or_spec_reruns_the_rows_that_read_it_as_fresh_sim_runs() {
    let dir = common::scratch_dir("sweep-reuse-tables");
    let (trace, a, b, spec) = elastic_inputs(&dir);
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{trace}\"\nthroughputs = [\"{a}\", \"{b}\"]\ncluster = \"{spec}\"\n\
             policy = [\"edf-elastic\", \"fifo\"]\n"
        ),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = rows(&out);
    // Table b's model twice as fast: the two runs that read b run again.
    std::fs::write(
        Path::new(&b).join("m.csv"),
        "global_batch_size,1,2,4\n32,4,6,10\n2,2,3,4\n",
    )
    .unwrap();
    let o = sweep(&plan, &out, &[]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("2 done before, 2 to run (2 re-run: throughputs changed)"),
        "{err}"
    );
    let after = rows(&out);
    for (x, y) in before.iter().zip(&after) {
        let read_b = x["plan_throughputs"] == b;
        assert_eq!(x["jct_mean_s"] != y["jct_mean_s"], read_b, "{x:?}\n{y:?}");
    }
    assert_rows_equal_sim(&out, split);
    // The spec cut from 2 nodes to 1: every run read it.
    std::fs::write(
        &spec,
        "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,1,4,64,256\n",
    )
    .unwrap();
    let o = sweep(&plan, &out, &[]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("4 to run (4 re-run: cluster spec changed)"),
        "{err}"
    );
    assert!(
        rows(&out).iter().all(|r| r["gpus"] == "4"),
        "{:?}",
        rows(&out)
    );
    assert_rows_equal_sim(&out, split);
    let o = sweep(&plan, &out, &[]);
    assert!(
        stderr(&o).contains("4 done before, 0 to run\n"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn changed_power_traces_rerun_and_are_in_the_provenance() {
    let dir = common::scratch_dir("sweep-reuse-energy");
    let energy = dir.join("energy");
    std::fs::create_dir_all(&energy).unwrap();
    for f in ["summary_train.csv", "summary_power_v100.csv"] {
        std::fs::copy(Path::new("tests/fixtures/zeus").join(f), energy.join(f)).unwrap();
    }
    let here = std::env::current_dir().unwrap();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\nenergy = \"{}\"\npolicy = [\"fifo\", \"sjf\"]\n",
            here.join(SAMPLE).display(),
            abs(&energy)
        ),
    );
    let out = dir.join("out");
    assert!(sweep(&plan, &out, &[]).status.success());
    let before = rows(&out);
    let meta: serde_json::Value = serde_json::from_str(&before[0]["meta"]).unwrap();
    let inputs = meta["inputs"].as_array().unwrap();
    assert!(
        inputs.iter().any(|i| i["what"] == "energy"
            && i["files"].as_array().unwrap().len() == 2
            && i["files"][0]["name"] == "summary_train.csv"),
        "{inputs:?}"
    );
    // Every measured draw doubled.
    let power = energy.join("summary_power_v100.csv");
    let text = std::fs::read_to_string(&power).unwrap();
    let doubled: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                return l.to_string();
            }
            let (rest, watts) = l.rsplit_once(',').unwrap();
            format!("{rest},{}", watts.parse::<f64>().unwrap() * 2.0)
        })
        .collect();
    std::fs::write(&power, doubled.join("\n") + "\n").unwrap();
    let o = sweep(&plan, &out, &[]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("(2 re-run: power traces changed)"), "{err}");
    let after = rows(&out);
    let kwh =
        |r: &std::collections::HashMap<String, String>| -> f64 { r["energy_kwh"].parse().unwrap() };
    assert!((kwh(&after[0]) - 2.0 * kwh(&before[0])).abs() < 1e-6 * kwh(&after[0]));
    assert_rows_equal_sim(&out, split);
}

/// A policy's inputs are its script and what it imports from its folder —
/// however far down the sorted listing — never the other files there.
#[test]
fn a_policy_reads_the_modules_it_imports_not_its_neighbours() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("sweep-reuse-imports");
    let here = std::env::current_dir().unwrap();
    let folder = dir.join("policy");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..250 {
        std::fs::write(folder.join(format!("a{i:03}.py")), "x = 1\n").unwrap();
    }
    std::fs::write(folder.join("zz_helper.py"), "DESCRIBE = 'one'\n").unwrap();
    std::fs::write(
        folder.join("mine.py"),
        format!(
            "import sys\nsys.path.insert(0, {:?})\nfrom tracetui_policy import Policy, run\n\
             from zz_helper import DESCRIBE\n\
             class P(Policy):\n    name, walk, describe = 'mine', 'strict', DESCRIBE\nrun(P())\n",
            here.join("policies").display().to_string()
        ),
    )
    .unwrap();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\npolicy = [\"fifo\", \"exec:python3 {}\"]\ngpus = 32\n",
            here.join(SAMPLE).display(),
            folder.join("mine.py").display()
        ),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let meta: serde_json::Value = serde_json::from_str(&rows(&out)[1]["meta"]).unwrap();
    let files: Vec<&str> = meta["policies"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[1].ends_with("zz_helper.py"), "{files:?}");
    // A neighbour nothing imports: no reason to run again.
    std::fs::write(folder.join("a000.py"), "x = 2\n").unwrap();
    let o = sweep(&plan, &out, &[]);
    assert!(
        stderr(&o).contains("2 done before, 0 to run\n"),
        "{}",
        stderr(&o)
    );
    // The imported module, 251st in the folder: the policy's run again.
    std::fs::write(folder.join("zz_helper.py"), "DESCRIBE = 'two'\n").unwrap();
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 done before, 1 to run (1 re-run: policy files changed)"),
        "{}",
        stderr(&o)
    );
}

/// The same plan with a relative script, run from another folder holding
/// another script of that name: its runs run again.
#[test]
fn a_plan_run_from_another_directory_reruns_its_relative_policy() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("sweep-reuse-cwd");
    let here = std::env::current_dir().unwrap();
    let (one, two) = (dir.join("one"), dir.join("two"));
    for (d, base) in [(&one, "fifo.py"), (&two, "sjf.py")] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::copy(here.join("policies").join(base), d.join("policy.py")).unwrap();
        std::fs::copy(
            here.join("policies/tracetui_policy.py"),
            d.join("tracetui_policy.py"),
        )
        .unwrap();
    }
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\npolicy = \"exec:python3 policy.py\"\ngpus = 32\n",
            here.join(SAMPLE).display()
        ),
    );
    let out = dir.join("out");
    let run_in = |d: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
            .args([
                "sweep",
                plan.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .current_dir(d)
            .output()
            .unwrap()
    };
    let o = run_in(&one);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(rows(&out)[0]["policy"].starts_with("fifo"));
    let o = run_in(&two);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("(1 re-run: policy files changed, run from another directory)"),
        "{err}"
    );
    assert!(rows(&out)[0]["policy"].starts_with("sjf"));
}

/// A record from an older tracetui (no `read`) or another build runs
/// again; per-run files asked for later are written, and one deleted is
/// written again.
#[test]
fn older_records_and_per_run_files_asked_for_later_run_again() {
    let dir = common::scratch_dir("sweep-reuse-build");
    let plan = write_plan(
        &dir,
        "trace = \"itp:sample-traces/itp/sample.csv\"\npolicy = [\"fifo\", \"sjf\"]\ngpus = 32\n",
    );
    let out = dir.join("out");
    assert!(sweep(&plan, &out, &[]).status.success());
    let table = results(&out);
    let records: Vec<std::path::PathBuf> = {
        let mut r: Vec<_> = std::fs::read_dir(out.join("runs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        r.sort();
        r
    };
    let edit = |p: &Path, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(p, v.to_string()).unwrap();
    };
    edit(&records[0], &|v| {
        v.as_object_mut().unwrap().remove("read");
    });
    edit(&records[1], &|v| {
        v["read"]["build"] = "0.0.1 0123abc".into()
    });
    let o = sweep(&plan, &out, &[]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "(1 re-run: recorded by an older tracetui; 1 re-run: tracetui is another build)"
        ) || err.contains(
            "(1 re-run: tracetui is another build; 1 re-run: recorded by an older tracetui)"
        ),
        "{err}"
    );
    assert_eq!(results(&out), table, "the same inputs, the same table");
    // Per-run files asked for now: the runs that did not write them run.
    let o = sweep(&plan, &out, &["--jobs-out", "--timeline-out"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("(2 re-run: --jobs-out asked for, --timeline-out asked for)"),
        "{err}"
    );
    let id = rows(&out)[0]["run"].clone();
    let jobs = out.join("runs").join(format!("{id}.jobs.csv"));
    assert!(
        jobs.is_file()
            && out
                .join("runs")
                .join(format!("{id}.timeline.csv"))
                .is_file()
    );
    std::fs::remove_file(&jobs).unwrap();
    let o = sweep(&plan, &out, &["--jobs-out"]);
    assert!(
        stderr(&o).contains("1 done before, 1 to run (1 re-run: --jobs-out asked for)"),
        "{}",
        stderr(&o)
    );
    assert!(jobs.is_file());
    assert_eq!(results(&out), table);
}

#[test]
fn an_out_holding_files_tracetui_did_not_write_is_refused_untouched() {
    let dir = common::scratch_dir("sweep-reuse-out");
    let plan = write_plan(&dir, SMALL);
    let out = dir.join("mine");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("results.csv"), "my,own\n1,2\n").unwrap();
    for more in [&[][..], &["--shard", "0/2"][..]] {
        let o = sweep(&plan, &out, more);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("holds files tracetui did not write (results.csv)"),
            "{}",
            stderr(&o)
        );
        assert_eq!(
            std::fs::read_to_string(out.join("results.csv")).unwrap(),
            "my,own\n1,2\n"
        );
        assert!(!out.join("runs").exists());
    }
    // A new directory, an empty one, and one a sweep wrote are the sweep's.
    let fresh = dir.join("fresh");
    assert!(sweep(&plan, &fresh, &["--shard", "0/2"]).status.success());
    assert!(fresh.join(".tracetui-sweep").is_file());
    assert!(sweep(&plan, &fresh, &[]).status.success());
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(sweep(&plan, &empty, &[]).status.success());
    assert_eq!(results(&empty), results(&fresh));
}

/// `sweep` with `bytes` piped to its standard input.
fn sweep_piped(plan: &Path, out: &Path, bytes: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args([
            "sweep",
            plan.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    child.wait_with_output().unwrap()
}

/// A piped trace is read once into the sweep's folder and keyed on its
/// bytes: the same bytes piped again reuse the rows, other bytes re-run
/// them.
#[test]
fn a_piped_trace_is_keyed_on_its_bytes() {
    let dir = common::scratch_dir("sweep-reuse-pipe");
    let plan = write_plan(
        &dir,
        "trace = \"itp:/dev/stdin\"\npolicy = [\"fifo\", \"sjf\"]\ngpus = 32\n",
    );
    let out = dir.join("out");
    let sample = std::fs::read(SAMPLE).unwrap();
    let o = sweep_piped(&plan, &out, &sample);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is a pipe: read once into"),
        "{}",
        stderr(&o)
    );
    let first = rows(&out);
    let meta: serde_json::Value = serde_json::from_str(&first[0]["meta"]).unwrap();
    let sha = |p: &[u8]| -> String {
        use sha2::Digest;
        sha2::Sha256::digest(p)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(meta["trace"]["sha256"], sha(&sample));
    // The rows are sim's on the same bytes from a file.
    let alone = sim_row(&["itp", SAMPLE, "--gpus", "32"]);
    assert_eq!(first[0]["jct_mean_s"], alone["jct_mean_s"]);
    let o = sweep_piped(&plan, &out, &sample);
    assert!(
        stderr(&o).contains("2 done before, 0 to run\n"),
        "{}",
        stderr(&o)
    );
    // One job fewer: both rows run again.
    let text = String::from_utf8(sample.clone()).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    let fewer = cut[..cut.len() - 1].join("\n") + "\n";
    let o = sweep_piped(&plan, &out, fewer.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(2 re-run: trace changed)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        rows(&out)[0]["jobs"].parse::<u64>().unwrap() + 1,
        first[0]["jobs"].parse::<u64>().unwrap()
    );
}
