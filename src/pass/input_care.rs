//! Don't-cares a LUT network's first layer gets from its encoder. The bits of one numeric
//! feature are thresholds of one value (`v > t`): a LUT reading two of them never sees
//! the higher threshold's bit on with the lower one's off (nor two bits of one threshold
//! apart), and never sees the bit of a constant feature on. Its table entries at those
//! addresses are never read for any input the encoder can produce, so
//! [`fill_input_dont_cares`] may set them freely: it picks, for each table of at most 4
//! inputs, the filling whose function has the smallest AIG in the rewriting table. The
//! network's outputs stay the same on every encoded input, training and test alike.
//!
//! [`fill_data_dont_cares`] goes further, on request (`train --care-set training`): in
//! every layer, the entries no training example addresses are free. The network's outputs
//! stay the same on every training example; elsewhere they may change, which the test
//! accuracy then measures. With a minimum (`--care-set training:F`) the entries fewer than
//! a fraction `F` of the training examples address are free too: an approximation, which
//! may change the answer on those few examples.

use super::rewrite::and_count4;
use crate::data::BitRule;
use crate::domain::LutLayers;
use crate::lanes::{BitMatrix, tail_mask};
use rayon::prelude::*;

/// What [`fill_input_dont_cares`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CareFill {
    /// LUTs with at least one address never produced by the encoder (first layer) or
    /// never reached by the data ([`fill_data_dont_cares`]).
    pub luts_with_dont_cares: usize,
    /// LUTs whose table changed (a cheaper function on the same care set).
    pub luts_changed: usize,
    /// Sum over the filled layers (tables of at most 4 inputs) of the table's AND count
    /// before and after.
    pub table_ands: (usize, usize),
}

/// Most don't-care entries of one table tried exhaustively (`2^n` fillings).
const MAX_FREE_ENTRIES: u32 = 12;

/// Sets the never-read entries of the first layer's tables (fan-in at most 4) in `params`
/// (the network's parameters, tables in layer order) to give each table the cheapest
/// function that agrees with it on every address the encoder can produce. `rules` are
/// the encoder's bits as `(feature, rule)` ([`Encoder::bit_rules`](crate::Encoder::bit_rules)).
/// Ties keep the most entries as they were, then the smallest table.
///
/// # Panics
/// If `params` or `rules` do not fit `layers`.
pub fn fill_input_dont_cares(
    layers: &LutLayers,
    params: &mut [bool],
    rules: &[(usize, BitRule)],
) -> CareFill {
    assert_eq!(params.len(), layers.n_params(), "one parameter per table entry");
    assert_eq!(rules.len(), layers.n_inputs, "one rule per input bit");
    let mut fill = CareFill::default();
    let Some(first) = layers.layers.first().filter(|l| (1..=4).contains(&l.k)) else {
        return fill;
    };
    let k = first.k;
    for (lut, sources) in first.sources.chunks_exact(k).enumerate() {
        let table = &mut params[lut << k..(lut + 1) << k];
        // Entries no encoded input reads (`k <= 4`: at most 16 entries).
        fill_table(table, k, !care_mask(sources, rules), &mut fill);
    }
    fill
}

/// Sets the entries of every table of fan-in at most 4 in `params` that fewer than
/// `min_examples` examples of `inputs` (one row per input bit of `layers`) address (the
/// layers evaluated by [`LutLayers::layer_values`] before any fill), as
/// [`fill_input_dont_cares`] does with the encoder's: each table becomes the cheapest
/// function that agrees with it on every other address. With `min_examples` 1 the
/// network's outputs are unchanged on every example of `inputs`.
///
/// # Panics
/// If `params` or `inputs` do not fit `layers`.
pub fn fill_data_dont_cares(
    layers: &LutLayers,
    params: &mut [bool],
    inputs: &BitMatrix,
    min_examples: u32,
) -> CareFill {
    assert_eq!(params.len(), layers.n_params(), "one parameter per table entry");
    assert_eq!(inputs.rows(), layers.n_inputs, "one row per input bit");
    let mut fill = CareFill::default();
    let tail = tail_mask(inputs.examples());
    let min = min_examples.max(1);
    let vals = layers.layer_values(params, inputs);
    let mut start = 0;
    for (l, layer) in layers.layers.iter().enumerate() {
        let (k, width) = (layer.k, layer.width());
        let tables = &mut params[start..start + (width << k)];
        start += width << k;
        if !(1..=4).contains(&k) {
            continue;
        }
        let below = if l == 0 { inputs } else { &vals[l - 1] };
        let reach: Vec<[u32; 16]> =
            layer.sources.par_chunks(k).map(|src| entry_reach(src, below, tail, min)).collect();
        for (table, reach) in tables.chunks_mut(1 << k).zip(&reach) {
            fill_table(table, k, rare_entries(&reach[..1 << k], min), &mut fill);
        }
    }
    fill
}

/// How many examples address each entry of a LUT reading the rows `src` of `below`
/// (`src.len() <= 4`; `tail`: the valid lanes of the last word), counted until `cap`.
fn entry_reach(src: &[u32], below: &BitMatrix, tail: u64, cap: u32) -> [u32; 16] {
    let (words, entries) = (below.words(), 1usize << src.len());
    let mut reach = [0u32; 16];
    for w in 0..words {
        if reach[..entries].iter().all(|&r| r >= cap) {
            break;
        }
        let valid = if w + 1 == words { tail } else { !0 };
        for (a, r) in reach[..entries].iter_mut().enumerate() {
            if *r >= cap {
                continue;
            }
            let hit = src.iter().enumerate().fold(valid, |m, (i, &s)| {
                let x = below.row(s as usize)[w];
                m & if a >> i & 1 == 1 { x } else { !x }
            });
            *r += hit.count_ones();
        }
    }
    reach
}

/// The entries (bit `a` for entry `a`) fewer than `min` examples reach, at most
/// [`MAX_FREE_ENTRIES`] of them: the least reached (the lower entry first among equals).
fn rare_entries(reach: &[u32], min: u32) -> u32 {
    let mut rare: Vec<usize> = (0..reach.len()).filter(|&a| reach[a] < min).collect();
    rare.sort_by_key(|&a| (reach[a], a));
    rare.iter().take(MAX_FREE_ENTRIES as usize).fold(0, |m, &a| m | 1 << a)
}

/// Fills the entries `free` (bit `a` for entry `a`) of one table of `k <= 4` inputs with
/// the cheapest choice (fewest ANDs in the rewriting table; ties keep the most entries,
/// then the smallest table), at most [`MAX_FREE_ENTRIES`] free entries, and counts it.
fn fill_table(table: &mut [bool], k: usize, free: u32, fill: &mut CareFill) {
    let old = pack(table);
    let free = free & ((1u32 << (1 << k)) - 1);
    let before = and_count4(widen(old, k));
    fill.table_ands.0 += before;
    if free == 0 || free.count_ones() > MAX_FREE_ENTRIES {
        fill.table_ands.1 += before;
        return;
    }
    fill.luts_with_dont_cares += 1;
    // Every non-empty subset of the free entries flipped, against the table as it is.
    let mut best = (before, 0u32, old);
    let mut flip = free;
    while flip != 0 {
        let t = old ^ flip;
        best = best.min((and_count4(widen(t, k)), flip.count_ones(), t));
        flip = (flip - 1) & free;
    }
    fill.table_ands.1 += best.0;
    if best.2 != old {
        fill.luts_changed += 1;
        for (i, e) in table.iter_mut().enumerate() {
            *e = best.2 >> i & 1 == 1;
        }
    }
}

/// The addresses (bit `a` of the mask) a LUT reading input bits `sources` can see.
fn care_mask(sources: &[u32], rules: &[(usize, BitRule)]) -> u32 {
    let k = sources.len();
    let rule = |i: usize| rules[sources[i] as usize];
    let mut care = 0u32;
    for a in 0..1u32 << k {
        let on = |i: usize| a >> i & 1 == 1;
        let possible = (0..k).all(|i| {
            let (fi, ri) = rule(i);
            if ri == BitRule::Never && on(i) {
                return false;
            }
            // Bit j's threshold at least bit i's on the same feature: j on forces i on.
            (0..k).all(|j| {
                let (fj, rj) = rule(j);
                let ordered =
                    fi == fj && matches!((ri.threshold(), rj.threshold()), (Some(ti), Some(tj)) if ti <= tj);
                !(ordered && on(j) && !on(i))
            })
        });
        care |= u32::from(possible) << a;
    }
    care
}

/// A table as a mask, entry `i` at bit `i`.
fn pack(table: &[bool]) -> u32 {
    table.iter().enumerate().fold(0, |m, (i, &b)| m | u32::from(b) << i)
}

/// A `k`-input table (bits `0..2^k`) as a 4-input one that ignores inputs `k..4`.
fn widen(t: u32, k: usize) -> u16 {
    let n = 1 << k;
    (0..16).fold(0u16, |w, i| w | (((t >> (i % n)) & 1) as u16) << i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LutLayer;

    fn above(f: usize, t: f64) -> (usize, BitRule) {
        (f, BitRule::Above(t))
    }

    #[test]
    fn thresholds_of_one_feature_exclude_the_inverted_addresses() {
        // Bits 0 < 1 thresholds of feature 0, bit 2 of feature 1, bit 3 a constant one.
        let rules = [above(0, 0.2), above(0, 0.6), above(1, 0.5), (2, BitRule::Never)];
        // Reading (bit 1, bit 0): address 1 is bit 1 on, bit 0 off: impossible.
        assert_eq!(care_mask(&[1, 0], &rules), 0b1101);
        // Reading bit 0 twice: only 00 and 11.
        assert_eq!(care_mask(&[0, 0], &rules), 0b1001);
        // Different features: everything.
        assert_eq!(care_mask(&[0, 2], &rules), 0b1111);
        // A constant bit: only addresses with it off.
        assert_eq!(care_mask(&[2, 3], &rules), 0b0011);
    }

    #[test]
    fn filling_keeps_every_encodable_address_and_never_costs_more() {
        let rules = [above(0, 0.2), above(0, 0.6), above(0, 0.9), above(1, 0.5), above(1, 0.7)];
        // Four 4-input LUTs: XOR of three thresholds of feature 0 and one of feature 1
        // (a window function), then tables drawn at random.
        let layers = LutLayers {
            n_inputs: 5,
            layers: vec![LutLayer { k: 4, sources: vec![0, 1, 2, 3, 4, 3, 0, 1, 2, 2, 1, 0, 0, 4, 3, 1] }],
        };
        let mut params: Vec<bool> = (0..16).map(|a: u32| a.count_ones() % 2 == 1).collect();
        let mut x = 0x9e37_79b9_u32;
        params.extend((0..48).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x & 1 == 1
        }));
        let old = params.clone();
        let fill = fill_input_dont_cares(&layers, &mut params, &rules);
        assert_eq!(fill.luts_with_dont_cares, 4);
        assert!(fill.table_ands.1 < fill.table_ands.0, "{fill:?}");
        assert!(fill.luts_changed > 0);
        // Every value of the two features, encoded: the same LUT outputs.
        for v0 in [0.0, 0.3, 0.7, 1.0] {
            for v1 in [0.0, 0.6, 0.8] {
                let bits: Vec<bool> = rules.iter().map(|&(f, r)| r.holds([v0, v1][f])).collect();
                for (lut, src) in layers.layers[0].sources.chunks(4).enumerate() {
                    let a =
                        src.iter().enumerate().fold(0, |a, (i, &s)| a | usize::from(bits[s as usize]) << i);
                    assert_eq!(params[lut * 16 + a], old[lut * 16 + a], "LUT {lut} at {v0}, {v1}");
                }
            }
        }
    }

    #[test]
    fn tables_without_dont_cares_and_wide_luts_are_left_alone() {
        let rules = [above(0, 0.2), above(1, 0.6), above(2, 0.5), above(3, 0.5), above(4, 0.1)];
        let layers = LutLayers { n_inputs: 5, layers: vec![LutLayer { k: 4, sources: vec![0, 1, 2, 3] }] };
        let mut params = vec![
            true, false, false, true, true, true, false, false, true, false, true, false, false, false, true,
            true,
        ];
        let old = params.clone();
        let fill = fill_input_dont_cares(&layers, &mut params, &rules);
        assert_eq!((fill.luts_with_dont_cares, fill.luts_changed), (0, 0));
        assert_eq!(params, old);
        let wide = LutLayers { n_inputs: 5, layers: vec![LutLayer { k: 5, sources: vec![0, 0, 0, 0, 0] }] };
        let mut params = vec![true; 32];
        assert_eq!(fill_input_dont_cares(&wide, &mut params, &rules), CareFill::default());
    }

    /// A small network over 8 input bits (two features thermometer-coded in 4 bits each,
    /// five values each, so many addresses never occur): two layers of 4-input LUTs and a
    /// 5-input output layer, its inputs, and random tables.
    fn small_network() -> (LutLayers, BitMatrix, Vec<bool>) {
        let mut x = 0x2545_f491_u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let examples: Vec<Vec<bool>> = (0..150)
            .map(|_| {
                let (a, b) = (next() % 5, next() % 5);
                (0..8).map(|i| if i < 4 { a > i } else { b > i - 4 }).collect()
            })
            .collect();
        let inputs = BitMatrix::from_examples(8, &examples);
        let mut sources = |n: usize, of: u32| (0..n).map(|_| next() % of).collect::<Vec<u32>>();
        let layers = LutLayers {
            n_inputs: 8,
            layers: vec![
                LutLayer { k: 4, sources: sources(6 * 4, 8) },
                LutLayer { k: 4, sources: sources(5 * 4, 6) },
                LutLayer { k: 5, sources: sources(2 * 5, 5) },
            ],
        };
        let params: Vec<bool> = (0..layers.n_params()).map(|_| next() & 1 == 1).collect();
        (layers, inputs, params)
    }

    /// Data don't-cares in every layer: 150 examples of [`small_network`] (the 5-input
    /// output layer is left alone: filled only up to 4 inputs, but evaluated). The filled
    /// network answers exactly as before on every example, and costs no more.
    #[test]
    fn data_fills_keep_every_example_and_never_cost_more() {
        use crate::domain::LutNetwork;
        use crate::lanes::EvalParams;
        let (layers, inputs, mut params) = small_network();
        let kernel = LutNetwork::from_layers(&layers);
        let before = kernel.eval(&params, &inputs, &EvalParams::default());
        let old = params.clone();
        let fill = fill_data_dont_cares(&layers, &mut params, &inputs, 1);
        assert!(fill.luts_with_dont_cares > 0 && fill.luts_changed > 0, "{fill:?}");
        assert!(fill.table_ands.1 < fill.table_ands.0, "{fill:?}");
        assert_eq!(kernel.eval(&params, &inputs, &EvalParams::default()), before, "same answers");
        assert_eq!(params[params.len() - 64..], old[old.len() - 64..], "5-input tables are left alone");
    }

    /// With a minimum of examples per entry: every entry that many examples reach (in
    /// the network before the fill) keeps its value, the rest are filled as at least the
    /// unreached ones are, and the tables cost no more than with the exact fill.
    #[test]
    fn approximate_fills_keep_the_well_reached_entries() {
        let (layers, inputs, params) = small_network();
        let vals = layers.layer_values(&params, &inputs);
        let mut exact = params.clone();
        let exact_fill = fill_data_dont_cares(&layers, &mut exact, &inputs, 1);
        for min in [2, 10, 40] {
            let mut approx = params.clone();
            let fill = fill_data_dont_cares(&layers, &mut approx, &inputs, min);
            assert!(fill.luts_with_dont_cares >= exact_fill.luts_with_dont_cares, "min {min}: {fill:?}");
            assert!(fill.table_ands.1 <= exact_fill.table_ands.1, "min {min}: {fill:?}");
            let mut start = 0;
            for (l, layer) in layers.layers.iter().enumerate() {
                let below = if l == 0 { &inputs } else { &vals[l - 1] };
                for (g, src) in layer.sources.chunks(layer.k).enumerate() {
                    for a in 0..1usize << layer.k {
                        let reach = (0..inputs.examples())
                            .filter(|&e| {
                                (0..layer.k).all(|i| below.get(src[i] as usize, e) == (a >> i & 1 == 1))
                            })
                            .count();
                        let at = start + (g << layer.k) + a;
                        if reach >= min as usize || layer.k > 4 {
                            assert_eq!(approx[at], params[at], "min {min}: layer {l} LUT {g} entry {a}");
                        }
                    }
                }
                start += layer.width() << layer.k;
            }
        }
        assert!(
            {
                let mut approx = params.clone();
                fill_data_dont_cares(&layers, &mut approx, &inputs, 40) != exact_fill
            },
            "a minimum of 40 examples frees nothing more"
        );
    }
}
