//! `sweep --slurm` on a real one-node Slurm (munged, slurmctld and slurmd
//! started by the test): the job array's shards give the table a local
//! sweep gives. Skipped, saying why, where Slurm is not installed.

use crate::common;
use common::slurm::Slurm;

use std::path::Path;
use std::process::{Command, Output};

fn sweep(conf: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .arg("sweep")
        .args(args)
        .env("SLURM_CONF", conf)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The issue's 32-run plan where the real clusters and python3 are here,
/// else a 12-run plan on the committed sample.
fn plan_text() -> String {
    match common::real_traces() {
        Some(real) if common::python() => {
            let c = |n: u8| format!("itp:{}/itp/elasticflow/cluster0{n}.csv", real.display());
            format!(
                "trace = [\"{}\", \"{}\"]\npolicy = [\"fifo\", \"sjf\", \"las\", \"exec:python3 policies/fifo.py\"]\n\
                 gpus = [64, 128]\nplacement = [\"consolidate\", \"spread\"]\n",
                c(1),
                c(2)
            )
        }
        _ => {
            "trace = \"itp:sample-traces/itp/sample.csv\"\npolicy = [\"fifo\", \"sjf\", \"las\"]\n\
              gpus = [16, 32]\nplacement = [\"consolidate\", \"spread\"]\n"
                .to_string()
        }
    }
}

#[test]
fn a_job_array_on_a_real_slurm_gives_the_local_sweeps_table() {
    let Some(slurm) = Slurm::start("slurm") else {
        return;
    };
    let dir = common::scratch_dir("sweep-slurm");
    let plan = dir.join("plan.toml");
    std::fs::write(&plan, plan_text()).unwrap();
    let plan = plan.to_str().unwrap();
    let local = dir.join("local");
    let o = sweep(&slurm.conf, &[plan, "--out", local.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    let want = std::fs::read_to_string(local.join("results.csv")).unwrap();

    // Submitted, waited for, collected.
    let out = dir.join("slurm");
    let o = sweep(
        &slurm.conf,
        &[
            plan,
            "--out",
            out.to_str().unwrap(),
            "--slurm",
            "--tasks",
            "3",
            "--",
            "--cpus-per-task=1",
        ],
    );
    assert!(o.status.success(), "{}\n{}", err(&o), slurm.logs());
    let said = err(&o);
    assert!(said.contains("submitted job array"), "{said}");
    assert!(said.contains("3 tasks"), "{said}");
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv")).unwrap(),
        want
    );
    let logs = std::fs::read_dir(out.join("slurm")).unwrap().count();
    assert_eq!(logs, 3, "one output file per array task");
    no_wait_then_a_plain_sweep_collects(&slurm, &dir, plan, &want);
}

/// `--no-wait`: submitted and left; a plain sweep later (once the array
/// is done) collects the table `want`.
fn no_wait_then_a_plain_sweep_collects(slurm: &Slurm, dir: &Path, plan: &str, want: &str) {
    let later = dir.join("later");
    let o = sweep(
        &slurm.conf,
        &[
            plan,
            "--out",
            later.to_str().unwrap(),
            "--slurm",
            "--tasks",
            "2",
            "--no-wait",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("run the sweep again"), "{}", err(&o));
    let id = err(&o)
        .split("submitted job array ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .map(str::to_string)
        .expect("the job id is said");
    assert!(
        leaves_the_queue(slurm, &id),
        "the array never finished: {}",
        slurm.logs()
    );
    let o = sweep(&slurm.conf, &[plan, "--out", later.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains(" 0 to run"), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(later.join("results.csv")).unwrap(),
        want
    );
}

/// Whether job `id`'s array leaves Slurm's queue within five minutes.
fn leaves_the_queue(slurm: &Slurm, id: &str) -> bool {
    let gone = common::eventually(300, || {
        let q = Command::new("squeue")
            .args(["-h", "-r", "-j", id])
            .env("SLURM_CONF", &slurm.conf)
            .output()
            .ok()?;
        String::from_utf8_lossy(&q.stdout)
            .trim()
            .is_empty()
            .then_some(())
    });
    gone.is_some()
}

#[test]
fn a_held_array_stops_the_wait_naming_the_reason_and_leaves_it_queued() {
    let Some(slurm) = Slurm::start("slurm-held") else {
        return;
    };
    let dir = common::scratch_dir("sweep-slurm-held");
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        "trace = \"itp:sample-traces/itp/sample.csv\"\npolicy = [\"fifo\", \"sjf\"]\n",
    )
    .unwrap();
    let out = dir.join("out");
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            plan.to_str().unwrap().to_string(),
            "--out".into(),
            out.to_str().unwrap().to_string(),
            "--slurm".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // Held at submission: JobHeldUser never clears by itself.
    let a = args(&["--stuck-for", "3s", "--", "--hold"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = sweep(&slurm.conf, &a);
    assert!(!o.status.success());
    let said = err(&o);
    assert!(
        said.contains("its tasks wait for JobHeldUser, which does not clear by itself"),
        "{said}\n{}",
        slurm.logs()
    );
    let id = said
        .split("submitted job array ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the job id is said")
        .to_string();
    assert!(said.contains(&format!("scontrol release {id}")), "{said}");
    let q = Command::new("squeue")
        .args(["-h", "-r", "-j", &id, "-o", "%t"])
        .env("SLURM_CONF", &slurm.conf)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&q.stdout).contains("PD"),
        "left queued"
    );
    let _ = Command::new("scancel")
        .arg(&id)
        .env("SLURM_CONF", &slurm.conf)
        .output();
    // --wait-at-most stops a wait that would go on.
    let a = args(&["--wait-at-most", "3s", "--", "--begin=now+1hour"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = sweep(&slurm.conf, &a);
    assert!(!o.status.success());
    assert!(err(&o).contains("stopped waiting after"), "{}", err(&o));
    assert!(err(&o).contains("run the sweep again"), "{}", err(&o));
}
