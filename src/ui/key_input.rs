//! A key press as an action, given what has the keyboard: a prompt
//! (readline's basics), a picker (type to jump), the log pane, or the
//! keymap.

use super::app::{Action, App, Focus, Popup};
use super::keymap::Command;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The action for a key, given what has the keyboard (a prompt, the log pane, or the keymap).
pub(crate) fn key_action(app: &App, key: &KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if matches!(app.view.popup, Some(Popup::Prompt { .. })) {
        return prompt_action(key);
    }
    if let (Some(Popup::Picker { .. }), KeyCode::Char(c)) = (&app.view.popup, key.code) {
        // Type to jump: a letter the picker has no use for names a policy.
        let picks = matches!(
            app.view.keymap.command(key),
            Some(
                Command::Up
                    | Command::Down
                    | Command::PageUp
                    | Command::PageDown
                    | Command::Detail
                    | Command::Close
                    | Command::Quit
                    | Command::Help
                    | Command::Placement
            )
        );
        if !picks && c.is_alphanumeric() && key.modifiers.difference(KeyModifiers::SHIFT).is_empty()
        {
            return Some(Action::Char(c));
        }
    }
    let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
    if ctrl_c {
        return Some(Action::Command(Command::Quit));
    }
    // Below the smallest screen only the notice is drawn: no key acts
    // unseen (`?` opened help behind it), but quitting still works.
    if super::layout::too_small(app.view.screen.area()) {
        let quit = app.view.keymap.command(key) == Some(Command::Quit);
        return quit.then_some(Action::Command(Command::Quit));
    }
    if app.view.focus == Focus::Log && app.view.popup.is_none() {
        use tui_logger::TuiWidgetEvent as W;
        // The log pane scrolls a page at a time (tui-logger's one way);
        // its other keys act on a target list this pane does not show.
        let w = match key.code {
            KeyCode::Up | KeyCode::PageUp => Some(W::PrevPageKey),
            KeyCode::Down | KeyCode::PageDown => Some(W::NextPageKey),
            _ => None,
        };
        if let Some(w) = w {
            return Some(Action::Log(w));
        }
        if key.code == KeyCode::Esc {
            return Some(Action::Command(Command::Focus));
        }
    }
    app.view.keymap.command(key).map(Action::Command)
}

/// A key in a prompt: readline's basics. Ctrl-C and Esc cancel the
/// prompt (not the program); a terminal whose Backspace sends ^H erases.
fn prompt_action(key: &KeyEvent) -> Option<Action> {
    use super::line_edit::Edit;
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let edit = |e| Some(Action::Edit(e));
    match (key.code, ctrl) {
        (KeyCode::Enter, _) => Some(Action::Command(Command::Detail)),
        (KeyCode::Tab, _) => Some(Action::Complete),
        (KeyCode::Esc, _) | (KeyCode::Char('c'), true) => Some(Action::Command(Command::Close)),
        (KeyCode::Backspace, _) | (KeyCode::Char('h'), true) => Some(Action::Backspace),
        (KeyCode::Delete, _) | (KeyCode::Char('d'), true) => edit(Edit::DeleteForward),
        (KeyCode::Left, _) | (KeyCode::Char('b'), true) => edit(Edit::Left),
        (KeyCode::Right, _) | (KeyCode::Char('f'), true) => edit(Edit::Right),
        (KeyCode::Home, _) | (KeyCode::Char('a'), true) => edit(Edit::Home),
        (KeyCode::End, _) | (KeyCode::Char('e'), true) => edit(Edit::End),
        (KeyCode::Char('u'), true) => edit(Edit::KillToStart),
        (KeyCode::Char('k'), true) => edit(Edit::KillToEnd),
        (KeyCode::Char('w'), true) => edit(Edit::KillWord),
        (KeyCode::Char(c), false) if !key.modifiers.contains(KeyModifiers::ALT) => {
            Some(Action::Char(c))
        }
        _ => None,
    }
}
