//! Combinational equivalence checking of two AIGs with matching input and output order.
//!
//! Up to [`CecParams::exhaustive_max_inputs`] inputs the two AIGs are simulated on every
//! input pattern, bit-parallel (faster than SAT and a complete proof); beyond, a miter
//! (the XOR of each output pair, ORed) is handed to a SAT solver: UNSAT proves
//! equivalence, a model is a counterexample, which is confirmed by simulation before it
//! is reported.

use super::cnf::{VarPool, clause, encode, lit};
use crate::aig::Aig;
use crate::lanes::{BitMatrix, LANES};
use crate::pass::{Fraig, Pass};
use rustsat::solvers::{Solve, SolverResult};
use rustsat::types::TernaryVal;
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
}

/// Options of [`cec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CecParams {
    /// Simulate exhaustively up to this many inputs; SAT beyond.
    pub exhaustive_max_inputs: usize,
}

impl Default for CecParams {
    fn default() -> Self {
        Self { exhaustive_max_inputs: 16 }
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
    if a.n_inputs() != b.n_inputs() {
        return Err(CecError::Inputs { a: a.n_inputs(), b: b.n_inputs() });
    }
    if a.outputs().len() != b.outputs().len() {
        return Err(CecError::Outputs { a: a.outputs().len(), b: b.outputs().len() });
    }
    let t0 = Instant::now();
    let (verdict, method) = if a.n_inputs() <= params.exhaustive_max_inputs {
        (exhaustive(a, b), CecMethod::Exhaustive)
    } else {
        (sat(a, b)?, CecMethod::Sat)
    };
    Ok(CecReport { verdict, method, seconds: t0.elapsed().as_secs_f64() })
}

/// Every pattern of `n` inputs (`2^n` examples, example `e` sets input `i` to bit `i` of `e`).
#[must_use]
pub fn all_patterns(n: usize) -> BitMatrix {
    let examples = 1usize << n;
    let mut m = BitMatrix::zeros(n, examples);
    for i in 0..n {
        for (w, word) in m.row_mut(i).iter_mut().enumerate() {
            *word = if i < 6 {
                // Bit i of the lane index, repeated over the 64 lanes of the word.
                (0..LANES).filter(|l| l >> i & 1 == 1).fold(0u64, |acc, l| acc | 1 << l)
            } else if (w * LANES) >> i & 1 == 1 {
                u64::MAX
            } else {
                0
            };
        }
        m.clear_tail(i);
    }
    m
}

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

/// The miter of `a` and `b`: one structurally hashed AIG over shared inputs whose
/// outputs are the XORs of corresponding outputs, SAT-swept so that equal internal
/// nodes merge (the same recipe as ABC's `cec`: most proofs end here with every output
/// folded to constant 0).
fn miter(a: &Aig, b: &Aig) -> Aig {
    let mut m = Aig::new(a.n_inputs());
    let inputs: Vec<_> = (0..a.n_inputs()).map(|i| m.input(i)).collect();
    let oa = a.append_into(&mut m, &inputs);
    let ob = b.append_into(&mut m, &inputs);
    for (x, y) in oa.into_iter().zip(ob) {
        let d = m.xor(x, y);
        m.add_output(d);
    }
    Fraig::default().run(&m.swept())
}

fn sat(a: &Aig, b: &Aig) -> Result<Verdict, CecError> {
    let err = |e: anyhow::Error| CecError::Solver(e.to_string());
    let m = miter(a, b);
    if m.outputs().iter().all(|&l| l == crate::aig::Lit::FALSE) {
        return Ok(Verdict::Equivalent);
    }
    let mut solver = crate::verify::solver::new_solver();
    let mut pool = VarPool::default();
    let zero = pool.fresh();
    solver.add_clause(clause(&[zero.neg_lit()])).map_err(err)?;
    let inputs: Vec<_> = (0..a.n_inputs()).map(|_| pool.fresh()).collect();
    let nm = encode(&m, zero, &inputs, &mut pool, &mut solver).map_err(err)?;
    let any: Vec<_> = m.outputs().iter().map(|&o| lit(&nm, o)).collect();
    solver.add_clause(clause(&any)).map_err(err)?;
    match solver.solve().map_err(err)? {
        SolverResult::Unsat => Ok(Verdict::Equivalent),
        SolverResult::Sat => {
            let x: Vec<bool> = inputs
                .iter()
                .map(|v| solver.var_val(*v).map(|t| t == TernaryVal::True))
                .collect::<Result<_, _>>()
                .map_err(err)?;
            match counterexample(a, b, x) {
                Verdict::NotEquivalent { outputs, .. } if outputs.is_empty() => {
                    Err(CecError::Solver("model does not distinguish the circuits in simulation".into()))
                }
                v => Ok(v),
            }
        }
        SolverResult::Interrupted => Err(CecError::Solver("interrupted".into())),
    }
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
                let p = CecParams { exhaustive_max_inputs: limit };
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
                    Verdict::Equivalent => panic!("mutant reported equivalent"),
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
