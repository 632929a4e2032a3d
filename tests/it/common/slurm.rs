//! A real one-node Slurm for a test: its own munged, slurmctld and slurmd
//! (Debian's `slurm-wlm` and `munge`), on ports and files of its own in a
//! scratch directory, stopped when dropped. Not a fake: `sbatch`,
//! `squeue` and the array tasks are Slurm's.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Slurm {
    pub dir: PathBuf,
    pub conf: PathBuf,
    /// One Slurm at a time in a test binary: two on one host (one node
    /// name, one munge key directory layout) interfere — a test's squeue
    /// went unanswered once the other test's daemons stopped.
    _one: std::sync::MutexGuard<'static, ()>,
}

/// Held by whichever Slurm runs (`slurm_acct.rs`'s too): one node name.
pub static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(program: &str, args: &[&str], conf: &Path) -> std::process::Output {
    Command::new(program)
        .args(args)
        .env("SLURM_CONF", conf)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// Why a one-node Slurm cannot start here, if it cannot.
fn cannot_start() -> Option<String> {
    for p in ["munged", "slurmctld", "slurmd", "sbatch", "squeue"] {
        if !found(p) {
            return Some(format!(
                "{p} is not installed (Debian: apt-get install slurm-wlm munge; .ci/run does)"
            ));
        }
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("a one-node Slurm needs root here (slurmd runs the tasks)".into());
    }
    None
}

/// Starts munged with a key of its own in `dir`: its socket.
fn start_munge(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join("munge"), std::fs::Permissions::from_mode(0o700)).unwrap();
    let key: Vec<u8> = (0..1024u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let key_file = dir.join("munge.key");
    std::fs::write(&key_file, key).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let socket = dir.join("munge/munge.sock");
    let o = Command::new("munged")
        .arg("--force")
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--key-file={}", key_file.display()))
        .arg(format!(
            "--pid-file={}",
            dir.join("munge/munged.pid").display()
        ))
        .arg(format!(
            "--log-file={}",
            dir.join("log/munged.log").display()
        ))
        .arg(format!("--seed-file={}", dir.join("munge/seed").display()))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "munged: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    socket
}

/// Writes `dir/slurm.conf` for one node (this host, all its CPUs) on
/// ports of this test binary's own, authenticating through `socket`.
fn write_conf(dir: &Path, socket: &Path) -> PathBuf {
    let host = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Ports of this test's own, away from the defaults and from other
    // test binaries' (within one, `ONE` keeps Slurms apart in time).
    let port = 20_000 + (std::process::id() % 10_000) as u16 * 2;
    let d = dir.display();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        format!(
            "ClusterName=tracetui\nSlurmctldHost={host}\nSlurmUser=root\nSlurmdUser=root\n\
             SlurmctldPort={port}\nSlurmdPort={}\nAuthType=auth/munge\nAuthInfo=socket={}\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n\
             NodeName={host} CPUs={cpus} State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            port + 1,
            socket.display()
        ),
    )
    .unwrap();
    conf
}

impl Slurm {
    /// Starts the cluster, or `None` with the reason printed (Slurm not
    /// installed, not root).
    pub fn start(tag: &str) -> Option<Slurm> {
        if let Some(why) = cannot_start() {
            eprintln!("skipped: {why}");
            return None;
        }
        let one = ONE.lock().unwrap_or_else(|e| e.into_inner());
        let dir = super::scratch_dir(tag);
        for d in ["state", "spool", "log", "munge"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        let socket = start_munge(&dir);
        let conf = write_conf(&dir, &socket);
        let slurm = Slurm {
            dir,
            conf,
            _one: one,
        };
        for daemon in ["slurmctld", "slurmd"] {
            let o = run(daemon, &["-f", slurm.conf.to_str().unwrap()], &slurm.conf);
            assert!(
                o.status.success(),
                "{daemon}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let idle = super::eventually(60, || {
            let o = run("sinfo", &["-h", "-o", "%t"], &slurm.conf);
            let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
            (s == "idle").then_some(())
        });
        assert!(idle.is_some(), "the node never came up: {}", slurm.logs());
        Some(slurm)
    }

    /// The daemons' logs, for a failure message.
    pub fn logs(&self) -> String {
        ["slurmctld", "slurmd", "munged"]
            .iter()
            .map(|n| {
                let t = std::fs::read_to_string(self.dir.join(format!("log/{n}.log")))
                    .unwrap_or_default();
                let tail: Vec<&str> = t.lines().rev().take(15).collect();
                format!(
                    "== {n}\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        for pid in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            if let Ok(p) = std::fs::read_to_string(self.dir.join(pid)) {
                if let Ok(p) = p.trim().parse::<i32>() {
                    // SAFETY: kill has no memory preconditions.
                    unsafe {
                        libc::kill(p, libc::SIGTERM);
                    }
                }
            }
        }
    }
}
