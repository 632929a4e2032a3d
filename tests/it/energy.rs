//! Zeus energy on a replay: the power-limit choice, run-time scaling and
//! energy accounting on a hand-made power trace (tests/fixtures/zeus, two
//! limits per workload) where every figure can be worked out by hand.

use crate::common;

use common::tiny;
use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{
    workload_of, EnergyModel, Engine, Mapped, Placement, Policy, PowerPolicy, Replay, Switch,
};
use tracetui::trace::Trace;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/zeus");
const C: Placement = Placement::Consolidate;

fn model(eta: f64) -> Arc<EnergyModel> {
    Arc::new(EnergyModel::load(Path::new(FIXTURE), "v100", eta).unwrap())
}

fn engine(t: &Arc<Trace>, power: PowerPolicy) -> Engine {
    Engine::new(t.clone(), Policy::Fifo, C).with_energy(model(0.5), power)
}

#[test]
fn zeus_picks_the_limit_minimising_the_weighted_cost() {
    let m = model(0.5);
    // cifar100 at its default batch size 1024 (not the more-run 512):
    //   100 W: 0.5·80·12 + 0.5·200·12 = 1680;  200 W: 0.5·150·10 + 0.5·200·10 = 1750.
    // The sgd row at 100 W (1 s, 1 W) comes second in the file and is ignored.
    let d = m.draw(PowerPolicy::Zeus, 0);
    assert_eq!(m.profiles[0].batch_size, 1024);
    assert_eq!(d.limit, 100);
    assert!((d.time_factor - 1.2).abs() < 1e-12, "{d:?}");
    assert_eq!(d.watts, 80.0);
    // The others: 100 W costs 0.5·90·20 + 0.5·200·20 = 2900 > 1750 at 200 W.
    for w in 1..6 {
        let d = m.draw(PowerPolicy::Zeus, w);
        assert_eq!(
            (d.limit, d.time_factor, d.watts),
            (200, 1.0, 150.0),
            "workload {w}"
        );
    }
    // max: the highest limit, no slowdown.
    let d = m.draw(PowerPolicy::Max, 0);
    assert_eq!((d.limit, d.time_factor, d.watts), (200, 1.0, 150.0));
    // η = 0 weighs only time: the fastest limit everywhere.
    assert_eq!(model(0.0).draw(PowerPolicy::Zeus, 0).limit, 200);
    // η = 1 weighs only energy: cifar 80·12 = 960 < 1500; others 90·20 = 1800 > 1500.
    let m1 = model(1.0);
    assert_eq!(m1.draw(PowerPolicy::Zeus, 0).limit, 100);
    assert_eq!(m1.draw(PowerPolicy::Zeus, 3).limit, 200);
}

#[test]
fn jobs_map_by_name_else_by_gpu_hours() {
    // (submit, run time, GPUs): 0.5 GPU-h, 2 GPU-h, 10, 40, 100, 1000 GPU-h.
    let t = tiny(
        &[8],
        &[
            (0, 1800, 1),
            (0, 7200, 1),
            (0, 3600 * 10, 1),
            (0, 3600 * 5, 8),
            (0, 3600 * 100, 1),
            (0, 3600 * 125, 8),
        ],
    );
    let got: Vec<_> = t.jobs.iter().map(|j| workload_of(&t, j)).collect();
    let want: Vec<_> = [0, 3, 5, 4, 2, 1]
        .into_iter()
        .map(|w| (w, Mapped::ByGpuTime))
        .collect();
    assert_eq!(got, want);
    // A model name wins over the GPU-hours: ResNet50 → imagenet, BERT → squad.
    let mut named = (*t).clone();
    let r = named.symbols.intern("ResNet50");
    let b = named.symbols.intern("bert");
    let u = named.symbols.intern("unheard-of-model");
    named.jobs[0].model = Some(r);
    named.jobs[1].model = Some(b);
    named.jobs[2].model = Some(u);
    assert_eq!(workload_of(&named, &named.jobs[0]), (1, Mapped::ByName));
    assert_eq!(workload_of(&named, &named.jobs[1]), (4, Mapped::ByName));
    assert_eq!(workload_of(&named, &named.jobs[2]), (5, Mapped::ByGpuTime));
}

#[test]
fn zeus_slows_jobs_and_saves_energy_by_the_hand_computed_amounts() {
    // One GPU, two 100 s cifar100 jobs (tiny GPU-time) at t = 0.
    let t = tiny(&[1], &[(0, 100, 1), (0, 100, 1)]);
    let mut e = engine(&t, PowerPolicy::Max);
    e.run_to_end();
    let r = e.report();
    assert_eq!(e.job_state(1).start, 100);
    assert_eq!(r.makespan_s, Some(200));
    // 150 W × 200 s = 30 000 J.
    assert!((r.energy_kwh.unwrap() - 30_000.0 / 3.6e6).abs() < 1e-12);
    assert!((r.avg_power_w.unwrap() - 150.0).abs() < 1e-9);

    let mut e = engine(&t, PowerPolicy::Zeus);
    e.run_to_end();
    let r = e.report();
    // 100 s × 1.2 = 120 s each, at 80 W: 80 × 240 = 19 200 J.
    assert_eq!(e.job_state(1).start, 120);
    assert_eq!(r.makespan_s, Some(240));
    assert!((r.energy_kwh.unwrap() - 19_200.0 / 3.6e6).abs() < 1e-12);
    assert!((r.avg_power_w.unwrap() - 80.0).abs() < 1e-9);
    let p = e.job_power(1).unwrap();
    assert_eq!((p.limit, p.watts), (100, 0.0));
    assert!((p.joules - 9_600.0).abs() < 1e-9);
}

#[test]
fn power_is_drawn_per_gpu_and_tracked_while_running() {
    // A 4-GPU job and a 1-GPU job side by side, under max.
    let t = tiny(&[8], &[(0, 100, 4), (0, 50, 1)]);
    let mut e = engine(&t, PowerPolicy::Max);
    e.advance_to(10);
    assert_eq!(e.watts(), Some(5.0 * 150.0));
    let p = e.job_power(0).unwrap();
    assert_eq!(p.watts, 600.0);
    assert!((p.joules - 600.0 * 10.0).abs() < 1e-9);
    assert!((e.joules().unwrap() - 750.0 * 10.0).abs() < 1e-9);
    e.advance_to(60);
    assert_eq!(e.watts(), Some(600.0));
    e.run_to_end();
    assert_eq!(e.watts(), Some(0.0));
    // 600 W × 100 s + 150 W × 50 s.
    assert!((e.joules().unwrap() - 67_500.0).abs() < 1e-9);
    // Without an energy model there are no figures at all.
    let mut plain = Engine::new(t.clone(), Policy::Fifo, C);
    plain.run_to_end();
    assert_eq!(plain.report().energy_kwh, None);
    assert_eq!(plain.watts(), None);
    let json = serde_json::to_string(&plain.report()).unwrap();
    assert!(!json.contains("energy"), "{json}");
}

#[test]
fn a_live_power_switch_applies_to_jobs_started_after_it() {
    let t = tiny(&[1], &[(0, 100, 1), (0, 100, 1)]);
    let mut r = Replay::new(engine(&t, PowerPolicy::Max));
    r.seek(50);
    r.set_power(PowerPolicy::Zeus);
    r.seek(1000);
    let e = r.engine();
    // Job 0 keeps its max limit (ends at 100); job 1 starts under zeus: 120 s.
    assert_eq!(e.job_state(0).end, 100);
    assert_eq!(e.job_state(1).end, 220);
    // 150 × 100 + 80 × 120 = 24 600 J.
    assert!((e.joules().unwrap() - 24_600.0).abs() < 1e-9);
    assert_eq!(e.power_policy(), Some(PowerPolicy::Zeus));
    assert_eq!(r.switches(), &[(50, Switch::Power(PowerPolicy::Zeus))]);

    // Stepping back before the switch and forward again gives the same run, byte for byte.
    let end = serde_json::to_string(&r.engine().report()).unwrap();
    r.seek(20);
    assert_eq!(r.engine().power_policy(), Some(PowerPolicy::Max));
    assert!((r.engine().joules().unwrap() - 150.0 * 20.0).abs() < 1e-9);
    r.seek(1000);
    assert_eq!(serde_json::to_string(&r.engine().report()).unwrap(), end);
    // Without an energy model the switch is refused (no entry, no change).
    let mut plain = Replay::new(Engine::new(t.clone(), Policy::Fifo, C));
    plain.set_power(PowerPolicy::Zeus);
    assert!(plain.switches().is_empty());
}

#[test]
fn recorded_holds_draw_at_the_highest_limit() {
    let (t, _) = tracetui::trace::load_pai(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pai")),
        &Default::default(),
    )
    .unwrap();
    let t = Arc::new(t);
    let run = |p| {
        let mut e = Engine::new(t.clone(), Policy::Recorded, C).with_energy(model(0.5), p);
        e.run_to_end();
        e.report()
    };
    let (max, zeus) = (run(PowerPolicy::Max), run(PowerPolicy::Zeus));
    assert!(max.energy_kwh.unwrap() > 0.0);
    // The recorded history is what happened: the power policy does not change it.
    assert_eq!(
        serde_json::to_string(&max).unwrap(),
        serde_json::to_string(&zeus).unwrap()
    );
}

#[test]
fn missing_or_bad_rows_name_the_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("tracetui-zeus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let train = std::fs::read_to_string(Path::new(FIXTURE).join("summary_train.csv")).unwrap();
    let power = std::fs::read_to_string(Path::new(FIXTURE).join("summary_power_v100.csv")).unwrap();
    std::fs::write(dir.join("summary_train.csv"), &train).unwrap();
    let err = |power: &str| {
        std::fs::write(dir.join("summary_power_v100.csv"), power).unwrap();
        EnergyModel::load(&dir, "v100", 0.5)
            .unwrap_err()
            .to_string()
    };
    // A workload with no power rows.
    let no_squad: String = power
        .lines()
        .filter(|l| !l.starts_with("squad"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = err(&no_squad);
    assert!(
        e.contains("summary_power_v100.csv") && e.contains("squad/bert_base_uncased"),
        "{e}"
    );
    // A power limit that is not a number, on line 9.
    let bad = power.replace(
        "librispeech,deepspeech2,192,adam,100,",
        "librispeech,deepspeech2,192,adam,1OO,",
    );
    let e = err(&bad);
    assert!(
        e.contains("summary_power_v100.csv:9") && e.contains("power_limit") && e.contains("1OO"),
        "{e}"
    );
    // A header without average_power.
    let e = err(&power.replace("average_power", "avg_power"));
    assert!(
        e.contains("summary_power_v100.csv:1") && e.contains("average_power"),
        "{e}"
    );
    // A GPU with no power trace in the directory.
    let e = EnergyModel::load(&dir, "a40", 0.5).unwrap_err().to_string();
    assert!(e.contains("summary_power_a40.csv"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn real_zeus_power_traces_load_and_zeus_never_costs_more_than_max() {
    let Some(dir) = common::real_traces() else {
        eprintln!("skipped: TRACETUI_REAL_TRACES is not set (real Zeus files)");
        return;
    };
    let dir = dir.join("zeus");
    for gpu in ["a40", "p100", "rtx6000", "v100"] {
        let m = EnergyModel::load(&dir, gpu, 0.5).unwrap();
        for (w, p) in m.profiles.iter().enumerate() {
            let max = p.max_limit() as f64;
            let cost = |limit: u32| {
                let &(_, t, watts) = p.limits.iter().find(|l| l.0 == limit).unwrap();
                0.5 * watts * t + 0.5 * max * t
            };
            let z = m.draw(PowerPolicy::Zeus, w);
            let x = m.draw(PowerPolicy::Max, w);
            assert_eq!(x.limit as f64, max);
            assert!(cost(z.limit) <= cost(x.limit), "{gpu} workload {w}");
            // Every measured limit costs at least the chosen one.
            for l in &p.limits {
                assert!(
                    cost(l.0) >= cost(z.limit),
                    "{gpu} workload {w} limit {}",
                    l.0
                );
            }
        }
    }
    // v100 has every workload's default batch size measured.
    let m = EnergyModel::load(&dir, "v100", 0.5).unwrap();
    let batches: Vec<u32> = m.profiles.iter().map(|p| p.batch_size).collect();
    assert_eq!(batches, tracetui::trace::DEFAULT_BATCH);
}

fn fingerprint(e: &Engine) -> String {
    let states: Vec<_> = (0..e.trace().jobs.len() as u32)
        .map(|j| (e.job_state(j), e.job_power(j)))
        .collect();
    format!(
        "{} {} {:?} {:?} {:?} {:?} {}",
        e.now(),
        e.policy(),
        e.power_policy(),
        states,
        e.watts(),
        e.joules(),
        serde_json::to_string(&e.report()).unwrap()
    )
}

proptest::proptest! {
    #[test]
    fn stepping_back_through_power_switches_equals_a_fresh_run(
        jobs in proptest::collection::vec((0i64..600, 1i64..200, 1u32..5), 1..30),
        steps in proptest::collection::vec((0u8..4, 1i64..250), 1..20),
    ) {
        let t = tiny(&[4, 4], &jobs);
        let mut r = Replay::new(engine(&t, PowerPolicy::Max));
        for (kind, d) in steps {
            match kind {
                0 => r.seek(r.now() + d),
                1 => r.seek(r.now() - d),
                2 => r.set_power(if d % 2 == 0 { PowerPolicy::Zeus } else { PowerPolicy::Max }),
                _ => r.set_policy(if d % 2 == 0 { Policy::Sjf } else { Policy::Fifo }),
            }
            let mut fresh = engine(&t, PowerPolicy::Max);
            for &(s, sw) in r.switches().iter().filter(|s| s.0 <= r.now()) {
                fresh.advance_to(s);
                fresh.switch(sw);
            }
            fresh.advance_to(r.now());
            proptest::prop_assert_eq!(fingerprint(r.engine()), fingerprint(&fresh));
        }
    }
}

#[test]
fn alibaba_groups_load_as_single_gpu_jobs_of_named_workloads() {
    let (t, report) = tracetui::trace::load_zeus(Path::new(FIXTURE), &Default::default()).unwrap();
    let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "g-cifar",
            "g-cifar#2",
            "g-img",
            "g-speech",
            "g-ncf",
            "g-squad",
            "g-senti",
            "g-cifar#3"
        ]
    );
    // Six jobs overlap at t = 400..550: one node of 8.
    assert_eq!(t.cluster.total_gpus(), 8);
    assert!(report
        .notes
        .iter()
        .any(|n| n.contains("peak number of jobs running at once, 6")));
    let mapped: Vec<_> = t.jobs.iter().map(|j| workload_of(&t, j)).collect();
    assert!(mapped.iter().all(|m| m.1 == Mapped::ByName));
    assert_eq!(
        mapped.iter().map(|m| m.0).collect::<Vec<_>>(),
        [0, 0, 1, 2, 3, 4, 5, 0]
    );
    // Recorded: every job runs exactly its recorded interval.
    let t = Arc::new(t);
    let mut e =
        Engine::new(t.clone(), Policy::Recorded, C).with_energy(model(0.5), PowerPolicy::Max);
    e.run_to_end();
    for (j, job) in t.jobs.iter().enumerate() {
        let st = e.job_state(j as u32);
        assert_eq!(
            (st.start, st.end - st.start),
            (job.submit, job.runtime.get().unwrap())
        );
    }
    // 150 W per GPU-second of every job: Σ run times = 1000+1200+3600+2000+300+1000+600+800.
    assert!((e.joules().unwrap() - 150.0 * 10_500.0).abs() < 1e-6);
    // Under fifo with zeus limits, the three cifar100 jobs run 1.2× longer at 80 W.
    let mut z = Engine::new(t.clone(), Policy::Fifo, C).with_energy(model(0.5), PowerPolicy::Zeus);
    z.run_to_end();
    assert_eq!(z.job_state(1).end - z.job_state(1).start, 1440);
    let want = 80.0 * 1.2 * 3000.0 + 150.0 * 7500.0;
    assert!(
        (z.joules().unwrap() - want).abs() < 1e-6,
        "{:?}",
        z.joules()
    );
}

#[test]
fn bad_alibaba_group_rows_name_the_line_and_field() {
    let dir = std::env::temp_dir().join(format!("tracetui-groups-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("alibaba_groups.csv");
    let head = "group,start_time,end_time,dataset,runtime_ratio\n";
    let load = |body: &str, strict: bool| {
        std::fs::write(&f, format!("{head}{body}")).unwrap();
        let opts = tracetui::trace::LoadOptions {
            strict,
            ..Default::default()
        };
        tracetui::trace::load_zeus(&dir, &opts)
    };
    let body = "a,0,10,squad,1\nb,5,1,squad,1\nc,0,10,mnist,1\nd,0,x,squad,1\n";
    let e = load(body, true).unwrap_err().to_string();
    assert!(
        e.contains("alibaba_groups.csv:3") && e.contains("end_time"),
        "{e}"
    );
    let (t, r) = load(body, false).unwrap();
    assert_eq!(t.jobs.len(), 1);
    let skipped = r.skip_lines().join("\n");
    assert!(
        skipped.contains("3 bad rows") || skipped.contains("skipped 3"),
        "{skipped}"
    );
    assert!(
        skipped.contains("'mnist' is not a Zeus workload"),
        "{skipped}"
    );
    let e = load("", true).unwrap_err().to_string();
    assert!(e.contains("no jobs"), "{e}");
    std::fs::write(&f, "job,start\n").unwrap();
    let e = tracetui::trace::load_zeus(&f, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("alibaba_groups.csv:1") && e.contains("unknown header"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
