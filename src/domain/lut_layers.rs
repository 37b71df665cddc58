//! The layered structure of a LUT network as data: per layer, the LUTs' fan-in and the
//! sources each LUT reads in the layer before (the first layer reads the input bits).
//! [`Network`](crate::learn::Network) builds its circuit from it, and the relaxed network
//! ([`RelaxedNet`](crate::learn::relaxed::RelaxedNet)) and the fused kernel
//! ([`LutNetwork::from_layers`](super::LutNetwork::from_layers)) read it directly,
//! rather than recovering layers from the flat circuit.

use super::{Bool, BoolBuild};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::lanes::{BitMatrix, EvalParams};
use serde::{Deserialize, Serialize};

/// One layer of LUTs, all with the same fan-in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LutLayer {
    /// Inputs per LUT.
    pub k: usize,
    /// `width * k` source indices into the previous layer (or the inputs), LUT by LUT:
    /// address bit `i` of LUT `j` reads `sources[j * k + i]`.
    pub sources: Vec<u32>,
}

impl LutLayer {
    /// Number of LUTs.
    #[must_use]
    pub fn width(&self) -> usize {
        self.sources.len().checked_div(self.k).unwrap_or(0)
    }
}

/// A LUT network's layers over `n_inputs` input bits; the last layer's LUTs are the
/// outputs. Parameters are the LUT tables, LUT by LUT in layer order, `2^k` entries each.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LutLayers {
    /// Input bits the first layer reads.
    pub n_inputs: usize,
    /// The layers, from the one reading the inputs.
    pub layers: Vec<LutLayer>,
}

impl LutLayers {
    /// Number of parameters (table entries of every LUT).
    #[must_use]
    pub fn n_params(&self) -> usize {
        self.layers.iter().map(|l| l.width() << l.k).sum()
    }

    /// Number of LUTs.
    #[must_use]
    pub fn n_luts(&self) -> usize {
        self.layers.iter().map(LutLayer::width).sum()
    }

    /// The first parameter of each LUT's table, LUTs in layer order.
    #[must_use]
    pub fn table_starts(&self) -> Vec<usize> {
        let mut starts = Vec::with_capacity(self.n_luts());
        let mut next = 0;
        for l in &self.layers {
            for _ in 0..l.width() {
                starts.push(next);
                next += 1 << l.k;
            }
        }
        starts
    }

    /// Every layer's outputs with tables `params` on `inputs` (one row per input bit): one
    /// matrix per layer, one row per LUT, evaluated by the fused kernel
    /// ([`LutNetwork`](super::LutNetwork)) layer by layer. Lanes past the last example
    /// are unspecified.
    ///
    /// # Panics
    /// If `params` or `inputs` do not fit the layers.
    #[must_use]
    pub fn layer_values(&self, params: &[bool], inputs: &BitMatrix) -> Vec<BitMatrix> {
        assert_eq!(params.len(), self.n_params(), "one parameter per table entry");
        let mut vals: Vec<BitMatrix> = Vec::with_capacity(self.layers.len());
        let (mut start, mut n_in) = (0, self.n_inputs);
        for layer in &self.layers {
            let one = LutLayers { n_inputs: n_in, layers: vec![layer.clone()] };
            let n = one.n_params();
            let x = vals.last().unwrap_or(inputs);
            let v = super::LutNetwork::from_layers(&one).eval(
                &params[start..start + n],
                x,
                &EvalParams::default(),
            );
            vals.push(v);
            start += n;
            n_in = layer.width();
        }
        vals
    }

    /// The network as a circuit `P x A -> B`: one LUT gate per LUT, in layer order, its
    /// table the next `2^k` parameters and its address the sources.
    ///
    /// # Panics
    /// If a source is not below the width of the layer it reads (a caller bug:
    /// [`Network::build`](crate::learn::Network::build) checks learned wiring).
    #[must_use]
    pub fn circuit(&self) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(self.n_params(), self.n_inputs);
        let mut prev = b.args();
        let mut next_param = 0;
        for layer in &self.layers {
            let mut cur = Vec::with_capacity(layer.width());
            for ins in layer.sources.chunks_exact(layer.k.max(1)) {
                let size = 1usize << ins.len();
                let t: Vec<WireId> = (next_param..next_param + size).map(|i| b.param(i)).collect();
                next_param += size;
                let addr: Vec<WireId> = ins.iter().map(|&i| prev[i as usize]).collect();
                cur.push(b.lut(&t, &addr));
            }
            prev = cur;
        }
        b.finish(prev).expect("a layered LUT network is a valid circuit")
    }
}
