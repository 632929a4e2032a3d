//! The typical pods, the fragmentation measure and each placement's score
//! on hand-made nodes, worked out by hand from FGD's rules
//! (`../shared/peers/fgd-semantics.md` §3).

use super::*;
use tracetui_model::{Cluster, Machine, Pod, TypeId};

fn pod(name: &str, cpu: u32, gpus: u32, milli: u32) -> Pod {
    Pod {
        name: name.into(),
        cpu_milli: cpu,
        mem_mib: 1024,
        gpus,
        milli,
        spec: "".into(),
        models: Box::new([]),
    }
}

fn machine(name: &str, gpus: u32, cpu: u32, model: TypeId) -> Machine {
    Machine {
        name: name.into(),
        gpu_type: model,
        gpus,
        cpu_milli: cpu,
        mem_mib: 1 << 20,
        recorded_only: false,
    }
}

fn typical(list: &[(u32, u32, u32, f64)]) -> Vec<Typical> {
    list.iter()
        .map(|&(cpu_milli, milli, gpus, p)| Typical {
            cpu_milli,
            milli,
            gpus,
            models: Box::new([]),
            p,
        })
        .collect()
}

fn ask(cpu: u32, gpus: u32, milli: u32) -> Ask {
    Ask::of(&pod("a", cpu, gpus, milli), 0)
}

#[test]
fn typical_pods_are_the_commonest_kinds_to_95_percent_ties_descending() {
    let mut pods = Vec::new();
    for i in 0..50 {
        pods.push(pod(&format!("a{i}"), 1000, 1, 500));
    }
    for i in 0..30 {
        pods.push(pod(&format!("b{i}"), 2000, 1, 1000));
    }
    // Equal counts: the larger (cpu, milli, gpus) comes first.
    for i in 0..8 {
        pods.push(pod(&format!("c{i}"), 500, 0, 0));
        pods.push(pod(&format!("d{i}"), 600, 0, 0));
    }
    for i in 0..4 {
        pods.push(pod(&format!("e{i}"), 100, 2, 1000));
    }
    let t = typical_pods(&pods, 95);
    let kinds: Vec<(u32, u32, u32)> = t.iter().map(|t| (t.cpu_milli, t.milli, t.gpus)).collect();
    // 50 + 30 + 8 = 88 of 100 < 95, + 8 = 96 ≥ 95: four kinds, e left out.
    assert_eq!(
        kinds,
        [(1000, 500, 1), (2000, 1000, 1), (600, 0, 0), (500, 0, 0)]
    );
    assert!((t[0].p - 50.0 / 96.0).abs() < 1e-12);
    assert!((t.iter().map(|t| t.p).sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn fragmentation_counts_the_free_milli_each_typical_pod_cannot_use() {
    // Half the pods want 600 milli and 8 cores, a quarter a whole GPU, a
    // quarter no GPU.
    let t = typical(&[
        (8000, 600, 1, 0.5),
        (4000, 1000, 1, 0.25),
        (2000, 0, 0, 0.25),
    ]);
    // GPUs free 1000, 500, 0: the 600-pod fits (500 stranded), the whole
    // fits (500 stranded), the CPU pod strands all 1500.
    let f = node_frag(&t, 0, 16_000, &[1000, 500, 0]);
    assert!(
        (f - (0.5 * 500.0 + 0.25 * 500.0 + 0.25 * 1500.0)).abs() < 1e-9,
        "{f}"
    );
    // Too little CPU for the 600-pod: all its view is fragment.
    let f = node_frag(&t, 0, 6000, &[1000, 500, 0]);
    assert!(
        (f - (0.5 * 1500.0 + 0.25 * 500.0 + 0.25 * 1500.0)).abs() < 1e-9,
        "{f}"
    );
    // A pod bound to another model sees everything stranded.
    let mut bound = t.clone();
    bound[1].models = Box::new([3]);
    let f = node_frag(&bound, 0, 16_000, &[1000, 500, 0]);
    assert!(
        (f - (0.5 * 500.0 + 0.25 * 1500.0 + 0.25 * 1500.0)).abs() < 1e-9,
        "{f}"
    );
    assert_eq!(
        node_frag(&t, 0, 16_000, &[0, 0]),
        0.0,
        "no free GPU, no fragment"
    );
}

fn node(free: &[u16], cpu: u32, t: &[Typical]) -> Node {
    let mut n = Node::new(&machine("n", free.len() as u32, cpu, 0), t);
    n.free = free.into();
    n.frag = node_frag(t, 0, cpu, free);
    n
}

#[test]
fn dot_product_best_fit_clustering_and_packing_score_as_fgd_truncates_them() {
    let t = typical(&[(1000, 500, 1, 1.0)]);
    let mut s = Vec::new();
    let n = node(&[1000, 1000, 400, 1000], 64_000, &t);
    let score = |r: SharingRule, n: &Node, a: &Ask| r.score(n, a, &t, &mut Vec::new()).score;
    let a = ask(32_000, 1, 300);
    // u·v = 0.5·0.25 + (3400/8000)·(300/8000) = 0.140937…: ⌊100·(1 − 0.0704…)⌋ = 92.
    assert_eq!(score(SharingRule::DotProduct, &n, &a), 92);
    // 1 − [0.5·32000/128000 + 0.5·3100/8000] = 0.68125 → 68.
    assert_eq!(score(SharingRule::BestFit, &n, &a), 68);
    // No pods yet: base ⌊25·4600/8000⌋ = 14, + 25.
    assert_eq!(score(SharingRule::GpuClustering, &n, &a), 39);
    let mut shared = n.clone();
    shared.tags = vec![(0, 2)];
    assert_eq!(
        score(SharingRule::GpuClustering, &shared, &a),
        89,
        "only shares: +75"
    );
    shared.tags.push((1, 1));
    assert_eq!(
        score(SharingRule::GpuClustering, &shared, &a),
        64,
        "shares among others: +50"
    );
    assert_eq!(
        score(SharingRule::GpuClustering, &shared, &ask(1, 2, 1000)),
        14,
        "a kind not there"
    );
    // Packing: the share takes the 400-milli GPU: 100 − ⌊40/10⌋ = 96.
    assert_eq!(score(SharingRule::GpuPacking, &n, &a), 96);
    // A whole GPU takes one idle GPU of a busy node: max(50 − 1, 33).
    assert_eq!(score(SharingRule::GpuPacking, &n, &ask(1, 1, 1000)), 49);
    let empty = node(&[1000; 8], 96_000, &t);
    assert_eq!(
        score(SharingRule::GpuPacking, &empty, &a),
        25,
        "an empty 8-GPU node: max(33 − 8, 8)"
    );
    assert_eq!(
        score(SharingRule::GpuPacking, &node(&[1000], 8000, &t), &a),
        32
    );
    assert_eq!(SharingRule::Random.score(&n, &a, &t, &mut s).score, 0);
    assert_eq!(
        score(SharingRule::GpuPacking, &n, &ask(1000, 0, 0)),
        0,
        "CPU pods: no GPU score"
    );
}

#[test]
fn fgd_takes_the_gpu_whose_fragmentation_grows_least() {
    // One typical pod of 500 milli: a GPU with less than 500 free is fragment.
    let t = typical(&[(0, 500, 1, 1.0)]);
    let n = node(&[1000, 700, 1000], 32_000, &t);
    assert_eq!(n.frag, 0.0);
    let sc = SharingRule::Fgd.score(&n, &ask(1000, 1, 300), &t, &mut Vec::new());
    // On GPU 1 (700 → 400): 400 stranded, Δ = −400, ⌊100σ(−0.4)⌋ = 40.
    // On GPU 0 or 2 (1000 → 700): nothing stranded, Δ = 0 → 50; lowest index wins.
    assert_eq!((sc.score, sc.gpu), (50, Some(0)));
    let sc = SharingRule::Fgd.score(&n, &ask(1000, 1, 200), &t, &mut Vec::new());
    // 700 → 500 strands nothing either: GPU 0 (first of the best) still.
    assert_eq!((sc.score, sc.gpu), (50, Some(0)));
    // A whole GPU: the lowest-index idle one; Δ = 0.
    let sc = SharingRule::Fgd.score(&n, &ask(1000, 1, 1000), &t, &mut Vec::new());
    assert_eq!((sc.score, sc.gpu), (50, None));
    // Filling a node's stranded 400 lowers fragmentation: a positive Δ.
    let frag = node(&[400, 1000], 32_000, &t);
    assert_eq!(frag.frag, 400.0);
    let sc = SharingRule::Fgd.score(&frag, &ask(1000, 1, 400), &t, &mut Vec::new());
    assert_eq!(
        (sc.score, sc.gpu),
        ((100.0 / (1.0 + (-0.4f64).exp())) as i32, Some(0))
    );
}

fn small_cluster() -> (Cluster, Vec<Pod>) {
    let mut c = Cluster::default();
    let t = c.type_id("T4");
    c.machines = (0..6)
        .map(|i| machine(&format!("n{i}"), 2, 16_000, t))
        .collect();
    let pods = (0..30)
        .map(|i| match i % 3 {
            0 => pod(&format!("p{i:02}"), 2000, 1, 300),
            1 => pod(&format!("p{i:02}"), 4000, 1, 1000),
            _ => pod(&format!("p{i:02}"), 1000, 0, 0),
        })
        .collect();
    (c, pods)
}

#[test]
fn an_inflation_reaches_its_target_places_what_fits_and_is_the_same_each_time() {
    let (c, pods) = small_cluster();
    let s = Setup::new(&c, &pods);
    assert_eq!((s.gpus, s.kinds), (12, 3));
    for rule in SharingRule::ALL {
        let r = inflate(&s, rule, 42, 1.3);
        let last = r.attempts.last().unwrap();
        // Tuned up to 1.3 × 12,000 milli (clones of 300 or 1000 milli).
        assert!(
            last.arrived as f64 <= 15_600.0 + 1000.0 && last.arrived > 14_000,
            "{rule:?}: {last:?}"
        );
        assert!(r.tuned > 0);
        assert!(last.allocated <= 12_000 && last.allocated + last.idle == 12_000);
        assert_eq!(r.attempts.len() as i64, 30 + r.tuned);
        assert!(r.failed > 0, "{rule:?}: more asked than there is");
        let again = inflate(&s, rule, 42, 1.3);
        assert_eq!(again.attempts, r.attempts, "{rule:?}: same seed, same run");
    }
    let other = inflate(&s, SharingRule::Fgd, 43, 1.3);
    assert_ne!(
        other.attempts,
        inflate(&s, SharingRule::Fgd, 42, 1.3).attempts
    );
}

#[test]
fn a_run_is_binned_by_arrived_percent_as_fgds_scripts_bin_it() {
    let at = |arrived, allocated, frag| Attempt {
        arrived,
        allocated,
        frag,
        idle: 10_000 - allocated,
    };
    // 10 GPUs: 1 % is 100 milli.
    let d = discrete(
        &[
            at(100, 100, 1000.0),
            at(149, 149, 500.0),
            at(151, 100, 0.0),
            at(400, 300, 0.0),
        ],
        10,
    );
    assert_eq!(
        d.alloc[1],
        Some(1.25),
        "1.0 and 1.49 → 1.245 → 1.25 (bin 1)"
    );
    assert_eq!(d.frag[1], Some(7.5), "mean 750 milli of 10,000");
    assert_eq!(d.alloc[2], Some(1.0));
    assert_eq!(
        d.alloc[3],
        Some(2.0),
        "no attempt at 3 %: those within one percent"
    );
    assert_eq!(d.alloc[0], Some(1.25), "no attempt at 0 %: bin 1's");
    assert_eq!(d.alloc[10], None);
    assert_eq!(
        round2(0.125),
        0.12,
        "the decimal nearest the value, as Python rounds"
    );
}
