//! The relaxed layer kernels: forward and reverse of a layer of relaxed K-input LUTs over
//! a chunk of examples, in f32, node-major (`acts[node * len + e]`).
//!
//! A relaxed LUT with table `t` (entries in `[0, 1]`) computes the multilinear
//! interpolation of `t` at its inputs: `y = sum_s t_s prod_i (x_i if s_i else 1 - x_i)`,
//! which equals the LUT on 0/1 inputs. Its reverse map gives `dt_s = dy prod_i (..)` and
//! `dx_i = dy (y|x_i=1 - y|x_i=0)`. Two-input gates are the case `K = 2`, where `y` is
//! bilinear, `c0 + c1 a + c2 b + c3 ab`, and have their own loop (`bilinear_*`), which
//! agrees with the general mux-tree loop (tested).

/// The wiring of one layer: `k` sources per node in the previous layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerWiring {
    /// Inputs per node.
    pub k: usize,
    /// `width * k` source indices into the previous layer, node by node; source `i` of a
    /// node is address bit `i` of its table.
    pub sources: Vec<u32>,
}

impl LayerWiring {
    /// Nodes in the layer.
    #[must_use]
    pub fn width(&self) -> usize {
        self.sources.len() / self.k
    }
}

/// Forward of one layer over `len` examples: `out[j * len + e]` from `prev` and the
/// layer's tables (`2^k` entries per node).
pub fn forward(w: &LayerWiring, tables: &[f32], prev: &[f32], len: usize, out: &mut [f32]) {
    if w.k == 2 {
        bilinear_forward(w, tables, prev, len, out);
    } else {
        tree_forward(w, tables, prev, len, out);
    }
}

/// Reverse of one layer: adds input adjoints to `dprev` and table adjoints to `dtables`,
/// given the output adjoints `dout`.
pub fn reverse(
    w: &LayerWiring,
    tables: &[f32],
    prev: &[f32],
    dout: &[f32],
    len: usize,
    dprev: &mut [f32],
    dtables: &mut [f32],
) {
    if w.k == 2 {
        bilinear_reverse(w, tables, prev, dout, len, dprev, dtables);
    } else {
        tree_reverse(w, tables, prev, dout, len, dprev, dtables);
    }
}

/// The bilinear coefficients of a two-input table (address bit 0 is `a`).
#[inline]
fn coefficients(t: &[f32]) -> [f32; 4] {
    [t[0], t[1] - t[0], t[2] - t[0], t[3] - t[2] - t[1] + t[0]]
}

fn bilinear_forward(w: &LayerWiring, tables: &[f32], prev: &[f32], len: usize, out: &mut [f32]) {
    for (j, y) in out.chunks_exact_mut(len).enumerate() {
        let [c0, c1, c2, c3] = coefficients(&tables[4 * j..4 * j + 4]);
        let a = &prev[w.sources[2 * j] as usize * len..][..len];
        let b = &prev[w.sources[2 * j + 1] as usize * len..][..len];
        for e in 0..len {
            y[e] = c0 + c1 * a[e] + (c2 + c3 * a[e]) * b[e];
        }
    }
}

fn bilinear_reverse(
    w: &LayerWiring,
    tables: &[f32],
    prev: &[f32],
    dout: &[f32],
    len: usize,
    dprev: &mut [f32],
    dtables: &mut [f32],
) {
    for (j, dy) in dout.chunks_exact(len).enumerate() {
        let [_, c1, c2, c3] = coefficients(&tables[4 * j..4 * j + 4]);
        let (ia, ib) = (w.sources[2 * j] as usize, w.sources[2 * j + 1] as usize);
        let a = &prev[ia * len..][..len];
        let b = &prev[ib * len..][..len];
        let (mut d0, mut d1, mut d2, mut d3) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        for e in 0..len {
            let g = dy[e];
            let ga = g * a[e];
            d0 += g;
            d1 += ga;
            d2 += g * b[e];
            d3 += ga * b[e];
        }
        // dy/dc -> dy/dt: c0 = t0, c1 = t1 - t0, c2 = t2 - t0, c3 = t3 - t2 - t1 + t0.
        let dt = &mut dtables[4 * j..4 * j + 4];
        dt[0] += d0 - d1 - d2 + d3;
        dt[1] += d1 - d3;
        dt[2] += d2 - d3;
        dt[3] += d3;
        for (d, (&g, &bv)) in dprev[ia * len..][..len].iter_mut().zip(dy.iter().zip(b)) {
            *d += g * (c1 + c3 * bv);
        }
        for (d, (&g, &av)) in dprev[ib * len..][..len].iter_mut().zip(dy.iter().zip(a)) {
            *d += g * (c2 + c3 * av);
        }
    }
}

/// Multilinear interpolation of `t` at `x` as a mux tree; `level` holds `2^k` scratch
/// values and ends with `level[0] = y`.
#[inline]
fn tree_eval(t: &[f32], x: &[f32], level: &mut [f32]) -> f32 {
    level.copy_from_slice(t);
    let mut n = t.len();
    for &xi in x {
        n /= 2;
        for j in 0..n {
            let (lo, hi) = (level[2 * j], level[2 * j + 1]);
            level[j] = lo + xi * (hi - lo);
        }
    }
    level[0]
}

fn tree_forward(w: &LayerWiring, tables: &[f32], prev: &[f32], len: usize, out: &mut [f32]) {
    let size = 1usize << w.k;
    let mut x = vec![0.0f32; w.k];
    let mut level = vec![0.0f32; size];
    for (j, y) in out.chunks_exact_mut(len).enumerate() {
        let t = &tables[size * j..size * (j + 1)];
        let src = &w.sources[w.k * j..w.k * (j + 1)];
        for e in 0..len {
            for (xi, &s) in x.iter_mut().zip(src) {
                *xi = prev[s as usize * len + e];
            }
            y[e] = tree_eval(t, &x, &mut level);
        }
    }
}

fn tree_reverse(
    w: &LayerWiring,
    tables: &[f32],
    prev: &[f32],
    dout: &[f32],
    len: usize,
    dprev: &mut [f32],
    dtables: &mut [f32],
) {
    let (k, size) = (w.k, 1usize << w.k);
    let mut x = vec![0.0f32; k];
    // levels[l] holds the 2^(k-l) values after interpolating address bits 0..l.
    let mut levels: Vec<Vec<f32>> = (0..=k).map(|l| vec![0.0f32; size >> l]).collect();
    let mut adj: Vec<Vec<f32>> = levels.clone();
    for (j, dy) in dout.chunks_exact(len).enumerate() {
        let t = &tables[size * j..size * (j + 1)];
        let src = &w.sources[k * j..k * (j + 1)];
        let dt = &mut dtables[size * j..size * (j + 1)];
        for e in 0..len {
            for (xi, &s) in x.iter_mut().zip(src) {
                *xi = prev[s as usize * len + e];
            }
            levels[0].copy_from_slice(t);
            for l in 0..k {
                let (done, rest) = levels.split_at_mut(l + 1);
                for (v, pair) in rest[0].iter_mut().zip(done[l].chunks_exact(2)) {
                    *v = pair[0] + x[l] * (pair[1] - pair[0]);
                }
            }
            adj[k][0] = dy[e];
            for l in (0..k).rev() {
                let (lower, upper) = adj.split_at_mut(l + 1);
                let mut dx = 0.0f32;
                for (i, &d) in upper[0].iter().enumerate() {
                    let (lo, hi) = (levels[l][2 * i], levels[l][2 * i + 1]);
                    dx += d * (hi - lo);
                    lower[l][2 * i] = d * (1.0 - x[l]);
                    lower[l][2 * i + 1] = d * x[l];
                }
                dprev[src[l] as usize * len + e] += dx;
            }
            for (a, &d) in dt.iter_mut().zip(&adj[0]) {
                *a += d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn two_input_layer() -> LayerWiring {
        LayerWiring { k: 2, sources: vec![0, 1, 2, 0, 1, 2] }
    }

    proptest! {
        /// The bilinear two-input loop and the general mux-tree loop are the same map.
        #[test]
        fn bilinear_matches_tree(
            t in proptest::collection::vec(0.0f32..1.0, 12),
            x in proptest::collection::vec(0.0f32..1.0, 3 * 5),
            dy in proptest::collection::vec(-1.0f32..1.0, 3 * 5),
        ) {
            let w = two_input_layer();
            let len = 5;
            let (mut y1, mut y2) = (vec![0.0; 15], vec![0.0; 15]);
            bilinear_forward(&w, &t, &x, len, &mut y1);
            tree_forward(&w, &t, &x, len, &mut y2);
            for (a, b) in y1.iter().zip(&y2) {
                prop_assert!((a - b).abs() < 1e-5);
            }
            let (mut dx1, mut dx2) = (vec![0.0; 15], vec![0.0; 15]);
            let (mut dt1, mut dt2) = (vec![0.0; 12], vec![0.0; 12]);
            bilinear_reverse(&w, &t, &x, &dy, len, &mut dx1, &mut dt1);
            tree_reverse(&w, &t, &x, &dy, len, &mut dx2, &mut dt2);
            for (a, b) in dx1.iter().zip(&dx2).chain(dt1.iter().zip(&dt2)) {
                prop_assert!((a - b).abs() < 1e-4, "{a} vs {b}");
            }
        }

        /// The reverse map of a 3-input relaxed LUT layer against central differences.
        #[test]
        fn tree_reverse_matches_finite_differences(
            t in proptest::collection::vec(0.0f32..1.0, 16),
            x in proptest::collection::vec(0.05f32..0.95, 4),
        ) {
            let w = LayerWiring { k: 3, sources: vec![0, 1, 2, 3, 1, 0] };
            let loss = |t: &[f32], x: &[f32]| {
                let mut y = vec![0.0; 2];
                tree_forward(&w, t, x, 1, &mut y);
                y[0] - 2.0 * y[1]
            };
            let (mut dx, mut dt) = (vec![0.0; 4], vec![0.0; 16]);
            tree_reverse(&w, &t, &x, &[1.0, -2.0], 1, &mut dx, &mut dt);
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
        let w = LayerWiring { k: 3, sources: vec![0, 1, 2] };
        let t: Vec<f32> = (0..8).map(|s| if s == 5 || s == 6 { 1.0 } else { 0.0 }).collect();
        for s in 0..8usize {
            let x: Vec<f32> = (0..3).map(|i| (s >> i & 1) as f32).collect();
            let mut y = [0.0];
            tree_forward(&w, &t, &x, 1, &mut y);
            assert_eq!(y[0], t[s]);
        }
    }
}
