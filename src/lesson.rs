//! Teaching scenarios for `tracetui lesson NAME`: a small trace made to
//! show one effect, a policy schedule that switches at the right moments,
//! and captions that say what to watch.

use crate::sim::Placement;
use crate::trace::model::Secs;
use crate::trace::speed::attach;
use crate::trace::throughput::{parse_table, Tables};
use crate::trace::{Format, LoadOptions, LoadReport, Trace};
use std::fmt::Write as _;

pub struct Lesson {
    pub name: &'static str,
    pub title: &'static str,
    /// What it shows, in a line (for the list).
    pub about: &'static str,
    /// Cluster: GPUs and GPUs per machine.
    pub gpus: u32,
    pub per_node: u32,
    pub placement: Placement,
    /// `--policy-schedule` text.
    pub schedule: &'static str,
    /// (trace second, caption), in time order.
    pub captions: &'static [(Secs, &'static str)],
    /// Captions for the run under another placement (`--placement`).
    pub other_placements: &'static [(Placement, Captions)],
    jobs: Jobs,
}

/// (trace second, caption), in time order.
pub type Captions = &'static [(Secs, &'static str)];

/// A lesson's jobs.
#[derive(Clone, Copy)]
enum Jobs {
    /// (submit, run time, GPUs) of every job: rigid, at their recorded length.
    Rigid(fn() -> Vec<(Secs, Secs, u32)>),
    /// (id, submit, iterations, deadline) of every job: elastic jobs of
    /// the lesson's one model, run from `ELASTIC_TABLE`.
    Elastic(fn() -> Vec<ElasticJob>),
}

/// An elastic lesson job: (id, submit, iterations, deadline).
type ElasticJob = (&'static str, Secs, u64, Secs);

/// The elastic lessons' throughput table (ElasticFlow's layout): one
/// model at a global batch size of 64, 10, 18, 30 and 40 iterations/s on
/// 1, 2, 4 and 8 GPUs — faster on more, but less than in proportion.
const ELASTIC_TABLE: &str = "global_batch_size,1,2,4,8\n64,10,18,30,40\n";
const ELASTIC_MODEL: &str = "resnet";

impl Lesson {
    /// The captions for its run under `placement`: its own, those it has
    /// for that placement, or none (its captions tell of another run).
    pub fn captions_for(&self, placement: Placement) -> Option<Captions> {
        if placement == self.placement {
            return Some(self.captions);
        }
        self.other_placements
            .iter()
            .find(|(p, _)| *p == placement)
            .map(|(_, c)| *c)
    }

    /// The lesson's trace, as an ITP CSV loaded like any other (with its
    /// throughput table, for an elastic lesson).
    pub fn trace(&self) -> (Trace, LoadReport) {
        let csv = match self.jobs {
            Jobs::Rigid(jobs) => rigid_csv(jobs()),
            Jobs::Elastic(jobs) => elastic_csv(jobs()),
        };
        let itp = Format::find("itp").expect("the ITP format is registered");
        let (mut trace, mut report) = itp
            .load_text(
                csv.as_bytes(),
                &format!("lesson {}", self.name),
                &LoadOptions {
                    gpus: Some(self.gpus),
                    gpus_per_node: self.per_node,
                    ..LoadOptions::default()
                },
            )
            .expect("lesson traces are well formed");
        if let Jobs::Elastic(_) = self.jobs {
            let table = parse_table(ELASTIC_TABLE.as_bytes(), "resnet.csv")
                .expect("the lesson's table is well formed");
            let tables = Tables {
                gpu_type: None,
                dir: std::path::PathBuf::from(format!("lesson {}", self.name)),
                models: [(ELASTIC_MODEL.to_string(), table)].into(),
            };
            for line in attach(&mut trace, vec![tables]).expect("the lesson's table fits") {
                report.note(line);
            }
        }
        (trace, report)
    }
}

/// Rigid jobs as ITP rows, with ids that say what each job is:
/// `07·4g·10m` is the 7th job, 4 GPUs for 10 minutes.
fn rigid_csv(mut jobs: Vec<(Secs, Secs, u32)>) -> String {
    let mut csv = String::from("job_id,submission_time,duration,num_gpu\n");
    jobs.sort_by_key(|j| j.0);
    for (i, (s, r, g)) in jobs.iter().enumerate() {
        // Ids that say what the job is: `07·4g·10m` is the 7th job, 4 GPUs for 10 minutes.
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
/// may hold up to eight; its recorded duration is its time on one.
fn elastic_csv(jobs: Vec<ElasticJob>) -> String {
    let mut csv = String::from(
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n",
    );
    for (id, submit, work, deadline) in jobs {
        let one_gpu = work.div_ceil(10);
        let _ = writeln!(
            csv,
            "{id},{submit},{work},{ELASTIC_MODEL},{deadline},64,1,{one_gpu}"
        );
    }
    csv
}

/// Head-of-line blocking: a 16-GPU job behind long one-GPU jobs, with small
/// jobs streaming in behind it, three times, under fifo, first-fit and
/// fifo-backfill.
fn hol_jobs() -> Vec<(Secs, Secs, u32)> {
    let mut v = Vec::new();
    for phase in 0..3 {
        let b = phase * 7200;
        for _ in 0..12 {
            v.push((b, 2400, 1));
        }
        v.push((b + 60, 600, 16));
        for k in 0..19 {
            v.push((b + 120 + k * 60, 300, 1));
        }
    }
    v
}

/// Starvation: a long 4-GPU job behind a steady stream of short 4-GPU jobs
/// on 8 GPUs: sjf never picks it; las does.
fn starvation_jobs() -> Vec<(Secs, Secs, u32)> {
    // Two short jobs at 0 fill the GPUs; then one every 5 minutes, so two
    // are always waiting when two end.
    let mut v = vec![(120, 3 * 3600, 4), (0, 600, 4)];
    for k in 0..24 {
        v.push((k * 300, 600, 4));
    }
    v
}

/// Fragmentation: one-GPU jobs arriving every two minutes and an 8-GPU job
/// every quarter hour on four 8-GPU machines.
fn fragmentation_jobs() -> Vec<(Secs, Secs, u32)> {
    let mut v = Vec::new();
    for k in 0..45 {
        v.push((k * 120, 1800, 1));
    }
    for k in 0..6 {
        v.push((300 + k * 900, 1200, 8));
    }
    v
}

/// Deadlines: five elastic jobs with deadlines, twice — under EDF, which
/// gives the most urgent job every GPU it can use and admits everything,
/// and under ElasticFlow, which gives each job the fewest GPUs that meet
/// its deadline and declines the one that cannot meet it.
fn deadline_jobs() -> Vec<ElasticJob> {
    let jobs = [
        (0, 60_000, 3600),
        (0, 30_000, 2400),
        (60, 25_000, 1860),
        (120, 20_000, 1620),
        (180, 90_000, 1380),
    ];
    let ids = [
        [
            "A1·due1h",
            "B1·due40m",
            "C1·due31m",
            "D1·due27m",
            "E1·due23m",
        ],
        [
            "A2·due1h",
            "B2·due40m",
            "C2·due31m",
            "D2·due27m",
            "E2·due23m",
        ],
    ];
    let mut v = Vec::new();
    for (part, offset) in [(0, 0), (1, DEADLINES_PART2)] {
        for (k, &(submit, work, due)) in jobs.iter().enumerate() {
            v.push((ids[part][k], submit + offset, work, due + offset));
        }
    }
    v
}

/// When the deadlines lesson plays its jobs again, under elasticflow.
pub const DEADLINES_PART2: Secs = 3 * 3600;

pub const LESSONS: [Lesson; 4] = [
    Lesson {
        name: "hol",
        title: "Head-of-line blocking: fifo, first-fit, fifo-backfill",
        about: "a 16-GPU job at the head of the queue holds back every small job behind it",
        gpus: 16,
        per_node: 8,
        placement: Placement::Consolidate,
        schedule: "start:fifo,2h:first-fit,4h:fifo-backfill",
        captions: &[
            (0, "Part 1, fifo. Twelve 40-minute one-GPU jobs take 12 of the 16 GPUs."),
            (60, "A 16-GPU job arrives. Under fifo it heads the queue and needs all 16 GPUs..."),
            (300, "...so every small job behind it waits too, though 4 GPUs are free: head-of-line blocking. Watch the queue grow."),
            (2400, "The long jobs end: the big job starts at last, and the queue drains behind it."),
            (7200, "Part 2, first-fit (the lesson's schedule switched the policy). The same pattern again."),
            (7320, "Small jobs start at once on the free GPUs: anything that fits may pass the big job."),
            (9600, "The big job still waits for the long jobs; with a busier stream it could wait for ever."),
            (14400, "Part 3, EASY backfill. The big job gets a reservation at the time enough GPUs will be free."),
            (14520, "Small jobs use the free GPUs only if they end before that reservation: no delay for the head."),
            (16800, "Compare the parts: p switches the policy yourself, w runs every policy from here, b steps back."),
        ],
        other_placements: &[],
        jobs: Jobs::Rigid(hol_jobs),
    },
    Lesson {
        name: "starvation",
        title: "Starvation under sjf, and Tiresias's las",
        about: "sjf keeps picking short jobs; a long one waits until they stop coming",
        gpus: 8,
        per_node: 8,
        placement: Placement::Consolidate,
        schedule: "start:sjf,1h:las",
        captions: &[
            (0, "Short 4-GPU jobs (10 minutes) fill the 8 GPUs; one more arrives every 5 minutes."),
            (120, "A long 4-GPU job (3 hours) arrives. sjf always prefers a shorter job..."),
            (600, "...so whenever 4 GPUs free up, a short job goes first: the long job starves."),
            (3600, "The schedule switches to las: priority by GPU-service attained so far; first come, first served within a queue."),
            (4200, "Two short jobs end. The long job has attained nothing and came first: it starts."),
            (5100, "After 15 minutes on 4 GPUs it has 3,600 GPU-seconds and drops to the lower queue: a waiting short job preempts it (a restart costs 30 s)."),
            (6900, "It has waited twice its run so far: the starvation guard (--las-starve) promotes it back to the first queue, for good."),
            (8400, "The short jobs have stopped; the long job runs to the end. w compares every policy from here; b steps back."),
        ],
        other_placements: &[],
        jobs: Jobs::Rigid(starvation_jobs),
    },
    Lesson {
        name: "fragmentation",
        title: "Fragmentation: spread vs pack with 8-GPU jobs",
        about: "one-GPU jobs spread over every machine leave no whole machine for 8-GPU jobs",
        gpus: 32,
        per_node: 8,
        placement: Placement::Spread,
        schedule: "start:first-fit",
        captions: &[
            (0, "Four 8-GPU machines. One-GPU jobs (30 minutes) arrive every 2 minutes; spread puts each on the emptiest machine."),
            (300, "The first 8-GPU job finds a machine still empty and starts."),
            (1200, "The next arrives with a small job on every machine: 13 GPUs are free, but no whole machine, so it waits. That is fragmentation."),
            (2100, "It keeps happening: each 8-GPU job waits 5 to 25 minutes for a machine to empty."),
            (3600, "Now run `tracetui lesson fragmentation --placement pack`: small jobs fill one machine at a time and every 8-GPU job starts on arrival."),
        ],
        other_placements: &[(Placement::Pack, FRAGMENTATION_PACKED)],
        jobs: Jobs::Rigid(fragmentation_jobs),
    },
    Lesson {
        name: "deadlines",
        title: "Deadlines and elastic jobs: edf vs ElasticFlow",
        about: "EDF gives the most urgent job every GPU and misses every deadline; ElasticFlow admits, shares and meets them",
        gpus: 8,
        per_node: 4,
        placement: Placement::Consolidate,
        schedule: "start:edf-elastic,2h:elasticflow",
        captions: &[
            (0, "Part 1, edf-elastic. Five elastic jobs with deadlines; on 1, 2, 4, 8 GPUs each runs 10, 18, 30, 40 iterations/s. B is due first: EDF gives it all 8 GPUs, A waits."),
            (60, "C arrives, due sooner (31 minutes in): EDF moves all 8 GPUs to it, and B goes back to the queue."),
            (120, "D, due sooner still, does the same to C."),
            (180, "E arrives due at 23 minutes, though even all 8 GPUs need 37.5 minutes for it. EDF admits everything: E takes every GPU."),
            (2430, "E ends, 17 minutes late. D, C, B and A follow one at a time, each on all 8 GPUs, and each misses its deadline: 0 of 5 met."),
            (10800, "Part 2, elasticflow (the schedule switched to it at 2h): the same five jobs. A and B start together, each on the fewest GPUs that meet its deadline; spare GPUs go where they gain most."),
            (10860, "C is admitted because every admitted job can still meet its deadline with it: the jobs share the GPUs, and they shrink to make room."),
            (10980, "E cannot meet its deadline even on all 8 GPUs: ElasticFlow declines it on arrival (dropped) instead of letting it make every job late."),
            (12062, "D ends, and A grows from 2 GPUs to 4 on the GPUs it leaves; as each job ends, the others grow."),
            (13096, "Every admitted job met its deadline: 4 of 5, against 0 of 5 under EDF. A splits the screen to watch both policies side by side; b steps back."),
        ],
        other_placements: &[],
        jobs: Jobs::Elastic(deadline_jobs),
    },
];

/// The fragmentation lesson under `--placement pack`: what that run shows
/// (tests/lessons.rs checks each fact).
const FRAGMENTATION_PACKED: Captions = &[
    (0, "Four 8-GPU machines, the same jobs, packed: each one-GPU job goes on the fullest machine with room."),
    (300, "The first 8-GPU job starts on arrival."),
    (1200, "The next arrives: the small jobs sit on two machines, the first 8-GPU job holds a third, the fourth is empty: it starts at once."),
    (2100, "Every 8-GPU job starts on arrival: packing keeps whole machines free (under spread, the lesson's own run, 5 of 6 waited)."),
];

pub fn find(name: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.name == name)
}

/// `tracetui lesson`: the list.
pub fn listing() -> String {
    let mut o = String::from("Lessons (tracetui lesson NAME; L toggles the lecture layout):\n");
    for l in &LESSONS {
        let _ = writeln!(o, "  {:<14} {}", l.name, l.title);
        let _ = writeln!(o, "  {:<14} {}", "", l.about);
    }
    o
}
