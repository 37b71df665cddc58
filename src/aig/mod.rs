//! And-inverter graphs: AND nodes with complemented edges, structurally hashed.
//!
//! [`Aig::from_circuit`] lowers a Boolean circuit (with its parameters folded to
//! constants, when given) to an AIG, propagating constants and merging structurally
//! equal nodes as it goes; its AND count is the size figure `metrics.json` reports.

mod convert;

use std::collections::HashMap;

mod from_truth;
mod sim;

pub use from_truth::{TruthSynthParams, TruthSynthStats};

/// A literal: node index times two, plus one if complemented. Node 0 is constant false,
/// so literal 0 is false and literal 1 is true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit(pub u32);

impl Lit {
    /// Constant false.
    pub const FALSE: Lit = Lit(0);
    /// Constant true.
    pub const TRUE: Lit = Lit(1);

    /// The node this literal points at.
    #[must_use]
    pub fn node(self) -> usize {
        (self.0 >> 1) as usize
    }

    /// Whether the literal is complemented.
    #[must_use]
    pub fn is_complement(self) -> bool {
        self.0 & 1 == 1
    }
}

/// Multiplicative hasher for fan-in pairs packed into a `u64` (structural hash tables
/// here and in the local passes' graph); deterministic, unlike the default `SipHash`.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 ^= (x ^ x >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The key of the fan-in pair `(a, b)` in a structural hash table.
fn pair_key(a: Lit, b: Lit) -> u64 {
    u64::from(a.0) << 32 | u64::from(b.0)
}

/// A combinational AIG: node 0 is the constant, nodes `1..=n_inputs` the inputs, then
/// AND nodes in topological order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aig {
    n_inputs: usize,
    ands: Vec<(Lit, Lit)>,
    outputs: Vec<Lit>,
    hash: HashMap<u64, Lit, std::hash::BuildHasherDefault<KeyHasher>>,
    /// Merge structurally equal AND nodes (`true` unless built with [`Aig::unhashed`]).
    hashing: bool,
}

impl std::ops::Not for Lit {
    type Output = Lit;

    /// The complement.
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

impl Aig {
    /// An AIG with `n_inputs` inputs and no nodes.
    #[must_use]
    pub fn new(n_inputs: usize) -> Self {
        Self { n_inputs, hashing: true, ..Self::default() }
    }

    /// An AIG that folds constants but never merges structurally equal nodes.
    #[must_use]
    pub fn unhashed(n_inputs: usize) -> Self {
        Self { n_inputs, hashing: false, ..Self::default() }
    }

    /// The literal of input `i`.
    #[must_use]
    pub fn input(&self, i: usize) -> Lit {
        Lit(((i + 1) * 2) as u32)
    }

    /// Number of inputs.
    #[must_use]
    pub fn n_inputs(&self) -> usize {
        self.n_inputs
    }

    /// Number of AND nodes.
    #[must_use]
    pub fn n_ands(&self) -> usize {
        self.ands.len()
    }

    /// The AND nodes' fan-ins, in order (node `n_inputs + 1 + i` is `ands()[i]`).
    #[must_use]
    pub fn ands(&self) -> &[(Lit, Lit)] {
        &self.ands
    }

    /// The output literals.
    #[must_use]
    pub fn outputs(&self) -> &[Lit] {
        &self.outputs
    }

    /// Replaces output `j`.
    ///
    /// # Panics
    /// If there is no output `j`.
    pub fn set_output(&mut self, j: usize, l: Lit) {
        self.outputs[j] = l;
    }

    /// Appends an output.
    pub fn add_output(&mut self, l: Lit) {
        self.outputs.push(l);
    }

    /// `a & b`, folding constants and reusing an existing equal node.
    pub fn and(&mut self, a: Lit, b: Lit) -> Lit {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        if a == Lit::FALSE || a == !b {
            return Lit::FALSE;
        }
        if a == Lit::TRUE || a == b {
            return b;
        }
        if self.hashing
            && let Some(&l) = self.hash.get(&pair_key(a, b))
        {
            return l;
        }
        let l = Lit(((self.n_inputs + 1 + self.ands.len()) * 2) as u32);
        self.ands.push((a, b));
        if self.hashing {
            self.hash.insert(pair_key(a, b), l);
        }
        l
    }

    /// The literal of `a & b` if it folds or already exists, without creating a node.
    #[must_use]
    pub fn lookup(&self, a: Lit, b: Lit) -> Option<Lit> {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        if a == Lit::FALSE || a == !b {
            return Some(Lit::FALSE);
        }
        if a == Lit::TRUE || a == b {
            return Some(b);
        }
        self.hash.get(&pair_key(a, b)).copied()
    }

    /// `a | b`.
    pub fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    /// `a ^ b` (three ANDs): `!(ab) & !(!a!b)`, which shares `ab` with the carry of an
    /// adder built on it.
    pub fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        let both = self.and(a, b);
        let neither = self.and(!a, !b);
        self.and(!both, !neither)
    }

    /// `if s { t } else { e }`.
    pub fn mux(&mut self, s: Lit, e: Lit, t: Lit) -> Lit {
        if e == t {
            return e;
        }
        if t == !e {
            return self.xor(s, e);
        }
        let x = self.and(s, t);
        let y = self.and(!s, e);
        self.or(x, y)
    }

    /// The AIG without AND nodes that no output reaches.
    #[must_use]
    pub fn swept(&self) -> Self {
        let base = self.n_inputs + 1;
        let mut live = vec![false; self.ands.len()];
        for l in &self.outputs {
            if l.node() >= base {
                live[l.node() - base] = true;
            }
        }
        for i in (0..self.ands.len()).rev() {
            if live[i] {
                for l in [self.ands[i].0, self.ands[i].1] {
                    if l.node() >= base {
                        live[l.node() - base] = true;
                    }
                }
            }
        }
        let mut out = Aig { n_inputs: self.n_inputs, hashing: self.hashing, ..Aig::default() };
        let mut map: Vec<Lit> = (0..base).map(|n| Lit((n * 2) as u32)).collect();
        let tr = |map: &[Lit], l: Lit| Lit(map[l.node()].0 ^ u32::from(l.is_complement()));
        for (i, &(a, b)) in self.ands.iter().enumerate() {
            let l = if live[i] { out.and(tr(&map, a), tr(&map, b)) } else { Lit::FALSE };
            map.push(l);
        }
        for &l in &self.outputs {
            out.add_output(tr(&map, l));
        }
        out
    }

    /// Evaluates the AIG on one input vector.
    ///
    /// # Panics
    /// If `inputs` does not have one value per input.
    #[must_use]
    pub fn eval_one(&self, inputs: &[bool]) -> Vec<bool> {
        assert_eq!(inputs.len(), self.n_inputs);
        let mut v = Vec::with_capacity(self.n_inputs + 1 + self.ands.len());
        v.push(false);
        v.extend_from_slice(inputs);
        let val = |v: &[bool], l: Lit| v[l.node()] ^ l.is_complement();
        for &(a, b) in &self.ands {
            let x = val(&v, a) & val(&v, b);
            v.push(x);
        }
        self.outputs.iter().map(|&l| val(&v, l)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::CircuitBuilder;
    use crate::domain::Bool;
    use crate::domain::BoolBuild;
    use crate::pass::LowerParams;

    #[test]
    fn lowering_preserves_every_gate_type() {
        let mut b = CircuitBuilder::<Bool>::new(4, 3);
        let (p, x) = (b.params(), b.args());
        let l = b.lut(&p, &x[..2]);
        let m = b.mux(x[2], l, x[0]);
        let o = b.or(m, x[1]);
        let n = b.not(o);
        let a = b.and(n, x[2]);
        let c = b.constant(true);
        let y = b.xor(a, c);
        let circ = b.finish(vec![y, l]).unwrap();
        let aig = Aig::from_circuit(&circ, None);
        for v in 0..1u32 << 7 {
            let bits: Vec<bool> = (0..7).map(|i| v >> i & 1 == 1).collect();
            assert_eq!(aig.eval_one(&bits), circ.eval_one(&bits));
        }
        let params = [false, true, true, false];
        let folded = Aig::from_circuit(&circ, Some(&params));
        for v in 0..8u32 {
            let x: Vec<bool> = (0..3).map(|i| v >> i & 1 == 1).collect();
            let mut full = params.to_vec();
            full.extend(&x);
            assert_eq!(folded.eval_one(&x), circ.eval_one(&full));
        }
        assert!(folded.n_ands() < aig.n_ands());
    }

    #[test]
    fn exact_lowering_is_equivalent_and_no_larger_per_lut() {
        use crate::learn::{ModelSpec, Network};
        use crate::pass::cec::{CecParams, Verdict, cec};
        let spec: ModelSpec = "lut:4:12x2,groupsum:2".parse().unwrap();
        let net = Network::build(spec, 10, 2, 3).unwrap();
        let params: Vec<bool> = (0..net.n_params()).map(|i| (i * 7 + i / 5) % 3 == 0).collect();
        let plain = Aig::from_circuit(&net.circuit, Some(&params));
        let opts = LowerParams { exact_inputs: 3, exact_max_nodes: 10 };
        let exact = Aig::from_circuit_with(&net.circuit, Some(&params), &opts);
        assert_eq!(cec(&plain, &exact, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
        // Alone, every 3-input function is no larger exactly; inside a network, sharing
        // between the Shannon trees of neighbouring LUTs can favour either lowering.
        for bits in 0..256u64 {
            let mut b = CircuitBuilder::<Bool>::new(0, 3);
            let args = b.args();
            let table: Vec<_> = (0..8).map(|s| b.constant(bits >> s & 1 == 1)).collect();
            let mut fanins = table;
            fanins.extend(args);
            let y = b.gate(Bool::Lut(3), &fanins);
            let c = b.finish(vec![y]).unwrap();
            let (p, e) = (Aig::from_circuit(&c, None), Aig::from_circuit_with(&c, None, &opts));
            assert!(e.n_ands() <= p.n_ands(), "table {bits:#x}: {} > {}", e.n_ands(), p.n_ands());
        }
    }

    #[test]
    fn strash_merges_and_folds() {
        let mut g = Aig::new(2);
        let (a, b) = (g.input(0), g.input(1));
        let x = g.and(a, b);
        assert_eq!(g.and(b, a), x);
        assert_eq!(g.and(a, !a), Lit::FALSE);
        assert_eq!(g.and(Lit::TRUE, a), a);
        assert_eq!(g.n_ands(), 1);
    }
}
