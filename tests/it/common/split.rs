//! The A/B split opened as a user opens it: `A`, the picker moved to a
//! policy, Enter. Shared by the tests and `benches/ui.rs` (by path).

use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App, Popup};
use tracetui::ui::keymap::Command;

/// `A`, the picker moved to `p`, Enter: `p` on the B side, unless `p` is
/// the live policy.
pub fn split_with(app: &mut App, p: Policy) {
    app.update(Action::Command(Command::Split));
    let Some(&Popup::Picker { at, split: true }) = app.popup() else {
        panic!("A opens the picker for B: {:?}", app.popup());
    };
    let all = app.policies().all();
    let n = all.len();
    let to = all.iter().position(|&q| q == p).unwrap();
    for _ in 0..(to + n - at) % n {
        app.update(Action::Command(Command::Down));
    }
    app.update(Action::Command(Command::Detail));
    // Closed either way; a refused pick (the live policy) opens no split.
    assert!(app.popup().is_none(), "{:?}", app.popup());
}
