//! What is fuzzed: each loader with its seed directory, the files whose
//! mutations it reads, and — for what loads — the rest of the path a user's
//! input takes (stats, drill-down, background indexes, a replay to the end).

use std::path::Path;
use tracetui::trace::{Format, LoadOptions};

/// What a target reads.
pub enum Kind {
    /// A trace, by format name.
    Trace(&'static str),
    /// A lesson file (`tracetui lesson FILE`).
    Lesson,
    /// A sweep plan (`tracetui sweep PLAN`).
    Plan,
    /// A cluster spec (`--cluster FILE`).
    ClusterSpec,
    /// A directory of throughput tables (`--throughputs DIR`).
    Tables,
}

pub struct Target {
    pub name: &'static str,
    kind: Kind,
    /// The seed directory, from the repository root.
    dir: &'static str,
    /// The files of `dir` that are mutated (the others are copied as they are).
    mutated: &'static [&'static str],
    /// Whether the loader takes the directory (else the first mutated file).
    takes_dir: bool,
}

pub static TARGETS: [Target; 12] = [
    Target {
        name: "itp",
        kind: Kind::Trace("itp"),
        dir: "tests/fixtures/itp",
        mutated: &["trace.csv"],
        takes_dir: false,
    },
    Target {
        name: "acme",
        kind: Kind::Trace("acme"),
        dir: "tests/fixtures/acme",
        mutated: &["trace_seren.csv"],
        takes_dir: false,
    },
    Target {
        name: "zeus",
        kind: Kind::Trace("zeus"),
        dir: "tests/fixtures/zeus",
        mutated: &[
            "alibaba_groups.csv",
            "summary_train.csv",
            "summary_power_v100.csv",
        ],
        takes_dir: true,
    },
    Target {
        name: "slurm",
        kind: Kind::Trace("slurm"),
        dir: "tests/fixtures/slurm",
        mutated: &["sacct.txt"],
        takes_dir: false,
    },
    Target {
        name: "openb",
        kind: Kind::Trace("openb"),
        dir: "tests/fixtures/openb",
        mutated: &["openb_pod_list_default.csv", "openb_node_list_gpu_node.csv"],
        takes_dir: false,
    },
    Target {
        name: "swf",
        kind: Kind::Trace("swf"),
        dir: "tests/fixtures/swf",
        mutated: &["log.swf"],
        takes_dir: false,
    },
    Target {
        name: "philly",
        kind: Kind::Trace("philly"),
        dir: "tests/fixtures/philly",
        mutated: &[
            "cluster_machine_list",
            "cluster_job_log",
            "cluster_gpu_util",
        ],
        takes_dir: true,
    },
    Target {
        name: "pai",
        kind: Kind::Trace("pai"),
        dir: "tests/fixtures/pai",
        mutated: &[
            "pai_job_table.csv",
            "pai_task_table.csv",
            "pai_instance_table.csv",
            "pai_machine_spec.csv",
            "pai_sensor_table.csv",
            "pai_machine_metric.csv",
            "pai_group_tag_table.csv",
        ],
        takes_dir: true,
    },
    Target {
        name: "lesson",
        kind: Kind::Lesson,
        dir: "src/lesson/builtin",
        mutated: &[
            "hol.toml",
            "starvation.toml",
            "fragmentation.toml",
            "deadlines.toml",
        ],
        takes_dir: false,
    },
    Target {
        name: "plan",
        kind: Kind::Plan,
        dir: "tests/fixtures/plan",
        mutated: &["plan.toml"],
        takes_dir: false,
    },
    Target {
        name: "cluster-spec",
        kind: Kind::ClusterSpec,
        dir: "tests/fixtures/cluster",
        mutated: &["spec.csv", "typed.csv"],
        takes_dir: false,
    },
    Target {
        name: "tables",
        kind: Kind::Tables,
        dir: "tests/fixtures/tables",
        mutated: &["m.csv", "n.csv"],
        takes_dir: true,
    },
];

impl Target {
    pub fn find(name: &str) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.name == name)
    }

    /// (file name, bytes) of every mutated file.
    pub fn seeds(&self, root: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
        self.mutated
            .iter()
            .map(|f| Ok((f.to_string(), std::fs::read(root.join(self.dir).join(f))?)))
            .collect()
    }

    /// Fills `scratch` with the seed directory.
    pub fn prepare(&self, root: &Path, scratch: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(scratch)?;
        for e in std::fs::read_dir(root.join(self.dir))? {
            let p = e?.path();
            if p.is_file() {
                std::fs::copy(&p, scratch.join(p.file_name().unwrap_or_default()))?;
            }
        }
        Ok(())
    }

    /// Reads what `dir` holds (`file`: the input just written); with
    /// `deep`, what loads also goes the rest of a user's way (a trace
    /// through its stats, drill-downs, indexes and a small replay; a lesson,
    /// spec or tables into a replay). `true` when it loaded.
    pub fn exec(&self, dir: &Path, file: &str, deep: bool) -> bool {
        let path = if self.takes_dir {
            dir.to_path_buf()
        } else {
            dir.join(file)
        };
        match self.kind {
            Kind::Trace(format) => trace(format, &path, deep),
            Kind::Lesson => lesson(&path, deep),
            Kind::Plan => std::fs::read_to_string(&path).is_ok_and(|t| plan(&t)),
            Kind::ClusterSpec => cluster_spec(dir, &path, deep),
            Kind::Tables => tables(&path, deep),
        }
    }
}

fn trace(format: &str, path: &Path, deep: bool) -> bool {
    let Some(format) = Format::find(format) else {
        return false;
    };
    let opts = LoadOptions::default();
    let Ok((trace, _)) = format.load(path, &opts) else {
        return false;
    };
    if !deep {
        return true;
    }
    let _ = tracetui::stats::stats(&trace);
    if let Some(n) = &trace.native {
        let _ = n.build_indexes();
    }
    for job in trace.jobs.iter().take(3) {
        let _ = tracetui::trace::detail_of_job(&trace, job, true);
        let _ = tracetui::trace::detail_by_id(&trace, &job.id);
    }
    replay_small(trace);
    true
}

/// A replay to the end under two policies, where the trace is small.
fn replay_small(trace: tracetui::trace::Trace) {
    if trace.jobs.len() <= 200 && trace.cluster.total_gpus() <= 1 << 16 {
        let trace = std::sync::Arc::new(trace);
        for p in [tracetui::sim::Policy::Fifo, tracetui::sim::Policy::Las] {
            let _ = tracetui::sim::run(trace.clone(), p, tracetui::sim::Placement::Consolidate);
        }
    }
}

fn lesson(path: &Path, deep: bool) -> bool {
    let Ok(lesson) = tracetui::lesson::Lesson::from_file(path) else {
        return false;
    };
    if deep {
        if let Ok((trace, _)) = lesson.load_trace() {
            replay_small(trace);
        }
    }
    true
}

/// The spec as the machines of the ITP seed trace (`tests/fixtures/itp`).
fn cluster_spec(dir: &Path, path: &Path, deep: bool) -> bool {
    let Ok(cluster) = tracetui::trace::load_cluster_spec(path) else {
        return false;
    };
    if deep {
        let itp = dir.join("../../itp/trace.csv");
        let itp = if itp.exists() {
            itp
        } else {
            Path::new("tests/fixtures/itp/trace.csv").to_path_buf()
        };
        if let Ok((mut trace, _)) = tracetui::trace::load_itp(&itp, &LoadOptions::default()) {
            trace.cluster = cluster;
            replay_small(trace);
        }
    }
    true
}

/// The tables, with the trace of their jobs beside them (`jobs.trace`)
/// replayed from them under the elastic policies.
fn tables(dir: &Path, deep: bool) -> bool {
    let Ok(tables) = tracetui::trace::ThroughputTables::load(dir, None) else {
        return false;
    };
    if deep {
        let opts = LoadOptions::default();
        if let Ok((mut trace, _)) = tracetui::trace::load_itp(&dir.join("jobs.trace"), &opts) {
            if tracetui::trace::attach_speeds(&mut trace, vec![tables]).is_ok() {
                let trace = std::sync::Arc::new(trace);
                for p in [
                    tracetui::sim::Policy::EdfElastic,
                    tracetui::sim::Policy::Fifo,
                ] {
                    let _ =
                        tracetui::sim::run(trace.clone(), p, tracetui::sim::Placement::Consolidate);
                }
            }
        }
    }
    true
}

/// A plan read as `sweep` reads it (sim's options built once a process).
fn plan(text: &str) -> bool {
    static READER: std::sync::OnceLock<tracetui::cli::PlanReader> = std::sync::OnceLock::new();
    READER
        .get_or_init(tracetui::cli::PlanReader::new)
        .read(text)
}
