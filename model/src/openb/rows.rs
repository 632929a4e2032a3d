//! The two tables as released: a pod list's header and rows (eleven
//! columns, or the first five in the `multigpu*` files) and the node list's.

use crate::fields::Row;
use crate::input::InputError;
use crate::text::sanitize;

/// A pod list's columns, in the release's order.
pub(crate) const POD_COLUMNS: [&str; 11] = [
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "gpu_spec",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
];

/// The columns every pod list has (the `multigpu*` files have only these).
const POD_REQUIRED: usize = 5;

/// The node list's columns.
pub(crate) const NODE_COLUMNS: [&str; 5] = ["sn", "cpu_milli", "memory_mib", "gpu", "model"];

/// Where each of `POD_COLUMNS` is in a file's header (none: absent).
#[derive(Debug, Clone)]
pub(crate) struct PodHeader {
    at: [Option<usize>; 11],
    width: usize,
}

impl PodHeader {
    /// The header `names` of `file`: every name one of `POD_COLUMNS`, the
    /// first five present.
    pub(crate) fn read(names: &[String], file: &str) -> Result<PodHeader, InputError> {
        let mut at = [None; 11];
        for (i, n) in names.iter().enumerate() {
            let Some(k) = POD_COLUMNS.iter().position(|c| c == n) else {
                return Err(header_error(file, names, &POD_COLUMNS));
            };
            if at[k].replace(i).is_some() {
                return Err(InputError::on_line(
                    file,
                    1,
                    format!("the column '{n}' is named twice"),
                ));
            }
        }
        if at[..POD_REQUIRED].iter().any(Option::is_none) {
            return Err(header_error(file, names, &POD_COLUMNS));
        }
        Ok(PodHeader {
            at,
            width: names.len(),
        })
    }

    /// Whether the file has the times and phases (not a `multigpu*` file).
    pub(crate) fn has_times(&self) -> bool {
        self.at[7..].iter().all(Option::is_some)
    }
}

fn header_error(file: &str, names: &[String], expected: &[&str]) -> InputError {
    InputError::on_line(
        file,
        1,
        format!(
            "unknown header '{}': expected {} (an openb list as released)",
            sanitize(&names.join(",")),
            expected.join(",")
        ),
    )
}

/// A pod's phase as released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Phase {
    Running,
    Succeeded,
    Failed,
    Pending,
    /// A `multigpu*` file: no phase column.
    Unsaid,
}

impl Phase {
    pub(crate) const NAMES: [(&'static str, Phase); 4] = [
        ("Running", Phase::Running),
        ("Succeeded", Phase::Succeeded),
        ("Failed", Phase::Failed),
        ("Pending", Phase::Pending),
    ];

    pub(crate) fn name(self) -> &'static str {
        Phase::NAMES
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("", |(n, _)| n)
    }
}

/// One pod row, checked.
#[derive(Debug, Clone)]
pub(crate) struct PodRow {
    pub name: Box<str>,
    pub cpu_milli: u32,
    pub mem_mib: u32,
    pub gpus: u32,
    pub milli: u32,
    pub spec: Box<str>,
    pub qos: Box<str>,
    pub phase: Phase,
    pub creation: Option<i64>,
    pub deletion: Option<i64>,
    pub scheduled: Option<i64>,
}

/// A whole number from 0 to `u32::MAX`.
fn amount(row: &Row, idx: usize, column: &str) -> Result<u32, InputError> {
    let v = row.int(idx, column, 0)?;
    u32::try_from(v).map_err(|_| row.error(column, format!("{v} is too large")))
}

fn opt_time(row: &Row, h: &PodHeader, k: usize) -> Result<Option<i64>, InputError> {
    let Some(i) = h.at[k] else {
        return Ok(None);
    };
    if row.text(i, POD_COLUMNS[k])?.is_empty() {
        return Ok(None);
    }
    row.secs(i, POD_COLUMNS[k]).map(Some)
}

/// The GPUs of a pod row: `num_gpu` and `gpu_milli`, as FGD's simulator
/// can place them (a share only of one GPU; a GPU pod with a share).
fn gpus(row: &Row, h: &PodHeader) -> Result<(u32, u32), InputError> {
    let n = row.gpus(h.at[3].unwrap_or(3), "num_gpu", 0)?;
    let m = amount(row, h.at[4].unwrap_or(4), "gpu_milli")?;
    if m > 1000 {
        return Err(row.error("gpu_milli", format!("{m} is more than one GPU (1000)")));
    }
    if n > crate::limits::MAX_MACHINE_GPUS {
        return Err(row.error("num_gpu", format!("{n} GPUs is more than one node holds")));
    }
    match (n, m) {
        (0, m) if m > 0 => Err(row.error("gpu_milli", format!("{m} with num_gpu 0"))),
        (n, 0) if n > 0 => Err(row.error("gpu_milli", format!("0 with num_gpu {n}"))),
        (n, m) if n > 1 && m < 1000 => Err(row.error(
            "gpu_milli",
            format!("{m}: a pod of {n} GPUs takes them whole (1000)"),
        )),
        _ => Ok((n, m)),
    }
}

/// Reads one pod row.
pub(crate) fn pod(row: &Row, h: &PodHeader) -> Result<PodRow, InputError> {
    if row.record.len() != h.width {
        return Err(row.row_error(format!(
            "{} columns, the header has {}",
            row.record.len(),
            h.width
        )));
    }
    let text = |k: usize| -> Result<Box<str>, InputError> {
        Ok(match h.at[k] {
            Some(i) => row.text(i, POD_COLUMNS[k])?.into(),
            None => "".into(),
        })
    };
    let name = row.exact(h.at[0].unwrap_or(0), "name")?.into();
    let (gpus, milli) = gpus(row, h)?;
    let phase = match h.at[7] {
        None => Phase::Unsaid,
        Some(i) => {
            let t = row.required(i, "pod_phase")?;
            Phase::NAMES
                .iter()
                .find(|(n, _)| *n == t)
                .map(|&(_, p)| p)
                .ok_or_else(|| {
                    row.error(
                        "pod_phase",
                        format!(
                            "'{}' is not Running, Succeeded, Failed or Pending",
                            sanitize(t)
                        ),
                    )
                })?
        }
    };
    Ok(PodRow {
        name,
        cpu_milli: amount(row, h.at[1].unwrap_or(1), "cpu_milli")?,
        mem_mib: amount(row, h.at[2].unwrap_or(2), "memory_mib")?,
        gpus,
        milli,
        spec: text(5)?,
        qos: text(6)?,
        phase,
        creation: opt_time(row, h, 8)?,
        deletion: opt_time(row, h, 9)?,
        scheduled: opt_time(row, h, 10)?,
    })
}

/// One node row, checked: name, CPU milli, memory MiB, GPUs, model.
pub(crate) struct NodeRow {
    pub name: String,
    pub cpu_milli: u32,
    pub mem_mib: u32,
    pub gpus: u32,
    pub model: String,
}

/// Checks a node list's header.
pub(crate) fn node_header(names: &[String], file: &str) -> Result<(), InputError> {
    if names != NODE_COLUMNS {
        return Err(header_error(file, names, &NODE_COLUMNS));
    }
    Ok(())
}

/// Reads one node row.
pub(crate) fn node(row: &Row) -> Result<NodeRow, InputError> {
    row.expect_width(NODE_COLUMNS.len())?;
    let gpus = row.gpus(3, "gpu", 0)?;
    if gpus > crate::limits::MAX_MACHINE_GPUS {
        return Err(row.error("gpu", format!("{gpus} GPUs on one node is too many")));
    }
    let model = row.text(4, "model")?.to_string();
    if gpus > 0 && model.is_empty() {
        return Err(row.error("model", "empty on a node with GPUs"));
    }
    Ok(NodeRow {
        name: row.exact(0, "sn")?.to_string(),
        cpu_milli: amount(row, 1, "cpu_milli")?,
        mem_mib: amount(row, 2, "memory_mib")?,
        gpus,
        model,
    })
}
