//! The PAI tables' rows in the load cache: each field a column of plain
//! numbers, 65,536 rows a block, so millions of rows are copied whole
//! rather than field by field, and never two copies of a table at once.

use super::tables::{GroupTagRow, InstanceRow, JobRow, SpecRow, TaskRow};
use crate::cache::codec::{Reader, Unreadable, Writer};
use crate::model::Sym;
use crate::texts::TextId;
use std::io::{Read, Write};

const BLOCK: usize = 1 << 16;

/// `Option<Sym>` as a number (`u32::MAX`: none).
fn sym_bits(s: Option<Sym>) -> u32 {
    s.map_or(u32::MAX, Sym::index)
}

fn sym_of(b: u32) -> Option<Sym> {
    (b != u32::MAX).then(|| Sym::new(b))
}

/// Bit `i` of `flags` says whether the `i`-th optional field is there.
fn opt<T>(flags: u8, i: u8, v: T) -> Option<T> {
    (flags >> i & 1 != 0).then_some(v)
}

fn flag<T>(o: &Option<T>, i: u8) -> u8 {
    u8::from(o.is_some()) << i
}

/// One column of a block.
fn col<R, T: bytemuck::Pod>(rows: &[R], f: impl Fn(&R) -> T) -> Vec<T> {
    rows.iter().map(f).collect()
}

/// Reads a column of `n` values.
fn take<T: bytemuck::Pod, In: Read>(r: &mut Reader<In>, n: usize) -> Result<Vec<T>, Unreadable> {
    let v = r.array::<T>()?;
    if v.len() != n {
        return Err(Unreadable(format!(
            "a column of {} where {n} were due",
            v.len()
        )));
    }
    Ok(v)
}

/// Writes `rows` a block at a time, `block` writing one block's columns.
fn put_blocks<R, W: Write>(
    w: &mut Writer<W>,
    rows: &[R],
    mut block: impl FnMut(&mut Writer<W>, &[R]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    w.len(rows.len())?;
    for b in rows.chunks(BLOCK) {
        block(w, b)?;
    }
    Ok(())
}

/// Reads rows written by `put_blocks`: `block` appends one block of `n`.
fn take_blocks<R, In: Read>(
    r: &mut Reader<In>,
    row_bytes: u64,
    mut block: impl FnMut(&mut Reader<In>, usize, &mut Vec<R>) -> Result<(), Unreadable>,
) -> Result<Vec<R>, Unreadable> {
    let n = r.len(row_bytes)?;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        block(r, BLOCK.min(n - out.len()), &mut out)?;
    }
    Ok(out)
}

pub(super) fn put_instances<W: Write>(
    w: &mut Writer<W>,
    rows: &[InstanceRow],
) -> std::io::Result<()> {
    put_blocks(w, rows, |w, b| {
        w.array(&col(b, |r| r.job))?;
        w.array(&col(b, |r| r.task))?;
        w.array(&col(b, |r| r.task_name))?;
        w.array(&col(b, |r| r.status))?;
        w.array(&col(b, |r| r.machine))?;
        w.array(&col(b, |r| r.start_time))?;
        w.array(&col(b, |r| r.end_time))?;
        w.array(&col(b, |r| r.worker))
    })
}

pub(super) fn take_instances<In: Read>(r: &mut Reader<In>) -> Result<Vec<InstanceRow>, Unreadable> {
    take_blocks(r, 44, |r, n, out| {
        let job: Vec<u32> = take(r, n)?;
        let task: Vec<u32> = take(r, n)?;
        let task_name: Vec<u32> = take(r, n)?;
        let status: Vec<u32> = take(r, n)?;
        let machine: Vec<u32> = take(r, n)?;
        let start: Vec<i64> = take(r, n)?;
        let end: Vec<i64> = take(r, n)?;
        let worker: Vec<u64> = take(r, n)?;
        out.extend((0..n).map(|i| InstanceRow {
            job: job[i],
            task: task[i],
            task_name: task_name[i],
            status: status[i],
            machine: machine[i],
            start_time: start[i],
            end_time: end[i],
            worker: worker[i],
        }));
        Ok(())
    })
}

pub(super) fn put_tasks<W: Write>(w: &mut Writer<W>, rows: &[TaskRow]) -> std::io::Result<()> {
    put_blocks(w, rows, |w, b| {
        w.array(&col(b, |r| r.job))?;
        w.array(&col(b, |r| sym_bits(r.task_name)))?;
        w.array(&col(b, |r| r.inst_num))?;
        w.array(&col(b, |r| sym_bits(r.status)))?;
        w.array(&col(b, |r| sym_bits(r.gpu_type)))?;
        w.array(&col(b, |r| {
            flag(&r.start_time, 0)
                | flag(&r.end_time, 1)
                | flag(&r.plan_cpu, 2)
                | flag(&r.plan_mem, 3)
                | flag(&r.plan_gpu, 4)
        }))?;
        w.array(&col(b, |r| r.start_time.unwrap_or(0)))?;
        w.array(&col(b, |r| r.end_time.unwrap_or(0)))?;
        w.array(&col(b, |r| r.plan_cpu.unwrap_or(0.0)))?;
        w.array(&col(b, |r| r.plan_mem.unwrap_or(0.0)))?;
        w.array(&col(b, |r| r.plan_gpu.unwrap_or(0.0)))
    })
}

pub(super) fn take_tasks<In: Read>(r: &mut Reader<In>) -> Result<Vec<TaskRow>, Unreadable> {
    take_blocks(r, 61, |r, n, out| {
        let job: Vec<u32> = take(r, n)?;
        let task_name: Vec<u32> = take(r, n)?;
        let inst_num: Vec<f64> = take(r, n)?;
        let status: Vec<u32> = take(r, n)?;
        let gpu_type: Vec<u32> = take(r, n)?;
        let flags: Vec<u8> = take(r, n)?;
        let start: Vec<i64> = take(r, n)?;
        let end: Vec<i64> = take(r, n)?;
        let cpu: Vec<f64> = take(r, n)?;
        let mem: Vec<f64> = take(r, n)?;
        let gpu: Vec<f64> = take(r, n)?;
        out.extend((0..n).map(|i| TaskRow {
            job: job[i],
            task_name: sym_of(task_name[i]),
            inst_num: inst_num[i],
            status: sym_of(status[i]),
            start_time: opt(flags[i], 0, start[i]),
            end_time: opt(flags[i], 1, end[i]),
            plan_cpu: opt(flags[i], 2, cpu[i]),
            plan_mem: opt(flags[i], 3, mem[i]),
            plan_gpu: opt(flags[i], 4, gpu[i]),
            gpu_type: sym_of(gpu_type[i]),
        }));
        Ok(())
    })
}

pub(super) fn put_jobs<W: Write>(w: &mut Writer<W>, rows: &[JobRow]) -> std::io::Result<()> {
    put_blocks(w, rows, |w, b| {
        w.array(&col(b, |r| r.line))?;
        w.array(&col(b, |r| r.job_name.raw()))?;
        w.array(&col(b, |r| r.inst_id.raw()))?;
        w.array(&col(b, |r| sym_bits(r.user)))?;
        w.array(&col(b, |r| sym_bits(r.status)))?;
        w.array(&col(b, |r| r.start_time))?;
        w.array(&col(b, |r| flag(&r.end_time, 0)))?;
        w.array(&col(b, |r| r.end_time.unwrap_or(0)))
    })
}

pub(super) fn take_jobs<In: Read>(r: &mut Reader<In>) -> Result<Vec<JobRow>, Unreadable> {
    take_blocks(r, 49, |r, n, out| {
        let line: Vec<u64> = take(r, n)?;
        let name: Vec<u64> = take(r, n)?;
        let inst_id: Vec<u64> = take(r, n)?;
        let user: Vec<u32> = take(r, n)?;
        let status: Vec<u32> = take(r, n)?;
        let start: Vec<i64> = take(r, n)?;
        let flags: Vec<u8> = take(r, n)?;
        let end: Vec<i64> = take(r, n)?;
        out.extend((0..n).map(|i| JobRow {
            line: line[i],
            job_name: TextId::from_raw(name[i]),
            inst_id: TextId::from_raw(inst_id[i]),
            user: sym_of(user[i]),
            status: sym_of(status[i]),
            start_time: start[i],
            end_time: opt(flags[i], 0, end[i]),
        }));
        Ok(())
    })
}

pub(super) fn put_group_tags<W: Write>(
    w: &mut Writer<W>,
    rows: &[GroupTagRow],
) -> std::io::Result<()> {
    put_blocks(w, rows, |w, b| {
        w.array(&col(b, |r| sym_bits(r.user)))?;
        w.array(&col(b, |r| sym_bits(r.gpu_type_spec)))?;
        w.array(&col(b, |r| r.group.raw()))?;
        w.array(&col(b, |r| sym_bits(r.workload)))
    })
}

pub(super) fn take_group_tags<In: Read>(
    r: &mut Reader<In>,
) -> Result<Vec<GroupTagRow>, Unreadable> {
    take_blocks(r, 20, |r, n, out| {
        let user: Vec<u32> = take(r, n)?;
        let spec: Vec<u32> = take(r, n)?;
        let group: Vec<u64> = take(r, n)?;
        let workload: Vec<u32> = take(r, n)?;
        out.extend((0..n).map(|i| GroupTagRow {
            user: sym_of(user[i]),
            gpu_type_spec: sym_of(spec[i]),
            group: TextId::from_raw(group[i]),
            workload: sym_of(workload[i]),
        }));
        Ok(())
    })
}

/// `Option<f64>` as a flag and the number.
fn put_opt_f64<W: Write>(w: &mut Writer<W>, v: Option<f64>) -> std::io::Result<()> {
    w.u8(u8::from(v.is_some()))?;
    w.f64(v.unwrap_or(0.0))
}

fn take_opt_f64<In: Read>(r: &mut Reader<In>) -> Result<Option<f64>, Unreadable> {
    let some = r.u8()?;
    let v = r.f64()?;
    Ok((some != 0).then_some(v))
}

/// The machine spec: a few thousand rows, field by field.
pub(super) fn put_spec<W: Write>(w: &mut Writer<W>, rows: &[SpecRow]) -> std::io::Result<()> {
    w.len(rows.len())?;
    for s in rows {
        w.str(&s.machine)?;
        w.str(&s.gpu_type)?;
        put_opt_f64(w, s.cap_cpu)?;
        put_opt_f64(w, s.cap_mem)?;
        w.u32(s.cap_gpu)?;
    }
    Ok(())
}

pub(super) fn take_spec<In: Read>(r: &mut Reader<In>) -> Result<Vec<SpecRow>, Unreadable> {
    let n = r.len(38)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(SpecRow {
            machine: r.str()?,
            gpu_type: r.str()?,
            cap_cpu: take_opt_f64(r)?,
            cap_mem: take_opt_f64(r)?,
            cap_gpu: r.u32()?,
        });
    }
    Ok(out)
}
