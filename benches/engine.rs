//! Engine benchmarks: every policy to completion on the released cluster04
//! (when TRACETUI_REAL_TRACES is set) and on a generated 1,260,000-job ITP
//! trace at offered load 0.9 on 843 machines × 8 GPUs.
//!
//! Run: `cargo bench --bench engine` (add TRACETUI_REAL_TRACES=../shared/traces).

use std::sync::{Arc, OnceLock};
use tracetui::gen::itp::{self as gen, GenOptions, Schema};
use tracetui::sim::{self, Placement, Policy};
use tracetui::trace::{load_itp, load_itp_from, LoadOptions, Trace};

fn main() {
    divan::main();
}

const POLICIES: [Policy; 8] = [
    Policy::Fifo,
    Policy::FirstFit,
    Policy::FifoBackfill,
    Policy::Sjf,
    Policy::Sgf,
    Policy::Srtf,
    Policy::Las,
    Policy::Fair,
];

fn big_csv() -> &'static Vec<u8> {
    static CSV: OnceLock<Vec<u8>> = OnceLock::new();
    CSV.get_or_init(|| {
        let opts = GenOptions {
            jobs: 1_260_000,
            seed: 7,
            schema: Schema::Raw,
            target: Some((6744, 0.9)),
        };
        let mut v = Vec::new();
        gen::write(&opts, &mut v).unwrap();
        v
    })
}

fn big() -> Arc<Trace> {
    static T: OnceLock<Arc<Trace>> = OnceLock::new();
    T.get_or_init(|| {
        let opts = LoadOptions {
            gpus: Some(6744),
            ..LoadOptions::default()
        };
        Arc::new(
            load_itp_from(&big_csv()[..], "generated-1.26M", &opts)
                .unwrap()
                .0,
        )
    })
    .clone()
}

/// The same size at offered load 1.0, where fifo's queue peaks near 19,000 jobs.
fn saturated() -> Arc<Trace> {
    static T: OnceLock<Arc<Trace>> = OnceLock::new();
    T.get_or_init(|| {
        let g = GenOptions {
            jobs: 1_260_000,
            seed: 7,
            schema: Schema::Raw,
            target: Some((6744, 1.0)),
        };
        let mut v = Vec::new();
        gen::write(&g, &mut v).unwrap();
        let opts = LoadOptions {
            gpus: Some(6744),
            ..LoadOptions::default()
        };
        Arc::new(
            load_itp_from(&v[..], "generated-1.26M-load1", &opts)
                .unwrap()
                .0,
        )
    })
    .clone()
}

fn cluster04() -> Option<Arc<Trace>> {
    static T: OnceLock<Option<Arc<Trace>>> = OnceLock::new();
    T.get_or_init(|| {
        let dir = std::env::var_os("TRACETUI_REAL_TRACES")?;
        let path = std::path::Path::new(&dir).join("itp/raw/cluster04.csv");
        Some(Arc::new(load_itp(&path, &LoadOptions::default()).ok()?.0))
    })
    .clone()
}

#[divan::bench(args = POLICIES, sample_count = 10)]
fn cluster04_to_end(policy: Policy) {
    match cluster04() {
        Some(t) => {
            divan::black_box(sim::run(t, policy, Placement::Consolidate));
        }
        None => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| eprintln!("cluster04 skipped: TRACETUI_REAL_TRACES is not set"));
        }
    }
}

#[divan::bench(args = POLICIES, sample_count = 3, sample_size = 1)]
fn generated_1m26_to_end(bencher: divan::Bencher, policy: Policy) {
    let t = big();
    bencher.bench(|| divan::black_box(sim::run(t.clone(), policy, Placement::Consolidate)));
}

/// The non-preemptive policies (at offered load 1.0, preemption's restart
/// costs push the load past capacity and the queue grows without bound).
const SATURATED: [Policy; 5] = [
    Policy::Fifo,
    Policy::FirstFit,
    Policy::FifoBackfill,
    Policy::Sjf,
    Policy::Sgf,
];

#[divan::bench(args = SATURATED, sample_count = 3, sample_size = 1)]
fn generated_1m26_load1_to_end(bencher: divan::Bencher, policy: Policy) {
    let t = saturated();
    bencher.bench(|| divan::black_box(sim::run(t.clone(), policy, Placement::Consolidate)));
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn generated_1m26_load_csv(bencher: divan::Bencher) {
    let csv = big_csv();
    let opts = LoadOptions {
        gpus: Some(6744),
        ..LoadOptions::default()
    };
    bencher.bench(|| divan::black_box(load_itp_from(&csv[..], "generated", &opts).unwrap()));
}

/// The what-if fork from mid-trace: every policy this trace supports from
/// the state of a fifo replay halfway through, on two threads.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn generated_1m26_what_if_from_mid_trace(bencher: divan::Bencher) {
    use tracetui::sim::{runs_for, Fork};
    let t = big();
    let mid = (t.first_submit().unwrap() + t.last_submit().unwrap()) / 2;
    let mut base = sim::Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
    base.advance_to(mid);
    bencher.bench(|| {
        let runs = runs_for(&base, &[], &tracetui::sim::Policies::new());
        divan::black_box(Fork::start(&base, runs, 2, &tracetui::sim::NoPrograms).wait())
    });
}
