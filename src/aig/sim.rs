//! AIG simulation (bit-parallel, through the circuit view), logic levels, copying and
//! rebuilding through a literal map.

use super::{Aig, Lit};
use crate::lanes::{BitMatrix, EvalParams, Program};

impl Aig {
    /// Outputs on every example of `inputs` (one row per AIG input), bit-parallel.
    ///
    /// # Panics
    /// If `inputs` does not have one row per AIG input.
    #[must_use]
    pub fn simulate(&self, inputs: &BitMatrix) -> BitMatrix {
        Program::new(&self.to_circuit()).eval(inputs, &EvalParams::default())
    }

    /// The value of every node on every example of `inputs`, node-major: node `n`
    /// occupies words `n * w .. (n + 1) * w` where `w = inputs.words()`.
    ///
    /// # Panics
    /// If `inputs` does not have one row per AIG input.
    #[must_use]
    pub fn node_words(&self, inputs: &BitMatrix) -> Vec<u64> {
        assert_eq!(inputs.rows(), self.n_inputs(), "one row per AIG input");
        let w = inputs.words();
        let base = self.n_inputs() + 1;
        let mut v = vec![0u64; (base + self.n_ands()) * w];
        for i in 0..self.n_inputs() {
            v[(i + 1) * w..(i + 2) * w].copy_from_slice(inputs.row(i));
        }
        for (k, &(a, b)) in self.ands().iter().enumerate() {
            let (ma, mb) = (mask(a), mask(b));
            let (sa, sb, so) = (a.node() * w, b.node() * w, (base + k) * w);
            for i in 0..w {
                v[so + i] = (v[sa + i] ^ ma) & (v[sb + i] ^ mb);
            }
        }
        v
    }

    /// Logic level of every node (constant and inputs 0, an AND one more than its
    /// deeper fan-in).
    #[must_use]
    pub fn levels(&self) -> Vec<u32> {
        let base = self.n_inputs() + 1;
        let mut lv = vec![0u32; base + self.n_ands()];
        for (i, &(a, b)) in self.ands().iter().enumerate() {
            lv[base + i] = 1 + lv[a.node()].max(lv[b.node()]);
        }
        lv
    }

    /// The largest output level (0 for an AIG without AND nodes on any output path).
    #[must_use]
    pub fn depth(&self) -> u32 {
        let lv = self.levels();
        self.outputs().iter().map(|l| lv[l.node()]).max().unwrap_or(0)
    }

    /// Copies the AIG into `target` with its inputs driven by `inputs`; returns the
    /// literals of its outputs there (outputs are not added to `target`).
    ///
    /// # Panics
    /// If `inputs` does not have one literal per input.
    pub fn append_into(&self, target: &mut Aig, inputs: &[Lit]) -> Vec<Lit> {
        assert_eq!(inputs.len(), self.n_inputs(), "one literal per input");
        let mut map: Vec<Lit> = vec![Lit::FALSE];
        map.extend_from_slice(inputs);
        let tr = |map: &[Lit], l: Lit| Lit(map[l.node()].0 ^ u32::from(l.is_complement()));
        for &(a, b) in self.ands() {
            let l = target.and(tr(&map, a), tr(&map, b));
            map.push(l);
        }
        self.outputs().iter().map(|&l| tr(&map, l)).collect()
    }

    /// Rebuilds the AIG node by node into `target` (which decides hashing), mapping each
    /// AND node through `subst` first: `subst(i, rebuilt)` may return a replacement
    /// literal (already in `target`) for AND node `i` instead of rebuilding it.
    pub fn rebuild_into(&self, target: &mut Aig, mut subst: impl FnMut(usize, &[Lit]) -> Option<Lit>) {
        let base = self.n_inputs() + 1;
        let mut map: Vec<Lit> = (0..base).map(|n| Lit((n * 2) as u32)).collect();
        let tr = |map: &[Lit], l: Lit| Lit(map[l.node()].0 ^ u32::from(l.is_complement()));
        for (i, &(a, b)) in self.ands().iter().enumerate() {
            let l = match subst(i, &map) {
                Some(l) => l,
                None => target.and(tr(&map, a), tr(&map, b)),
            };
            map.push(l);
        }
        for &l in self.outputs() {
            target.add_output(tr(&map, l));
        }
    }
}

/// All-ones for a complemented literal, zero otherwise.
fn mask(l: Lit) -> u64 {
    if l.is_complement() { u64::MAX } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuit_view_and_simulation_agree_with_eval_one() {
        let mut g = Aig::new(3);
        let (a, b, c) = (g.input(0), g.input(1), g.input(2));
        let x = g.xor(a, b);
        let m = g.mux(c, x, !a);
        g.add_output(m);
        g.add_output(!x);
        g.add_output(Lit::TRUE);
        let all: Vec<Vec<bool>> = (0..8u32).map(|v| (0..3).map(|i| v >> i & 1 == 1).collect()).collect();
        let sim = g.simulate(&BitMatrix::from_examples(3, &all));
        for (e, x) in all.iter().enumerate() {
            assert_eq!(sim.example(e), g.eval_one(x));
            assert_eq!(g.to_circuit().eval_one(x), g.eval_one(x));
        }
        assert_eq!(g.depth(), 4);
    }
}
