//! `tracetui slurm --live` in a real terminal (tmux) against a real Slurm
//! (started by the test as root; skipped, saying why, where it cannot be):
//! the running job on the grid with its GPUs, the waiting one with the
//! reason Slurm gives, and the view asked again — the grid empties once
//! the jobs are cancelled. Read-only: the test, not tracetui, submits and
//! cancels.

use crate::common;

use common::slurm_acct::SlurmAcct;
use common::tmux::Tmux;

fn squeue(s: &SlurmAcct, args: &[&str]) -> String {
    String::from_utf8_lossy(&s.run("squeue", args).unwrap().stdout).into_owned()
}

#[test]
fn the_live_view_shows_the_running_jobs_on_the_grid_and_follows_the_cluster() {
    if !common::tmux::available() {
        return;
    }
    let Some(s) = SlurmAcct::start("slurm-live") else {
        return;
    };
    let long = s.submit(
        "alice",
        &[
            "-J",
            "long",
            "--gres=gpu:6",
            "--time=5",
            "--wrap",
            "sleep 300",
        ],
    );
    let up = common::eventually(60, || {
        squeue(&s, &["-h", "-j", &long, "-o", "%t"])
            .trim()
            .eq("R")
            .then_some(())
    });
    assert!(up.is_some(), "{long} never ran: {}", s.logs());
    let wide = s.submit(
        "bob",
        &[
            "-J",
            "wide",
            "--gres=gpu:4",
            "--time=5",
            "--wrap",
            "sleep 5",
        ],
    );
    // Until the scheduler has looked at it, its reason is None.
    let why = common::eventually(30, || {
        let r = squeue(&s, &["-h", "-j", &wide, "-o", "%r"]);
        (r.trim() != "None" && !r.trim().is_empty()).then(|| r.trim().to_string())
    });
    let why = why.expect("Slurm gave the waiting job a reason");
    let bin = env!("CARGO_BIN_EXE_tracetui");
    for (size, no_color) in [((80, 24), true), ((120, 40), false)] {
        let env = common::tmux::colour_env(no_color);
        let t = Tmux::start(
            &format!("slurm-live-{}x{}", size.0, size.1),
            size,
            &format!(
                "env {env} SLURM_CONF={} {bin} slurm --live --every 2 --fps 20",
                s.conf.display()
            ),
        );
        let screen = t.wait_for_within("6/8", 90);
        assert!(screen.contains("slurm live"), "{size:?}:\n{screen}");
        assert!(
            screen.contains(&long),
            "{size:?}: the running job listed:\n{screen}"
        );
        // The waiting job, and why Slurm says it waits.
        assert!(
            screen.contains(&wide),
            "{size:?}: the waiting job queued:\n{screen}"
        );
        t.keys(&["Tab"]);
        // Two asks later the view is built anew: the queue keeps the focus.
        std::thread::sleep(std::time::Duration::from_secs(5));
        t.keys(&["Enter"]);
        let card = t.wait_for_within("Slurm says", 10);
        let said = format!("Slurm says {why} (its pending reason)");
        assert!(card.contains(&said), "{size:?}:\n{card}");
        t.keys(&["Escape"]);
        drop(t);
    }
    // Cancelled: the next ask shows an idle cluster.
    let t = Tmux::start(
        "slurm-live-after",
        (80, 24),
        &format!(
            "env NO_COLOR=1 SLURM_CONF={} {bin} slurm --live --every 2 --fps 20",
            s.conf.display()
        ),
    );
    t.wait_for_within("6/8", 90);
    let o = s.run("scancel", &[&long, &wide]).unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let idle = t.wait_for_within("0/8", 90);
    assert!(idle.contains("Queue 0"), "the cancelled jobs gone:\n{idle}");
    assert!(
        idle.contains("0 running, 0 waiting"),
        "said in the log:\n{idle}"
    );
    // The controller gone: the failure is said, the last answer kept,
    // and the view still answers keys.
    let pid = std::fs::read_to_string(s.dir.join("slurmctld.pid")).unwrap();
    // SAFETY: kill has no memory preconditions.
    unsafe {
        libc::kill(pid.trim().parse().unwrap(), libc::SIGTERM);
    }
    let said = t.wait_for_within("slurm: scontrol show node -o failed", 60);
    assert!(said.contains("0/8"), "the last answer kept:\n{said}");
    t.keys(&["?"]);
    t.wait_for_within("play / pause", 10);
}
