//! Fused kernels for LUT networks: circuits whose every gate is a `k`-LUT with a table of
//! parameters (each parameter in one table only) and address bits from the data or from
//! earlier LUTs, the shape `lut:K:WxD` models build.
//!
//! In a training step the tables are constants, so they are not broadcast over the lanes
//! as parameter rows: the forward pass reads each entry as an all-zero or all-one word,
//! and the reverse pass never writes the parameter rows of `R[f]` but counts their ones
//! for several adjoint patterns at once (all the vote optimiser reads from them), sharing
//! one forward pass, one address decoder and one set of address sensitivities per LUT
//! among the patterns. Only the tile in flight holds activations. Tiles run on the rayon
//! pool and their counts are summed as integers, so the result does not depend on the
//! thread count.
//!
//! Two ways to carry an adjoint back through a LUT read by several others
//! ([`Propagation`]): the exact Boolean reverse derivative XORs the fan-outs' adjoints (two
//! fan-outs that both want a change cancel), while the vote counts can instead add them
//! as integers (bit-sliced saturating counters), so that a table entry's count is the
//! number of (example, path to an output) pairs on which flipping it would flip an
//! output with that adjoint: for two layers, exactly how many wrong or right outputs a
//! flip of a first-layer entry changes.

use super::Bool;
use super::boolean::{decode_words, fold_mux_tree};
use super::lut_layers::{LutLayer, LutLayers};
use crate::circuit::Circuit;
use crate::lanes::{BitMatrix, EvalParams, MAX_TILE_WORDS, TILE_BYTES, run_tiles};
use rayon::prelude::*;

/// How adjoints from several readers of one LUT combine (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    /// XOR over the fan-outs: the Boolean reverse derivative `R[f]`.
    Xor,
    /// Integer sum over the fan-outs (paths), saturating at [`SUM_MAX`].
    Sum,
}

/// Bits of the bit-sliced adjoint counters of [`Propagation::Sum`].
const SUM_BITS: usize = 4;

/// Largest per-example adjoint [`Propagation::Sum`] counts (larger sums saturate).
pub const SUM_MAX: u64 = (1 << SUM_BITS) - 1;

/// A LUT network prepared for the fused kernels (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LutNetwork {
    n_params: usize,
    n_args: usize,
    /// Address bits of each LUT.
    ks: Vec<u8>,
    /// Per LUT: start of its entries in `table`, of its address rows in `addr`.
    table_start: Vec<u32>,
    addr_start: Vec<u32>,
    /// Parameter index of each table entry.
    table: Vec<u32>,
    /// Tile row of each address bit: `0..n_args` the data, `n_args + g` LUT `g`'s output.
    addr: Vec<u32>,
    /// LUT driving each circuit output.
    outputs: Vec<u32>,
    /// Whether another LUT reads each LUT's output (the reverse pass needs the forward
    /// values of those only: a last layer is never evaluated there).
    read: Vec<bool>,
}

/// Per-thread buffers of one tile.
#[derive(Default)]
struct TileBuf {
    /// Data rows, then one row per LUT output.
    vals: Vec<u64>,
    /// Per LUT, one adjoint row per pattern (per pattern and counter bit for
    /// [`Propagation::Sum`]).
    adjs: Vec<u64>,
    /// Address decoder of the LUT in hand: one row per table entry.
    decoder: Vec<u64>,
    /// One row: the address sensitivity in hand.
    sensitivity: Vec<u64>,
    /// The mux tree of the LUT in hand.
    scratch: Vec<u64>,
    /// Per adjoint row of the LUT in hand: whether it has a one.
    live: Vec<bool>,
}

impl LutNetwork {
    /// Recognises `c` as a LUT network: every gate a LUT whose table entries are
    /// parameters used nowhere else and whose address bits are data inputs or gates,
    /// every output a gate. `None` for any other circuit.
    #[must_use]
    pub fn new(c: &Circuit<Bool>) -> Option<Self> {
        let (n_params, n_inputs) = (c.n_params(), c.n_inputs());
        let mut used = vec![false; n_params];
        let mut net = Self {
            n_params,
            n_args: c.n_args(),
            ks: Vec::with_capacity(c.n_gates()),
            table_start: vec![0],
            addr_start: vec![0],
            table: Vec::new(),
            addr: Vec::new(),
            outputs: Vec::new(),
            read: vec![false; c.n_gates()],
        };
        for (_, op, fanins) in c.gates() {
            let Bool::Lut(k) = *op else { return None };
            let (entries, address) = fanins.split_at(1 << k);
            for w in entries {
                let p = w.index();
                if p >= n_params || used[p] {
                    return None;
                }
                used[p] = true;
                net.table.push(p as u32);
            }
            for w in address {
                net.addr.push(w.index().checked_sub(n_params)? as u32);
                if let Some(g) = w.index().checked_sub(n_inputs) {
                    net.read[g] = true;
                }
            }
            net.ks.push(k);
            net.table_start.push(net.table.len() as u32);
            net.addr_start.push(net.addr.len() as u32);
        }
        for w in c.outputs() {
            net.outputs.push(w.index().checked_sub(n_inputs)? as u32);
        }
        Some(net)
    }

    /// The kernel of a layered network, straight from its layers (LUT `j` of layer `l`
    /// is gate `j` after the LUTs of the layers before; the last layer's LUTs are the
    /// outputs). Equal to [`LutNetwork::new`] of [`LutLayers::circuit`].
    #[must_use]
    pub fn from_layers(layers: &LutLayers) -> Self {
        let n_luts = layers.n_luts();
        let mut net = Self {
            n_params: layers.n_params(),
            n_args: layers.n_inputs,
            ks: Vec::with_capacity(n_luts),
            table_start: vec![0],
            addr_start: vec![0],
            table: Vec::with_capacity(layers.n_params()),
            addr: Vec::new(),
            outputs: Vec::new(),
            read: vec![false; n_luts],
        };
        // Tile row of the previous layer's first node: the inputs, then each layer's LUTs.
        let (mut prev_row, mut first_gate) = (0usize, 0usize);
        for (l, layer) in layers.layers.iter().enumerate() {
            for ins in layer.sources.chunks_exact(layer.k.max(1)) {
                let start = net.table.len() as u32;
                net.table.extend(start..start + (1u32 << ins.len()));
                for &s in ins {
                    let row = prev_row + s as usize;
                    net.addr.push(row as u32);
                    if l > 0 {
                        net.read[row - layers.n_inputs] = true;
                    }
                }
                net.ks.push(ins.len() as u8);
                net.table_start.push(net.table.len() as u32);
                net.addr_start.push(net.addr.len() as u32);
            }
            prev_row = layers.n_inputs + first_gate;
            first_gate += layer.width();
        }
        let last = layers.layers.last().map_or(0, LutLayer::width);
        net.outputs = ((n_luts - last) as u32..n_luts as u32).collect();
        net
    }

    /// Number of LUTs.
    #[must_use]
    pub fn n_luts(&self) -> usize {
        self.ks.len()
    }

    /// Tile width for `words` words of data with `rows` rows per tile: wide enough for
    /// whole vectors, narrow enough to stay in cache and to give every thread a tile.
    fn tile_words(&self, params: &EvalParams, words: usize, rows: usize) -> usize {
        let mut tw = if params.tile_words > 0 {
            params.tile_words
        } else {
            (TILE_BYTES / 8 / rows.max(1)).clamp(1, MAX_TILE_WORDS)
        };
        if params.parallel && params.tile_words == 0 {
            tw = tw.min(words.div_ceil(rayon::current_num_threads()).max(8));
        }
        tw.min(words.max(1))
    }

    /// The circuit's outputs with parameter values `params` on every example of `inputs`
    /// (one row per data input, no parameter rows).
    ///
    /// # Panics
    /// If the sizes do not match the network.
    #[must_use]
    pub fn eval(&self, params: &[bool], inputs: &BitMatrix, ep: &EvalParams) -> BitMatrix {
        assert_eq!(params.len(), self.n_params, "one value per parameter");
        assert_eq!(inputs.rows(), self.n_args, "one row per data input");
        let tw = self.tile_words(ep, inputs.words(), self.n_args + self.n_luts());
        run_tiles(self.outputs.len(), inputs.examples(), tw, ep.parallel, |buf: &mut TileBuf, w0, w1| {
            crate::lanes::best_simd(
                #[inline(always)]
                || self.forward_tile(params, inputs, w0, w1, tw, true, buf),
            );
            let mut out = Vec::with_capacity(self.outputs.len() * tw);
            for &g in &self.outputs {
                let r = self.n_args + g as usize;
                out.extend_from_slice(&buf.vals[r * tw..(r + 1) * tw]);
            }
            out
        })
    }

    /// For each adjoint pattern `dys[q]` (one row per output) and each parameter `i`: the
    /// number of examples on which row `i` of `R[f]((params, inputs), dys[q])` is 1.
    /// Returned parameter-major: `counts[i * dys.len() + q]`.
    ///
    /// # Panics
    /// If the sizes do not match the network.
    #[must_use]
    pub fn param_adjoint_counts(
        &self,
        params: &[bool],
        inputs: &BitMatrix,
        dys: &[BitMatrix],
        ep: &EvalParams,
    ) -> Vec<u64> {
        self.param_counts(params, inputs, dys, Propagation::Xor, ep)
    }

    /// Like [`param_adjoint_counts`](Self::param_adjoint_counts) with the adjoints
    /// combined over fan-outs as `how` says: for [`Propagation::Sum`],
    /// `counts[i * dys.len() + q]` is the sum over examples of the (saturated) number of paths from parameter
    /// `i`'s LUT to an output with adjoint 1 in `dys[q]` along which every LUT is sensitive,
    /// on the examples that address entry `i`.
    ///
    /// # Panics
    /// If the sizes do not match the network.
    #[must_use]
    pub fn param_counts(
        &self,
        params: &[bool],
        inputs: &BitMatrix,
        dys: &[BitMatrix],
        how: Propagation,
        ep: &EvalParams,
    ) -> Vec<u64> {
        assert_eq!(params.len(), self.n_params, "one value per parameter");
        assert_eq!(inputs.rows(), self.n_args, "one row per data input");
        for dy in dys {
            assert_eq!(dy.rows(), self.outputs.len(), "one adjoint row per output");
            assert_eq!(dy.examples(), inputs.examples(), "adjoints cover the same examples");
        }
        let np = dys.len();
        let bits = match how {
            Propagation::Xor => 1,
            Propagation::Sum => SUM_BITS,
        };
        let words = inputs.words();
        let tw = self.tile_words(ep, words, self.n_args + self.n_luts() * (1 + np * bits));
        let n_tiles = words.div_ceil(tw);
        let tile = |(buf, counts): &mut (TileBuf, Vec<u32>), t: usize| {
            let (w0, w1) = (t * tw, ((t + 1) * tw).min(words));
            crate::lanes::best_simd(
                #[inline(always)]
                || {
                    self.forward_tile(params, inputs, w0, w1, tw, false, buf);
                    match how {
                        Propagation::Xor => self.reverse_tile::<1>(params, dys, w0, w1, tw, buf, counts),
                        Propagation::Sum => {
                            self.reverse_tile::<SUM_BITS>(params, dys, w0, w1, tw, buf, counts);
                        }
                    }
                },
            );
        };
        let zero = || (TileBuf::default(), vec![0u32; self.n_params * np]);
        let partials: Vec<Vec<u32>> = if ep.parallel && n_tiles > 1 {
            (0..n_tiles)
                .into_par_iter()
                .fold(zero, |mut acc, t| {
                    tile(&mut acc, t);
                    acc
                })
                .map(|(_, counts)| counts)
                .collect()
        } else {
            let mut acc = zero();
            (0..n_tiles).for_each(|t| tile(&mut acc, t));
            vec![acc.1]
        };
        let mut total = vec![0u64; self.n_params * np];
        for part in &partials {
            for (t, &c) in total.iter_mut().zip(part) {
                *t += u64::from(c);
            }
        }
        total
    }

    /// Loads the data of words `w0..w1` and runs the LUTs forward (`tw` words per row;
    /// words past `w1 - w0` are zero in the data rows): all of them, or with `all` false
    /// only those another LUT reads.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn forward_tile(
        &self,
        params: &[bool],
        inputs: &BitMatrix,
        w0: usize,
        w1: usize,
        tw: usize,
        all: bool,
        buf: &mut TileBuf,
    ) {
        let n = w1 - w0;
        buf.vals.resize((self.n_args + self.n_luts()) * tw, 0);
        for a in 0..self.n_args {
            let row = &mut buf.vals[a * tw..(a + 1) * tw];
            row[..n].copy_from_slice(&inputs.row(a)[w0..w1]);
            row[n..].fill(0);
        }
        let base = buf.vals.as_mut_ptr();
        for g in 0..self.n_luts() {
            if !all && !self.read[g] {
                continue;
            }
            let k = self.ks[g];
            let entries = &self.table[self.table_start[g] as usize..self.table_start[g + 1] as usize];
            let address = &self.addr[self.addr_start[g] as usize..self.addr_start[g + 1] as usize];
            // SAFETY: rows are disjoint `tw`-word slices of `vals`; a LUT reads only data
            // rows and earlier LUTs' rows, never its own, which it writes.
            let out = unsafe { std::slice::from_raw_parts_mut(base.add((self.n_args + g) * tw), tw) };
            let rows = |i: usize| unsafe {
                std::slice::from_raw_parts(base.add(address[i] as usize * tw).cast_const(), tw)
            };
            constant_lut(usize::from(k), |s| params[entries[s] as usize], &rows, tw, out, &mut buf.scratch);
        }
    }

    /// The reverse sweep over a tile whose forward values are in `buf.vals`: adds each
    /// table entry's adjoint popcounts into `counts`. `BITS` is 1 for XOR propagation
    /// (one adjoint row per pattern) or [`SUM_BITS`] for sums (bit-sliced counters, least
    /// significant row first).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn reverse_tile<const BITS: usize>(
        &self,
        params: &[bool],
        dys: &[BitMatrix],
        w0: usize,
        w1: usize,
        tw: usize,
        buf: &mut TileBuf,
        counts: &mut [u32],
    ) {
        let (n, np) = (w1 - w0, dys.len());
        let plane = BITS * tw;
        let stride = np * plane;
        buf.adjs.clear();
        buf.adjs.resize(self.n_luts() * stride, 0);
        for (j, &g) in self.outputs.iter().enumerate() {
            for (q, dy) in dys.iter().enumerate() {
                let a = g as usize * stride + q * plane;
                let d = &dy.row(j)[w0..w1];
                if BITS == 1 {
                    for (x, d) in buf.adjs[a..a + n].iter_mut().zip(d) {
                        *x ^= d;
                    }
                } else {
                    for (w, &d) in d.iter().enumerate() {
                        let mut one = [0u64; BITS];
                        one[0] = d;
                        add_sliced::<BITS>(&mut buf.adjs[a..a + plane], w, tw, &one);
                    }
                }
            }
        }
        let vals = &buf.vals;
        let row = |r: usize| &vals[r * tw..(r + 1) * tw];
        for g in (0..self.n_luts()).rev() {
            let (earlier, rest) = buf.adjs.split_at_mut(g * stride);
            let dy = &rest[..stride];
            if dy.iter().all(|&w| w == 0) {
                continue;
            }
            let k = usize::from(self.ks[g]);
            let entries = &self.table[self.table_start[g] as usize..self.table_start[g + 1] as usize];
            let address = &self.addr[self.addr_start[g] as usize..self.addr_start[g + 1] as usize];
            decode_words(k, &|i| row(address[i] as usize), None, tw, &mut buf.decoder);
            // Counter rows that are all zero (high bits, mostly) are skipped.
            buf.live.clear();
            buf.live.extend(
                (0..np * BITS).map(|r| BITS == 1 || dy[r * tw..(r + 1) * tw].iter().any(|&w| w != 0)),
            );
            for (s, &p) in entries.iter().enumerate() {
                let m = &buf.decoder[s * tw..(s + 1) * tw];
                for q in 0..np {
                    let mut total = 0u64;
                    for b in 0..BITS {
                        let r = q * BITS + b;
                        if !buf.live[r] {
                            continue;
                        }
                        let d = &dy[r * tw..(r + 1) * tw];
                        let ones: u64 = d.iter().zip(m).map(|(a, b)| u64::from((a & b).count_ones())).sum();
                        total += ones << b;
                    }
                    counts[p as usize * np + q] += total as u32;
                }
            }
            // Address bit `i` from an earlier LUT receives `dy & (lut(x) ^ lut(x ^ e_i))`,
            // the LUT of the table `t(s) ^ t(s ^ e_i)` at `x`.
            for (i, &src) in address.iter().enumerate() {
                let Some(h) = (src as usize).checked_sub(self.n_args) else { continue };
                let bit = 1 << i;
                let t = |s: usize| params[entries[s] as usize];
                buf.sensitivity.resize(tw, 0);
                constant_lut(
                    k,
                    |s| t(s) != t(s ^ bit),
                    &|j| row(address[j] as usize),
                    tw,
                    &mut buf.sensitivity,
                    &mut buf.scratch,
                );
                let target = &mut earlier[h * stride..(h + 1) * stride];
                for q in 0..np {
                    let (t, d) = (&mut target[q * plane..(q + 1) * plane], &dy[q * plane..(q + 1) * plane]);
                    if BITS == 1 {
                        for ((t, d), s) in t.iter_mut().zip(d).zip(&buf.sensitivity) {
                            *t ^= d & s;
                        }
                    } else {
                        for (w, &s) in buf.sensitivity.iter().enumerate() {
                            let src: [u64; BITS] = std::array::from_fn(|b| d[b * tw + w] & s);
                            add_sliced::<BITS>(t, w, tw, &src);
                        }
                    }
                }
            }
        }
    }
}

/// Adds the bit-sliced numbers `src` (bit `b` in `src[b]`) into word `w` of the counter
/// rows `dst` (bit `b` in row `b`, rows `tw` words apart), saturating at `2^BITS - 1`.
#[inline(always)]
fn add_sliced<const BITS: usize>(dst: &mut [u64], w: usize, tw: usize, src: &[u64; BITS]) {
    let mut carry = 0u64;
    for (b, &a) in src.iter().enumerate() {
        let c = dst[b * tw + w];
        dst[b * tw + w] = c ^ a ^ carry;
        carry = (c & a) | (carry & (c ^ a));
    }
    for b in 0..BITS {
        dst[b * tw + w] |= carry;
    }
}

/// A LUT with a constant table `table(s)` at the address `address(0..k)` (LSB first):
/// level 0 of the mux tree takes the entries as scalar masks (`a ^ (x0 & (a ^ b))` with
/// `a`, `b` all-zero or all-one), the other levels are [`fold_mux_tree`].
#[inline(always)]
pub(crate) fn constant_lut<'a>(
    k: usize,
    table: impl Fn(usize) -> bool,
    address: &impl Fn(usize) -> &'a [u64],
    tw: usize,
    out: &mut [u64],
    scratch: &mut Vec<u64>,
) {
    let mask = |b: bool| 0u64.wrapping_sub(u64::from(b));
    if k == 0 {
        out.fill(mask(table(0)));
        return;
    }
    let half = 1 << (k - 1);
    scratch.resize(half * tw, 0);
    let x0 = address(0);
    for j in 0..half {
        let a = mask(table(2 * j));
        let d = a ^ mask(table(2 * j + 1));
        for (dst, x) in scratch[j * tw..(j + 1) * tw].iter_mut().zip(x0) {
            *dst = a ^ (x & d);
        }
    }
    fold_mux_tree(k, address, tw, scratch);
    out.copy_from_slice(&scratch[..tw]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::random_bits;
    use crate::circuit::CircuitBuilder;
    use crate::domain::BoolBuild;
    use crate::lanes::{Program, ReverseProgram};

    /// Two layers of 3-LUTs over 7 inputs, one of them read twice, outputs from both
    /// layers (a fan-out and an output that also feeds a LUT).
    fn two_layer() -> Circuit<Bool> {
        let luts = [[0, 1, 2], [3, 4, 5], [6, 0, 3], [1, 5, 6]];
        let n_params = 8 * (luts.len() + 3);
        let mut b = CircuitBuilder::<Bool>::new(n_params, 7);
        let x = b.args();
        let mut next = 0;
        let mut table = |b: &mut CircuitBuilder<Bool>| {
            let t: Vec<_> = (next..next + 8).map(|i| b.param(i)).collect();
            next += 8;
            t
        };
        let first: Vec<_> = luts
            .iter()
            .map(|ins| {
                let t = table(&mut b);
                b.lut(&t, &ins.map(|i| x[i]))
            })
            .collect();
        let second: Vec<_> = [[0, 1, 2], [1, 2, 3], [3, 0, 1]]
            .iter()
            .map(|ins| {
                let t = table(&mut b);
                b.lut(&t, &ins.map(|i| first[i]))
            })
            .collect();
        b.finish(vec![second[0], second[1], second[2], first[3]]).unwrap()
    }

    #[test]
    fn counts_match_the_reverse_program() {
        let c = two_layer();
        let net = LutNetwork::new(&c).expect("a LUT network");
        let examples = 1000;
        let x = random_bits(7, examples, 1);
        let dys: Vec<BitMatrix> = (0..3).map(|s| random_bits(4, examples, 10 + s)).collect();
        let grad = ReverseProgram::params_only(&c);
        for seed in 0..4 {
            let bits = random_bits(c.n_params(), 1, 20 + seed);
            let params: Vec<bool> = (0..c.n_params()).map(|i| bits.get(i, 0)).collect();
            let px = BitMatrix::broadcast(&params, examples).vstack(&x);
            let want_out = Program::new(&c).eval(&px, &EvalParams::default());
            for ep in [EvalParams::default(), EvalParams { tile_words: 3, parallel: false }] {
                assert_eq!(net.eval(&params, &x, &ep), want_out);
                let counts = net.param_adjoint_counts(&params, &x, &dys, &ep);
                for (q, dy) in dys.iter().enumerate() {
                    let d = grad.eval(&px, dy, &EvalParams::default());
                    for i in 0..c.n_params() {
                        assert_eq!(counts[i * dys.len() + q], d.count_ones(i), "param {i} pattern {q}");
                    }
                }
            }
        }
    }

    /// `Propagation::Sum` by a scalar sweep per example: each LUT's adjoint is the
    /// number of sensitive paths to outputs whose adjoint is 1.
    fn sum_counts_reference(net: &LutNetwork, params: &[bool], x: &BitMatrix, dys: &[BitMatrix]) -> Vec<u64> {
        let np = dys.len();
        let mut counts = vec![0u64; net.n_params * np];
        let entries = |g: usize| &net.table[net.table_start[g] as usize..net.table_start[g + 1] as usize];
        let address = |g: usize| &net.addr[net.addr_start[g] as usize..net.addr_start[g + 1] as usize];
        for e in 0..x.examples() {
            let mut vals = x.example(e);
            let mut index = Vec::new();
            for g in 0..net.n_luts() {
                let s: usize =
                    address(g).iter().enumerate().map(|(i, &r)| usize::from(vals[r as usize]) << i).sum();
                index.push(s);
                vals.push(params[entries(g)[s] as usize]);
            }
            for (q, dy) in dys.iter().enumerate() {
                let mut adj = vec![0u64; net.n_luts()];
                for (j, &g) in net.outputs.iter().enumerate() {
                    adj[g as usize] += u64::from(dy.get(j, e));
                }
                for g in (0..net.n_luts()).rev() {
                    let s = index[g];
                    counts[entries(g)[s] as usize * np + q] += adj[g].min(SUM_MAX);
                    for (i, &src) in address(g).iter().enumerate() {
                        let t = |s: usize| params[entries(g)[s] as usize];
                        if let Some(h) = (src as usize).checked_sub(net.n_args)
                            && t(s) != t(s ^ (1 << i))
                        {
                            adj[h] += adj[g];
                        }
                    }
                }
            }
        }
        counts
    }

    /// Two 3-LUTs read by forty 2-LUTs: paths enough to saturate the counters.
    fn wide_fanout() -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(2 * 8 + 40 * 4, 4);
        let x = b.args();
        let t: Vec<_> = (0..16).map(|i| b.param(i)).collect();
        let first = [b.lut(&t[..8], &[x[0], x[1], x[2]]), b.lut(&t[8..], &[x[1], x[2], x[3]])];
        let out = (0..40)
            .map(|j| {
                let t: Vec<_> = (16 + 4 * j..20 + 4 * j).map(|i| b.param(i)).collect();
                b.lut(&t, &[first[j % 2], first[1 - j % 2]])
            })
            .collect();
        b.finish(out).unwrap()
    }

    #[test]
    fn sum_counts_add_the_paths() {
        for c in [two_layer(), wide_fanout()] {
            let net = LutNetwork::new(&c).expect("a LUT network");
            let examples = 700;
            let x = random_bits(c.n_args(), examples, 3);
            let mut dys: Vec<BitMatrix> =
                (0..2).map(|s| random_bits(c.n_outputs(), examples, 30 + s)).collect();
            let ones = vec![vec![true; c.n_outputs()]; examples];
            dys.push(BitMatrix::from_examples(c.n_outputs(), &ones));
            for seed in 0..3 {
                let bits = random_bits(c.n_params(), 1, 40 + seed);
                let params: Vec<bool> = (0..c.n_params()).map(|i| bits.get(i, 0)).collect();
                let want = sum_counts_reference(&net, &params, &x, &dys);
                for ep in [EvalParams::default(), EvalParams { tile_words: 3, parallel: false }] {
                    assert_eq!(net.param_counts(&params, &x, &dys, Propagation::Sum, &ep), want);
                }
            }
        }
    }

    #[test]
    fn other_circuits_are_not_lut_networks() {
        let mut b = CircuitBuilder::<Bool>::new(4, 2);
        let x = b.args();
        let t: Vec<_> = (0..4).map(|i| b.param(i)).collect();
        let l = b.lut(&t, &x);
        let y = b.and(l, x[0]);
        assert!(LutNetwork::new(&b.finish(vec![y]).unwrap()).is_none());
        // A parameter shared by two tables.
        let mut b = CircuitBuilder::<Bool>::new(4, 2);
        let x = b.args();
        let t: Vec<_> = (0..4).map(|i| b.param(i)).collect();
        let l1 = b.lut(&t, &x);
        let l2 = b.lut(&t, &[x[1], x[0]]);
        assert!(LutNetwork::new(&b.finish(vec![l1, l2]).unwrap()).is_none());
    }
}
