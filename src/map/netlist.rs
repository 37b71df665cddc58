//! The result of mapping: a network of K-input LUTs with constant tables, built from
//! the chosen cuts (each LUT's table is its cone of the AIG simulated over the cut's
//! leaves), and its view as a circuit of `Lut(k)` gates, which the BLIF writer prints as
//! one `.names` block per LUT and the Verilog writer as one table per LUT.

use super::cuts::MAX_LUT_INPUTS;
use super::mapper::Mapper;
use crate::aig::{Aig, Lit};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::Bool;

/// A signal of a LUT network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signal {
    /// A constant.
    Const(bool),
    /// Primary input `i`.
    Input(usize),
    /// The output of LUT `j`.
    Lut(usize),
}

/// One LUT: its inputs and its table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lut {
    inputs: Vec<Signal>,
    table: Vec<u64>,
}

impl Lut {
    /// The LUT's inputs; variable `i` of the table is `inputs()[i]`.
    #[must_use]
    pub fn inputs(&self) -> &[Signal] {
        &self.inputs
    }

    /// `f(s)`, where bit `i` of `s` is the value of input `i`.
    #[must_use]
    pub fn bit(&self, s: usize) -> bool {
        self.table[s / 64] >> (s % 64) & 1 == 1
    }
}

/// A LUT network in topological order: LUT `j` reads only inputs, constants and LUTs
/// before `j`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LutNetlist {
    n_inputs: usize,
    luts: Vec<Lut>,
    outputs: Vec<Signal>,
}

/// Words of a table over `k` variables.
fn words(k: usize) -> usize {
    (1usize << k).div_ceil(64)
}

/// The table of variable `i` over `k` variables.
fn var_table(i: usize, k: usize) -> Vec<u64> {
    const PATTERN: [u64; 6] = [
        0xAAAA_AAAA_AAAA_AAAA,
        0xCCCC_CCCC_CCCC_CCCC,
        0xF0F0_F0F0_F0F0_F0F0,
        0xFF00_FF00_FF00_FF00,
        0xFFFF_0000_FFFF_0000,
        0xFFFF_FFFF_0000_0000,
    ];
    (0..words(k))
        .map(|w| {
            if i < 6 {
                PATTERN[i]
            } else if w >> (i - 6) & 1 == 1 {
                u64::MAX
            } else {
                0
            }
        })
        .collect()
}

/// Clears the bits past `2^k` of a one-word table.
fn trim(t: &mut [u64], k: usize) {
    if k < 6 {
        t[0] &= (1u64 << (1 << k)) - 1;
    }
}

/// The table of `root` over `leaves` (the AIG cone between them).
fn cone_table(aig: &Aig, root: usize, leaves: &[u32], cone: &mut Vec<usize>) -> Vec<u64> {
    let k = leaves.len();
    let base = aig.n_inputs() + 1;
    cone.clear();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if leaves.contains(&(n as u32)) || cone.contains(&n) {
            continue;
        }
        assert!(n >= base, "a cut's leaves separate its root from the inputs");
        cone.push(n);
        let (a, b) = aig.ands()[n - base];
        stack.push(a.node());
        stack.push(b.node());
    }
    cone.sort_unstable();
    let mut tables: Vec<(usize, Vec<u64>)> =
        leaves.iter().enumerate().map(|(i, &l)| (l as usize, var_table(i, k))).collect();
    let w = words(k);
    for &n in cone.iter() {
        let (a, b) = aig.ands()[n - base];
        let get = |tables: &[(usize, Vec<u64>)], l: Lit| -> Vec<u64> {
            if l.node() == 0 {
                return vec![if l.is_complement() { u64::MAX } else { 0 }; w];
            }
            let t = &tables.iter().find(|(m, _)| *m == l.node()).expect("fan-in already simulated").1;
            if l.is_complement() { t.iter().map(|x| !x).collect() } else { t.clone() }
        };
        let (ta, tb) = (get(&tables, a), get(&tables, b));
        tables.push((n, ta.iter().zip(&tb).map(|(x, y)| x & y).collect()));
    }
    let mut t = tables.into_iter().find(|(m, _)| *m == root).expect("the root is in its cone").1;
    trim(&mut t, k);
    t
}

/// Whether a table over `k` variables depends on variable `i`.
fn depends_on(t: &[u64], i: usize, k: usize) -> bool {
    (0..1usize << k).any(|s| {
        s >> i & 1 == 0 && (t[s / 64] >> (s % 64) & 1) != (t[(s | 1 << i) / 64] >> ((s | 1 << i) % 64) & 1)
    })
}

impl LutNetlist {
    /// The mapping the mapper's chosen cuts make (its references must be fresh).
    pub(super) fn from_mapper(m: &Mapper<'_>) -> Self {
        let aig = m.aig;
        let base = m.base();
        let mut luts: Vec<Lut> = Vec::new();
        let mut sig: Vec<Signal> =
            (0..base).map(|n| if n == 0 { Signal::Const(false) } else { Signal::Input(n - 1) }).collect();
        sig.resize(m.refs.len(), Signal::Const(false));
        let mut cone = Vec::new();
        for n in base..m.refs.len() {
            if m.refs[n] == 0 {
                continue;
            }
            let cut = m.best[n].expect("a mapped node has a cut");
            let mut table = cone_table(aig, n, cut.leaves(), &mut cone);
            let mut inputs: Vec<Signal> = cut.leaves().iter().map(|&l| sig[l as usize]).collect();
            // Leaves the function ignores (redundant logic) or that are constants go.
            let mut i = inputs.len();
            while i > 0 {
                i -= 1;
                let k = inputs.len();
                if let Signal::Const(v) = inputs[i] {
                    table = cofactor(&table, i, k, v);
                    inputs.remove(i);
                } else if !depends_on(&table, i, k) {
                    table = cofactor(&table, i, k, false);
                    inputs.remove(i);
                }
            }
            sig[n] = if inputs.is_empty() {
                Signal::Const(table[0] & 1 == 1)
            } else {
                luts.push(Lut { inputs, table });
                Signal::Lut(luts.len() - 1)
            };
        }
        // Complemented outputs: complement the LUT in place when nothing else reads it,
        // otherwise add a complemented copy (or an inverter for an input).
        let mut plain_use = vec![false; luts.len()];
        for l in &luts {
            for s in &l.inputs {
                if let Signal::Lut(j) = s {
                    plain_use[*j] = true;
                }
            }
        }
        for l in aig.outputs() {
            if let (Signal::Lut(j), false) = (sig[l.node()], l.is_complement()) {
                plain_use[j] = true;
            }
        }
        let mut complemented: std::collections::HashMap<Signal, Signal> = std::collections::HashMap::new();
        let mut outputs = Vec::with_capacity(aig.outputs().len());
        for l in aig.outputs() {
            let s = sig[l.node()];
            if !l.is_complement() {
                outputs.push(s);
                continue;
            }
            let out = match s {
                Signal::Const(v) => Signal::Const(!v),
                Signal::Lut(j) if !plain_use[j] => {
                    if let std::collections::hash_map::Entry::Vacant(e) = complemented.entry(s) {
                        let k = luts[j].inputs.len();
                        luts[j].table.iter_mut().for_each(|w| *w = !*w);
                        trim(&mut luts[j].table, k);
                        e.insert(s);
                    }
                    s
                }
                _ => *complemented.entry(s).or_insert_with(|| {
                    let lut = match s {
                        Signal::Lut(j) => {
                            let mut c = luts[j].clone();
                            c.table.iter_mut().for_each(|w| *w = !*w);
                            trim(&mut c.table, c.inputs.len());
                            c
                        }
                        _ => Lut { inputs: vec![s], table: vec![0b01] },
                    };
                    luts.push(lut);
                    Signal::Lut(luts.len() - 1)
                }),
            };
            outputs.push(out);
        }
        Self { n_inputs: aig.n_inputs(), luts, outputs }
    }

    /// Complements the table of the LUT that drives output `j` (a broken mapping for tests).
    #[cfg(test)]
    pub(super) fn flip_for_test(&mut self, j: usize) {
        if let Signal::Lut(l) = self.outputs[j] {
            let k = self.luts[l].inputs.len();
            self.luts[l].table.iter_mut().for_each(|w| *w = !*w);
            trim(&mut self.luts[l].table, k);
        }
    }

    /// Number of inputs.
    #[must_use]
    pub fn n_inputs(&self) -> usize {
        self.n_inputs
    }

    /// The LUTs, in topological order.
    #[must_use]
    pub fn luts(&self) -> &[Lut] {
        &self.luts
    }

    /// The outputs.
    #[must_use]
    pub fn outputs(&self) -> &[Signal] {
        &self.outputs
    }

    /// LUT levels on the longest input-to-output path.
    #[must_use]
    pub fn depth(&self) -> u32 {
        let mut lv = vec![0u32; self.luts.len()];
        let level = |lv: &[u32], s: &Signal| if let Signal::Lut(j) = s { lv[*j] } else { 0 };
        for (j, l) in self.luts.iter().enumerate() {
            lv[j] = 1 + l.inputs.iter().map(|s| level(&lv, s)).max().unwrap_or(0);
        }
        self.outputs.iter().map(|s| level(&lv, s)).max().unwrap_or(0)
    }

    /// LUTs per input count: entry `k` counts the LUTs with `k` inputs.
    #[must_use]
    pub fn size_histogram(&self) -> Vec<usize> {
        let mut h = vec![0; MAX_LUT_INPUTS + 1];
        for l in &self.luts {
            h[l.inputs.len()] += 1;
        }
        h
    }

    /// The network as a circuit with the same inputs and outputs: one `Lut(k)` gate per
    /// LUT, its table bits read from two shared constant gates.
    #[must_use]
    pub fn to_circuit(&self) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(0, self.n_inputs);
        let (f, t) = (b.gate(Bool::Const(false), &[]), b.gate(Bool::Const(true), &[]));
        let mut wires: Vec<WireId> = Vec::with_capacity(self.luts.len());
        let wire = |wires: &[WireId], b: &CircuitBuilder<Bool>, s: Signal| match s {
            Signal::Const(v) => {
                if v {
                    t
                } else {
                    f
                }
            }
            Signal::Input(i) => b.arg(i),
            Signal::Lut(j) => wires[j],
        };
        let mut fanins = Vec::new();
        for l in &self.luts {
            let k = l.inputs.len();
            fanins.clear();
            fanins.extend((0..1usize << k).map(|s| if l.bit(s) { t } else { f }));
            for &s in &l.inputs {
                fanins.push(wire(&wires, &b, s));
            }
            wires.push(b.gate(Bool::Lut(k as u8), &fanins));
        }
        let outs = self.outputs.iter().map(|&s| wire(&wires, &b, s)).collect();
        b.finish(outs).expect("a LUT network converts to a valid circuit")
    }
}

/// The cofactor of a table over `k` variables with variable `i` set to `v`.
fn cofactor(t: &[u64], i: usize, k: usize, v: bool) -> Vec<u64> {
    let mut out = vec![0u64; words(k - 1)];
    for s in 0..1usize << (k - 1) {
        let lo = s & ((1 << i) - 1);
        let full = lo | (s >> i) << (i + 1) | usize::from(v) << i;
        if t[full / 64] >> (full % 64) & 1 == 1 {
            out[s / 64] |= 1 << (s % 64);
        }
    }
    out
}
