//! `tracetui slurm` against a real Slurm with accounting (MariaDB,
//! slurmdbd, slurmctld, slurmd, started by the test as root; skipped,
//! saying why, where they are not installed): jobs submitted with
//! `--gres=gpu:N` by two users — some queued, one failed, one cancelled
//! while pending, one timed out — then their `sacct` read back.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use common::slurm_acct::SlurmAcct;
use std::collections::BTreeMap;

fn text(o: std::io::Result<std::process::Output>) -> String {
    let o = o.unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The six jobs; their ids. The cancelled one is cancelled while it waits.
fn submit(s: &SlurmAcct) -> Vec<String> {
    let ids = vec![
        s.submit(
            "alice",
            &["-J", "big", "--gres=gpu:8", "--time=5", "--wrap", "sleep 8"],
        ),
        s.submit(
            "bob",
            &[
                "-J",
                "four",
                "--gres=gpu:4",
                "--time=5",
                "--wrap",
                "sleep 4",
            ],
        ),
        s.submit(
            "alice",
            &[
                "-J",
                "fails",
                "--gres=gpu:2",
                "--time=5",
                "--wrap",
                "sleep 1; exit 1",
            ],
        ),
        s.submit(
            "bob",
            &[
                "-J",
                "cancel-pd",
                "--gres=gpu:8",
                "--time=5",
                "--wrap",
                "sleep 30",
            ],
        ),
        s.submit(
            "alice",
            &[
                "-J",
                "timeout",
                "--gres=gpu:1",
                "--time=1",
                "--wrap",
                "sleep 300",
            ],
        ),
        s.submit(
            "bob",
            &["-J", "two", "--gres=gpu:2", "--time=5", "--wrap", "sleep 3"],
        ),
    ];
    let pending = text(s.run("squeue", &["-h", "-t", "PD", "-o", "%i"]));
    assert!(
        pending.lines().count() >= 2,
        "some wait behind the 8-GPU job: {pending}"
    );
    assert!(
        pending.lines().any(|l| l.trim() == ids[3]),
        "{} waits: {pending}",
        ids[3]
    );
    text(s.run("scancel", &[&ids[3]]));
    ids
}

/// Waits for the queue to empty and sacct to hold every job's end.
fn wait_for_the_end(s: &SlurmAcct, jobs: usize) {
    let empty = common::eventually(240, || {
        text(s.run("squeue", &["-h"]))
            .trim()
            .is_empty()
            .then_some(())
    });
    assert!(empty.is_some(), "the queue never emptied: {}", s.logs());
    let ended = common::eventually(60, || {
        let t = text(s.run(
            "sacct",
            &[
                "-a",
                "-X",
                "-n",
                "-P",
                "-S",
                "2000-01-01",
                "--format=State,End",
            ],
        ));
        let done = t.lines().count() == jobs && !t.contains("RUNNING") && !t.contains("PENDING");
        done.then_some(())
    });
    assert!(ended.is_some(), "sacct never recorded every end");
}

#[test]
fn sacct_from_a_real_slurm_replays_as_slurm_ran_it() {
    let Some(s) = SlurmAcct::start("slurm-acct") else {
        return;
    };
    let ids = submit(&s);
    wait_for_the_end(&s, ids.len());
    let dir = s.dir.clone();
    let fields = "JobID,JobIDRaw,JobName,User,Account,Partition,QOS,State,ExitCode,Submit,Eligible,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqTRES,AllocTRES,NodeList";
    let with_steps = text(s.run(
        "sacct",
        &[
            "-a",
            "-P",
            "-S",
            "2000-01-01",
            &format!("--format={fields}"),
        ],
    ));
    let alloc = text(s.run(
        "sacct",
        &[
            "-a",
            "-P",
            "-X",
            "-S",
            "2000-01-01",
            &format!("--format={fields}"),
        ],
    ));
    let sacct = dir.join("sacct.txt");
    std::fs::write(&sacct, &with_steps).unwrap();
    let nodes = dir.join("nodes.txt");
    std::fs::write(&nodes, text(s.run("scontrol", &["show", "node", "-o"]))).unwrap();
    let (sacct, nodes) = (sacct.to_str().unwrap(), nodes.to_str().unwrap());

    // What a script over `sacct -X` says, and what tracetui says.
    let (jobs, states, hours) = crate::slurm::script(&alloc);
    let want: BTreeMap<String, u64> = [
        ("CANCELLED", 1),
        ("COMPLETED", 3),
        ("FAILED", 1),
        ("TIMEOUT", 1),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .into();
    assert_eq!((jobs, &states), (6, &want), "{alloc}");
    let o = tracetui(&[
        "stats", "slurm", sacct, "--nodes", nodes, "--format", "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let st: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(st["jobs"]["all"], jobs);
    let by: BTreeMap<String, u64> =
        serde_json::from_value(st["jobs"]["by_status"].clone()).unwrap();
    assert_eq!(by, states);
    let users = st["gpu_hours_by_user"].as_array().unwrap();
    assert_eq!(users.len(), 2);
    for u in users {
        let want = hours[u["name"].as_str().unwrap()];
        assert!(
            (u["gpu_hours"].as_f64().unwrap() - want).abs() < 1e-9,
            "{u} vs {want}"
        );
    }
    assert_eq!(
        st["machines"][0]["gpus"], 8,
        "the node's 8 GPUs, from scontrol"
    );

    // `recorded` starts each job at the second Slurm did, on its node.
    let starts = text(s.run(
        "env",
        &[
            "SLURM_TIME_FORMAT=%s",
            "sacct",
            "-a",
            "-P",
            "-X",
            "-n",
            "-S",
            "2000-01-01",
            "--format=JobID,Start,NodeList",
        ],
    ));
    let out = dir.join("jobs.csv");
    let o = tracetui(&[
        "sim",
        "slurm",
        sacct,
        "--nodes",
        nodes,
        "--policy",
        "recorded",
        "--jobs-out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let replayed = crate::slurm::csv_rows(&out);
    assert_eq!(replayed.len(), 5, "all but the one cancelled while pending");
    for line in starts.lines() {
        let f: Vec<&str> = line.split('|').collect();
        let Some(r) = replayed.iter().find(|r| r["id"] == f[0]) else {
            assert_eq!(f[0], ids[3], "only the cancelled job is not replayed");
            continue;
        };
        assert_eq!(r["start_s"], f[1], "job {}", f[0]);
        assert_eq!(r["machine_names"], f[2], "job {}", f[0]);
        assert_eq!(f[2], s.node);
    }
    // `tracetui slurm --since` runs sacct itself, with the fields it reads.
    if common::tmux::available() {
        let bin = env!("CARGO_BIN_EXE_tracetui");
        let t = common::tmux::Tmux::start(
            "slurm-since",
            (80, 24),
            &format!(
                "env NO_COLOR=1 SLURM_CONF={} {bin} slurm --since 2000-01-01 --nodes {nodes}",
                s.conf.display()
            ),
        );
        let screen = t.wait_for_within("slurm · sacct -", 90);
        assert!(screen.contains("RECORDED"), "{screen}");
        t.keys(&["g"]);
        t.type_text("+1h");
        t.keys(&["Enter"]);
        let end = t.wait_for_within("done 5", 90);
        assert!(end.contains("over all 5 arrived"), "{end}");
    }
}
