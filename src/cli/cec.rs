//! `circuitlearn cec A B`: are two circuit files equivalent? Exit 0 if so, 1 if not
//! (with a counterexample), 2 on bad input.

use super::common::UsageError;
use super::export::load;
use crate::aig::Aig;
use crate::io::Netlist;
use crate::verify::{CecParams, Verdict, cec};
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
}

/// The verdict was "not equivalent" (exit 1).
#[derive(Debug, thiserror::Error)]
#[error("not equivalent")]
pub struct NotEquivalent;

/// Runs `cec`.
///
/// # Errors
/// Bad input (exit 2), or [`NotEquivalent`] (exit 1).
pub fn run(a: &CecArgs) -> anyhow::Result<()> {
    let (na, nb) = (load(None, Some(&a.a), None)?, load(None, Some(&a.b), None)?);
    let ga = Aig::from_circuit(na.circuit(), None);
    let gb = if a.by_position { Aig::from_circuit(nb.circuit(), None) } else { reorder_by_name(&na, &nb)? };
    let report = cec(&ga, &gb, &CecParams::default())?;
    let method = match report.method {
        crate::verify::CecMethod::Exhaustive => "exhaustive".to_string(),
        crate::verify::CecMethod::Sat => format!("sat/{}", crate::verify::solver::BACKEND),
    };
    match &report.verdict {
        Verdict::Equivalent => {
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({"equivalent": true, "method": method, "seconds": report.seconds})
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
