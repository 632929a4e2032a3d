//! FGD's GPU-sharing placements in the replay: a pod on one machine with
//! the CPU and memory it asks left there, a share of one GPU beside others,
//! the rule switched live — checked on hand-made clusters, and on the
//! openb fixture end to end.

use std::sync::Arc;
use tracetui::sim::sharing::SharingRule;
use tracetui::sim::{Engine, Placement, Policy, Switch};
use tracetui::trace::{Demand, Trace, Unit};

/// Machines of (GPUs, cores) and pods of (submit, run time, GPUs, milli
/// each, cores), each pod asking 1 GiB: `common::tiny`'s trace, made pods.
fn pods(machines: &[(u32, u32)], jobs: &[(i64, i64, u32, u32, u32)]) -> Arc<Trace> {
    let sizes: Vec<u32> = machines.iter().map(|m| m.0).collect();
    let rigid: Vec<(i64, i64, u32)> = jobs.iter().map(|j| (j.0, j.1, j.2)).collect();
    let mut t = (*crate::common::tiny(&sizes, &rigid)).clone();
    for (m, &(_, cores)) in t.cluster.machines.iter_mut().zip(machines) {
        (m.cpu_milli, m.mem_mib) = (cores * 1000, 1 << 16);
    }
    for (j, &(_, _, gpus, milli, cores)) in t.jobs.iter_mut().zip(jobs) {
        j.id = j.id.replacen('j', "p", 1).into();
        j.demand = Demand::Instances(Box::new([Unit::gpus(1, gpus * milli)]));
        (j.cpu_milli, j.mem_mib) = (cores * 1000, 1024);
    }
    Arc::new(t)
}

/// The machine and GPUs job `j` runs on.
fn on(e: &Engine, j: u32) -> (u32, Vec<(u16, u16)>) {
    let g = e
        .running()
        .get(&j)
        .unwrap_or_else(|| panic!("p{j} is not running"));
    (g[0].machine, g.iter().map(|g| (g.gpu, g.milli)).collect())
}

#[test]
fn no_placement_puts_a_pod_where_its_cpu_is_not_free() {
    // p0 takes 6 of m0's 8 cores; p1 asks 4: m0 has a GPU but not the CPU.
    let t = pods(
        &[(2, 8), (2, 8)],
        &[(0, 100, 1, 1000, 6), (0, 100, 1, 1000, 4)],
    );
    for p in Placement::ALL {
        let mut e = Engine::new(t.clone(), Policy::Fifo, p);
        e.advance_to(0);
        let (a, b) = (on(&e, 0).0, on(&e, 1).0);
        assert_ne!(a, b, "{p:?}: both on m{a}, 10 of its 8 cores");
    }
    // Consolidate still packs GPUs where the CPU allows: p1 (1 core) joins p0.
    let t = pods(
        &[(2, 8), (2, 8)],
        &[(0, 100, 1, 1000, 6), (0, 100, 1, 1000, 1)],
    );
    let mut e = Engine::new(t, Policy::Fifo, Placement::Consolidate);
    e.advance_to(0);
    assert_eq!((on(&e, 0).0, on(&e, 1).0), (0, 0));
}

#[test]
fn shares_go_where_the_rule_says_and_wait_when_no_gpu_has_room() {
    // m0 one GPU, m1 two. p0 (600) lands first; p1 (300) beside it under
    // best-fit (the fullest that fits), p2 (500) finds no GPU with room on
    // m0 and takes m1.
    let t = pods(
        &[(1, 32), (2, 32)],
        &[
            (0, 100, 1, 600, 1),
            (1, 100, 1, 300, 1),
            (2, 100, 1, 500, 1),
            (3, 100, 2, 1000, 1),
        ],
    );
    let mut e = Engine::new(
        t.clone(),
        Policy::Fifo,
        Placement::Sharing(SharingRule::BestFit),
    );
    e.advance_to(2);
    assert_eq!(on(&e, 0), (0, vec![(0, 600)]));
    assert_eq!(on(&e, 1), (0, vec![(0, 300)]), "the fullest GPU with room");
    assert_eq!(on(&e, 2).0, 1);
    // The two-GPU pod needs two idle GPUs on one machine: none until p2 ends.
    e.advance_to(3);
    assert!(e.running().get(&3).is_none());
    e.advance_to(102);
    assert_eq!(on(&e, 3), (1, vec![(0, 1000), (1, 1000)]));
    e.run_to_end();
    assert_eq!(e.jobs_done(), 4);
}

#[test]
fn switching_to_a_sharing_placement_mid_replay_counts_what_already_runs() {
    // p0 runs under consolidate on m0 with 6 of its 8 cores; after the
    // switch, best-fit must see those 6 cores taken.
    let t = pods(
        &[(2, 8), (2, 8)],
        &[(0, 100, 1, 1000, 6), (5, 100, 1, 1000, 4)],
    );
    let mut e = Engine::new(t, Policy::Fifo, Placement::Consolidate);
    e.advance_to(1);
    e.switch(Switch::Placement(Placement::Sharing(SharingRule::BestFit)));
    e.advance_to(5);
    assert_eq!(on(&e, 1).0, 1);
    assert_eq!(e.placement(), Placement::Sharing(SharingRule::BestFit));
}

#[test]
fn the_cycle_o_steps_through_reaches_every_placement() {
    let mut p = Placement::Consolidate;
    let mut seen = vec![p];
    for _ in 0..Placement::ALL.len() {
        p = p.next();
        seen.push(p);
    }
    assert_eq!(seen.first(), seen.last());
    assert_eq!(seen[..9], Placement::ALL);
    let names: Vec<&str> = Placement::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(
        names,
        [
            "consolidate",
            "pack",
            "spread",
            "random",
            "dot-product",
            "gpu-clustering",
            "gpu-packing",
            "best-fit",
            "fgd"
        ]
    );
    for p in Placement::ALL {
        assert_eq!(Placement::from_name(p.name()), Some(p));
        assert!(!p.about().is_empty());
    }
}

#[test]
fn a_pod_that_names_several_models_runs_only_on_those_under_every_placement() {
    // m0 is a T4 (fullest fit, first), m1 a V100M16, m2 a V100M32; the pod
    // may use V100M16 or V100M32 (openb's `V100M16|V100M32`).
    let mut t = (*pods(
        &[(1, 8), (2, 8), (2, 8)],
        &[(0, 100, 1, 1000, 1), (0, 100, 1, 500, 1)],
    ))
    .clone();
    t.cluster.gpu_types = vec!["T4".into(), "V100M16".into(), "V100M32".into()];
    for (m, ty) in t.cluster.machines.iter_mut().zip([0u16, 1, 2]) {
        m.gpu_type = ty;
    }
    t.jobs[0].any_of_types = 0b110;
    t.jobs[1].gpu_type = Some(0);
    let t = Arc::new(t);
    for p in Placement::ALL {
        let mut e = Engine::new(t.clone(), Policy::Fifo, p);
        e.advance_to(0);
        let (m, _) = on(&e, 0);
        assert!(m == 1 || m == 2, "{p:?}: on m{m}");
        assert_eq!(on(&e, 1).0, 0, "{p:?}: the T4 pod on the T4");
    }
}

#[test]
fn a_pods_card_says_why_the_placement_put_it_there() {
    // m1 is the fullest that fits p1 (best-fit): p0 holds a GPU there.
    let t = pods(
        &[(2, 8), (2, 8), (4, 8)],
        &[(0, 100, 1, 1000, 1), (1, 100, 1, 500, 1)],
    );
    let mut e = Engine::new(
        t.clone(),
        Policy::Fifo,
        Placement::Sharing(SharingRule::BestFit),
    );
    e.advance_to(1);
    let (m0, m1) = (on(&e, 0).0, on(&e, 1).0);
    let r = e.ranking(1).expect("best-fit ranked the machines");
    assert_eq!((r.rule, r.fit), ("best-fit", 3));
    assert_eq!(r.best[0].0, m1, "where it went comes first");
    assert_eq!(m1, m0, "beside p0, the fullest");
    assert!(r.best.windows(2).all(|w| w[0].1 >= w[1].1), "{r:?}");
    let e = Engine::new(t.clone(), Policy::Fifo, Placement::Spread);
    assert!(e.ranking(0).is_none());
    let mut app = tracetui::ui::app::App::new(
        t,
        Policy::Fifo,
        Placement::Sharing(SharingRule::BestFit),
        "pods".into(),
        crate::common::ui::themes(),
        tracetui::ui::keymap::Keymap::defaults(),
    );
    app.update(tracetui::ui::app::Action::GoTo(1));
    let card = app.job_card(1).join("\n");
    assert!(
        card.contains(&format!("why here   best-fit scored m{m1} ")),
        "{card}"
    );
    assert!(card.contains("3 machines fitted"), "{card}");
}

#[test]
fn a_cpu_pod_holds_its_cores_on_a_machine_and_no_gpu() {
    // One machine of 8 cores: a CPU pod of 6 cores, then one of 4 waits
    // for it, under every placement.
    let mut t = (*pods(&[(2, 8)], &[(0, 100, 1, 1000, 6), (0, 100, 1, 1000, 4)])).clone();
    for j in &mut t.jobs {
        j.demand = Demand::Gang { gpus: 0 };
    }
    let t = Arc::new(t);
    for p in Placement::ALL {
        let mut e = Engine::new(t.clone(), Policy::Fifo, p);
        e.advance_to(0);
        let g = e.running().get(&0).unwrap_or_else(|| panic!("{p:?}"));
        assert!(
            g.len() == 1 && !g[0].has_gpu() && g[0].cpu_milli == 6000,
            "{p:?}: {g:?}"
        );
        assert!(e.running().get(&1).is_none(), "{p:?}: 10 of 8 cores");
        e.advance_to(100);
        assert!(e.running().get(&1).is_some(), "{p:?}");
    }
}

#[test]
fn an_external_policy_may_not_name_gpus_where_a_pods_cpu_is_not_free() {
    if !crate::common::python() {
        return;
    }
    // One machine of 4 GPUs and 8 cores. The policy starts each arrival
    // on the GPU of its number (p0, queued when the replay begins, is not
    // one): p1 (6 cores) on GPU 1, then p2 (6 cores) on GPU 2 — a GPU
    // free, the CPU not.
    let t = pods(
        &[(4, 8)],
        &[
            (0, 100, 1, 1000, 1),
            (5, 100, 1, 1000, 6),
            (10, 100, 1, 1000, 6),
        ],
    );
    let p = crate::common::exec::scripted(
        "pinned",
        "explicit",
        "answer = {'start': [{'job': j['job'], 'gpus': [[0, j['job'], 1000]]} for j in msg['arrived']]}",
    );
    let mut e = crate::common::exec::quick(Engine::new(t, p, Placement::Consolidate));
    e.set_halt_on_failure(true);
    tracetui::driver::run_to_end(&mut e);
    assert!(e.halted(), "{:?}", e.report());
    let why = &e.failures()[0].why;
    assert!(
        why.contains("start job 2: machine 0 has not the CPU and memory free"),
        "{why}"
    );
}
