//! Per-row byte offsets into a plain `.csv` table, one per instance: how
//! the side tables' rows and the instance table's own rows are found again
//! by a seek, without holding their text.

/// Per instance, the byte offset of its worker's row: 4 bytes each while
/// the table is under 4 GiB, 8 past that; the largest value marks none.
#[derive(Debug)]
pub enum RowOffsets {
    /// Offsets in 4 bytes (`u32::MAX`: none).
    Narrow(Vec<u32>),
    /// Offsets in 8 bytes (`u64::MAX`: none).
    Wide(Vec<u64>),
}

impl RowOffsets {
    pub(crate) fn new(instances: usize, file_len: u64) -> RowOffsets {
        if file_len < u32::MAX as u64 {
            RowOffsets::Narrow(vec![u32::MAX; instances])
        } else {
            RowOffsets::Wide(vec![u64::MAX; instances])
        }
    }

    pub(crate) fn get(&self, i: u32) -> Option<u64> {
        let off = match self {
            RowOffsets::Narrow(v) => Some(v[i as usize]).filter(|&o| o != u32::MAX)? as u64,
            RowOffsets::Wide(v) => Some(v[i as usize]).filter(|&o| o != u64::MAX)?,
        };
        Some(off)
    }

    /// Sets instance `i`'s offset unless it has one.
    pub(crate) fn set_first(&mut self, i: u32, off: u64) {
        self.widen_for(off);
        match self {
            RowOffsets::Narrow(v) if v[i as usize] == u32::MAX => v[i as usize] = off as u32,
            RowOffsets::Wide(v) if v[i as usize] == u64::MAX => v[i as usize] = off,
            _ => {}
        }
    }

    pub(crate) fn copy(&mut self, to: u32, from: u32) {
        match self {
            RowOffsets::Narrow(v) => v[to as usize] = v[from as usize],
            RowOffsets::Wide(v) => v[to as usize] = v[from as usize],
        }
    }

    /// None yet, room for `n`: 4 bytes each for a file under 4 GiB.
    pub(crate) fn with_capacity(n: usize, file_len: u64) -> RowOffsets {
        if file_len < u32::MAX as u64 {
            RowOffsets::Narrow(Vec::with_capacity(n))
        } else {
            RowOffsets::Wide(Vec::with_capacity(n))
        }
    }

    /// The next row's offset (widening if it does not fit).
    pub(crate) fn push(&mut self, off: u64) {
        self.widen_for(off);
        match self {
            RowOffsets::Narrow(v) => v.push(off as u32),
            RowOffsets::Wide(v) => v.push(off),
        }
    }

    /// Another's offsets after these.
    pub(crate) fn append(&mut self, other: RowOffsets) {
        match other {
            RowOffsets::Narrow(o) => {
                for x in o {
                    self.push(if x == u32::MAX { u64::MAX } else { x as u64 });
                }
            }
            RowOffsets::Wide(o) => {
                for x in o {
                    self.push(x);
                }
            }
        }
    }

    /// How many offsets (one per instance).
    pub(crate) fn len(&self) -> usize {
        match self {
            RowOffsets::Narrow(v) => v.len(),
            RowOffsets::Wide(v) => v.len(),
        }
    }

    /// The bytes held.
    pub(crate) fn bytes_used(&self) -> usize {
        match self {
            RowOffsets::Narrow(v) => std::mem::size_of_val(&v[..]),
            RowOffsets::Wide(v) => std::mem::size_of_val(&v[..]),
        }
    }

    /// Widens 4-byte offsets when `off` does not fit in them (a file that
    /// grew past 4 GiB while read).
    fn widen_for(&mut self, off: u64) {
        if let RowOffsets::Narrow(v) = self {
            if off >= u32::MAX as u64 && off != u64::MAX {
                let wide = v
                    .iter()
                    .map(|&o| if o == u32::MAX { u64::MAX } else { o as u64 })
                    .collect();
                *self = RowOffsets::Wide(wide);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RowOffsets;

    /// Offsets held in 4 bytes widen when one does not fit (a file that
    /// grew past 4 GiB while read); the first offset of an instance stays.
    #[test]
    fn offsets_keep_the_first_and_widen_when_needed() {
        let mut at = RowOffsets::new(4, 1000);
        assert!(matches!(at, RowOffsets::Narrow(_)));
        at.set_first(0, 10);
        at.set_first(0, 20);
        at.set_first(2, 5_000_000_000);
        assert!(matches!(at, RowOffsets::Wide(_)));
        at.copy(3, 0);
        let got: Vec<Option<u64>> = (0..4).map(|i| at.get(i)).collect();
        assert_eq!(got, [Some(10), None, Some(5_000_000_000), Some(10)]);
    }

    /// Pushed offsets read back in order, widening past 4 GiB; an appended
    /// list keeps its "none".
    #[test]
    fn pushed_offsets_append_and_widen() {
        let mut a = RowOffsets::with_capacity(2, 1000);
        a.push(7);
        let mut b = RowOffsets::new(1, 1000);
        b.push(9);
        a.append(b);
        assert_eq!((a.get(0), a.get(1), a.get(2)), (Some(7), None, Some(9)));
        a.push(6_000_000_000);
        assert!(matches!(a, RowOffsets::Wide(_)));
        assert_eq!((a.get(1), a.get(3)), (None, Some(6_000_000_000)));
    }
}
