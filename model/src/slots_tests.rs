use super::*;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// An item that counts its drops and owns heap memory (so a double drop
/// or a lost item shows as a wrong count, or under a sanitizer).
struct Counted {
    value: String,
    drops: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

/// Part `k` pushes `pushes[k]` items named `k.i`.
fn names(pushes: &[usize]) -> Vec<String> {
    (0..pushes.len())
        .flat_map(|k| (0..pushes[k]).map(move |i| format!("{k}.{i}")))
        .collect()
}

fn run(sizes: &[usize], pushes: &[usize]) -> (Vec<String>, Vec<usize>, usize) {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut out: Vec<Counted> = Vec::new();
    let got = fill(&mut out, sizes, |k, slots| {
        for i in 0..pushes[k] {
            slots.push(Counted {
                value: format!("{k}.{i}"),
                drops: drops.clone(),
            });
        }
        slots.len()
    })
    .expect("no thread panicked");
    for (r, n) in &got {
        assert_eq!(r, n, "the count fill gives is what the thread pushed");
    }
    let values = out.iter().map(|c| c.value.clone()).collect();
    assert_eq!(
        drops.load(Ordering::SeqCst),
        0,
        "nothing dropped while held"
    );
    drop(out);
    let counts = got.iter().map(|g| g.1).collect();
    (values, counts, drops.load(Ordering::SeqCst))
}

/// Parts of room `sizes` pushing `pushes` give the parts' items in order,
/// each count as pushed, and every item dropped once with the list.
fn check(sizes: &[usize], pushes: &[usize]) {
    let (values, counts, drops) = run(sizes, pushes);
    assert_eq!(values, names(pushes));
    assert_eq!(counts, pushes);
    assert_eq!(drops, pushes.iter().sum::<usize>());
}

#[test]
fn stretches_filled_short_are_closed_up_in_order() {
    check(&[5, 4, 6], &[2, 4, 0]);
}

#[test]
fn a_stretch_outgrown_spills_and_keeps_the_order() {
    check(&[2, 1, 3], &[5, 0, 7]);
}

#[test]
fn a_panicking_thread_gives_none_and_every_item_is_dropped_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut out: Vec<Counted> = Vec::new();
    let got = fill(&mut out, &[3, 3], |k, slots| {
        for i in 0..5 {
            slots.push(Counted {
                value: format!("{k}.{i}"),
                drops: drops.clone(),
            });
        }
        if k == 1 {
            panic!("a reader fails");
        }
    });
    assert!(got.is_none());
    assert!(out.is_empty());
    assert_eq!(drops.load(Ordering::SeqCst), 10);
}

proptest! {
    #[test]
    fn fill_is_the_parts_in_order(
        parts in proptest::collection::vec((0usize..40, 0usize..40), 1..5)
    ) {
        let sizes: Vec<usize> = parts.iter().map(|p| p.0).collect();
        let pushes: Vec<usize> = parts.iter().map(|p| p.1).collect();
        let (values, counts, drops) = run(&sizes, &pushes);
        prop_assert_eq!(values, names(&pushes));
        prop_assert_eq!(counts, pushes.clone());
        prop_assert_eq!(drops, pushes.iter().sum::<usize>());
    }
}
