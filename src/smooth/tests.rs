//! Reverse derivatives of every smooth gate, and of composites, against central finite
//! differences; losses and the learning rate by hand.

use super::*;
use crate::cat::rdiff;
use crate::circuit::CircuitBuilder;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random(shape: &[usize], rng: &mut ChaCha8Rng) -> Tensor {
    let n = shape.iter().product();
    Tensor::new(shape.to_vec(), (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect())
}

fn dot(a: &Tensor, b: &Tensor) -> f64 {
    a.data().iter().zip(b.data()).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum()
}

/// `<dy, f(x)>` for the circuit `f`.
fn pairing(f: &SmoothCircuit, x: &[Tensor], dy: &[Tensor]) -> f64 {
    let ins: Vec<&Tensor> = x.iter().collect();
    eval_tensors(f, &ins).iter().zip(dy).map(|(y, d)| dot(y, d)).sum()
}

/// Checks `sum_i <R[f](x, dy)_i, v_i>` against the central difference of `<dy, f(x + t v)>`.
/// Inputs listed in `frozen` are not moved (inputs a gate depends on only piecewise
/// constantly, such as the mask of `relu_back`, whose derivative is zero almost everywhere);
/// inputs in `fixed` (index tensors: a relaxed layer's wiring) take the given value and are
/// not moved either.
fn check_against_differences(
    f: &SmoothCircuit,
    shapes: &[Vec<usize>],
    frozen: &[usize],
    fixed: &[(usize, Tensor)],
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut x: Vec<Tensor> = shapes.iter().map(|s| random(s, &mut rng)).collect();
    for (i, t) in fixed {
        x[*i] = t.clone();
    }
    let frozen: Vec<usize> = frozen.iter().copied().chain(fixed.iter().map(|(i, _)| *i)).collect();
    let out_shapes = check_shapes(f, shapes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let dy: Vec<Tensor> = out_shapes.iter().map(|s| random(s, &mut rng)).collect();
    let v: Vec<Tensor> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| if frozen.contains(&i) { Tensor::zeros(s.clone()) } else { random(s, &mut rng) })
        .collect();
    let r = rdiff(f);
    let mut ins: Vec<&Tensor> = x.iter().collect();
    ins.extend(dy.iter());
    let grads = eval_tensors(&r, &ins);
    let analytic: f64 = grads
        .iter()
        .zip(&v)
        .map(|(g, v)| if g.shape().is_empty() && !v.shape().is_empty() { 0.0 } else { dot(g, v) })
        .sum();
    let shift =
        |t: f32| -> Vec<Tensor> { x.iter().zip(&v).map(|(a, d)| a.zip(d, |p, q| p + t * q)).collect() };
    slope_matches(|t| pairing(f, &shift(t), &dy), analytic, "R[f] gives")
}

/// Checks the directional derivative `analytic` of `g` at 0 against central differences
/// of `g`, trying steps from 1e-3 down to 1e-4. A step is usable when its one-sided
/// differences agree (no kink of relu or a max-pool switch within the step changes the
/// slope); the check passes at the first usable step that agrees, fails when no usable
/// step agrees, and rejects the case when no step is usable. Kinks whose slope changes
/// cancel can sit in one step and not the next smaller one, while a wrong derivative
/// disagrees at every step; smaller steps only cost f32 rounding of `g`, about 1e-7 / h,
/// well inside the tolerance.
fn slope_matches(g: impl Fn(f32) -> f64, analytic: f64, what: &str) -> Result<(), TestCaseError> {
    let mid = g(0.0);
    let mut disagreement = None;
    for h in [1e-3f32, 3e-4, 1e-4] {
        let (up, down) = (g(h), g(-h));
        let numeric = (up - down) / (2.0 * f64::from(h));
        let tol = 2e-2 * (1.0 + numeric.abs().max(analytic.abs()));
        if ((up - mid) - (mid - down)).abs() / f64::from(h) >= tol / 4.0 {
            continue;
        }
        if (analytic - numeric).abs() < tol {
            return Ok(());
        }
        disagreement.get_or_insert(format!("{what} {analytic}, differences {numeric} (step {h})"));
    }
    match disagreement {
        Some(m) => Err(TestCaseError::fail(m)),
        None => Err(TestCaseError::reject("a kink within every step")),
    }
}

/// The circuit of one gate over inputs of the given count.
fn one_gate(op: SmoothOp) -> SmoothCircuit {
    use crate::circuit::Signature;
    let mut b = CircuitBuilder::<SmoothOp>::new(0, op.arity());
    let args = b.args();
    let y = b.gate(op, &args);
    b.finish(vec![y]).unwrap()
}

/// A failure with the gate named; rejections stay rejections.
fn named(e: TestCaseError, what: &str) -> TestCaseError {
    match e {
        TestCaseError::Fail(m) => TestCaseError::fail(format!("{what}: {m}")),
        reject @ TestCaseError::Reject(_) => reject,
    }
}

/// The inputs a gate (and its reverse) depends on only piecewise constantly.
fn masked(op: SmoothOp) -> Vec<usize> {
    match op {
        SmoothOp::ReluBack | SmoothOp::MaxPoolBack(_) | SmoothOp::MaxPoolSelect(_) => vec![0],
        _ => vec![],
    }
}

fn cases() -> Vec<(SmoothOp, Vec<Vec<usize>>)> {
    use SmoothOp as O;
    vec![
        (O::Add, vec![vec![3, 4], vec![1, 4]]),
        (O::Sub, vec![vec![3, 1], vec![3, 4]]),
        (O::Mul, vec![vec![3, 4], vec![3, 4]]),
        (O::Mul, vec![vec![], vec![2, 3]]),
        (O::Neg, vec![vec![5]]),
        (O::Exp, vec![vec![2, 3]]),
        (O::Relu, vec![vec![4, 5]]),
        (O::ReluBack, vec![vec![4, 5], vec![4, 5]]),
        (O::Sigmoid, vec![vec![3, 3]]),
        (O::Tanh, vec![vec![3, 3]]),
        (O::LogSoftmax, vec![vec![3, 5]]),
        (O::Softmax, vec![vec![3, 5]]),
        (O::SoftmaxBack, vec![vec![3, 5], vec![3, 5]]),
        (O::RowSum, vec![vec![3, 5]]),
        (O::SumLike, vec![vec![1, 5], vec![3, 5]]),
        (O::ExpandLike, vec![vec![3, 5], vec![3, 1]]),
        (O::BatchMean, vec![vec![4, 2]]),
        (O::BatchSpread, vec![vec![4, 2], vec![]]),
        (O::Linear, vec![vec![3, 4], vec![2, 4]]),
        (O::LinearGradW, vec![vec![2, 3], vec![2, 4]]),
        (O::LinearGradX, vec![vec![3, 4], vec![2, 3]]),
        (O::Conv2d, vec![vec![2, 3, 2, 2], vec![2, 3, 5, 4]]),
        (O::Conv2dGradK, vec![vec![2, 3, 5, 4], vec![2, 2, 4, 3]]),
        (O::Conv2dGradX, vec![vec![2, 3, 2, 2], vec![2, 2, 4, 3]]),
        (O::MaxPool(2), vec![vec![2, 2, 5, 4]]),
        (O::MaxPoolBack(2), vec![vec![2, 2, 5, 4], vec![2, 2, 2, 2]]),
        (O::MaxPoolSelect(2), vec![vec![2, 2, 4, 4], vec![2, 2, 4, 4]]),
        (O::Flatten, vec![vec![2, 3, 2]]),
        (O::ReshapeLike, vec![vec![2, 6], vec![2, 3, 2]]),
    ]
}

/// Relaxed-logic gates, their input shapes and the wiring tensor they read (input 0).
fn relaxed_cases() -> Vec<(SmoothOp, Vec<Vec<usize>>, Option<Tensor>)> {
    use SmoothOp as O;
    // Three 2-input nodes and two 3-input nodes over a previous layer of 4 (one read twice
    // by the same node, one unread), 5 examples.
    let w2 = Tensor::new(vec![3, 2], vec![0., 2., 2., 2., 3., 0.]);
    let w3 = Tensor::new(vec![2, 3], vec![1., 0., 3., 3., 1., 0.]);
    vec![
        (O::RelaxedLut(2), vec![vec![3, 2], vec![3, 4], vec![4, 5]], Some(w2.clone())),
        (O::RelaxedLut(3), vec![vec![2, 3], vec![2, 8], vec![4, 5]], Some(w3.clone())),
        (O::RelaxedLutGradT(2), vec![vec![3, 2], vec![4, 5], vec![3, 5]], Some(w2.clone())),
        (O::RelaxedLutGradX(2), vec![vec![3, 2], vec![3, 4], vec![4, 5], vec![3, 5]], Some(w2.clone())),
        (O::RelaxedLutGradX(3), vec![vec![2, 3], vec![2, 8], vec![4, 5], vec![2, 5]], Some(w3.clone())),
        (O::GatherInputs(1), vec![vec![3, 2], vec![4, 5]], Some(w2.clone())),
        (O::ScatterInputs(0), vec![vec![3, 2], vec![4, 5], vec![3, 5]], Some(w2.clone())),
        (O::SoftChoice, vec![vec![3, 2], vec![3, 2], vec![4, 5]], Some(w2.clone())),
        (O::SoftChoice, vec![vec![2, 3], vec![2, 3], vec![4, 5]], Some(w3.clone())),
        (O::SoftChoiceGradW, vec![vec![3, 2], vec![4, 5], vec![3, 5]], Some(w2)),
        (O::SoftChoiceGradX, vec![vec![2, 3], vec![2, 3], vec![4, 5], vec![2, 5]], Some(w3)),
        (O::TableSlope(1), vec![vec![3, 8]], None),
        (O::TableSlopeAdjoint(0), vec![vec![3, 2]], None),
        (O::GroupSum(2), vec![vec![4, 3]], None),
        (O::GroupSpread(2), vec![vec![4, 3], vec![3, 2]], None),
        (O::TruthTables, vec![vec![3, 16]], None),
        (O::TruthTablesAdjoint, vec![vec![3, 4]], None),
    ]
}

/// Twelve cases each, or `PROPTEST_CASES` when set (to run the checks longer by hand).
fn config() -> ProptestConfig {
    ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12),
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_gate_reverse_matches_differences(seed in any::<u64>()) {
        for (op, shapes) in cases() {
            check_against_differences(&one_gate(op), &shapes, &masked(op), &[], seed)
                .map_err(|e| named(e, &format!("{op:?}")))?;
        }
    }

    #[test]
    fn second_reverse_matches_differences(seed in any::<u64>()) {
        // R[f] is a smooth circuit too; its own reverse derivative is checked the same way.
        for (op, shapes) in cases() {
            if matches!(op, SmoothOp::Relu | SmoothOp::MaxPool(_)) {
                continue; // R[f] is relu_back / maxpool_back, checked here on their own
            }
            let f = one_gate(op);
            let r = rdiff(&f);
            let mut all = shapes.clone();
            all.extend(check_shapes(&f, &shapes).unwrap());
            check_against_differences(&r, &all, &masked(op), &[], seed)
                .map_err(|e| named(e, &format!("R[{op:?}]")))?;
        }
    }

    #[test]
    fn relaxed_logic_gates_reverse_and_second_reverse_match_differences(seed in any::<u64>()) {
        // The relaxed-logic gates with a fixed wiring (input 0 where they take one): R[f]
        // and R[R[f]] against differences, the latter covering the decomposition that
        // reverses the input adjoint of a LUT layer.
        for (op, shapes, wiring) in relaxed_cases() {
            let fixed: Vec<(usize, Tensor)> = wiring.into_iter().map(|w| (0, w)).collect();
            let f = one_gate(op);
            check_against_differences(&f, &shapes, &[], &fixed, seed)
                .map_err(|e| named(e, &format!("{op:?}")))?;
            let mut all = shapes.clone();
            all.extend(check_shapes(&f, &shapes).unwrap());
            check_against_differences(&rdiff(&f), &all, &[], &fixed, seed)
                .map_err(|e| named(e, &format!("R[{op:?}]")))?;
        }
        // The choice's weight adjoints through a LUT layer, in one gate: its wiring (input 0)
        // and candidates (input 2) fixed.
        let op = SmoothOp::LutChoiceGradW(2);
        let fixed = vec![
            (0, Tensor::new(vec![3, 2], vec![0., 2., 2., 2., 3., 0.])),
            (2, Tensor::new(vec![4, 3], vec![1., 0., 3., 3., 1., 0., 2., 2., 1., 0., 3., 2.])),
        ];
        let shapes = vec![vec![3, 2], vec![3, 4], vec![4, 3], vec![4, 5], vec![4, 5], vec![3, 5]];
        let f = one_gate(op);
        check_against_differences(&f, &shapes, &[], &fixed, seed).map_err(|e| named(e, &format!("{op:?}")))?;
        let mut all = shapes.clone();
        all.extend(check_shapes(&f, &shapes).unwrap());
        check_against_differences(&rdiff(&f), &all, &[], &fixed, seed)
            .map_err(|e| named(e, &format!("R[{op:?}]")))?;
    }

    #[test]
    fn learners_gradient_matches_differences(seed in any::<u64>()) {
        learner_gradient_matches(seed)?;
    }
}

/// The whole learner (small MLP, conv and cnn models, both losses): the parameter changes of the
/// learner circuit against differences of the loss. The parameters are the model's initial
/// ones each moved by a random amount: with the init's zero biases, a hidden layer dead on
/// an example puts every pre-activation of the next layer on that example exactly on relu's
/// kink, where the loss has no derivative (relu_back takes slope 0 there) and its one-sided
/// differences, which sum the kinks' slope changes, can still agree by chance.
fn learner_gradient_matches(seed: u64) -> Result<(), TestCaseError> {
    use layers::{SmoothModel, SmoothSpec, WeightInit};
    let mut checked = 0;
    let specs = [
        ("mlp:5x4", vec![6]),
        ("conv", vec![1, 12, 12]),
        ("cnn:2x3:4", vec![1, 16, 16]),
        ("hidden:3", vec![4]),
    ];
    for (spec, shape) in specs {
        let m =
            SmoothModel::from_spec(&spec.parse::<SmoothSpec>().unwrap(), &shape, 3, WeightInit::FanIn, seed)
                .unwrap();
        for kind in [loss::LossKind::Mse, loss::LossKind::SoftmaxCrossEntropy] {
            let lens = loss::learner(&m.circuit, &kind.lens(), 1.0).unwrap();
            let changes = parameter_changes(&lens, m.params.len());
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 7);
            let x = random(&[2].iter().chain(&shape).copied().collect::<Vec<_>>(), &mut rng);
            let y = Tensor::new(vec![2, 3], vec![1., 0., 0., 0., 0., 1.]);
            let params: Vec<Tensor> =
                m.params.iter().map(|p| p.zip(&random(p.shape(), &mut rng), |a, r| a + 0.1 * r)).collect();
            let mut ins: Vec<&Tensor> = params.iter().collect();
            ins.extend([&x, &y]);
            let grads = eval_tensors(&changes, &ins);
            let v: Vec<Tensor> = params.iter().map(|p| random(p.shape(), &mut rng)).collect();
            let analytic: f64 = grads.iter().zip(&v).map(|(g, v)| dot(g, v)).sum();
            let map = match kind {
                loss::LossKind::Mse => loss::mse_map(),
                loss::LossKind::SoftmaxCrossEntropy => loss::softmax_cross_entropy_map(),
            };
            let loss_at = |t: f32| {
                let p: Vec<Tensor> = params.iter().zip(&v).map(|(a, d)| a.zip(d, |p, q| p + t * q)).collect();
                let mut ins: Vec<&Tensor> = p.iter().collect();
                ins.push(&x);
                let yhat = eval_tensors(&m.circuit, &ins).swap_remove(0);
                f64::from(eval_tensors(&map, &[&yhat, &y])[0].data()[0])
            };
            match slope_matches(loss_at, analytic, &format!("{spec} {kind:?}: the learner gives")) {
                Ok(()) => checked += 1,
                Err(TestCaseError::Reject(_)) => {} // a kink within every step: this pair unchecked
                Err(fail) => return Err(fail),
            }
        }
    }
    prop_assume!(checked > 0, "a kink within every step of every model");
    Ok(())
}

#[test]
fn learners_gradient_matches_differences_on_seeds_that_failed() {
    // Seeds proptest saw fail (proptest-regressions/smooth/tests.txt) and one that failed
    // the earlier single-step check at the init's zero biases: a first layer of mlp:5x4
    // dead on one example left its second layer's pre-activations exactly zero.
    for seed in [
        6555717498392983325,
        2896339946773879741,
        7273149156305590873,
        16954475604983257316,
        3612680113172504336,
    ] {
        learner_gradient_matches(seed).unwrap();
    }
}

#[test]
fn losses_and_learning_rate_by_hand() {
    // MSE of ŷ = (1, 2), y = (0, 0) over a batch of one: L = 2.5; the change to ŷ with
    // learning rate 0.1 is 0.1 (ŷ - y).
    let yhat = Tensor::new(vec![1, 2], vec![1.0, 2.0]);
    let y = Tensor::new(vec![1, 2], vec![0.0, 0.0]);
    assert_eq!(eval_tensors(&loss::mse_map(), &[&yhat, &y])[0].data(), &[2.5]);
    let model = crate::circuit::Circuit::identity(1);
    let lens = loss::learner(&model, &loss::mse(), 0.1).unwrap();
    let d = eval_tensors(lens.changes(), &[&yhat, &y]);
    assert_eq!(d[0].data(), &[0.1, 0.2]);
    // Cross-entropy of equal logits against class 0 of 2: ln 2; change softmax - y.
    let z = Tensor::new(vec![1, 2], vec![0.5, 0.5]);
    let t = Tensor::new(vec![1, 2], vec![1.0, 0.0]);
    let l = eval_tensors(&loss::softmax_cross_entropy_map(), &[&z, &t])[0].data()[0];
    assert!((l - std::f32::consts::LN_2).abs() < 1e-6);
    let lens = loss::learner(&model, &loss::softmax_cross_entropy(), 1.0).unwrap();
    let d = eval_tensors(lens.changes(), &[&z, &t]);
    assert!((d[0].data()[0] + 0.5).abs() < 1e-6 && (d[0].data()[1] - 0.5).abs() < 1e-6);
}

#[test]
fn parameter_changes_skip_the_input_gradient() {
    use layers::{SmoothModel, SmoothSpec, WeightInit};
    let m = SmoothModel::from_spec(&"mlp:8".parse::<SmoothSpec>().unwrap(), &[5], 3, WeightInit::FanIn, 1)
        .unwrap();
    let lens = loss::learner(&m.circuit, &loss::softmax_cross_entropy(), 1.0).unwrap();
    let c = parameter_changes(&lens, m.params.len());
    assert_eq!(c.n_outputs(), 4);
    let hist = c.gate_histogram();
    let count = |n: &str| hist.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v);
    // One input gradient (into the hidden layer), none into the data; the forward pass once.
    assert_eq!(count("linear_grad_x"), 1);
    assert_eq!(count("linear_grad_w"), 2);
    assert_eq!(count("linear"), 2);
    assert_eq!(count("relu"), 1);
}

/// The straight-through step: forward `[x > 0]` (0 at 0, as a LUT entry discretises);
/// reverse the sigmoid's rule, `dy s (1 - s)` with `s = sigmoid x`.
#[test]
fn straight_through_step_is_a_step_forward_and_a_sigmoid_backward() {
    let f = one_gate(SmoothOp::StraightThroughStep);
    let x = Tensor::new(vec![2, 3], vec![0.5, -0.5, 0.0, 3.0, -2.0, 1e-30]);
    assert_eq!(eval_tensors(&f, &[&x])[0].data(), &[1., 0., 0., 1., 0., 1.]);
    let dy = Tensor::new(vec![2, 3], vec![1.0, -2.0, 3.0, 0.5, 1.0, -1.0]);
    let dx = eval_tensors(&rdiff(&f), &[&x, &dy]).swap_remove(0);
    let sigmoid = one_gate(SmoothOp::Sigmoid);
    let expected = eval_tensors(&rdiff(&sigmoid), &[&x, &dy]).swap_remove(0);
    assert_eq!(dx.data(), expected.data());
    assert!(dx.data().iter().all(|v| *v != 0.0), "every entry learns");
}

/// The straight-through max: forward the one-hot of each row's largest entry (the first
/// of ties); reverse the change unchanged (`R[f](x, dy) = dy`).
#[test]
fn straight_through_max_is_one_hot_forward_and_identity_backward() {
    let f = one_gate(SmoothOp::StraightThroughMax);
    let x = Tensor::new(vec![3, 3], vec![0.1, 0.7, 0.2, 2.0, 2.0, -1.0, -3.0, -2.0, -5.0]);
    assert_eq!(eval_tensors(&f, &[&x])[0].data(), &[0., 1., 0., 1., 0., 0., 0., 1., 0.]);
    let dy = Tensor::new(vec![3, 3], (0..9).map(|i| i as f32 - 4.0).collect());
    let dx = eval_tensors(&rdiff(&f), &[&x, &dy]).swap_remove(0);
    assert_eq!(dx.data(), dy.data());
}

/// `cnn:F1xF2:H`: two valid 5x5 convolutions, each pooled by 2, then a hidden dense layer:
/// 28x28 images flatten to `F2 * 4 * 4`; images under 16x16 and flat inputs are refused.
#[test]
fn cnn_specs_build_lenet_layers() {
    use layers::{Layer, SmoothModel, SmoothSpec, WeightInit};
    let spec: SmoothSpec = "cnn:6x16:32".parse().unwrap();
    let layers = spec.layers(&[1, 28, 28], 10).unwrap();
    assert_eq!(layers[0], Layer::Conv { channels: 1, filters: 6, size: 5 });
    assert_eq!(layers[3], Layer::Conv { channels: 6, filters: 16, size: 5 });
    assert_eq!(layers[7], Layer::Dense { inputs: 16 * 4 * 4, outputs: 32, bias: true });
    let m = SmoothModel::from_spec(&spec, &[1, 28, 28], 10, WeightInit::FanIn, 0).unwrap();
    assert_eq!(m.n_params(), 6 * 25 + 16 * 6 * 25 + 256 * 32 + 32 + 32 * 10 + 10);
    assert!(spec.layers(&[1, 15, 15], 10).is_err());
    assert!(spec.layers(&[784], 10).is_err());
    for bad in ["cnn:6x16", "cnn:6:32", "cnn:6x16x8:32", "cnn:6x16:0"] {
        assert!(bad.parse::<SmoothSpec>().is_err(), "{bad}");
    }
}
