use super::*;

/// `given_back` against the insert-by-insert construction it replaces.
#[test]
fn given_back_adds_the_plan_until_its_end() {
    let slow = slow_given_back;
    let f: Free = [(0, 10), (60, 4), (180, 8), (300, 16)].into();
    let cases: [(Alloc, Secs); 6] = [
        ([(0, 2), (120, 4), (240, 0)].into(), 240),
        ([(0, 2), (120, 4)].into(), 200),
        ([(30, 1), (400, 2)].into(), 500),
        ([(-60, 8)].into(), 60),
        ([(0, 6)].into(), 1000),
        (Alloc::new(), 90),
    ];
    for (a, end) in cases {
        assert_eq!(
            given_back(&f, &a, end, 16),
            slow(&f, &a, end, 16),
            "{a:?} {end}"
        );
    }
    assert_eq!(
        given_back(&Free::new(), &[(0, 2)].into(), 60, 8),
        slow(&Free::new(), &[(0, 2)].into(), 60, 8)
    );
}

#[test]
fn align_rounds_up_on_the_grid_from_its_start() {
    assert_eq!(align(60, 100, 100), 100);
    assert_eq!(align(60, 100, 101), 160);
    assert_eq!(align(60, 100, 160), 160);
    assert_eq!(align(60, 100, 70), 100);
    assert_eq!(align(60, 100, 10), 40);
    assert_eq!(align(60, 0, 3368), 3420);
    // Figures 9–11's slot of 240 s.
    assert_eq!(align(240, 100, 101), 340);
    assert_eq!(align(240, 0, 3368), 3600);
}

#[test]
fn merge_keeps_steps_and_gpu_secs_sums_them() {
    let m: Alloc = [(0, 2), (60, 2), (120, 4), (180, 0), (240, 0)].into();
    let got = m.merged();
    assert_eq!(got, [(0, 2), (120, 4), (180, 0)].into());
    assert_eq!(gpu_secs(&got, 300), 2 * 120 + 4 * 60);
    assert_eq!(gpu_secs(&Alloc::from([(0, 16)]), 480), 16 * 480);
    assert_eq!(before(&got, 120), Some(2));
    assert_eq!(at(&got, 120), Some(4));
    assert_eq!(before(&got, 0), None);
}

/// `given_back` insert by insert, as ElasticFlow builds it.
fn slow_given_back(f: &Free, a: &Alloc, end: Secs, n: i64) -> Free {
    let mut tmp = f.clone();
    if !tmp.contains_key(end) {
        tmp.insert(end, before(&tmp, end).unwrap_or(n));
    }
    let mut last = 0i64;
    for (k, g) in a.iter() {
        if !tmp.contains_key(k) {
            tmp.insert(k, at(&tmp, k).unwrap_or(n));
        }
        if k < end {
            for (_, v) in tmp.range_mut(k, end) {
                *v += g as i64 - last;
            }
        }
        last = g as i64;
    }
    tmp.merged()
}

/// A small deterministic generator for the map tests.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    /// A merged map from `t`: up to `len` steps on the slot grid.
    fn steps(&mut self, t: Secs, len: u64, most: u64) -> Free {
        let mut m = Free::new();
        let mut k = t;
        for _ in 0..=self.below(len) {
            m.insert(k, self.below(most) as i64);
            k += 60 * (1 + self.below(4) as Secs);
        }
        m.merged()
    }
}

/// The one-pass `given_back` equals the insert-by-insert construction
/// on many maps, plans and ends, before, inside and after the steps.
#[test]
fn given_back_equals_its_definition_on_many_maps() {
    let mut r = Lcg(7);
    for _ in 0..2000 {
        let f = r.steps(0, 12, 5);
        let a: Alloc = {
            let from = -120 + 60 * r.below(6) as Secs;
            let s = r.steps(from, 5, 4);
            let mut a = Alloc::new();
            for (k, v) in s.iter() {
                a.insert(k, v as u32);
            }
            a.merged()
        };
        let end = -60 + 60 * r.below(20) as Secs + r.below(2) as Secs * 30;
        assert_eq!(
            given_back(&f, &a, end, 16),
            slow_given_back(&f, &a, end, 16),
            "{f:?} {a:?} {end}"
        );
    }
}

/// In-place `fill_keys` equals a merge into a new map.
#[test]
fn fill_keys_adds_only_the_missing_keys() {
    let mut r = Lcg(11);
    for _ in 0..2000 {
        let mut m = r.steps(0, 8, 6);
        let from = -60 * r.below(3) as Secs;
        let keys = r.steps(from, 10, 3);
        let mut want = m.clone();
        for (k, _) in keys.iter() {
            if !want.contains_key(k) {
                want.insert(k, 99);
            }
        }
        let keys: Vec<(Secs, i64)> = keys.iter().collect();
        m.fill_keys(&keys, 99);
        assert_eq!(m, want);
    }
}

/// `changes_after`: the two maps' values differ at the start of each
/// span it gives and nowhere after the step at `t` outside them.
#[test]
fn changes_after_finds_where_two_maps_differ() {
    let mut r = Lcg(3);
    let mut out = Vec::new();
    for _ in 0..2000 {
        let a = r.steps(0, 10, 3);
        let mut b = a.clone();
        for _ in 0..r.below(3) {
            let k = 60 * r.below(30) as Secs;
            b.insert(k, r.below(3) as i64);
        }
        let b = b.merged();
        a.changes_after(&b, 0, &mut out);
        // The step at `t` lasts until the first key after it in either.
        let k1 = a
            .key_after(0)
            .unwrap_or(Secs::MAX)
            .min(b.key_after(0).unwrap_or(Secs::MAX));
        for x in (0..2000).step_by(30) {
            let inside = out.iter().any(|&(s, e)| s <= x && x < e);
            if x >= k1 && !inside {
                assert_eq!(at(&a, x), at(&b, x), "{a:?} {b:?} at {x}: {out:?}");
            }
        }
        for &(s, e) in &out {
            assert!(s < e && s >= k1, "{out:?}");
            assert_ne!(at(&a, s), at(&b, s), "{a:?} {b:?}: {out:?}");
        }
        if a == b {
            assert!(out.is_empty());
        }
    }
    Free::from([(60, 1)]).changes_after(&Free::from([(0, 1)]), 0, &mut out);
    assert_eq!(out, [(Secs::MIN, Secs::MAX)]);
}
