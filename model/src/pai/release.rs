//! The PAI release as its users hold it: each table beside its `NAME.header`
//! file (one line of column names, which users often prepend to the CSV),
//! and the alternative download's archives split into `NAME.tar.gz.partaa`,
//! `…ab`, … (joined by a `cat` script users often skip).

use super::tables::{columns_of, ALL};
use crate::archive::{self, Source};
use crate::fields::Row;
use crate::input::{InputError, LoadReport, RowPolicy, Skips};
use crate::lines::{Lines, Record};
use crate::text::sanitize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of a `.header` file read: one line of column names.
const HEADER_BYTES: u64 = 64 * 1024;

/// Checks `dir/TABLE.header` where there is one: it must list the columns
/// tracetui reads, in its order (the release's), else the table would be
/// read wrong; an error names the file and both lists.
pub(crate) fn check_header_file(
    dir: &Path,
    table: &str,
    columns: &[&str],
) -> Result<(), InputError> {
    let path = dir.join(format!("{table}.header"));
    if !crate::reader::present(&path) {
        return Ok(());
    }
    let name = path.display().to_string();
    let mut text = Vec::new();
    crate::reader::open_file(&path)?
        .take(HEADER_BYTES)
        .read_to_end(&mut text)
        .map_err(|e| InputError::io(&name, "cannot read", e))?;
    let text = String::from_utf8_lossy(&text);
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let given: Vec<&str> = line.split(',').map(str::trim).collect();
    if given == columns {
        return Ok(());
    }
    Err(InputError::file(
        &name,
        format!(
            "lists the columns '{}', but {table} is read as the release has them: '{}'",
            sanitize(line.trim()),
            columns.join(",")
        ),
    ))
}

/// What the report says of a table read from split parts.
pub(crate) fn note_parts(table: &str, src: &Source, report: &mut LoadReport) {
    let Source::Parts(parts) = src else { return };
    let suffix = |p: &PathBuf| {
        let n = p
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        n.rsplit_once(".part")
            .map_or(n.clone(), |(_, s)| format!("part{s}"))
    };
    report.note(format!(
        "{table}.tar.gz: read from its {} split parts, {} to {}, in order as one archive (as `cat` joins them)",
        parts.len(),
        sanitize(&suffix(&parts[0])),
        sanitize(&suffix(&parts[parts.len() - 1]))
    ));
}

/// Every file a PAI directory's load may read: each table as `.csv`,
/// `.tar.gz` or split parts, and its `.header`.
pub(crate) fn reads(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (name, _) in ALL {
        out.push(dir.join(format!("{name}.csv")));
        out.push(dir.join(format!("{name}.tar.gz")));
        out.push(dir.join(format!("{name}.header")));
        out.extend(archive::split_parts(dir, &format!("{name}.tar.gz")).unwrap_or_default());
    }
    out
}

/// Streams one table, handing each row to `each`; bad rows are skipped and
/// counted (or stop the load with `strict`). Returns rows read and skips.
pub(crate) fn read_table(
    src: &Source,
    table: &str,
    strict: bool,
    mut each: impl FnMut(&Row<Record>) -> Result<(), InputError>,
) -> Result<(u64, Skips), InputError> {
    let member = format!("{table}.csv");
    let name = src.display(&member);
    // The users' header row (from the release's `.header`) is no bad row.
    let mut lines =
        Lines::new(archive::open(src, &member)?, name.clone()).skipping_header(columns_of(table));
    let mut policy = RowPolicy::new(&name, strict);
    let mut rec = Record::default();
    let mut ok = 0u64;
    while lines.next(&mut rec)? {
        let row = Row {
            file: &name,
            line: rec.line,
            record: &rec,
        };
        match each(&row) {
            Ok(()) => ok += 1,
            Err(e) => policy.bad_row(e)?,
        }
    }
    Ok((ok, policy.skips))
}
