//! One `pai_machine_spec` file read alone — the released one, or a
//! cluster of your own in its layout — for `gen pai --machine-spec`: its
//! machines in file order, strictly (a bad row is an error naming its file,
//! line and field).

use super::read_table;
use super::tables::{parse_spec, SpecRow, MACHINE_SPEC};
use crate::archive::Source;
use crate::input::InputError;
use crate::texts::key;
use rustc_hash::FxHashSet;
use std::path::Path;

/// The most machines a spec may list (ten times the release's 1,897).
pub const MOST_SPEC_MACHINES: usize = 20_000;

/// The machines of the spec at `path` (`.csv`, or the release's `.tar.gz`
/// holding `pai_machine_spec.csv`), each named once.
pub fn read_machine_spec(path: &Path) -> Result<Vec<SpecRow>, InputError> {
    let name = path.to_string_lossy();
    let src = if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Source::TarGz(path.to_path_buf())
    } else {
        Source::Csv(path.to_path_buf())
    };
    let mut rows: Vec<SpecRow> = Vec::new();
    let mut seen = FxHashSet::default();
    read_table(&src, MACHINE_SPEC.0, true, |row| {
        let r = parse_spec(row)?;
        if !seen.insert(key(r.machine.as_bytes())) {
            return Err(row.error("machine", format!("duplicate machine '{}'", r.machine)));
        }
        if rows.len() >= MOST_SPEC_MACHINES {
            return Err(row.error(
                "machine",
                format!("more than {MOST_SPEC_MACHINES} machines"),
            ));
        }
        rows.push(r);
        Ok(())
    })?;
    Ok(rows)
}
