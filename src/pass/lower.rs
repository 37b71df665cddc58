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
        exact: Option<(usize, &mut ExactSynthesis)>,
    ) -> Lit {
        self.lut_styled(table, addr, exact, Style::Smallest)
    }

    /// [`Aig::lut_exact`], except that in [`Style::Sop`] a constant table that is one
    /// cube, the complement of one, or a two-input XOR / XNOR is built as ABC's `strash`
    /// builds the cover (see [`Style`]).
    fn lut_styled(
        &mut self,
        table: &[Lit],
        addr: &[Lit],
        mut exact: Option<(usize, &mut ExactSynthesis)>,
        style: Style,
    ) -> Lit {
        if table.iter().all(|&t| t == table[0]) {
            return table[0];
        }
        if style == Style::Sop
            && let Some(l) = self.sop_gate(table, addr)
        {
            return l;
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

    /// ABC's structure for a gate-like constant table, if it is one ([`GateShape`]):
    /// a cube or the complement of one as a chain of ANDs over its literals in address
    /// order, as ABC builds a one-cube SOP; a two-input XOR as `!a b + a !b` and an XNOR
    /// as `!a !b + a b`, the SOPs ABC's readers write for them.
    fn sop_gate(&mut self, table: &[Lit], addr: &[Lit]) -> Option<Lit> {
        let (a, b) = (addr[0], addr.get(1).copied().unwrap_or(Lit::FALSE));
        Some(match gate_shape(table)? {
            GateShape::Xor => {
                let (x, y) = (self.and(!a, b), self.and(a, !b));
                self.or(x, y)
            }
            GateShape::Xnor => {
                let (x, y) = (self.and(!a, !b), self.and(a, b));
                self.or(x, y)
            }
            GateShape::Cube { positive, negative, complement } => {
                let cube =
                    (0..addr.len()).fold(Lit::TRUE, |acc, i| match (positive >> i & 1, negative >> i & 1) {
                        (1, _) => self.and(acc, addr[i]),
                        (_, 1) => self.and(acc, !addr[i]),
                        _ => acc,
                    });
                if complement { !cube } else { cube }
            }
        })
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
        let (smallest, sop_gates) = Self::lower(c, params, opts, &mut exact, Style::Smallest);
        if sop_gates == 0 {
            return smallest;
        }
        let (sop, _) = Self::lower(c, params, opts, &mut exact, Style::Sop);
        if sop.n_ands() < smallest.n_ands() { sop } else { smallest }
    }

    /// One lowering of `c` in `style`, with the number of constant-table LUTs that
    /// [`Style::Sop`] builds differently (the gate-like ones).
    fn lower(
        c: &Circuit<Bool>,
        params: Option<&[bool]>,
        opts: &LowerParams,
        exact: &mut ExactSynthesis,
        style: Style,
    ) -> (Self, usize) {
        let mut sop_gates = 0;
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
                    let ex = (opts.exact_inputs > 0).then_some((opts.exact_inputs, &mut *exact));
                    if style == Style::Smallest && gate_shape(&buf[..n]).is_some() {
                        sop_gates += 1;
                    }
                    aig.lut_styled(&buf[..n], &buf[n..], ex, style)
                }
            };
            lits.push(l);
        }
        for w in c.outputs() {
            aig.add_output(lits[w.index()]);
        }
        (aig.swept(), sop_gates)
    }
}

/// How [`Aig::from_circuit_with`] builds a constant-table LUT.
///
/// `Smallest` builds each alone as small as it can (factored covers, NPN structures,
/// Shannon); which of several equally small structures it takes is not chosen for
/// sharing with the rest of the circuit. `Sop` builds gate-like tables (one cube, its
/// complement, two-input XOR / XNOR) the way ABC's `strash` builds their SOPs, so that a
/// netlist of simple gates gets ABC's structure and sharing; the lowering keeps the
/// smaller of the two AIGs, and so is never above ABC `strash` on such netlists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Smallest,
    Sop,
}

/// A constant LUT table that ABC's `strash` builds in one fixed way (see [`Style`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateShape {
    /// Two inputs, `a ^ b`.
    Xor,
    /// Two inputs, `!(a ^ b)`.
    Xnor,
    /// The AND of the address bits in `positive` and of the complements of those in
    /// `negative`, complemented if `complement`.
    Cube { positive: usize, negative: usize, complement: bool },
}

/// The shape of a constant table of at least two inputs, if it is a cube, the
/// complement of one or a two-input XOR / XNOR.
fn gate_shape(table: &[Lit]) -> Option<GateShape> {
    if table.len() < 4 || table.len() > 1 << 16 || !table.iter().all(|&t| t == Lit::TRUE || t == Lit::FALSE) {
        return None;
    }
    if table.len() == 4 && table[0] == table[3] && table[1] == table[2] && table[0] != table[1] {
        return Some(if table[0] == Lit::FALSE { GateShape::Xor } else { GateShape::Xnor });
    }
    let k = table.len().trailing_zeros() as usize;
    let mask = table.len() - 1;
    [false, true].into_iter().find_map(|complement| {
        let on: Vec<usize> = (0..table.len()).filter(|&s| (table[s] == Lit::TRUE) != complement).collect();
        let positive = on.iter().fold(mask, |a, &s| a & s);
        let negative = !on.iter().fold(0, |a, &s| a | s) & mask;
        let fixed = (positive | negative).count_ones() as usize;
        (!on.is_empty() && on.len() == 1 << (k - fixed)).then_some(GateShape::Cube {
            positive,
            negative,
            complement,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::CircuitBuilder;
    use crate::domain::BoolBuild;

    fn table(bits: u64, k: usize) -> Vec<Lit> {
        (0..1usize << k).map(|s| if bits >> s & 1 == 1 { Lit::TRUE } else { Lit::FALSE }).collect()
    }

    #[test]
    fn gate_shapes_are_the_cubes_and_xors() {
        // 0b1000: a & b; 0b0111: !(a & b); 0b0010: a & !b; 0b0110: XOR; 0b1001: XNOR.
        let cube = |p, n, c| Some(GateShape::Cube { positive: p, negative: n, complement: c });
        assert_eq!(gate_shape(&table(0b1000, 2)), cube(0b11, 0, false));
        assert_eq!(gate_shape(&table(0b0111, 2)), cube(0b11, 0, true));
        assert_eq!(gate_shape(&table(0b0010, 2)), cube(0b01, 0b10, false));
        assert_eq!(gate_shape(&table(0b0110, 2)), Some(GateShape::Xor));
        assert_eq!(gate_shape(&table(0b1001, 2)), Some(GateShape::Xnor));
        // x0 & x2 over three address bits (x1 unused), and a majority (not a cube).
        assert_eq!(gate_shape(&table(0b1010_0000, 3)), cube(0b101, 0, false));
        assert_eq!(gate_shape(&table(0b1110_1000, 3)), None);
        let cubes =
            (0..1u64 << 16).filter(|&b| b != 0 && b != 0xffff && gate_shape(&table(b, 4)).is_some()).count();
        // 80 nonconstant cubes over four variables (3^4 - 1) and as many complements, of
        // which the 8 literals are both.
        assert_eq!(cubes, 152);
    }

    #[test]
    fn sop_style_builds_every_table_correctly_and_cubes_as_chains() {
        for k in 2..=4usize {
            for bits in 0..1u64 << (1 << k) {
                let mut g = Aig::new(k);
                let addr: Vec<Lit> = (0..k).map(|i| g.input(i)).collect();
                let o = g.lut_styled(&table(bits, k), &addr, None, Style::Sop);
                g.add_output(o);
                for s in 0..1usize << k {
                    let x: Vec<bool> = (0..k).map(|i| s >> i & 1 == 1).collect();
                    assert_eq!(g.eval_one(&x)[0], bits >> s & 1 == 1, "k {k} table {bits:#x}");
                }
                if let Some(GateShape::Cube { positive, negative, .. }) = gate_shape(&table(bits, k)) {
                    assert_eq!(g.n_ands(), ((positive | negative).count_ones() as usize).saturating_sub(1));
                }
            }
        }
        // OR of four, as ABC builds "0000 0": ((!a & !b) & !c) & !d, complemented.
        let mut g = Aig::new(4);
        let addr: Vec<Lit> = (0..4).map(|i| g.input(i)).collect();
        let o = g.lut_styled(&table(0xfffe, 4), &addr, None, Style::Sop);
        let ab = g.lookup(!addr[0], !addr[1]).unwrap();
        let abc = g.lookup(ab, !addr[2]).unwrap();
        assert_eq!(g.lookup(abc, !addr[3]), Some(!o));
    }

    #[test]
    fn lowering_keeps_the_style_with_fewer_ands() {
        // y1 = a & b & c & d and y2 = (a & b) & c: the chain shares a & b & c, the
        // balanced tree of the smallest-alone structures (ab)(cd) does not.
        let mut b = CircuitBuilder::<Bool>::new(0, 4);
        let x = b.args();
        let (f, t) = (b.constant(false), b.constant(true));
        let and4: Vec<_> = (0..16).map(|s| if s == 15 { t } else { f }).chain(x.iter().copied()).collect();
        let y1 = b.gate(Bool::Lut(4), &and4);
        let and3: Vec<_> = (0..8).map(|s| if s == 7 { t } else { f }).chain(x[..3].iter().copied()).collect();
        let y2 = b.gate(Bool::Lut(3), &and3);
        let c = b.finish(vec![y1, y2]).unwrap();
        let opts = LowerParams::default();
        let mut ex = ExactSynthesis::new(0);
        let (smallest, gates) = Aig::lower(&c, None, &opts, &mut ex, Style::Smallest);
        let (sop, _) = Aig::lower(&c, None, &opts, &mut ex, Style::Sop);
        assert_eq!(gates, 2);
        assert_eq!(sop.n_ands(), 3);
        let lowered = Aig::from_circuit(&c, None);
        assert_eq!(lowered.n_ands(), smallest.n_ands().min(sop.n_ands()));
        for s in 0..16usize {
            let v: Vec<bool> = (0..4).map(|i| s >> i & 1 == 1).collect();
            assert_eq!(lowered.eval_one(&v), c.eval_one(&v));
        }
    }
}
