//! From an AIG back to a Boolean circuit of AND and NOT gates.

use super::{Aig, Lit};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::{Bool, BoolBuild};

impl Aig {
    /// The AIG as a circuit with the same inputs and outputs: one AND gate per AND node,
    /// one NOT gate per complemented node that something reads, and a constant gate only
    /// if an output or a node reads the constant.
    #[must_use]
    pub fn to_circuit(&self) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(0, self.n_inputs());
        let n_nodes = self.n_inputs() + 1 + self.n_ands();
        let mut pos: Vec<Option<WireId>> = vec![None; n_nodes];
        let mut neg: Vec<Option<WireId>> = vec![None; n_nodes];
        for i in 0..self.n_inputs() {
            pos[i + 1] = Some(b.arg(i));
        }
        let wire =
            |b: &mut CircuitBuilder<Bool>, pos: &mut [Option<WireId>], neg: &mut [Option<WireId>], l: Lit| {
                let n = l.node();
                let p = *pos[n].get_or_insert_with(|| b.constant(false));
                if l.is_complement() { *neg[n].get_or_insert_with(|| b.not(p)) } else { p }
            };
        for (i, &(x, y)) in self.ands().iter().enumerate() {
            let wx = wire(&mut b, &mut pos, &mut neg, x);
            let wy = wire(&mut b, &mut pos, &mut neg, y);
            pos[self.n_inputs() + 1 + i] = Some(b.and(wx, wy));
        }
        let outs = self.outputs().iter().map(|&l| wire(&mut b, &mut pos, &mut neg, l)).collect();
        b.finish(outs).expect("an AIG converts to a valid circuit")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_preserves_the_function() {
        let mut g = Aig::new(2);
        let (a, b) = (g.input(0), g.input(1));
        let x = g.xor(a, b);
        g.add_output(x);
        g.add_output(!a);
        g.add_output(Lit::TRUE);
        let c = g.to_circuit();
        for v in 0..4u32 {
            let bits = [v & 1 == 1, v & 2 == 2];
            assert_eq!(c.eval_one(&bits), g.eval_one(&bits));
        }
        // Three ANDs; NOTs of both ANDs of the inputs, of a, of b and of the constant.
        assert_eq!(c.gate_histogram(), vec![("and".into(), 3), ("const0".into(), 1), ("not".into(), 5)]);
    }
}
