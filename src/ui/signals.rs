//! The terminal's side of the signals the replay answers (they are heard
//! by the driver, `driver::signals`): INT, TERM, HUP and QUIT quit through
//! the same path as `q` (the terminal restored, every policy process
//! ended) and the process then dies of the signal (status 128+N); TSTP (or
//! Ctrl-Z, which raw mode delivers as a key) gives the terminal back before
//! stopping, and CONT takes it again and redraws everything; the driver's
//! watchdog restores the terminal (`restore`) if it went away.

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::crossterm::{cursor, execute, style, terminal};

/// Leaves the alternate screen and raw mode, shows the cursor; safe to call twice.
pub(crate) fn restore() {
    let mut out = std::io::stdout();
    let _ = execute!(
        out,
        event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show,
        style::ResetColor
    );
    let _ = terminal::disable_raw_mode();
}

/// Whether `ev` is Ctrl-Z (raw mode turns the terminal's suspend key into a key).
pub(crate) fn is_suspend_key(ev: &Event) -> bool {
    matches!(
        ev,
        Event::Key(KeyEvent { code: KeyCode::Char('z'), modifiers, .. })
            if modifiers.contains(KeyModifiers::CONTROL)
    )
}

/// Gives the terminal back, stops until continued (`fg`), then takes it
/// again; the caller redraws the whole screen.
pub(crate) fn suspend(mouse: bool) -> std::io::Result<()> {
    restore();
    crate::driver::stop_here();
    take_terminal(mouse)
}

/// Raw mode, the alternate screen, no cursor (and the mouse if it was on).
pub(crate) fn take_terminal(mouse: bool) -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    let mut out = std::io::stdout();
    execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
    if mouse {
        execute!(out, event::EnableMouseCapture)?;
    }
    Ok(())
}
