//! Relaxed LUT layers over f32 tensors: the semantics of the [`SmoothOp`](super::SmoothOp)
//! gates that train relaxed gate and LUT networks (`learn::relaxed`).
//!
//! Activations of these gates are node-major, `[nodes, B]` (one row of `B` examples per
//! node), the transpose of the batch-first layout of the other gates: a node reads two
//! (or `k`) whole rows of the previous layer, which the kernels stream. The group-sum head
//! ([`group_sum`]) turns the last layer into batch-first class scores `[B, C]`, so the
//! ordinary losses apply. A layer's wiring is a tensor `[W, k]` of source indices (exact in
//! f32 below 2^24, checked), an input of the circuit rather than part of the gate:
//! gates are small `Copy` values compared and hashed when circuits are shared, and the
//! wiring is data of the model like its parameters.
//!
//! A relaxed LUT with table `t` (entries in `[0, 1]`) computes the multilinear
//! interpolation of `t` at its inputs: `y = sum_s t_s prod_i (x_i if s_i else 1 - x_i)`,
//! which equals the LUT on 0/1 inputs. Its reverse map gives `dt_s = sum_e dy prod_i (..)`
//! and `dx_i = dy (y|x_i=1 - y|x_i=0)`. Two-input gates are the case `K = 2`, where `y` is
//! bilinear, `c0 + c1 a + c2 b + c3 ab`, and have their own loops (`bilinear_*`), which
//! agree with the general mux-tree loops (tested).
//!
//! Every kernel is parallel over output rows and each row is computed by one task in a
//! fixed order, so results do not depend on the thread count: table adjoints are sums over
//! the examples of one node, accumulated in `LANES` fixed lanes and then added lane by
//! lane; input adjoints are gathered per source node over its readers in wiring order
//! (the [`LayerWiring`] keeps the inverse wiring for that), never scattered.
//!
//! LUTs of 3 to 5 inputs (and the input adjoints of 6-input ones) run loops compiled for
//! their size, whose work per example is a loop over the lanes of a tile with the whole
//! mux tree (or the table's products) in its body: the compiler keeps those in vector
//! registers, where the loops for any size keep each level of the tree in memory and
//! stall on forwarding stores to loads. Both compute every value by the same operations
//! in the same order, so they write the same bits (tested); the loops for any size serve
//! larger LUTs.

use super::Tensor;
use super::tensor::{PackedBits, par_zeros};
use std::borrow::Cow;

use rayon::prelude::*;

/// Lanes of the explicit accumulators of batch sums and of the column tiles: a sum runs
/// in each lane over the examples `e = lane (mod LANES)`, then the lanes are added in
/// order, whatever vector width the CPU has.
const LANES: usize = 16;

/// Node indices in wiring tensors stay below this (integers are exact in f32 up to 2^24).
const MAX_INDEX: f32 = 16_777_216.0;

/// Output rows per rayon task.
const ROWS_PER_TASK: usize = 32;

/// The most inputs of a relaxed LUT the kernels take (tables of `2^16` entries).
const MAX_TREE_INPUTS: usize = 16;

/// The wiring of one layer: `k` sources per node in the previous layer, and its inverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerWiring {
    /// Inputs per node.
    pub k: usize,
    width: usize,
    /// `width * k` source indices into the previous layer, node by node; source `i` of a
    /// node is address bit `i` of its table.
    pub sources: Vec<u32>,
    /// Readers of previous-layer node `n` are `readers[reader_start[n]..reader_start[n + 1]]`.
    reader_start: Vec<u32>,
    /// `j * k + i` for node `j` reading its address bit `i`, ascending per source.
    readers: Vec<u32>,
}

impl LayerWiring {
    /// The layer whose node `j` reads `sources[j * k + i]` of a previous layer `prev_width` wide.
    ///
    /// # Panics
    /// If a source is not below `prev_width` or `sources` is not a multiple of `k` long.
    #[must_use]
    pub fn new(k: usize, sources: Vec<u32>, prev_width: usize) -> Self {
        assert!(k > 0 && sources.len().is_multiple_of(k), "k sources per node");
        let width = sources.len() / k;
        Self::with_width(k, width, sources, prev_width)
    }

    /// The wiring in a tensor `[W, k]` of source indices into a layer `prev_width` wide.
    ///
    /// # Panics
    /// If the tensor is not `[W, k]` or holds anything but indices below `prev_width`.
    #[must_use]
    pub fn from_tensor(wiring: &Tensor, prev_width: usize) -> Self {
        let &[width, k] = wiring.shape() else { panic!("a wiring is [W, k], not {:?}", wiring.shape()) };
        let sources = wiring
            .data()
            .iter()
            .map(|&v| node_index(v).unwrap_or_else(|| panic!("{v} is not a node index")))
            .collect();
        Self::with_width(k, width, sources, prev_width)
    }

    /// The wiring as a tensor `[W, k]` of f32 indices.
    ///
    /// # Panics
    /// If a source index is not exact in f32 (2^24 or more).
    #[must_use]
    pub fn to_tensor(&self) -> Tensor {
        let data = self
            .sources
            .iter()
            .map(|&s| {
                assert!((s as f32) < MAX_INDEX, "node index {s} is not exact in f32");
                s as f32
            })
            .collect();
        Tensor::new(vec![self.width, self.k], data)
    }

    fn with_width(k: usize, width: usize, sources: Vec<u32>, prev_width: usize) -> Self {
        let mut reader_start = vec![0u32; prev_width + 1];
        for &s in &sources {
            assert!((s as usize) < prev_width, "source {s} outside a layer of {prev_width}");
            reader_start[s as usize + 1] += 1;
        }
        for n in 0..prev_width {
            reader_start[n + 1] += reader_start[n];
        }
        let mut fill = reader_start.clone();
        let mut readers = vec![0u32; sources.len()];
        for (r, &s) in sources.iter().enumerate() {
            readers[fill[s as usize] as usize] = r as u32;
            fill[s as usize] += 1;
        }
        Self { k, width, sources, reader_start, readers }
    }

    /// Nodes in the layer.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Nodes in the previous layer.
    #[must_use]
    pub fn prev_width(&self) -> usize {
        self.reader_start.len() - 1
    }

    fn readers_of(&self, n: usize) -> &[u32] {
        &self.readers[self.reader_start[n] as usize..self.reader_start[n + 1] as usize]
    }

    /// Prefetches the input rows of node `j` (if it exists).
    #[inline(always)]
    fn prefetch_inputs(&self, prev: &[f32], j: usize, b: usize) {
        if j < self.width() {
            for i in 0..self.k {
                prefetch(self.row(prev, j, i, b));
            }
        }
    }

    fn row<'a>(&self, prev: &'a [f32], j: usize, i: usize, b: usize) -> &'a [f32] {
        &prev[self.sources[self.k * j + i] as usize * b..][..b]
    }

    /// The input rows of node `j`, the first `k` of the array.
    ///
    /// # Panics
    /// If `k` is above [`MAX_TREE_INPUTS`].
    #[inline(always)]
    fn rows<'a>(&self, prev: &'a [f32], j: usize, b: usize) -> [&'a [f32]; MAX_TREE_INPUTS] {
        assert!(self.k <= MAX_TREE_INPUTS, "at most {MAX_TREE_INPUTS} inputs per relaxed LUT");
        let mut x: [&[f32]; MAX_TREE_INPUTS] = [&[]; MAX_TREE_INPUTS];
        for (i, x) in x.iter_mut().enumerate().take(self.k) {
            *x = self.row(prev, j, i, b);
        }
        x
    }
}

/// Runs `f(first_row, rows)` over `out` split into tasks of [`ROWS_PER_TASK`] rows of
/// `row_len`, each compiled for the CPU's widest vector extension (callers mark `f`
/// `#[inline(always)]`, see [`best_simd`](crate::lanes::best_simd)).
fn par_rows(out: &mut [f32], row_len: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    if row_len == 0 {
        return;
    }
    out.par_chunks_mut(row_len * ROWS_PER_TASK).enumerate().for_each(|(c, rows)| {
        crate::lanes::best_simd(
            #[inline(always)]
            || f(c * ROWS_PER_TASK, rows),
        );
    });
}

/// Forward of one layer over `b` examples: `out[j * b + e]` from `prev` and the layer's
/// tables (`2^k` entries per node).
pub fn forward(w: &LayerWiring, tables: &[f32], prev: &[f32], b: usize, out: &mut [f32]) {
    assert_eq!(out.len(), w.width() * b, "one output row per node");
    assert_eq!(prev.len(), w.prev_width() * b, "one input row per previous node");
    let size = 1usize << w.k;
    par_rows(
        out,
        b,
        #[inline(always)]
        |first, rows| {
            let mut level = vec![[0.0f32; LANES]; (size / 2).max(1)];
            for (r, y) in rows.chunks_exact_mut(b).enumerate() {
                let j = first + r;
                let t = &tables[size * j..size * (j + 1)];
                w.prefetch_inputs(prev, j + AHEAD, b);
                if w.k == 2 {
                    bilinear_forward(t, w.row(prev, j, 0, b), w.row(prev, j, 1, b), y);
                } else {
                    let x = w.rows(prev, j, b);
                    interpolate(t, &x[..w.k], y, &mut level);
                }
            }
        },
    );
}

/// Table adjoints of one layer: `dtables[j * 2^k + s] = sum_e dout[j, e] prod_i (..)`.
pub fn table_grads(w: &LayerWiring, prev: &[f32], dout: &[f32], b: usize, dtables: &mut [f32]) {
    let size = 1usize << w.k;
    assert_eq!(dtables.len(), w.width() * size, "one table per node");
    assert_eq!(dout.len(), w.width() * b, "one adjoint row per node");
    par_rows(
        dtables,
        size,
        #[inline(always)]
        |first, rows| {
            let mut scratch = vec![[0.0f32; LANES]; 2 * size];
            for (r, dt) in rows.chunks_exact_mut(size).enumerate() {
                let j = first + r;
                let dy = &dout[j * b..(j + 1) * b];
                w.prefetch_inputs(prev, j + AHEAD, b);
                if w.k == 2 {
                    bilinear_table_grads(w.row(prev, j, 0, b), w.row(prev, j, 1, b), dy, dt);
                } else {
                    let x = w.rows(prev, j, b);
                    match w.k {
                        3 => table_grads_n::<3>(&x[..3], dy, dt),
                        4 => table_grads_n::<4>(&x[..4], dy, dt),
                        5 => table_grads_n::<5>(&x[..5], dy, dt),
                        _ => tree_table_grads(&x[..w.k], dy, dt, &mut scratch),
                    }
                }
            }
        },
    );
}

/// Input adjoints of one layer: `dprev[n, e] = sum over the readers (j, i) of n of
/// dout[j, e] (y_j|x_i=1 - y_j|x_i=0)`; rows nobody reads are zero.
pub fn input_grads(w: &LayerWiring, tables: &[f32], prev: &[f32], dout: &[f32], b: usize, dprev: &mut [f32]) {
    match w.k {
        3 => input_grads_n::<2>(w, tables, prev, dout, b, dprev),
        4 => input_grads_n::<3>(w, tables, prev, dout, b, dprev),
        5 => input_grads_n::<4>(w, tables, prev, dout, b, dprev),
        6 => input_grads_n::<5>(w, tables, prev, dout, b, dprev),
        _ => input_grads_n::<0>(w, tables, prev, dout, b, dprev),
    }
}

/// [`input_grads`] compiled for `M` other inputs of each LUT (`k - 1`, 2 to 5), or for any
/// `k` (`M = 0`): the loop over the readers of a row compiled once per LUT size
/// ([`add_input_grad`]).
fn input_grads_n<const M: usize>(
    w: &LayerWiring,
    tables: &[f32],
    prev: &[f32],
    dout: &[f32],
    b: usize,
    dprev: &mut [f32],
) {
    let (k, size) = (w.k, 1usize << w.k);
    assert_eq!(dprev.len(), w.prev_width() * b, "one adjoint row per previous node");
    assert_eq!(dout.len(), w.width() * b, "one adjoint row per node");
    par_rows(
        dprev,
        b,
        #[inline(always)]
        |first, rows| {
            let mut scratch = InputGradScratch::new(k, b);
            for (r, d) in rows.chunks_exact_mut(b).enumerate() {
                d.fill(0.0);
                if first + r + AHEAD < w.prev_width() {
                    for &ahead in w.readers_of(first + r + AHEAD) {
                        let ja = ahead as usize / k;
                        prefetch(&dout[ja * b..(ja + 1) * b]);
                        w.prefetch_inputs(prev, ja, b);
                    }
                }
                for &ji in w.readers_of(first + r) {
                    let (j, i) = (ji as usize / k, ji as usize % k);
                    let t = &tables[size * j..size * (j + 1)];
                    let dy = &dout[j * b..(j + 1) * b];
                    add_input_grad::<M>(t, &w.rows(prev, j, b)[..k], i, dy, d, &mut scratch);
                }
            }
        },
    );
}

/// `d[e] += dy[e] p[e]` for `p` the interpolation of `t` at the rows `x` (`N` of them),
/// tile by tile ([`tree_tile`]).
#[inline(always)]
fn add_scaled_tree<const N: usize>(t: &[f32], x: &[&[f32]], dy: &[f32], d: &mut [f32]) {
    assert!(t.len() == 1 << N && x.len() == N, "a tree of {N} inputs");
    for (tile, dv) in d.chunks_mut(LANES).enumerate() {
        let p = tree_tile::<N>(t, x, tile);
        let g = tile_of(dy, tile, 0.0);
        match <&mut [f32; LANES]>::try_from(&mut *dv) {
            Ok(whole) => {
                for l in 0..LANES {
                    whole[l] += g[l] * p[l];
                }
            }
            Err(_) => {
                for (l, v) in dv.iter_mut().enumerate() {
                    *v += g[l] * p[l];
                }
            }
        }
    }
}

/// The working memory of [`add_input_grad`] for `2^k`-entry tables over `b` examples.
struct InputGradScratch {
    diff: Vec<f32>,
    level: Vec<[f32; LANES]>,
    part: Vec<f32>,
}

impl InputGradScratch {
    fn new(k: usize, b: usize) -> Self {
        let size = 1usize << k;
        Self { diff: vec![0.0; size / 2], level: vec![[0.0; LANES]; (size / 4).max(1)], part: vec![0.0; b] }
    }
}

/// `d[e] += dy[e] (y|x_i=1 - y|x_i=0)[e]` for the LUT with table `t` reading the rows `x`:
/// one reader's term of an input adjoint. `M` is `k - 1` (2 to 5) for the loop compiled for
/// that size ([`add_scaled_tree`]), or 0 for any `k`.
#[inline(always)]
fn add_input_grad<const M: usize>(
    t: &[f32],
    x: &[&[f32]],
    i: usize,
    dy: &[f32],
    d: &mut [f32],
    s: &mut InputGradScratch,
) {
    let k = x.len();
    if k == 2 {
        let [_, c1, c2, c3] = coefficients(t);
        let (c, other) = if i == 0 { (c1, x[1]) } else { (c2, x[0]) };
        for ((dv, &g), &o) in d.iter_mut().zip(dy).zip(other) {
            *dv += g * (c + c3 * o);
        }
    } else {
        // The derivative in x_i is the interpolation of the table difference along bit i
        // at the other inputs.
        for (n, v) in s.diff.iter_mut().enumerate() {
            let lo = (n >> i << (i + 1)) | (n & ((1 << i) - 1));
            *v = t[lo | 1 << i] - t[lo];
        }
        // The rows of the other inputs, in order.
        let mut others: [&[f32]; MAX_TREE_INPUTS] = [&[]; MAX_TREE_INPUTS];
        for (o, &row) in others.iter_mut().zip(x.iter().enumerate().filter(|&(n, _)| n != i).map(|(_, r)| r))
        {
            *o = row;
        }
        let others = &others[..k - 1];
        if M > 0 {
            assert_eq!(M, k - 1, "compiled for {} inputs", M + 1);
            add_scaled_tree::<M>(&s.diff, others, dy, d);
        } else {
            tree_forward(&s.diff, others, &mut s.part, &mut s.level);
            for ((dv, &g), &p) in d.iter_mut().zip(dy).zip(&s.part) {
                *dv += g * p;
            }
        }
    }
}

/// Asks the CPU to start loading `row` into the cache: the rows a node a few iterations
/// ahead reads are at random places of the previous layer, which the hardware prefetcher
/// does not guess.
#[inline(always)]
fn prefetch(row: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    for line in row.chunks(16) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of every x86_64 CPU, and a prefetch is only a hint: it
        // changes no value the program sees and faults on no address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = row;
}

/// Rows ahead of the current one whose inputs [`prefetch`] loads.
const AHEAD: usize = 4;

/// The bilinear coefficients of a two-input table (address bit 0 is `a`).
#[inline]
fn coefficients(t: &[f32]) -> [f32; 4] {
    [t[0], t[1] - t[0], t[2] - t[0], t[3] - t[2] - t[1] + t[0]]
}

#[inline(always)]
fn bilinear_forward(t: &[f32], a: &[f32], b: &[f32], y: &mut [f32]) {
    let [c0, c1, c2, c3] = coefficients(t);
    for ((y, &a), &b) in y.iter_mut().zip(a).zip(b) {
        *y = c0 + c1 * a + (c2 + c3 * a) * b;
    }
}

#[inline(always)]
fn bilinear_table_grads(a: &[f32], b: &[f32], dy: &[f32], dt: &mut [f32]) {
    let mut acc = [[0.0f32; LANES]; 4];
    let mut add = |a: &[f32; LANES], b: &[f32; LANES], g: &[f32; LANES]| {
        for l in 0..LANES {
            let ga = g[l] * a[l];
            acc[0][l] += g[l];
            acc[1][l] += ga;
            acc[2][l] += g[l] * b[l];
            acc[3][l] += ga * b[l];
        }
    };
    let tiles = a.chunks_exact(LANES).zip(b.chunks_exact(LANES)).zip(dy.chunks_exact(LANES));
    for ((a, b), g) in tiles {
        add(a.try_into().expect("a tile"), b.try_into().expect("a tile"), g.try_into().expect("a tile"));
    }
    let rest = a.len() % LANES;
    if rest > 0 {
        // The last examples, padded with zero adjoints.
        let tail = |v: &[f32]| {
            let mut t = [0.0f32; LANES];
            t[..rest].copy_from_slice(&v[v.len() - rest..]);
            t
        };
        add(&tail(a), &tail(b), &tail(dy));
    }
    let [d0, d1, d2, d3] = acc.map(|lanes| lanes.iter().sum::<f32>());
    // dy/dc -> dy/dt: c0 = t0, c1 = t1 - t0, c2 = t2 - t0, c3 = t3 - t2 - t1 + t0.
    dt[0] = d0 - d1 - d2 + d3;
    dt[1] = d1 - d3;
    dt[2] = d2 - d3;
    dt[3] = d3;
}

/// Tile `tile` of `row` as [`LANES`] values; the lanes past its end (a last, partial
/// tile) hold `pad`.
#[inline(always)]
fn tile_of(row: &[f32], tile: usize, pad: f32) -> [f32; LANES] {
    let e0 = tile * LANES;
    match row.get(e0..e0 + LANES) {
        Some(whole) => whole.try_into().expect("LANES values"),
        None => {
            let mut a = [pad; LANES];
            let rest = &row[e0..];
            a[..rest.len()].copy_from_slice(rest);
            a
        }
    }
}

/// Multilinear interpolation of `t` (`2^x.len()` entries) at the rows `x`, as a mux tree
/// (address bit 0 first) over tiles of [`LANES`] examples; `level` holds
/// `max(1, t.len() / 2)` tiles.
#[inline(always)]
fn tree_forward(t: &[f32], x: &[&[f32]], y: &mut [f32], level: &mut [[f32; LANES]]) {
    if x.is_empty() {
        y.fill(t[0]);
        return;
    }
    for (tile, out) in y.chunks_mut(LANES).enumerate() {
        let mut half = t.len() / 2;
        let x0 = tile_of(x[0], tile, 0.0);
        for (p, v) in level[..half].iter_mut().enumerate() {
            let (lo, hi) = (t[2 * p], t[2 * p + 1]);
            *v = std::array::from_fn(|l| lo + x0[l] * (hi - lo));
        }
        for xi in &x[1..] {
            let xi = tile_of(xi, tile, 0.0);
            half /= 2;
            for p in 0..half {
                let (lo, hi) = (level[2 * p], level[2 * p + 1]);
                level[p] = std::array::from_fn(|l| lo[l] + xi[l] * (hi[l] - lo[l]));
            }
        }
        out.copy_from_slice(&level[0][..out.len()]);
    }
}

/// [`tree_forward`] with `N` (1 to 5) inputs known when compiled: each tile of the output
/// is a tree of [`mux`]es over the inputs' tiles, evaluated depth first with every value in
/// registers (the loop over a level array in memory stalled on forwarding its stores to the
/// next level's loads). Each output is computed by the same operations in the same order,
/// so the bits are the same (tested).
#[inline(always)]
fn tree_forward_n<const N: usize>(t: &[f32], x: &[&[f32]], y: &mut [f32]) {
    assert!((1..=5).contains(&N) && x.len() == N && t.len() == 1 << N, "a tree of {N} inputs");
    for (tile, out) in y.chunks_mut(LANES).enumerate() {
        let v = tree_tile::<N>(t, x, tile);
        match <&mut [f32; LANES]>::try_from(&mut *out) {
            Ok(whole) => *whole = v,
            Err(_) => out.copy_from_slice(&v[..out.len()]),
        }
    }
}

/// Tile `tile` of the interpolation of `t` at the rows `x` (`N` of them, 1 to 5): a loop
/// over the lanes whose body is the whole tree on scalars, which the compiler turns into
/// vector instructions (trees of arrays it did not, or only in part).
#[inline(always)]
fn tree_tile<const N: usize>(t: &[f32], x: &[&[f32]], tile: usize) -> [f32; LANES] {
    // A loop, not `array::from_fn`, which is not inlined for arrays of tiles.
    let mut xs = [[0.0f32; LANES]; N];
    for (v, row) in xs.iter_mut().zip(x) {
        *v = tile_of(row, tile, 0.0);
    }
    let mut y = [0.0f32; LANES];
    for l in 0..LANES {
        let at = |i: usize| xs[i.min(N.max(1) - 1)][l];
        y[l] = match N {
            1 => tree1(t, at),
            2 => tree2(t, at),
            3 => tree3(t, at),
            4 => tree4(t, at),
            _ => tree5(t, at),
        };
    }
    y
}

/// `lo + x (hi - lo)`: one node of a mux tree.
#[inline(always)]
fn mux(lo: f32, hi: f32, x: f32) -> f32 {
    lo + x * (hi - lo)
}

/// The interpolation of the 2-entry table `t` at input 0, a mux tree's first level.
#[inline(always)]
fn tree1(t: &[f32], x: impl Fn(usize) -> f32) -> f32 {
    mux(t[0], t[1], x(0))
}

#[inline(always)]
fn tree2(t: &[f32], x: impl Fn(usize) -> f32 + Copy) -> f32 {
    mux(tree1(&t[..2], x), tree1(&t[2..4], x), x(1))
}

#[inline(always)]
fn tree3(t: &[f32], x: impl Fn(usize) -> f32 + Copy) -> f32 {
    mux(tree2(&t[..4], x), tree2(&t[4..8], x), x(2))
}

#[inline(always)]
fn tree4(t: &[f32], x: impl Fn(usize) -> f32 + Copy) -> f32 {
    mux(tree3(&t[..8], x), tree3(&t[8..16], x), x(3))
}

#[inline(always)]
fn tree5(t: &[f32], x: impl Fn(usize) -> f32 + Copy) -> f32 {
    mux(tree4(&t[..16], x), tree4(&t[16..32], x), x(4))
}

/// The multilinear interpolation of `t` at the rows `x` into `y`, by the loop for the
/// number of inputs where there is one ([`tree_forward_n`]); `level` as for
/// [`tree_forward`].
#[inline(always)]
fn interpolate(t: &[f32], x: &[&[f32]], y: &mut [f32], level: &mut [[f32; LANES]]) {
    match x.len() {
        2 => tree_forward_n::<2>(t, x, y),
        3 => tree_forward_n::<3>(t, x, y),
        4 => tree_forward_n::<4>(t, x, y),
        5 => tree_forward_n::<5>(t, x, y),
        _ => tree_forward(t, x, y, level),
    }
}

/// `dt_s = sum_e dy_e prod_i (x_i if s_i else 1 - x_i)`; `scratch` holds `2 * 2^k`
/// tiles.
#[inline(always)]
fn tree_table_grads(x: &[&[f32]], dy: &[f32], dt: &mut [f32], scratch: &mut [[f32; LANES]]) {
    let size = dt.len();
    let (phi, acc) = scratch.split_at_mut(size);
    acc.fill([0.0; LANES]);
    for tile in 0..dy.len().div_ceil(LANES) {
        // Past the end, dy is -0.0 and so is every product with it: adding -0.0 leaves
        // each lane's sum exactly as it was.
        let g = tile_of(dy, tile, -0.0);
        phi[0] = [1.0; LANES];
        for (i, xi) in x.iter().enumerate() {
            let xi = tile_of(xi, tile, 0.0);
            for s in (0..1usize << i).rev() {
                let p = phi[s];
                phi[s | 1 << i] = std::array::from_fn(|l| p[l] * xi[l]);
                phi[s] = std::array::from_fn(|l| p[l] * (1.0 - xi[l]));
            }
        }
        for (a, f) in acc.iter_mut().zip(phi.iter()) {
            *a = std::array::from_fn(|l| a[l] + g[l] * f[l]);
        }
    }
    for (d, lanes) in dt.iter_mut().zip(acc.iter()) {
        *d = lanes.iter().sum();
    }
}

/// [`tree_table_grads`] with `K` (1 to 5) inputs known when compiled: a loop over the
/// lanes whose body computes the `2^K` products of one example in registers and adds them
/// to its lane's sums (the products kept in memory stalled on forwarding stores to loads).
/// The same operations in the same order, so the same bits (tested).
#[inline(always)]
fn table_grads_n<const K: usize>(x: &[&[f32]], dy: &[f32], dt: &mut [f32]) {
    assert!((1..=5).contains(&K) && x.len() == K && dt.len() == 1 << K, "tables of {K} inputs");
    let mut acc = [[0.0f32; LANES]; 32];
    for tile in 0..dy.len().div_ceil(LANES) {
        // Past the end, dy is -0.0 and so is every product with it (as in tree_table_grads).
        let g = tile_of(dy, tile, -0.0);
        let mut xs = [[0.0f32; LANES]; K];
        for (v, row) in xs.iter_mut().zip(x) {
            *v = tile_of(row, tile, 0.0);
        }
        for l in 0..LANES {
            let mut phi = [0.0f32; 32];
            phi[0] = 1.0;
            for (i, xi) in xs.iter().enumerate() {
                let xi = xi[l];
                for s in (0..1usize << i).rev() {
                    let p = phi[s];
                    phi[s | 1 << i] = p * xi;
                    phi[s] = p * (1.0 - xi);
                }
            }
            for (a, f) in acc.iter_mut().zip(&phi).take(1 << K) {
                a[l] += g[l] * f;
            }
        }
    }
    for (d, lanes) in dt.iter_mut().zip(&acc) {
        *d = lanes.iter().sum();
    }
}

/// `(wiring [W, k], tables [W, 2^k], x [N, B]) -> [W, B]`: the relaxed LUT layer.
#[must_use]
pub fn soft_lut(wiring: &Tensor, tables: &Tensor, x: &Tensor) -> Tensor {
    let (w, b) = (LayerWiring::from_tensor(wiring, x.shape()[0]), x.shape()[1]);
    let mut out = par_zeros(w.width() * b);
    forward(&w, tables.data(), x.data(), b, &mut out);
    Tensor::new(vec![w.width(), b], out)
}

/// `(wiring, x, dy [W, B]) -> [W, 2^k]`: the table adjoints of [`soft_lut`].
#[must_use]
pub fn lut_grad_tables(wiring: &Tensor, x: &Tensor, dy: &Tensor) -> Tensor {
    let (w, b) = (LayerWiring::from_tensor(wiring, x.shape()[0]), x.shape()[1]);
    let mut dt = par_zeros(w.width() << w.k);
    table_grads(&w, x.data(), dy.data(), b, &mut dt);
    Tensor::new(vec![w.width(), 1 << w.k], dt)
}

/// `(wiring, tables, x, dy [W, B]) -> [N, B]`: the input adjoints of [`soft_lut`].
#[must_use]
pub fn lut_grad_inputs(wiring: &Tensor, tables: &Tensor, x: &Tensor, dy: &Tensor) -> Tensor {
    let (w, b) = (LayerWiring::from_tensor(wiring, x.shape()[0]), x.shape()[1]);
    let mut dx = par_zeros(x.len());
    input_grads(&w, tables.data(), x.data(), dy.data(), b, &mut dx);
    Tensor::new(x.shape().to_vec(), dx)
}

/// `(wiring, x [N, B]) -> [W, B]`: row `j` is the row of `x` that address bit `i` of node
/// `j` reads.
#[must_use]
pub fn gather_inputs(wiring: &Tensor, i: usize, x: &Tensor) -> Tensor {
    let (k, b) = (wiring.shape()[1], x.shape()[1]);
    let mut out = Vec::with_capacity(wiring.shape()[0] * b);
    for node in wiring.data().chunks_exact(k) {
        let s = node[i] as usize;
        out.extend_from_slice(&x.data()[s * b..(s + 1) * b]);
    }
    Tensor::new(vec![wiring.shape()[0], b], out)
}

/// `(wiring, like [N, B], v [W, B]) -> [N, B]`: the adjoint of [`gather_inputs`], row `n`
/// the sum (in node order) of the rows of `v` whose address bit `i` reads `n`.
#[must_use]
pub fn scatter_inputs(wiring: &Tensor, i: usize, like: &Tensor, v: &Tensor) -> Tensor {
    let (k, b) = (wiring.shape()[1], like.shape()[1]);
    let mut out = vec![0.0f32; like.len()];
    for (node, row) in wiring.data().chunks_exact(k).zip(v.data().chunks_exact(b)) {
        let s = node[i] as usize;
        out[s * b..(s + 1) * b].iter_mut().zip(row).for_each(|(o, r)| *o += r);
    }
    Tensor::new(like.shape().to_vec(), out)
}

/// Position in a table of `2^k` entries of entry `s` of a table of `2^(k-1)` with a 0
/// inserted as address bit `i`.
fn with_bit_cleared(s: usize, i: usize) -> usize {
    (s >> i << (i + 1)) | (s & ((1 << i) - 1))
}

/// `[W, 2^k] -> [W, 2^(k-1)]`: each table's differences along address bit `i`
/// (`t|bit i = 1 - t|bit i = 0`, the table of `dy/dx_i`).
#[must_use]
pub fn table_slope(t: &Tensor, i: usize) -> Tensor {
    let (w, size) = (t.shape()[0], t.shape()[1]);
    let mut out = Vec::with_capacity(t.len() / 2);
    for row in t.data().chunks_exact(size.max(1)) {
        out.extend((0..size / 2).map(|s| {
            let lo = with_bit_cleared(s, i);
            row[lo | 1 << i] - row[lo]
        }));
    }
    Tensor::new(vec![w, size / 2], out)
}

/// `[W, 2^(k-1)] -> [W, 2^k]`: the adjoint of [`table_slope`].
#[must_use]
pub fn table_slope_adjoint(d: &Tensor, i: usize) -> Tensor {
    let (w, half) = (d.shape()[0], d.shape()[1]);
    let mut out = vec![0.0f32; 2 * d.len()];
    for (row, o) in d.data().chunks_exact(half.max(1)).zip(out.chunks_exact_mut(2 * half.max(1))) {
        for (s, &v) in row.iter().enumerate() {
            let lo = with_bit_cleared(s, i);
            o[lo] = -v;
            o[lo | 1 << i] = v;
        }
    }
    Tensor::new(vec![w, 2 * half], out)
}

/// `[W, k] -> [W, k-1]`: the wiring without address bit `i` (of the tables [`table_slope`]
/// makes).
#[must_use]
pub fn wiring_without(wiring: &Tensor, i: usize) -> Tensor {
    let (w, k) = (wiring.shape()[0], wiring.shape()[1]);
    let data = wiring
        .data()
        .chunks_exact(k)
        .flat_map(|n| n.iter().enumerate().filter(|(m, _)| *m != i).map(|(_, &v)| v))
        .collect();
    Tensor::new(vec![w, k - 1], data)
}

/// `[W, B] -> [B, C]`: class `c`'s score is the sum of the `c`-th of `C` equal groups of
/// rows (nodes), example by example, in node order.
#[must_use]
pub fn group_sum(x: &Tensor, classes: usize) -> Tensor {
    let (w, b) = (x.shape()[0], x.shape()[1]);
    let per = w / classes.max(1);
    let mut s = vec![0.0f32; b * classes];
    for (j, row) in x.data().chunks_exact(b.max(1)).enumerate() {
        let c = j / per;
        for (e, &y) in row.iter().enumerate() {
            s[e * classes + c] += y;
        }
    }
    Tensor::new(vec![b, classes], s)
}

/// `(like [W, B], g [B, C]) -> [W, B]`: the adjoint of [`group_sum`], each node's row the
/// scores' adjoints of its class.
#[must_use]
pub fn group_spread(like: &Tensor, g: &Tensor, classes: usize) -> Tensor {
    let (w, b) = (like.shape()[0], like.shape()[1]);
    let per = w / classes.max(1);
    let mut out = vec![0.0f32; w * b];
    for (j, row) in out.chunks_exact_mut(b.max(1)).enumerate() {
        let c = j / per;
        for (e, v) in row.iter_mut().enumerate() {
            *v = g.data()[e * classes + c];
        }
    }
    Tensor::new(vec![w, b], out)
}

/// `(candidates [M, C], weights [M, C], x [N, B]) -> [M, B]`: learned wiring. Row `m` is
/// the mixture `sum_c weights[m, c] x[candidates[m, c]]` of `C` candidate rows of `x`;
/// with the softmax of learned logits as weights it is a soft choice of one source, and
/// discretised the heaviest candidate. The candidates are a wiring tensor (`k = C`).
/// Input bits (every value 0 or 1) are read packed ([`PackedBits`]).
#[must_use]
pub fn soft_choice(candidates: &Tensor, weights: &Tensor, x: &Tensor) -> Tensor {
    let (n, b) = (x.shape()[0], x.shape()[1]);
    let (c, sources) = (check_candidates(candidates, n), candidates.data());
    let wt = weights.data();
    let mut out = par_zeros(candidates.shape()[0] * b);
    let packed = packed_rows(x);
    // The floats only without packed rows: a batch built packed has made none.
    let xs = if packed.is_some() { &[][..] } else { x.data() };
    par_rows(
        &mut out,
        b,
        #[inline(always)]
        |first, rows| {
            for (r, y) in rows.chunks_exact_mut(b).enumerate() {
                let m = first + r;
                let (src, a) = (&sources[m * c..(m + 1) * c], &wt[m * c..(m + 1) * c]);
                #[cfg(target_arch = "x86_64")]
                if let (Some(p), true) = (&packed, masked_adds()) {
                    // SAFETY: `masked_adds` says the CPU has AVX-512F.
                    unsafe { avx512::soft_choice_row(p, src, a, y) };
                    continue;
                }
                if let Some(p) = &packed {
                    // Four accumulators of 8 examples each, so that the sums over the
                    // candidates do not wait on each other.
                    for (q, v) in y.chunks_mut(32).enumerate() {
                        let mut acc = [[0.0f32; 8]; 4];
                        for (&s, &a) in src.iter().zip(a) {
                            let row = p.row(s as usize);
                            for (t, acc) in acc.iter_mut().enumerate() {
                                let byte = row.get(4 * q + t).copied().unwrap_or(0);
                                *acc = mul_add8(*acc, [a; 8], &BIT_PATTERNS[usize::from(byte)]);
                            }
                        }
                        v.copy_from_slice(&acc.as_flattened()[..v.len()]);
                    }
                } else {
                    for (&s, &a) in src.iter().zip(a) {
                        for (v, &x) in y.iter_mut().zip(&xs[s as usize * b..][..b]) {
                            *v += a * x;
                        }
                    }
                }
            }
        },
    );
    Tensor::new(vec![candidates.shape()[0], b], out)
}

/// `C` of candidates `[M, C]`, each of which is checked to be a row index below `n`
/// (the kernels read the f32 indices directly).
fn check_candidates(candidates: &Tensor, n: usize) -> usize {
    let &[_, c] = candidates.shape() else { panic!("candidates are [M, C], not {:?}", candidates.shape()) };
    let ok = candidates.data().par_iter().all(|&v| node_index(v).is_some_and(|i| (i as usize) < n));
    assert!(ok, "candidates must be row indices below {n}");
    c
}

/// `v` as a node index, if it is one: a whole number from 0 below [`MAX_INDEX`]. Checked by
/// converting and back, not with `fract`, a library call without SSE4.1: as the check of
/// 32 candidates per input it cost about 4% of an epoch.
#[inline]
fn node_index(v: f32) -> Option<u32> {
    let i = v as u32;
    ((0.0..MAX_INDEX).contains(&v) && i as f32 == v).then_some(i)
}

/// The rows of `x` `[N, B]` bit-packed: the ones it carries, or packed here; none if a
/// value is neither 0 nor 1.
fn packed_rows(x: &Tensor) -> Option<Cow<'_, PackedBits>> {
    match x.packed_bits() {
        Some(p) => Some(Cow::Borrowed(p)),
        None => PackedBits::of(x.data(), x.shape()[1]).map(Cow::Owned),
    }
}

/// Byte `v` as eight 0/1 floats, bit 0 first.
const BIT_PATTERNS: [[f32; 8]; 256] = bit_table(false);

/// The bits of integers as 0/1 floats: `t[r][c]` is bit `c` of `r`, or (`transposed`) bit
/// `r` of `c`.
const fn bit_table<const R: usize, const C: usize>(transposed: bool) -> [[f32; C]; R] {
    let mut t = [[0.0f32; C]; R];
    let mut r = 0;
    while r < R {
        let mut c = 0;
        while c < C {
            let (value, bit) = if transposed { (c, r) } else { (r, c) };
            t[r][c] = ((value >> bit) & 1) as f32;
            c += 1;
        }
        r += 1;
    }
    t
}

/// `acc + v * s`, lane by lane (written on arrays, which compile to vector instructions).
#[inline(always)]
fn mul_add8(acc: [f32; 8], v: [f32; 8], s: &[f32; 8]) -> [f32; 8] {
    std::array::from_fn(|l| acc[l] + v[l] * s[l])
}

/// Whether the soft choice's kernels add with AVX-512 masks ([`avx512`]): the active
/// level ([`SimdLevel::active`](crate::SimdLevel::active)) has AVX-512F.
#[cfg(target_arch = "x86_64")]
fn masked_adds() -> bool {
    crate::SimdLevel::active() >= crate::SimdLevel::Avx512
}

/// The soft choice's packed-bit loops as AVX-512 masked adds: a candidate's weight (or an
/// example's adjoint) is added in the lanes whose input bit is set. The portable loops add
/// `value * bit` instead, in the same lanes and the same order. A lane starts at +0 and so
/// never holds -0, and adding +0 or -0 to any other value leaves it as it is: both write
/// the same bits (tested against the lane order written out, and `tests/golden.rs` pins a
/// relaxed run with a learned input choice at every level). Autovectorised
/// selects were measured first: the forward became masked adds, the adjoints' sums did not
/// (BENCHMARKS.md, 2026-12-06).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::PackedBits;
    use std::arch::x86_64::{
        __m512, _mm512_loadu_ps, _mm512_mask_add_ps, _mm512_set1_ps, _mm512_setzero_ps, _mm512_storeu_ps,
    };

    /// Bits `32 q .. 32 q + 32` of a packed row (bit `l` is example `32 q + l`), zero
    /// past its end.
    #[inline(always)]
    fn bits_at(row: &[u8], q: usize) -> u32 {
        match row.get(4 * q..4 * q + 4) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
            None => row.iter().skip(4 * q).enumerate().fold(0, |w, (i, &b)| w | u32::from(b) << (8 * i)),
        }
    }

    /// The 16 lanes of `v`.
    #[inline(always)]
    fn lanes(v: __m512) -> [f32; 16] {
        let mut out = [0.0f32; 16];
        // SAFETY: `out` holds 16 floats.
        unsafe { _mm512_storeu_ps(out.as_mut_ptr(), v) };
        out
    }

    /// One row of `soft_choice`: `y[e] = sum_c a[c] x[src[c], e]`, 32 examples a step.
    #[target_feature(enable = "avx512f")]
    pub(super) fn soft_choice_row(p: &PackedBits, src: &[f32], a: &[f32], y: &mut [f32]) {
        for (q, v) in y.chunks_mut(32).enumerate() {
            let (mut lo, mut hi) = (_mm512_setzero_ps(), _mm512_setzero_ps());
            for (&s, &a) in src.iter().zip(a) {
                let (bits, w) = (bits_at(p.row(s as usize), q), _mm512_set1_ps(a));
                lo = _mm512_mask_add_ps(lo, bits as u16, lo, w);
                hi = _mm512_mask_add_ps(hi, (bits >> 16) as u16, hi, w);
            }
            let both = [lanes(lo), lanes(hi)];
            v.copy_from_slice(&both.as_flattened()[..v.len()]);
        }
    }

    /// One row of `soft_choice_grad_weights`: `dw[c] = sum_e dy[e] x[src[c], e]`, 16
    /// examples a step in 16 lanes, a last partial step in lanes `e % 8`, then lane `l`
    /// and lane `l + 8` added, in order of `l`.
    #[target_feature(enable = "avx512f")]
    pub(super) fn soft_choice_grad_row(p: &PackedBits, src: &[f32], dy: &[f32], dw: &mut [f32]) {
        let whole = dy.len() / 16 * 16;
        for (d, &s) in dw.iter_mut().zip(src) {
            let row = p.row(s as usize);
            let mut acc = _mm512_setzero_ps();
            for (k, v) in dy[..whole].chunks_exact(16).enumerate() {
                // SAFETY: `v` holds 16 floats.
                let v = unsafe { _mm512_loadu_ps(v.as_ptr()) };
                acc = _mm512_mask_add_ps(acc, u16::from_le_bytes([row[2 * k], row[2 * k + 1]]), acc, v);
            }
            let mut acc = lanes(acc);
            for (e, &v) in dy.iter().enumerate().skip(whole) {
                acc[e % 8] += v * f32::from(row[e / 8] >> (e % 8) & 1);
            }
            *d = acc[..8].iter().zip(&acc[8..]).map(|(x, y)| x + y).sum();
        }
    }
}

/// `(candidates, x [N, B], dy [M, B]) -> [M, C]`: the weight adjoints of [`soft_choice`],
/// `sum_e dy[m, e] x[candidates[m, c], e]`.
#[must_use]
pub fn soft_choice_grad_weights(candidates: &Tensor, x: &Tensor, dy: &Tensor) -> Tensor {
    let (n, b) = (x.shape()[0], x.shape()[1]);
    let (c, sources) = (check_candidates(candidates, n), candidates.data());
    let g = dy.data();
    let mut out = par_zeros(candidates.len());
    let packed = packed_rows(x);
    let xs = if packed.is_some() { &[][..] } else { x.data() };
    par_rows(
        &mut out,
        c,
        #[inline(always)]
        |first, rows| {
            for (r, dw) in rows.chunks_exact_mut(c).enumerate() {
                let m = first + r;
                let gm = &g[m * b..(m + 1) * b];
                let src = &sources[m * c..(m + 1) * c];
                match &packed {
                    Some(p) => choice_grad_row(p, src, gm, dw),
                    None => {
                        for (d, &s) in dw.iter_mut().zip(src) {
                            *d = lane_dot(gm, &xs[s as usize * b..][..b]);
                        }
                    }
                }
            }
        },
    );
    Tensor::new(candidates.shape().to_vec(), out)
}

/// One row of [`soft_choice_grad_weights`] over packed input bits: `dw[c] = sum_e dy[e]
/// x[src[c], e]`.
#[inline(always)]
fn choice_grad_row(p: &PackedBits, src: &[f32], dy: &[f32], dw: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if masked_adds() {
        // SAFETY: `masked_adds` says the CPU has AVX-512F.
        unsafe { avx512::soft_choice_grad_row(p, src, dy, dw) };
        return;
    }
    // Two 8-lane accumulators per candidate, 16 examples a step.
    let whole = dy.len() / 16 * 16;
    for (d, &s) in dw.iter_mut().zip(src) {
        let row = p.row(s as usize);
        let (mut a0, mut a1) = ([0.0f32; 8], [0.0f32; 8]);
        for (k, v) in dy[..whole].chunks_exact(16).enumerate() {
            let (lo, hi) = v.split_at(8);
            let lo: [f32; 8] = lo.try_into().expect("8 examples");
            let hi: [f32; 8] = hi.try_into().expect("8 examples");
            a0 = mul_add8(a0, lo, &BIT_PATTERNS[usize::from(row[2 * k])]);
            a1 = mul_add8(a1, hi, &BIT_PATTERNS[usize::from(row[2 * k + 1])]);
        }
        for (e, &v) in dy.iter().enumerate().skip(whole) {
            a0[e % 8] += v * f32::from(row[e / 8] >> (e % 8) & 1);
        }
        *d = a0.iter().zip(&a1).map(|(x, y)| x + y).sum();
    }
}

/// `(wiring [W, k], tables [W, 2^k], candidates [M, C], x [N, B], u [M, B], dy [W, B]) ->
/// [M, C]`: the weight adjoints of a learned choice `u` ([`soft_choice`] of `x`) that a LUT
/// layer reads, `soft_choice_grad_weights(candidates, x, lut_grad_inputs(wiring, tables, u,
/// dy))` in one pass. Where the LUTs read the choice's rows in order, each once (node `j`'s
/// address bit `i` row `j k + i`, as a layer with a choice does) and `x` is input bits, each
/// node's input adjoints are made in a buffer of `k` rows and used at once, so the `[M, B]`
/// tensor of them is never written nor read back; every value is computed by the same
/// expressions in the same order as by the two kernels (the same bits). Otherwise it is
/// the two kernels.
#[must_use]
pub fn lut_choice_grad_weights(
    wiring: &Tensor,
    tables: &Tensor,
    candidates: &Tensor,
    x: &Tensor,
    u: &Tensor,
    dy: &Tensor,
) -> Tensor {
    let (rows, b) = (u.shape()[0], u.shape()[1]);
    let w = LayerWiring::from_tensor(wiring, rows);
    let in_order = w.sources.len() == rows && w.sources.iter().enumerate().all(|(r, &s)| s as usize == r);
    let packed = packed_rows(x);
    let (Some(p), true) = (packed, in_order) else {
        return soft_choice_grad_weights(candidates, x, &lut_grad_inputs(wiring, tables, u, dy));
    };
    let c = check_candidates(candidates, x.shape()[0]);
    let mut out = par_zeros(candidates.len());
    let f = match w.k {
        3 => choice_grads_of_luts::<2>,
        4 => choice_grads_of_luts::<3>,
        5 => choice_grads_of_luts::<4>,
        6 => choice_grads_of_luts::<5>,
        _ => choice_grads_of_luts::<0>,
    };
    f(&w, tables.data(), &p, candidates.data(), c, u.data(), dy.data(), b, &mut out);
    Tensor::new(candidates.shape().to_vec(), out)
}

/// The one pass of [`lut_choice_grad_weights`] into `out` `[M, C]`, compiled for `M` other
/// inputs per LUT as [`input_grads_n`] is.
#[allow(clippy::too_many_arguments)]
fn choice_grads_of_luts<const M: usize>(
    w: &LayerWiring,
    tables: &[f32],
    p: &PackedBits,
    sources: &[f32],
    c: usize,
    u: &[f32],
    dy: &[f32],
    b: usize,
    out: &mut [f32],
) {
    let (k, size) = (w.k, 1usize << w.k);
    par_rows(
        out,
        k * c,
        #[inline(always)]
        |first, nodes| {
            let mut scratch = InputGradScratch::new(k, b);
            let mut d = vec![0.0f32; b];
            for (r, dw) in nodes.chunks_exact_mut(k * c).enumerate() {
                let j = first + r;
                let x = w.rows(u, j, b);
                let (t, g) = (&tables[size * j..size * (j + 1)], &dy[j * b..(j + 1) * b]);
                for (i, dw) in dw.chunks_exact_mut(c).enumerate() {
                    d.fill(0.0);
                    add_input_grad::<M>(t, &x[..k], i, g, &mut d, &mut scratch);
                    let m = j * k + i;
                    choice_grad_row(p, &sources[m * c..(m + 1) * c], &d, dw);
                }
            }
        },
    );
}

/// `(candidates, weights, like [N, B], dy [M, B]) -> [N, B]`: the input adjoints of
/// [`soft_choice`], row `n` the sum over the choices `(m, c)` that offer it (in order) of
/// `weights[m, c] dy[m]`.
#[must_use]
pub fn soft_choice_grad_inputs(candidates: &Tensor, weights: &Tensor, like: &Tensor, dy: &Tensor) -> Tensor {
    let (w, b) = (LayerWiring::from_tensor(candidates, like.shape()[0]), like.shape()[1]);
    let (c, wt, g) = (w.k, weights.data(), dy.data());
    let mut out = par_zeros(like.len());
    par_rows(
        &mut out,
        b,
        #[inline(always)]
        |first, rows| {
            for (r, d) in rows.chunks_exact_mut(b).enumerate() {
                for &mi in w.readers_of(first + r) {
                    let (a, m) = (wt[mi as usize], mi as usize / c);
                    for (v, &s) in d.iter_mut().zip(&g[m * b..(m + 1) * b]) {
                        *v += a * s;
                    }
                }
            }
        },
    );
    Tensor::new(like.shape().to_vec(), out)
}

/// `sum_e a[e] b[e]`, in [`LANES`] fixed lanes added in order (the same sum whatever the
/// vector width).
#[inline(always)]
fn lane_dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    for (l, (x, y)) in ra.iter().zip(rb).enumerate() {
        acc[l] += x * y;
    }
    acc.iter().sum()
}

/// Whether two-input function `f` (its truth table over `s = a + 2b`) is 1 at `s`, as f32.
const TRUTH: [[f32; 16]; 4] = bit_table(true);

/// `[W, 16] -> [W, 4]`: a distribution over the 16 two-input functions to the relaxed
/// 2-LUT table it mixes, `t_s = sum_f p_f [f(s)]`.
#[must_use]
pub fn truth_tables(p: &Tensor) -> Tensor {
    let mut out = vec![0.0f32; p.len() / 4];
    out.par_chunks_mut(4).zip(p.data().par_chunks(16)).for_each(|(t, p)| {
        for (v, row) in t.iter_mut().zip(&TRUTH) {
            *v = row.iter().zip(p).map(|(m, q)| m * q).sum();
        }
    });
    Tensor::new(vec![p.shape()[0], 4], out)
}

/// `[W, 4] -> [W, 16]`: the adjoint of [`truth_tables`], `dp_f = sum_s dt_s [f(s)]`.
#[must_use]
pub fn truth_tables_adjoint(dt: &Tensor) -> Tensor {
    let mut out = vec![0.0f32; dt.len() * 4];
    out.par_chunks_mut(16).zip(dt.data().par_chunks(4)).for_each(|(dp, dt)| {
        for (f, v) in dp.iter_mut().enumerate() {
            *v = (0..4).map(|s| TRUTH[s][f] * dt[s]).sum();
        }
    });
    Tensor::new(vec![dt.shape()[0], 16], out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Forward and both adjoints of a layer, for comparing the two loops.
    fn run(w: &LayerWiring, t: &[f32], x: &[f32], dy: &[f32], b: usize) -> Vec<f32> {
        let mut y = vec![0.0; w.width() * b];
        forward(w, t, x, b, &mut y);
        let mut dt = vec![0.0; t.len()];
        table_grads(w, x, dy, b, &mut dt);
        let mut dx = vec![0.0; x.len()];
        input_grads(w, t, x, dy, b, &mut dx);
        [y, dt, dx].concat()
    }

    /// Node indices are whole numbers from 0 below 2^24; nothing else passes.
    #[test]
    fn node_indices_are_whole_and_in_range() {
        for (v, want) in [(0.0, Some(0)), (-0.0, Some(0)), (7.0, Some(7)), (16_777_215.0, Some(16_777_215))] {
            assert_eq!(node_index(v), want, "{v}");
        }
        for v in [-1.0, 0.5, 7.25, 16_777_216.0, f32::NAN, f32::INFINITY, -f32::INFINITY, 4e9] {
            assert_eq!(node_index(v), None, "{v}");
        }
    }

    /// Only 0.0, -0.0 and 1.0 pack (as 0, 0, 1); any other value, however close, refuses.
    #[test]
    fn packing_takes_exactly_zeros_and_ones() {
        let packed =
            PackedBits::of(&[1.0, 0.0, -0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 10).expect("0/1 values");
        assert_eq!(packed.row(0), &[0b0001_1001, 0b01]);
        let near_one = f32::from_bits(1.0f32.to_bits() + 1);
        for bad in [-1.0, 0.5, 2.0, near_one, f32::MIN_POSITIVE, f32::NAN, f32::INFINITY, 1.0 + f32::EPSILON]
        {
            let mut x = vec![0.0; 9];
            x[8] = bad;
            assert!(PackedBits::of(&x, 9).is_none(), "{bad} packed");
        }
    }

    /// A layer of `w` LUTs of `k` inputs reading `n` rows of `b` examples at random (one read
    /// twice by a node where `w k > n`), with tables, inputs and output adjoints from `seed`.
    fn random_layer(
        k: usize,
        w: usize,
        n: usize,
        b: usize,
        seed: u64,
    ) -> (LayerWiring, Vec<f32>, Vec<f32>, Vec<f32>) {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let sources = (0..w * k).map(|_| rng.random_range(0..n as u32)).collect();
        let t = (0..w << k).map(|_| rng.random::<f32>()).collect();
        let x = (0..n * b).map(|_| rng.random::<f32>()).collect();
        let dy = (0..w * b).map(|_| rng.random::<f32>() - 0.5).collect();
        (LayerWiring::new(k, sources, n), t, x, dy)
    }

    /// The loops compiled for a LUT size (3 to 6 inputs) write the same bits as the loops
    /// for any size, for batches with and without a partial last tile.
    #[test]
    fn loops_for_a_lut_size_match_the_general_loops() {
        for (k, b) in [(2, 37), (3, 16), (3, 37), (4, 128), (4, 5), (5, 37), (6, 37)] {
            let (w, t, x, dy) = random_layer(k, 40, 90, b, k as u64 * 1000 + b as u64);
            let size = 1 << k;
            let (mut y, mut dt, mut dx) = (vec![0.0; 40 * b], vec![0.0; 40 * size], vec![0.0; 90 * b]);
            forward(&w, &t, &x, b, &mut y);
            table_grads(&w, &x, &dy, b, &mut dt);
            input_grads(&w, &t, &x, &dy, b, &mut dx);
            let (mut y0, mut dt0, mut dx0) = (vec![0.0; 40 * b], vec![0.0; 40 * size], vec![0.0; 90 * b]);
            let mut level = vec![[0.0f32; LANES]; (size / 2).max(1)];
            let mut scratch = vec![[0.0f32; LANES]; 2 * size];
            for j in 0..40 {
                let rows = w.rows(&x, j, b);
                let tj = &t[size * j..size * (j + 1)];
                tree_forward(tj, &rows[..k], &mut y0[j * b..(j + 1) * b], &mut level);
                tree_table_grads(
                    &rows[..k],
                    &dy[j * b..(j + 1) * b],
                    &mut dt0[size * j..size * (j + 1)],
                    &mut scratch,
                );
            }
            input_grads_n::<0>(&w, &t, &x, &dy, b, &mut dx0);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            // Two-input LUTs have their own bilinear loops for these two (`bilinear_matches_tree`).
            if k > 2 {
                assert_eq!(bits(&y), bits(&y0), "forward, k = {k}, b = {b}");
                assert_eq!(bits(&dt), bits(&dt0), "table adjoints, k = {k}, b = {b}");
            }
            assert_eq!(bits(&dx), bits(&dx0), "input adjoints, k = {k}, b = {b}");
        }
    }

    /// The weight adjoints of a learned choice read by LUTs, in one pass, are the two
    /// kernels' bit for bit: on input bits read in order (the fused loop), and otherwise
    /// (the two kernels themselves).
    #[test]
    fn choice_adjoints_through_luts_are_the_two_kernels() {
        use rand::{RngExt, SeedableRng};
        for (k, c, b) in [(2, 3, 21), (3, 4, 37), (4, 4, 128), (4, 32, 64), (5, 2, 16)] {
            let (w, rows, n) = (30, 30 * k, 50);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64((k * 100 + c) as u64);
            let mut tensor = |shape: Vec<usize>, f: &mut dyn FnMut(&mut rand_chacha::ChaCha8Rng) -> f32| {
                let len = shape.iter().product();
                Tensor::new(shape, (0..len).map(|_| f(&mut rng)).collect())
            };
            let bits = tensor(vec![n, b], &mut |r| f32::from(u8::from(r.random::<bool>())));
            let floats = tensor(vec![n, b], &mut |r| r.random());
            let cand = tensor(vec![rows, c], &mut |r| r.random_range(0..n) as f32);
            let weights = tensor(vec![rows, c], &mut |r| r.random());
            let tables = tensor(vec![w, 1 << k], &mut |r| r.random());
            let dy = tensor(vec![w, b], &mut |r| r.random::<f32>() - 0.5);
            let shuffled = tensor(vec![w, k], &mut |r| r.random_range(0..rows) as f32);
            let in_order = Tensor::new(vec![w, k], (0..rows).map(|r| r as f32).collect());
            for (wiring, x) in [(&in_order, &bits), (&shuffled, &bits), (&in_order, &floats)] {
                let u = soft_choice(&cand, &weights, x);
                let want = soft_choice_grad_weights(&cand, x, &lut_grad_inputs(wiring, &tables, &u, &dy));
                let got = lut_choice_grad_weights(wiring, &tables, &cand, x, &u, &dy);
                let bits = |t: &Tensor| t.data().iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(got.shape(), want.shape());
                assert_eq!(bits(&got), bits(&want), "k = {k}, C = {c}, B = {b}");
            }
        }
    }

    proptest! {
        /// On 0/1 inputs the soft choice runs on packed bits; it agrees with the sums
        /// written out, for a batch that is not a multiple of 8 examples.
        #[test]
        fn soft_choice_on_bits_matches_the_sums(
            bits in proptest::collection::vec(any::<bool>(), 5 * 21),
            weights in proptest::collection::vec(-1.0f32..1.0, 4 * 3),
            dy in proptest::collection::vec(-1.0f32..1.0, 4 * 21),
        ) {
            let b = 21;
            let x: Vec<f32> = bits.iter().map(|&v| f32::from(u8::from(v))).collect();
            let cand = vec![0., 4., 2., 1., 1., 3., 4., 0., 2., 3., 3., 3.];
            let (cand_t, w_t) = (Tensor::new(vec![4, 3], cand.clone()), Tensor::new(vec![4, 3], weights.clone()));
            let (x_t, dy_t) = (Tensor::new(vec![5, b], x.clone()), Tensor::new(vec![4, b], dy.clone()));
            prop_assert!(PackedBits::of(&x, b).is_some());
            let y = soft_choice(&cand_t, &w_t, &x_t);
            let dw = soft_choice_grad_weights(&cand_t, &x_t, &dy_t);
            // The same from the packed rows a tensor carries.
            let carried = Tensor::from_packed_bits(5, b, PackedBits::of(&x, b).expect("0/1 values"));
            prop_assert_eq!(&soft_choice(&cand_t, &w_t, &carried), &y);
            prop_assert_eq!(&soft_choice_grad_weights(&cand_t, &carried, &dy_t), &dw);
            prop_assert!(!carried.floats_made(), "the kernels read the packed rows only");
            prop_assert_eq!(&carried, &x_t);
            prop_assert!(carried.floats_made());
            for m in 0..4 {
                let xs = |c: usize, e: usize| x[cand[m * 3 + c] as usize * b + e];
                for e in 0..b {
                    let want: f32 = (0..3).map(|c| weights[m * 3 + c] * xs(c, e)).sum();
                    prop_assert!((y.data()[m * b + e] - want).abs() < 1e-5);
                    // Bit for bit, whichever instruction set ran: the candidates in order
                    // from +0.
                    let exact = (0..3).fold(0.0f32, |acc, c| acc + weights[m * 3 + c] * xs(c, e));
                    prop_assert_eq!(y.data()[m * b + e].to_bits(), exact.to_bits());
                }
                // The adjoints' lanes: examples 16k + l in lane l, the last partial step in
                // lanes e % 8, then lane l and lane l + 8 added in order of l.
                for c in 0..3 {
                    let mut lanes = [0.0f32; 16];
                    for e in 0..b {
                        let lane = if e < b / 16 * 16 { e % 16 } else { e % 8 };
                        lanes[lane] += dy[m * b + e] * xs(c, e);
                    }
                    let exact: f32 = lanes[..8].iter().zip(&lanes[8..]).map(|(x, y)| x + y).sum();
                    prop_assert_eq!(dw.data()[m * 3 + c].to_bits(), exact.to_bits());
                }
                for c in 0..3 {
                    let want: f32 = (0..b).map(|e| dy[m * b + e] * x[cand[m * 3 + c] as usize * b + e]).sum();
                    prop_assert!((dw.data()[m * 3 + c] - want).abs() < 1e-4);
                }
            }
        }

        /// The bilinear two-input loops and the general mux-tree loops are the same map
        /// (a 2-input LUT written as a 3-input one that ignores its last input).
        #[test]
        fn bilinear_matches_tree(
            t in proptest::collection::vec(0.0f32..1.0, 12),
            x in proptest::collection::vec(0.0f32..1.0, 3 * 21),
            dy in proptest::collection::vec(-1.0f32..1.0, 3 * 21),
        ) {
            let b = 21;
            let two = LayerWiring::new(2, vec![0, 1, 2, 0, 1, 2], 3);
            let three = LayerWiring::new(3, vec![0, 1, 2, 2, 0, 1, 1, 2, 0], 3);
            let t3: Vec<f32> = t.chunks(4).flat_map(|c| [c, c].concat()).collect();
            let got = run(&two, &t, &x, &dy, b);
            let want = run(&three, &t3, &x, &dy, b);
            let (y, dt) = (&got[..3 * b], &got[3 * b..3 * b + 12]);
            let (y3, dt3) = (&want[..3 * b], &want[3 * b..3 * b + 24]);
            for (a, c) in y.iter().zip(y3) {
                prop_assert!((a - c).abs() < 1e-5);
            }
            // The ignored input splits each table adjoint over its two copies.
            for (j, d) in dt.chunks(4).enumerate() {
                for s in 0..4 {
                    let both = dt3[8 * j + s] + dt3[8 * j + 4 + s];
                    prop_assert!((d[s] - both).abs() < 1e-4, "{} vs {both}", d[s]);
                }
            }
            // Input adjoints of the third input are zero in `three`'s extra reads.
            for (a, c) in got[3 * b + 12..].iter().zip(&want[3 * b + 24..]) {
                prop_assert!((a - c).abs() < 1e-4, "{a} vs {c}");
            }
        }

        /// The reverse maps of a 3-input relaxed LUT layer against central differences.
        #[test]
        fn tree_reverse_matches_finite_differences(
            t in proptest::collection::vec(0.0f32..1.0, 16),
            x in proptest::collection::vec(0.05f32..0.95, 4),
        ) {
            let w = LayerWiring::new(3, vec![0, 1, 2, 3, 1, 0], 4);
            let loss = |t: &[f32], x: &[f32]| {
                let mut y = vec![0.0; 2];
                forward(&w, t, x, 1, &mut y);
                y[0] - 2.0 * y[1]
            };
            let (mut dx, mut dt) = (vec![0.0; 4], vec![0.0; 16]);
            input_grads(&w, &t, &x, &[1.0, -2.0], 1, &mut dx);
            table_grads(&w, &x, &[1.0, -2.0], 1, &mut dt);
            let h = 1e-2f32;
            for i in 0..4 {
                let (mut up, mut down) = (x.clone(), x.clone());
                up[i] += h;
                down[i] -= h;
                let fd = (loss(&t, &up) - loss(&t, &down)) / (2.0 * h);
                prop_assert!((fd - dx[i]).abs() < 1e-3, "dx{i}: {fd} vs {}", dx[i]);
            }
            for s in 0..16 {
                let (mut up, mut down) = (t.clone(), t.clone());
                up[s] += h;
                down[s] -= h;
                let fd = (loss(&up, &x) - loss(&down, &x)) / (2.0 * h);
                prop_assert!((fd - dt[s]).abs() < 1e-3, "dt{s}: {fd} vs {}", dt[s]);
            }
        }
    }

    #[test]
    fn zero_one_inputs_read_the_table() {
        let w = LayerWiring::new(3, vec![0, 1, 2], 3);
        let t: Vec<f32> = (0..8).map(|s| if s == 5 || s == 6 { 1.0 } else { 0.0 }).collect();
        for s in 0..8usize {
            let x: Vec<f32> = (0..3).map(|i| (s >> i & 1) as f32).collect();
            let mut y = [0.0];
            forward(&w, &t, &x, 1, &mut y);
            assert_eq!(y[0], t[s]);
        }
    }

    #[test]
    fn readers_invert_the_wiring() {
        let w = LayerWiring::new(2, vec![2, 0, 2, 2, 1, 0], 4);
        let got: Vec<Vec<u32>> = (0..4).map(|n| w.readers_of(n).to_vec()).collect();
        assert_eq!(got, vec![vec![1, 5], vec![4], vec![0, 2, 3], vec![]]);
    }
}
