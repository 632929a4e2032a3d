//! Teaching scenarios for `tracetui lesson NAME|FILE`: a small trace made
//! to show one effect, a policy schedule that switches at the right
//! moments, and captions that say what to watch. Every lesson is a TOML
//! file (`file.rs` reads one): the built-ins in `builtin/`, compiled in,
//! and a lecturer's own read the same way.

mod file;
mod inflated;

use crate::sim::Placement;
use crate::trace::{
    attach_speeds, parse_throughput_table, Format, InputError, LoadOptions, LoadReport, Secs,
    ThroughputTables, Trace,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub use file::LessonError;

/// The built-in lessons' files, in the order listed.
const BUILTIN: [(&str, &str); 4] = [
    ("hol", include_str!("builtin/hol.toml")),
    ("starvation", include_str!("builtin/starvation.toml")),
    ("fragmentation", include_str!("builtin/fragmentation.toml")),
    ("deadlines", include_str!("builtin/deadlines.toml")),
];

/// (trace second, caption), in time order.
pub type Captions = Vec<(Secs, String)>;

pub struct Lesson {
    pub name: String,
    pub title: String,
    /// What it shows, in a line (for the list).
    pub about: String,
    /// Cluster: GPUs and GPUs per machine.
    pub gpus: u32,
    pub per_node: u32,
    pub placement: Placement,
    /// `--policy-schedule` text.
    pub schedule: String,
    pub captions: Captions,
    /// Captions for the run under another placement (`--placement`).
    pub other_placements: Vec<(Placement, Captions)>,
    jobs: Jobs,
}

/// Where a lesson's jobs come from.
#[derive(Debug, Clone, PartialEq)]
enum Jobs {
    /// (submit, run time, GPUs) of every job: rigid, at their recorded length.
    Rigid(Vec<(Secs, Secs, u32)>),
    /// Elastic jobs of one model run from a throughput table.
    Elastic(Elastic),
    /// A trace file (`FORMAT:PATH`, the path from the lesson file's folder).
    Trace(Format, PathBuf),
    /// `gen itp`'s jobs for a seed, at an offered load on the lesson's GPUs.
    Gen { jobs: u64, seed: u64, load: f64 },
    /// FGD's arrival-only run of a trace of pods, in time (`inflated.rs`).
    Inflate {
        format: Format,
        path: PathBuf,
        seed: u64,
        tune: f64,
        every: Secs,
    },
}

/// An elastic lesson's model, its table (ElasticFlow's layout) and jobs:
/// (id, submit, iterations, deadline).
#[derive(Debug, Clone, PartialEq)]
struct Elastic {
    model: String,
    table: String,
    jobs: Vec<(String, Secs, u64, Secs)>,
}

/// When the deadlines lesson plays its jobs again, under elasticflow.
pub const DEADLINES_PART2: Secs = 3 * 3600;

impl Lesson {
    /// The captions for its run under `placement`: its own, those it has
    /// for that placement, or none (its captions tell of another run).
    pub fn captions_for(&self, placement: Placement) -> Option<&Captions> {
        if placement == self.placement {
            return Some(&self.captions);
        }
        self.other_placements
            .iter()
            .find(|(p, _)| *p == placement)
            .map(|(_, c)| c)
    }

    /// A built-in lesson's trace (they are well formed: tested).
    pub fn trace(&self) -> (Trace, LoadReport) {
        self.load_trace().expect("the built-in lessons load")
    }

    /// The lesson's trace: its jobs as an ITP CSV loaded like any other
    /// (with its throughput table, for an elastic lesson), a trace file,
    /// or `gen`'s jobs; its cluster said as the lesson's (the loader says
    /// `--gpus`, a flag `lesson` has not).
    pub fn load_trace(&self) -> Result<(Trace, LoadReport), InputError> {
        let (mut trace, mut report) = self.load_jobs()?;
        let origin = trace.cluster.origin.clone();
        if origin.ends_with("(--gpus)") {
            let ours = format!(
                "cluster: {} GPUs, {} per machine (the lesson's)",
                self.gpus, self.per_node
            );
            for n in report.notes.iter_mut().filter(|n| **n == origin) {
                *n = ours.clone();
            }
            trace.cluster.origin = ours;
        }
        Ok((trace, report))
    }

    fn load_jobs(&self) -> Result<(Trace, LoadReport), InputError> {
        let opts = LoadOptions {
            gpus: Some(self.gpus),
            gpus_per_node: self.per_node,
            ..LoadOptions::default()
        };
        let itp = Format::find("itp").expect("the ITP format is registered");
        let label = format!("lesson {}", self.name);
        match &self.jobs {
            Jobs::Rigid(jobs) => itp.load_text(rigid_csv(jobs.clone()).as_bytes(), &label, &opts),
            Jobs::Trace(format, path) => format.load(path, &opts),
            Jobs::Inflate {
                format,
                path,
                seed,
                tune,
                every,
            } => inflated::inflated(*format, path, *seed, *tune, *every),
            Jobs::Gen { jobs, seed, load } => {
                let g = crate::gen::itp::GenOptions {
                    jobs: *jobs,
                    seed: *seed,
                    schema: crate::gen::itp::Schema::Raw,
                    target: Some((self.gpus, *load)),
                };
                let mut v = Vec::new();
                crate::gen::itp::write(&g, &mut v)
                    .map_err(|e| InputError::file(&label, e.to_string()))?;
                itp.load_text(&v, &label, &opts)
            }
            Jobs::Elastic(e) => {
                let (mut trace, mut report) =
                    itp.load_text(elastic_csv(e).as_bytes(), &label, &opts)?;
                let table =
                    parse_throughput_table(e.table.as_bytes(), &format!("{}.csv", e.model))?;
                let tables = ThroughputTables {
                    gpu_type: None,
                    dir: PathBuf::from(&label),
                    models: [(e.model.clone(), table)].into(),
                    derived: None,
                };
                for line in attach_speeds(&mut trace, vec![tables])? {
                    report.note(line);
                }
                Ok((trace, report))
            }
        }
    }

    /// A lesson file a lecturer wrote (`tracetui lesson FILE`).
    pub fn from_file(path: &Path) -> Result<Lesson, LessonError> {
        file::read(path)
    }
}

/// Rigid jobs as ITP rows, with ids that say what each job is:
/// `07·4g·10m` is the 7th job, 4 GPUs for 10 minutes.
fn rigid_csv(mut jobs: Vec<(Secs, Secs, u32)>) -> String {
    let mut csv = String::from("job_id,submission_time,duration,num_gpu\n");
    jobs.sort_by_key(|j| j.0);
    for (i, (s, r, g)) in jobs.iter().enumerate() {
        let d = match r {
            r if r % 3600 == 0 => format!("{}h", r / 3600),
            r if r % 60 == 0 => format!("{}m", r / 60),
            r => format!("{r}s"),
        };
        let _ = writeln!(csv, "{:02}·{g}g·{d},{s},{r},{g}", i + 1);
    }
    csv
}

/// Elastic jobs as rows of ElasticFlow's schema: each asks for one GPU and
/// may hold as many as its table goes to; its recorded duration is its
/// time on one (at the table's first rate).
fn elastic_csv(e: &Elastic) -> String {
    let one: f64 = e
        .table
        .lines()
        .nth(1)
        .and_then(|l| l.split(',').nth(1))
        .and_then(|r| r.trim().parse().ok())
        .filter(|r: &f64| *r > 0.0)
        .unwrap_or(1.0);
    let mut csv = String::from(
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n",
    );
    for (id, submit, work, deadline) in &e.jobs {
        let one_gpu = (*work as f64 / one).ceil() as u64;
        let _ = writeln!(
            csv,
            "{id},{submit},{work},{},{deadline},64,1,{one_gpu}",
            e.model
        );
    }
    csv
}

/// The built-in lessons, read from their files (a few kilobytes of TOML
/// embedded in the program: read when asked, kept nowhere).
pub fn builtins() -> Vec<Lesson> {
    BUILTIN
        .iter()
        .map(|(name, text)| builtin(name, text))
        .collect()
}

/// The built-in lessons' names, in the order listed.
pub fn names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(name, _)| *name).collect()
}

/// A lesson as it plays on its own — its trace, its schedule and
/// placement, its captions and the header's label — as `:lesson NAME`
/// opens it in the replay (`tracetui lesson` adds its overrides).
pub fn own_run(l: &Lesson) -> color_eyre::eyre::Result<(crate::spec::RunSpec, Captions, String)> {
    let (trace, _) = l.load_trace()?;
    let trace = std::sync::Arc::new(trace);
    let schedule =
        crate::sim::Schedule::parse(&trace, &l.schedule).map_err(color_eyre::eyre::Report::msg)?;
    let policy = schedule.start.unwrap_or(crate::sim::Policy::Fifo);
    let spec = crate::spec::RunSpec::new(trace, policy)
        .with_placement(l.placement)
        .with_schedule(Some(schedule));
    Ok((spec, l.captions.clone(), l.label(false)))
}

impl Lesson {
    /// The header's label: its name and title (`yours`: under a schedule
    /// of your own). The placement is the header's own, beside the policy.
    pub fn label(&self, yours: bool) -> String {
        match yours {
            true => format!("lesson {} · your schedule", self.name),
            false => format!("lesson {} · {}", self.name, self.title),
        }
    }
}

/// The built-in lesson called `name` (each is listed by its own name).
pub fn find(name: &str) -> Option<Lesson> {
    let (file, text) = BUILTIN.iter().find(|(file, _)| *file == name)?;
    Some(builtin(file, text))
}

/// A built-in lesson's file, read (a test reads every one: none fails).
fn builtin(name: &str, text: &str) -> Lesson {
    file::parse(text, Path::new(".")).unwrap_or_else(|e| panic!("built-in lesson {name}: {e}"))
}

/// `tracetui lesson`: the list.
pub fn listing() -> String {
    let mut o = String::from(
        "Lessons (tracetui lesson NAME, or a lesson file: tracetui lesson my.toml; L toggles the lecture layout):\n",
    );
    for l in builtins() {
        let _ = writeln!(o, "  {:<14} {}", l.name, l.title);
        let _ = writeln!(o, "  {:<14} {}", "", l.about);
    }
    o
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_built_in_lesson_is_listed_by_its_own_name() {
        for (listed, text) in super::BUILTIN {
            let l = super::builtin(listed, text);
            assert_eq!(l.name, listed);
            assert_eq!(super::find(listed).map(|f| f.name), Some(l.name));
        }
        assert!(super::find("no-such-lesson").is_none());
    }
}
