//! Bounds on every size and time that comes from input or flags, so a single
//! number can neither exhaust memory nor overflow the arithmetic after it.

/// GPUs in a cluster, and in one job: 2^20. A cluster costs about 40 bytes a
/// GPU, so this bounds a generated cluster at some tens of MB; the largest
/// released cluster (PAI) has 6,742 GPUs.
pub const MAX_GPUS: u32 = 1 << 20;

/// GPUs on one machine (PAI's `cap_gpu`, a Philly machine).
pub(crate) const MAX_MACHINE_GPUS: u32 = 1024;

/// Instances of one PAI task.
pub(crate) const MAX_INSTANCES: u32 = 1 << 20;

/// The latest time accepted, in seconds: 2100-01-01 00:00:00 UTC. Released
/// traces use either seconds from the trace's start or Unix times; a time past
/// this is a corrupt field, and every sum of times stays far from overflow.
pub const MAX_SECS: i64 = 4_102_444_800;

/// The longest line read from a CSV or a headerless table: 1 MiB. The
/// longest line of any released table is a few hundred bytes.
pub const MAX_LINE: usize = 1 << 20;

/// Why a value read from a trace is refused (the caller names where).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Less than the least the column allows.
    #[error("{v} is below the minimum {min}")]
    BelowMin {
        /// The value read.
        v: i64,
        /// The least the column allows.
        min: i64,
    },
    /// More GPUs than `MAX_GPUS`.
    #[error("{v} GPUs is more than the {} a cluster may have", MAX_GPUS)]
    TooManyGpus {
        /// The GPU count read.
        v: i64,
    },
    /// A time outside 0 … `MAX_SECS`.
    #[error("{v} is out of range (0 to {} s, the year 2100)", MAX_SECS)]
    Secs {
        /// The time read, in seconds.
        v: i64,
    },
    /// A dated time (Acme, Philly) outside 1970 to 2100.
    #[error("is outside 1970 to 2100")]
    Dated,
}

/// A GPU count read from a trace, checked: at least `min`, at most `MAX_GPUS`.
pub(crate) fn gpus(v: i64, min: i64) -> Result<u32, ValueError> {
    if v < min {
        return Err(ValueError::BelowMin { v, min });
    }
    if v > MAX_GPUS as i64 {
        return Err(ValueError::TooManyGpus { v });
    }
    Ok(v as u32)
}

/// A time in seconds read from a trace, checked to be within 0 … `MAX_SECS`.
pub(crate) fn secs(v: i64) -> Result<i64, ValueError> {
    if !(0..=MAX_SECS).contains(&v) {
        return Err(ValueError::Secs { v });
    }
    Ok(v)
}

/// A dated time (Acme, Philly) as Unix seconds, checked to fall between
/// 1970 and 2100.
pub(crate) fn dated(at: i64) -> Result<i64, ValueError> {
    if !(0..=MAX_SECS).contains(&at) {
        return Err(ValueError::Dated);
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges() {
        assert_eq!(gpus(MAX_GPUS as i64, 1), Ok(MAX_GPUS));
        assert!(gpus(MAX_GPUS as i64 + 1, 1).is_err());
        assert!(gpus(2_147_483_648, 1).is_err());
        assert!(gpus(0, 1).is_err());
        assert_eq!(secs(MAX_SECS), Ok(MAX_SECS));
        assert!(secs(MAX_SECS + 1).is_err());
        assert!(secs(i64::MAX).is_err());
        assert!(secs(-1).is_err());
        // Sums the engine makes stay in range at the extremes.
        let n_jobs: i64 = 100_000_000;
        assert!((MAX_SECS * 2).checked_mul(n_jobs).is_some());
    }
}
