//! A job's native id, exact, without a heap allocation for the ids the
//! traces hold (ITP's 36-character UUIDs, PAI's hex names, Philly's
//! application ids): up to 38 bytes live inline; a longer id is boxed.
//!
//! A `String` per job was one allocation each: on a 1.26 M-job trace,
//! 1.26 M mallocs while loading and 60 MB of heap beside the jobs.

use std::fmt;

const INLINE: usize = 38;

#[derive(Clone)]
enum Repr {
    Inline { len: u8, buf: [u8; INLINE] },
    Heap(Box<str>),
}

/// An id, compared and hashed as its text.
#[derive(Clone)]
pub struct JobId(Repr);

impl JobId {
    /// The id `s`, inline when it fits (38 bytes), else boxed.
    pub fn new(s: &str) -> JobId {
        if s.len() <= INLINE {
            let mut buf = [0u8; INLINE];
            buf[..s.len()].copy_from_slice(s.as_bytes());
            JobId(Repr::Inline {
                len: s.len() as u8,
                buf,
            })
        } else {
            JobId(Repr::Heap(s.into()))
        }
    }

    /// The id's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, buf } => &buf[..*len as usize],
            Repr::Heap(s) => s.as_bytes(),
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Copied from a `&str` whole, so always valid: the check is
            // an ASCII scan for the ids traces hold.
            Repr::Inline { len, buf } => std::str::from_utf8(&buf[..*len as usize]).unwrap_or(""),
            Repr::Heap(s) => s,
        }
    }
}

impl Default for JobId {
    fn default() -> JobId {
        JobId::new("")
    }
}

impl std::ops::Deref for JobId {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for JobId {
    fn from(s: &str) -> JobId {
        JobId::new(s)
    }
}

impl From<String> for JobId {
    fn from(s: String) -> JobId {
        JobId::new(&s)
    }
}

impl From<&String> for JobId {
    fn from(s: &String) -> JobId {
        JobId::new(s)
    }
}

impl From<JobId> for String {
    fn from(id: JobId) -> String {
        id.as_str().to_string()
    }
}

impl From<JobId> for serde_json::Value {
    fn from(id: JobId) -> serde_json::Value {
        serde_json::Value::String(id.as_str().to_string())
    }
}

impl PartialEq for JobId {
    fn eq(&self, other: &JobId) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for JobId {}

impl PartialEq<str> for JobId {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for JobId {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for JobId {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<JobId> for &str {
    fn eq(&self, other: &JobId) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for JobId {
    fn partial_cmp(&self, other: &JobId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JobId {
    fn cmp(&self, other: &JobId) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl std::hash::Hash for JobId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl fmt::Debug for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_long_and_unicode_ids_read_back_exactly() {
        let long = "application_1506638472019_10238_and_a_long_tail_past_38";
        for s in [
            "",
            "a",
            "95963f1b-8501-0601-d95a-660bc1c9aac2",
            &"x".repeat(38),
            &"y".repeat(39),
            long,
            "é\u{1b}[2J✓",
        ] {
            let id = JobId::new(s);
            assert_eq!(id.as_str(), s);
            assert_eq!(id, s);
            assert_eq!(format!("{id}"), s);
            assert_eq!(format!("{id:?}"), format!("{s:?}"));
        }
        assert!(matches!(JobId::new(long).0, Repr::Heap(_)));
        assert!(matches!(JobId::new(&"x".repeat(38)).0, Repr::Inline { .. }));
        assert_eq!(std::mem::size_of::<JobId>(), 40);
    }

    #[test]
    fn order_and_equality_are_the_texts() {
        let (a, b) = (JobId::new("a"), JobId::new(&"a".repeat(40)));
        assert!(a < b && a != b);
        assert_eq!(a.cmp(&JobId::new("a")), std::cmp::Ordering::Equal);
    }
}
