//! A policy's look in every figure: its colour and marker follow from its
//! name, so `sjf` is the same orange triangle in every figure a paper has.

use plotters::element::ComposedElement;
use plotters::prelude::*;

/// Okabe–Ito, told apart by people with any common colour-vision
/// deficiency (its yellow left out: it does not read on white).
pub(crate) const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
];

/// The markers, so a figure printed in grey still tells the lines apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Triangle,
    Square,
    Cross,
    Diamond,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
    Marker::Diamond,
];

/// A line's colour and marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    pub colour: RGBColor,
    pub marker: Marker,
}

/// The built-in policies' fixed (colour, marker) pairs: those a paper
/// compares side by side (the queue policies; ElasticFlow's baselines)
/// differ in colour.
const FIXED: [(&str, usize, usize); 18] = [
    ("fifo", 0, 0),
    ("sjf", 1, 1),
    ("las", 2, 2),
    ("first-fit", 3, 3),
    ("fifo-backfill", 4, 4),
    ("sgf", 5, 1),
    ("srtf", 6, 2),
    ("edf", 3, 0),
    ("fair", 0, 4),
    ("recorded", 6, 3),
    ("elasticflow", 4, 2),
    ("edf-elastic", 5, 0),
    ("gandiva", 1, 3),
    ("fifo-fastest", 0, 3),
    ("ef", 3, 4),
    ("dlas-gpu", 6, 0),
    ("edf-accessctrl", 2, 4),
    ("themis", 2, 0),
];

const PAIRS: usize = PALETTE.len() * MARKERS.len();

fn pair(i: usize) -> (usize, usize) {
    (i % PALETTE.len(), (i / PALETTE.len() + i) % MARKERS.len())
}

fn index_of(c: usize, m: usize) -> usize {
    (0..PAIRS).find(|&i| pair(i) == (c, m)).unwrap_or(0)
}

/// FNV-1a: the same name, the same number, on every machine.
fn fnv(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The pair a name asks for: a built-in's own, else one from its hash.
fn wanted(name: &str) -> usize {
    match FIXED.iter().find(|(n, _, _)| *n == name) {
        Some(&(_, c, m)) => index_of(c, m),
        None => (fnv(name) % PAIRS as u64) as usize,
    }
}

/// Each label's style: a built-in's fixed pair; another name's from its
/// hash, moved on to the next pair whose colour no other label of the
/// figure has (while colours are left), else the next free pair.
pub(crate) fn styles<S: AsRef<str>>(labels: &[S]) -> Vec<Style> {
    let fixed = |l: &str| FIXED.iter().any(|(n, _, _)| *n == l);
    // The built-ins first: their pairs are theirs whatever else is drawn.
    let mut taken: Vec<usize> = labels
        .iter()
        .filter(|l| fixed(l.as_ref()))
        .map(|l| wanted(l.as_ref()))
        .collect();
    labels
        .iter()
        .map(|l| {
            let mut i = wanted(l.as_ref());
            if !fixed(l.as_ref()) {
                let colours: Vec<usize> = taken.iter().map(|&t| pair(t).0).collect();
                let fresh = (0..PAIRS)
                    .map(|k| (i + k) % PAIRS)
                    .find(|&j| !taken.contains(&j) && !colours.contains(&pair(j).0));
                while taken.contains(&i) && taken.len() < PAIRS {
                    i = (i + 1) % PAIRS;
                }
                i = fresh.unwrap_or(i);
                taken.push(i);
            }
            let (c, m) = pair(i);
            Style {
                colour: PALETTE[c],
                marker: MARKERS[m],
            }
        })
        .collect()
}

/// The outline of marker `m`, `size` pixels across, around (0, 0): one
/// path for every marker (a cross goes back through its centre), so every
/// marker is one element type.
fn outline(m: Marker, size: i32) -> Vec<(i32, i32)> {
    let h = size / 2;
    match m {
        Marker::Circle => (0..=12)
            .map(|i| {
                let a = f64::from(i) * std::f64::consts::TAU / 12.0;
                (
                    (f64::from(h) * a.cos()).round() as i32,
                    (f64::from(h) * a.sin()).round() as i32,
                )
            })
            .collect(),
        Marker::Triangle => vec![(0, -h - 1), (h + 1, h), (-h - 1, h), (0, -h - 1)],
        Marker::Square => vec![(-h, -h), (h, -h), (h, h), (-h, h), (-h, -h)],
        Marker::Cross => vec![(-h, -h), (h, h), (0, 0), (h, -h), (-h, h)],
        Marker::Diamond => vec![
            (0, -h - 1),
            (h + 1, 0),
            (0, h + 1),
            (-h - 1, 0),
            (0, -h - 1),
        ],
    }
}

/// The marker `m` at `p`, `size` pixels across.
pub(crate) fn marker_at<C, DB: DrawingBackend>(
    m: Marker,
    p: C,
    size: i32,
    style: ShapeStyle,
) -> Mark<C, DB> {
    // The empty element at the end only gives the sum a type plotters exports.
    EmptyElement::at(p) + PathElement::new(outline(m, size), style) + EmptyElement::at((0, 0))
}

/// A marker as one element.
pub(crate) type Mark<C, DB> =
    ComposedElement<C, DB, PathElement<(i32, i32)>, EmptyElement<(i32, i32), DB>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_keeps_its_style_whatever_else_is_in_the_figure() {
        let a = styles(&["fifo", "sjf", "las"]);
        let b = styles(&["las", "mine", "sjf"]);
        assert_eq!(a[1], b[2]);
        assert_eq!(a[2], b[0]);
        assert_eq!(styles(&["mine"])[0], b[1]);
    }

    #[test]
    fn elasticflows_baselines_and_a_policy_of_ones_own_differ_in_colour() {
        let s = styles(&[
            "elasticflow",
            "edf-elastic",
            "gandiva",
            "las",
            "elastic_edf",
        ]);
        let mut colours: Vec<RGBColor> = s.iter().map(|s| s.colour).collect();
        colours.dedup();
        colours.sort_by_key(|c| (c.0, c.1, c.2));
        colours.dedup();
        assert_eq!(colours.len(), 5);
        // The built-ins' are theirs in any figure.
        assert_eq!(s[0], styles(&["elasticflow"])[0]);
    }

    #[test]
    fn styles_in_one_figure_differ() {
        let names: Vec<String> = (0..PAIRS).map(|i| format!("p{i}")).collect();
        let s = styles(&names);
        for (i, a) in s.iter().enumerate() {
            assert!(!s[..i].contains(a), "{i}");
        }
        let fixed: Vec<&str> = FIXED.iter().map(|f| f.0).collect();
        let f = styles(&fixed);
        for (i, (name, c, m)) in FIXED.iter().enumerate() {
            assert_eq!(f[i].colour, PALETTE[*c], "{name}");
            assert_eq!(f[i].marker, MARKERS[*m], "{name}");
        }
    }
}
