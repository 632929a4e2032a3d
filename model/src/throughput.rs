//! Throughput tables in ElasticFlow's layout: a directory of `MODEL.csv`,
//! each with a header `global_batch_size,1,2,4,…` (GPU counts) and one row
//! per global batch size holding the job's iterations per second at each
//! count (`nan`, an empty cell or 0: not profiled — ElasticFlow's
//! `resnet50_cifar10.csv` writes 0 where a count was not measured).
//!
//! Between profiled counts the rate is read off a line: **linear between
//! the profiled counts on either side, flat past the largest profiled count
//! (GPUs beyond it add nothing), proportional to the count below the
//! smallest**. `nan`, empty and 0 cells are not profiled counts. ElasticFlow
//! itself only ever allocates profiled counts, so on its own policies the
//! rule never decides anything; it matters for a rigid job whose recorded
//! GPU count the table lacks (3, 12, …).

use super::input::InputError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most table files read from one directory, bytes in one file and in
/// all of them: a directory of ElasticFlow's has 6–7 files of under 4 KiB.
const MAX_FILES: usize = 4096;
const MAX_BYTES: u64 = 4 << 20;
const MAX_TOTAL: u64 = 32 << 20;
/// Most GPU counts a table may profile.
const MAX_COUNT: u32 = 1 << 20;
/// The rates a table may hold, iterations per second: ElasticFlow's span
/// 0.03 (bert on a T4) to a few hundred.
const MIN_RATE: f64 = 1e-6;
const MAX_RATE: f64 = 1e9;

/// One model's table: batch size → the profiled (GPU count, iterations/s),
/// counts ascending, unprofiled cells left out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelTable {
    /// Batch size → the profiled (GPU count, iterations/s), counts ascending.
    pub rows: BTreeMap<u32, Vec<(u32, f64)>>,
}

/// The tables of one directory: model name (the file's stem) → its table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tables {
    /// The GPU type they were profiled on (`A100=DIR`), or none: every type.
    pub gpu_type: Option<String>,
    /// The directory read.
    pub dir: PathBuf,
    /// Model name (the file's stem) → its table.
    pub models: BTreeMap<String, ModelTable>,
    /// Made from another type's tables (`T4=A100*0.32`): that type and
    /// the factor every rate was multiplied by.
    pub derived: Option<(String, f64)>,
}

/// `--throughputs TYPE=OTHER*F`: the type, the type whose tables it is
/// made from, and the factor (a positive number), where `spec` has that
/// form and names no directory.
pub fn derived_spec(spec: &str) -> Option<(String, String, f64)> {
    let (ty, rest) = spec.split_once('=')?;
    let (from, f) = rest.rsplit_once('*')?;
    let (ty, from) = (ty.trim(), from.trim());
    let named = |s: &str| !s.is_empty() && !s.contains(['/', '*', '=']);
    let f: f64 = f.trim().parse().ok()?;
    let ok = named(ty) && named(from) && (0.001..=1000.0).contains(&f);
    (ok && !Path::new(rest).is_dir()).then(|| (ty.to_string(), from.to_string(), f))
}

/// `--throughputs [TYPE=]DIR` as given: the type, if named, and the directory.
pub fn parse_spec(spec: &str) -> (Option<String>, PathBuf) {
    match spec.split_once('=') {
        Some((t, dir)) if !t.is_empty() && !t.contains('/') => {
            (Some(t.to_string()), PathBuf::from(dir))
        }
        _ => (None, PathBuf::from(spec)),
    }
}

/// Iterations per second at `gpus` GPUs on a profiled row (see the module
/// notes for the rule between counts); none for an empty row or 0 GPUs.
pub fn rate_on(row: &[(u32, f64)], gpus: u32) -> Option<f64> {
    if gpus == 0 || row.is_empty() {
        return None;
    }
    let at = row.partition_point(|&(c, _)| c < gpus);
    match (at.checked_sub(1).map(|i| row[i]), row.get(at)) {
        (_, Some(&(c, r))) if c == gpus => Some(r),
        (Some((lc, lr)), Some(&(hc, hr))) => {
            let f = (gpus - lc) as f64 / (hc - lc) as f64;
            Some(lr + (hr - lr) * f)
        }
        (Some((_, lr)), None) => Some(lr),
        (None, Some(&(hc, hr))) => Some(hr * gpus as f64 / hc as f64),
        (None, None) => None,
    }
}

impl Tables {
    /// Reads every `*.csv` of `dir` (in name order), for `gpu_type`.
    pub fn load(dir: &Path, gpu_type: Option<String>) -> Result<Tables, InputError> {
        super::reader::open_dir(dir, "throughput tables (MODEL.csv)")?;
        let shown = dir.display().to_string();
        let listing =
            std::fs::read_dir(dir).map_err(|e| InputError::io(&shown, "cannot list", e))?;
        let mut files: Vec<PathBuf> = listing
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .take(MAX_FILES + 1)
            .collect();
        if files.len() > MAX_FILES {
            return Err(InputError::file(
                &shown,
                format!("more than {MAX_FILES} .csv files: not a directory of throughput tables"),
            ));
        }
        files.sort();
        let mut models = BTreeMap::new();
        let mut total = 0;
        for f in &files {
            let Some(stem) = f.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            total += std::fs::metadata(f).map_or(0, |m| m.len());
            if total > MAX_TOTAL {
                return Err(InputError::file(
                    &shown,
                    format!(
                        "more than {} MiB of tables: not a directory of throughput tables",
                        MAX_TOTAL >> 20
                    ),
                ));
            }
            models.insert(stem.to_string(), read_table(f)?);
        }
        if models.is_empty() {
            return Err(InputError::file(
                &shown,
                "no MODEL.csv throughput tables in this directory",
            ));
        }
        Ok(Tables {
            gpu_type,
            dir: dir.to_path_buf(),
            models,
            derived: None,
        })
    }

    /// These tables for the GPU type `gpu_type`, every rate × `factor`
    /// (a type profiled nowhere, made from one that was).
    pub fn derive(&self, gpu_type: &str, factor: f64) -> Tables {
        let mut models = self.models.clone();
        for row in models.values_mut().flat_map(|m| m.rows.values_mut()) {
            for (_, rate) in row.iter_mut() {
                *rate *= factor;
            }
        }
        let from = self.gpu_type.clone().unwrap_or_else(|| "GPU".into());
        Tables {
            gpu_type: Some(gpu_type.to_string()),
            dir: self.dir.clone(),
            models,
            derived: Some((from, factor)),
        }
    }

    /// The profiled row of `model` at global batch size `batch`.
    pub fn row(&self, model: &str, batch: u32) -> Option<&[(u32, f64)]> {
        let r = self.models.get(model)?.rows.get(&batch)?;
        (!r.is_empty()).then_some(r.as_slice())
    }
}

/// One `MODEL.csv`.
fn read_table(path: &Path) -> Result<ModelTable, InputError> {
    let text = super::reader::read_small(path, MAX_BYTES, "a throughput table")?;
    parse_table(&text, &path.display().to_string())
}

/// A table's text; errors name the file, the line and the column.
pub fn parse_table(text: &[u8], file: &str) -> Result<ModelTable, InputError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text);
    let mut records = rdr.byte_records();
    let header = match records.next() {
        Some(r) => r.map_err(|e| InputError::csv(file, &e))?,
        None => return Err(InputError::file(file, "empty: expected a header row")),
    };
    let names: Vec<String> = header
        .iter()
        .map(|f| String::from_utf8_lossy(f).trim().to_string())
        .collect();
    let counts = gpu_counts(&names, file)?;
    let columns = Columns {
        file,
        names: &names,
        counts: &counts,
    };
    let mut table = ModelTable::default();
    for (i, rec) in records.enumerate() {
        let line = i as u64 + 2;
        let rec = rec.map_err(|e| InputError::csv(file, &e))?;
        if rec.len() == 1 && rec.get(0).is_some_and(|f| f.trim_ascii().is_empty()) {
            continue;
        }
        columns.add_row(&mut table, &rec, line)?;
    }
    Ok(table)
}

/// The header's GPU counts, in column order, after `global_batch_size`.
fn gpu_counts(names: &[String], file: &str) -> Result<Vec<u32>, InputError> {
    if names.first().map(String::as_str) != Some("global_batch_size") || names.len() < 2 {
        return Err(InputError::on_line(
            file,
            1,
            format!(
                "header '{}': expected global_batch_size then GPU counts (1,2,4,…)",
                crate::text::sanitize(&names.join(","))
            ),
        ));
    }
    let mut counts = Vec::with_capacity(names.len() - 1);
    let mut seen = std::collections::HashSet::new();
    for n in &names[1..] {
        match n.parse::<u32>() {
            Ok(c) if (1..=MAX_COUNT).contains(&c) && seen.insert(c) => counts.push(c),
            _ => {
                return Err(InputError::on_line(
                    file,
                    1,
                    format!(
                        "column '{}': a GPU count (a whole number from 1, each once) is expected",
                        crate::text::sanitize(n)
                    ),
                ))
            }
        }
    }
    Ok(counts)
}

/// A table's columns as its header names them: the file, the column
/// names and the GPU count of each rate column.
struct Columns<'a> {
    file: &'a str,
    names: &'a [String],
    counts: &'a [u32],
}

impl Columns<'_> {
    /// Cell `k` of `rec`, trimmed.
    fn cell(rec: &csv::ByteRecord, k: usize) -> String {
        String::from_utf8_lossy(rec.get(k).unwrap_or_default())
            .trim()
            .to_string()
    }

    /// The error `what` about cell `k` of the row on `line`, quoting the cell.
    fn cell_error(&self, rec: &csv::ByteRecord, line: u64, k: usize, what: &str) -> InputError {
        let at = super::input::Location {
            file: self.file.to_string(),
            line,
            column: self.names.get(k).map(|n| crate::text::sanitize(n)),
            byte: false,
        };
        InputError::at(
            at,
            format!("'{}': {what}", crate::text::sanitize(&Self::cell(rec, k))),
        )
    }

    /// Adds the row of one batch size, on `line`, to `table`.
    fn add_row(
        &self,
        table: &mut ModelTable,
        rec: &csv::ByteRecord,
        line: u64,
    ) -> Result<(), InputError> {
        if rec.len() != self.names.len() {
            return Err(InputError::on_line(
                self.file,
                line,
                format!("{} fields, the header has {}", rec.len(), self.names.len()),
            ));
        }
        let batch = Self::cell(rec, 0)
            .parse::<u32>()
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| {
                self.cell_error(
                    rec,
                    line,
                    0,
                    "a batch size (a whole number from 1) is expected",
                )
            })?;
        if table.rows.contains_key(&batch) {
            return Err(self.cell_error(rec, line, 0, "this batch size has a row already"));
        }
        let row = self.rates(rec, line)?;
        table.rows.insert(batch, row);
        Ok(())
    }

    /// The row's profiled (GPU count, iterations/s), counts ascending.
    fn rates(&self, rec: &csv::ByteRecord, line: u64) -> Result<Vec<(u32, f64)>, InputError> {
        let mut row = Vec::new();
        for (k, &c) in self.counts.iter().enumerate() {
            let v = Self::cell(rec, k + 1);
            if v.is_empty() || v.eq_ignore_ascii_case("nan") {
                continue;
            }
            match v.parse::<f64>() {
                Ok(0.0) => {}
                Ok(r) if (MIN_RATE..=MAX_RATE).contains(&r) => row.push((c, r)),
                Ok(r) if r.is_finite() && r > 0.0 => {
                    return Err(self.cell_error(
                        rec,
                        line,
                        k + 1,
                        &format!("{r:e} iterations per second is outside {MIN_RATE:e} to {MAX_RATE:e}: no model trains so (runs would pass the year 2100 or take no time)"),
                    ))
                }
                _ => {
                    return Err(self.cell_error(
                        rec,
                        line,
                        k + 1,
                        "iterations per second (a number from 0, nan or empty) expected",
                    ))
                }
            }
        }
        row.sort_by_key(|&(c, _)| c);
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_between_profiled_counts() {
        let row = [(1, 2.0), (2, 3.0), (4, 5.0), (8, 6.0)];
        assert_eq!(rate_on(&row, 1), Some(2.0));
        assert_eq!(rate_on(&row, 4), Some(5.0));
        assert_eq!(rate_on(&row, 3), Some(4.0), "linear between 2 and 4");
        assert_eq!(rate_on(&row, 6), Some(5.5));
        assert_eq!(rate_on(&row, 64), Some(6.0), "flat past the largest");
        assert_eq!(
            rate_on(&row[2..], 2),
            Some(2.5),
            "proportional below the smallest"
        );
        assert_eq!(rate_on(&row, 0), None);
        assert_eq!(rate_on(&[], 4), None);
    }

    #[test]
    fn a_table_with_nan_and_empty_cells() {
        let t = parse_table(
            b"global_batch_size,1,2,4\n64,1.5,nan,4\n128,2,,0\n",
            "m.csv",
        )
        .unwrap();
        assert_eq!(t.rows[&64], vec![(1, 1.5), (4, 4.0)]);
        assert_eq!(t.rows[&128], vec![(1, 2.0)]);
        let r = rate_on(&t.rows[&64], 2).unwrap();
        assert!(
            (r - (1.5 + 2.5 / 3.0)).abs() < 1e-12,
            "nan is not profiled: {r}"
        );
    }

    #[test]
    fn bad_tables_name_file_line_and_field() {
        let e = |t: &[u8]| parse_table(t, "m.csv").unwrap_err().to_string();
        assert!(e(b"batch,1\n").contains("m.csv:1"), "{}", e(b"batch,1\n"));
        let bad = e(b"global_batch_size,1,2\n64,1,-3\n");
        assert!(
            bad.contains("m.csv:2: column 2") && bad.contains("-3"),
            "{bad}"
        );
        let dup = e(b"global_batch_size,1,1\n");
        assert!(dup.contains("column '1'"), "{dup}");
        let short = e(b"global_batch_size,1,2\n64,1\n");
        assert!(
            short.contains("m.csv:2") && short.contains("2 fields"),
            "{short}"
        );
        let twice = e(b"global_batch_size,1\n64,1\n64,2\n");
        assert!(
            twice.contains("m.csv:3") && twice.contains("already"),
            "{twice}"
        );
        assert!(e(b"").contains("empty"));
    }

    #[test]
    fn a_type_may_be_named() {
        assert_eq!(
            parse_spec("A100=t/a"),
            (Some("A100".into()), PathBuf::from("t/a"))
        );
        assert_eq!(parse_spec("t/a"), (None, PathBuf::from("t/a")));
        assert_eq!(parse_spec("./x=y"), (None, PathBuf::from("./x=y")));
    }

    /// Issue 63 item 12: a FIFO among the tables (`mkfifo t/m.csv`) is
    /// refused by name; it used to block the load forever at the open.
    #[test]
    fn a_fifo_among_the_tables_is_refused_not_waited_on() {
        let dir = std::env::temp_dir().join(format!("tracetui-test-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.csv"), "global_batch_size,1\n8,1.0\n").unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join("m.csv"))
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            eprintln!("SKIPPED a_fifo_among_the_tables_is_refused_not_waited_on: no mkfifo here");
            return;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let d = dir.clone();
        std::thread::spawn(move || tx.send(Tables::load(&d, None).map(|_| ())));
        let got = rx.recv_timeout(std::time::Duration::from_secs(20));
        let _ = std::fs::remove_dir_all(&dir);
        let e = got
            .expect("the load blocked on a FIFO")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m.csv") && e.contains("not a regular file"),
            "{e}"
        );
    }
}
