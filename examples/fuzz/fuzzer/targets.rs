//! What is fuzzed: each loader with its seed directory, the files whose
//! mutations it reads, and — for what loads — the rest of the path a user's
//! input takes (stats, drill-down, background indexes, a replay to the end).

use std::path::Path;
use tracetui::trace::{Format, LoadOptions};

pub struct Target {
    pub name: &'static str,
    format: &'static str,
    /// The seed directory, from the repository root.
    dir: &'static str,
    /// The files of `dir` that are mutated (the others are copied as they are).
    mutated: &'static [&'static str],
    /// Whether the loader takes the directory (else the first mutated file).
    takes_dir: bool,
}

pub static TARGETS: [Target; 5] = [
    Target {
        name: "itp",
        format: "itp",
        dir: "tests/fixtures/itp",
        mutated: &["trace.csv"],
        takes_dir: false,
    },
    Target {
        name: "acme",
        format: "acme",
        dir: "tests/fixtures/acme",
        mutated: &["trace_seren.csv"],
        takes_dir: false,
    },
    Target {
        name: "zeus",
        format: "zeus",
        dir: "tests/fixtures/zeus",
        mutated: &[
            "alibaba_groups.csv",
            "summary_train.csv",
            "summary_power_v100.csv",
        ],
        takes_dir: true,
    },
    Target {
        name: "philly",
        format: "philly",
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
        format: "pai",
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

    /// Loads what `dir` holds; with `deep`, a trace that loads also goes
    /// through its stats, drill-downs, background indexes and (when small) a
    /// replay to the end. `true` when it loaded.
    pub fn exec(&self, dir: &Path, deep: bool) -> bool {
        let Some(format) = Format::find(self.format) else {
            return false;
        };
        let path = if self.takes_dir {
            dir.to_path_buf()
        } else {
            dir.join(self.mutated[0])
        };
        let opts = LoadOptions::default();
        let Ok((trace, _)) = format.load(&path, &opts) else {
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
        if trace.jobs.len() <= 200 && trace.cluster.total_gpus() <= 1 << 16 {
            let trace = std::sync::Arc::new(trace);
            for p in [tracetui::sim::Policy::Fifo, tracetui::sim::Policy::Las] {
                let _ = tracetui::sim::run(trace.clone(), p, tracetui::sim::Placement::Consolidate);
            }
        }
        true
    }
}
