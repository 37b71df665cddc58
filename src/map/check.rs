//! Equivalence of a LUT mapping and its AIG: exhaustive simulation up to
//! [`CecParams::exhaustive_max_inputs`] inputs, the SAT miter of [`cec`] beyond, for AIGs
//! of at most [`CheckParams::sat_max_ands`] ANDs (the bounded miter left an 87K-AND mapping
//! undecided after 300 s: BENCHMARKS.md); larger wide AIGs get random
//! simulation only, reported as [`CheckOutcome::Undecided`].

use super::LutNetlist;
use crate::aig::Aig;
use crate::io::testbench::random_inputs;
use crate::verify::cec::CecError;
use crate::verify::{CecMethod, CecParams, Verdict, cec};
use serde::Serialize;
use std::time::Instant;

/// Options of [`check_mapping`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckParams {
    /// Options of the proof.
    pub cec: CecParams,
    /// Largest AIG (AND nodes) handed to the SAT miter.
    pub sat_max_ands: usize,
    /// Random input vectors simulated when the miter is skipped.
    pub random_vectors: usize,
}

impl Default for CheckParams {
    fn default() -> Self {
        Self { cec: CecParams::default(), sat_max_ands: 20_000, random_vectors: 1 << 16 }
    }
}

/// What the check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum CheckOutcome {
    /// Proven equivalent.
    Equivalent(CecMethod),
    /// A counterexample: these outputs differ.
    NotEquivalent {
        /// Indices of the differing outputs.
        outputs: Vec<usize>,
    },
    /// No proof attempted (the AIG is wider than exhaustive simulation and larger than
    /// [`CheckParams::sat_max_ands`]); this many random vectors agree.
    Undecided {
        /// Random vectors simulated.
        vectors: usize,
    },
}

/// The outcome and its time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    /// What was found.
    pub outcome: CheckOutcome,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CheckReport {
    /// `exhaustive`, `sat`, `not-equivalent` or `simulated`.
    #[must_use]
    pub fn method(&self) -> &'static str {
        match self.outcome {
            CheckOutcome::Equivalent(CecMethod::Exhaustive) => "exhaustive",
            CheckOutcome::Equivalent(CecMethod::Sat) => "sat",
            CheckOutcome::NotEquivalent { .. } => "not-equivalent",
            CheckOutcome::Undecided { .. } => "simulated",
        }
    }
}

/// Checks `net` against `aig` (inputs and outputs by position).
///
/// # Errors
/// Whatever [`cec`](crate::pass::cec::cec) reports (interfaces that differ, a solver failure).
pub fn check_mapping(aig: &Aig, net: &LutNetlist, params: &CheckParams) -> Result<CheckReport, CecError> {
    let t0 = Instant::now();
    let back = Aig::from_circuit(&net.to_circuit(), None);
    // Random simulation where no proof is attempted or the proof ran out of budget.
    let simulate = || -> Result<CheckOutcome, CecError> {
        if aig.outputs().len() != back.outputs().len() {
            return Err(CecError::Outputs { a: aig.outputs().len(), b: back.outputs().len() });
        }
        let x = random_inputs(aig.n_inputs(), params.random_vectors, 1);
        let (ya, yb) = (aig.simulate(&x), back.simulate(&x));
        let outputs: Vec<usize> = (0..aig.outputs().len()).filter(|&j| ya.row(j) != yb.row(j)).collect();
        Ok(if outputs.is_empty() {
            CheckOutcome::Undecided { vectors: x.examples() }
        } else {
            CheckOutcome::NotEquivalent { outputs }
        })
    };
    let exhaustive = aig.n_inputs() <= params.cec.exhaustive_max_inputs;
    let outcome = if exhaustive || aig.n_ands() <= params.sat_max_ands {
        match cec(aig, &back, &params.cec)?.verdict {
            Verdict::Equivalent => {
                CheckOutcome::Equivalent(if exhaustive { CecMethod::Exhaustive } else { CecMethod::Sat })
            }
            Verdict::NotEquivalent { outputs, .. } => CheckOutcome::NotEquivalent { outputs },
            Verdict::Undecided { .. } => simulate()?,
        }
    } else {
        simulate()?
    };
    Ok(CheckReport { outcome, seconds: t0.elapsed().as_secs_f64() })
}
