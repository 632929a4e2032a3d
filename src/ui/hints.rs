//! The hint bar: the prompt being typed, the latest message (the flash),
//! or the most useful keys — `? help` and `q quit` always among them.

use super::app::App;
use super::keymap::{Command, COMMANDS};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

/// The bottom line: a prompt, a message, or the keys that matter most.
pub(crate) fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    buf.set_style(area, t.header);
    if let Some(super::app::Popup::Prompt {
        kind,
        input,
        cursor,
    }) = &app.view.popup
    {
        let tail = match kind {
            super::app::PromptKind::Command => suggestions(app, input),
            _ => "   enter ok · esc cancel".to_string(),
        };
        let line = Line::from(vec![
            Span::styled(
                prompt_label(app, kind),
                t.header.add_modifier(Modifier::BOLD),
            ),
            Span::styled(with_cursor(input, *cursor), t.header),
            Span::styled(tail, t.header.add_modifier(Modifier::DIM)),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
        return;
    }
    // Help and quit always show, at the end; before them a message (the
    // flash) or the other commands in keymap order while they fit.
    let (items, last) = hint_items(app);
    let room = (area.width as usize).saturating_sub(1 + hints_width(&last));
    if let Some(f) = &app.view.flash {
        return flash(app, f, last, room, area, buf);
    }
    let mut used = 0;
    let mut shown: Vec<(String, &str)> = Vec::new();
    for item in items {
        let w = hints_width(std::slice::from_ref(&item));
        if used + w > room {
            break;
        }
        used += w;
        shown.push(item);
    }
    shown.extend(last);
    let spans = hint_spans(shown, t);
    buf.set_line(
        area.x + 1,
        area.y,
        &Line::from(spans),
        area.width.saturating_sub(1),
    );
}

/// What a prompt of `kind` asks for, with the forms it takes.
fn prompt_label(app: &App, kind: &super::app::PromptKind) -> &'static str {
    match kind {
        super::app::PromptKind::Find => "find job, machine, user or group: ",
        super::app::PromptKind::Goto => match app.trace().zone {
            crate::trace::Zone::Relative => "go to (+2h, -30m, day 3 14:00, 14:00, seconds): ",
            z if crate::trace::dated(z) => {
                "go to (+2h, -30m, 2017-10-03 14:00, Fri 03:00, day 3): "
            }
            _ => "go to (+2h, -30m, day 3 14:00, Fri 03:00, 14:00): ",
        },
        super::app::PromptKind::Filter => "filter (alice, user=, group=, gpu=, state=): ",
        super::app::PromptKind::Command => ":",
    }
}

/// After a `:` line: what Tab would offer (the commands, or the words its
/// argument may be), else what the command takes.
fn suggestions(app: &App, input: &str) -> String {
    let (_, options) = super::command_line::complete(input, app);
    // Typed whole already: what it does, rather than itself offered.
    let whole = options.len() == 1 && input.trim_end().ends_with(options[0].as_str());
    if options.is_empty() || whole {
        let what = super::command_line::parse(input)
            .ok()
            .map_or("", |(v, _)| v.what);
        return match what {
            "" => "   tab completes · enter runs · esc".to_string(),
            w => format!("   {}", crate::text::sanitize(w)),
        };
    }
    let shown: Vec<String> = options
        .iter()
        .take(8)
        .map(|o| crate::text::sanitize(o))
        .collect();
    let more = if options.len() > 8 { " …" } else { "" };
    format!("   tab: {}{more}", shown.join(" "))
}

/// A command in the bar: its key and its word.
type Hint = (String, &'static str);

/// The commands shown in the bar with their keys, in keymap order: the
/// others, then help and quit.
fn hint_items(app: &App) -> (Vec<Hint>, Vec<Hint>) {
    let mut items: Vec<Hint> = Vec::new();
    let mut last: Vec<Hint> = Vec::new();
    for (cmd, _, desc, _, shown) in COMMANDS {
        let key = app.view.keymap.first(cmd);
        if !shown || key.is_empty() {
            continue;
        }
        let item = (key.to_string(), hint_word(cmd, desc));
        match cmd {
            Command::Help | Command::Quit => last.push(item),
            _ => items.push(item),
        }
    }
    (items, last)
}

/// The columns hints take, each with the gap after it.
fn hints_width(v: &[(String, &str)]) -> usize {
    v.iter()
        .map(|(k, w)| crate::text::width(k) + 1 + w.len() + 3)
        .sum()
}

/// The flash in the `room` left of help and quit (`last`, at the right).
fn flash(app: &App, f: &str, last: Vec<Hint>, room: usize, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let text = crate::text::fit(&crate::text::guarded(f), room.saturating_sub(2));
    let at = area.x + 1;
    buf.set_stringn(at, area.y, &text, room, t.warn);
    let spans = hint_spans(last, t);
    let w = Line::from(spans.clone()).width() as u16;
    buf.set_line(
        area.right().saturating_sub(w + 1),
        area.y,
        &Line::from(spans),
        w,
    );
}

/// Hints as spans: the key in bold, its word, ` · ` between.
fn hint_spans(items: Vec<(String, &str)>, t: &super::theme::Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (key, word) in items {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", t.header));
        }
        spans.push(Span::styled(key, t.header.add_modifier(Modifier::BOLD)));
        spans.push(Span::styled(format!(" {word}"), t.header));
    }
    spans
}

/// A command's word in the hint bar.
fn hint_word(cmd: Command, desc: &'static str) -> &'static str {
    match cmd {
        Command::TogglePlay => "play",
        Command::Step => "step",
        Command::StepBack => "back",
        Command::Goto => "go to",
        Command::Policy => "policy",
        Command::Find => "find",
        Command::CommandLine => "command",
        Command::Detail => "detail",
        Command::WhatIf => "what if",
        Command::Timeline => "timeline",
        Command::Split => "split",
        Command::Rankings => "who",
        Command::Help => "help",
        Command::Quit => "quit",
        _ => desc,
    }
}

/// A prompt's line with its cursor mark where typing goes.
fn with_cursor(input: &str, cursor: usize) -> String {
    let at = input
        .char_indices()
        .nth(cursor)
        .map_or(input.len(), |(i, _)| i);
    format!("{}▏{}", &input[..at], &input[at..])
}
