//! The numbers a figure plots, as CSV beside the SVG (long form: one row
//! per point, `panel,policy,x,y,lo,hi,n`), so a reader can redraw it or
//! check a point.

/// The rows so far.
#[derive(Debug, Default)]
pub(super) struct Data {
    rows: Vec<[String; 7]>,
}

/// One plotted point: `x` (a number, or a class's name), `y`, and where
/// the panel has them, the range around `y` and how many values it is of.
pub(super) struct Point<'a> {
    pub panel: &'a str,
    pub policy: &'a str,
    pub x: String,
    pub y: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub n: Option<usize>,
}

fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v}"))
}

impl Data {
    pub(super) fn push(&mut self, p: Point) {
        self.rows.push([
            p.panel.to_string(),
            p.policy.to_string(),
            p.x,
            num(Some(p.y)),
            num(p.lo),
            num(p.hi),
            p.n.map_or(String::new(), |n| n.to_string()),
        ]);
    }

    /// A plain (x, y) point.
    pub(super) fn xy(&mut self, panel: &str, policy: &str, x: f64, y: f64) {
        self.push(Point {
            panel,
            policy,
            x: format!("{x}"),
            y,
            lo: None,
            hi: None,
            n: None,
        });
    }

    pub(super) fn into_csv(self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let header = ["panel", "policy", "x", "y", "lo", "hi", "n"];
        // Writing to memory fails only on a bug: the rows are text.
        w.write_record(header).expect("a CSV row in memory");
        for r in &self.rows {
            w.write_record(r).expect("a CSV row in memory");
        }
        String::from_utf8(w.into_inner().expect("CSV in memory")).expect("CSV of text is text")
    }
}
