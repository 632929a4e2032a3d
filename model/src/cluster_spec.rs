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

/// A spec's text; errors name the file, the line and the column.
pub fn parse(text: &[u8], file: &str) -> Result<Cluster, InputError> {
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
    let Some((_, header)) = rows.first() else {
        return Err(InputError::file(file, "empty: expected a header row"));
    };
    let header = header.clone();
    let body = &rows[1..];
    let mut types: Vec<(String, u64, u32, u32, u32)> = Vec::new();
    let mut switches = 0;
    let whole = |line: u64, cells: &[String], k: usize, max: u64| -> Result<u64, InputError> {
        let v = cells.get(k).map_or("", String::as_str);
        v.parse::<u64>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                let at = Location {
                    file: file.to_string(),
                    line,
                    column: Some(crate::text::sanitize(&header[k])),
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
    };
    let width = |line: u64, cells: &[String]| {
        if cells.len() == header.len() {
            return Ok(());
        }
        Err(InputError::on_line(
            file,
            line,
            format!("{} fields, the header has {}", cells.len(), header.len()),
        ))
    };
    let max_gpus = super::limits::MAX_MACHINE_GPUS as u64;
    if header == ELASTICFLOW {
        let [(line, cells)] = body else {
            return Err(InputError::file(
                file,
                format!("{} rows: ElasticFlow's spec has one", body.len()),
            ));
        };
        width(*line, cells)?;
        let machines = whole(*line, cells, 0, 1 << 16)? * whole(*line, cells, 1, 1 << 16)?;
        let gpus = whole(*line, cells, 2, max_gpus)? as u32;
        let cpus = whole(*line, cells, 3, 1 << 20)? as u32;
        let mem = whole(*line, cells, 4, 1 << 30)? as u32;
        types.push(("GPU".into(), machines, gpus, cpus, mem));
        switches = whole(*line, cells, 0, 1 << 16)? as u32;
    } else if (3..=5).contains(&header.len())
        && header[..3] == TYPED
        && header[3..] == TYPED_MORE[..header.len() - 3]
    {
        let mut names = std::collections::HashSet::new();
        for (line, cells) in body {
            width(*line, cells)?;
            let name = &cells[0];
            if name.is_empty() || !names.insert(name.clone()) || types.len() >= MAX_TYPES {
                return Err(InputError::on_line(
                    file,
                    *line,
                    format!(
                        "gpu_type '{}': a type named once, at most {MAX_TYPES} types, is expected",
                        crate::text::sanitize(name)
                    ),
                ));
            }
            let more = |k: usize| -> Result<u32, InputError> {
                if k < cells.len() {
                    Ok(whole(*line, cells, k, 1 << 30)? as u32)
                } else {
                    Ok(0)
                }
            };
            let (m, g) = (
                whole(*line, cells, 1, 1 << 20)?,
                whole(*line, cells, 2, max_gpus)? as u32,
            );
            types.push((name.clone(), m, g, more(3)?, more(4)?));
        }
        if types.is_empty() {
            return Err(InputError::file(
                file,
                "no machines: one row per GPU type is expected",
            ));
        }
    } else {
        return Err(InputError::on_line(
            file,
            1,
            format!(
                "header '{}': expected ElasticFlow's ({}) or machines per type ({}[,{}])",
                crate::text::sanitize(&header.join(",")),
                ELASTICFLOW.join(","),
                TYPED.join(","),
                TYPED_MORE.join(",")
            ),
        ));
    }
    build(types, file, switches)
}

fn build(
    types: Vec<(String, u64, u32, u32, u32)>,
    file: &str,
    switches: u32,
) -> Result<Cluster, InputError> {
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
                cpus,
                mem_gb,
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
        assert_eq!(c.machines[0].cpus, 96);
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
