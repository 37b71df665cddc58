//! The smooth gate signature: tensor operations over f32, each with its reverse rule.
//!
//! A wire carries a whole [`Tensor`] (activations with the batch as first axis,
//! parameters without), so a dense layer is two gates and its parameters are two wires
//! of the parameter block. Reverse rules are given once per gate and emit gates of the
//! same signature, so `R[f]` is again a smooth circuit, `R[R[f]]` exists, and the lens
//! core ([`Lens`](crate::cat::Lens), `Para`, reparametrisation) works unchanged.
//!
//! Activations whose derivative is a function of their output (sigmoid, tanh, exp)
//! reverse into elementwise gates; softmax is `exp ∘ log_softmax`. The gradient kernels
//! of linear maps, correlations and pooling are gates of their own, and their reverse
//! rules close the set (each is linear in its last input).
//!
//! Relaxed logic ([`lut`](super::lut)) adds a layer of relaxed LUTs with node-major
//! activations, its two adjoint kernels, the group-sum head and the truth tables of the
//! 16 two-input functions. The input adjoint of a LUT layer reverses through its
//! decomposition `sum_i scatter_i(dy * lut(wiring without i, slope_i(tables), x))`, so the
//! set closes too. One gate is a fusion of two others, `LutChoiceGradW` (a learned choice's
//! weight adjoints straight from the adjoints of the LUTs that read it, which
//! [`fuse_choice_adjoints`](super::fuse_choice_adjoints) puts into training steps); it
//! reverses as the two.
//!
//! Two gates' reverse rules are chosen rather than derived: they are piecewise constant
//! (derivative zero almost everywhere) and reverse as the smooth map they stand for, the
//! straight-through estimator. [`StraightThroughMax`](SmoothOp::StraightThroughMax)
//! reverses as the identity, so relaxed gates compute with their discrete choice while
//! learning through the softmax; [`StraightThroughStep`](SmoothOp::StraightThroughStep)
//! reverses as a sigmoid, so relaxed LUTs compute with their discrete tables while
//! learning through the sigmoid tables.

use super::error::SmoothError;
use super::lut;
use super::tensor::{self, Tensor, broadcast, broadcast_shape};
use crate::cat::ReverseRules;
use crate::circuit::{CircuitBuilder, Signature, WireId};

/// A gate of a smooth circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmoothOp {
    /// A scalar constant (`f32` bits). `Const(0)` is the zero change.
    Const(u32),
    /// `a + b` (broadcasting: equal shapes, a scalar, or axes of size 1).
    Add,
    /// `a - b` (broadcasting).
    Sub,
    /// `a * b` elementwise (broadcasting).
    Mul,
    /// `-a`.
    Neg,
    /// `exp a`.
    Exp,
    /// `max(a, 0)`.
    Relu,
    /// `g * [x > 0]` for inputs `(x, g)`: the reverse of relu.
    ReluBack,
    /// `1 / (1 + exp(-a))`.
    Sigmoid,
    /// `tanh a`.
    Tanh,
    /// Row-wise `log softmax` over the last axis of `[B, n]`.
    LogSoftmax,
    /// Row-wise `softmax` over the last axis of `[B, n]`, in one pass: bit for bit
    /// `exp(log_softmax(x))`.
    Softmax,
    /// `(y, dy)`: the reverse of [`Softmax`](Self::Softmax) at output `y`,
    /// `dy y - y rowsum(dy y)`, in one pass.
    SoftmaxBack,
    /// Row-wise one-hot of the largest entry (the first of ties) of `[B, n]`, whose
    /// reverse rule passes the change through unchanged: the straight-through estimator
    /// (Bengio et al. 2013). `ST(softmax(w))` computes with the hard choice and learns `w`
    /// through the soft one.
    StraightThroughMax,
    /// `[a > 0]` elementwise, whose reverse rule is the sigmoid's (`dy s (1 - s)`, `s =
    /// sigmoid a`): the straight-through estimator of a sigmoid table, which computes with
    /// the discretised table (`w > 0`) and learns `w` through `sigmoid w`.
    StraightThroughStep,
    /// Row sums `[B, 1]` of `[B, n]`.
    RowSum,
    /// `(like, g)`: `g` summed down to `like`'s shape (the reverse of broadcasting).
    SumLike,
    /// `(like, s)`: `s` broadcast up to `like`'s shape.
    ExpandLike,
    /// Sum of all elements divided by the batch size (first axis): a scalar.
    BatchMean,
    /// `(like, s)`: the scalar `s / B` spread over `like`'s shape (`B` its batch size).
    BatchSpread,
    /// `(W, x)`: `x W^T` for `W : [out, in]`, `x : [B, in]`.
    Linear,
    /// `(g, x)`: `g^T x : [out, in]` (weight gradient of [`Linear`](Self::Linear)).
    LinearGradW,
    /// `(W, g)`: `g W : [B, in]` (input gradient of [`Linear`](Self::Linear)).
    LinearGradX,
    /// `(K, x)`: valid stride-1 correlation, `K : [O, C, KH, KW]`, `x : [B, C, H, W]`.
    Conv2d,
    /// `(x, g)`: kernel gradient of [`Conv2d`](Self::Conv2d).
    Conv2dGradK,
    /// `(K, g)`: input gradient of [`Conv2d`](Self::Conv2d).
    Conv2dGradX,
    /// Max-pooling over non-overlapping `s x s` windows of `[B, C, H, W]`.
    MaxPool(u8),
    /// `(x, g)`: `g` routed back to each window's maximum of `x`.
    MaxPoolBack(u8),
    /// `(x, a)`: `a` read at each window's maximum of `x` (the adjoint of `MaxPoolBack`).
    MaxPoolSelect(u8),
    /// `[B, ...] -> [B, prod(...)]`.
    Flatten,
    /// `(like, g)`: `g`'s data under `like`'s shape.
    ReshapeLike,
    /// `(wiring [W, k], tables [W, 2^k], x [N, B])`: a layer of relaxed `k`-LUTs,
    /// node-major `[W, B]` ([`lut::soft_lut`]).
    RelaxedLut(u8),
    /// `(wiring, x, dy)`: table adjoints `[W, 2^k]` of [`RelaxedLut`](Self::RelaxedLut).
    RelaxedLutGradT(u8),
    /// `(wiring, tables, x, dy)`: input adjoints `[N, B]` of [`RelaxedLut`](Self::RelaxedLut).
    RelaxedLutGradX(u8),
    /// `(wiring, x)`: the rows of `x` read by address bit `i` (`gather_inputs`).
    GatherInputs(u8),
    /// `(wiring, like, v)`: the adjoint of [`GatherInputs`](Self::GatherInputs).
    ScatterInputs(u8),
    /// `[W, 2^k] -> [W, 2^(k-1)]`: table differences along address bit `i`.
    TableSlope(u8),
    /// The adjoint of [`TableSlope`](Self::TableSlope).
    TableSlopeAdjoint(u8),
    /// `[W, k] -> [W, k-1]`: a wiring without address bit `i` (no adjoint: indices).
    WiringWithout(u8),
    /// `[W, B] -> [B, C]`: sums of `C` equal groups of nodes, the relaxed logic head.
    GroupSum(u16),
    /// `(like [W, B], g [B, C])`: the adjoint of [`GroupSum`](Self::GroupSum).
    GroupSpread(u16),
    /// `(candidates [M, C], weights [M, C], x [N, B]) -> [M, B]`: learned wiring, each row
    /// a weighted mixture of `C` candidate rows of `x` ([`lut::soft_choice`]).
    SoftChoice,
    /// `(candidates, x, dy)`: weight adjoints `[M, C]` of [`SoftChoice`](Self::SoftChoice).
    SoftChoiceGradW,
    /// `(candidates, weights, like x, dy)`: input adjoints `[N, B]` of
    /// [`SoftChoice`](Self::SoftChoice).
    SoftChoiceGradX,
    /// `(wiring, tables, candidates, x, u, dy)`: the weight adjoints `[M, C]` of a learned
    /// choice `u` of `x` that a layer of relaxed `k`-LUTs reads, in one pass
    /// ([`lut::lut_choice_grad_weights`]): `SoftChoiceGradW(candidates, x,
    /// RelaxedLutGradX(k)(wiring, tables, u, dy))`, into which the relaxed training step's
    /// circuit is rewritten where nothing else reads the LUTs' input adjoints.
    LutChoiceGradW(u8),
    /// `[W, 16] -> [W, 4]`: mixtures of the 16 two-input functions to relaxed 2-LUT tables.
    TruthTables,
    /// `[W, 4] -> [W, 16]`: the adjoint of [`TruthTables`](Self::TruthTables).
    TruthTablesAdjoint,
}

impl SmoothOp {
    /// The constant gate for `v`.
    #[must_use]
    pub fn constant(v: f32) -> Self {
        Self::Const(v.to_bits())
    }

    /// The gate's output on the given inputs.
    ///
    /// # Panics
    /// If the input shapes do not fit the gate (a model built from valid specs and data
    /// of the width it was built for never does this; see [`check_shapes`](super::check_shapes)).
    #[must_use]
    pub fn apply(&self, x: &[&Tensor]) -> Tensor {
        match *self {
            Self::Const(bits) => Tensor::scalar(f32::from_bits(bits)),
            Self::Add => broadcast(x[0], x[1], |a, b| a + b),
            Self::Sub => broadcast(x[0], x[1], |a, b| a - b),
            Self::Mul => broadcast(x[0], x[1], |a, b| a * b),
            Self::Neg => x[0].map(|a| -a),
            Self::Exp => x[0].map(f32::exp),
            Self::Relu => x[0].map(|a| a.max(0.0)),
            Self::ReluBack => x[0].zip(x[1], |a, g| if a > 0.0 { g } else { 0.0 }),
            Self::Sigmoid => x[0].map(|a| 1.0 / (1.0 + (-a).exp())),
            Self::Tanh => x[0].map(f32::tanh),
            Self::LogSoftmax => tensor::log_softmax(x[0]),
            Self::Softmax => tensor::softmax(x[0]),
            Self::SoftmaxBack => tensor::softmax_back(x[0], x[1]),
            Self::StraightThroughMax => tensor::one_hot_max(x[0]),
            Self::StraightThroughStep => x[0].map(|a| if a > 0.0 { 1.0 } else { 0.0 }),
            Self::RowSum => tensor::row_sum(x[0]),
            Self::SumLike => tensor::sum_to(x[1], x[0].shape()),
            Self::ExpandLike => tensor::expand_to(x[1], x[0].shape()),
            Self::BatchMean => Tensor::scalar(x[0].data().iter().sum::<f32>() / x[0].rows() as f32),
            Self::BatchSpread => {
                let v = x[1].data()[0] / x[0].rows() as f32;
                Tensor::new(x[0].shape().to_vec(), vec![v; x[0].len()])
            }
            Self::Linear => tensor::linear(x[0], x[1]),
            Self::LinearGradW => tensor::linear_grad_w(x[0], x[1]),
            Self::LinearGradX => tensor::linear_grad_x(x[0], x[1]),
            Self::Conv2d => tensor::conv2d(x[0], x[1]),
            Self::Conv2dGradK => tensor::conv2d_grad_k(x[0], x[1]),
            Self::Conv2dGradX => tensor::conv2d_grad_x(x[0], x[1]),
            Self::MaxPool(s) => tensor::max_pool(x[0], usize::from(s)),
            Self::MaxPoolBack(s) => tensor::max_pool_back(x[0], usize::from(s), x[1]),
            Self::MaxPoolSelect(s) => tensor::max_pool_select(x[0], usize::from(s), x[1]),
            Self::Flatten => {
                let t = x[0];
                Tensor::new(vec![t.rows(), t.row_len()], t.data().to_vec())
            }
            Self::ReshapeLike => Tensor::new(x[0].shape().to_vec(), x[1].data().to_vec()),
            Self::RelaxedLut(_) => lut::soft_lut(x[0], x[1], x[2]),
            Self::RelaxedLutGradT(_) => lut::lut_grad_tables(x[0], x[1], x[2]),
            Self::RelaxedLutGradX(_) => lut::lut_grad_inputs(x[0], x[1], x[2], x[3]),
            Self::GatherInputs(i) => lut::gather_inputs(x[0], usize::from(i), x[1]),
            Self::ScatterInputs(i) => lut::scatter_inputs(x[0], usize::from(i), x[1], x[2]),
            Self::TableSlope(i) => lut::table_slope(x[0], usize::from(i)),
            Self::TableSlopeAdjoint(i) => lut::table_slope_adjoint(x[0], usize::from(i)),
            Self::WiringWithout(i) => lut::wiring_without(x[0], usize::from(i)),
            Self::GroupSum(c) => lut::group_sum(x[0], usize::from(c)),
            Self::GroupSpread(c) => lut::group_spread(x[0], x[1], usize::from(c)),
            Self::SoftChoice => lut::soft_choice(x[0], x[1], x[2]),
            Self::SoftChoiceGradW => lut::soft_choice_grad_weights(x[0], x[1], x[2]),
            Self::SoftChoiceGradX => lut::soft_choice_grad_inputs(x[0], x[1], x[2], x[3]),
            Self::LutChoiceGradW(_) => lut::lut_choice_grad_weights(x[0], x[1], x[2], x[3], x[4], x[5]),
            Self::TruthTables => lut::truth_tables(x[0]),
            Self::TruthTablesAdjoint => lut::truth_tables_adjoint(x[0]),
        }
    }

    /// The output shape for the given input shapes, or why they do not fit.
    ///
    /// # Errors
    /// A message naming the gate and the shapes.
    pub fn out_shape(&self, s: &[&[usize]]) -> Result<Vec<usize>, SmoothError> {
        let bad = || SmoothError::Shape(format!("{} cannot take shapes {s:?}", self.name()));
        let rank = |i: usize, r: usize| if s[i].len() == r { Ok(()) } else { Err(bad()) };
        Ok(match *self {
            Self::Const(_) | Self::BatchMean => Vec::new(),
            Self::Add | Self::Sub | Self::Mul => broadcast_shape(s[0], s[1]).ok_or_else(bad)?,
            Self::Neg | Self::Exp | Self::Relu | Self::Sigmoid | Self::StraightThroughStep | Self::Tanh => {
                s[0].to_vec()
            }
            Self::ReluBack => {
                if s[0] != s[1] {
                    return Err(bad());
                }
                s[0].to_vec()
            }
            Self::LogSoftmax | Self::Softmax | Self::StraightThroughMax => {
                rank(0, 2)?;
                s[0].to_vec()
            }
            Self::SoftmaxBack => {
                rank(0, 2)?;
                if s[0] != s[1] {
                    return Err(bad());
                }
                s[0].to_vec()
            }
            Self::RowSum => {
                rank(0, 2)?;
                vec![s[0][0], 1]
            }
            Self::SumLike | Self::ExpandLike => {
                let (like, v) = (s[0], s[1]);
                let (big, small) = if *self == Self::SumLike { (v, like) } else { (like, v) };
                if broadcast_shape(big, small).as_deref() != Some(big) {
                    return Err(bad());
                }
                like.to_vec()
            }
            Self::BatchSpread => {
                if !s[1].is_empty() {
                    return Err(bad());
                }
                s[0].to_vec()
            }
            Self::Linear => {
                rank(0, 2)?;
                rank(1, 2)?;
                if s[1][1] != s[0][1] {
                    return Err(bad());
                }
                vec![s[1][0], s[0][0]]
            }
            Self::LinearGradW => {
                rank(0, 2)?;
                rank(1, 2)?;
                if s[0][0] != s[1][0] {
                    return Err(bad());
                }
                vec![s[0][1], s[1][1]]
            }
            Self::LinearGradX => {
                rank(0, 2)?;
                rank(1, 2)?;
                if s[1][1] != s[0][0] {
                    return Err(bad());
                }
                vec![s[1][0], s[0][1]]
            }
            Self::Conv2d => {
                rank(0, 4)?;
                rank(1, 4)?;
                let (k, x) = (s[0], s[1]);
                if k[1] != x[1] || k[2] > x[2] || k[3] > x[3] || k[2] == 0 || k[3] == 0 {
                    return Err(bad());
                }
                vec![x[0], k[0], x[2] + 1 - k[2], x[3] + 1 - k[3]]
            }
            Self::Conv2dGradK => {
                rank(0, 4)?;
                rank(1, 4)?;
                let (x, g) = (s[0], s[1]);
                if x[0] != g[0] || g[2] > x[2] || g[3] > x[3] || g[2] == 0 || g[3] == 0 {
                    return Err(bad());
                }
                vec![g[1], x[1], x[2] + 1 - g[2], x[3] + 1 - g[3]]
            }
            Self::Conv2dGradX => {
                rank(0, 4)?;
                rank(1, 4)?;
                let (k, g) = (s[0], s[1]);
                if k[0] != g[1] {
                    return Err(bad());
                }
                vec![g[0], k[1], g[2] + k[2] - 1, g[3] + k[3] - 1]
            }
            Self::MaxPool(p) => {
                rank(0, 4)?;
                let p = usize::from(p).max(1);
                vec![s[0][0], s[0][1], s[0][2] / p, s[0][3] / p]
            }
            Self::MaxPoolBack(_) | Self::MaxPoolSelect(_) => {
                rank(0, 4)?;
                s[0].to_vec()
            }
            Self::Flatten => {
                if s[0].is_empty() {
                    return Err(bad());
                }
                vec![s[0][0], s[0][1..].iter().product()]
            }
            Self::ReshapeLike => {
                if s[0].iter().product::<usize>() != s[1].iter().product::<usize>() {
                    return Err(bad());
                }
                s[0].to_vec()
            }
            Self::RelaxedLut(k) | Self::RelaxedLutGradT(k) | Self::RelaxedLutGradX(k) => {
                if s.iter().any(|t| t.len() != 2) || s[0][1] != usize::from(k) || k > 16 {
                    return Err(bad());
                }
                let width = s[0][0];
                let table = [width, 1 << k];
                let (x, tables, dy) = match *self {
                    Self::RelaxedLut(_) => (s[2], Some(s[1]), None),
                    Self::RelaxedLutGradT(_) => (s[1], None, Some(s[2])),
                    _ => (s[2], Some(s[1]), Some(s[3])),
                };
                if tables.is_some_and(|t| t != table) || dy.is_some_and(|d| d != [width, x[1]]) {
                    return Err(bad());
                }
                match *self {
                    Self::RelaxedLut(_) => vec![width, x[1]],
                    Self::RelaxedLutGradT(_) => table.to_vec(),
                    _ => x.to_vec(),
                }
            }
            Self::GatherInputs(i) => {
                rank(0, 2)?;
                rank(1, 2)?;
                if usize::from(i) >= s[0][1] {
                    return Err(bad());
                }
                vec![s[0][0], s[1][1]]
            }
            Self::ScatterInputs(i) => {
                rank(0, 2)?;
                rank(1, 2)?;
                if usize::from(i) >= s[0][1] || s[2] != [s[0][0], s[1][1]] {
                    return Err(bad());
                }
                s[1].to_vec()
            }
            Self::TableSlope(i) => {
                rank(0, 2)?;
                if s[0][1] < 2 || !s[0][1].is_power_of_two() || 1 << i >= s[0][1] {
                    return Err(bad());
                }
                vec![s[0][0], s[0][1] / 2]
            }
            Self::TableSlopeAdjoint(i) => {
                rank(0, 2)?;
                if !s[0][1].is_power_of_two() || 1 << i > s[0][1] {
                    return Err(bad());
                }
                vec![s[0][0], s[0][1] * 2]
            }
            Self::WiringWithout(i) => {
                rank(0, 2)?;
                if usize::from(i) >= s[0][1] {
                    return Err(bad());
                }
                vec![s[0][0], s[0][1] - 1]
            }
            Self::GroupSum(c) => {
                rank(0, 2)?;
                if c == 0 || !s[0][0].is_multiple_of(usize::from(c)) {
                    return Err(bad());
                }
                vec![s[0][1], usize::from(c)]
            }
            Self::GroupSpread(c) => {
                rank(0, 2)?;
                if c == 0 || !s[0][0].is_multiple_of(usize::from(c)) || s[1] != [s[0][1], usize::from(c)] {
                    return Err(bad());
                }
                s[0].to_vec()
            }
            Self::SoftChoice | Self::SoftChoiceGradW | Self::SoftChoiceGradX => {
                if s.iter().any(|t| t.len() != 2) {
                    return Err(bad());
                }
                let choices = s[0];
                let (x, weights, dy) = match *self {
                    Self::SoftChoice => (s[2], Some(s[1]), None),
                    Self::SoftChoiceGradW => (s[1], None, Some(s[2])),
                    _ => (s[2], Some(s[1]), Some(s[3])),
                };
                if weights.is_some_and(|w| w != choices) || dy.is_some_and(|d| d != [choices[0], x[1]]) {
                    return Err(bad());
                }
                match *self {
                    Self::SoftChoice => vec![choices[0], x[1]],
                    Self::SoftChoiceGradW => choices.to_vec(),
                    _ => x.to_vec(),
                }
            }
            Self::LutChoiceGradW(k) => {
                // The composition's shapes: the input adjoints of the LUTs, then the choice's.
                Self::RelaxedLutGradX(k).out_shape(&[s[0], s[1], s[4], s[5]]).map_err(|_| bad())?;
                if s[2].len() != 2 || s[3].len() != 2 || s[2][0] != s[4][0] || s[3][1] != s[4][1] {
                    return Err(bad());
                }
                s[2].to_vec()
            }
            Self::TruthTables | Self::TruthTablesAdjoint => {
                rank(0, 2)?;
                let (from, to) = if *self == Self::TruthTables { (16, 4) } else { (4, 16) };
                if s[0][1] != from {
                    return Err(bad());
                }
                vec![s[0][0], to]
            }
        })
    }
}

impl Signature for SmoothOp {
    fn arity(&self) -> usize {
        match self {
            Self::Const(_) => 0,
            Self::Neg
            | Self::Exp
            | Self::Relu
            | Self::Sigmoid
            | Self::StraightThroughStep
            | Self::Tanh
            | Self::LogSoftmax
            | Self::Softmax
            | Self::StraightThroughMax
            | Self::RowSum
            | Self::BatchMean
            | Self::MaxPool(_)
            | Self::Flatten
            | Self::TableSlope(_)
            | Self::TableSlopeAdjoint(_)
            | Self::WiringWithout(_)
            | Self::GroupSum(_)
            | Self::TruthTables
            | Self::TruthTablesAdjoint => 1,
            Self::RelaxedLut(_)
            | Self::RelaxedLutGradT(_)
            | Self::ScatterInputs(_)
            | Self::SoftChoice
            | Self::SoftChoiceGradW => 3,
            Self::RelaxedLutGradX(_) | Self::SoftChoiceGradX => 4,
            Self::LutChoiceGradW(_) => 6,
            _ => 2,
        }
    }

    fn name(&self) -> String {
        match self {
            Self::Const(bits) => format!("const{}", f32::from_bits(*bits)),
            Self::MaxPool(s) => format!("maxpool{s}"),
            Self::MaxPoolBack(s) => format!("maxpool{s}_back"),
            Self::MaxPoolSelect(s) => format!("maxpool{s}_select"),
            Self::RelaxedLut(k) => format!("relaxed_lut{k}"),
            Self::RelaxedLutGradT(k) => format!("relaxed_lut{k}_grad_t"),
            Self::RelaxedLutGradX(k) => format!("relaxed_lut{k}_grad_x"),
            Self::LutChoiceGradW(k) => format!("relaxed_lut{k}_choice_grad_w"),
            Self::GatherInputs(i) => format!("gather_inputs{i}"),
            Self::ScatterInputs(i) => format!("scatter_inputs{i}"),
            Self::TableSlope(i) => format!("table_slope{i}"),
            Self::TableSlopeAdjoint(i) => format!("table_slope{i}_adjoint"),
            Self::WiringWithout(i) => format!("wiring_without{i}"),
            Self::GroupSum(c) => format!("group_sum{c}"),
            Self::GroupSpread(c) => format!("group_spread{c}"),
            other => {
                let dbg = format!("{other:?}");
                let mut out = String::new();
                for (i, ch) in dbg.chars().enumerate() {
                    if ch.is_ascii_uppercase() && i > 0 {
                        out.push('_');
                    }
                    out.push(ch.to_ascii_lowercase());
                }
                out
            }
        }
    }
}

/// The change of a sigmoid's input from its output `s` and output change `dy`:
/// `dy * s * (1 - s)`.
fn sigmoid_back(b: &mut CircuitBuilder<SmoothOp>, s: WireId, dy: WireId) -> WireId {
    let one = g(b, SmoothOp::constant(1.0), &[]);
    let om = g(b, SmoothOp::Sub, &[one, s]);
    let d = g(b, SmoothOp::Mul, &[s, om]);
    g(b, SmoothOp::Mul, &[dy, d])
}

/// Adds a gate to a smooth circuit.
fn g(b: &mut CircuitBuilder<SmoothOp>, op: SmoothOp, ins: &[WireId]) -> WireId {
    b.gate(op, ins)
}

impl ReverseRules for SmoothOp {
    fn add(b: &mut CircuitBuilder<Self>, x: WireId, y: WireId) -> WireId {
        g(b, Self::Add, &[x, y])
    }

    fn zero(b: &mut CircuitBuilder<Self>) -> WireId {
        g(b, Self::constant(0.0), &[])
    }

    fn reverse(
        &self,
        b: &mut CircuitBuilder<Self>,
        x: &[WireId],
        y: WireId,
        dy: WireId,
    ) -> Vec<Option<WireId>> {
        use SmoothOp as O;
        let sum_like = |b: &mut CircuitBuilder<Self>, like: WireId, v: WireId| g(b, O::SumLike, &[like, v]);
        match *self {
            O::Const(_) => vec![],
            O::Add => {
                let (a, c) = (sum_like(b, x[0], dy), sum_like(b, x[1], dy));
                vec![Some(a), Some(c)]
            }
            O::Sub => {
                let a = sum_like(b, x[0], dy);
                let c = sum_like(b, x[1], dy);
                vec![Some(a), Some(g(b, O::Neg, &[c]))]
            }
            O::Mul => {
                let ga = g(b, O::Mul, &[dy, x[1]]);
                let gb = g(b, O::Mul, &[dy, x[0]]);
                vec![Some(sum_like(b, x[0], ga)), Some(sum_like(b, x[1], gb))]
            }
            O::Neg => vec![Some(g(b, O::Neg, &[dy]))],
            O::Exp => vec![Some(g(b, O::Mul, &[dy, y]))],
            O::Relu => vec![Some(g(b, O::ReluBack, &[x[0], dy]))],
            O::ReluBack => vec![None, Some(g(b, O::ReluBack, &[x[0], dy]))],
            O::Sigmoid => vec![Some(sigmoid_back(b, y, dy))],
            O::StraightThroughStep => {
                let s = g(b, O::Sigmoid, &[x[0]]);
                vec![Some(sigmoid_back(b, s, dy))]
            }
            O::Tanh => {
                // dy * (1 - y^2)
                let one = g(b, O::constant(1.0), &[]);
                let sq = g(b, O::Mul, &[y, y]);
                let d = g(b, O::Sub, &[one, sq]);
                vec![Some(g(b, O::Mul, &[dy, d]))]
            }
            O::LogSoftmax => {
                // dy - softmax(x) * rowsum(dy)
                let sm = g(b, O::Exp, &[y]);
                let rs = g(b, O::RowSum, &[dy]);
                let t = g(b, O::Mul, &[sm, rs]);
                vec![Some(g(b, O::Sub, &[dy, t]))]
            }
            O::Softmax => vec![Some(g(b, O::SoftmaxBack, &[y, dy]))],
            O::SoftmaxBack => {
                // out = a - y S with a = dy y, S = rowsum(a). Linear in dy, with the same
                // map as its own adjoint; in y: dz dy - dz S - dy rowsum(dz y).
                let (s, dg) = (x[0], x[1]);
                let a = g(b, O::Mul, &[dg, s]);
                let rs = g(b, O::RowSum, &[a]);
                let c = g(b, O::Mul, &[dy, s]);
                let rc = g(b, O::RowSum, &[c]);
                let t1 = g(b, O::Mul, &[dy, dg]);
                let t2 = g(b, O::Mul, &[dy, rs]);
                let t3 = g(b, O::Mul, &[dg, rc]);
                let d = g(b, O::Sub, &[t1, t2]);
                let ds = g(b, O::Sub, &[d, t3]);
                vec![Some(ds), Some(g(b, O::SoftmaxBack, &[s, dy]))]
            }
            O::StraightThroughMax => vec![Some(dy)],
            O::RowSum => vec![Some(g(b, O::ExpandLike, &[x[0], dy]))],
            O::SumLike => vec![None, Some(g(b, O::ExpandLike, &[x[1], dy]))],
            O::ExpandLike => vec![None, Some(sum_like(b, x[1], dy))],
            O::BatchMean => vec![Some(g(b, O::BatchSpread, &[x[0], dy]))],
            O::BatchSpread => vec![None, Some(g(b, O::BatchMean, &[dy]))],
            O::Linear => {
                vec![Some(g(b, O::LinearGradW, &[dy, x[1]])), Some(g(b, O::LinearGradX, &[x[0], dy]))]
            }
            O::LinearGradW => {
                vec![Some(g(b, O::Linear, &[dy, x[1]])), Some(g(b, O::LinearGradX, &[dy, x[0]]))]
            }
            O::LinearGradX => {
                vec![Some(g(b, O::LinearGradW, &[x[1], dy])), Some(g(b, O::Linear, &[x[0], dy]))]
            }
            O::Conv2d => {
                vec![Some(g(b, O::Conv2dGradK, &[x[1], dy])), Some(g(b, O::Conv2dGradX, &[x[0], dy]))]
            }
            O::Conv2dGradK => {
                vec![Some(g(b, O::Conv2dGradX, &[dy, x[1]])), Some(g(b, O::Conv2d, &[dy, x[0]]))]
            }
            O::Conv2dGradX => {
                vec![Some(g(b, O::Conv2dGradK, &[dy, x[1]])), Some(g(b, O::Conv2d, &[x[0], dy]))]
            }
            O::MaxPool(s) => vec![Some(g(b, O::MaxPoolBack(s), &[x[0], dy]))],
            O::MaxPoolBack(s) => vec![None, Some(g(b, O::MaxPoolSelect(s), &[x[0], dy]))],
            O::MaxPoolSelect(s) => vec![None, Some(g(b, O::MaxPoolBack(s), &[x[0], dy]))],
            O::Flatten => vec![Some(g(b, O::ReshapeLike, &[x[0], dy]))],
            O::ReshapeLike => vec![None, Some(g(b, O::ReshapeLike, &[x[1], dy]))],
            O::RelaxedLut(k) => {
                let dt = g(b, O::RelaxedLutGradT(k), &[x[0], x[2], dy]);
                let dx = g(b, O::RelaxedLutGradX(k), &[x[0], x[1], x[2], dy]);
                vec![None, Some(dt), Some(dx)]
            }
            O::RelaxedLutGradT(k) => {
                // <dZ, gradT(w, x, g)> = <g, lut(w, dZ, x)>: a LUT layer with tables dZ.
                let dx = g(b, O::RelaxedLutGradX(k), &[x[0], dy, x[1], x[2]]);
                let dg = g(b, O::RelaxedLut(k), &[x[0], dy, x[1]]);
                vec![None, Some(dx), Some(dg)]
            }
            O::RelaxedLutGradX(k) => lut_grad_x_reverse(b, k, x, dy),
            O::GatherInputs(i) => vec![None, Some(g(b, O::ScatterInputs(i), &[x[0], x[1], dy]))],
            O::ScatterInputs(i) => vec![None, None, Some(g(b, O::GatherInputs(i), &[x[0], dy]))],
            O::TableSlope(i) => vec![Some(g(b, O::TableSlopeAdjoint(i), &[dy]))],
            O::TableSlopeAdjoint(i) => vec![Some(g(b, O::TableSlope(i), &[dy]))],
            O::WiringWithout(_) => vec![None],
            O::GroupSum(c) => vec![Some(g(b, O::GroupSpread(c), &[x[0], dy]))],
            O::GroupSpread(c) => vec![None, Some(g(b, O::GroupSum(c), &[dy]))],
            O::SoftChoice => {
                let dw = g(b, O::SoftChoiceGradW, &[x[0], x[2], dy]);
                let dx = g(b, O::SoftChoiceGradX, &[x[0], x[1], x[2], dy]);
                vec![None, Some(dw), Some(dx)]
            }
            O::SoftChoiceGradW => {
                // Bilinear in (x, g): <dZ, gradW(x, g)> = <g, choice(dZ, x)>.
                let dx = g(b, O::SoftChoiceGradX, &[x[0], dy, x[1], x[2]]);
                let dg = g(b, O::SoftChoice, &[x[0], dy, x[1]]);
                vec![None, Some(dx), Some(dg)]
            }
            O::SoftChoiceGradX => {
                // Bilinear in (weights, g): <dD, gradX(w, g)> = <g, choice(w, dD)>.
                let dw = g(b, O::SoftChoiceGradW, &[x[0], dy, x[3]]);
                let dg = g(b, O::SoftChoice, &[x[0], x[1], dy]);
                vec![None, Some(dw), None, Some(dg)]
            }
            O::LutChoiceGradW(k) => {
                // The reverse of its composition: gradW(candidates, x, v) with v the LUTs'
                // input adjoints gradX(wiring, tables, u, g).
                let (wiring, tables, candidates, inputs, u, gy) = (x[0], x[1], x[2], x[3], x[4], x[5]);
                let v = g(b, O::RelaxedLutGradX(k), &[wiring, tables, u, gy]);
                let outer = O::SoftChoiceGradW.reverse(b, &[candidates, inputs, v], y, dy);
                let dv = outer[2].expect("the weight adjoints are linear in the input adjoints");
                let inner = O::RelaxedLutGradX(k).reverse(b, &[wiring, tables, u, gy], v, dv);
                vec![None, inner[1], None, outer[1], inner[2], inner[3]]
            }
            O::TruthTables => vec![Some(g(b, O::TruthTablesAdjoint, &[dy]))],
            O::TruthTablesAdjoint => vec![Some(g(b, O::TruthTables, &[dy]))],
        }
    }
}

/// The reverse rule of `RelaxedLutGradX` at `(wiring, tables, x, g)` with adjoint `dz`, by
/// its decomposition `sum_i scatter_i(g * u_i)`, `u_i = lut(wiring without i,
/// slope_i(tables), x)` (the derivative in address bit `i` is the LUT of the table's
/// slope along `i` over the other inputs).
fn lut_grad_x_reverse(
    b: &mut CircuitBuilder<SmoothOp>,
    k: u8,
    x: &[WireId],
    dz: WireId,
) -> Vec<Option<WireId>> {
    use SmoothOp as O;
    let (wiring, tables, inputs, gy) = (x[0], x[1], x[2], x[3]);
    let (mut dt, mut dx, mut dg): (Option<WireId>, Option<WireId>, Option<WireId>) = (None, None, None);
    let acc = |b: &mut CircuitBuilder<SmoothOp>, slot: &mut Option<WireId>, v: WireId| {
        *slot = Some(match *slot {
            Some(s) => g(b, O::Add, &[s, v]),
            None => v,
        });
    };
    for i in 0..k {
        let rest = g(b, O::WiringWithout(i), &[wiring]);
        let slope = g(b, O::TableSlope(i), &[tables]);
        let u = g(b, O::RelaxedLut(k - 1), &[rest, slope, inputs]);
        let dv = g(b, O::GatherInputs(i), &[wiring, dz]);
        let du = g(b, O::Mul, &[dv, gy]);
        let dgi = g(b, O::Mul, &[dv, u]);
        acc(b, &mut dg, dgi);
        let dslope = g(b, O::RelaxedLutGradT(k - 1), &[rest, inputs, du]);
        let dti = g(b, O::TableSlopeAdjoint(i), &[dslope]);
        acc(b, &mut dt, dti);
        let dxi = g(b, O::RelaxedLutGradX(k - 1), &[rest, slope, inputs, du]);
        acc(b, &mut dx, dxi);
    }
    vec![None, dt, dx, dg]
}
