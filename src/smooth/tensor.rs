//! `Tensor`: a dense row-major f32 array with a shape, and the numeric kernels the smooth
//! gates run on it (broadcasting arithmetic, matrix products via `matrixmultiply`,
//! 2D correlation by im2col, max-pooling); and [`PackedBits`], the rows of a 0/1 tensor
//! packed one bit per example. Kernels split their work over rayon.

use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

/// Elements per rayon task in elementwise kernels (each element computed alone, so the
/// split does not change results).
const PAR_ELEMENTS: usize = 1 << 14;

/// A dense f32 array, row-major. Activations carry the batch as their first axis;
/// shape `[]` is a scalar.
///
/// A tensor of 0s and 1s may be built from its rows bit-packed ([`PackedBits`]; the
/// crate's batches of input bits are) and keeps them: the kernels that read rows of bits
/// use them, and its floats are made only when first read, so that a batch that only
/// such kernels see is never written out as floats. Equality compares shape and values.
#[derive(Clone, Debug)]
pub struct Tensor {
    shape: Vec<usize>,
    /// The elements: always set, except in a tensor built from packed rows until its
    /// floats are first read.
    data: OnceLock<Vec<f32>>,
    bits: Option<Arc<PackedBits>>,
}

impl PartialEq for Tensor {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.data() == other.data()
    }
}

impl Tensor {
    /// A tensor of the given shape and row-major data.
    ///
    /// # Panics
    /// If `data.len()` is not the product of `shape` (a caller bug).
    #[must_use]
    pub fn new(shape: Vec<usize>, data: Vec<f32>) -> Self {
        assert_eq!(shape.iter().product::<usize>(), data.len(), "tensor data does not fit shape {shape:?}");
        Self { shape, data: OnceLock::from(data), bits: None }
    }

    /// The `[N, B]` tensor of 0/1 values whose rows `bits` holds packed; its floats are
    /// made when first read.
    ///
    /// # Panics
    /// If `bits` does not hold `rows` packed rows of `b` examples (a caller bug).
    #[must_use]
    pub(crate) fn from_packed_bits(rows: usize, b: usize, bits: PackedBits) -> Self {
        assert!(
            bits.bytes_per_row == b.div_ceil(8) && bits.bits.len() == rows * bits.bytes_per_row,
            "packed bits do not fit a [{rows}, {b}] tensor"
        );
        Self { shape: vec![rows, b], data: OnceLock::new(), bits: Some(Arc::new(bits)) }
    }

    /// Rows `rows` of a tensor built from packed rows, still packed (`[rows.len(), B]`);
    /// none if it has no packed rows.
    #[must_use]
    pub(crate) fn packed_rows(&self, rows: &[usize]) -> Option<Self> {
        let (bits, b) = (self.bits.as_deref()?, self.shape[1]);
        let mut out = Vec::with_capacity(rows.len() * bits.bytes_per_row);
        for &r in rows {
            out.extend_from_slice(bits.row(r));
        }
        Some(Self::from_packed_bits(rows.len(), b, PackedBits::from_bytes(b, out)))
    }

    /// Whether the floats exist yet (a tensor built from packed rows makes them on
    /// their first read).
    #[cfg(test)]
    pub(crate) fn floats_made(&self) -> bool {
        self.data.get().is_some()
    }

    /// Zeros of the given shape.
    #[must_use]
    pub fn zeros(shape: Vec<usize>) -> Self {
        let n = shape.iter().product();
        Self::new(shape, vec![0.0; n])
    }

    /// A scalar (shape `[]`).
    #[must_use]
    pub fn scalar(v: f32) -> Self {
        Self::new(Vec::new(), vec![v])
    }

    /// The rows bit-packed, if the tensor was built with them (the crate's batches of
    /// input bits are).
    #[must_use]
    pub fn packed_bits(&self) -> Option<&PackedBits> {
        self.bits.as_deref()
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements, row-major.
    #[must_use]
    pub fn data(&self) -> &[f32] {
        self.data.get_or_init(|| {
            let bits = self.bits.as_deref().expect("a tensor without floats has packed rows");
            bits.unpacked(self.shape[1])
        })
    }

    /// The elements, mutable (the shape stays; packed bits are dropped).
    pub fn data_mut(&mut self) -> &mut [f32] {
        let _ = self.data();
        self.bits = None;
        self.data.get_mut().expect("the floats were just made")
    }

    /// The elements, by value.
    #[must_use]
    pub fn into_data(self) -> Vec<f32> {
        let _ = self.data();
        self.data.into_inner().expect("the floats were just made")
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the tensor has no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of the first (batch) axis; 1 for a scalar.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.shape.first().copied().unwrap_or(1)
    }

    /// Elements per row (everything after the first axis).
    #[must_use]
    pub fn row_len(&self) -> usize {
        self.shape.iter().skip(1).product()
    }

    /// The same data under another shape.
    ///
    /// # Panics
    /// If the element counts differ.
    #[must_use]
    pub fn reshaped(self, shape: Vec<usize>) -> Self {
        Self::new(shape, self.into_data())
    }

    /// `f` applied to every element.
    #[must_use]
    pub fn map(&self, f: impl Fn(f32) -> f32 + Sync) -> Self {
        let data = self.data().par_iter().with_min_len(PAR_ELEMENTS).map(|&v| f(v)).collect();
        Self::new(self.shape.clone(), data)
    }

    /// `f(a, b)` elementwise, same shape.
    #[must_use]
    pub fn zip(&self, other: &Self, f: impl Fn(f32, f32) -> f32 + Sync) -> Self {
        assert_eq!(self.shape, other.shape, "zip of different shapes");
        let pairs = self.data().par_iter().zip(other.data()).with_min_len(PAR_ELEMENTS);
        Self::new(self.shape.clone(), pairs.map(|(&a, &b)| f(a, b)).collect())
    }
}

/// The rows of a node-major `[N, B]` tensor of 0/1 values packed one bit per example
/// (bit `e % 8` of byte `e / 8` of its row, the rest of the last byte 0): 32 times
/// smaller than the floats, so the random rows a learned wiring reads stay in cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedBits {
    bytes_per_row: usize,
    bits: Vec<u8>,
}

impl PackedBits {
    /// `x` (rows of `b`) packed, or none if a value is neither 0 nor 1 (or `b` is 0).
    #[must_use]
    pub fn of(x: &[f32], b: usize) -> Option<Self> {
        if b == 0 {
            return None;
        }
        let bytes_per_row = b.div_ceil(8);
        let mut bits = vec![0u8; x.len() / b * bytes_per_row];
        let all_bits = bits.par_chunks_mut(bytes_per_row).zip(x.par_chunks_exact(b)).all(|(out, row)| {
            let mut ok = true;
            for (o, v) in out.iter_mut().zip(row.chunks(8)) {
                for (i, &v) in v.iter().enumerate() {
                    ok &= v == 0.0 || v == 1.0;
                    *o |= u8::from(v == 1.0) << i;
                }
            }
            ok
        });
        all_bits.then_some(Self { bytes_per_row, bits })
    }

    /// Rows of `b` examples from their bytes, `b.div_ceil(8)` per row in the layout above.
    ///
    /// # Panics
    /// If `b` is 0 or `bits` is not a whole number of rows.
    #[must_use]
    pub(crate) fn from_bytes(b: usize, bits: Vec<u8>) -> Self {
        let bytes_per_row = b.div_ceil(8);
        assert!(b > 0 && bits.len().is_multiple_of(bytes_per_row), "whole rows of {bytes_per_row} bytes");
        Self { bytes_per_row, bits }
    }

    /// The bytes of row `n`.
    #[must_use]
    pub fn row(&self, n: usize) -> &[u8] {
        &self.bits[n * self.bytes_per_row..][..self.bytes_per_row]
    }

    /// The values, `b` 0/1 floats per row (`b` the examples the rows were packed from).
    fn unpacked(&self, b: usize) -> Vec<f32> {
        let n = self.bits.len() / self.bytes_per_row * b;
        let mut x: Vec<f32> = Vec::with_capacity(n);
        x.spare_capacity_mut()[..n]
            .par_chunks_mut(b)
            .zip(self.bits.par_chunks(self.bytes_per_row))
            .with_min_len((PAR_ELEMENTS / b).max(1))
            .for_each(|(out, bytes)| {
                for (out, &byte) in out.chunks_mut(8).zip(bytes) {
                    for (i, v) in out.iter_mut().enumerate() {
                        v.write(f32::from(byte >> i & 1));
                    }
                }
            });
        // SAFETY: the rows above cover `x`'s first `n` slots, and each slot was written.
        unsafe { x.set_len(n) };
        x
    }
}

/// `len` zeros, written by all threads: a kernel's output that it adds into (or that is
/// zero where it writes nothing), without a serial `memset` of megabytes beforehand
/// while the other threads wait (as `vec![0.0; len]` on recycled memory is).
#[must_use]
pub fn par_zeros<T: Copy + Default + Send + Sync>(len: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    v.par_extend(rayon::iter::repeat_n(T::default(), len).with_min_len(PAR_ELEMENTS));
    v
}

/// The broadcast shape of `a` and `b`: equal shapes, a scalar with anything, or equal
/// rank with every axis equal or 1 in one of them. `None` if they do not broadcast.
#[must_use]
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    if a == b || b.is_empty() {
        return Some(a.to_vec());
    }
    if a.is_empty() {
        return Some(b.to_vec());
    }
    if a.len() != b.len() {
        return None;
    }
    a.iter()
        .zip(b)
        .map(|(&x, &y)| match (x, y) {
            _ if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Row-major strides of `shape` read as `out` (axes of size 1, or all axes of a
/// scalar, get stride 0).
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        return vec![0; out.len()];
    }
    let mut strides = vec![0; out.len()];
    let mut s = 1;
    for i in (0..out.len()).rev() {
        strides[i] = if shape[i] == 1 && out[i] != 1 { 0 } else { s };
        s *= shape[i];
    }
    strides
}

/// Visits every index of `out` in row-major order with the matching offsets into two
/// operands of the given strides: `f(out_offset, a_offset, b_offset)`.
fn for_each_broadcast(out: &[usize], sa: &[usize], sb: &[usize], mut f: impl FnMut(usize, usize, usize)) {
    let n: usize = out.iter().product();
    if n == 0 {
        return;
    }
    let rank = out.len();
    if rank == 0 {
        f(0, 0, 0);
        return;
    }
    let inner = out[rank - 1];
    let (ia, ib) = (sa[rank - 1], sb[rank - 1]);
    let mut idx = vec![0usize; rank];
    let (mut oa, mut ob) = (0usize, 0usize);
    let mut o = 0;
    loop {
        for k in 0..inner {
            f(o + k, oa + k * ia, ob + k * ib);
        }
        o += inner;
        if o >= n {
            return;
        }
        // Advance the outer multi-index.
        let mut axis = rank - 1;
        loop {
            axis -= 1;
            idx[axis] += 1;
            oa += sa[axis];
            ob += sb[axis];
            if idx[axis] < out[axis] {
                break;
            }
            oa -= sa[axis] * out[axis];
            ob -= sb[axis] * out[axis];
            idx[axis] = 0;
        }
    }
}

/// `f(a, b)` with broadcasting (see [`broadcast_shape`]).
///
/// # Panics
/// If the shapes do not broadcast (circuits are shape-checked before they run).
#[must_use]
pub fn broadcast(a: &Tensor, b: &Tensor, f: impl Fn(f32, f32) -> f32 + Sync) -> Tensor {
    if a.shape == b.shape {
        return a.zip(b, f);
    }
    let out = broadcast_shape(&a.shape, &b.shape).expect("shapes broadcast");
    let (sa, sb) = (broadcast_strides(&a.shape, &out), broadcast_strides(&b.shape, &out));
    let mut data = vec![0.0; out.iter().product()];
    let (ad, bd) = (a.data(), b.data());
    for_each_broadcast(&out, &sa, &sb, |o, i, j| data[o] = f(ad[i], bd[j]));
    Tensor::new(out, data)
}

/// `g` summed down to `shape` (the reverse of broadcasting `shape` up to `g`'s shape).
#[must_use]
pub fn sum_to(g: &Tensor, shape: &[usize]) -> Tensor {
    if g.shape == shape {
        return g.clone();
    }
    if shape.is_empty() {
        return Tensor::scalar(g.data().iter().sum());
    }
    let st = broadcast_strides(shape, &g.shape);
    let ones = broadcast_strides(&g.shape, &g.shape);
    let mut data = vec![0.0; shape.iter().product()];
    let gd = g.data();
    for_each_broadcast(&g.shape, &ones, &st, |_, i, j| data[j] += gd[i]);
    Tensor::new(shape.to_vec(), data)
}

/// `s` broadcast up to `shape`.
#[must_use]
pub fn expand_to(s: &Tensor, shape: &[usize]) -> Tensor {
    if s.shape == shape {
        return s.clone();
    }
    let ss = broadcast_strides(&s.shape, shape);
    let mut data = vec![0.0; shape.iter().product()];
    let sd = s.data();
    for_each_broadcast(shape, &ss, &ss, |o, i, _| data[o] = sd[i]);
    Tensor::new(shape.to_vec(), data)
}

/// Rows of the output handed to one rayon task in the matrix products.
const ROW_BLOCK: usize = 32;

/// `C = A B` for row-major `A` (`m x k`, strides `rsa, csa`) and `B` (`k x n`, strides
/// `rsb, csb`), `C` row-major `m x n`, split over row blocks of `C` with rayon.
#[allow(clippy::too_many_arguments)]
fn gemm(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    rsa: isize,
    csa: isize,
    b: &[f32],
    rsb: isize,
    csb: isize,
) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    if m == 0 || n == 0 {
        return c;
    }
    gemm_rows(k, n, a, rsa, csa, b, rsb, csb, &mut c);
    c
}

/// `C = A B` into `c` for [`gemm`], over rayon: each block of rows of `C` is one task, and
/// every entry is one dot product in a fixed order, so the thread count does not matter.
#[allow(clippy::too_many_arguments)]
fn gemm_rows(
    k: usize,
    n: usize,
    a: &[f32],
    rsa: isize,
    csa: isize,
    b: &[f32],
    rsb: isize,
    csb: isize,
    c: &mut [f32],
) {
    let m = c.len() / n;
    let rows_per = ROW_BLOCK.max(m.div_ceil(rayon::current_num_threads().max(1) * 4));
    c.par_chunks_mut(rows_per * n).enumerate().for_each(|(blk, cb)| {
        let r0 = blk * rows_per;
        let rows = cb.len() / n;
        if k == 0 {
            return;
        }
        // SAFETY: the pointers address `rows x k` of A starting at row r0, `k x n` of B and
        // `rows x n` of this block of C, all in bounds for the given strides (checked
        // by the callers' shape checks: a has m*k elements, b k*n, c m*n).
        unsafe {
            matrixmultiply::sgemm(
                rows,
                k,
                n,
                1.0,
                a.as_ptr().offset(r0 as isize * rsa),
                rsa,
                csa,
                b.as_ptr(),
                rsb,
                csb,
                0.0,
                cb.as_mut_ptr(),
                n as isize,
                1,
            );
        }
    });
}

/// `x W^T` for weights `W : [out, in]` and inputs `x : [B, in]` (flattened after the batch).
#[must_use]
pub fn linear(w: &Tensor, x: &Tensor) -> Tensor {
    let (o, i, b) = (w.shape[0], w.shape[1], x.rows());
    assert_eq!(x.row_len(), i, "linear: input width");
    let c = gemm(b, i, o, x.data(), i as isize, 1, w.data(), 1, i as isize);
    Tensor::new(vec![b, o], c)
}

/// `g^T x : [out, in]` for `g : [B, out]`, `x : [B, in]` (the weight gradient).
#[must_use]
pub fn linear_grad_w(g: &Tensor, x: &Tensor) -> Tensor {
    let (b, o, i) = (g.rows(), g.row_len(), x.row_len());
    assert_eq!(x.rows(), b, "linear_grad_w: batch");
    let c = gemm(o, b, i, g.data(), 1, o as isize, x.data(), i as isize, 1);
    Tensor::new(vec![o, i], c)
}

/// `g W : [B, in]` for `W : [out, in]`, `g : [B, out]` (the input gradient).
#[must_use]
pub fn linear_grad_x(w: &Tensor, g: &Tensor) -> Tensor {
    let (o, i, b) = (w.shape[0], w.shape[1], g.rows());
    assert_eq!(g.row_len(), o, "linear_grad_x: width");
    let c = gemm(b, o, i, g.data(), o as isize, 1, w.data(), i as isize, 1);
    Tensor::new(vec![b, i], c)
}

/// Per-row `log softmax` over the last axis of `[B, n]`.
#[must_use]
pub fn log_softmax(x: &Tensor) -> Tensor {
    let n = x.row_len().max(1);
    let mut data = par_zeros(x.data().len());
    data.par_chunks_mut(n).zip(x.data().par_chunks(n)).with_min_len(PAR_ELEMENTS / n).for_each(
        |(out, row)| {
            let lse = log_sum_exp(row);
            out.iter_mut().zip(row).for_each(|(o, &v)| *o = v - lse);
        },
    );
    Tensor::new(x.shape.clone(), data)
}

/// Row-wise softmax of `[B, n]` in one pass, bit for bit `exp` of [`log_softmax`]: each
/// entry is `exp(x - lse)` with the row's `lse` computed as there.
#[must_use]
pub fn softmax(x: &Tensor) -> Tensor {
    let n = x.row_len().max(1);
    let mut data = par_zeros(x.data().len());
    data.par_chunks_mut(n).zip(x.data().par_chunks(n)).with_min_len(PAR_ELEMENTS / n).for_each(
        |(out, row)| {
            let lse = log_sum_exp(row);
            out.iter_mut().zip(row).for_each(|(o, &v)| *o = (v - lse).exp());
        },
    );
    Tensor::new(x.shape.clone(), data)
}

/// `log sum_i exp(row_i)`, shifted by the row's maximum.
fn log_sum_exp(row: &[f32]) -> f32 {
    let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    m + row.iter().map(|&v| (v - m).exp()).sum::<f32>().ln()
}

/// The reverse of [`softmax`] at output `y` `[B, n]` for the output change `dy`, in one
/// pass: `a - y rowsum(a)` with `a = dy y`, rounded as the chain of elementwise gates it
/// replaces (`Mul`, `RowSum`, `Mul`, `Sub`) rounds it.
///
/// # Panics
/// If the shapes differ.
#[must_use]
pub fn softmax_back(y: &Tensor, dy: &Tensor) -> Tensor {
    assert_eq!(y.shape, dy.shape, "softmax_back: output and change differ in shape");
    let n = y.row_len().max(1);
    let mut data = par_zeros(y.data().len());
    data.par_chunks_mut(n)
        .zip(y.data().par_chunks(n).zip(dy.data().par_chunks(n)))
        .with_min_len(PAR_ELEMENTS / n)
        .for_each(|(out, (y, dy))| {
            out.iter_mut().zip(y.iter().zip(dy)).for_each(|(o, (&y, &d))| *o = d * y);
            let sum: f32 = out.iter().sum();
            out.iter_mut().zip(y).for_each(|(o, &y)| *o -= y * sum);
        });
    Tensor::new(y.shape.clone(), data)
}

/// Row-wise one-hot of the largest entry (the first of ties) of `[B, n]`.
#[must_use]
pub fn one_hot_max(x: &Tensor) -> Tensor {
    let n = x.row_len().max(1);
    let mut data = vec![0.0f32; x.data().len()];
    data.par_chunks_mut(n).zip(x.data().par_chunks(n)).with_min_len(PAR_ELEMENTS / n).for_each(
        |(out, row)| {
            let best = row.iter().enumerate().fold(0, |best, (i, &v)| if v > row[best] { i } else { best });
            out[best] = 1.0;
        },
    );
    Tensor::new(x.shape.clone(), data)
}

/// Per-row sums `[B, 1]` of `[B, n]`.
#[must_use]
pub fn row_sum(x: &Tensor) -> Tensor {
    let n = x.row_len().max(1);
    let data: Vec<f32> =
        x.data().par_chunks(n).with_min_len(PAR_ELEMENTS / n).map(|r| r.iter().sum()).collect();
    Tensor::new(vec![data.len(), 1], data)
}

/// The shape of a valid (no padding), stride-1 correlation of `x : [B, C, H, W]` with
/// `k : [O, C, KH, KW]`.
fn conv_dims(k: &[usize], x: &[usize]) -> (usize, usize, usize, usize, usize, usize, usize, usize, usize) {
    let (o, c, kh, kw) = (k[0], k[1], k[2], k[3]);
    let (b, h, w) = (x[0], x[2], x[3]);
    (b, o, c, h, w, kh, kw, h + 1 - kh, w + 1 - kw)
}

/// im2col of one image `[C, H, W]`: `[C*KH*KW, OH*OW]`.
#[allow(clippy::too_many_arguments)]
fn im2col(img: &[f32], c: usize, h: usize, w: usize, kh: usize, kw: usize, oh: usize, ow: usize) -> Vec<f32> {
    let mut cols = vec![0.0; c * kh * kw * oh * ow];
    let mut r = 0;
    for ch in 0..c {
        for dy in 0..kh {
            for dx in 0..kw {
                let dst = &mut cols[r * oh * ow..(r + 1) * oh * ow];
                for y in 0..oh {
                    let src = &img[ch * h * w + (y + dy) * w + dx..][..ow];
                    dst[y * ow..(y + 1) * ow].copy_from_slice(src);
                }
                r += 1;
            }
        }
    }
    cols
}

/// Valid, stride-1 2D correlation: `k : [O, C, KH, KW]`, `x : [B, C, H, W]` ->
/// `[B, O, H-KH+1, W-KW+1]`.
#[must_use]
pub fn conv2d(k: &Tensor, x: &Tensor) -> Tensor {
    let (b, o, c, h, w, kh, kw, oh, ow) = conv_dims(&k.shape, &x.shape);
    let ckk = c * kh * kw;
    let mut out = vec![0.0; b * o * oh * ow];
    out.par_chunks_mut(o * oh * ow).enumerate().for_each(|(i, dst)| {
        let cols = im2col(&x.data()[i * c * h * w..(i + 1) * c * h * w], c, h, w, kh, kw, oh, ow);
        let y = gemm_seq(o, ckk, oh * ow, k.data(), ckk as isize, 1, &cols, (oh * ow) as isize, 1);
        dst.copy_from_slice(&y);
    });
    Tensor::new(vec![b, o, oh, ow], out)
}

/// The kernel gradient of [`conv2d`]: `x : [B, C, H, W]`, `g : [B, O, OH, OW]` -> `[O, C, KH, KW]`.
#[must_use]
pub fn conv2d_grad_k(x: &Tensor, g: &Tensor) -> Tensor {
    let (b, c, h, w) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3]);
    let (o, oh, ow) = (g.shape[1], g.shape[2], g.shape[3]);
    let (kh, kw) = (h + 1 - oh, w + 1 - ow);
    let ckk = c * kh * kw;
    let sum = (0..b)
        .into_par_iter()
        .fold(
            || vec![0.0f32; o * ckk],
            |mut acc, i| {
                let cols = im2col(&x.data()[i * c * h * w..(i + 1) * c * h * w], c, h, w, kh, kw, oh, ow);
                let gi = &g.data()[i * o * oh * ow..(i + 1) * o * oh * ow];
                let d = gemm_seq(o, oh * ow, ckk, gi, (oh * ow) as isize, 1, &cols, 1, (oh * ow) as isize);
                acc.iter_mut().zip(d).for_each(|(a, v)| *a += v);
                acc
            },
        )
        .reduce(
            || vec![0.0f32; o * ckk],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    Tensor::new(vec![o, c, kh, kw], sum)
}

/// The input gradient of [`conv2d`]: `k : [O, C, KH, KW]`, `g : [B, O, OH, OW]` -> `[B, C, H, W]`.
#[must_use]
pub fn conv2d_grad_x(k: &Tensor, g: &Tensor) -> Tensor {
    let (o, c, kh, kw) = (k.shape[0], k.shape[1], k.shape[2], k.shape[3]);
    let (b, oh, ow) = (g.shape[0], g.shape[2], g.shape[3]);
    let (h, w) = (oh + kh - 1, ow + kw - 1);
    let ckk = c * kh * kw;
    let mut out = vec![0.0; b * c * h * w];
    out.par_chunks_mut(c * h * w).enumerate().for_each(|(i, dst)| {
        let gi = &g.data()[i * o * oh * ow..(i + 1) * o * oh * ow];
        // dcols = K^T g : [CKK, OH*OW], then col2im.
        let dcols = gemm_seq(ckk, o, oh * ow, k.data(), 1, ckk as isize, gi, (oh * ow) as isize, 1);
        let mut r = 0;
        for ch in 0..c {
            for dy in 0..kh {
                for dx in 0..kw {
                    let src = &dcols[r * oh * ow..(r + 1) * oh * ow];
                    for y in 0..oh {
                        let row = &mut dst[ch * h * w + (y + dy) * w + dx..][..ow];
                        row.iter_mut().zip(&src[y * ow..(y + 1) * ow]).for_each(|(a, v)| *a += v);
                    }
                    r += 1;
                }
            }
        }
    });
    Tensor::new(vec![b, c, h, w], out)
}

/// Single-threaded `C = A B` (used inside per-image rayon tasks).
#[allow(clippy::too_many_arguments)]
fn gemm_seq(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    rsa: isize,
    csa: isize,
    b: &[f32],
    rsb: isize,
    csb: isize,
) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    if m == 0 || n == 0 || k == 0 {
        return c;
    }
    assert!(a.len() >= m * k && b.len() >= k * n, "gemm operands too small");
    // SAFETY: A is m x k, B is k x n, C is m x n with the given strides, all inside the
    // slices (asserted above for the layouts the callers use).
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
    c
}

/// Index of the maximum (first on ties) of each `s x s` window of `x : [B, C, H, W]`,
/// as offsets into `x`, in the row-major order of the pooled output.
fn pool_argmax(x: &Tensor, s: usize) -> (Vec<usize>, Vec<usize>) {
    let (b, c, h, w) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3]);
    let (ph, pw) = (h / s, w / s);
    let (xd, mut idx) = (x.data(), Vec::with_capacity(b * c * ph * pw));
    for plane in 0..b * c {
        let base = plane * h * w;
        for py in 0..ph {
            for px in 0..pw {
                let mut best = base + py * s * w + px * s;
                for dy in 0..s {
                    for dx in 0..s {
                        let j = base + (py * s + dy) * w + px * s + dx;
                        if xd[j] > xd[best] {
                            best = j;
                        }
                    }
                }
                idx.push(best);
            }
        }
    }
    (vec![b, c, ph, pw], idx)
}

/// Max-pooling over non-overlapping `s x s` windows (a remainder is dropped).
#[must_use]
pub fn max_pool(x: &Tensor, s: usize) -> Tensor {
    let (shape, idx) = pool_argmax(x, s);
    let xd = x.data();
    Tensor::new(shape, idx.iter().map(|&j| xd[j]).collect())
}

/// The reverse of [`max_pool`]: `g` (pooled shape) routed to each window's maximum of `x`.
#[must_use]
pub fn max_pool_back(x: &Tensor, s: usize, g: &Tensor) -> Tensor {
    let (_, idx) = pool_argmax(x, s);
    let mut out = Tensor::zeros(x.shape.clone());
    for (&j, &v) in idx.iter().zip(g.data()) {
        out.data_mut()[j] += v;
    }
    out
}

/// The adjoint of [`max_pool_back`] in `g`: `a` (shape of `x`) read at each window's maximum.
#[must_use]
pub fn max_pool_select(x: &Tensor, s: usize, a: &Tensor) -> Tensor {
    let (shape, idx) = pool_argmax(x, s);
    let ad = a.data();
    Tensor::new(shape, idx.iter().map(|&j| ad[j]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_and_its_reverse() {
        let a = Tensor::new(vec![2, 3], vec![1., 2., 3., 4., 5., 6.]);
        let b = Tensor::new(vec![1, 3], vec![10., 20., 30.]);
        assert_eq!(broadcast(&a, &b, |x, y| x + y).data(), &[11., 22., 33., 14., 25., 36.]);
        let r = Tensor::new(vec![2, 1], vec![1., 2.]);
        assert_eq!(broadcast(&a, &r, |x, y| x * y).data(), &[1., 2., 3., 8., 10., 12.]);
        assert_eq!(broadcast(&Tensor::scalar(2.), &a, |x, y| x * y).data(), &[2., 4., 6., 8., 10., 12.]);
        assert_eq!(sum_to(&a, &[1, 3]).data(), &[5., 7., 9.]);
        assert_eq!(sum_to(&a, &[2, 1]).data(), &[6., 15.]);
        assert_eq!(sum_to(&a, &[]).data(), &[21.]);
        assert_eq!(expand_to(&r, &[2, 3]).data(), &[1., 1., 1., 2., 2., 2.]);
        assert_eq!(broadcast_shape(&[2, 3], &[3, 2]), None);
    }

    /// The fused softmax and its reverse round exactly as the gate chains they replace
    /// (`Exp ∘ LogSoftmax`; `Mul`, `RowSum`, `Mul`, `Sub`), so trained models keep their
    /// bits: checked on rows with a hard choice's -1000 logits, ties and a wide range.
    #[test]
    fn fused_softmax_rounds_as_the_chain_it_replaces() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (rows, n) = (64, 16);
        let mut x: Vec<f32> = (0..rows * n).map(|_| rng.random_range(-30.0f32..30.0)).collect();
        x[..n].iter_mut().enumerate().for_each(|(i, v)| *v = if i == 3 { 0.0 } else { -1000.0 });
        x[n..2 * n].fill(0.25);
        let x = Tensor::new(vec![rows, n], x);
        let dy = Tensor::new(vec![rows, n], (0..rows * n).map(|_| rng.random_range(-2.0f32..2.0)).collect());
        let y = softmax(&x);
        let chain = log_softmax(&x).map(f32::exp);
        assert!(y.data().iter().zip(chain.data()).all(|(a, b)| a.to_bits() == b.to_bits()));
        let a = broadcast(&dy, &y, |d, y| d * y);
        let t = broadcast(&y, &row_sum(&a), |y, s| y * s);
        let chain = broadcast(&a, &t, |a, t| a - t);
        let fused = softmax_back(&y, &dy);
        assert!(fused.data().iter().zip(chain.data()).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert_eq!(y.data()[3], 1.0, "a hard choice's softmax is exactly one-hot");
    }

    /// The zeros are +0 (a kernel that adds into them keeps the sign of its first term),
    /// as many as asked, on recycled memory too.
    #[test]
    fn par_zeros_are_positive_zeros() {
        for len in [0, 1, 3, 1 << 14, (1 << 16) + 5] {
            let mut old: Vec<f32> = vec![-7.5; len];
            old.fill(f32::NAN);
            drop(old);
            let z: Vec<f32> = par_zeros(len);
            assert_eq!(z.len(), len);
            assert!(z.iter().all(|v| v.to_bits() == 0), "+0 everywhere");
            let w: Vec<i64> = par_zeros(len);
            assert!(w.len() == len && w.iter().all(|&v| v == 0));
        }
    }

    #[test]
    fn products_agree_with_loops() {
        let w = Tensor::new(vec![2, 3], vec![1., 0., -1., 2., 1., 0.]);
        let x = Tensor::new(vec![2, 3], vec![1., 2., 3., 4., 5., 6.]);
        assert_eq!(linear(&w, &x).data(), &[-2., 4., -2., 13.]);
        let g = Tensor::new(vec![2, 2], vec![1., 0., 0., 1.]);
        assert_eq!(linear_grad_w(&g, &x).data(), &[1., 2., 3., 4., 5., 6.]);
        assert_eq!(linear_grad_x(&w, &g).data(), &[1., 0., -1., 2., 1., 0.]);
    }

    #[test]
    fn conv_and_pool_by_hand() {
        // One 3x3 image, one 2x2 kernel.
        let x = Tensor::new(vec![1, 1, 3, 3], (1..=9).map(|v| v as f32).collect());
        let k = Tensor::new(vec![1, 1, 2, 2], vec![1., 0., 0., -1.]);
        assert_eq!(conv2d(&k, &x).data(), &[-4., -4., -4., -4.]);
        let p = max_pool(&x, 2);
        assert_eq!((p.shape(), p.data()), (&[1usize, 1, 1, 1][..], &[5.][..]));
        let back = max_pool_back(&x, 2, &Tensor::new(vec![1, 1, 1, 1], vec![7.]));
        assert_eq!(back.data()[4], 7.);
        assert_eq!(back.data().iter().sum::<f32>(), 7.);
    }
}
