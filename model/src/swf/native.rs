//! An SWF log's own lines behind `NativeTables`: each job's line as
//! written, with its partial executions, its fields named, its status and
//! times read out.

use super::FIELDS;
use crate::fields::Row;
use crate::input::InputError;
use crate::model::{Job, Trace, Zone};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The log's lines, as read.
#[derive(Debug, Default)]
pub(crate) struct SwfTables {
    /// Each data line filed, as written (sanitised).
    pub rows: Vec<Box<str>>,
    /// Its line number in the file.
    pub lines: Vec<u64>,
    /// Its job number.
    pub numbers: Vec<i64>,
    /// Jobs by the status their summary line gives (`completed`, …).
    pub statuses: BTreeMap<&'static str, u64>,
    /// The header's `Key: value` comments, in file order.
    pub header: Vec<(String, String)>,
}

impl SwfTables {
    /// Keeps a line of job `number`; its row.
    pub(super) fn push_row(&mut self, row: &Row<super::Words>, number: i64) -> u32 {
        let text = String::from_utf8_lossy(&row.record.line);
        self.rows.push(crate::text::sanitize(text.trim()).into());
        self.lines.push(row.line);
        self.numbers.push(number);
        (self.rows.len() - 1) as u32
    }

    /// A row's fields by name: numbers as numbers, −1 as null (unknown).
    fn fields(&self, row: usize) -> Value {
        let mut m = Map::new();
        for (name, v) in FIELDS.iter().zip(self.rows[row].split_ascii_whitespace()) {
            let value = match v.parse::<f64>() {
                Ok(x) if x < 0.0 => Value::Null,
                Ok(x) if x.fract() == 0.0 && x.abs() < 1e15 => (x as i64).into(),
                Ok(x) if x.is_finite() => x.into(),
                _ => v.into(),
            };
            m.insert(name.to_string(), value);
        }
        Value::Object(m)
    }

    /// Job `number`'s detail: its summary line (row `first`) and any
    /// partial executions after it.
    fn detail(&self, first: usize, trace: &Trace) -> Value {
        let number = self.numbers[first];
        let partials: Vec<Value> = (first + 1..self.rows.len())
            .filter(|&r| self.numbers[r] == number)
            .map(|r| json!({ "line": self.lines[r], "fields": self.fields(r) }))
            .collect();
        let f = self.fields(first);
        // The log counts from its UnixStartTime where it has a calendar.
        let offset = match trace.zone {
            Zone::Relative => 0,
            _ => origin(self),
        };
        let first_submit = trace.first_submit().unwrap_or(0);
        let at = |secs: Option<i64>| secs.map(|s| when(trace.zone, first_submit, s + offset));
        let submit = f["submit_time"].as_i64();
        let start = submit.zip(f["wait_time"].as_i64()).map(|(s, w)| s + w);
        let mut d = json!({
            "line": self.lines[first],
            "job": f,
            "status": status_words(f["status"].as_i64()),
            "submitted": at(submit),
            "started": at(start),
        });
        if !partials.is_empty() {
            d["partial_executions"] = partials.into();
        }
        d
    }
}

/// Trace second `t` as a date and time where the log has a calendar, else
/// as the replay's clock shows it.
fn when(zone: Zone, first: i64, t: i64) -> String {
    match (zone, chrono::DateTime::from_timestamp(t, 0)) {
        (Zone::Tz(z), Some(d)) => d
            .with_timezone(&z)
            .format("%Y-%m-%d %H:%M:%S %Z")
            .to_string(),
        _ => crate::clock::clock(zone, first, t),
    }
}

/// What an SWF status code means, in the format's own words.
fn status_words(code: Option<i64>) -> &'static str {
    match code {
        Some(1) => "1: completed",
        Some(0) => "0: failed",
        Some(5) => "5: cancelled",
        Some(2) => "2: partial execution, to be continued",
        Some(3) => "3: last partial execution, completed",
        Some(4) => "4: last partial execution, failed",
        _ => "-1: unknown",
    }
}

/// Where the log's second 0 is on the trace's clock: its `UnixStartTime`.
fn origin(t: &SwfTables) -> i64 {
    t.header
        .iter()
        .find(|(k, _)| k == "UnixStartTime")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

impl crate::native::NativeTables for SwfTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, trace: &Trace, job: &Job, _side: bool) -> Value {
        let row = job.native_row as usize;
        if row >= self.rows.len() {
            return Value::Null;
        }
        self.detail(row, trace)
    }

    fn job_by_id(
        &self,
        trace: &Trace,
        id: &str,
    ) -> Result<Option<(Value, Vec<String>)>, InputError> {
        let Ok(n) = id.parse::<i64>() else {
            return Ok(None);
        };
        Ok(self
            .numbers
            .iter()
            .position(|&x| x == n)
            .map(|r| (self.detail(r, trace), Vec::new())))
    }

    fn status_counts(&self, _trace: &Trace) -> Option<BTreeMap<String, u64>> {
        Some(
            self.statuses
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
        )
    }

    fn held_bytes(&self) -> Vec<(&'static str, usize)> {
        let text: usize = self.rows.iter().map(|r| r.len() + 16).sum();
        vec![("swf lines", text + self.rows.len() * 16)]
    }
}
