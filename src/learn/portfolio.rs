//! The IWLS portfolio as data: families of candidate models, each fitted once per
//! training set and yielding several candidates (a grown tree gives all its truncations
//! and prunings; one logistic fit gives every rounding of its weights). A candidate's
//! `key` names its configuration and is the same for every fit, so cross-validation can
//! score a configuration over folds and refit it on all the data.

use super::c45::{Criterion, GrowParams, GrownTree};
use super::symmetric::Symmetric;
use super::threshold::{LogisticFit, best_xor_pair};
use super::tree::{Forest, Tree};
use super::word_arith::{BitOrder, WordOp, fit_word};
use crate::circuit::{Circuit, CircuitBuilder};
use crate::domain::{Bool, BoolBuild};
use crate::lanes::BitMatrix;

/// One fitted candidate.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The configuration (the same for every fit of the family).
    pub key: String,
    /// What this fit came to (sizes, chosen inputs).
    pub detail: String,
    /// The model over the benchmark's inputs, one output.
    pub circuit: Circuit<Bool>,
}

/// A family of candidates fitted together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A table over the input popcount (up to 255 inputs).
    Symmetric,
    /// Threshold functions with rounded logistic weights; with `xor_pair`, XORed with
    /// the input pair found by the Fourier screen (up to 512 inputs).
    Threshold {
        /// Screen for and XOR an input pair.
        xor_pair: bool,
    },
    /// Trees grown by information gain to depth 20, cut at depths 2–20 and leaf sizes
    /// 1/4/16 (the portfolio before C4.5 trees).
    GreedyTrees(Features),
    /// C4.5 trees: grown by gain ratio and by gain, both branches of a test with 2 or
    /// more examples, pruned at confidence 0.05, 0.1, 0.25 and 0.5.
    C45Trees(Features),
    /// Majorities of 7 or 15 trees of depth 8 or 10 grown on bootstrap samples.
    Bagged,
    /// One bit of the product of the input halves or of the square root of the input
    /// (up to `WORD_MAX_INPUTS`, 64 inputs), or the
    /// sign of the signed product, either bit order, the best bit on the training rows
    /// (`fit_word`).
    WordArith,
}

/// What a tree family tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Features {
    /// The inputs.
    Inputs,
    /// The inputs and the XOR of every pair of inputs ([`pair_features`]).
    PairXor,
    /// The inputs, the XOR and the AND of every pair of inputs (partial products of
    /// multipliers and generate terms of carries as single tests).
    PairXorAnd,
}

/// The training rows a family sees.
#[derive(Clone, Copy, Debug)]
pub struct FitData<'a> {
    /// Inputs, one row per input bit.
    pub x: &'a BitMatrix,
    /// Labels, one row.
    pub y: &'a BitMatrix,
    /// Derived feature sets of the same examples with their circuits (inputs to
    /// features), where built.
    pub derived: &'a [(Features, &'a Circuit<Bool>, &'a BitMatrix)],
}

/// Depths and leaf sizes of the greedy truncations.
const DEPTHS: [usize; 9] = [2, 4, 6, 8, 10, 12, 14, 16, 20];
const MIN_LEAVES: [u64; 3] = [1, 4, 16];
const CONFIDENCES: [f64; 4] = [0.05, 0.1, 0.25, 0.5];

/// Names of the families, as `--families` takes them.
pub const FAMILY_NAMES: [(&str, Family); 11] = [
    ("symmetric", Family::Symmetric),
    ("threshold", Family::Threshold { xor_pair: false }),
    ("threshold-xor", Family::Threshold { xor_pair: true }),
    ("trees", Family::GreedyTrees(Features::Inputs)),
    ("trees-xor", Family::GreedyTrees(Features::PairXor)),
    ("c45", Family::C45Trees(Features::Inputs)),
    ("c45-xor", Family::C45Trees(Features::PairXor)),
    ("trees-xor-and", Family::GreedyTrees(Features::PairXorAnd)),
    ("c45-xor-and", Family::C45Trees(Features::PairXorAnd)),
    ("bagged", Family::Bagged),
    ("word-arith", Family::WordArith),
];

impl Family {
    /// The family of a name in [`FAMILY_NAMES`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Family> {
        FAMILY_NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// Whether the family is built for `n_inputs` inputs (popcounts up to 255 inputs,
    /// the pair screen up to 512, pairwise XORs up to [`PAIR_XOR_MAX_INPUTS`]).
    #[must_use]
    pub fn applies_to(self, n_inputs: usize) -> bool {
        match self {
            Family::Symmetric => n_inputs <= 255,
            Family::Threshold { xor_pair } => !xor_pair || n_inputs <= 512,
            Family::GreedyTrees(f) | Family::C45Trees(f) => {
                f == Features::Inputs || n_inputs <= PAIR_XOR_MAX_INPUTS
            }
            Family::Bagged => true,
            Family::WordArith => true,
        }
    }

    /// The families that apply to `n_inputs` inputs, in the default portfolio's order.
    #[must_use]
    pub fn default_portfolio(n_inputs: usize) -> Vec<Family> {
        FAMILY_NAMES.iter().map(|(_, f)| *f).filter(|f| f.applies_to(n_inputs)).collect()
    }

    /// The derived features the family tests, if any.
    #[must_use]
    pub fn derived_features(self) -> Option<Features> {
        match self {
            Family::GreedyTrees(f) | Family::C45Trees(f) if f != Features::Inputs => Some(f),
            _ => None,
        }
    }

    /// Fits the family on `d` and returns its candidates (none when it needs features
    /// that `d` lacks).
    #[must_use]
    pub fn fit(self, d: &FitData<'_>) -> Vec<Candidate> {
        let n = d.x.rows();
        match self {
            Family::Symmetric => {
                vec![Candidate {
                    key: "symmetric (table over the input popcount)".into(),
                    detail: String::new(),
                    circuit: Symmetric::fit(d.x, d.y).to_circuit(),
                }]
            }
            Family::Threshold { xor_pair } => {
                let xor = if xor_pair {
                    match best_xor_pair(d.x, d.y) {
                        Some(((a, b), _)) => vec![a, b],
                        None => return Vec::new(),
                    }
                } else {
                    Vec::new()
                };
                let fit = LogisticFit::fit(d.x, d.y, &xor, 64, 1e-4);
                [2, 3, 4, 6, 8, 10, 12]
                    .into_iter()
                    .map(|bits| {
                        let m = fit.round(bits);
                        let over = if xor_pair { " xor a screened input pair" } else { "" };
                        Candidate {
                            key: format!("threshold, {bits}-bit weights{over}"),
                            detail: if xor_pair {
                                format!("{} inputs, xor inputs {:?}", m.terms.len(), m.xor)
                            } else {
                                format!("{} inputs", m.terms.len())
                            },
                            circuit: m.to_circuit(n),
                        }
                    })
                    .collect()
            }
            Family::GreedyTrees(f) | Family::C45Trees(f) => {
                let (xf, feat, over) = match f {
                    Features::Inputs => (d.x, None, ""),
                    _ => match d.derived.iter().find(|t| t.0 == f) {
                        Some((_, c, m)) if f == Features::PairXor => {
                            (*m, Some(*c), " over inputs and pairwise XORs")
                        }
                        Some((_, c, m)) => (*m, Some(*c), " over inputs, pairwise XORs and ANDs"),
                        None => return Vec::new(),
                    },
                };
                let compile = |t: &Tree| match feat {
                    None => t.to_circuit(n),
                    Some(c) => c.then(&t.to_circuit(c.n_outputs())).expect("feature arity").pruned(),
                };
                let mut out = Vec::new();
                if let Family::GreedyTrees(_) = self {
                    let g = GrownTree::grow(
                        xf,
                        d.y,
                        &GrowParams { criterion: Criterion::InfoGain, max_depth: 20, min_branch: 1 },
                    );
                    for depth in DEPTHS {
                        for min_leaf in MIN_LEAVES {
                            let t = g.truncated(depth, min_leaf);
                            out.push(Candidate {
                                key: format!("tree depth {depth}, min leaf {min_leaf}{over}"),
                                detail: format!("{} splits", t.splits()),
                                circuit: compile(&t),
                            });
                        }
                    }
                } else {
                    for (criterion, name) in
                        [(Criterion::GainRatio, "gain ratio"), (Criterion::InfoGain, "gain")]
                    {
                        let g = GrownTree::grow(xf, d.y, &GrowParams { criterion, ..GrowParams::default() });
                        for cf in CONFIDENCES {
                            let t = g.pruned(cf);
                            out.push(Candidate {
                                key: format!("C4.5 tree ({name}), pruned at {cf}{over}"),
                                detail: format!("{} splits", t.splits()),
                                circuit: compile(&t),
                            });
                        }
                    }
                }
                out
            }
            Family::Bagged => {
                use rand::{RngExt, SeedableRng};
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
                let e = d.x.examples();
                let params = GrowParams { criterion: Criterion::InfoGain, max_depth: 10, min_branch: 1 };
                let grown: Vec<GrownTree> = (0..15)
                    .map(|_| {
                        let idx: Vec<usize> = (0..e).map(|_| rng.random_range(0..e)).collect();
                        GrownTree::grow(&d.x.select_examples(&idx), &d.y.select_examples(&idx), &params)
                    })
                    .collect();
                let mut out = Vec::new();
                for (n_trees, depth) in [(7, 8), (15, 8), (7, 10), (15, 10)] {
                    let forest =
                        Forest { trees: grown[..n_trees].iter().map(|g| g.truncated(depth, 1)).collect() };
                    out.push(Candidate {
                        key: format!("{n_trees} bagged trees of depth {depth}"),
                        detail: format!("{} splits", forest.splits()),
                        circuit: forest.to_circuit(n),
                    });
                }
                out
            }
            Family::WordArith => {
                let mut out = Vec::new();
                for (op, op_name) in [
                    (WordOp::HalfProduct, "product of the input halves"),
                    (WordOp::Sqrt, "square root of the input"),
                    (WordOp::ProductSign, "sign of the signed product of the input halves"),
                ] {
                    for (order, order_name) in
                        [(BitOrder::LsbFirst, "LSB first"), (BitOrder::MsbFirst, "MSB first")]
                    {
                        if let Some(f) = fit_word(op, order, d.x, d.y) {
                            out.push(Candidate {
                                key: format!("best bit of the {op_name}, {order_name}"),
                                detail: format!(
                                    "bit {}{}, {} training rows right",
                                    f.bit,
                                    if f.inverted { ", inverted" } else { "" },
                                    f.correct
                                ),
                                circuit: f.circuit,
                            });
                        }
                    }
                }
                out
            }
        }
    }
}

/// Most inputs for which the pairwise-XOR features are built (`n(n-1)/2` of them).
pub const PAIR_XOR_MAX_INPUTS: usize = 64;

/// The feature circuit of `kind` over the inputs of `x` and its values on `x`: the
/// inputs, then `x_i ^ x_j` for every `i < j`, then (for [`Features::PairXorAnd`])
/// `x_i & x_j`. `None` for [`Features::Inputs`].
#[must_use]
pub fn pair_features(x: &BitMatrix, kind: Features) -> Option<(Circuit<Bool>, BitMatrix)> {
    let ops: &[bool] = match kind {
        Features::Inputs => return None,
        Features::PairXor => &[false],
        Features::PairXorAnd => &[false, true],
    };
    let n = x.rows();
    let mut b = CircuitBuilder::<Bool>::new(0, n);
    let mut outs = b.args();
    let mut m = BitMatrix::zeros(n + ops.len() * n * n.saturating_sub(1) / 2, x.examples());
    for i in 0..n {
        m.row_mut(i).copy_from_slice(x.row(i));
    }
    let mut r = n;
    for &and in ops {
        for i in 0..n {
            for j in i + 1..n {
                let (a, c) = (b.arg(i), b.arg(j));
                outs.push(if and { b.and(a, c) } else { b.xor(a, c) });
                for ((d, p), q) in m.row_mut(r).iter_mut().zip(x.row(i)).zip(x.row(j)) {
                    *d = if and { p & q } else { p ^ q };
                }
                r += 1;
            }
        }
    }
    Some((b.finish(outs).expect("feature circuit is valid"), m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fit_of_a_family_has_the_same_keys_and_circuits_of_the_right_width() {
        let ex: Vec<Vec<bool>> = (0..256u32).map(|v| (0..8).map(|i| v >> i & 1 == 1).collect()).collect();
        let labels: Vec<Vec<bool>> = ex.iter().map(|e| vec![(e[0] ^ e[1]) & (e[2] | e[5])]).collect();
        let (x, y) = (BitMatrix::from_examples(8, &ex), BitMatrix::from_examples(1, &labels));
        let (fc, fm) = pair_features(&x, Features::PairXor).unwrap();
        let (ac, am) = pair_features(&x, Features::PairXorAnd).unwrap();
        assert_eq!((fm.rows(), am.rows()), (8 + 28, 8 + 56));
        let half: Vec<usize> = (0..128).collect();
        let (xh, yh) = (x.select_examples(&half), y.select_examples(&half));
        let (fh, ah) = (fm.select_examples(&half), am.select_examples(&half));
        let derived = [(Features::PairXor, &fc, &fm), (Features::PairXorAnd, &ac, &am)];
        let derived_half = [(Features::PairXor, &fc, &fh), (Features::PairXorAnd, &ac, &ah)];
        for (_, family) in FAMILY_NAMES {
            let all = family.fit(&FitData { x: &x, y: &y, derived: &derived });
            let part = family.fit(&FitData { x: &xh, y: &yh, derived: &derived_half });
            let keys = |v: &[Candidate]| v.iter().map(|c| c.key.clone()).collect::<Vec<_>>();
            assert_eq!(keys(&all), keys(&part), "{family:?}");
            assert!(!all.is_empty(), "{family:?}");
            for c in &all {
                assert_eq!((c.circuit.n_args(), c.circuit.n_outputs()), (8, 1), "{}", c.key);
            }
        }
        // The XOR-feature tree learns the function exactly from all patterns.
        let trees = Family::GreedyTrees(Features::PairXor).fit(&FitData { x: &x, y: &y, derived: &derived });
        let deep = trees.iter().find(|c| c.key.starts_with("tree depth 8, min leaf 1")).unwrap();
        for (e, l) in ex.iter().zip(&labels) {
            assert_eq!(deep.circuit.eval_one(e), *l);
        }
    }
}
