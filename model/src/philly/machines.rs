//! `cluster_machine_list`: `machineId, number of GPUs, single GPU mem`,
//! with its header and the spaces after commas, as released.

use super::MACHINES;
use crate::fields::{self, Row};
use crate::input::{InputError, LoadReport, Location, RowPolicy};
use crate::model::{Cluster, Machine};
use crate::text::sanitize;
use rustc_hash::FxHashMap;

/// Reads the machine list from `input`, named `file` in errors.
pub(super) fn read(
    input: impl std::io::Read,
    file: String,
    strict: bool,
    report: &mut LoadReport,
) -> Result<Cluster, InputError> {
    let mut rdr = fields::csv_over(std::io::BufReader::with_capacity(1 << 20, input));
    let mut rec = csv::ByteRecord::new();
    let mut policy = RowPolicy::new(&file, strict);
    let mut c = Cluster::default();
    let mut first = true;
    let mut seen: FxHashMap<String, u64> = FxHashMap::default();
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(InputError::csv(&file, &e)),
        }
        let line = rec.position().map_or(0, |p| p.line());
        if first {
            first = false;
            check_header(&rec, &file, line)?;
            continue;
        }
        let row = Row {
            file: &file,
            line,
            record: &rec,
        };
        match parse_machine(&row, &seen) {
            Ok((name, gpus, mem)) => {
                seen.insert(name.clone(), line);
                add_machine(&mut c, name, gpus, &mem);
            }
            Err(e) => policy.bad_row(e)?,
        }
    }
    report.skips.push(policy.skips);
    if c.machines.is_empty() {
        return Err(InputError::file(&file, "no machines"));
    }
    c.origin = format!(
        "cluster: {} machines, {} GPUs from {MACHINES}",
        c.machines.len(),
        c.total_gpus()
    );
    Ok(c)
}

/// The header row, on `line`, must begin with `machineId`.
fn check_header(rec: &csv::ByteRecord, file: &str, line: u64) -> Result<(), InputError> {
    let h: Vec<String> = rec
        .iter()
        .map(|f| String::from_utf8_lossy(f).trim().to_string())
        .collect();
    if h.first().map(String::as_str) != Some("machineId") {
        return Err(InputError::at(
            Location {
                file: file.to_string(),
                line,
                column: None,
                byte: false,
            },
            format!(
                "unknown header '{}': expected 'machineId, number of GPUs, single GPU mem'",
                sanitize(&h.join(","))
            ),
        ));
    }
    Ok(())
}

/// One machine row (a name not in `seen`): its name, GPUs and GPU memory.
fn parse_machine(
    row: &Row,
    seen: &FxHashMap<String, u64>,
) -> Result<(String, u32, String), InputError> {
    row.expect_width(3)?;
    let name = row.required(0, "machineId")?.to_string();
    if let Some(l) = seen.get(&name) {
        return Err(row.error(
            "machineId",
            format!(
                "duplicate machine '{}' (first on line {l})",
                sanitize(&name)
            ),
        ));
    }
    let gpus = row.int(1, "number of GPUs", 0)?;
    if gpus > 64 {
        return Err(row.error("number of GPUs", format!("{gpus} is more than 64")));
    }
    let mem = row.text(2, "single GPU mem")?.to_string();
    Ok((name, gpus as u32, mem))
}

/// Adds machine `name` to `c`, its GPU type named by its GPU memory.
fn add_machine(c: &mut Cluster, name: String, gpus: u32, mem: &str) {
    let ty = c.type_id(&if mem.is_empty() {
        "GPU".to_string()
    } else {
        format!("{mem} GPU")
    });
    c.machines.push(Machine {
        name,
        gpu_type: ty,
        gpus,
        cpu_milli: 0,
        mem_mib: 0,
        recorded_only: false,
    });
}
