//! `circuitlearn opt`: run a pass script on any circuit file and write the result.

use super::common::{UsageError, check_outputs};
use super::export::{export_to, format_of};
use crate::aig::Aig;
use crate::data;
use crate::io::Netlist;
use crate::io::verilog::VerilogParams;
use crate::pass::{FRAIG_LIMITS, PassContext, RunOptions, parse_script, run_budgeted};
use crate::verify::SatLimits;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `opt`.
#[derive(Debug, Args)]
pub struct OptArgs {
    /// Input: a circuit (.blif, .aig, .aag) or a complete function (.truth, fully specified .pla).
    pub input: PathBuf,
    /// Pass script, e.g. strash,fraig,balance or resyn2 (passes: constprop, sweep, strash, fraig,
    /// balance, rewrite, rewrite -z, refactor, refactor -z, resub, dc; scripts: resyn, resyn2,
    /// compress2, with a repeat count as in resyn2*2).
    #[arg(long, default_value = "strash,fraig")]
    pub passes: String,
    /// Output file; the format follows the extension (.blif, .aig, .aag, .v, .dot).
    #[arg(short, long, visible_alias = "out")]
    pub output: PathBuf,
    /// Prove every function-preserving pass equivalent (exhaustive simulation or SAT).
    #[arg(long)]
    pub check: bool,
    /// Care set for `dc`: a PLA file whose input part has one column per circuit input.
    #[arg(long)]
    pub care: Option<String>,
    /// Print one JSON object (the pass statistics) as the last line.
    #[arg(long)]
    pub json: bool,
    /// Conflicts one SAT call of `fraig` (and of `--check`) may spend [default: fraig's 100].
    #[arg(long, value_name = "N")]
    pub sat_conflicts: Option<u64>,
    /// Conflicts each SAT-using pass (and each check) may spend in all [default: fraig's 2000000].
    #[arg(long, value_name = "N")]
    pub sat_total_conflicts: Option<u64>,
    /// Seconds each SAT-using pass (and each check) may take [default: fraig's 60].
    #[arg(long, value_name = "S")]
    pub sat_seconds: Option<f64>,
    /// Time budget of the whole script, seconds: a pass runs when its estimated cost (the
    /// AIG's size times a per-node cost measured for that pass) still fits, so the result
    /// is the same on every machine; a wall-clock guard at 3x the budget stops a pass
    /// running far over (rewrite, refactor and resub stop between two nodes, fraig stops
    /// its SAT calls) [default: none].
    #[arg(long, value_name = "S")]
    pub budget: Option<f64>,
    /// Most memory the data may take once parsed and encoded (e.g. 4G, 512M) [default:
    /// what the machine has available]; larger data are refused before they are loaded.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<crate::data::MemoryLimit>,
    /// Write even when the output is the input file (or the care set), replacing it.
    #[arg(long)]
    pub force: bool,
}

/// Runs `opt`.
///
/// # Errors
/// Unreadable input, unknown pass, `dc` without a fitting care set (exit 2); a pass
/// found not equivalent under `--check`, or an unwritable output (exit 1).
pub fn run(a: &OptArgs) -> anyhow::Result<()> {
    let care_path = a.care.as_deref().map(std::path::Path::new);
    let inputs: Vec<&std::path::Path> = std::iter::once(a.input.as_path()).chain(care_path).collect();
    check_outputs(&[&a.output], &inputs, Some(a.force))?;
    let (net, synthesis) = super::map::load_any(&a.input)?;
    let format = format_of(&a.output)?;
    let care = match &a.care {
        None => None,
        Some(path) => {
            let ds =
                data::load_dataset_within(path, &a.max_memory.unwrap_or_else(data::MemoryLimit::available))?;
            let data::Features::Bits(bits) = ds.features else {
                return Err(
                    UsageError(format!("{path}: the care set must be a PLA file (Boolean inputs)")).into()
                );
            };
            if bits.rows() != net.circuit().n_inputs() {
                return Err(UsageError(format!(
                    "{path}: care set has {} inputs, the circuit {}",
                    bits.rows(),
                    net.circuit().n_inputs()
                ))
                .into());
            }
            Some(bits)
        }
    };
    let script = parse_script(&a.passes, &PassContext { care })?;
    if a.sat_seconds.is_some_and(|t| t.is_nan() || t < 0.0) {
        return Err(UsageError("--sat-seconds must be a number >= 0".into()).into());
    }
    let limits = (a.sat_conflicts.is_some() || a.sat_total_conflicts.is_some() || a.sat_seconds.is_some())
        .then(|| {
            SatLimits::new(
                a.sat_conflicts.unwrap_or(FRAIG_LIMITS.conflicts_per_call),
                a.sat_total_conflicts.unwrap_or(FRAIG_LIMITS.conflicts),
                a.sat_seconds.unwrap_or(FRAIG_LIMITS.seconds),
            )
        });
    let budget = a.budget.map(|b| super::common::budget_seconds("--budget", b)).transpose()?;
    let opts = RunOptions {
        check: a.check,
        limits,
        progress: super::common::progress_hook(a.json),
        budget,
        ..RunOptions::default()
    };
    let aig = Aig::from_circuit(net.circuit(), None);
    let run = run_budgeted(&aig, &script, &opts)?;
    let (out, stats) = (&run.aig, &run.passes);
    let result = Netlist::new(net.names().clone(), out.to_circuit())?;
    export_to(&a.output, &result, format, &VerilogParams::default())
        .with_context(|| format!("writing {}", a.output.display()))?;
    if a.json {
        println!(
            "{}",
            serde_json::json!({ "input": a.input, "output": a.output, "ands": out.n_ands(), "levels": out.depth(), "passes": stats, "synthesis": synthesis, "budget": budget.map(|_| serde_json::json!({ "stop": run.stop, "skipped": run.skipped })) })
        );
    } else {
        if let Some(s) = &synthesis {
            println!(
                "synthesised {} from its truth tables: {} ANDs (exhaustively proven)",
                a.input.display(),
                s.ands
            );
        }
        for s in stats {
            let check = s.checked.as_deref().map_or(String::new(), |c| format!(", proven by {c}"));
            println!(
                "{:10} ANDs {:>8} -> {:<8} levels {:>4} -> {:<4} {:.3}s{check}",
                s.pass, s.ands_before, s.ands_after, s.levels_before, s.levels_after, s.seconds
            );
            if let Some(d) = &s.detail {
                println!("{:10} {d}", "");
            }
        }
        match &run.stop {
            crate::pass::ScriptStop::Completed => {}
            crate::pass::ScriptStop::Budget { before_pass } => {
                println!(
                    "budget: {before_pass} would not fit (estimated); skipped: {}",
                    run.skipped.join(", ")
                );
            }
            crate::pass::ScriptStop::WallLimit { in_pass } => {
                println!("wall-clock guard ran out during {in_pass}; skipped: {}", run.skipped.join(", "));
            }
        }
        println!("wrote {} ({} ANDs, {} levels)", a.output.display(), out.n_ands(), out.depth());
    }
    Ok(())
}
