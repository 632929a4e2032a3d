//! Duplicate job ids: the ids kept so far, found by hash, each entry the
//! index of a row already kept (four bytes an entry; the ids themselves
//! are compared where the rows hold them, never copied). One id at a time
//! for a stream (`Seen`), or all at once, a shard per core (`repeats`).

use crate::input::{InputError, Location};
use crate::text::sanitize;
use std::hash::BuildHasher;

#[derive(Default)]
pub(crate) struct Seen {
    table: hashbrown::HashTable<u32>,
    /// Kept job → its line.
    lines: Vec<u64>,
}

pub(crate) fn hash(id: &[u8]) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(id)
}

impl Seen {
    /// Keeps row `j` (its id `id_of(j)`) unless a row with its id is kept;
    /// else the line of that first one.
    pub(crate) fn keep<'a>(
        &mut self,
        id_of: impl Fn(u32) -> &'a [u8],
        j: u32,
        line: u64,
    ) -> Result<(), u64> {
        let id = id_of(j);
        let h = hash(id);
        match self
            .table
            .entry(h, |&k| id_of(k) == id, |&k| hash(id_of(k)))
        {
            hashbrown::hash_table::Entry::Occupied(e) => Err(self.lines[*e.get() as usize]),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(j);
                self.lines.push(line);
                Ok(())
            }
        }
    }
}

/// Jobs whose id an earlier job has, as (position, position of the
/// first), in position order: the ids (`id_of(position)`, read where the
/// rows hold them) split by their `hashes` (given in pieces, a part's
/// each, in order) into a shard per core, each shard a table of its own on
/// its own thread.
pub(crate) fn repeats<'a>(
    id_of: &(impl Fn(usize) -> &'a [u8] + Sync),
    hashes: &[&[u64]],
) -> Vec<(u32, u32)> {
    // A shard per core, as for a file of about 64 bytes a row: one shard
    // below some 65,000 ids, where threads would cost more than they save.
    repeats_in(
        id_of,
        hashes,
        crate::parts::workers(hashes.iter().map(|h| h.len() as u64).sum::<u64>() * 64),
    )
}

fn repeats_in<'a>(
    id_of: &(impl Fn(usize) -> &'a [u8] + Sync),
    hashes: &[&[u64]],
    shards: usize,
) -> Vec<(u32, u32)> {
    let shards = shards as u64;
    let n: usize = hashes.iter().map(|h| h.len()).sum();
    let shard_repeats = |shard: u64| {
        let mine = |h: u64| (h >> 32) % shards == shard;
        let mut table = hashbrown::HashTable::<u32>::with_capacity(n / shards as usize + 1);
        let mut found = Vec::new();
        let all = hashes.iter().flat_map(|h| h.iter()).enumerate();
        for (i, &h) in all.filter(|(_, &h)| mine(h)) {
            match table.entry(
                h,
                |&k| id_of(k as usize) == id_of(i),
                |&k| hash(id_of(k as usize)),
            ) {
                hashbrown::hash_table::Entry::Occupied(e) => found.push((i as u32, *e.get())),
                hashbrown::hash_table::Entry::Vacant(e) => {
                    e.insert(i as u32);
                }
            }
        }
        found
    };
    let found = crate::par::each((0..shards).collect(), shard_repeats);
    // A shard whose thread panicked is searched again here (so the panic,
    // a bug, reaches the caller rather than a repeat going unseen).
    let mut out: Vec<(u32, u32)> = (0..shards)
        .zip(found)
        .flat_map(|(shard, r)| r.unwrap_or_else(|_| shard_repeats(shard)))
        .collect();
    out.sort_unstable();
    out
}

/// The error for a job id seen before: `what` names it as the format's
/// CSV reader does ("duplicate job id", "duplicate job").
pub(crate) fn duplicate(file: &str, line: u64, what: &str, id: &str, first: u64) -> InputError {
    InputError::at(
        Location {
            file: file.to_string(),
            line,
            column: Some("job_id".to_string()),
            byte: false,
        },
        format!("{what} '{}' (first on line {first})", sanitize(id)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_name_the_first_whatever_the_shards() {
        let ids: Vec<String> = (0..5000)
            .map(|i| format!("j{}", (i * 7919) % 3001))
            .collect();
        let ids: Vec<&[u8]> = ids.iter().map(|s| s.as_bytes()).collect();
        let hashes: Vec<u64> = ids.iter().map(|id| hash(id)).collect();
        let id_of = |i: usize| ids[i];
        // Given in pieces, as the parts of a file give them.
        let (a, b) = hashes.split_at(1234);
        let hashes = [a, b];
        let one = repeats_in(&id_of, &hashes, 1);
        assert_eq!(one.len(), 5000 - 3001);
        for &(i, first) in &one {
            assert_eq!(ids[i as usize], ids[first as usize]);
            assert!(first < i);
            assert!(!ids[..first as usize].contains(&ids[i as usize]));
        }
        for shards in [2, 3, 4] {
            assert_eq!(repeats_in(&id_of, &hashes, shards), one, "{shards} shards");
        }
    }
}
