//! A Slurm cluster's nodes from what its tools print: `scontrol show node`
//! (one line a node with `-o`, or blocks) or `sinfo` with a header naming
//! `NODELIST` (or `HOSTNAMES`) and `GRES` — GPUs per node by type.

use super::values::Unreadable;
use crate::input::InputError;
use crate::text::sanitize;
use std::path::Path;

/// One node, as its tools describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Node {
    pub name: String,
    pub gpus: u32,
    /// The GPU type its GRES names (`a100`); none where untyped.
    pub gpu_type: Option<String>,
    pub cpus: u32,
    /// Memory in MB.
    pub mem_mb: u64,
}

/// The most bytes of node output read (a large cluster's is a few MB).
const MOST_BYTES: u64 = 64 << 20;

/// Reads `path`: `scontrol show node [-o]` or `sinfo` output.
pub(crate) fn read(path: &Path) -> Result<Vec<Node>, InputError> {
    let file = path.display().to_string();
    let bytes = crate::reader::read_small(path, MOST_BYTES, "scontrol show node or sinfo output")?;
    parse(&String::from_utf8_lossy(&bytes), &file)
}

/// `scontrol show node [-o]` or `sinfo` output, named `file` in messages.
pub(crate) fn parse(text: &str, file: &str) -> Result<Vec<Node>, InputError> {
    let nodes = if text.lines().any(|l| l.starts_with("NodeName=")) {
        scontrol(text, file)?
    } else {
        sinfo(text, file)?
    };
    if nodes.is_empty() {
        return Err(InputError::file(file, "no nodes in it"));
    }
    Ok(nodes)
}

/// GPUs in a GRES string (`gpu:a100:8(S:0-1),gpu:v100:2`, `gpu:4`,
/// `(null)`): their count and, where one type is named, the type.
pub(crate) fn gres_gpus(gres: &str) -> Result<(u32, Option<String>), Unreadable> {
    let mut plain = String::new();
    let mut depth = 0;
    for c in gres.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let (mut n, mut types) = (0u64, Vec::new());
    for item in plain.split(',').map(str::trim) {
        let parts: Vec<&str> = item.split(':').collect();
        if parts.first() != Some(&"gpu") {
            continue;
        }
        let (ty, count) = match parts[..] {
            [_, c] => (None, c),
            [_, t, c] => (Some(t), c),
            [_] => (None, "1"),
            _ => {
                return Err(Unreadable(format!(
                    "'{item}' is not a GRES (gpu[:TYPE]:COUNT)"
                )))
            }
        };
        n += count
            .parse::<u64>()
            .ok()
            .filter(|c| *c <= crate::limits::MAX_MACHINE_GPUS as u64)
            .ok_or_else(|| Unreadable(format!("'{item}': {count} is not a GPU count")))?;
        types.extend(ty.map(str::to_string));
    }
    types.dedup();
    let n = n.min(crate::limits::MAX_MACHINE_GPUS as u64) as u32;
    Ok((n, types.into_iter().next()))
}

/// `scontrol show node`: `KEY=VALUE` tokens, a node from each `NodeName=`.
fn scontrol(text: &str, file: &str) -> Result<Vec<Node>, InputError> {
    let mut blocks: Vec<(u64, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("NodeName=") {
            blocks.push((i as u64 + 1, String::new()));
        }
        if let Some((_, b)) = blocks.last_mut() {
            b.push(' ');
            b.push_str(line);
        }
    }
    let mut nodes = Vec::new();
    for (line, block) in blocks {
        let get = |key: &str| {
            block
                .split_whitespace()
                .find_map(|t| t.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        };
        let bad = |field: &str, m: Unreadable| {
            InputError::at(
                crate::input::Location {
                    file: file.to_string(),
                    line,
                    column: Some(field.to_string()),
                    byte: false,
                },
                m.0,
            )
        };
        let name = get("NodeName").unwrap_or_default();
        let (gpus, gpu_type) = match get("CfgTRES").map(super::values::gpus) {
            Some(Ok(Some(g))) => g,
            _ => gres_gpus(get("Gres").unwrap_or("")).map_err(|m| bad("Gres", m))?,
        };
        let num = |k: &str| get(k).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        nodes.push(Node {
            name: sanitize(name),
            gpus: gpus.min(crate::limits::MAX_MACHINE_GPUS),
            gpu_type,
            cpus: num("CPUTot").min(u32::MAX as u64) as u32,
            mem_mb: num("RealMemory"),
        });
    }
    Ok(nodes)
}

/// `sinfo` with a header: its NODELIST (or HOSTNAMES) and GRES columns,
/// CPUS and MEMORY where present; a node listed once per partition kept once.
fn sinfo(text: &str, file: &str) -> Result<Vec<Node>, InputError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, head)) = lines.next() else {
        return Err(InputError::file(
            file,
            "empty: expected scontrol show node -o or sinfo output",
        ));
    };
    let cols: Vec<String> = head
        .split_whitespace()
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let at = |names: &[&str]| cols.iter().position(|c| names.contains(&c.as_str()));
    let (Some(list), Some(gres)) = (at(&["NODELIST", "HOSTNAMES"]), at(&["GRES"])) else {
        return Err(InputError::on_line(
            file,
            1,
            "neither scontrol show node output (lines starting NodeName=) nor sinfo output with a header naming NODELIST and GRES (sinfo -N -o '%N %G %c %m')",
        ));
    };
    let (cpus, mem) = (at(&["CPUS"]), at(&["MEMORY"]));
    let mut nodes: Vec<Node> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, l) in lines {
        let f: Vec<&str> = l.split_whitespace().collect();
        let line = i as u64 + 1;
        let field = |k: usize, name: &str| {
            f.get(k).copied().ok_or_else(|| {
                InputError::on_line(file, line, format!("{} fields: no {name} column", f.len()))
            })
        };
        let names = super::hostlist::expand(field(list, "NODELIST")?)
            .map_err(|m| InputError::on_line(file, line, format!("NODELIST: {m}")))?;
        let (gpus, gpu_type) = gres_gpus(field(gres, "GRES")?)
            .map_err(|m| InputError::on_line(file, line, format!("GRES: {m}")))?;
        let num = |k: Option<usize>| {
            k.and_then(|k| f.get(k))
                .and_then(|v| v.trim_end_matches('+').parse::<u64>().ok())
        };
        for name in names {
            if seen.insert(name.clone()) {
                nodes.push(Node {
                    name: sanitize(&name),
                    gpus,
                    gpu_type: gpu_type.clone(),
                    cpus: num(cpus).unwrap_or(0).min(u32::MAX as u64) as u32,
                    mem_mb: num(mem).unwrap_or(0),
                });
            }
        }
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Vec<Node>, InputError> {
        let d = std::env::temp_dir().join(format!("tracetui-test-nodes-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(format!("n{}.txt", text.len()));
        std::fs::write(&p, text).unwrap();
        let r = read(&p);
        let _ = std::fs::remove_file(&p);
        r
    }

    #[test]
    fn scontrol_one_line_a_node_and_in_blocks() {
        let one = "NodeName=vm Arch=x86_64 CoresPerSocket=16  CPUAlloc=1 CPUTot=32 Gres=gpu:a100:8 OS=Linux 6.18 #1 SMP RealMemory=23081 CfgTRES=cpu=32,mem=23081M,billing=32,gres/gpu=8,gres/gpu:a100=8 AllocTRES=cpu=1\nNodeName=cpu1 CPUTot=64 Gres=(null) RealMemory=1000\n";
        let n = read_text(one).unwrap();
        assert_eq!(
            n[0],
            Node {
                name: "vm".into(),
                gpus: 8,
                gpu_type: Some("a100".into()),
                cpus: 32,
                mem_mb: 23081
            }
        );
        assert_eq!((n[1].gpus, n[1].cpus), (0, 64));
        let blocks = "NodeName=g1 Arch=x86_64\n   Gres=gpu:v100:4(S:0-1)\n   CPUTot=8 RealMemory=64000\nNodeName=g2\n   Gres=gpu:2\n";
        let n = read_text(blocks).unwrap();
        assert_eq!(
            (n[0].gpus, n[0].gpu_type.as_deref(), n[0].cpus),
            (4, Some("v100"), 8)
        );
        assert_eq!((n[1].gpus, n[1].gpu_type.as_deref()), (2, None));
    }

    #[test]
    fn sinfo_by_its_header_each_node_once() {
        let text = "NODELIST PARTITION STATE CPUS CPUS(A/I/O/T) MEMORY FREE_MEM GRES REASON\nvm debug* mixed 32 1/31/0/32 23081 20834 gpu:a100:8 none\nvm gpu mixed 32 1/31/0/32 23081 20834 gpu:a100:8 none\ng[1-2] gpu idle 16 0/16/0/16 1000 900 gpu:v100:4(S:0) none\n";
        let n = read_text(text).unwrap();
        let names: Vec<&str> = n.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["vm", "g1", "g2"]);
        assert_eq!((n[2].gpus, n[2].cpus, n[2].mem_mb), (4, 16, 1000));
    }

    #[test]
    fn other_text_is_refused_saying_what_is_expected() {
        let e = read_text("hello world\n").unwrap_err().to_string();
        assert!(
            e.contains("NodeName=") && e.contains("NODELIST and GRES"),
            "{e}"
        );
        let e = read_text("NodeName=a Gres=gpu:a100:many\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(":1: column Gres:") && e.contains("not a GPU count"),
            "{e}"
        );
        let e = read_text("NODELIST GRES\nn[1-\n").unwrap_err().to_string();
        assert!(
            e.contains(":2: ") && e.contains("no GRES column") || e.contains("NODELIST"),
            "{e}"
        );
    }
}
