//! A real one-node Slurm with job accounting for a test, as
//! `../shared/slurm/slurm_acct_up.sh` builds one but in a scratch
//! directory of its own: MariaDB (its own data directory, socket and
//! port), slurmdbd, slurmctld and slurmd on ports of their own, the node
//! declaring 8 GPUs of type a100 as GRES (stand-in device files: Slurm
//! 22.05 drops a GPU without `File=`), accounts vision (user alice) and
//! nlp (user bob). Everything it started is stopped when dropped. Not a
//! fake: sbatch, squeue, scontrol and sacct are Slurm's.
//!
//! Slurm's connections to slurmdbd authenticate through munge's default
//! socket, whatever `AuthInfo` says, so a munged must answer there: the
//! one running, else one started here (and stopped with the rest).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct SlurmAcct {
    pub dir: PathBuf,
    pub conf: PathBuf,
    /// This host's short name: the node's.
    pub node: String,
    munged: bool,
    _one: std::sync::MutexGuard<'static, ()>,
}

fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Why it cannot start here, if it cannot.
fn cannot_start() -> Option<String> {
    let needed = [
        "munged",
        "munge",
        "slurmctld",
        "slurmd",
        "slurmdbd",
        "sacct",
        "sacctmgr",
        "sbatch",
        "mariadbd",
        "mariadb",
        "mariadb-install-db",
        "runuser",
        "useradd",
        "mknod",
    ];
    if let Some(p) = needed.iter().find(|p| !found(p)) {
        return Some(format!(
            "{p} is not installed (Debian: apt-get install slurm-wlm slurmdbd munge mariadb-server; .ci/run does)"
        ));
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(
            "a Slurm with accounting needs root here (slurmd runs the jobs as their users)".into(),
        );
    }
    None
}

fn ok(o: std::io::Result<Output>, what: &str) -> Output {
    let o = o.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        o.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A munged on the default socket: the one running, else one started (`true`).
fn default_munge() -> bool {
    let answers = || {
        Command::new("sh")
            .args(["-c", "munge -n </dev/null >/dev/null 2>&1"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if answers() {
        return false;
    }
    for d in [
        "/run/munge",
        "/var/lib/munge",
        "/var/log/munge",
        "/etc/munge",
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    if !Path::new("/etc/munge/munge.key").exists() {
        ok(
            Command::new("sh")
                .args(["-c", "dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null && chmod 400 /etc/munge/munge.key"])
                .output(),
            "a munge key",
        );
    }
    ok(Command::new("munged").arg("--force").output(), "munged");
    assert!(
        super::eventually(10, || answers().then_some(())).is_some(),
        "munged does not answer"
    );
    true
}

/// MariaDB in `dir/db`, on `port` (127.0.0.1) and `dir/mysql.sock`, with
/// the database and user slurmdbd needs.
fn start_db(dir: &Path, port: u16) {
    let d = dir.display();
    ok(
        Command::new("mariadb-install-db")
            .args([
                "--no-defaults",
                "--user=root",
                "--skip-test-db",
                "--auth-root-authentication-method=socket",
            ])
            .arg(format!("--datadir={d}/db"))
            .output(),
        "mariadb-install-db",
    );
    // setsid --fork: mariadbd runs on in a session of its own; setsid returns.
    let started = Command::new("setsid")
        .args(["--fork", "mariadbd"])
        .args([
            "--no-defaults",
            "--user=root",
            "--bind-address=127.0.0.1",
            "--skip-name-resolve",
        ])
        .arg(format!("--datadir={d}/db"))
        .arg(format!("--socket={d}/mysql.sock"))
        .arg(format!("--port={port}"))
        .arg(format!("--pid-file={d}/mariadbd.pid"))
        .arg(format!("--log-error={d}/log/mariadb.log"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    assert!(started.is_ok_and(|s| s.success()), "setsid --fork mariadbd");
    let sql = |q: &str| {
        Command::new("mariadb")
            .args(["--no-defaults", "-uroot"])
            .arg(format!("--socket={d}/mysql.sock"))
            .args(["-e", q])
            .output()
    };
    let up = super::eventually(30, || sql("SELECT 1").ok().filter(|o| o.status.success()));
    assert!(
        up.is_some(),
        "MariaDB did not start: {}",
        tail(&dir.join("log/mariadb.log"))
    );
    ok(
        sql("CREATE DATABASE slurm_acct_db; CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'tracetui'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"),
        "the accounting database",
    );
}

fn tail(p: &Path) -> String {
    let t = std::fs::read_to_string(p).unwrap_or_default();
    let last: Vec<&str> = t.lines().rev().take(12).collect();
    last.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// Four ports in a row that nothing holds now: below the kernel's
/// ephemeral range (32768 on), away from the other test Slurm's (20000 on).
fn free_ports() -> u16 {
    let free = |p: u16| std::net::TcpListener::bind(("0.0.0.0", p)).is_ok();
    let pid = std::process::id() as u16;
    (0..200u16)
        .map(|k| 10_000 + (pid.wrapping_add(k.wrapping_mul(7)) % 2_500) * 4)
        .find(|&base| (base..base + 4).all(free))
        .expect("four free ports between 10000 and 20000")
}

/// slurmdbd.conf, gres.conf and slurm.conf in `dir`, ports from `port`.
fn write_confs(dir: &Path, node: &str, port: u16) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let d = dir.display();
    let dbd = dir.join("slurmdbd.conf");
    std::fs::write(
        &dbd,
        format!(
            "AuthType=auth/munge\nDbdHost=localhost\nDbdPort={}\nSlurmUser=root\n\
             LogFile={d}/log/slurmdbd.log\nPidFile={d}/slurmdbd.pid\n\
             StorageType=accounting_storage/mysql\nStorageHost=127.0.0.1\nStoragePort={port}\n\
             StorageUser=slurm\nStoragePass=tracetui\nStorageLoc=slurm_acct_db\n",
            port + 1
        ),
    )
    .unwrap();
    std::fs::set_permissions(&dbd, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::create_dir_all(dir.join("gpu")).unwrap();
    for i in 0..8 {
        let f = dir.join(format!("gpu/gpu{i}"));
        ok(
            Command::new("mknod")
                .args(["-m", "666"])
                .arg(&f)
                .args(["c", "1", "3"])
                .output(),
            "mknod",
        );
    }
    std::fs::write(
        dir.join("gres.conf"),
        format!(
            "AutoDetect=off\nNodeName={node} Name=gpu Type=a100 Count=8 File={d}/gpu/gpu[0-7]\n"
        ),
    )
    .unwrap();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        format!(
            "ClusterName=tracetui\nSlurmctldHost={node}\nSlurmUser=root\nSlurmdUser=root\n\
             SlurmctldPort={}\nSlurmdPort={}\nAuthType=auth/munge\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\nSlurmdParameters=config_overrides\nReturnToService=2\n\
             MpiDefault=none\nGresTypes=gpu\nAccountingStorageType=accounting_storage/slurmdbd\n\
             AccountingStorageHost=localhost\nAccountingStoragePort={}\n\
             AccountingStorageTRES=gres/gpu,gres/gpu:a100\nAccountingStorageEnforce=associations\n\
             NodeName={node} CPUs=32 Gres=gpu:a100:8 State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            port + 2,
            port + 3,
            port + 1
        ),
    )
    .unwrap();
    conf
}

impl SlurmAcct {
    /// Starts it, or `None` with the reason printed.
    pub fn start(tag: &str) -> Option<SlurmAcct> {
        if let Some(why) = cannot_start() {
            eprintln!("skipped: {why}");
            return None;
        }
        let one = super::slurm::ONE.lock().unwrap_or_else(|e| e.into_inner());
        let dir = super::scratch_dir(tag);
        for d in ["db", "state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        let node = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        let port = free_ports();
        let munged = default_munge();
        start_db(&dir, port);
        let conf = write_confs(&dir, &node, port);
        let s = SlurmAcct {
            dir,
            conf,
            node,
            munged,
            _one: one,
        };
        s.up();
        Some(s)
    }

    /// slurmdbd, the accounts and users, then slurmctld and slurmd.
    fn up(&self) {
        ok(self.run("slurmdbd", &[]), "slurmdbd");
        let dbd = super::eventually(30, || {
            self.run("sacctmgr", &["-n", "-P", "list", "cluster"])
                .ok()
                .filter(|o| o.status.success())
        });
        assert!(dbd.is_some(), "slurmdbd does not answer: {}", self.logs());
        for u in ["alice", "bob"] {
            if !Command::new("id")
                .arg(u)
                .output()
                .is_ok_and(|o| o.status.success())
            {
                ok(
                    Command::new("useradd")
                        .args(["-m", "-s", "/bin/bash", u])
                        .output(),
                    "useradd",
                );
            }
        }
        for args in [
            "add cluster tracetui",
            "add account vision Cluster=tracetui",
            "add account nlp Cluster=tracetui",
            "add user alice Account=vision DefaultAccount=vision Cluster=tracetui",
            "add user bob Account=nlp DefaultAccount=nlp Cluster=tracetui",
        ] {
            let mut a = vec!["-i"];
            a.extend(args.split(' '));
            ok(self.run("sacctmgr", &a), &format!("sacctmgr {args}"));
        }
        let f = self.conf.to_str().unwrap();
        ok(self.run("slurmctld", &["-f", f]), "slurmctld");
        ok(self.run("slurmd", &["-f", f]), "slurmd");
        let idle = super::eventually(60, || {
            let o = self.run("sinfo", &["-h", "-o", "%t"]).ok()?;
            (String::from_utf8_lossy(&o.stdout).trim() == "idle").then_some(())
        });
        assert!(idle.is_some(), "the node never came up: {}", self.logs());
    }

    /// Runs a Slurm command against this cluster.
    pub fn run(&self, program: &str, args: &[&str]) -> std::io::Result<Output> {
        Command::new(program)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
    }

    /// `sbatch` as `user` (its output discarded): the job's id.
    pub fn submit(&self, user: &str, args: &[&str]) -> String {
        let o = Command::new("runuser")
            .args(["-u", user, "--", "env"])
            .arg(format!("SLURM_CONF={}", self.conf.display()))
            .args(["sbatch", "--parsable", "-o", "/dev/null", "--chdir=/tmp"])
            .args(args)
            .output();
        let o = ok(o, &format!("sbatch as {user} {args:?}"));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// The daemons' logs, for a failure message.
    pub fn logs(&self) -> String {
        ["slurmctld", "slurmd", "slurmdbd", "mariadb"]
            .iter()
            .map(|n| format!("== {n}\n{}", tail(&self.dir.join(format!("log/{n}.log")))))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for SlurmAcct {
    fn drop(&mut self) {
        let mut stopped = Vec::new();
        for pid in [
            "slurmd.pid",
            "slurmctld.pid",
            "slurmdbd.pid",
            "mariadbd.pid",
        ] {
            if let Ok(p) = std::fs::read_to_string(self.dir.join(pid)) {
                if let Ok(p) = p.trim().parse::<i32>() {
                    // SAFETY: kill has no memory preconditions.
                    unsafe {
                        libc::kill(p, libc::SIGTERM);
                    }
                    stopped.push(p);
                }
            }
        }
        // Gone before the next Slurm of this binary starts on this node.
        let _ = super::eventually(20, || {
            stopped.iter().all(|p| !super::alive(*p)).then_some(())
        });
        // The munged started here wrote its pid where munged does by default.
        let munged = std::fs::read_to_string("/run/munge/munged.pid").ok();
        if let Some(p) = munged
            .filter(|_| self.munged)
            .and_then(|p| p.trim().parse::<i32>().ok())
        {
            // SAFETY: kill has no memory preconditions.
            unsafe {
                libc::kill(p, libc::SIGTERM);
            }
        }
    }
}
