//! `CircuitBuilder`: the lax, mutable side of a circuit; `finish` validates once.

use super::{Circuit, Signature, WireId};
use crate::error::{ArityMismatch, InvalidCircuit};

/// Builds a [`Circuit`] gate by gate. Nothing is checked until [`finish`](Self::finish).
#[derive(Clone, Debug)]
pub struct CircuitBuilder<S> {
    n_params: u32,
    n_inputs: u32,
    ops: Vec<S>,
    fanin_start: Vec<u32>,
    fanins: Vec<WireId>,
}

impl<S: Signature> CircuitBuilder<S> {
    /// A builder with `n_params` parameter inputs followed by `n_args` argument inputs.
    ///
    /// # Panics
    /// If the input count does not fit in `u32`.
    #[must_use]
    pub fn new(n_params: usize, n_args: usize) -> Self {
        let n_params = u32::try_from(n_params).expect("too many parameters");
        let n_inputs =
            u32::try_from(n_args).ok().and_then(|a| a.checked_add(n_params)).expect("too many inputs");
        Self { n_params, n_inputs, ops: Vec::new(), fanin_start: vec![0], fanins: Vec::new() }
    }

    /// Parameter input `i`.
    #[must_use]
    pub fn param(&self, i: usize) -> WireId {
        debug_assert!(i < self.n_params as usize);
        WireId(i as u32)
    }

    /// Argument input `i` (counted after the parameters).
    #[must_use]
    pub fn arg(&self, i: usize) -> WireId {
        debug_assert!(i < (self.n_inputs - self.n_params) as usize);
        WireId(self.n_params + i as u32)
    }

    /// All parameter inputs.
    #[must_use]
    pub fn params(&self) -> Vec<WireId> {
        (0..self.n_params).map(WireId).collect()
    }

    /// All argument inputs.
    #[must_use]
    pub fn args(&self) -> Vec<WireId> {
        (self.n_params..self.n_inputs).map(WireId).collect()
    }

    /// Number of gates added so far.
    #[must_use]
    pub fn n_gates(&self) -> usize {
        self.ops.len()
    }

    /// Adds a gate reading `fanins` and returns the wire it drives.
    pub fn gate(&mut self, op: S, fanins: &[WireId]) -> WireId {
        let w = WireId(self.n_inputs + self.ops.len() as u32);
        self.ops.push(op);
        self.fanins.extend_from_slice(fanins);
        self.fanin_start.push(self.fanins.len() as u32);
        w
    }

    /// Inlines a copy of `c` whose inputs are the given wires; returns its output wires.
    ///
    /// # Errors
    /// [`ArityMismatch`] if `inputs` does not have one wire per input of `c`.
    pub fn instantiate(&mut self, c: &Circuit<S>, inputs: &[WireId]) -> Result<Vec<WireId>, ArityMismatch> {
        if inputs.len() != c.n_inputs() {
            return Err(ArityMismatch { left: inputs.len(), right: c.n_inputs() });
        }
        let mut map: Vec<WireId> = Vec::with_capacity(c.n_wires());
        map.extend_from_slice(inputs);
        let mut buf = Vec::new();
        for (_, op, fanins) in c.gates() {
            buf.clear();
            buf.extend(fanins.iter().map(|w| map[w.index()]));
            map.push(self.gate(op.clone(), &buf));
        }
        Ok(c.outputs().iter().map(|w| map[w.index()]).collect())
    }

    /// Validates and freezes the circuit with the given outputs.
    ///
    /// # Errors
    /// [`InvalidCircuit`] if a gate has the wrong number of fan-ins, reads a wire that is
    /// not defined before it, or an output names an undefined wire.
    pub fn finish(self, outputs: Vec<WireId>) -> Result<Circuit<S>, InvalidCircuit> {
        let n_wires = self.n_inputs as usize + self.ops.len();
        if u32::try_from(n_wires).is_err() {
            return Err(InvalidCircuit::TooLarge { wires: n_wires });
        }
        for (g, op) in self.ops.iter().enumerate() {
            let fanins = &self.fanins[self.fanin_start[g] as usize..self.fanin_start[g + 1] as usize];
            if fanins.len() != op.arity() {
                return Err(InvalidCircuit::WrongArity {
                    gate: g,
                    op: op.name(),
                    expected: op.arity(),
                    found: fanins.len(),
                });
            }
            let own = self.n_inputs as usize + g;
            if let Some(w) = fanins.iter().find(|w| w.index() >= own) {
                return Err(InvalidCircuit::NotTopological { gate: g, wire: w.0 });
            }
        }
        if let Some((i, w)) = outputs.iter().enumerate().find(|(_, w)| w.index() >= n_wires) {
            return Err(InvalidCircuit::UndefinedOutput { output: i, wire: w.0 });
        }
        Ok(Circuit {
            n_params: self.n_params,
            n_inputs: self.n_inputs,
            ops: self.ops,
            fanin_start: self.fanin_start,
            fanins: self.fanins,
            outputs,
        })
    }
}
