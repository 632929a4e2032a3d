//! An SWF file's header comments (`; Key: value`): the few that change how
//! the jobs are read, kept; every other kept as written, for the drill-down.
//!
//! - `MaxNodes`, `MaxProcs`: the machine (nodes, and processors in all);
//! - `UnixStartTime`: the Unix time of second 0, which makes the clock a
//!   calendar; `TimeZoneString` the zone it is read in (UTC if none);
//! - the deprecated numeric `TimeZone` is kept as written, not applied.

use crate::input::InputError;
use crate::text::sanitize;

/// What the header says.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Header {
    /// `MaxNodes`.
    pub max_nodes: Option<u64>,
    /// `MaxProcs`.
    pub max_procs: Option<u64>,
    /// `UnixStartTime`.
    pub unix_start: Option<i64>,
    /// `TimeZoneString`, checked to be a zone tracetui knows.
    pub zone: Option<chrono_tz::Tz>,
    /// Every `Key: value` comment, in file order (sanitised).
    pub fields: Vec<(String, String)>,
}

/// The most header fields kept: a real header has a few dozen.
const MOST_FIELDS: usize = 1000;

impl Header {
    /// Files one comment line (without its `;`), at `line` of `file`.
    pub(crate) fn comment(&mut self, text: &str, file: &str, line: u64) -> Result<(), InputError> {
        let Some((key, value)) = text.split_once(':') else {
            return Ok(());
        };
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() || key.contains(char::is_whitespace) {
            // Prose, not a field ("; note: ..." is still kept below).
            return Ok(());
        }
        let bad = |what: &str| {
            InputError::on_line(
                file,
                line,
                format!("header {key}: '{}' is not {what}", sanitize(value)),
            )
        };
        match key {
            "MaxNodes" => self.max_nodes = Some(count(value).ok_or_else(|| bad("a count"))?),
            "MaxProcs" => self.max_procs = Some(count(value).ok_or_else(|| bad("a count"))?),
            "UnixStartTime" => {
                let t = value
                    .parse::<i64>()
                    .ok()
                    .filter(|t| crate::limits::dated(*t).is_ok())
                    .ok_or_else(|| bad("a Unix time between 1970 and 2100"))?;
                self.unix_start = Some(t);
            }
            "TimeZoneString" => {
                let z = value
                    .parse::<chrono_tz::Tz>()
                    .map_err(|_| bad("a time zone name (IANA, e.g. US/Pacific)"))?;
                self.zone = Some(z);
            }
            _ => {}
        }
        if self.fields.len() < MOST_FIELDS {
            self.fields.push((sanitize(key), sanitize(value)));
        }
        Ok(())
    }

    /// How its seconds read as clock time: a calendar in the header's zone
    /// when it gives `UnixStartTime`, else seconds from the log's start.
    pub(crate) fn zone(&self) -> crate::model::Zone {
        match (self.unix_start, self.zone) {
            (Some(_), Some(z)) => crate::model::Zone::Tz(z),
            (Some(_), None) => crate::model::Zone::Tz(chrono_tz::UTC),
            (None, _) => crate::model::Zone::Relative,
        }
    }
}

/// A count of nodes or processors (at least 1, at most `limits::MAX_GPUS`).
fn count(value: &str) -> Option<u64> {
    let v = value.parse::<u64>().ok()?;
    (1..=crate::limits::MAX_GPUS as u64)
        .contains(&v)
        .then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Result<Header, InputError> {
        let mut h = Header::default();
        for (i, l) in lines.iter().enumerate() {
            h.comment(l, "t.swf", i as u64 + 1)?;
        }
        Ok(h)
    }

    #[test]
    fn the_fields_that_matter_are_read_and_every_one_kept() {
        let h = read(&[
            " Version: 2.2",
            " MaxNodes: 128",
            " MaxProcs: 1024",
            " UnixStartTime: 893466664",
            " TimeZoneString: US/Pacific",
            " Note: the first week is missing",
            " prose without a field",
        ])
        .unwrap();
        assert_eq!((h.max_nodes, h.max_procs), (Some(128), Some(1024)));
        assert_eq!(h.unix_start, Some(893466664));
        assert_eq!(h.zone(), crate::model::Zone::Tz(chrono_tz::US::Pacific));
        assert_eq!(h.fields.len(), 6);
        assert_eq!(
            h.fields[5],
            ("Note".into(), "the first week is missing".into())
        );
    }

    #[test]
    fn no_start_time_is_a_relative_clock_and_no_zone_is_utc() {
        assert_eq!(
            read(&[" MaxNodes: 4"]).unwrap().zone(),
            crate::model::Zone::Relative
        );
        let h = read(&[" UnixStartTime: 0"]).unwrap();
        assert_eq!(h.zone(), crate::model::Zone::Tz(chrono_tz::UTC));
    }

    #[test]
    fn a_bad_value_names_the_line_and_the_field() {
        let e = read(&[" Version: 2", " MaxProcs: lots"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:2: header MaxProcs: 'lots' is not a count"
        );
        let e = read(&[" TimeZoneString: Mars/Olympus"]).unwrap_err();
        assert!(e.to_string().contains("not a time zone name"), "{e}");
        let e = read(&[" MaxNodes: 0"]).unwrap_err();
        assert!(e.to_string().contains("not a count"), "{e}");
    }
}
