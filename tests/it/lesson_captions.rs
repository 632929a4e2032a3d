//! Captions true when shown (issue 61, item 2): stepping through each
//! built-in lesson with `>`, every number a caption states is on the
//! screen it shows with — outside the caption itself — in the normal
//! layout and in `L`; a caption never shows before its moment.

use crate::common;

use common::ui::{cmd, render, text};
use tracetui::ui::app::App;
use tracetui::ui::keymap::Command;

/// The numbers a text states (`3,600` is 3600).
pub(crate) fn numbers(text: &str) -> Vec<String> {
    let text = text.replace(',', "");
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// The screen without the caption's own rows.
fn screen_but_caption(app: &App, size: (u16, u16)) -> String {
    let cap = app.areas().caption;
    text(&render(app, size.0, size.1))
        .lines()
        .enumerate()
        .filter(|(i, _)| !(cap.y..cap.y + cap.height).contains(&(*i as u16)))
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

#[test]
fn every_number_a_built_in_caption_states_is_on_screen_when_it_shows() {
    let size = (120, 40);
    for l in tracetui::lesson::builtins() {
        for lecture in [false, true] {
            let mut app = common::ui::lesson_app(&l.name, size);
            if lecture {
                cmd(&mut app, Command::Lecture);
            }
            for (at, said) in &l.captions {
                cmd(&mut app, Command::NextCaption);
                assert_eq!(app.engine().now(), *at);
                assert_eq!(app.caption(), Some(said.as_str()));
                let screen = screen_but_caption(&app, size);
                for n in numbers(said) {
                    assert!(
                        screen.contains(&n),
                        "{} at {at} (L {lecture}): {n} is not on screen: {said}\n{screen}",
                        l.name
                    );
                }
            }
        }
    }
}
