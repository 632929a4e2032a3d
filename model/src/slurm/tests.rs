use super::*;
use crate::model::JobStatus;

/// sacct --parsable2 output in the shape Slurm 22.05 prints it (fields in
/// an order of our own: the header names them), written for these tests:
/// steps, an array, a het job, a requeued job's two runs (-D), a job
/// cancelled while pending, one refused, a CPU job, a running and a
/// pending job, a two-node job and a typed request.
const SACCT: &str = "\
JobID|User|Account|Partition|QOS|State|Submit|Start|End|Timelimit|ReqTRES|AllocTRES|NodeList
10|alice|vision|debug|normal|COMPLETED|2026-11-28T10:00:00|2026-11-28T10:00:01|2026-11-28T10:00:16|00:05:00|billing=1,cpu=1,gres/gpu=8,mem=512M,node=1|billing=1,cpu=1,gres/gpu:a100=8,gres/gpu=8,mem=512M,node=1|g1
10.batch|||||COMPLETED|2026-11-28T10:00:01|2026-11-28T10:00:01|2026-11-28T10:00:16|||cpu=1,gres/gpu:a100=8,gres/gpu=8,mem=512M,node=1|g1
10.extern|||||COMPLETED|2026-11-28T10:00:01|2026-11-28T10:00:01|2026-11-28T10:00:16|||billing=1,cpu=1,gres/gpu:a100=8,gres/gpu=8,mem=512M,node=1|g1
11_0|bob|nlp|debug|normal|FAILED|2026-11-28T10:00:02|2026-11-28T10:00:16|2026-11-28T10:00:19|00:05:00|gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|g1
11_1|bob|nlp|debug|normal|TIMEOUT|2026-11-28T10:00:02|2026-11-28T10:00:16|2026-11-28T10:01:16|00:01:00|gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|g1
12|alice|vision|debug|normal|CANCELLED by 0|2026-11-28T10:00:03|None|2026-11-28T10:00:05|00:05:00|gres/gpu=8||None assigned
13|bob|nlp|debug|normal|FAILED|2026-11-28T10:00:04|2026-11-28T10:00:04|2026-11-28T10:00:04|Partition_Limit|gres/gpu=16||None assigned
14|bob|nlp|debug|normal|COMPLETED|2026-11-28T10:00:05|2026-11-28T10:00:16|2026-11-28T10:00:22|00:05:00|cpu=4,mem=2G,node=1|cpu=4,mem=2G,node=1|g1
15|alice|vision|gpu|normal|REQUEUED|2026-11-28T10:00:06|2026-11-28T10:00:19|2026-11-28T10:00:25|00:05:00|gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|g1
15|alice|vision|gpu|normal|COMPLETED|2026-11-28T10:00:25|2026-11-28T10:02:30|2026-11-28T10:02:40|00:05:00|gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|g2
16+0|bob|nlp|debug|normal|COMPLETED|2026-11-28T10:00:07|2026-11-28T10:00:30|2026-11-28T10:00:40|00:05:00|gres/gpu=2|gres/gpu=2|g1
16+1|bob|nlp|debug|normal|COMPLETED|2026-11-28T10:00:07|2026-11-28T10:00:30|2026-11-28T10:00:40|00:05:00|gres/gpu=3|gres/gpu=3|g2
17|alice|vision|gpu|normal|RUNNING|2026-11-28T10:00:08|2026-11-28T10:01:00|Unknown|UNLIMITED|gres/gpu:a100=4,gres/gpu=4|gres/gpu:a100=4,gres/gpu=4|g[1-2]
18|bob|nlp|debug|normal|PENDING|2026-11-28T10:00:09|Unknown|Unknown|00:05:00|gres/gpu=2||None assigned
";

fn load(text: &str, opts: LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    load_text(text.as_bytes(), "sacct.txt", &opts)
}

fn strict() -> LoadOptions {
    LoadOptions {
        strict: true,
        ..LoadOptions::default()
    }
}

#[test]
fn jobs_fold_their_steps_components_and_earlier_runs() {
    let (t, report) = load(SACCT, strict()).unwrap();
    let ids: Vec<&str> = t.jobs.iter().map(|j| &*j.id).collect();
    assert_eq!(ids, ["10", "11_0", "11_1", "15", "16", "17"]);
    let by = |id: &str| t.jobs.iter().find(|j| &*j.id == id).unwrap();
    let j = by("10");
    assert_eq!(
        (j.demand.clone(), j.status, j.runtime),
        (
            Demand::Gang { gpus: 8 },
            JobStatus::Completed,
            Some(15).into()
        )
    );
    assert_eq!((t.sym(j.user), t.sym(j.group)), ("alice", "vision"));
    assert_eq!(j.requested, Some(300));
    assert_eq!(j.submit, 1795860000, "2026-11-28T10:00:00 UTC");
    assert_eq!(by("11_1").status, JobStatus::Failed, "TIMEOUT");
    // Requeued: submitted first at :06, its first run a recorded hold on g1, its last on g2.
    let j = by("15");
    assert_eq!((j.submit, j.runtime), (1795860006, Some(10).into()));
    let holds: Vec<(i64, Option<u32>)> = t
        .job_segments(j)
        .iter()
        .map(|s| (s.start - 1795860000, s.machine.get()))
        .collect();
    assert_eq!(holds, [(19, Some(0)), (150, Some(1))]);
    // A het job: one job, its components' GPUs on their nodes.
    let j = by("16");
    assert_eq!(j.demand, Demand::Gang { gpus: 5 });
    let on: Vec<(Option<u32>, u32)> = t
        .job_segments(j)
        .iter()
        .map(|s| (s.machine.get(), s.milli))
        .collect();
    assert_eq!(on, [(Some(0), 2000), (Some(1), 3000)]);
    // Running when sacct ran: no end; its typed request is a constraint; two nodes, 2 GPUs each.
    let j = by("17");
    assert_eq!(
        (j.runtime, j.status, j.requested),
        (MaybeSecs::NONE, JobStatus::Unfinished, MaybeSecs::NONE)
    );
    assert_eq!(t.cluster.gpu_types[j.gpu_type.unwrap() as usize], "a100");
    assert!(t
        .job_segments(j)
        .iter()
        .all(|s| s.end.is_none() && s.milli == 2000));
    let left: Vec<(&str, u64)> = t.excluded.iter().map(|e| (&*e.reason, e.jobs)).collect();
    assert_eq!(
        left,
        [
            ("still pending when sacct ran", 1),
            ("never started (cancelled while pending, or refused)", 2),
            ("CPU jobs (no gres/gpu)", 1),
        ]
    );
    let notes = report.notes.join("\n");
    assert!(notes.contains("1 earlier runs of requeued jobs"), "{notes}");
}

#[test]
fn the_nodes_are_inferred_from_the_node_lists_and_said_so() {
    let (t, report) = load(SACCT, strict()).unwrap();
    let m: Vec<(&str, u32)> = t
        .cluster
        .machines
        .iter()
        .map(|m| (m.name.as_str(), m.gpus))
        .collect();
    // g1: job 10's 8; g2: 3 (het) then 1 (15), 2 (17) at once with nothing else.
    assert_eq!(m, [("g1", 8), ("g2", 3)]);
    assert_eq!(
        t.cluster.gpu_types[t.cluster.machines[0].gpu_type as usize],
        "a100"
    );
    assert!(report
        .notes
        .iter()
        .any(|n| n.contains("inferred from the jobs' node lists")));
}

#[test]
fn nodes_from_scontrol_output_and_unlisted_ones_recorded_only() {
    let d = std::env::temp_dir().join(format!("tracetui-test-slurm-nodes-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("nodes.txt");
    std::fs::write(
        &p,
        "NodeName=g1 CPUTot=32 RealMemory=65536 Gres=gpu:a100:8\n",
    )
    .unwrap();
    let opts = LoadOptions {
        nodes: Some(p.clone()),
        ..strict()
    };
    let (t, report) = load(SACCT, opts).unwrap();
    let m = &t.cluster.machines;
    assert_eq!(
        (
            m[0].name.as_str(),
            m[0].gpus,
            m[0].cpu_milli,
            m[0].mem_mib / 1024,
            m[0].recorded_only
        ),
        ("g1", 8, 32_000, 64, false)
    );
    assert_eq!((m[1].name.as_str(), m[1].recorded_only), ("g2", true));
    assert!(report
        .notes
        .iter()
        .any(|n| n.contains("1 node the jobs ran on not in it")));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn states_are_counted_as_sacct_gives_them() {
    let (t, _) = load(SACCT, strict()).unwrap();
    let s = t.native.as_ref().unwrap().status_counts(&t).unwrap();
    let got: Vec<(&str, u64)> = s.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        got,
        [
            ("CANCELLED", 1),
            ("COMPLETED", 4),
            ("FAILED", 2),
            ("PENDING", 1),
            ("RUNNING", 1),
            ("TIMEOUT", 1)
        ]
    );
    let d = crate::detail::of_job(&t, &t.jobs[0], false);
    assert_eq!(d["job"]["State"], "COMPLETED");
    assert_eq!(d["steps"].as_array().unwrap().len(), 2);
    assert_eq!(d["steps"][0]["JobID"], "10.batch");
    let d = crate::detail::of_job(&t, &t.jobs[3], false);
    assert_eq!(d["earlier_runs"][0]["State"], "REQUEUED");
}

#[test]
fn times_are_read_in_the_zone_given() {
    let opts = LoadOptions {
        tz: Some(chrono_tz::Europe::Berlin),
        ..strict()
    };
    let (t, _) = load(SACCT, opts).unwrap();
    assert_eq!(t.jobs[0].submit, 1795860000 - 3600);
    assert_eq!(t.zone, Zone::Tz(chrono_tz::Europe::Berlin));
}

#[test]
fn bad_lines_name_the_file_line_and_field() {
    let head = "JobID|State|Submit|Start|End|AllocTRES|NodeList\n";
    let ok =
        "1|COMPLETED|2026-11-28T10:00:00|2026-11-28T10:00:01|2026-11-28T10:00:02|gres/gpu=1|n1\n";
    for (line, want) in [
        (
            "2|COMPLETED|2026-11-28T10:00:00\n",
            "sacct.txt:3: 3 fields, the header has 7 (a value with a '|' in it, or a cut line)",
        ),
        ("x|COMPLETED|||||\n", "sacct.txt:3: column JobID: 'x' is not a Slurm job id"),
        ("2|WEIRD|||||\n", "sacct.txt:3: column State: 'WEIRD' is not a Slurm job state"),
        ("2|COMPLETED|soon||||\n", "sacct.txt:3: column Submit: 'soon' is not a time"),
        ("2|COMPLETED||||gres/gpu=x|\n", "sacct.txt:3: column AllocTRES: gres/gpu=x: not a GPU count"),
        ("2|COMPLETED|||||n[1-\n", "sacct.txt:3: column NodeList: cannot expand 'n[1-': a '[' without its ']'"),
        (
            "2|COMPLETED|2026-11-28T10:00:00|2026-11-28T10:00:05|2026-11-28T10:00:01|gres/gpu=1|n1\n",
            "sacct.txt:3: column End: before Start",
        ),
    ] {
        let e = load(&format!("{head}{ok}{line}"), strict()).unwrap_err().to_string();
        assert!(e.starts_with(want), "{e}");
        let (t, r) = load(&format!("{head}{ok}{line}"), LoadOptions::default()).unwrap();
        assert_eq!((t.jobs.len(), r.total_skipped()), (1, 1), "lenient: {want}");
    }
    let e = load("", strict()).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
    let e = load(
        &format!("{head}2|PENDING|2026-11-28T10:00:00|Unknown|Unknown||\n"),
        strict(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no jobs to replay"), "{e}");
}
