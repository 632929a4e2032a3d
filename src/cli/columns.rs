//! The summary's columns for scripts, written once: `sim` and `compare`
//! with `--format csv` and a sweep run's record take their names, order
//! and values from [`COLUMNS`] (`results.csv` joins the records' columns
//! in the order they first appear). Adding a metric column
//! is one entry here (its number is a field of `sim::Report`, which the
//! JSON summary serialises as it is).

use crate::sim::{Report, Summary};

/// One column of the summary.
pub(crate) struct Column {
    /// Its header, as scripts read it.
    pub name: &'static str,
    /// Where a document has it only when some run has it (deadlines,
    /// energy, throughput tables, an external program): whether this run
    /// does. `None`: every document has it.
    pub when: Option<fn(&Report) -> bool>,
    /// Its value in a run's row (empty where there is none).
    pub value: fn(&Report) -> String,
}

/// A number as scripts read it (Rust's shortest round-trip form), or empty.
fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x}"))
}

fn count(v: u64) -> String {
    v.to_string()
}

fn mean(s: &Summary) -> String {
    num(s.mean)
}
fn p50(s: &Summary) -> String {
    num(s.p50)
}
fn p95(s: &Summary) -> String {
    num(s.p95)
}
fn p99(s: &Summary) -> String {
    num(s.p99)
}

fn deadlines(r: &Report) -> bool {
    r.deadline_met.is_some()
}
fn admitted(r: &Report) -> bool {
    r.deadline_admitted.is_some()
}
/// Runs from throughput tables may drop and resize jobs: they say how many.
fn speed_model(r: &Report) -> bool {
    r.speed_model
}
fn energy(r: &Report) -> bool {
    r.energy_kwh.is_some()
}
fn external(r: &Report) -> bool {
    r.command.is_some()
}

/// Every column, in order; those shown only for some runs come after the
/// rest, an external policy's program last (the longest field).
pub(crate) const COLUMNS: &[Column] = &[
    Column {
        name: "policy",
        when: None,
        value: |r| r.policy.clone(),
    },
    Column {
        name: "placement",
        when: None,
        value: |r| r.placement.clone(),
    },
    Column {
        name: "gpus",
        when: None,
        value: |r| count(r.gpus),
    },
    Column {
        name: "gpus_per_node",
        when: None,
        value: |r| r.gpus_per_node.map_or(String::new(), |g| g.to_string()),
    },
    Column {
        name: "jobs",
        when: None,
        value: |r| count(r.jobs),
    },
    Column {
        name: "jobs_done",
        when: None,
        value: |r| count(r.jobs_done),
    },
    Column {
        name: "jobs_rejected",
        when: None,
        value: |r| count(r.jobs_rejected),
    },
    // Every summary has it, with or without tables: jobs done, rejected,
    // dropped and unfinished add up to the jobs.
    Column {
        name: "jobs_dropped",
        when: None,
        value: |r| count(r.jobs_dropped),
    },
    Column {
        name: "jobs_unfinished",
        when: None,
        value: |r| count(r.jobs_unfinished),
    },
    Column {
        name: "makespan_s",
        when: None,
        value: |r| r.makespan_s.map_or(String::new(), |m| m.to_string()),
    },
    Column {
        name: "jct_mean_s",
        when: None,
        value: |r| mean(&r.jct_s),
    },
    Column {
        name: "jct_p50_s",
        when: None,
        value: |r| p50(&r.jct_s),
    },
    Column {
        name: "jct_p95_s",
        when: None,
        value: |r| p95(&r.jct_s),
    },
    Column {
        name: "jct_p99_s",
        when: None,
        value: |r| p99(&r.jct_s),
    },
    Column {
        name: "wait_mean_s",
        when: None,
        value: |r| mean(&r.wait_s),
    },
    Column {
        name: "wait_p50_s",
        when: None,
        value: |r| p50(&r.wait_s),
    },
    Column {
        name: "wait_p95_s",
        when: None,
        value: |r| p95(&r.wait_s),
    },
    Column {
        name: "wait_p99_s",
        when: None,
        value: |r| p99(&r.wait_s),
    },
    Column {
        name: "slowdown_mean",
        when: None,
        value: |r| mean(&r.slowdown),
    },
    Column {
        name: "slowdown_p50",
        when: None,
        value: |r| p50(&r.slowdown),
    },
    Column {
        name: "slowdown_p95",
        when: None,
        value: |r| p95(&r.slowdown),
    },
    Column {
        name: "slowdown_p99",
        when: None,
        value: |r| p99(&r.slowdown),
    },
    Column {
        name: "bounded_slowdown_mean",
        when: None,
        value: |r| mean(&r.bounded_slowdown),
    },
    Column {
        name: "bounded_slowdown_p50",
        when: None,
        value: |r| p50(&r.bounded_slowdown),
    },
    Column {
        name: "bounded_slowdown_p95",
        when: None,
        value: |r| p95(&r.bounded_slowdown),
    },
    Column {
        name: "bounded_slowdown_p99",
        when: None,
        value: |r| p99(&r.bounded_slowdown),
    },
    Column {
        name: "gpu_util",
        when: None,
        value: |r| num(r.gpu_util),
    },
    Column {
        name: "preemptions",
        when: None,
        value: |r| count(r.preemptions),
    },
    Column {
        name: "offered_load_gpus",
        when: None,
        value: |r| num(r.offered_load_gpus),
    },
    Column {
        name: "deadline_met",
        when: Some(deadlines),
        value: |r| num(r.deadline_met),
    },
    Column {
        name: "deadline_admitted",
        when: Some(admitted),
        value: |r| num(r.deadline_admitted),
    },
    Column {
        name: "fragmentation_mean",
        when: Some(|r| r.fragmentation.is_some()),
        value: |r| num(r.fragmentation.map(|f| f.mean_pct)),
    },
    Column {
        name: "fragmentation_max",
        when: Some(|r| r.fragmentation.is_some()),
        value: |r| num(r.fragmentation.map(|f| f.max_pct)),
    },
    Column {
        name: "unallocated_gpus_mean",
        when: Some(|r| r.fragmentation.is_some()),
        value: |r| num(r.fragmentation.map(|f| f.unallocated_gpus_mean)),
    },
    Column {
        name: "jobs_across_types",
        when: Some(|r| r.jobs_across_types.is_some()),
        value: |r| r.jobs_across_types.map(count).unwrap_or_default(),
    },
    Column {
        name: "resizes",
        when: Some(speed_model),
        value: |r| count(r.resizes),
    },
    Column {
        name: "jobs_cut_short",
        when: Some(|r| r.jobs_cut_short > 0),
        value: |r| count(r.jobs_cut_short),
    },
    Column {
        name: "energy_kwh",
        when: Some(energy),
        value: |r| num(r.energy_kwh),
    },
    Column {
        name: "avg_power_w",
        when: Some(energy),
        value: |r| num(r.avg_power_w),
    },
    Column {
        name: "command",
        when: Some(external),
        value: |r| r.command.clone().unwrap_or_default(),
    },
    Column {
        name: "estimate",
        when: Some(|r| r.estimate.is_some()),
        value: |r| r.estimate.clone().unwrap_or_default(),
    },
];

/// The columns a document of `reports` has: every column some run has.
pub(crate) fn shown(reports: &[Report]) -> Vec<&'static Column> {
    COLUMNS
        .iter()
        .filter(|c| c.when.is_none_or(|has| reports.iter().any(has)))
        .collect()
}

/// One run's (column, value) pairs, as its own document would have them.
pub(crate) fn row(report: &Report) -> Vec<(String, String)> {
    shown(std::slice::from_ref(report))
        .into_iter()
        .map(|c| (c.name.to_string(), (c.value)(report)))
        .collect()
}

/// The CSV summary of `reports`: a header, a row per run; with `meta`
/// (compact JSON) as the last column of every row.
pub(crate) fn csv(reports: &[Report], meta: Option<&str>) -> String {
    let columns = shown(reports);
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<&str> = columns.iter().map(|c| c.name).collect();
    header.extend(meta.map(|_| "meta"));
    // Writing to memory fails only on a bug; the text stays whole anyway.
    let _ = w.write_record(&header);
    for r in reports {
        let mut fields: Vec<String> = columns.iter().map(|c| (c.value)(r)).collect();
        fields.extend(meta.map(str::to_string));
        let _ = w.write_record(&fields);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            policy: "fifo".into(),
            command: None,
            placement: "consolidate".into(),
            rounds_s: None,
            cpu_mem: false,
            estimate: None,
            speed_model: false,
            gpus: 8,
            gpus_per_node: Some(8),
            offered_load_gpus: Some(6.0),
            jobs: 1,
            jobs_done: 1,
            jobs_rejected: 0,
            jobs_dropped: 0,
            jobs_across_types: None,
            jobs_unfinished: 0,
            makespan_s: Some(10),
            jct_s: Summary::of(&[10.0]),
            wait_s: Summary::of(&[0.0]),
            slowdown: Summary::of(&[1.0]),
            bounded_slowdown: Summary::of(&[1.0]),
            gpu_util: Some(0.5),
            peak_queue: 0,
            overflow_segments: 0,
            preemptions: 0,
            resizes: 0,
            jobs_cut_short: 0,
            deadline_met: None,
            deadline_admitted: None,
            energy_kwh: None,
            avg_power_w: None,
            fragmentation: None,
            failed: None,
        }
    }

    fn read(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        let header = rdr.headers().unwrap().iter().map(String::from).collect();
        let rows = rdr
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        (header, rows)
    }

    #[test]
    fn a_label_with_commas_and_quotes_is_one_field() {
        let mut r = report();
        r.policy = "schedule: fifo, then sjf at \"day 2\"".into();
        let (header, rows) = read(&csv(&[r.clone()], None));
        assert_eq!(rows[0].len(), header.len());
        assert_eq!(rows[0][0], r.policy);
    }

    #[test]
    fn a_column_some_runs_have_is_in_every_row_and_empty_where_missing() {
        let a = report();
        let mut b = report();
        b.deadline_met = Some(0.25);
        b.command = Some("python3 p.py".into());
        let (header, rows) = read(&csv(&[a.clone(), b], Some("{\"x\":1}")));
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        assert_eq!(rows[0][at("deadline_met")], "");
        assert_eq!(rows[1][at("deadline_met")], "0.25");
        assert_eq!(rows[1][at("command")], "python3 p.py");
        assert_eq!(header.last().unwrap(), "meta");
        assert_eq!(rows[0][at("meta")], "{\"x\":1}");
        assert!(!header.contains(&"energy_kwh".to_string()));
        // A run alone has only its own columns.
        let names: Vec<String> = row(&a).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 29);
        assert!(names.contains(&"jobs_dropped".to_string()), "always");
        assert!(!names.contains(&"deadline_met".to_string()));
    }

    #[test]
    fn every_number_of_the_json_summary_is_a_column() {
        // Every field shown: JSON leaves out what a run does not have.
        let mut r = report();
        r.command = Some("python3 p.py".into());
        r.speed_model = true;
        r.jobs_dropped = 1;
        r.resizes = 1;
        r.deadline_met = Some(0.5);
        r.deadline_admitted = Some(0.5);
        r.energy_kwh = Some(1.0);
        r.avg_power_w = Some(1.0);
        let json = serde_json::to_value(&r).unwrap();
        let names: Vec<String> = row(&r).into_iter().map(|(n, _)| n).collect();
        for (key, value) in json.as_object().unwrap() {
            let wanted: Vec<String> = match value.as_object() {
                // A distribution: a column per statistic (jct_s: jct_mean_s …).
                Some(parts) => parts
                    .keys()
                    .map(|p| match key.strip_suffix("_s") {
                        Some(stem) => format!("{stem}_{p}_s"),
                        None => format!("{key}_{p}"),
                    })
                    .collect(),
                None => vec![key.clone()],
            };
            for w in wanted {
                assert!(names.contains(&w), "the JSON has {key}, no column {w}");
            }
        }
    }

    #[test]
    fn every_column_has_its_own_name() {
        for (i, c) in COLUMNS.iter().enumerate() {
            assert!(
                COLUMNS[..i].iter().all(|d| d.name != c.name),
                "{} twice",
                c.name
            );
        }
    }
}
