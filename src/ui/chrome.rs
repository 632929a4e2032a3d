//! The frames every panel draws in: a bordered pane in the theme's
//! colours (ASCII with `--ascii`), a title marked when its pane has the
//! focus, a popup's cleared frame. A leaf: it knows the theme, not the app,
//! so the panels and the screen that places them take it without taking
//! each other.

use super::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

/// Box borders drawn with ASCII characters (`--ascii`).
const ASCII_BORDER: ratatui::symbols::border::Set = ratatui::symbols::border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

/// How frames are drawn: the theme's colours, ASCII or not.
#[derive(Clone, Copy)]
pub(crate) struct Chrome<'a> {
    pub(crate) theme: &'a Theme,
    pub(crate) ascii: bool,
}

impl Chrome<'_> {
    /// A bordered pane in the theme's colours (accented when focused).
    pub(crate) fn pane(self, focused: bool) -> Block<'static> {
        let t = self.theme;
        let b = Block::default()
            .borders(Borders::ALL)
            .border_style(if focused { t.accent } else { t.border });
        if self.ascii {
            b.border_set(ASCII_BORDER)
        } else {
            b
        }
    }

    /// A pane's title, marked `▶` when the pane has the focus: said in
    /// text too, as without colour a border's colour says nothing.
    pub(crate) fn focus_title<'l>(self, focused: bool, title: impl Into<Line<'l>>) -> Line<'l> {
        let mut line: Line<'l> = title.into();
        if focused {
            let mark = self.theme.accent.add_modifier(Modifier::BOLD);
            line.spans.insert(0, Span::styled("▶", mark));
        }
        line
    }

    /// A popup's frame over `r`, cleared, titled: the area inside it.
    pub(crate) fn popup(self, r: Rect, buf: &mut Buffer, title: &str) -> Rect {
        let t = self.theme;
        Clear.render(r, buf);
        buf.set_style(r, t.text.bg(t.background));
        let block = self
            .pane(true)
            .title(Span::styled(format!(" {title} "), t.title));
        let inner = block.inner(r);
        block.render(r, buf);
        inner
    }
}
