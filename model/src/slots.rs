//! One list filled in place by several threads at once: each thread gets
//! its own stretch of the list's spare room and writes its items there,
//! so each item is written once, where it stays. When every thread is
//! done the stretches are closed up (moved down over the gaps they left)
//! into one list in order.
//!
//! Loading 1.26 M ITP jobs into blocks and then moving them into one list
//! wrote 141 MB twice; the second write was a fresh page each 4 KiB, a
//! quarter of the load's time. Filling in place writes it once.
//!
//! A thread that outgrows its stretch keeps the rest in a spill list,
//! which the close-up then takes in order (a slower move of everything,
//! for the rare part whose rows are shorter than its estimate).

use std::mem::MaybeUninit;

/// One thread's stretch: its first `len` slots written.
pub(crate) struct Slots<'a, T> {
    room: &'a mut [MaybeUninit<T>],
    len: usize,
    spill: Vec<T>,
}

impl<T> Slots<'_, T> {
    pub(crate) fn push(&mut self, item: T) {
        match self.room.get_mut(self.len) {
            Some(slot) => {
                slot.write(item);
                self.len += 1;
            }
            None => self.spill.push(item),
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len + self.spill.len()
    }

    fn written(&mut self) -> &mut [T] {
        let room = &mut self.room[..self.len];
        // SAFETY: the first `len` slots were each written by `push`, and
        // `MaybeUninit<T>` has `T`'s layout.
        unsafe { &mut *(room as *mut [MaybeUninit<T>] as *mut [T]) }
    }
}

impl<T> Drop for Slots<'_, T> {
    /// Drops what was written (a stretch not closed up: a thread that
    /// panicked or a fill given up).
    fn drop(&mut self) {
        // SAFETY: the written items are owned here until `fill` takes them
        // with `mem::forget`; each is dropped once.
        unsafe { std::ptr::drop_in_place(self.written()) }
    }
}

/// Cuts `out`'s spare room into stretches of `sizes` slots (`out` must be
/// empty), runs `each(k, stretch)` for each on its own thread, and closes
/// the stretches up into `out`, in order. Gives each result with how many
/// items its thread pushed; `None` (and `out` empty) when a thread
/// panicked.
pub(crate) fn fill<T: Send, R: Send>(
    out: &mut Vec<T>,
    sizes: &[usize],
    each: impl Fn(usize, &mut Slots<T>) -> R + Sync,
) -> Option<Vec<(R, usize)>> {
    assert!(out.is_empty(), "fill starts from an empty list");
    // A list too large to reserve is filled through the spill lists.
    let total: usize = sizes.iter().sum();
    let sizes: Vec<usize> = match out.try_reserve_exact(total) {
        Ok(()) => sizes.to_vec(),
        Err(_) => vec![0; sizes.len()],
    };
    let mut room = out.spare_capacity_mut();
    let mut stretches = Vec::with_capacity(sizes.len());
    for &n in &sizes {
        let (mine, rest) = room.split_at_mut(n);
        room = rest;
        stretches.push(Slots {
            room: mine,
            len: 0,
            spill: Vec::new(),
        });
    }
    let done = crate::par::each(
        stretches.into_iter().enumerate().collect(),
        |(k, mut slots)| {
            let r = each(k, &mut slots);
            (r, slots)
        },
    );
    // A panicked thread's stretch was dropped as it unwound; the others'
    // are dropped here.
    let done: Vec<_> = done.into_iter().collect::<Result<_, _>>().ok()?;
    let mut results = Vec::with_capacity(done.len());
    let mut filled = Vec::with_capacity(done.len());
    for (r, mut slots) in done {
        let spill = std::mem::take(&mut slots.spill);
        results.push((r, slots.len + spill.len()));
        filled.push((slots.len, spill));
        // Its written items now belong to `out`'s room, taken below.
        std::mem::forget(slots);
    }
    close_up(out, &sizes, filled);
    Some(results)
}

/// Makes the written stretches (`filled`: each one's written count and
/// spill, in the room cut at `sizes`) `out`'s items, in order.
fn close_up<T>(out: &mut Vec<T>, sizes: &[usize], filled: Vec<(usize, Vec<T>)>) {
    let base = out.as_mut_ptr();
    let spilled = filled.iter().any(|(_, spill)| !spill.is_empty());
    let mut all = spilled.then(|| Vec::with_capacity(filled.iter().map(|f| f.0 + f.1.len()).sum()));
    let (mut start, mut at) = (0usize, 0usize);
    for ((written, spill), &size) in filled.into_iter().zip(sizes) {
        // SAFETY: slots `start..start + written` were written by this
        // stretch's thread and forgotten by its `Slots`; each is moved out
        // exactly once, either down to `at` (never past its own start, so
        // over a gap or an item already moved) or into `all`.
        unsafe {
            match &mut all {
                // The first stretch, and any after a full one, is in place.
                None if start == at => {}
                None => std::ptr::copy(base.add(start), base.add(at), written),
                Some(all) => {
                    for i in start..start + written {
                        all.push(std::ptr::read(base.add(i)));
                    }
                }
            }
        }
        if let Some(all) = &mut all {
            all.extend(spill);
        }
        at += written;
        start += size;
    }
    match all {
        // `out` holds no item of its own now: its room is dropped as is.
        Some(all) => *out = all,
        // SAFETY: slots `0..at` hold the moved items, in order.
        None => unsafe { out.set_len(at) },
    }
}

#[cfg(test)]
#[path = "slots_tests.rs"]
mod tests;
