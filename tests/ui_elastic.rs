//! An elastic replay at 80×24: a job shrinking shows in the grid, the
//! running list (GPUs it holds now, not what it asked for) and the log.

mod common;
use common::ui::{act, app_for, render, text};
use std::sync::Arc;
use tracetui::sim::Policy;
use tracetui::trace::{itp, throughput::Tables, LoadOptions};
use tracetui::ui::action::Action;
use tracetui::ui::keymap::Command;

#[test]
fn a_resize_shows_in_the_grid_the_running_list_and_the_log() {
    let d = common::scratch_dir("ui-elastic");
    let tables = d.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    std::fs::write(
        tables.join("m.csv"),
        "global_batch_size,1,2,4\n32,2,3,5\n2,1,1.5,2\n",
    )
    .unwrap();
    // a asks for 1 GPU but gets all 4; b (due first, at most 2) arrives at 10.
    let trace = d.join("t.csv");
    std::fs::write(
        &trace,
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n\
         a,0,1000,m,9999,32,1,999\nb,10,3000,m,5000,2,1,999\n",
    )
    .unwrap();
    let opts = LoadOptions {
        gpus: Some(4),
        gpus_per_node: 4,
        ..LoadOptions::default()
    };
    let (mut t, _) = itp::load(&trace, &opts).unwrap();
    let tables = Tables::load(&tables, None).unwrap();
    tracetui::trace::speed::attach(&mut t, vec![tables]).unwrap();
    let mut app = app_for(Arc::new(t), Policy::EdfElastic, (80, 24));
    app.update(Action::GoTo(5));
    let before = text(&render(&app, 80, 24));
    assert!(before.contains("4/4 busy"), "{before}");
    assert!(
        before
            .lines()
            .any(|l| l.contains("│▸a ") && l.contains(" 4 ")),
        "a holds 4 GPUs though it asked for 1:\n{before}"
    );
    // One tick (a minute): b arrives at 10 and waits for the round at 60
    // (ElasticFlow's slot), where a shrinks; logged one line each.
    let u = act(&mut app, Action::Command(Command::Step));
    let lines = u.log_lines();
    let after = text(&render(&app, 80, 24));
    let logged = |what: &str| lines.iter().any(|l| l.ends_with(what));
    assert!(logged("00:01:00 shrank a · 4→2 GPUs"), "{lines:?}");
    assert!(logged("00:01:00 started b · 2 GPUs"), "{lines:?}");
    assert!(
        after.lines().any(|l| l.contains("a ") && l.contains(" 2 ")),
        "{after}"
    );
}
