//! Themes made for a background paint it (issue 33 items 1 and 2): `L`'s
//! high-contrast and `light` give every cell of the screen a background,
//! popups included, so the text is not black on a dark terminal's black;
//! an export is drawn on the theme's own page.

use crate::common;

use common::ui::*;
use ratatui::style::Color;
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// The cells (x, y) whose background is the terminal's own.
fn unpainted(app: &App, w: u16, h: u16) -> Vec<(u16, u16)> {
    let buf = render(app, w, h);
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if matches!(buf[(x, y)].bg, Color::Reset) {
                out.push((x, y));
            }
        }
    }
    out
}

#[test]
fn the_lecture_layout_paints_its_white_on_every_cell_popups_too() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut app = app_for(sample(), Policy::Fifo, (w, h));
        app.update(Action::GoTo(3 * 86_400));
        let before = unpainted(&app, w, h);
        assert!(!before.is_empty(), "dark paints the terminal's background");
        cmd(&mut app, Command::Lecture);
        assert_eq!(app.theme().name, "high-contrast");
        let left = unpainted(&app, w, h);
        assert!(
            left.is_empty(),
            "{w}x{h}: unpainted {:?}",
            &left[..5.min(left.len())]
        );
        let buf = render(&app, w, h);
        assert_eq!(buf[(w / 2, h / 2)].bg, Color::Rgb(255, 255, 255));
        // A popup over it (help) clears its cells: they are painted again.
        cmd(&mut app, Command::Help);
        let s = text(&render(&app, w, h));
        assert!(s.contains("help"), "{s}");
        let left = unpainted(&app, w, h);
        assert!(
            left.is_empty(),
            "{w}x{h} help: {:?}",
            &left[..5.min(left.len())]
        );
        // L again: dark, on the terminal's background again.
        cmd(&mut app, Command::Help);
        cmd(&mut app, Command::Lecture);
        assert_eq!(app.theme().name, "dark");
        assert_eq!(unpainted(&app, w, h), before);
    }
}

#[test]
fn light_paints_its_background_and_dark_leaves_the_terminals() {
    let app = app_for(sample(), Policy::Fifo, (80, 24)).with_theme(theme_index("light"));
    assert_eq!(unpainted(&app, 80, 24), vec![]);
    let t =
        tracetui::ui::theme::Theme::embedded("light", tracetui::ui::theme::Depth::None).unwrap();
    assert_eq!(t.background, Color::Reset, "NO_COLOR paints nothing");
}

/// The first rectangle of an SVG export: its page.
fn page(svg: &str) -> &str {
    let at = svg
        .find("<rect width=\"100%\" height=\"100%\" fill=\"")
        .unwrap();
    let rest = &svg[at..];
    let f = rest.find("fill=\"").unwrap() + 6;
    &rest[f..f + 7]
}

#[test]
fn an_export_is_drawn_on_the_themes_page() {
    let dir = common::scratch_dir("theme-export");
    let shot = |app: &App| {
        let (_, svg, _) = tracetui::ui::effects::export_to(app, &dir).unwrap();
        std::fs::read_to_string(svg).unwrap()
    };
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(3 * 86_400));
    let dark = shot(&app);
    assert_eq!(page(&dark), "#101010");
    let mut light_app = app_for(sample(), Policy::Fifo, (120, 40)).with_theme(theme_index("light"));
    light_app.update(Action::GoTo(3 * 86_400));
    let light = shot(&light_app);
    assert_eq!(page(&light), "#ffffff");
    assert!(!light.contains("#101010"), "a dark cell on the light page");
    // Dark text on it, not the dark page's light grey.
    assert!(light.contains("fill=\"#262626\""));
    assert!(!light.contains("fill=\"#e0e0e0\""));
    cmd(&mut app, Command::Lecture);
    let lecture = shot(&app);
    assert_eq!(page(&lecture), "#ffffff");
    assert!(!lecture.contains("#101010"));
}
