//! `circuitlearn cec A B`: are two circuit files equivalent? Exit 0 if so, 1 if not
//! (with a counterexample), 2 on bad input, 3 when the SAT limits ran out first
//! ("undecided": neither proven nor refuted).

use super::common::UsageError;
use super::export::load;
use crate::aig::Aig;
use crate::io::Netlist;
use crate::verify::{CEC_LIMITS, CecParams, SatLimits, Verdict, cec_with};
use clap::Args;
use std::collections::HashMap;
use std::path::PathBuf;

/// Arguments of `cec`.
#[derive(Debug, Args)]
pub struct CecArgs {
    /// First circuit (.blif, .aig, .aag).
    pub a: PathBuf,
    /// Second circuit.
    pub b: PathBuf,
    /// Match inputs and outputs by position instead of by name.
    #[arg(long)]
    pub by_position: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
    /// Conflicts one SAT call may spend (the call for each output of the miter).
    #[arg(long, value_name = "N", default_value_t = CEC_LIMITS.conflicts_per_call)]
    pub sat_conflicts: u64,
    /// Conflicts all SAT calls of the check may spend together.
    #[arg(long, value_name = "N", default_value_t = CEC_LIMITS.conflicts)]
    pub sat_total_conflicts: u64,
    /// Wall-clock seconds for the SAT part of the check.
    #[arg(long, value_name = "S", default_value_t = CEC_LIMITS.seconds)]
    pub sat_seconds: f64,
}

/// The verdict was "not equivalent" (exit 1).
#[derive(Debug, thiserror::Error)]
#[error("not equivalent")]
pub struct NotEquivalent;

/// The SAT limits ran out before a verdict (exit 3).
#[derive(Debug, thiserror::Error)]
#[error("undecided (limit {0})")]
pub struct Undecided(pub String);

/// Exit status of an undecided check.
pub const EXIT_UNDECIDED: i32 = 3;

/// Runs `cec`.
///
/// # Errors
/// Bad input (exit 2), or [`NotEquivalent`] (exit 1).
pub fn run(a: &CecArgs) -> anyhow::Result<()> {
    let (na, nb) = (load(None, Some(&a.a), None)?, load(None, Some(&a.b), None)?);
    let ga = Aig::from_circuit(na.circuit(), None);
    let gb = if a.by_position { Aig::from_circuit(nb.circuit(), None) } else { reorder_by_name(&na, &nb)? };
    if a.sat_seconds.is_nan() || a.sat_seconds < 0.0 {
        return Err(UsageError(format!("--sat-seconds must be a number >= 0, not {}", a.sat_seconds)).into());
    }
    let limits = SatLimits::new(a.sat_conflicts, a.sat_total_conflicts, a.sat_seconds);
    let params = CecParams { limits, ..CecParams::default() };
    let hook = super::common::progress_hook(a.json);
    let report = cec_with(&ga, &gb, &params, hook.as_ref())?;
    let method = match report.method {
        crate::verify::CecMethod::Exhaustive => "exhaustive".to_string(),
        crate::verify::CecMethod::Sat => format!("sat/{}", crate::sat::solver::BACKEND),
    };
    match &report.verdict {
        Verdict::Equivalent => {
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({"equivalent": true, "method": method, "seconds": report.seconds, "sat": report.sat})
                );
            } else {
                println!("equivalent ({method}, {:.3}s)", report.seconds);
            }
            Ok(())
        }
        Verdict::NotEquivalent { inputs, outputs } => {
            let bits: String = inputs.iter().map(|&b| if b { '1' } else { '0' }).collect();
            let names = &na.names();
            let differ: Vec<&str> = outputs.iter().map(|&j| names.outputs[j].as_str()).collect();
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({"equivalent": false, "method": method, "counterexample": bits, "differing_outputs": differ})
                );
            } else {
                println!("NOT equivalent ({method}): outputs {} differ on input", differ.join(", "));
                println!("  {bits}   (inputs in the order of {}: {})", a.a.display(), names.inputs.join(" "));
            }
            Err(NotEquivalent.into())
        }
        Verdict::Undecided { outputs } => {
            let names = &na.names();
            let open: Vec<&str> = outputs.iter().map(|&j| names.outputs[j].as_str()).collect();
            let limit = limits.describe();
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({"equivalent": null, "undecided": true, "method": method, "limit": limit,
                        "undecided_outputs": open, "seconds": report.seconds, "sat": report.sat})
                );
            } else {
                println!(
                    "undecided (limit {limit}): outputs {} neither proven nor refuted ({method}, {:.3}s)",
                    open.join(", "),
                    report.seconds
                );
            }
            Err(Undecided(limit).into())
        }
    }
}

/// `b` as an AIG with its inputs and outputs in `a`'s order, matched by name.
fn reorder_by_name(a: &Netlist, b: &Netlist) -> Result<Aig, UsageError> {
    let (pa, pb) = (a.names(), b.names());
    let index =
        |names: &[String]| names.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect::<HashMap<_, _>>();
    let (ia, oa) = (index(&pa.inputs), index(&pa.outputs));
    let mismatch = |what: &str| {
        UsageError(format!(
            "the {what} names of {} and {} differ; use --by-position to match them by position",
            pa.model, pb.model
        ))
    };
    if pa.inputs.len() != pb.inputs.len() || pb.inputs.iter().any(|n| !ia.contains_key(n)) {
        return Err(mismatch("input"));
    }
    if pa.outputs.len() != pb.outputs.len() || pb.outputs.iter().any(|n| !oa.contains_key(n)) {
        return Err(mismatch("output"));
    }
    let gb = Aig::from_circuit(b.circuit(), None);
    let mut out = Aig::new(pa.inputs.len());
    let lits: Vec<_> = pb.inputs.iter().map(|n| out.input(ia[n])).collect();
    let outs = gb.append_into(&mut out, &lits);
    let mut ordered = vec![crate::aig::Lit::FALSE; outs.len()];
    for (n, l) in pb.outputs.iter().zip(outs) {
        ordered[oa[n]] = l;
    }
    for l in ordered {
        out.add_output(l);
    }
    Ok(out)
}
