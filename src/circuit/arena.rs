//! `Circuit<S>`: an immutable flat arena of gates in topological order.

use super::{GateId, Signature, WireId};

/// A validated circuit `P x A -> B` over the gate signature `S`.
///
/// Wires `0..n_inputs` are inputs; the first `n_params` of them form the parameter block
/// `P`, the rest the arguments `A`. Gate `g` drives wire `n_inputs + g` and reads only
/// smaller wire ids, so the arena order is a topological order. Build one with
/// [`CircuitBuilder`](super::CircuitBuilder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Circuit<S> {
    pub(super) n_params: u32,
    pub(super) n_inputs: u32,
    pub(super) ops: Vec<S>,
    pub(super) fanin_start: Vec<u32>,
    pub(super) fanins: Vec<WireId>,
    pub(super) outputs: Vec<WireId>,
}

impl<S: Signature> Circuit<S> {
    /// Number of inputs, parameters included.
    #[must_use]
    pub fn n_inputs(&self) -> usize {
        self.n_inputs as usize
    }

    /// Size of the parameter block `P` (the first inputs).
    #[must_use]
    pub fn n_params(&self) -> usize {
        self.n_params as usize
    }

    /// Number of argument inputs `A` (inputs after the parameters).
    #[must_use]
    pub fn n_args(&self) -> usize {
        (self.n_inputs - self.n_params) as usize
    }

    /// Number of outputs `B`.
    #[must_use]
    pub fn n_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Number of gates.
    #[must_use]
    pub fn n_gates(&self) -> usize {
        self.ops.len()
    }

    /// Number of wires (inputs plus gate outputs).
    #[must_use]
    pub fn n_wires(&self) -> usize {
        self.n_inputs() + self.n_gates()
    }

    /// The output wires, in order.
    #[must_use]
    pub fn outputs(&self) -> &[WireId] {
        &self.outputs
    }

    /// The gate type of gate `g`.
    #[must_use]
    pub fn op(&self, g: GateId) -> &S {
        &self.ops[g.index()]
    }

    /// The wires gate `g` reads, in port order.
    #[must_use]
    pub fn fanins(&self, g: GateId) -> &[WireId] {
        let i = g.index();
        &self.fanins[self.fanin_start[i] as usize..self.fanin_start[i + 1] as usize]
    }

    /// The wire driven by gate `g`.
    #[must_use]
    pub fn gate_wire(&self, g: GateId) -> WireId {
        WireId(self.n_inputs + g.0)
    }

    /// The gate driving wire `w`, or `None` for an input wire.
    #[must_use]
    pub fn driver(&self, w: WireId) -> Option<GateId> {
        w.0.checked_sub(self.n_inputs).map(GateId)
    }

    /// Every gate with its type and fan-ins, in topological order.
    pub fn gates(&self) -> impl ExactSizeIterator<Item = (GateId, &S, &[WireId])> + '_ {
        (0..self.ops.len()).map(move |i| {
            let g = GateId(u32::try_from(i).unwrap_or(u32::MAX));
            (g, &self.ops[i], self.fanins(g))
        })
    }

    /// How many gates and outputs read each wire.
    #[must_use]
    pub fn fanout_counts(&self) -> Vec<u32> {
        let mut n = vec![0u32; self.n_wires()];
        for w in self.fanins.iter().chain(&self.outputs) {
            n[w.index()] += 1;
        }
        n
    }

    /// Counts gates by name (`and` -> 12, `lut6` -> 40, ...), sorted by name.
    #[must_use]
    pub fn gate_histogram(&self) -> Vec<(String, usize)> {
        let mut m = std::collections::BTreeMap::new();
        for op in &self.ops {
            *m.entry(op.name()).or_insert(0) += 1;
        }
        m.into_iter().collect()
    }
}
