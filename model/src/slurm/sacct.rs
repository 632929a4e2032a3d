//! `sacct --parsable2` output, read by its header: the delimiter found
//! there, every field by its name, in any order; each line one record
//! (a job's allocation, or one of its steps).

use super::values;
use super::values::Unreadable;
use crate::input::InputError;
use crate::model::JobStatus;
use crate::text::sanitize;

/// The columns tracetui reads, as sacct names them (case does not matter).
const NEEDED: [&str; 5] = ["JobID", "State", "Submit", "Start", "End"];

/// The header: the delimiter and where each field is.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub delimiter: char,
    /// The field names, as written (sanitised).
    pub names: Vec<String>,
    /// Whether lines end with the delimiter too (`--parsable`, not `--parsable2`).
    trailing: bool,
}

impl Header {
    /// The header on `line` (line 1 of `file`), or why it is not one.
    pub(crate) fn read(line: &str, file: &str) -> Result<Header, InputError> {
        let err = |m: String| InputError::on_line(file, 1, m);
        let t = line.trim_end_matches(['\r', '\n']);
        if t.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            return Err(err(
                "the first line is a job, not sacct's header: run sacct without --noheader (tracetui reads the fields by their names)".into(),
            ));
        }
        let delimiter = ['|', ',', ';', '\t']
            .into_iter()
            .find(|d| t.contains(*d))
            .ok_or_else(|| {
                let fixed = t.split_whitespace().count() > 1;
                err(if fixed {
                    "sacct's fixed-width output (cut values end in '+'): run sacct --parsable2".into()
                } else {
                    format!("'{}' is not sacct's header (JobID|…|State|Submit|Start|End|AllocTRES): run sacct --parsable2 --format=…", sanitize(t))
                })
            })?;
        let trailing = t.ends_with(delimiter);
        let body = if trailing { &t[..t.len() - 1] } else { t };
        let names: Vec<String> = body.split(delimiter).map(|n| sanitize(n.trim())).collect();
        let h = Header {
            delimiter,
            names,
            trailing,
        };
        let missing: Vec<&str> = NEEDED
            .iter()
            .copied()
            .filter(|n| h.col(n).is_none())
            .collect();
        if !missing.is_empty() {
            return Err(err(format!(
                "sacct's header has no {} field: run sacct --parsable2 --format=JobID,JobIDRaw,JobName,User,Account,Partition,QOS,State,ExitCode,Submit,Eligible,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqTRES,AllocTRES,NodeList",
                missing.join(", ")
            )));
        }
        if h.col("AllocTRES").is_none() && h.col("ReqTRES").is_none() {
            return Err(err(
                "sacct's header has neither AllocTRES nor ReqTRES: the GPUs are unknown (add them to --format)".into(),
            ));
        }
        Ok(h)
    }

    /// The index of the field `name`.
    pub(crate) fn col(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }

    /// A line's fields, or why they do not fit the header.
    pub(crate) fn split<'a>(&self, line: &'a str) -> Result<Vec<&'a str>, Unreadable> {
        let t = line.trim_end_matches(['\r', '\n']);
        let t = if self.trailing {
            t.strip_suffix(self.delimiter).unwrap_or(t)
        } else {
            t
        };
        let f: Vec<&str> = t.split(self.delimiter).collect();
        if f.len() != self.names.len() {
            return Err(Unreadable(format!(
                "{} fields, the header has {} (a value with a '{}' in it, or a cut line)",
                f.len(),
                self.names.len(),
                self.delimiter.escape_default()
            )));
        }
        Ok(f)
    }
}

/// What a job id says: `56_2+1.batch` is job 56, array task 2, het
/// component 1, step `batch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JobId {
    /// The job the record belongs to: the id without component or step
    /// (`56_2`, `60`).
    pub job: String,
    /// The het component (`+1`), if any.
    pub component: Option<u32>,
    /// The step (`batch`, `extern`, `0`), if the record is a step.
    pub step: Option<String>,
}

impl JobId {
    pub(crate) fn parse(id: &str) -> Result<JobId, Unreadable> {
        let id = id.trim();
        let (head, step) = match id.split_once('.') {
            Some((h, s)) => (h, Some(s.to_string())),
            None => (id, None),
        };
        let (job, component) = match head.split_once('+') {
            Some((j, c)) => (
                j,
                Some(
                    c.parse::<u32>()
                        .map_err(|_| Unreadable(format!("'{id}': +{c} is not a het component")))?,
                ),
            ),
            None => (head, None),
        };
        let number = job.split('_').next().unwrap_or("");
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Unreadable(format!(
                "'{}' is not a Slurm job id",
                sanitize(id)
            )));
        }
        Ok(JobId {
            job: job.to_string(),
            component,
            step,
        })
    }
}

/// One line of sacct, read.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub line: u64,
    pub id: JobId,
    pub state: &'static str,
    pub status: JobStatus,
    pub submit: Option<i64>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// GPUs given (AllocTRES) where it started, else asked (ReqTRES), and their type.
    pub gpus: u32,
    pub gpu_type: Option<String>,
    /// The type the request named (`--gres=gpu:a100:4`): a constraint.
    pub asked_type: Option<String>,
    pub nodes: Vec<String>,
    pub timelimit: Option<i64>,
    /// Whether Slurm gave it anything (a refused job has a Start, no allocation).
    pub allocated: bool,
    pub user: String,
    pub account: String,
}

/// Reads one line's fields (`f`, split by `h`) at `line`, in `zone`.
pub(crate) fn record(
    h: &Header,
    f: &[&str],
    line: u64,
    zone: chrono_tz::Tz,
) -> Result<Record, (String, Unreadable)> {
    let get = |n: &str| h.col(n).map_or("", |i| f[i].trim());
    let at = |n: &str| n.to_string();
    let id = JobId::parse(get("JobID")).map_err(|m| (at("JobID"), m))?;
    let (state, status) = values::state(get("State")).map_err(|m| (at("State"), m))?;
    let time = |n: &str| values::time(get(n), zone).map_err(|m| (at(n), m));
    let (submit, start, end) = (time("Submit")?, time("Start")?, time("End")?);
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err((at("End"), Unreadable("before Start".into())));
        }
    }
    let tres = |n: &str| values::gpus(get(n)).map_err(|m| (at(n), m));
    let asked = tres("ReqTRES")?;
    let given = tres("AllocTRES")?;
    let (gpus, gpu_type) = match (start, given, &asked) {
        (Some(_), Some(g), _) => g,
        (_, _, Some(a)) => a.clone(),
        (_, Some(g), None) => g,
        _ => (0, None),
    };
    let nodes = super::hostlist::expand(get("NodeList")).map_err(|m| {
        let list = sanitize(get("NodeList"));
        (
            at("NodeList"),
            Unreadable(format!("cannot expand '{list}': {m}")),
        )
    })?;
    let timelimit = values::duration(get("Timelimit")).map_err(|m| (at("Timelimit"), m))?;
    // A job refused at submission has a Start (= its Submit) but was never
    // given anything: no AllocTRES, no nodes.
    let allocated = match (h.col("AllocTRES"), h.col("NodeList")) {
        (Some(i), _) => !f[i].trim().is_empty(),
        (None, Some(_)) => !nodes.is_empty(),
        (None, None) => start.is_some(),
    };
    Ok(Record {
        line,
        id,
        state,
        status,
        submit,
        start,
        end,
        gpus,
        gpu_type,
        asked_type: asked.and_then(|a| a.1),
        nodes,
        timelimit,
        allocated,
        user: sanitize(get("User")),
        account: sanitize(get("Account")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_gives_the_delimiter_and_the_fields_in_any_order() {
        let h = Header::read("State|JobID|Start|End|Submit|AllocTRES", "f").unwrap();
        assert_eq!(
            (h.delimiter, h.col("jobid"), h.col("AllocTRES")),
            ('|', Some(1), Some(5))
        );
        let h = Header::read("JobID,State,Submit,Start,End,ReqTRES", "f").unwrap();
        assert_eq!(h.delimiter, ',');
        let h = Header::read("JobID|State|Submit|Start|End|AllocTRES|", "f").unwrap();
        assert_eq!(
            h.split("1|COMPLETED|a|b|c|d|").unwrap().len(),
            6,
            "--parsable"
        );
        assert!(h
            .split("1|COMPLETED|a|b")
            .unwrap_err()
            .contains("4 fields, the header has 6"));
    }

    #[test]
    fn what_is_not_a_header_says_what_to_run() {
        for (text, why) in [
            ("49|49|train-big|alice", "run sacct without --noheader"),
            ("JobID    JobName  State", "fixed-width"),
            ("JobID|State|Submit|Start|AllocTRES", "no End field"),
            (
                "JobID|State|Submit|Start|End",
                "neither AllocTRES nor ReqTRES",
            ),
            ("hello", "not sacct's header"),
        ] {
            let e = Header::read(text, "f").unwrap_err().to_string();
            assert!(e.starts_with("f:1: ") && e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn job_ids_name_the_job_its_component_and_its_step() {
        let id = JobId::parse("56_2+1.batch").unwrap();
        assert_eq!(
            (id.job.as_str(), id.component, id.step.as_deref()),
            ("56_2", Some(1), Some("batch"))
        );
        assert_eq!(JobId::parse("49").unwrap().step, None);
        assert_eq!(JobId::parse("56_[0-3]").unwrap().job, "56_[0-3]");
        assert!(JobId::parse("x.batch")
            .unwrap_err()
            .contains("not a Slurm job id"));
    }
}
