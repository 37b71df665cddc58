//! Combinational equivalence checking of two AIGs with matching input and output order.
//!
//! Up to [`CecParams::exhaustive_max_inputs`] inputs the two AIGs are simulated on every
//! input pattern, bit-parallel (faster than SAT and a complete proof); beyond, random
//! simulation looks for a counterexample first, then the miter (the XOR of each output
//! pair) is SAT-swept and each output left is handed to a SAT solver: UNSAT proves it,
//! a model is a counterexample, confirmed by simulation before it is reported. Every
//! SAT call is bounded by [`CecParams::limits`]; when they run out the verdict is
//! [`Verdict::Undecided`], never a guess.

use super::{Fraig, ProgressHook, RunOptions};
use crate::aig::Aig;
use crate::lanes::{BitMatrix, LANES};
use crate::sat::cnf::LazyCnf;
use crate::sat::solver::{Answer, Budget, SatLimits, SatSolver, SatStats};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::time::Instant;
use thiserror::Error;

/// How a verdict was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CecMethod {
    /// Every input pattern simulated.
    Exhaustive,
    /// A SAT miter.
    Sat,
}

/// The verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Same function.
    Equivalent,
    /// Different: on `inputs`, the listed outputs differ.
    NotEquivalent {
        /// The counterexample, one value per input.
        inputs: Vec<bool>,
        /// Indices of the outputs that differ on it.
        outputs: Vec<usize>,
    },
    /// The SAT limits ran out before every output pair was proven equal (no
    /// counterexample was found either).
    Undecided {
        /// Indices of the outputs left unproven.
        outputs: Vec<usize>,
    },
}

/// A verdict with how and how fast it was reached.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CecReport {
    /// The verdict.
    pub verdict: Verdict,
    /// The method used.
    pub method: CecMethod,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The SAT calls (sweeping and final), zero when exhaustive.
    pub sat: SatStats,
}

/// The default limits of [`cec`]: a million conflicts per final call, ten million in
/// all, 300 seconds.
pub const CEC_LIMITS: SatLimits =
    SatLimits { conflicts_per_call: 1_000_000, conflicts: 10_000_000, seconds: 300.0 };

/// Options of [`cec`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CecParams {
    /// Simulate exhaustively up to this many inputs; SAT beyond.
    pub exhaustive_max_inputs: usize,
    /// SAT limits of the whole check: the per-call limit applies to the final call of
    /// each output (the sweep beforehand uses at most 100 per call), the total conflicts
    /// and seconds to everything.
    pub limits: SatLimits,
}

impl Default for CecParams {
    fn default() -> Self {
        Self { exhaustive_max_inputs: 16, limits: CEC_LIMITS }
    }
}

/// Why two AIGs cannot be compared.
#[derive(Debug, Error)]
pub enum CecError {
    /// Different input counts.
    #[error("cannot compare: {a} inputs against {b} inputs")]
    Inputs {
        /// Inputs of the first.
        a: usize,
        /// Inputs of the second.
        b: usize,
    },
    /// Different output counts.
    #[error("cannot compare: {a} outputs against {b} outputs")]
    Outputs {
        /// Outputs of the first.
        a: usize,
        /// Outputs of the second.
        b: usize,
    },
    /// The SAT solver failed or returned a model that simulation does not confirm.
    #[error("SAT solver: {0}")]
    Solver(String),
}

/// Checks whether `a` and `b` compute the same function (inputs and outputs by position).
///
/// # Errors
/// [`CecError`] if the interfaces differ or the solver fails.
pub fn cec(a: &Aig, b: &Aig, params: &CecParams) -> Result<CecReport, CecError> {
    cec_with(a, b, params, None)
}

/// [`cec`] reporting progress of the SAT sweep to `progress`.
///
/// # Errors
/// As [`cec`].
pub fn cec_with(
    a: &Aig,
    b: &Aig,
    params: &CecParams,
    progress: Option<&ProgressHook>,
) -> Result<CecReport, CecError> {
    if a.n_inputs() != b.n_inputs() {
        return Err(CecError::Inputs { a: a.n_inputs(), b: b.n_inputs() });
    }
    if a.outputs().len() != b.outputs().len() {
        return Err(CecError::Outputs { a: a.outputs().len(), b: b.outputs().len() });
    }
    let t0 = Instant::now();
    let (verdict, method, sat_stats) = if a.n_inputs() <= params.exhaustive_max_inputs {
        (exhaustive(a, b), CecMethod::Exhaustive, SatStats::default())
    } else if let Some(v) = random_counterexample(a, b) {
        (v, CecMethod::Sat, SatStats::default())
    } else {
        let (v, s) = sat(a, b, &params.limits, progress)?;
        (v, CecMethod::Sat, s)
    };
    Ok(CecReport { verdict, method, seconds: t0.elapsed().as_secs_f64(), sat: sat_stats })
}

pub use crate::lanes::all_patterns;

fn exhaustive(a: &Aig, b: &Aig) -> Verdict {
    let x = all_patterns(a.n_inputs());
    let (ya, yb) = (a.simulate(&x), b.simulate(&x));
    let mut first: Option<usize> = None;
    for j in 0..ya.rows() {
        for (w, (p, q)) in ya.row(j).iter().zip(yb.row(j)).enumerate() {
            let d = p ^ q;
            if d != 0 {
                let e = w * LANES + d.trailing_zeros() as usize;
                first = Some(first.map_or(e, |f| f.min(e)));
                break;
            }
        }
    }
    match first {
        None => Verdict::Equivalent,
        Some(e) => counterexample(a, b, x.example(e)),
    }
}

fn counterexample(a: &Aig, b: &Aig, inputs: Vec<bool>) -> Verdict {
    let (ya, yb) = (a.eval_one(&inputs), b.eval_one(&inputs));
    let outputs = ya.iter().zip(&yb).enumerate().filter(|(_, (p, q))| p != q).map(|(j, _)| j).collect();
    Verdict::NotEquivalent { inputs, outputs }
}

/// A counterexample among 512 random patterns, if one distinguishes the circuits.
fn random_counterexample(a: &Aig, b: &Aig) -> Option<Verdict> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut x = BitMatrix::zeros(a.n_inputs(), 8 * LANES);
    for i in 0..a.n_inputs() {
        for w in x.row_mut(i) {
            *w = rng.random();
        }
    }
    let (ya, yb) = (a.simulate(&x), b.simulate(&x));
    let e = (0..ya.rows())
        .filter_map(|j| {
            ya.row(j).iter().zip(yb.row(j)).enumerate().find_map(|(w, (p, q))| {
                let d = p ^ q;
                (d != 0).then(|| w * LANES + d.trailing_zeros() as usize)
            })
        })
        .min()?;
    Some(counterexample(a, b, x.example(e)))
}

/// The miter of `a` and `b`: one structurally hashed AIG over shared inputs whose
/// outputs are the XORs of corresponding outputs, SAT-swept so that equal internal
/// nodes merge (the same recipe as ABC's `cec`: most proofs end here with every output
/// folded to constant 0).
fn miter(a: &Aig, b: &Aig, limits: &SatLimits, progress: Option<&ProgressHook>) -> (Aig, SatStats) {
    let mut m = Aig::new(a.n_inputs());
    let inputs: Vec<_> = (0..a.n_inputs()).map(|i| m.input(i)).collect();
    let oa = a.append_into(&mut m, &inputs);
    let ob = b.append_into(&mut m, &inputs);
    for (x, y) in oa.into_iter().zip(ob) {
        let d = m.xor(x, y);
        m.add_output(d);
    }
    let sweep = Fraig {
        limits: SatLimits { conflicts_per_call: limits.conflicts_per_call.min(100), ..*limits },
        ..Fraig::default()
    };
    let opts = RunOptions { progress: progress.cloned(), ..RunOptions::default() };
    let (m, stats) = sweep.run_with_stats(&m.swept(), &opts);
    (m, stats.sat)
}

fn sat(
    a: &Aig,
    b: &Aig,
    limits: &SatLimits,
    progress: Option<&ProgressHook>,
) -> Result<(Verdict, SatStats), CecError> {
    let err = |e: crate::sat::solver::SolverError| CecError::Solver(e.0);
    let t0 = Instant::now();
    let (m, swept) = miter(a, b, limits, progress);
    let open: Vec<usize> =
        (0..m.outputs().len()).filter(|&j| m.outputs()[j] != crate::aig::Lit::FALSE).collect();
    // What the sweep left of the budget goes to the final calls.
    let rest = SatLimits {
        conflicts: limits.conflicts.saturating_sub(swept.conflicts),
        seconds: (limits.seconds - t0.elapsed().as_secs_f64()).max(0.0),
        ..*limits
    };
    let mut budget = Budget::new(rest);
    let mut solver = SatSolver::new();
    let mut cnf = LazyCnf::new(&m, &mut solver).map_err(err)?;
    let mut undecided = Vec::new();
    let mut verdict = None;
    for &j in &open {
        let o = cnf.lit(&m, m.outputs()[j], &mut solver).map_err(err)?;
        match solver.solve(&[o], &mut budget).map_err(err)? {
            Answer::Unsat => {}
            Answer::Undecided => undecided.push(j),
            Answer::Sat => {
                let x: Vec<bool> =
                    (0..a.n_inputs()).map(|i| cnf.input(i).is_some_and(|v| solver.value(v))).collect();
                match counterexample(a, b, x) {
                    Verdict::NotEquivalent { outputs, .. } if outputs.is_empty() => {
                        return Err(CecError::Solver(
                            "model does not distinguish the circuits in simulation".into(),
                        ));
                    }
                    v => {
                        verdict = Some(v);
                        break;
                    }
                }
            }
        }
    }
    let mut stats = budget.stats;
    stats.calls += swept.calls;
    stats.sat += swept.sat;
    stats.unsat += swept.unsat;
    stats.undecided += swept.undecided;
    stats.conflicts += swept.conflicts;
    stats.seconds += swept.seconds;
    stats.budget_exhausted |= swept.budget_exhausted;
    let verdict = verdict.unwrap_or(if undecided.is_empty() {
        Verdict::Equivalent
    } else {
        Verdict::Undecided { outputs: undecided }
    });
    Ok((verdict, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aig::Lit;

    /// Ripple-carry adder of two `n`-bit numbers, built carry-first or sum-first.
    fn adder(n: usize, alt: bool) -> Aig {
        let mut g = Aig::new(2 * n);
        let mut carry = Lit::FALSE;
        for i in 0..n {
            let (x, y) = (g.input(i), g.input(n + i));
            let s = if alt {
                let t = g.xor(x, y);
                g.xor(carry, t)
            } else {
                let t = g.xor(y, carry);
                g.xor(x, t)
            };
            let maj = {
                let xy = g.and(x, y);
                let t = g.xor(x, y);
                let tc = g.and(t, carry);
                g.or(xy, tc)
            };
            g.add_output(s);
            carry = maj;
        }
        g.add_output(carry);
        g
    }
    #[test]
    fn exhaustive_and_sat_agree_on_equal_and_different_adders() {
        for n in [3, 9] {
            let (a, b) = (adder(n, false), adder(n, true));
            for limit in [0, 16] {
                let p = CecParams { exhaustive_max_inputs: limit, ..CecParams::default() };
                let r = cec(&a, &b, &p).unwrap();
                assert_eq!(r.verdict, Verdict::Equivalent);
                let want = if 2 * n <= limit { CecMethod::Exhaustive } else { CecMethod::Sat };
                assert_eq!(r.method, want);
                // Mutate: complement the last sum bit.
                let mut mutated = a.clone();
                mutated.set_output(n - 1, !a.outputs()[n - 1]);
                match cec(&a, &mutated, &p).unwrap().verdict {
                    Verdict::NotEquivalent { inputs, outputs } => {
                        assert_eq!(outputs, vec![n - 1]);
                        assert_ne!(a.eval_one(&inputs), mutated.eval_one(&inputs));
                    }
                    v => panic!("mutant reported {v:?}"),
                }
            }
        }
    }

    #[test]
    fn interface_mismatch_is_an_error() {
        assert!(matches!(
            cec(&Aig::new(2), &Aig::new(3), &CecParams::default()),
            Err(CecError::Inputs { .. })
        ));
    }
}
