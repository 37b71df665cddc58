//! `circuitlearn map`: LUT mapping of any circuit file (or complete function) into a
//! BLIF or Verilog LUT netlist, proven equivalent; plus the loader `opt` and `map` share
//! for inputs that are functions (`.truth`, fully specified `.pla`), not netlists.

use super::common::UsageError;
use super::export::{Format, export_to, format_of, load};
use crate::aig::{Aig, TruthSynthParams, TruthSynthStats};
use crate::io::Netlist;
use crate::io::truth::{Function, read_pla_function, read_truth};
use crate::io::verilog::VerilogParams;
use crate::map::{CheckOutcome, CheckParams, MapParams, check_mapping, map_luts};
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `map`.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// Input: a circuit (.blif, .aig, .aag) or a complete function (.truth, fully specified .pla).
    pub input: PathBuf,
    /// LUT inputs K (2 to 8).
    #[arg(long, default_value_t = 6)]
    pub lut: usize,
    /// Output LUT netlist: .blif (one `.names` per LUT) or .v.
    #[arg(short, long, visible_alias = "out")]
    pub output: PathBuf,
    /// Priority cuts kept per node.
    #[arg(long, default_value_t = 8)]
    pub cuts: usize,
    /// Area-flow passes after the depth pass.
    #[arg(long, default_value_t = 1)]
    pub flow_passes: usize,
    /// Exact-local-area passes after those.
    #[arg(long, default_value_t = 2)]
    pub area_passes: usize,
    /// LUT levels area recovery may add beyond the optimal depth.
    #[arg(long, default_value_t = 0)]
    pub depth_slack: u32,
    /// Pass script run on the AIG before mapping (e.g. strash,fraig,balance; see `opt`).
    /// The mapping is proven against the input, not the optimised AIG.
    #[arg(long)]
    pub passes: Option<String>,
    /// Largest AIG (ANDs) proven by the SAT miter when there are more than 16 inputs;
    /// larger ones are only simulated on random vectors (and say so).
    #[arg(long, default_value_t = 20_000)]
    pub sat_max_ands: usize,
    /// Print one JSON object (LUTs, depth, passes, check) as the last line.
    #[arg(long)]
    pub json: bool,
}

/// A netlist read from a circuit file, or synthesised from a complete function (with
/// the synthesis statistics); `.truth` and `.pla` inputs are proven by simulating every
/// input pattern against the tables.
///
/// # Errors
/// A malformed or unreadable file (exit 2, naming file and line); a synthesised AIG that
/// simulation refutes (exit 1, a bug).
pub fn load_any(path: &Path) -> anyhow::Result<(Netlist, Option<TruthSynthStats>)> {
    let function = match path.extension().and_then(|e| e.to_str()) {
        Some("truth") => read_truth(path),
        Some("pla") => read_pla_function(path),
        Some("blif" | "aig" | "aag") => return Ok((load(None, Some(path), None)?, None)),
        _ => {
            return Err(UsageError(format!(
                "{}: expected a .blif, .aig, .aag, .truth or .pla file",
                path.display()
            ))
            .into());
        }
    };
    let mut f: Function = function.map_err(|e| UsageError(e.to_string()))?;
    if path.extension().is_some_and(|e| e == "truth") {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        f.set_model(&crate::io::netlist::model_name_from(&stem));
    }
    let tables: Vec<Vec<u64>> = (0..f.n_outputs()).map(|j| f.table(j).to_vec()).collect();
    let (aig, stats) = Aig::from_truth_tables(f.n_inputs(), &tables, &TruthSynthParams::default());
    if let Some((j, s)) = f.first_mismatch(&aig) {
        anyhow::bail!("synthesis from {} is wrong: output {j} differs on minterm {s}", path.display());
    }
    let net = Netlist::new(f.names().clone(), aig.to_circuit())
        .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
    Ok((net, Some(stats)))
}

/// Runs `map`.
///
/// # Errors
/// Bad input or flags (exit 2); a mapping found not equivalent, an undecided proof or an
/// unwritable output (exit 1).
pub fn run(a: &MapArgs) -> anyhow::Result<()> {
    let format = format_of(&a.output)?;
    if !matches!(format, Format::Blif | Format::Verilog) {
        return Err(
            UsageError(format!("{}: a LUT netlist is written as .blif or .v", a.output.display())).into()
        );
    }
    let (net, _) = load_any(&a.input)?;
    let input = Aig::from_circuit(net.circuit(), None);
    let aig = match &a.passes {
        Some(script) => {
            let passes = crate::pass::parse_script(script, &crate::pass::PassContext::default())?;
            crate::pass::run_script(&input, &passes, false)?.0
        }
        None => input.clone(),
    };
    let params = MapParams {
        lut_size: a.lut,
        cuts_per_node: a.cuts,
        flow_passes: a.flow_passes,
        area_passes: a.area_passes,
        depth_slack: a.depth_slack,
    };
    let (luts, stats) = map_luts(&aig, &params).map_err(|e| UsageError(e.to_string()))?;
    let check = CheckParams { sat_max_ands: a.sat_max_ands, ..CheckParams::default() };
    let report = check_mapping(&input, &luts, &check)?;
    if let CheckOutcome::NotEquivalent { outputs } = &report.outcome {
        anyhow::bail!("the LUT mapping differs from the input on outputs {outputs:?} (a bug)");
    }
    let method = report.method();
    let proof = match report.outcome {
        CheckOutcome::Undecided { vectors } => format!(
            "NOT proven: {} ANDs exceed --sat-max-ands {}; {vectors} random vectors agree",
            input.n_ands(),
            a.sat_max_ands
        ),
        _ => format!("proven equivalent by {method} in {:.3}s", report.seconds),
    };
    let result = Netlist::new(net.names().clone(), luts.to_circuit())?;
    export_to(&a.output, &result, format, &VerilogParams::default())
        .with_context(|| format!("writing {}", a.output.display()))?;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "input": a.input, "output": a.output, "lut_size": stats.lut_size, "ands": stats.ands,
                "luts": stats.luts, "depth": stats.depth, "lut_sizes": stats.lut_sizes, "passes": stats.passes,
                "merges": stats.merges, "seconds": stats.seconds, "checked": method, "check_seconds": report.seconds,
            })
        );
    } else {
        for p in &stats.passes {
            println!("{:6} LUTs {:>8}  depth {:>4}  {:.3}s", p.pass, p.luts, p.depth, p.seconds);
        }
        println!(
            "wrote {} ({} LUT{}s, depth {}, from {} ANDs; {proof})",
            a.output.display(),
            stats.luts,
            stats.lut_size,
            stats.depth,
            stats.ands,
        );
    }
    Ok(())
}
