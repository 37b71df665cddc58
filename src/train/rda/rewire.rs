//! Rewiring between epochs of the vote rule ([`RdaRule::rewire`](super::RdaRule::rewire)):
//! a local search over the sources and table of the last hidden layer's LUTs, scored as
//! the vote rule scores a table entry.
//!
//! A hidden LUT `g` read by output `r` at address bit `i` matters on the examples where
//! `r`'s table differs between bit `i` at 0 and at 1 (`t(s) != t(s ^ e_i)`, `r`'s
//! sensitivity); on those, the value `g` should compute is the one that makes `r` right
//! (`r`'s output with bit `i` at 1 equals the target, or not). A value's score is the
//! vote rule's: the weighted examples on which it makes `r` right, minus those on which
//! it makes `r` wrong among the examples that still carry error (misclassified or within
//! the margin), positives weighted by the positive weight.
//!
//! After an epoch a random `fraction` of the output LUTs is offered, and each of an
//! offered output's sources in turn (those it is the first reader of): the output's
//! sensitivity and wanted value are computed from its other sources as they stand, so
//! a source fitted earlier is the one the next is fitted against (coordinate ascent on
//! the output's score; offering hidden LUTs at random, each against its siblings' old
//! values, moved the six LUTs under one output together and lost training accuracy at
//! high fractions). For each: `candidates` random
//! sources of the layer below are scored one by one (a source or its complement as the
//! LUT's value); the best `finalists` of them compete for the `k` sources one at a time,
//! each time the one under which the best table over the sources so far and it scores
//! highest (the examples addressing each entry split by the new bit, each entry taking
//! the better scoring value); with `finalists <= k` the `k` best alone are the sources.
//! Each table entry is the better scoring value over the examples that address it (a
//! random draw where none do). With `min_examples` above 0 the table is fitted as a
//! tree over the sources in their chosen order, as a decision tree's minimum leaf size
//! prunes it: an entry of the first `j` sources addressed by fewer than `min_examples`
//! sensitive examples (or tied) takes the value of its entry over the first `j - 1`,
//! and the one-at-a-time search scores such entries so. The new LUT replaces the old
//! one where its score is higher. LUTs read by no output are left alone.

use crate::domain::{LutLayer, LutLayers, constant_lut};
use crate::lanes::BitMatrix;
use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How much a [`RdaRule`](super::RdaRule) rewires after each epoch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RewireParams {
    /// Fraction of the output LUTs whose sources (the last hidden layer's LUTs they are
    /// the first reader of) are offered new sources and tables, in `(0, 1]`.
    pub fraction: f64,
    /// Random candidate sources scored per offered LUT (at least its fan-in are drawn).
    pub candidates: usize,
    /// The best this many candidates by their score alone compete for the sources one
    /// at a time (at most the fan-in: the best by score alone are the sources).
    pub finalists: usize,
    /// A fitted entry addressed by fewer sensitive examples than this takes the value of
    /// its entry over one source fewer (0: each entry is fitted alone, a random draw
    /// where no example addresses it).
    #[serde(default)]
    pub min_examples: u32,
}

/// What one rewiring did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RewireStats {
    /// Hidden LUTs offered new sources.
    pub offered: usize,
    /// LUTs rewired (the offer scored higher).
    pub rewired: usize,
}

/// The vote rule's view of the training set at the end of an epoch.
pub struct VoteView<'a> {
    /// Training inputs, one row per input bit.
    pub inputs: &'a BitMatrix,
    /// Target of every output, one row per output.
    pub targets: &'a BitMatrix,
    /// Examples that still carry error, one word per 64 examples.
    pub active: &'a [u64],
    /// Weight of examples whose output target is 1.
    pub positive_weight: f64,
}

impl VoteView<'_> {
    /// Weighted ones of `m(w)` over the example words, positives (`y`) weighted.
    fn weight(&self, y: &[u64], m: impl Fn(usize) -> u64) -> f64 {
        let (mut pos, mut neg) = (0u64, 0u64);
        for (w, &y) in y.iter().enumerate() {
            let m = m(w);
            pos += u64::from((m & y).count_ones());
            neg += u64::from((m & !y).count_ones());
        }
        self.positive_weight * pos as f64 + neg as f64
    }

    /// The vote score of a value that is right on `right(w)` and wrong on `wrong(w)`:
    /// right examples count everywhere, wrong ones where they carry error.
    fn score(&self, y: &[u64], right: impl Fn(usize) -> u64, wrong: impl Fn(usize) -> u64) -> f64 {
        self.weight(y, right) - self.weight(y, |w| wrong(w) & self.active[w])
    }
}

/// One table entry's standing: the vote scores of the value 1 and of 0 over the
/// examples addressing it, and how many do.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Entry {
    one: f64,
    zero: f64,
    examples: u32,
}

impl Entry {
    /// The entry of the examples in `cell` for a LUT whose wanted value is `want`.
    fn of(view: &VoteView, target: &[u64], want: &[u64], cell: &[u64]) -> Self {
        Self {
            one: view.score(target, |i| cell[i] & want[i], |i| cell[i] & !want[i]),
            zero: view.score(target, |i| cell[i] & !want[i], |i| cell[i] & want[i]),
            examples: cell.iter().map(|m| m.count_ones()).sum(),
        }
    }

    fn merge(self, o: Self) -> Self {
        Self { one: self.one + o.one, zero: self.zero + o.zero, examples: self.examples + o.examples }
    }

    /// The value the entry takes where its parent took `parent`: the better scoring one,
    /// or the parent's where fewer than `min` examples address it or the two tie.
    fn value(&self, parent: bool, min: u32) -> bool {
        if self.examples < min || self.one == self.zero { parent } else { self.one > self.zero }
    }

    fn score(&self, value: bool) -> f64 {
        if value { self.one } else { self.zero }
    }
}

/// The table over `leaves` (entry `a` addresses bit `j` of `a` by source `j`): with
/// `min` 0 each entry alone, `draw` where it ties; else as a tree over the sources in
/// order, an entry of the first `j` sources taking its parent's value where fewer than
/// `min` examples address it (the root's parent is `draw[0]`).
fn fit_table(leaves: &[Entry], min: u32, draw: &[bool]) -> Vec<bool> {
    if min == 0 {
        return leaves.iter().zip(draw).map(|(e, &d)| e.value(d, 0)).collect();
    }
    let root = leaves.iter().fold(Entry::default(), |a, &e| a.merge(e));
    let mut values = vec![root.value(draw[0], min)];
    let mut level = leaves.to_vec();
    let k = leaves.len().trailing_zeros();
    // Entries of the first j sources, j = k - 1 down to 1, then back up.
    let mut levels = vec![];
    for j in (1..k).rev() {
        let half = 1usize << j;
        let up: Vec<Entry> = (0..half).map(|a| level[a].merge(level[a + half])).collect();
        levels.push(std::mem::replace(&mut level, up));
    }
    levels.push(level);
    for (j, entries) in levels.iter().rev().enumerate() {
        let parents = 1usize << j;
        values = entries.iter().enumerate().map(|(a, e)| e.value(values[a % parents], min)).collect();
    }
    values
}

/// One LUT with `sources` (rows of `x`) and `table` on every example of `x`, tail
/// lanes cleared (the fused kernel's constant-table mux tree over one tile of all words).
fn lut_row(x: &BitMatrix, sources: &[u32], table: &[bool]) -> Vec<u64> {
    let mut out = vec![0u64; x.words()];
    let address = |j: usize| x.row(sources[j] as usize);
    constant_lut(sources.len(), |a| table[a], &address, x.words(), &mut out, &mut Vec::new());
    if let Some(last) = out.last_mut() {
        *last &= crate::lanes::tail_mask(x.examples());
    }
    out
}

/// The examples of `s` addressing each entry of a LUT over `sources` (rows of `below`),
/// entry by entry.
fn address_cells(s: &[u64], below: &BitMatrix, sources: &[u32]) -> Vec<Vec<u64>> {
    let mut cells: Vec<Vec<u64>> = Vec::with_capacity(1 << sources.len());
    cells.push(s.to_vec());
    for (j, &src) in sources.iter().enumerate() {
        let x = below.row(src as usize);
        for c in 0..1usize << j {
            let hi: Vec<u64> = cells[c].iter().zip(x).map(|(m, x)| m & x).collect();
            for (m, x) in cells[c].iter_mut().zip(x) {
                *m &= !x;
            }
            cells.push(hi);
        }
    }
    cells
}

/// The bits of `row` on the lanes set in `mask`, packed.
fn pack(mask: &[u64], row: &[u64]) -> Vec<u64> {
    let n: u32 = mask.iter().map(|m| m.count_ones()).sum();
    let mut out = vec![0u64; (n as usize).div_ceil(64)];
    let mut at = 0usize;
    for (&m, &x) in mask.iter().zip(row) {
        let mut m = m;
        while m != 0 {
            let b = m.trailing_zeros();
            out[at / 64] |= (x >> b & 1) << (at % 64);
            at += 1;
            m &= m - 1;
        }
    }
    out
}

/// `k` sources chosen one at a time among `finalists`, each the one whose split of the
/// examples addressing the entries so far most raises the fitted table's score (an entry
/// of fewer than `min_examples` examples scored at its parent's value, as
/// [`fit_table`] fits it).
#[allow(clippy::too_many_arguments)]
fn joint_sources(
    s: &[u64],
    want: &[u64],
    target: &[u64],
    view: &VoteView,
    below: &BitMatrix,
    finalists: &[u32],
    k: usize,
    min_examples: u32,
) -> Vec<u32> {
    let (want, y, act) = (pack(s, want), pack(s, target), pack(s, view.active));
    let n: usize = s.iter().map(|m| m.count_ones() as usize).sum();
    let rows: Vec<Vec<u64>> = finalists.iter().map(|&b| pack(s, below.row(b as usize))).collect();
    let pw = view.positive_weight;
    let weight = |m: &dyn Fn(usize) -> u64| {
        let (mut pos, mut neg) = (0u64, 0u64);
        for (w, &y) in y.iter().enumerate() {
            let m = m(w);
            pos += u64::from((m & y).count_ones());
            neg += u64::from((m & !y).count_ones());
        }
        pw * pos as f64 + neg as f64
    };
    let entry = |cell: &[u64]| Entry {
        one: weight(&|w| cell[w] & want[w]) - weight(&|w| cell[w] & !want[w] & act[w]),
        zero: weight(&|w| cell[w] & !want[w]) - weight(&|w| cell[w] & want[w] & act[w]),
        examples: cell.iter().map(|m| m.count_ones()).sum(),
    };
    // An entry's score under its parent's value, and its own value.
    let best = |cell: &[u64], parent: bool| {
        let e = entry(cell);
        let v = e.value(parent, min_examples);
        (if e.examples < min_examples { e.score(v) } else { f64::max(e.one, e.zero) }, v)
    };
    let mut all = vec![u64::MAX; n.div_ceil(64)];
    if !n.is_multiple_of(64) {
        *all.last_mut().expect("n > 0") = (1u64 << (n % 64)) - 1;
    }
    let root = entry(&all).value(false, min_examples);
    let mut cells = vec![(all, root)];
    let mut chosen: Vec<usize> = Vec::with_capacity(k);
    for _ in 0..k {
        let mut top: Option<(f64, usize)> = None;
        for (c, x) in rows.iter().enumerate() {
            if chosen.contains(&c) {
                continue;
            }
            let mut total = 0.0;
            let mut lo = vec![0u64; x.len()];
            let mut hi = vec![0u64; x.len()];
            for (cell, parent) in &cells {
                for w in 0..x.len() {
                    lo[w] = cell[w] & !x[w];
                    hi[w] = cell[w] & x[w];
                }
                total += best(&lo, *parent).0 + best(&hi, *parent).0;
            }
            if top.is_none_or(|(t, _)| total > t) {
                top = Some((total, c));
            }
        }
        let Some((_, c)) = top else { break };
        chosen.push(c);
        let x = &rows[c];
        let split: Vec<(Vec<u64>, bool)> = cells
            .iter()
            .flat_map(|(cell, parent)| {
                [!0u64, 0].map(|flip| {
                    let half: Vec<u64> = cell.iter().zip(x).map(|(m, x)| m & (x ^ flip)).collect();
                    let v = best(&half, *parent).1;
                    (half, v)
                })
            })
            .collect();
        cells = split;
    }
    chosen.iter().map(|&c| finalists[c]).collect()
}

/// Rewires the last hidden layer of `layers` (tables in `params`) as `p` says; see the
/// module docs. A network of fewer than two layers is left as it is.
pub fn rewire(
    layers: &mut LutLayers,
    params: &mut [bool],
    view: &VoteView,
    p: &RewireParams,
    rng: &mut ChaCha8Rng,
) -> RewireStats {
    let d = layers.layers.len();
    if d < 2 || p.fraction <= 0.0 {
        return RewireStats::default();
    }
    let (h, o) = (d - 2, d - 1);
    let mut vals = layers.layer_values(params, view.inputs);
    vals.pop();
    let mut hidden = vals.pop().expect("two layers");
    let below = vals.last().unwrap_or(view.inputs);
    let starts = layers.table_starts();
    let first_lut: usize = layers.layers[..h].iter().map(LutLayer::width).sum();
    let first_out = first_lut + layers.layers[h].width();
    let (ko, wo) = (layers.layers[o].k, layers.layers[o].width());
    let kh = layers.layers[h].k;
    let out_sources = layers.layers[o].sources.clone();
    // Each hidden LUT's first reader slot (output, address bit).
    let mut slot_of = vec![None; layers.layers[h].width()];
    for (slot, &g) in out_sources.iter().enumerate() {
        slot_of[g as usize].get_or_insert(slot);
    }
    let mut readers: Vec<usize> = (0..wo).collect();
    readers.shuffle(rng);
    readers.truncate(((p.fraction * wo as f64).round() as usize).min(wo));
    readers.sort_unstable();
    let mut stats = RewireStats::default();
    for &r in &readers {
        let t = params[starts[first_out + r]..starts[first_out + r] + (1 << ko)].to_vec();
        let srcs = &out_sources[r * ko..(r + 1) * ko];
        let target = view.targets.row(r);
        for (i, &g) in srcs.iter().enumerate() {
            let g = g as usize;
            if slot_of[g] != Some(r * ko + i) {
                continue;
            }
            stats.offered += 1;
            // The reader's sensitive examples and the value wanted on them, from the
            // siblings as they stand.
            let bit = 1 << i;
            let sens_t: Vec<bool> = (0..1usize << ko).map(|a| t[a] != t[a ^ bit]).collect();
            let one_t: Vec<bool> = (0..1usize << ko).map(|a| t[a | bit]).collect();
            let s = &lut_row(&hidden, srcs, &sens_t);
            let want: Vec<u64> =
                lut_row(&hidden, srcs, &one_t).iter().zip(target).map(|(f, y)| !(f ^ y)).collect();
            let Some(fit) = fit_lut(s, &want, target, view, below, kh, p, rng) else { continue };
            let x = hidden.row(g);
            let current = view.score(target, |w| s[w] & !(x[w] ^ want[w]), |w| s[w] & (x[w] ^ want[w]));
            if fit.score > current {
                let start = starts[first_lut + g];
                params[start..start + (1 << kh)].copy_from_slice(&fit.table);
                layers.layers[h].sources[g * kh..(g + 1) * kh].copy_from_slice(&fit.sources);
                hidden.row_mut(g).copy_from_slice(&lut_row(below, &fit.sources, &fit.table));
                stats.rewired += 1;
            }
        }
    }
    stats
}

/// A LUT fitted to `want` on the examples `s` (scored against the reader's `target`).
struct Fit {
    sources: Vec<u32>,
    table: Vec<bool>,
    score: f64,
}

/// A fresh LUT of fan-in `k` over rows of `below`: `p.candidates` random sources scored
/// alone, the sources chosen among the best as the module docs say, each table entry
/// the better scoring value over the examples of `s` that address it (a random draw
/// where none do). `None` where fewer than `k` sources could be had.
#[allow(clippy::too_many_arguments)]
fn fit_lut(
    s: &[u64],
    want: &[u64],
    target: &[u64],
    view: &VoteView,
    below: &BitMatrix,
    k: usize,
    p: &RewireParams,
    rng: &mut ChaCha8Rng,
) -> Option<Fit> {
    // Candidates, scored as the LUT's value alone (or its complement).
    let cands: Vec<u32> = rand::seq::index::sample(rng, below.rows(), p.candidates.max(k).min(below.rows()))
        .into_iter()
        .map(|c| c as u32)
        .collect();
    let score_of = |b: u32| {
        let x = below.row(b as usize);
        let same = |i: usize| s[i] & !(x[i] ^ want[i]);
        let diff = |i: usize| s[i] & (x[i] ^ want[i]);
        f64::max(view.score(target, same, diff), view.score(target, diff, same))
    };
    let scores: Vec<f64> = cands.iter().map(|&b| score_of(b)).collect();
    let mut by_score: Vec<usize> = (0..cands.len()).collect();
    by_score.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let sources: Vec<u32> = if p.finalists > k && cands.len() > k {
        let finalists: Vec<u32> =
            by_score[..p.finalists.min(cands.len())].iter().map(|&i| cands[i]).collect();
        joint_sources(s, want, target, view, below, &finalists, k, p.min_examples)
    } else {
        by_score[..k.min(cands.len())].iter().map(|&i| cands[i]).collect()
    };
    if sources.len() < k {
        return None;
    }
    let draw: Vec<bool> = (0..1usize << k).map(|_| rng.random::<bool>()).collect();
    let leaves: Vec<Entry> =
        address_cells(s, below, &sources).iter().map(|m| Entry::of(view, target, want, m)).collect();
    let table = fit_table(&leaves, p.min_examples, &draw);
    let score = leaves.iter().zip(&table).map(|(e, &v)| e.score(v)).sum();
    Some(Fit { sources, table, score })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::random_bits;
    use crate::domain::LutNetwork;
    use crate::learn::{ModelSpec, Network};
    use rand::SeedableRng;

    /// The vote score of hidden LUT `g` computing `value(e)` on example `e`, with every
    /// other hidden LUT as in `hidden`, example by example (the reference for the word
    /// code): where `g`'s reader is sensitive to it, `+w` if the reader is then right, `-w`
    /// if it is wrong and the example is active.
    fn reference_score(
        layers: &LutLayers,
        params: &[bool],
        hidden: &BitMatrix,
        view: &VoteView,
        g: usize,
        value: impl Fn(usize) -> bool,
    ) -> f64 {
        let out = &layers.layers[1];
        let (k, start) = (out.k, layers.layers[0].width() << layers.layers[0].k);
        let slot = out.sources.iter().position(|&s| s as usize == g).unwrap();
        let (r, i) = (slot / k, slot % k);
        let t = &params[start + (r << k)..start + ((r + 1) << k)];
        let mut score = 0.0;
        for e in 0..hidden.examples() {
            let a: usize =
                (0..k).map(|j| usize::from(hidden.get(out.sources[r * k + j] as usize, e)) << j).sum();
            if t[a] == t[a ^ 1 << i] {
                continue;
            }
            let y = view.targets.get(r, e);
            let right = t[(a & !(1 << i)) | usize::from(value(e)) << i] == y;
            let w = if y { view.positive_weight } else { 1.0 };
            let active = view.active[e / 64] >> (e % 64) & 1 == 1;
            score += if right {
                w
            } else if active {
                -w
            } else {
                0.0
            };
        }
        score
    }

    /// Outputs offered in order, each source in turn: every rewired LUT scores higher
    /// than before (by the example-by-example reference) against its reader with the
    /// sources fitted before it as they were fitted and those after it as they were;
    /// every other LUT and every output keeps its table and sources, and the rewired
    /// network's kernel is its circuit's; with the sources chosen by their scores alone
    /// and one at a time.
    #[test]
    fn a_rewired_lut_scores_higher_against_its_siblings_as_they_stand() {
        let (n_in, examples) = (30, 700);
        let x = random_bits(n_in, examples, 1);
        // Labels from a few inputs, so some sources are worth more than others.
        let labels: Vec<u32> =
            (0..examples).map(|e| u32::from(x.get(3, e) ^ (x.get(7, e) & x.get(11, e)))).collect();
        let spec: ModelSpec = "lut:3:24x2:8,groupsum:2".parse().unwrap();
        let net = Network::build(spec, n_in, 2, 3).unwrap();
        let layers = net.layers.clone().unwrap();
        let bits = random_bits(net.n_params(), 1, 2);
        let params: Vec<bool> = (0..net.n_params()).map(|i| bits.get(i, 0)).collect();
        let active: Vec<u64> = random_bits(1, examples, 4).row(0).to_vec();
        let targets = net.targets(&labels);
        let view = VoteView { inputs: &x, targets: &targets, active: &active, positive_weight: 1.5 };
        let mut sources = Vec::new();
        for (finalists, min_examples) in [(0, 0), (10, 0), (10, 40)] {
            let (mut after, mut new_params) = (layers.clone(), params.clone());
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            let p = RewireParams { fraction: 1.0, candidates: 12, finalists, min_examples };
            let stats = rewire(&mut after, &mut new_params, &view, &p, &mut rng);
            assert_eq!(stats.offered, 24, "every hidden LUT is read");
            assert!(stats.rewired > 0, "{stats:?}");
            let (k, n0) = (3, 24 << 3);
            assert_eq!(after.layers[1], layers.layers[1]);
            assert_eq!(new_params[n0..], params[n0..]);
            let mut hidden = layers.layer_values(&params, &x).swap_remove(0);
            let mut moved = 0;
            for &g in &layers.layers[1].sources {
                let g = g as usize;
                let old_s = &layers.layers[0].sources[g * k..(g + 1) * k];
                let new_s = &after.layers[0].sources[g * k..(g + 1) * k];
                let (old_t, new_t) = (&params[g << k..(g + 1) << k], &new_params[g << k..(g + 1) << k]);
                if old_s == new_s && old_t == new_t {
                    continue;
                }
                moved += 1;
                let address =
                    |e: usize| (0..k).map(|j| usize::from(x.get(new_s[j] as usize, e)) << j).sum::<usize>();
                let before = reference_score(&layers, &params, &hidden, &view, g, |e| hidden.get(g, e));
                let now = reference_score(&layers, &params, &hidden, &view, g, |e| new_t[address(e)]);
                assert!(now > before, "finalists {finalists}, LUT {g}: {now} <= {before}");
                for e in 0..examples {
                    hidden.set(g, e, new_t[address(e)]);
                }
            }
            assert_eq!(moved, stats.rewired);
            assert_eq!(hidden, after.layer_values(&new_params, &x).swap_remove(0));
            assert_eq!(LutNetwork::from_layers(&after), LutNetwork::new(&after.circuit()).unwrap());
            sources.push(after.layers.swap_remove(0).sources);
        }
        assert_ne!(sources[0], sources[1], "choosing one at a time chose the same sources");
        assert_ne!(sources[1], sources[2], "the minimum leaf size changed no choice");
    }

    /// The table over `leaves` by definition: entry `a`'s value walks from the root
    /// (all leaves) through the entries of `a`'s first 1, 2, ... sources (the leaves
    /// agreeing with `a` on them).
    fn reference_table(leaves: &[Entry], min: u32, draw: &[bool]) -> Vec<bool> {
        let k = leaves.len().trailing_zeros();
        (0..leaves.len())
            .map(|a| {
                let mut value = draw[0];
                for j in 0..=k {
                    let low = (1usize << j) - 1;
                    let e = (0..leaves.len())
                        .filter(|&b| b & low == a & low)
                        .fold(Entry::default(), |t, b| t.merge(leaves[b]));
                    value = e.value(value, min);
                }
                value
            })
            .collect()
    }

    /// A table is fitted as the tree its definition walks; with no minimum each entry
    /// alone (ties drawn), and with a minimum above every count it is constant.
    #[test]
    fn a_fitted_table_is_the_tree_over_its_sources() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for k in 1..=5 {
            for _ in 0..20 {
                let leaves: Vec<Entry> = (0..1usize << k)
                    .map(|_| {
                        let examples = rng.random_range(0..12u32);
                        let one = f64::from(rng.random_range(0..=examples));
                        Entry { one, zero: f64::from(examples) - one, examples }
                    })
                    .collect();
                let draw: Vec<bool> = (0..1usize << k).map(|_| rng.random::<bool>()).collect();
                for min in [1, 3, 8, 1000] {
                    assert_eq!(
                        fit_table(&leaves, min, &draw),
                        reference_table(&leaves, min, &draw),
                        "k {k} min {min}"
                    );
                }
                let alone: Vec<bool> = leaves
                    .iter()
                    .zip(&draw)
                    .map(|(e, &d)| if e.one == e.zero { d } else { e.one > e.zero })
                    .collect();
                assert_eq!(fit_table(&leaves, 0, &draw), alone);
                assert!(fit_table(&leaves, 1000, &draw).iter().all(|&v| v == draw[0]));
            }
        }
        // Two sources (entry a reads source 0 at bit 0). Entry 0b11 (one example) loses
        // to 0 alone and takes 1 from its parent, the entries with source 0 at 1 (8 to 2
        // for 1) once fewer than 2 examples are too few; at 10 the leaves with 9 and 6
        // examples take their parents' values too, at 16 everything the root's.
        let e = |one: f64, zero: f64, examples| Entry { one, zero, examples };
        let leaves = [e(0.0, 9.0, 9), e(8.0, 1.0, 9), e(5.0, 1.0, 6), e(0.0, 1.0, 1)];
        assert_eq!(fit_table(&leaves, 0, &[false; 4]), [false, true, true, false]);
        assert_eq!(fit_table(&leaves, 2, &[false; 4]), [false, true, true, true]);
        assert_eq!(fit_table(&leaves, 10, &[false; 4]), [false, true, false, true]);
        assert_eq!(fit_table(&leaves, 16, &[false; 4]), [true; 4]);
    }

    /// One LUT's row is what the layer kernel computes, tail lanes cleared.
    #[test]
    fn lut_row_is_the_kernel() {
        let x = random_bits(9, 333, 11);
        let one = LutLayers { n_inputs: 9, layers: vec![LutLayer { k: 5, sources: vec![8, 0, 3, 3, 6] }] };
        let table: Vec<bool> = (0..32).map(|s| (s * 7 + s / 3) % 5 < 2).collect();
        let want = one.layer_values(&table, &x).swap_remove(0);
        assert_eq!(lut_row(&x, &one.layers[0].sources, &table), want.row(0));
    }

    /// Packing keeps the masked lanes' bits in order.
    #[test]
    fn pack_keeps_the_masked_bits_in_order() {
        let (mask, row) = (random_bits(1, 300, 7), random_bits(1, 300, 8));
        let packed = pack(mask.row(0), row.row(0));
        let want: Vec<bool> = (0..300).filter(|&e| mask.get(0, e)).map(|e| row.get(0, e)).collect();
        assert_eq!(packed.len(), want.len().div_ceil(64));
        for (i, &b) in want.iter().enumerate() {
            assert_eq!(packed[i / 64] >> (i % 64) & 1 == 1, b, "bit {i}");
        }
        assert!(want.len().is_multiple_of(64) || packed[want.len() / 64] >> (want.len() % 64) == 0);
    }
}
