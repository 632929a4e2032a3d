//! The cluster's occupancy and its free-capacity indexes.

use super::*;

fn cluster(sizes: &[u32]) -> ClusterState {
    let typed: Vec<(TypeId, u32)> = sizes.iter().map(|&g| (0, g)).collect();
    typed_cluster(&typed, 1)
}

/// Machines of (GPU type, GPUs), with `types` GPU types.
fn typed_cluster(machines: &[(TypeId, u32)], types: usize) -> ClusterState {
    let mut c = Cluster::uniform(0, 8, String::new());
    c.gpu_types = (0..types).map(|t| format!("T{t}")).collect();
    for (i, &(t, g)) in machines.iter().enumerate() {
        c.machines.push(tracetui_model::Machine {
            name: format!("m{i}"),
            gpu_type: t,
            gpus: g,
            cpu_milli: 0,
            mem_mib: 0,
            recorded_only: false,
        });
    }
    ClusterState::new(&c)
}

fn whole(m: u32, gpus: &[u16]) -> Vec<Grant> {
    gpus.iter()
        .map(|&gpu| Grant {
            machine: m,
            gpu,
            milli: 1000,
            ..Grant::default()
        })
        .collect()
}

#[test]
fn queries_over_free_counts_match_a_scan_of_every_machine() {
    // One 1,024-GPU machine beside small ones: counts past 64 and gaps;
    // machines of 60 and 130 GPUs across word boundaries.
    let sizes = [1024u32, 8, 60, 130, 4, 90];
    let mut c = cluster(&sizes);
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut held: Vec<(u32, Vec<Grant>)> = Vec::new();
    for step in 0..400u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(3) && !held.is_empty() {
            let (job, g) = held.swap_remove((x as usize / 3) % held.len());
            c.release(job, &g);
        } else {
            let m = (x % sizes.len() as u64) as u32;
            let gpus = c.free_gpus_of(m, 1 + (x >> 8) as u32 % 40);
            if !gpus.is_empty() {
                let g = whole(m, &gpus);
                c.acquire(step, &g);
                held.push((step, g));
            }
        }
        let free: Vec<u32> = (0..sizes.len() as u32).map(|m| c.free(m)).collect();
        for m in 0..sizes.len() as u32 {
            let counted = c.free_gpus_of(m, 2048).len() as u32;
            assert_eq!(free[m as usize], counted, "machine {m}'s kept count");
            // The lowest free GPUs, as a scan of every GPU's use finds them
            // (the 1,024- and 130-GPU machines search past busy words).
            let first = c.machines[m as usize].first_gpu as usize;
            let scan: Vec<u16> = (0..sizes[m as usize] as u16)
                .filter(|&g| c.used[first + g as usize] == 0)
                .collect();
            for k in [1usize, 3, 8, 65, 2048] {
                let want = &scan[..k.min(scan.len())];
                assert_eq!(c.free_gpus_of(m, k as u32), want, "machine {m}, k {k}");
            }
        }
        for k in [1, 2, 7, 8, 9, 64, 65, 100, 1024] {
            let want = (0..sizes.len() as u32)
                .filter(|&m| free[m as usize] >= k)
                .min_by_key(|&m| (free[m as usize], m));
            assert_eq!(
                c.best_fit(TypeFilter::Any, k, &[]),
                want,
                "k {k}, free {free:?}"
            );
            // Skipping the best one (and machine 1) finds the next best.
            let skip: Vec<u32> = want.into_iter().chain([1]).collect();
            let next = (0..sizes.len() as u32)
                .filter(|&m| free[m as usize] >= k && !skip.contains(&m))
                .min_by_key(|&m| (free[m as usize], m));
            assert_eq!(
                c.best_fit(TypeFilter::Any, k, &skip),
                next,
                "k {k}, skip {skip:?}"
            );
        }
        let most = (0..sizes.len() as u32)
            .filter(|&m| free[m as usize] > 0)
            .min_by_key(|&m| (Reverse(free[m as usize]), m));
        assert_eq!(c.most_free(TypeFilter::Any), most);
        let mut order: Vec<u32> = (0..sizes.len() as u32)
            .filter(|&m| free[m as usize] > 0)
            .collect();
        order.sort_by_key(|&m| (free[m as usize], m));
        assert_eq!(c.fullest_first(TypeFilter::Any).collect::<Vec<_>>(), order);
        let mut whole: Vec<u32> = (0..sizes.len() as u32)
            .filter(|&m| free[m as usize] == sizes[m as usize])
            .collect();
        whole.sort_by_key(|&m| (Reverse(sizes[m as usize]), m));
        assert_eq!(c.whole_free(TypeFilter::Any).collect::<Vec<_>>(), whole);
    }
}

/// Whole machines of two GPU types come merged: largest first, then by
/// machine order, whatever their type.
#[test]
fn whole_machines_of_two_types_merge_in_order() {
    let mut c = typed_cluster(&[(1, 8), (0, 8), (1, 4), (0, 8), (1, 8), (0, 4)], 2);
    let all = |c: &ClusterState, f| c.whole_free(f).collect::<Vec<_>>();
    assert_eq!(all(&c, TypeFilter::Any), vec![0, 1, 3, 4, 2, 5]);
    assert_eq!(all(&c, TypeFilter::Only(1)), vec![0, 4, 2]);
    c.acquire(1, &whole(3, &[0]));
    assert_eq!(all(&c, TypeFilter::Any), vec![0, 1, 4, 2, 5]);
}

#[test]
fn indices_follow_acquire_and_release() {
    let mut c = cluster(&[8, 8, 4]);
    assert_eq!(c.best_fit(TypeFilter::Any, 3, &[]), Some(2));
    assert_eq!(
        c.whole_free(TypeFilter::Any).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    c.acquire(7, &whole(1, &[0, 1, 2, 3, 4, 5]));
    assert_eq!(c.free(1), 2);
    assert_eq!(c.best_fit(TypeFilter::Any, 2, &[]), Some(1));
    assert_eq!(c.most_free(TypeFilter::Any), Some(0));
    assert_eq!(
        c.whole_free(TypeFilter::Any).collect::<Vec<_>>(),
        vec![0, 2]
    );
    assert_eq!(c.free_gpus(TypeFilter::Any), 14);
    assert_eq!(c.holders(8), &[(7, 1000)]);
    c.release(7, &whole(1, &[0, 1, 2, 3, 4, 5]));
    assert_eq!(c.free(1), 8);
    assert_eq!(c.free_gpus(TypeFilter::Any), 20);
    assert_eq!(c.allocated_milli(), 0);
}

#[test]
fn partial_gpus_are_indexed_by_room() {
    let mut c = cluster(&[2]);
    c.acquire(
        1,
        &[Grant {
            machine: 0,
            gpu: 1,
            milli: 600,
            ..Grant::default()
        }],
    );
    assert_eq!(c.free(0), 1);
    assert_eq!(c.best_partial(TypeFilter::Any, 400), Some((0, 1)));
    assert_eq!(c.best_partial(TypeFilter::Any, 500), None);
    c.acquire(
        2,
        &[Grant {
            machine: 0,
            gpu: 1,
            milli: 400,
            ..Grant::default()
        }],
    );
    assert_eq!(c.best_partial(TypeFilter::Any, 1), None);
    assert_eq!(c.holders(1), &[(1, 600), (2, 400)]);
}

/// A small machine across a word boundary, between two big ones whose
/// words went busy and free again: each finds its free GPU whether it
/// lies in its first word or past a busy one (through the summary).
#[test]
fn a_small_machine_between_big_ones_finds_its_free_gpu() {
    // GPUs 0..100, 100..160 (words 1 and 2), 160..260.
    let mut c = cluster(&[100, 60, 100]);
    let all = |m: u32, n: u16| whole(m, &(0..n).collect::<Vec<_>>());
    c.acquire(1, &all(1, 60));
    c.acquire(2, &all(2, 100));
    c.acquire(0, &all(0, 100));
    assert_eq!(c.free_gpus_of(1, 1), Vec::<u16>::new());
    c.release(1, &whole(1, &[40]));
    assert_eq!(c.free_gpus_of(1, 5), vec![40]);
    c.release(2, &whole(2, &[99]));
    assert_eq!(c.free_gpus_of(2, 5), vec![99]);
    assert_eq!(c.free_gpus_of(0, 5), Vec::<u16>::new());
}
