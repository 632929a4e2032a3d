//! `--cluster FILE`: the machines for a trace that lists none, from a
//! small CSV in one of two layouts, told apart by the header.
//!
//! - ElasticFlow's `cluster_specs/*.csv`, read as they are:
//!   `num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node`,
//!   one row; `num_switch × num_node_p_switch` machines of
//!   `num_gpu_p_node` GPUs. The switch count is kept for the `elasticflow`
//!   policy, whose node order goes switch by switch as ElasticFlow's
//!   placement does; the engine's placement rules do not use it.
//! - Machines per GPU type: `gpu_type,machines,gpus_per_machine` (then
//!   optionally `cpus,mem_gb`), one row per type, for a heterogeneous
//!   cluster (`A100,16,8` and `T4,32,4`).

use super::input::{InputError, Location};
use super::model::{Cluster, Machine};
use std::path::Path;

const ELASTICFLOW: [&str; 5] = [
    "num_switch",
    "num_node_p_switch",
    "num_gpu_p_node",
    "num_cpu_p_node",
    "mem_p_node",
];
const TYPED: [&str; 3] = ["gpu_type", "machines", "gpus_per_machine"];
const TYPED_MORE: [&str; 2] = ["cpus", "mem_gb"];
/// Most GPU types a spec may name.
const MAX_TYPES: usize = 256;
/// A spec file is a few lines.
const MAX_BYTES: u64 = 1 << 20;

/// Reads the cluster `path` describes.
pub fn load(path: &Path) -> Result<Cluster, InputError> {
    let text = super::reader::read_small(path, MAX_BYTES, "a cluster spec")?;
    parse(&text, &path.display().to_string())
}

/// One GPU type of a spec: its name, machines, GPUs per machine, and CPUs
/// and memory (GB) per machine.
type TypeRow = (String, u64, u32, u32, u32);

/// A spec row that is not blank: its line and its trimmed cells.
type SpecRow = (u64, Vec<String>);

/// A spec's text; errors name the file, the line and the column.
pub(crate) fn parse(text: &[u8], file: &str) -> Result<Cluster, InputError> {
    let rows = spec_rows(text, file)?;
    let Some((_, header)) = rows.first() else {
        return Err(InputError::file(file, "empty: expected a header row"));
    };
    let spec = Spec { file, header };
    let body = &rows[1..];
    if *header == ELASTICFLOW {
        let (machines, switches) = spec.elasticflow(body)?;
        build(vec![machines], file, switches)
    } else if is_typed(header) {
        build(spec.typed(body)?, file, 0)
    } else {
        Err(unknown_header(file, header))
    }
}

/// The spec's rows that are not blank, header first, with their lines.
fn spec_rows(text: &[u8], file: &str) -> Result<Vec<SpecRow>, InputError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text);
    let mut rows = Vec::new();
    for (i, r) in rdr.byte_records().enumerate() {
        let r = r.map_err(|e| InputError::csv(file, &e))?;
        let cells: Vec<String> = r
            .iter()
            .map(|c| String::from_utf8_lossy(c).trim().to_string())
            .collect();
        if cells.iter().all(String::is_empty) {
            continue;
        }
        rows.push((i as u64 + 1, cells));
    }
    Ok(rows)
}

/// Whether `header` is the machines-per-type layout's, optional columns or not.
fn is_typed(header: &[String]) -> bool {
    (3..=5).contains(&header.len())
        && header[..3] == TYPED
        && header[3..] == TYPED_MORE[..header.len() - 3]
}

/// The error for a header of neither layout.
fn unknown_header(file: &str, header: &[String]) -> InputError {
    InputError::on_line(
        file,
        1,
        format!(
            "header '{}': expected ElasticFlow's ({}) or machines per type ({}[,{}])",
            crate::text::sanitize(&header.join(",")),
            ELASTICFLOW.join(","),
            TYPED.join(","),
            TYPED_MORE.join(",")
        ),
    )
}

/// A spec's body being read: the file and the header, for errors.
struct Spec<'a> {
    file: &'a str,
    header: &'a [String],
}

impl Spec<'_> {
    /// Cell `k` of the row on `line`: a whole number from 1 to `max`.
    fn whole(&self, line: u64, cells: &[String], k: usize, max: u64) -> Result<u64, InputError> {
        let v = cells.get(k).map_or("", String::as_str);
        v.parse::<u64>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                let at = Location {
                    file: self.file.to_string(),
                    line,
                    column: Some(crate::text::sanitize(&self.header[k])),
                    byte: false,
                };
                InputError::at(
                    at,
                    format!(
                        "'{}': a whole number from 1 to {max} expected",
                        crate::text::sanitize(v)
                    ),
                )
            })
    }

    /// The row on `line` must have as many fields as the header.
    fn width(&self, line: u64, cells: &[String]) -> Result<(), InputError> {
        if cells.len() == self.header.len() {
            return Ok(());
        }
        Err(InputError::on_line(
            self.file,
            line,
            format!(
                "{} fields, the header has {}",
                cells.len(),
                self.header.len()
            ),
        ))
    }

    /// ElasticFlow's one row: its machines as one type, and its switches.
    fn elasticflow(&self, body: &[SpecRow]) -> Result<(TypeRow, u32), InputError> {
        let [(line, cells)] = body else {
            return Err(InputError::file(
                self.file,
                format!("{} rows: ElasticFlow's spec has one", body.len()),
            ));
        };
        self.width(*line, cells)?;
        let max_gpus = super::limits::MAX_MACHINE_GPUS as u64;
        let machines =
            self.whole(*line, cells, 0, 1 << 16)? * self.whole(*line, cells, 1, 1 << 16)?;
        let gpus = self.whole(*line, cells, 2, max_gpus)? as u32;
        let cpus = self.whole(*line, cells, 3, 1 << 20)? as u32;
        let mem = self.whole(*line, cells, 4, 1 << 30)? as u32;
        let switches = self.whole(*line, cells, 0, 1 << 16)? as u32;
        Ok((("GPU".into(), machines, gpus, cpus, mem), switches))
    }

    /// The machines-per-type rows, a type each; at least one.
    fn typed(&self, body: &[SpecRow]) -> Result<Vec<TypeRow>, InputError> {
        let mut types: Vec<TypeRow> = Vec::new();
        let mut names = std::collections::HashSet::new();
        for (line, cells) in body {
            let t = self.typed_row(*line, cells, &mut names, types.len())?;
            types.push(t);
        }
        if types.is_empty() {
            return Err(InputError::file(
                self.file,
                "no machines: one row per GPU type is expected",
            ));
        }
        Ok(types)
    }

    /// One machines-per-type row, after `so_far` types named in `names`.
    fn typed_row(
        &self,
        line: u64,
        cells: &[String],
        names: &mut std::collections::HashSet<String>,
        so_far: usize,
    ) -> Result<TypeRow, InputError> {
        self.width(line, cells)?;
        let name = &cells[0];
        if name.is_empty() || !names.insert(name.clone()) || so_far >= MAX_TYPES {
            return Err(InputError::on_line(
                self.file,
                line,
                format!(
                    "gpu_type '{}': a type named once, at most {MAX_TYPES} types, is expected",
                    crate::text::sanitize(name)
                ),
            ));
        }
        let more = |k: usize| -> Result<u32, InputError> {
            if k < cells.len() {
                Ok(self.whole(line, cells, k, 1 << 30)? as u32)
            } else {
                Ok(0)
            }
        };
        let max_gpus = super::limits::MAX_MACHINE_GPUS as u64;
        let (m, g) = (
            self.whole(line, cells, 1, 1 << 20)?,
            self.whole(line, cells, 2, max_gpus)? as u32,
        );
        Ok((name.clone(), m, g, more(3)?, more(4)?))
    }
}

/// The cluster of `types`, machines named in order, with its `switches`.
fn build(types: Vec<TypeRow>, file: &str, switches: u32) -> Result<Cluster, InputError> {
    let total: u64 = types.iter().map(|t| t.1 * t.2 as u64).sum();
    if total > super::limits::MAX_GPUS as u64 {
        return Err(InputError::file(
            file,
            format!(
                "{total} GPUs: more than tracetui holds ({})",
                super::limits::MAX_GPUS
            ),
        ));
    }
    let mut machines = Vec::new();
    let mut gpu_types = Vec::new();
    let mut said = Vec::new();
    for (t, (name, count, gpus, cpus, mem_gb)) in types.into_iter().enumerate() {
        said.push(format!("{count} × {gpus} {}", crate::text::sanitize(&name)));
        gpu_types.push(name);
        for _ in 0..count {
            machines.push(Machine {
                name: format!("n{:04}", machines.len()),
                gpu_type: t as u16,
                gpus,
                cpu_milli: cpus.saturating_mul(1000),
                mem_mib: mem_gb.saturating_mul(1024),
                recorded_only: false,
            });
        }
    }
    let per_node = machines
        .iter()
        .map(|m| m.gpus)
        .min()
        .filter(|&g| machines.iter().all(|m| m.gpus == g));
    Ok(Cluster {
        origin: format!(
            "cluster: {total} GPUs = {} (--cluster {})",
            said.join(" + "),
            crate::text::sanitize(file)
        ),
        machines,
        gpu_types,
        per_node,
        switches,
        sized_by: "--cluster".into(),
    })
}

/// `cluster` (read from a spec) with each GPU type's machines scaled so
/// that it holds at least `gpus` GPUs: every type's count × `gpus` ÷ the
/// spec's GPUs, rounded up (to whole switches for ElasticFlow's spec), at
/// least one machine each; the types' shares stay the spec's. `why` names
/// the rule in the cluster's line.
pub(crate) fn scaled(cluster: &Cluster, gpus: u64, why: &str) -> Result<Cluster, InputError> {
    let total = cluster.total_gpus().max(1);
    let mut rows: Vec<TypeRow> = Vec::new();
    for m in &cluster.machines {
        let name = &cluster.gpu_types[m.gpu_type as usize];
        match rows.last_mut() {
            Some(r) if r.0 == *name && r.2 == m.gpus => r.1 += 1,
            _ => rows.push((
                name.clone(),
                1,
                m.gpus,
                m.cpu_milli / 1000,
                m.mem_mib / 1024,
            )),
        }
    }
    let step = u64::from(cluster.switches.max(1));
    for r in &mut rows {
        let want = (r.1 as u128 * gpus as u128).div_ceil(total as u128);
        let want = u64::try_from(want).unwrap_or(u64::MAX).max(1);
        r.1 = want.div_ceil(step).saturating_mul(step);
    }
    let mut c = build(rows, why, cluster.switches)?;
    c.origin = c
        .origin
        .replace(&format!("(--cluster {why})"), &format!("({why})"));
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elasticflows_spec_as_it_is() {
        let c = parse(b"num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n2,32,8,96,256\n", "n64g8.csv").unwrap();
        assert_eq!(
            (c.machines.len(), c.total_gpus(), c.per_node),
            (64, 512, Some(8))
        );
        assert_eq!(c.machines[0].cpu_milli, 96_000);
    }

    #[test]
    fn machines_per_type() {
        let c = parse(
            b"gpu_type,machines,gpus_per_machine\nA100,2,8\nT4,3,4\n",
            "c.csv",
        )
        .unwrap();
        assert_eq!(c.gpu_types, vec!["A100", "T4"]);
        assert_eq!(
            (c.machines.len(), c.total_gpus(), c.per_node),
            (5, 28, None)
        );
        assert_eq!(c.machines[4].gpu_type, 1);
        assert!(c.origin.contains("2 × 8 A100 + 3 × 4 T4"), "{}", c.origin);
    }

    #[test]
    fn bad_specs_say_where() {
        let e = |t: &[u8]| parse(t, "c.csv").unwrap_err().to_string();
        assert!(e(b"gpu_type,machines,gpus_per_machine\nA100,0,8\n")
            .contains("c.csv:2: column machines"));
        assert!(e(b"gpu_type,machines,gpus_per_machine\nA100,1,8\nA100,1,8\n").contains("c.csv:3"));
        assert!(e(b"gpus\n8\n").contains("c.csv:1: header"));
        assert!(
            e(b"num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n")
                .contains("0 rows")
        );
        assert!(e(b"gpu_type,machines,gpus_per_machine\nA100,1\n").contains("2 fields"));
        assert!(e(b"").contains("empty"));
    }
}
