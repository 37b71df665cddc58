//! Don't-cares a LUT network's first layer gets from its encoder. The bits of one numeric
//! feature are thresholds of one value (`v > t`): a LUT reading two of them never sees
//! the higher threshold's bit on with the lower one's off (nor two bits of one threshold
//! apart), and never sees the bit of a constant feature on. Its table entries at those
//! addresses are never read for any input the encoder can produce, so
//! [`fill_input_dont_cares`] may set them freely: it picks, for each table of at most 4
//! inputs, the filling whose function has the smallest AIG in the rewriting table. The
//! network's outputs stay the same on every encoded input, training and test alike.

use super::rewrite::and_count4;
use crate::data::BitRule;
use crate::domain::LutLayers;

/// What [`fill_input_dont_cares`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CareFill {
    /// First-layer LUTs with at least one address never produced by the encoder.
    pub luts_with_dont_cares: usize,
    /// LUTs whose table changed (a cheaper function on the same care set).
    pub luts_changed: usize,
    /// Sum over the first layer of the table's AND count before and after.
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
        let old = pack(table);
        // Entries no encoded input reads (`k <= 4`: at most 16 entries).
        let free = !care_mask(sources, rules) & ((1u32 << (1 << k)) - 1);
        let before = and_count4(widen(old, k));
        fill.table_ands.0 += before;
        if free == 0 || free.count_ones() > MAX_FREE_ENTRIES {
            fill.table_ands.1 += before;
            continue;
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
    fill
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
}
