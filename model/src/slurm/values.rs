//! sacct's values: TRES lists, times in the site's zone, durations and
//! states, each read as Slurm writes it (`../shared/slurm` shows them).

use crate::model::JobStatus;

/// Why a value a Slurm tool printed cannot be read, in words (the caller
/// says where: file, line, field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable(pub String);

/// The words, to look into (`contains`, `starts_with`).
impl std::ops::Deref for Unreadable {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for Unreadable {
    fn from(m: String) -> Unreadable {
        Unreadable(m)
    }
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// GPUs in a TRES list (`billing=1,cpu=1,gres/gpu:a100=8,gres/gpu=8,…`),
/// read as a map, never by position: the count is `gres/gpu=N` (typed
/// keys repeat it, never added to it), else the typed keys' sum where a
/// site accounts only typed GPUs; the type where exactly one is named.
/// `None` for a list with no GPU key (a CPU job); `Err` for a count that
/// is not a number.
pub(crate) fn gpus(tres: &str) -> Result<Option<(u32, Option<String>)>, Unreadable> {
    let (mut untyped, mut typed, mut types) = (None, 0u64, Vec::<&str>::new());
    for item in tres.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            return Err(Unreadable(format!("'{item}' is not KEY=VALUE")));
        };
        let Some(rest) = key.strip_prefix("gres/gpu") else {
            continue;
        };
        let n = value
            .parse::<u64>()
            .ok()
            .filter(|n| *n <= crate::limits::MAX_GPUS as u64)
            .ok_or_else(|| Unreadable(format!("{key}={value}: not a GPU count")))?;
        match rest.strip_prefix(':') {
            None if rest.is_empty() => untyped = Some(n),
            Some(ty) if !ty.is_empty() => {
                typed += n;
                types.push(ty);
            }
            _ => continue,
        }
    }
    let count = match (untyped, types.is_empty()) {
        (Some(n), _) => n,
        (None, false) => typed.min(crate::limits::MAX_GPUS as u64),
        (None, true) => return Ok(None),
    };
    types.dedup();
    let ty = (types.len() == 1).then(|| types[0].to_string());
    Ok(Some((count as u32, ty)))
}

/// A time as sacct prints it: `2026-11-28T11:47:08` in `zone`, or Unix
/// seconds (`SLURM_TIME_FORMAT=%s`); `None` for `Unknown`, `None` or
/// empty (not started, not ended).
pub(crate) fn time(text: &str, zone: chrono_tz::Tz) -> Result<Option<i64>, Unreadable> {
    use chrono::{NaiveDateTime, TimeZone};
    let t = text.trim();
    if t.is_empty() || t == "Unknown" || t == "None" || t == "N/A" {
        return Ok(None);
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        let v = t
            .parse::<i64>()
            .map_err(|_| Unreadable(format!("'{t}' is not a time")))?;
        return crate::limits::dated(v)
            .map(Some)
            .map_err(|_| Unreadable(format!("{t} is outside 1970 to 2100")));
    }
    let naive = NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S").map_err(|_| {
        if t.len() <= 8 && t.contains(':') {
            format!("'{t}' is a relative time (SLURM_TIME_FORMAT=relative): run sacct with the default or %s time format")
        } else {
            format!("'{t}' is not a time (expected 2026-11-28T11:47:08 or Unix seconds)")
        }
    })?;
    let at = zone
        .from_local_datetime(&naive)
        .earliest()
        .ok_or_else(|| {
            Unreadable(format!(
                "'{t}' does not exist in {zone} (a daylight-saving gap)"
            ))
        })?
        .timestamp();
    crate::limits::dated(at)
        .map(Some)
        .map_err(|_| Unreadable(format!("'{t}' is outside 1970 to 2100")))
}

/// A duration as sacct prints `Elapsed` or `Timelimit`: `[D-]HH:MM:SS`,
/// `MM:SS`, or minutes (`TimelimitRaw`); `None` for `UNLIMITED`,
/// `Partition_Limit`, `INVALID` or empty.
pub(crate) fn duration(text: &str) -> Result<Option<i64>, Unreadable> {
    let t = text.trim();
    if t.is_empty() || matches!(t, "UNLIMITED" | "Partition_Limit" | "INVALID" | "NONE") {
        return Ok(None);
    }
    let bad = || Unreadable(format!("'{t}' is not a duration ([D-]HH:MM:SS)"));
    let (days, clock) = match t.split_once('-') {
        Some((d, c)) => (d.parse::<i64>().map_err(|_| bad())?, c),
        None => (0, t),
    };
    let parts: Vec<i64> = clock
        .split(':')
        .map(|p| {
            p.split('.')
                .next()
                .unwrap_or(p)
                .parse::<i64>()
                .map_err(|_| bad())
        })
        .collect::<Result<_, _>>()?;
    let secs = match parts[..] {
        [m] if days == 0 => m * 60,
        [m, s] => m * 60 + s,
        [h, m, s] => h * 3600 + m * 60 + s,
        _ => return Err(bad()),
    };
    let total = days * 86_400 + secs;
    if parts.iter().any(|p| *p < 0) || !(0..=crate::limits::MAX_SECS).contains(&total) {
        return Err(bad());
    }
    Ok(Some(total))
}

/// A job state as sacct writes it (`COMPLETED`, `CANCELLED by 0`,
/// `CANCELLED+` when cut): its name, and how the model reads it.
pub(crate) fn state(text: &str) -> Result<(&'static str, JobStatus), Unreadable> {
    let word = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches('+');
    let known: &[(&str, JobStatus)] = &[
        ("COMPLETED", JobStatus::Completed),
        ("FAILED", JobStatus::Failed),
        ("TIMEOUT", JobStatus::Failed),
        ("NODE_FAIL", JobStatus::Failed),
        ("OUT_OF_MEMORY", JobStatus::Failed),
        ("BOOT_FAIL", JobStatus::Failed),
        ("DEADLINE", JobStatus::Failed),
        ("CANCELLED", JobStatus::Killed),
        ("PREEMPTED", JobStatus::Killed),
        ("REVOKED", JobStatus::Killed),
        ("RUNNING", JobStatus::Unfinished),
        ("PENDING", JobStatus::Unfinished),
        ("REQUEUED", JobStatus::Unfinished),
        ("SUSPENDED", JobStatus::Unfinished),
        ("RESIZING", JobStatus::Unfinished),
        ("COMPLETING", JobStatus::Unfinished),
        ("REQUEUE_HOLD", JobStatus::Unfinished),
        ("REQUEUE_FED", JobStatus::Unfinished),
        ("SIGNALING", JobStatus::Unfinished),
        ("STAGE_OUT", JobStatus::Unfinished),
        ("STOPPED", JobStatus::Unfinished),
        ("SPECIAL_EXIT", JobStatus::Failed),
    ];
    known
        .iter()
        .find(|(n, _)| *n == word)
        .map(|&(n, s)| (n, s))
        .ok_or_else(|| Unreadable(format!("'{word}' is not a Slurm job state")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpus_come_from_the_untyped_key_never_counted_twice() {
        let alloc = "billing=1,cpu=1,gres/gpu:a100=8,gres/gpu=8,mem=512M,node=1";
        assert_eq!(gpus(alloc).unwrap(), Some((8, Some("a100".into()))));
        assert_eq!(
            gpus("billing=1,cpu=1,gres/gpu=2,mem=512M,node=1").unwrap(),
            Some((2, None))
        );
        assert_eq!(gpus("cpu=4,mem=2G,node=1").unwrap(), None, "a CPU job");
        assert_eq!(gpus("").unwrap(), None);
        // Only typed keys (a site accounting types alone): their sum, no type if two.
        assert_eq!(
            gpus("gres/gpu:a100=2,gres/gpu:v100=1").unwrap(),
            Some((3, None))
        );
        assert!(gpus("gres/gpu=lots")
            .unwrap_err()
            .contains("not a GPU count"));
        assert!(gpus("cpu").unwrap_err().contains("KEY=VALUE"));
    }

    #[test]
    fn times_read_in_the_zone_or_as_unix_seconds() {
        let utc = chrono_tz::UTC;
        assert_eq!(time("2026-11-28T11:47:08", utc).unwrap(), Some(1795866428));
        let berlin = chrono_tz::Europe::Berlin;
        assert_eq!(
            time("2026-11-28T12:47:08", berlin).unwrap(),
            Some(1795866428)
        );
        assert_eq!(time("1795866428", utc).unwrap(), Some(1795866428));
        for none in ["Unknown", "None", ""] {
            assert_eq!(time(none, utc).unwrap(), None);
        }
        assert!(time("11:47:07", utc).unwrap_err().contains("relative"));
        assert!(time("yesterday", utc).unwrap_err().contains("not a time"));
        assert!(time("2026-03-29T02:30:00", berlin)
            .unwrap_err()
            .contains("gap"));
    }

    #[test]
    fn durations_in_every_shape_sacct_prints() {
        assert_eq!(duration("00:00:15").unwrap(), Some(15));
        assert_eq!(duration("1-00:00:00").unwrap(), Some(86_400));
        assert_eq!(duration("05:00").unwrap(), Some(300));
        assert_eq!(duration("00:01.500").unwrap(), Some(1));
        assert_eq!(duration("60").unwrap(), Some(3600), "TimelimitRaw: minutes");
        for none in ["UNLIMITED", "Partition_Limit", ""] {
            assert_eq!(duration(none).unwrap(), None);
        }
        assert!(duration("soon").is_err());
        assert!(duration("1:2:3:4").is_err());
    }

    #[test]
    fn states_as_sacct_writes_them() {
        assert_eq!(
            state("CANCELLED by 0").unwrap(),
            ("CANCELLED", JobStatus::Killed)
        );
        assert_eq!(state("CANCELLED+").unwrap().0, "CANCELLED");
        assert_eq!(state("TIMEOUT").unwrap().1, JobStatus::Failed);
        assert_eq!(state("OUT_OF_MEMORY").unwrap().1, JobStatus::Failed);
        assert_eq!(state("PREEMPTED").unwrap().1, JobStatus::Killed);
        assert_eq!(state("REQUEUED").unwrap().1, JobStatus::Unfinished);
        assert!(state("EXPLODED")
            .unwrap_err()
            .contains("not a Slurm job state"));
    }
}
