//! Lowering Boolean circuits to AIGs ([`Aig::from_circuit_with`]): gates to AND nodes,
//! parameters folded to constants, LUTs with constant tables built by the smallest of
//! factored covers, NPN structures and Shannon expansion, and small cofactors by exact
//! synthesis. Lives beside the passes because it uses their synthesis engines; the AIG
//! itself ([`crate::aig`]) depends on none of them.

use super::exact::{ExactSynthesis, TruthTable};
use crate::aig::{Aig, Lit};
use crate::circuit::Circuit;
use crate::domain::Bool;

/// Constant tables of at most this many inputs are lowered by structure search.
const SMALL_LOWER_INPUTS: usize = 6;

/// Options of [`Aig::from_circuit_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LowerParams {
    /// Build constant-table LUT cofactors of at most this many inputs by exact synthesis
    /// (0 = never; 3 is cheap, 4 can take minutes over a model's many distinct functions).
    pub exact_inputs: usize,
    /// Exact synthesis gives up (falls back to Shannon) beyond this many AND nodes.
    pub exact_max_nodes: usize,
}

impl Aig {
    /// A LUT: a constant table of at most six inputs by the smallest of
    /// algebraic factoring and Shannon expansion,
    /// otherwise by Shannon expansion on its address bits, most significant first.
    pub fn lut(&mut self, table: &[Lit], addr: &[Lit]) -> Lit {
        self.lut_exact(table, addr, None)
    }

    /// Plain Shannon expansion (no structure search).
    fn shannon(&mut self, table: &[Lit], addr: &[Lit]) -> Lit {
        if table.iter().all(|&t| t == table[0]) {
            return table[0];
        }
        let Some((&top, rest)) = addr.split_last() else { return table[0] };
        let half = table.len() / 2;
        let lo = self.shannon(&table[..half], rest);
        let hi = self.shannon(&table[half..], rest);
        self.mux(top, lo, hi)
    }

    /// A LUT by Shannon expansion, except that constant-table cofactors of at most
    /// `exact.0` inputs are built as minimum AIGs by exact synthesis, and other constant
    /// tables of at most six inputs as in [`Aig::lut`].
    pub fn lut_exact(
        &mut self,
        table: &[Lit],
        addr: &[Lit],
        mut exact: Option<(usize, &mut ExactSynthesis)>,
    ) -> Lit {
        if table.iter().all(|&t| t == table[0]) {
            return table[0];
        }
        if let Some((k, ex)) = exact.as_mut()
            && addr.len() <= *k
            && table.iter().all(|&t| t == Lit::TRUE || t == Lit::FALSE)
        {
            let bits = table.iter().enumerate().fold(0u64, |a, (i, &t)| a | u64::from(t == Lit::TRUE) << i);
            if let Some(small) = ex.synthesize(TruthTable { n: addr.len(), bits }) {
                return small.append_into(self, addr)[0];
            }
        }
        if addr.len() <= SMALL_LOWER_INPUTS && table.iter().all(|&t| t == Lit::TRUE || t == Lit::FALSE) {
            let f = crate::io::cover::TruthTable::from_fn(addr.len(), |s| table[s] == Lit::TRUE);
            let mut shannon = Aig::new(addr.len());
            let ins: Vec<Lit> = (0..addr.len()).map(|i| shannon.input(i)).collect();
            let o = shannon.shannon(table, &ins);
            shannon.add_output(o);
            let shannon = shannon.swept();
            let small = crate::pass::factor::synthesize(&f);
            let best = if small.n_ands() < shannon.n_ands() { small } else { shannon };
            return best.append_into(self, addr)[0];
        }
        self.shannon_exact(table, addr, exact)
    }

    /// Shannon expansion on the top address bit, the cofactors by [`Aig::lut_exact`].
    fn shannon_exact(
        &mut self,
        table: &[Lit],
        addr: &[Lit],
        mut exact: Option<(usize, &mut ExactSynthesis)>,
    ) -> Lit {
        let Some((&top, rest)) = addr.split_last() else { return table[0] };
        let half = table.len() / 2;
        let lo = self.lut_exact(&table[..half], rest, exact.as_mut().map(|(k, e)| (*k, &mut **e)));
        let hi = self.lut_exact(&table[half..], rest, exact.as_mut().map(|(k, e)| (*k, &mut **e)));
        self.mux(top, lo, hi)
    }

    /// Lowers `c` to an AIG. With `params`, the parameter block is folded to those
    /// constants and the AIG's inputs are `c`'s arguments; without, every input of `c`
    /// (parameters included) is an AIG input.
    ///
    /// # Panics
    /// If `params` is given with the wrong length.
    #[must_use]
    pub fn from_circuit(c: &Circuit<Bool>, params: Option<&[bool]>) -> Self {
        Self::from_circuit_with(c, params, &LowerParams::default())
    }

    /// [`from_circuit`](Self::from_circuit) with options.
    ///
    /// # Panics
    /// If `params` is given with the wrong length.
    #[must_use]
    pub fn from_circuit_with(c: &Circuit<Bool>, params: Option<&[bool]>, opts: &LowerParams) -> Self {
        let mut exact = ExactSynthesis::new(opts.exact_max_nodes);
        let (mut aig, mut lits) = match params {
            Some(p) => {
                assert_eq!(p.len(), c.n_params(), "one value per parameter");
                let aig = Aig::new(c.n_args());
                let mut lits: Vec<Lit> = p.iter().map(|&v| if v { Lit::TRUE } else { Lit::FALSE }).collect();
                lits.extend((0..c.n_args()).map(|i| aig.input(i)));
                (aig, lits)
            }
            None => {
                let aig = Aig::new(c.n_inputs());
                let lits = (0..c.n_inputs()).map(|i| aig.input(i)).collect();
                (aig, lits)
            }
        };
        let mut buf = Vec::new();
        for (_, op, fanins) in c.gates() {
            buf.clear();
            buf.extend(fanins.iter().map(|w| lits[w.index()]));
            let l = match *op {
                Bool::Const(v) => {
                    if v {
                        Lit::TRUE
                    } else {
                        Lit::FALSE
                    }
                }
                Bool::Xor => aig.xor(buf[0], buf[1]),
                Bool::And => aig.and(buf[0], buf[1]),
                Bool::Not => !buf[0],
                Bool::Or => aig.or(buf[0], buf[1]),
                Bool::Mux => aig.mux(buf[0], buf[1], buf[2]),
                Bool::Lut(k) => {
                    let n = 1usize << k;
                    let ex = (opts.exact_inputs > 0).then_some((opts.exact_inputs, &mut exact));
                    aig.lut_exact(&buf[..n], &buf[n..], ex)
                }
            };
            lits.push(l);
        }
        for w in c.outputs() {
            aig.add_output(lits[w.index()]);
        }
        aig.swept()
    }
}
