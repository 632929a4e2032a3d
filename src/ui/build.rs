//! The app the runner plays: built from a run spec (themes — the one worn
//! first by the terminal's background — the user's keymap, the load's
//! notes in the log, `--projector`'s lecture layout), and built anew when
//! `:lesson NAME` opens a built-in lesson in place of the replay.

use super::app::{Action, App};
use super::effects::Effects;
use super::keymap::Keymap;
use super::look::Look;
use super::theme::{self, Depth};
use crate::spec::RunSpec;
use crate::trace::LoadReport;
use color_eyre::eyre::Result;

/// How the replay is shown: the options the command line gives.
#[derive(Debug, Clone)]
pub(crate) struct ViewOptions {
    pub theme: Option<String>,
    pub ascii: bool,
    pub fps: u32,
    /// A lesson's captions.
    pub captions: Vec<(crate::trace::Secs, String)>,
    /// What to run instead where there is no terminal (a command that works).
    pub no_terminal: String,
    /// Start in the lecture layout (`lesson --projector`).
    pub projector: bool,
    /// The live view of a Slurm cluster (`slurm --live`), asked again and
    /// shown anew as it says.
    pub live: Option<LiveView>,
}

/// What the live view asks, and how often.
#[derive(Debug, Clone)]
pub(crate) struct LiveView {
    /// Between asks (at least `slurm_live::MIN_EVERY`).
    pub every: std::time::Duration,
    /// Each command's timeout.
    pub within: std::time::Duration,
    /// The zone Slurm's times are shown in.
    pub zone: chrono_tz::Tz,
    /// When the first answer was asked, Unix seconds: where the view opens.
    pub at: i64,
}

/// Builds the app: themes (NO_COLOR picks mono; else by the terminal's
/// background), the user's keymap, the load notes in the log.
pub(crate) fn build_app(
    spec: RunSpec,
    label: String,
    report: &LoadReport,
    opts: &ViewOptions,
) -> Result<App> {
    let depth = Depth::detect();
    let user_dir = crate::config::themes_dir();
    let (mut themes, problems) = theme::all(depth, user_dir.as_deref());
    let chosen = choose_theme(opts.theme.as_deref(), depth, &mut themes)?;
    let mut look = Look::new(themes);
    look.wear(chosen);
    look.set_ascii(opts.ascii);
    let mut app = assemble(spec, label, report, opts, (look, &problems));
    if opts.projector {
        app.toggle_lecture();
    }
    // The live view says where it stands once it stands there (`live.rs`).
    if opts.live.is_none() {
        log::info!(
            "{} at {}; space plays, ? shows every key",
            app.engine().policy(),
            app.clock(app.engine().now())
        );
    }
    Ok(app)
}

/// The app of `spec`, drawn with `look`: its keymap, captions, frame rate,
/// and what the load, the themes (`problems`) and the keymap had to say in
/// the log.
pub(super) fn assemble(
    spec: RunSpec,
    label: String,
    report: &LoadReport,
    opts: &ViewOptions,
    (look, problems): (Look, &[String]),
) -> App {
    let keymap = Keymap::load_user();
    let app = App::with_energy(
        spec.trace.clone(),
        spec.policy,
        spec.placement,
        spec.energy.clone(),
        label,
        Vec::new(),
        keymap,
    );
    let mut app = app
        .with_tuning(spec.tuning.clone(), spec.schedule.as_ref())
        .with_captions(opts.captions.clone())
        .with_policies(spec.policies.clone());
    app.view.look = look;
    app.view.fps = opts.fps.clamp(1, 60);
    for n in &report.notes {
        log::info!("{n}");
    }
    for l in report.skip_lines() {
        log::warn!("{l}");
    }
    if let Some(c) = spec.policy.caveat(app.trace(), &spec.tuning) {
        log::warn!("note: {}: {c}", spec.policy.title());
    }
    for p in problems.iter().chain(app.view.keymap.problems.iter()) {
        log::warn!("{p}");
    }
    if let Some(p) = app.view.keymap.problems.first() {
        app.view.flash = Some(format!("key config: {p}"));
    }
    if let Some((m, p)) = &spec.energy {
        log::info!(
            "energy: Zeus {} power trace, η = {}, {} limits; P switches max ↔ zeus",
            m.gpu,
            m.eta,
            p.name()
        );
    }
    app
}

/// The theme worn first: `--theme` (a name, or a file, added to the
/// cycle); without colour mono; else the one made for the terminal's
/// background (`background.rs`): light, or dark — painting its own dark
/// background where the terminal does not say its own.
fn choose_theme(
    asked: Option<&str>,
    depth: Depth,
    themes: &mut Vec<theme::Theme>,
) -> Result<usize> {
    use super::background::{judge, Background, QUERY, WAIT};
    let sense = || {
        let answer = crate::driver::ask_terminal(QUERY, WAIT);
        judge(
            answer.as_deref(),
            std::env::var("COLORFGBG").ok().as_deref(),
        )
    };
    let sensed = (asked.is_none() && depth != Depth::None).then(sense);
    let wanted = match (asked, depth, sensed.as_ref().map(|s| s.background)) {
        (Some(t), _, _) => t.to_string(),
        (None, Depth::None, _) => "mono".into(),
        (None, _, Some(Background::Light)) => "light".into(),
        (None, _, _) => "dark".into(),
    };
    let chosen = match themes.iter().position(|t| t.name == wanted) {
        Some(i) => i,
        None => {
            let user_dir = crate::config::themes_dir();
            let t = theme::resolve(&wanted, depth, user_dir.as_deref())
                .map_err(color_eyre::eyre::Report::msg)?;
            themes.push(t);
            themes.len() - 1
        }
    };
    if let Some(s) = sensed {
        let painted = s.background == Background::Unknown;
        if painted {
            let dark = ratatui::style::Color::Rgb(0x10, 0x10, 0x10);
            themes[chosen].background = super::colour::reduce(dark, depth);
        }
        let paints = if painted {
            ", painting its own background"
        } else {
            ""
        };
        log::info!(
            "{}: the {wanted} theme{paints} (t: the next; --theme NAME)",
            s.how
        );
    }
    Ok(chosen)
}

/// `:lesson NAME`: the built-in lesson in place of the replay, the
/// screen's look (themes, ASCII, `L`) and size kept; what went wrong is
/// said in the log and the flash, the replay left as it was.
pub(super) fn open_lesson(app: &mut App, fx: &mut Effects, name: &str, opts: &ViewOptions) {
    let built = crate::lesson::find(name)
        .ok_or_else(|| color_eyre::eyre::eyre!("no lesson '{name}'"))
        .and_then(|l| crate::lesson::own_run(&l))
        .map(|(spec, captions, label)| {
            let o = ViewOptions {
                captions,
                ..opts.clone()
            };
            // The look the screen has: themes, the one worn, ASCII.
            let look = app.view.look.clone();
            assemble(spec, label, &LoadReport::default(), &o, (look, &[]))
        });
    match built {
        Ok(mut next) => {
            if app.view.lecture.on {
                next.view.lecture.on = true;
                next.view.lecture.theme_before = app.view.lecture.theme_before;
            }
            let size = app.view.screen.size();
            *app = next;
            *fx = Effects::from_env();
            fx.dispatch(app, Action::Resize(size.0, size.1));
            log::info!("lesson {name}: opened from the replay");
        }
        Err(e) => {
            log::warn!("lesson {name}: {e}");
            app.view.flash = Some(format!("lesson {name}: {e}"));
        }
    }
}
