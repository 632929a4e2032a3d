//! A dialogue's process lives while some copy of an engine may still ask
//! in it: the driver keeps it by the dialogue's id, and once every copy is
//! dropped, `driver::reap` (each ask, each frame of the replay) ends it.

use crate::common;
use common::alive;
use std::time::{Duration, Instant};
use tracetui::sim::{Engine, Placement, Policies};

#[test]
fn a_dropped_engines_policy_process_is_ended_by_reap() {
    let dir = common::scratch_dir("reap");
    let pids = dir.join("pids");
    let script = dir.join("policy.sh");
    std::fs::write(
        &script,
        format!(
            "echo \"$$\" >> '{}'\nwhile IFS= read -r line; do\n  case \"$line\" in\n    *'\"hello\"'*) echo '{{\"name\":\"reaped\",\"walk\":\"greedy\"}}' ;;\n    *) echo '{{}}' ;;\n  esac\ndone\n",
            pids.display()
        ),
    )
    .unwrap();
    let p = tracetui::driver::resolve(
        &format!("exec:sh {}", script.display()),
        &mut Policies::new(),
    )
    .unwrap();
    let t = common::tiny(&[4], &[(0, 100, 1), (10, 100, 1)]);
    let mut e = Engine::new(t, p, Placement::Consolidate);
    tracetui::driver::advance_to(&mut e, 10);
    let started: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    // The probe's process, then the dialogue's.
    assert_eq!(started.len(), 2, "{started:?}");
    let dialogue = started[1];
    assert!(
        alive(dialogue),
        "the dialogue's process runs while its engine may ask"
    );
    let copy = e.clone();
    drop(e);
    tracetui::driver::reap();
    assert!(
        alive(dialogue),
        "a copy of the engine may still ask in the dialogue"
    );
    drop(copy);
    tracetui::driver::reap();
    let by = Instant::now() + Duration::from_secs(5);
    while alive(dialogue) && Instant::now() < by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(dialogue), "no engine can ask: its process is ended");
}
