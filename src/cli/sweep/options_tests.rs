//! The plan's options parsed as `sim` parses them.

use super::*;
use crate::cli::sweep::plan::Plan;

/// The run's arguments as `tracetui sim` parses its command line.
fn by_clap(run: &Run) -> Result<SimArgs> {
    let argv = run.argv_with(|k| Options::new().is_flag_key(k))?;
    let cli = crate::cli::meta::parse(&argv).map_err(|e| {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default();
        eyre!("{}", first.trim_start_matches("error: "))
    })?;
    match cli.command {
        Some(crate::cli::Command::Sim(a)) => Ok(a),
        _ => Err(eyre!("not sim")),
    }
}

/// Every run of `plan`: typed here, and parsed by clap, the same.
fn same(plan: &str) -> usize {
    let options = Options::new();
    let runs = Plan::parse(plan, "p.toml").unwrap().runs().unwrap();
    for r in &runs {
        let typed = options.sim_args(r).map(|a| format!("{a:#?}"));
        let clap = by_clap(r).map(|a| format!("{a:#?}"));
        match (typed, clap) {
            (Ok(t), Ok(c)) => assert_eq!(t, c, "run {:?}", r.settings),
            (Err(t), Err(c)) => assert_eq!(t.to_string(), c.to_string(), "{:?}", r.settings),
            (t, c) => panic!("{:?}: typed {t:?}, clap {c:?}", r.settings),
        }
    }
    runs.len()
}

#[test]
fn defaults_are_sims() {
    assert_eq!(same("trace = \"itp:a.csv\""), 1);
    // A format's alias is kept as given in the provenance.
    assert_eq!(same("trace = \"elasticflow:a.csv\""), 1);
    // An empty path is refused as sim refuses it.
    assert_eq!(same("trace = \"itp:\""), 1);
    assert_eq!(
        same("trace = \"pai:some/dir\"\nstrict = false\nseed = false"),
        1
    );
}

#[test]
fn every_option_a_plan_may_set_is_typed_as_sim_parses_it() {
    let plan = r#"
        trace = ["itp:a.csv", "philly:d"]
        policy = ["fifo", "sjf", "exec:python3 p.py", "exec:python3 p.py[age=2]"]
        gpus = [16, 1]
        gpus_per_node = 4
        strict = true
        include_cpu_jobs = true
        cpu_mem = true
        ties = ["id", "file"]
        throughputs = "A100=dir"
        energy = "zdir"
        gpu = "a40"
        eta = [0.3, 1]
        power = "zeus"
        placement = ["spread", "pack", "consolidate"]
        preempt_cost = 60
        rescale_cost = 5
        rounds = [60, 240]
        las_thresholds = ["100,200", "3600"]
        las_starve = 0
        fair_by = "group"
        policy_schedule = "0:fifo,2d:sjf"
        policy_timeout = 2.5
        seed = [3, 0]
        timeline_tick = ["5m", "1h30m", 90]
    "#;
    assert!(same(plan) > 100);
    let others =
        "trace = \"itp:a.csv\"\ngpu_speed = \"V100=1,T4=0.5\"\ncluster = [\"c.csv\", \"d.csv\"]\n";
    same(others);
    same("trace = \"itp:a.csv\"\nload = [0.8, 2]\n");
}

#[test]
fn what_sim_refuses_the_plan_refuses_in_the_same_words() {
    for bad in [
        "gpus = 0",
        "gpus = \"x\"",
        "gpus = -3",
        "gpus_per_node = 2000",
        "eta = \"abc\"",
        "colour = 1",
        "strict = \"yes\"",
        "gpus = true",
        "gpus = 8\ncluster = \"c.csv\"",
        "load = 0.8\ngpus = 8",
        "throughputs = \"d\"\ngpu_speed = \"V100=1\"",
        "placement = \"diagonal\"",
        "power = \"low\"",
        "gpu = \"h100\"",
        "policy = \"lifo\"",
        "policy = \"fifo[a=1]\"",
        "las_thresholds = \"10,5\"",
        "timeline_tick = \"0\"",
        "seed = -1",
        "preempt_cost = 1.5",
        "rounds = 0",
    ] {
        let plan = format!("trace = \"itp:a.csv\"\n{bad}");
        let options = Options::new();
        let run = &Plan::parse(&plan, "p.toml").unwrap().runs().unwrap()[0];
        let typed = options.sim_args(run).map(|_| ()).map_err(|e| e.to_string());
        let clap = by_clap(run).map(|_| ()).map_err(|e| e.to_string());
        assert!(clap.is_err(), "sim takes {bad}");
        assert_eq!(typed, clap, "{bad}");
    }
    for trace in ["a.csv", "foo:a.csv"] {
        let plan = format!("trace = \"{trace}\"");
        let run = &Plan::parse(&plan, "p.toml").unwrap().runs().unwrap()[0];
        assert!(Options::new().sim_args(run).is_err(), "{trace}");
    }
}

#[test]
fn every_sim_option_is_a_plan_key_or_the_sweeps_own() {
    let options = Options::new();
    for arg in options.sim.get_arguments().filter(|a| !a.is_positional()) {
        let id = arg.get_id().as_str();
        if matches!(id, "help" | "version") {
            continue;
        }
        let mut a = blank(crate::trace::Format::find("itp").unwrap(), "a".into());
        let v = arg
            .get_default_values()
            .first()
            .map_or("1".to_string(), |d| d.to_string_lossy().into_owned());
        let set = options.set(&mut a, arg, &v);
        assert!(
            !matches!(&set, Err(e) if e.kind() == ErrorKind::UnknownArgument),
            "--{} is a sim option the plan does not know",
            arg.get_long().unwrap_or(id)
        );
    }
}
