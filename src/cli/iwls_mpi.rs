//! `iwls-suite` under `mpirun -np N`: the benchmarks still to do are handed out one at a
//! time by rank 0 to whichever rank is free ([`dist::run_jobs`](crate::dist::run_jobs)),
//! largest training file first; each rank solves its benchmarks alone and sends the AIG
//! and its results row back; rank 0 writes every file (`exNN.aig`, `results.tsv` after
//! each benchmark, so the suite stays resumable). `results.tsv` is the one a single
//! process writes but for the `seconds` column.

use super::common::{UsageError, progress, set_threads};
use super::iwls::{IwlsSuiteArgs, print_suite_summary, result_row, solve};
use crate::io::aiger::{AigerFormat, netlist_to_aiger};
use crate::io::{Netlist, write_atomic};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// A benchmark's result as sent to rank 0: the row's length, the row, the AIGER bytes.
fn encode(row: &str, aig: &[u8]) -> Vec<u8> {
    let mut m = (row.len() as u64).to_le_bytes().to_vec();
    m.extend_from_slice(row.as_bytes());
    m.extend_from_slice(aig);
    m
}

fn decode(m: &[u8]) -> Option<(String, &[u8])> {
    let len = usize::try_from(u64::from_le_bytes(m.get(..8)?.try_into().ok()?)).ok()?;
    let row = std::str::from_utf8(m.get(8..8 + len)?).ok()?.to_owned();
    Some((row, &m[8 + len..]))
}

/// Runs the suite's remaining benchmarks over the ranks; `rows` are those already in
/// `tsv` (with `header`).
///
/// # Errors
/// A benchmark without its validation split (exit 2, before any work), one that fails,
/// or an output that cannot be written.
pub(super) fn run_suite_over_ranks(
    a: &IwlsSuiteArgs,
    params: &crate::pipeline::iwls::IwlsParams,
    names: &[String],
    mut rows: Vec<String>,
    tsv: &Path,
    header: &str,
) -> anyhow::Result<()> {
    let world = crate::dist::comm_world();
    set_threads(crate::dist::threads_per_rank(0));
    let find = |stem: &str, suffix: &str| -> Option<PathBuf> {
        [format!("{stem}.{suffix}.pla"), format!("{stem}.{suffix}.pla.gz")]
            .into_iter()
            .map(|f| a.dir.join(f))
            .find(|p| p.exists())
    };
    let mut splits = Vec::with_capacity(names.len());
    for name in names {
        let (Some(train), Some(valid)) = (find(name, "train"), find(name, "valid")) else {
            return Err(UsageError(format!(
                "{}: {name} needs both a train and a valid file",
                a.dir.display()
            ))
            .into());
        };
        splits.push((train, valid));
    }
    // Rank 0 decides what is left to do (it alone writes the folder); largest first, so
    // that no long benchmark starts last.
    let mut todo: Vec<usize> = (0..names.len())
        .filter(|&i| {
            let done = rows.iter().any(|r| r.split('\t').next() == Some(names[i].as_str()));
            !(done && a.out.join(format!("{}.aig", names[i])).exists())
        })
        .collect();
    let size = |i: &usize| std::fs::metadata(&splits[*i].0).map_or(0, |m| m.len());
    todo.sort_by_key(|i| std::cmp::Reverse(size(i)));
    let bar = progress(todo.len() as u64, world.rank() != 0, "iwls");
    let max_memory = a.max_memory;
    let work = |i: usize| -> Result<Vec<u8>, String> {
        let (train, valid) = &splits[i];
        let (aig, r) = solve(train, valid, params, max_memory).map_err(|e| format!("{}: {e:#}", names[i]))?;
        let net = Netlist::indexed(&crate::io::verilog::module_name(&names[i]), aig.to_circuit());
        let row = result_row(&names[i], &r);
        Ok(encode(&row, &netlist_to_aiger(&net, AigerFormat::Binary)))
    };
    let done = |i: usize, m: Vec<u8>| -> Result<(), String> {
        let (row, aig) = decode(&m).ok_or_else(|| format!("{}: a malformed result message", names[i]))?;
        let path = a.out.join(format!("{}.aig", names[i]));
        write_atomic(&path, aig).map_err(|e| format!("writing {}: {e}", path.display()))?;
        rows.retain(|r| r.split('\t').next() != Some(names[i].as_str()));
        rows.push(row);
        rows.sort();
        let text =
            std::iter::once(header.to_string()).chain(rows.iter().cloned()).collect::<Vec<_>>().join("\n")
                + "\n";
        write_atomic(tsv, text.as_bytes()).map_err(|e| format!("writing {}: {e}", tsv.display()))?;
        bar.set_message(names[i].clone());
        bar.inc(1);
        Ok(())
    };
    crate::dist::run_jobs(&*world, &todo, work, done).context("iwls-suite")?;
    bar.finish_and_clear();
    if world.rank() == 0 {
        let rows: Vec<String> = std::fs::read_to_string(tsv)
            .map(|t| t.lines().skip(1).map(str::to_string).collect())
            .unwrap_or_default();
        print_suite_summary(&rows, tsv, &format!(", {} ranks", world.size()));
    }
    Ok(())
}
