//! Relaxed networks and their training: discretisation, the hard phases, gradients
//! against finite differences, learning Iris, narrowing, local input choice, learned
//! wiring in the later layers.

use super::*;
use crate::data::{self, Encoder, Encoding};
use crate::learn::head::accuracy;
use crate::learn::predict::{forward, predict};
use crate::learn::relaxed::*;
use crate::smooth::lut;
use rand::{RngExt, SeedableRng};

/// What a relaxed run produced, as the tests read it.
struct RelaxedReport {
    logits: Vec<f32>,
    history: Vec<RelaxedEpoch>,
}

fn train(
    net: &RelaxedNet,
    inputs: &BitMatrix,
    labels: &[u32],
    p: &RelaxedParams,
    on_epoch: impl FnMut(&RelaxedEpoch, &[f32]),
) -> RelaxedReport {
    let (logits, report) = train_relaxed(net, inputs, labels, p, on_epoch);
    RelaxedReport { logits, history: report.history }
}

/// Hard gate tables: in each gate's 16 logits, its most likely function's far above the
/// others.
fn harden_gates(table_logits: &mut [f32]) {
    for node in table_logits.chunks_exact_mut(16) {
        let f = argmax(node);
        node.fill(-1000.0);
        node[f] = 0.0;
    }
}

fn random_inputs(rows: usize, examples: usize, seed: u64) -> BitMatrix {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ex: Vec<Vec<bool>> = (0..examples).map(|_| (0..rows).map(|_| rng.random()).collect()).collect();
    BitMatrix::from_examples(rows, &ex)
}

#[test]
fn specs_parse_print_and_reject() {
    let g = RelaxedSpec::parse("gates:30x3", 3).unwrap();
    assert_eq!(g.relaxation, Relaxation::Gates);
    assert_eq!(g.discrete.to_string(), "lut:2:30x3,groupsum:3");
    assert_eq!(g.to_string(), "gates:30x3,groupsum:3");
    let l = RelaxedSpec::parse("lut:4:20x2,groupsum:2", 2).unwrap();
    assert_eq!((l.relaxation, l.to_string()), (Relaxation::Lut, "lut:4:20x2,groupsum:2".into()));
    for (bad, why) in [("mlp:10", "gates:WxD"), ("gates:10", "WIDTHxDEPTH"), ("gates:8x1,binary", "groupsum")]
    {
        let e = RelaxedSpec::parse(bad, 3).unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
    }
}

/// On 0/1 inputs with 0/1 tables the relaxed LUT layers, read through the wiring tensors,
/// are the Boolean network, output for output: wiring, address order and parameter
/// placement agree.
#[test]
fn hard_tables_reproduce_the_boolean_network() {
    for (spec, seed) in
        [("gates:24x3,groupsum:3", 1), ("lut:3:15x2,groupsum:3", 2), ("lut:5:9x2,groupsum:3", 3)]
    {
        let net = RelaxedNet::build(RelaxedSpec::parse(spec, 3).unwrap(), 11, 3, seed).unwrap();
        let params = net.discretise(&net.init(seed, 0.0));
        let x = random_inputs(11, 70, seed);
        let idx: Vec<usize> = (0..70).collect();
        let mut h = gather(&x, &idx);
        for ((l, layer), wiring) in net.layers.iter().enumerate().zip(net.wiring()) {
            let first = net.offsets()[l].0;
            let size = 1usize << layer.k;
            let hard: Vec<f32> = (0..layer.width())
                .flat_map(|n| {
                    let base = net.table_params[first + n];
                    params[base..base + size].iter().map(|&v| f32::from(u8::from(v)))
                })
                .collect();
            h = lut::soft_lut(&wiring, &Tensor::new(vec![layer.width(), size], hard), &h);
        }
        let want = forward(&net.network.circuit, &params, &x);
        for j in 0..want.rows() {
            for e in 0..70 {
                let got = h.data()[j * 70 + e];
                assert_eq!(got, f32::from(u8::from(want.get(j, e))), "{spec} out {j} ex {e}");
            }
        }
    }
}

/// With a learned input choice whose softmax is one-hot (the other logits far below) and
/// hard tables, the relaxed network's class scores are the group popcounts of the
/// discretised network, which reads the chosen candidates through its learned wiring.
#[test]
fn a_hard_input_choice_is_the_learned_wiring() {
    let spec = RelaxedSpec::parse("gates:30x3,groupsum:3", 3).unwrap();
    let net = RelaxedNet::build(spec, 40, 3, 5).unwrap().with_input_choice(4, 6);
    assert_eq!(net.input_candidates(), 4);
    let mut logits = net.init(2, 0.0);
    let tables = net.n_table_logits();
    for (m, w) in logits[tables..].chunks_exact_mut(4).enumerate() {
        w.fill(-1000.0);
        w[(m * 7) % 4] = 0.0;
    }
    harden_gates(&mut logits[..tables]);
    let learned = net.learned_wiring(&logits);
    assert_eq!(learned.len(), 1);
    assert_eq!(learned[0].len(), 30 * 2);
    assert_ne!(learned[0], net.layers[0].sources, "the choice moved some inputs");
    let discrete = net.discrete_network(&logits);
    let params = net.discretise(&logits);
    let x = random_inputs(40, 50, 8);
    let idx: Vec<usize> = (0..50).collect();
    let ins: Vec<Tensor> =
        net.logit_tensors(&logits).into_iter().chain(net.wiring()).chain([gather(&x, &idx)]).collect();
    let scores = eval_tensors(&net.circuit(1.0), &ins.iter().collect::<Vec<_>>()).swap_remove(0);
    let out = forward(&discrete.circuit, &params, &x);
    let per = out.rows() / 3;
    for e in 0..50 {
        for c in 0..3 {
            let count = (c * per..(c + 1) * per).filter(|&j| out.get(j, e)).count();
            assert_eq!(scores.data()[e * 3 + c], count as f32, "example {e} class {c}");
        }
    }
    // The seeded network differs: the wiring is what the choice learned.
    assert_ne!(discrete, net.network);
}

/// Straight-through nodes compute the discretised network exactly, from soft logits
/// (each gate its most likely function, each LUT its entries rounded), and the logits
/// still get gradients.
#[test]
fn straight_through_nodes_are_the_discrete_network() {
    for spec in ["gates:30x3,groupsum:3", "lut:3:30x3,groupsum:3"] {
        let spec = RelaxedSpec::parse(spec, 3).unwrap();
        let net = RelaxedNet::build(spec, 40, 3, 5).unwrap();
        let logits = net.init(2, 1.0);
        let params = net.discretise(&logits);
        let x = random_inputs(40, 50, 8);
        let idx: Vec<usize> = (0..50).collect();
        let ins: Vec<Tensor> =
            net.logit_tensors(&logits).into_iter().chain(net.wiring()).chain([gather(&x, &idx)]).collect();
        let ins: Vec<&Tensor> = ins.iter().collect();
        let scores =
            eval_tensors(&net.circuit_with(1.0, true, StraightThroughChoice::None), &ins).swap_remove(0);
        let soft = eval_tensors(&net.circuit(1.0), &ins).swap_remove(0);
        assert_ne!(scores, soft, "{spec}: soft logits: the relaxed network differs");
        let out = forward(&net.network.circuit, &params, &x);
        let per = out.rows() / 3;
        for e in 0..50 {
            for c in 0..3 {
                let count = (c * per..(c + 1) * per).filter(|&j| out.get(j, e)).count();
                assert_eq!(scores.data()[e * 3 + c], count as f32, "{spec}: example {e} class {c}");
            }
        }
        let y = one_hot(&[0, 1, 2].repeat(17)[..50], &idx, 3);
        let step = step_circuit(&net.circuit_with(1.0, true, StraightThroughChoice::None), false);
        let with_y: Vec<&Tensor> = ins.iter().copied().chain([&y]).collect();
        let grads = eval_tensors(&step, &with_y);
        for g in &grads[..net.layers.len()] {
            assert!(g.data().iter().any(|&v| v != 0.0), "{spec}: every layer's logits learn");
        }
    }
}

/// The gates relaxation: the table of a one-hot mixture is that function's truth table,
/// and AND / XOR relax to ab and a + b - 2ab (scores of a one-layer network, one gate per
/// class).
#[test]
fn gate_mixture_tables_are_truth_tables() {
    let mut p = vec![0.0f32; 32];
    p[0b1000] = 1.0; // AND: only s = 3 (a = b = 1)
    p[16 + 0b0110] = 1.0; // XOR
    let t = lut::truth_tables(&Tensor::new(vec![2, 16], p));
    assert_eq!(t.data(), &[0., 0., 0., 1., 0., 1., 1., 0.]);
    let net = RelaxedNet::build(RelaxedSpec::parse("gates:2x1,groupsum:2", 2).unwrap(), 2, 2, 0).unwrap();
    let mut w = vec![-30.0f32; 32];
    w[0b1000] = 30.0;
    w[16 + 0b0110] = 30.0;
    let x = Tensor::new(vec![2, 1], vec![0.3, 0.6]); // a = 0.3, b = 0.6, one example
    let ins: Vec<Tensor> = net.logit_tensors(&w).into_iter().chain(net.wiring()).chain([x]).collect();
    let y = eval_tensors(&net.circuit(1.0), &ins.iter().collect::<Vec<_>>()).swap_remove(0);
    let y = y.data();
    assert!((y[0] - 0.3 * 0.6).abs() < 1e-5 && (y[1] - (0.3 + 0.6 - 2.0 * 0.18)).abs() < 1e-5, "{y:?}");
}

/// The training step's logit gradients against central differences of the loss, both
/// relaxations.
#[test]
fn logit_gradients_match_finite_differences() {
    for (spec, candidates) in
        [("gates:6x2,groupsum:2", 1), ("lut:3:6x2,groupsum:2", 1), ("gates:6x2,groupsum:2", 3)]
    {
        let net = RelaxedNet::build(RelaxedSpec::parse(spec, 2).unwrap(), 5, 2, 4)
            .unwrap()
            .with_input_choice(candidates, 9);
        let bits = random_inputs(5, 9, 7);
        let labels: Vec<u32> = (0..9).map(|e| e % 2).collect();
        let idx: Vec<usize> = (0..9).collect();
        let (x, y) = (gather(&bits, &idx), one_hot(&labels, &idx, 2));
        let model = net.circuit(0.7);
        let wiring = net.wiring();
        let mut logits = net.init(3, 0.5);
        // A choice away from uniform, so its softmax's slope is not symmetric.
        let tables = net.n_table_logits();
        logits[tables..].iter_mut().enumerate().for_each(|(i, v)| *v = (i % 5) as f32 * 0.3 - 0.5);
        let with = |w: &[f32], c: &SmoothCircuit, extra: &[&Tensor]| {
            let params = net.logit_tensors(w);
            let ins: Vec<&Tensor> = params.iter().chain(&wiring).chain(extra.iter().copied()).collect();
            eval_tensors(c, &ins)
        };
        let n_tensors = model.n_params();
        let g: Vec<f32> = with(&logits, &step_circuit(&model, false), &[&x, &y])[..n_tensors]
            .iter()
            .flat_map(|t| t.data().to_vec())
            .collect();
        let ce = loss::softmax_cross_entropy_map();
        let loss = |w: &[f32]| f64::from(eval_tensors(&ce, &[&with(w, &model, &[&x])[0], &y])[0].data()[0]);
        let h = 1e-2f32;
        for i in (0..logits.len()).step_by(3) {
            let (mut up, mut down) = (logits.clone(), logits.clone());
            up[i] += h;
            down[i] -= h;
            let fd = (loss(&up) - loss(&down)) / f64::from(2.0 * h);
            assert!((fd - f64::from(g[i])).abs() < 2e-4, "{spec} x{candidates} logit {i}: {fd} vs {}", g[i]);
        }
    }
}

/// Relaxed gates on thermometer-encoded Iris: trains, discretises, and the Boolean circuit
/// classifies the held-out examples; the result is the same for any thread count.
#[test]
fn gates_learn_iris_and_discretise() {
    let ds = data::load_dataset("iris").unwrap();
    let (tr, te) = data::stratified_split(&ds.labels, 0.3, 0);
    let (train_ds, test_ds) = (ds.subset(&tr), ds.subset(&te));
    let enc = Encoder::fit(&Encoding::Thermometer { bits: 8 }, &train_ds).unwrap();
    let (x, xt) = (enc.encode(&train_ds).unwrap(), enc.encode(&test_ds).unwrap());
    let spec = RelaxedSpec::parse("gates:120x2", 3).unwrap();
    let net = RelaxedNet::build(spec, enc.n_bits(), 3, 0).unwrap();
    let p = RelaxedParams { epochs: 60, batch: 32, lr: 0.05, tau: 4.0, ..RelaxedParams::default() };
    let report = train(&net, &x, &train_ds.labels, &p, |_, _| {});
    let first = report.history[0].loss;
    assert!(report.history.last().unwrap().loss < first, "loss fell");
    let params = net.discretise(&report.logits);
    let hard = accuracy(&predict(&net.network, &params, &xt), &test_ds.labels);
    let soft = accuracy(&net.soft_predict(&report.logits, &xt), &test_ds.labels);
    assert!(hard >= 0.85 && soft >= 0.85, "discrete {hard}, relaxed {soft}");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let again = one.install(|| train(&net, &x, &train_ds.labels, &p, |_, _| {}));
    assert_eq!(again.logits, report.logits);

    // With a learned input choice, made hard for the last 10 epochs: the choice logits
    // come back one-hot, the discretised network reads the chosen bits, and it learns.
    let chosen = net.clone().with_input_choice(4, 1);
    let p = RelaxedParams { hard_choice_epochs: 10, ..p };
    let report = train(&chosen, &x, &train_ds.labels, &p, |_, _| {});
    let choice = &report.logits[chosen.n_table_logits()..];
    assert_eq!(choice.len(), 120 * 2 * 4);
    for w in choice.chunks(4) {
        assert_eq!(w.iter().filter(|&&v| v == 0.0).count(), 1, "{w:?}");
        assert_eq!(w.iter().filter(|&&v| v == -1000.0).count(), 3, "{w:?}");
    }
    // Test accuracy of the network trained logits discretise into (learned wiring included).
    let discrete_accuracy = |logits: &[f32]| {
        let discrete = chosen.discrete_network(logits);
        accuracy(&predict(&discrete, &chosen.discretise(logits), &xt), &test_ds.labels)
    };
    let hard = discrete_accuracy(&report.logits);
    assert!(hard >= 0.85, "discrete with learned wiring {hard}");
    let again = one.install(|| train(&chosen, &x, &train_ds.labels, &p, |_, _| {}));
    assert_eq!(again.logits, report.logits);

    // The last 10 epochs with hard gates too (straight-through): still learns, as
    // deterministically; the gate logits moved during those epochs.
    let p_hard = RelaxedParams { hard_gate_epochs: 10, ..p };
    let hard_report = train(&chosen, &x, &train_ds.labels, &p_hard, |_, _| {});
    assert_ne!(hard_report.logits, report.logits);
    let hard = discrete_accuracy(&hard_report.logits);
    assert!(hard >= 0.85, "discrete after straight-through epochs {hard}");
    let again = one.install(|| train(&chosen, &x, &train_ds.labels, &p_hard, |_, _| {}));
    assert_eq!(again.logits, hard_report.logits);
}

/// Narrowing the input choice keeps each input's heaviest candidates: the narrowed network
/// with the kept logits computes what the full one does with the others at -1000, and
/// training that narrows part-way matches the unnarrowed run until then, reports logits
/// in the full network's layout, learns, and does not depend on the thread count.
#[test]
fn a_narrowed_choice_keeps_the_heaviest_candidates() {
    let spec = RelaxedSpec::parse("gates:30x3,groupsum:3", 3).unwrap();
    let net = RelaxedNet::build(spec, 40, 3, 5).unwrap().with_input_choice(4, 6);
    let mut logits = net.init(2, 0.0);
    let tables = net.n_table_logits();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    logits[tables..].iter_mut().for_each(|w| *w = standard_normal(&mut rng));
    let (narrowed, kept) = net.with_top_candidates(&logits, 2);
    assert_eq!((narrowed.input_candidates(), kept.len()), (2, 30 * 2 * 2));
    let full_choice = net.choices[0].as_ref().unwrap();
    for (m, pair) in kept.chunks_exact(2).enumerate() {
        let w = &logits[tables + m * 4..][..4];
        assert!(pair.iter().all(|&i| i / 4 == m));
        let heaviest = argmax(w);
        assert_eq!(pair[0], m * 4 + heaviest);
        assert!(w.iter().enumerate().all(|(i, &v)| i == heaviest || i == pair[1] % 4 || v <= w[pair[1] % 4]));
        let sources = &narrowed.choices[0].as_ref().unwrap().sources[m * 2..][..2];
        assert_eq!(sources, [full_choice.sources[pair[0]], full_choice.sources[pair[1]]]);
    }
    let mut padded = logits.clone();
    padded[tables..].fill(-1000.0);
    let mut small = logits[..tables].to_vec();
    for &i in &kept {
        padded[tables + i] = logits[tables + i];
        small.push(logits[tables + i]);
    }
    let x = random_inputs(40, 50, 8);
    let scores = |n: &RelaxedNet, l: &[f32]| {
        let idx: Vec<usize> = (0..50).collect();
        let ins: Vec<Tensor> =
            n.logit_tensors(l).into_iter().chain(n.wiring()).chain([gather(&x, &idx)]).collect();
        eval_tensors(&n.circuit(1.0), &ins.iter().collect::<Vec<_>>()).swap_remove(0)
    };
    assert_eq!(scores(&narrowed, &small).data(), scores(&net, &padded).data());

    let ds = data::load_dataset("iris").unwrap();
    let enc = Encoder::fit(&Encoding::Thermometer { bits: 8 }, &ds).unwrap();
    let x = enc.encode(&ds).unwrap();
    let spec = RelaxedSpec::parse("gates:60x2", 3).unwrap();
    let net = RelaxedNet::build(spec, enc.n_bits(), 3, 0).unwrap().with_input_choice(6, 1);
    let p = RelaxedParams { epochs: 30, batch: 32, lr: 0.05, tau: 4.0, ..RelaxedParams::default() };
    let narrow = RelaxedParams { narrow_after: 10, narrow_to: 2, ..p };
    let mut before = Vec::new();
    let full = train(&net, &x, &ds.labels, &p, |h, l| before.push((h.epoch, l.to_vec())));
    let mut during = Vec::new();
    let report = train(&net, &x, &ds.labels, &narrow, |h, l| during.push((h.epoch, l.to_vec())));
    assert_eq!(during[..10], before[..10], "identical until the choice narrows");
    assert_ne!(report.logits, full.logits);
    assert_eq!(report.logits.len(), net.n_logits());
    for w in report.logits[net.n_table_logits()..].chunks_exact(6) {
        assert_eq!(w.iter().filter(|&&v| v == -1000.0).count(), 4, "{w:?}");
    }
    let discrete = net.discrete_network(&report.logits);
    let acc = accuracy(&predict(&discrete, &net.discretise(&report.logits), &x), &ds.labels);
    assert!(acc >= 0.85, "narrowed choice: training accuracy {acc}");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let again = one.install(|| train(&net, &x, &ds.labels, &narrow, |_, _| {}));
    assert_eq!(again.logits, report.logits);
}

/// A local input choice draws every candidate of a gate from pixels within the radius of
/// the gate's centre (its first seeded source's pixel, kept as the first candidate),
/// across all thresholds, and refuses input bits that are not whole pixels.
#[test]
fn local_input_choice_stays_near_the_centre_pixel() {
    let (grid, bits, radius) = (PixelGrid { width: 7, height: 5 }, 3, 1);
    let spec = RelaxedSpec::parse("gates:200x2,groupsum:2", 2).unwrap();
    let net = RelaxedNet::build(spec, 7 * 5 * bits, 2, 4).unwrap();
    let seeded = net.layers[0].sources.clone();
    let local = net.clone().with_local_input_choice(6, 9, grid, radius).unwrap();
    let choice = local.choices[0].as_ref().unwrap();
    assert_eq!((choice.k, choice.sources.len()), (6, 200 * 2 * 6));
    let place = |bit: u32| {
        let pixel = bit as usize / bits;
        (pixel % grid.width, pixel / grid.width, bit as usize % bits)
    };
    let mut thresholds = [false; 3];
    for (gate, cands) in seeded.chunks_exact(2).zip(choice.sources.chunks_exact(2 * 6)) {
        assert_eq!(cands[0], gate[0], "the first candidate is the seeded source");
        let (cx, cy, _) = place(gate[0]);
        for &c in cands {
            let (x, y, t) = place(c);
            assert!(x.abs_diff(cx) <= radius && y.abs_diff(cy) <= radius, "{c} is far from {}", gate[0]);
            thresholds[t] = true;
        }
    }
    assert_eq!(thresholds, [true; 3], "candidates read every threshold");
    // The same seed draws the same candidates; the whole-image choice draws others.
    let again = net.clone().with_local_input_choice(6, 9, grid, radius).unwrap();
    assert_eq!(again.choices[0], local.choices[0]);
    assert_ne!(net.clone().with_input_choice(6, 9).choices[0], local.choices[0]);
    let wrong = PixelGrid { width: 6, height: 5 };
    let e = net.with_local_input_choice(6, 9, wrong, radius).unwrap_err();
    assert!(e.to_string().contains("105 input bits are not a whole number of bits per pixel of 6x5"), "{e}");
}

/// With a learned choice in every layer made hard (one-hot softmax) and hard tables, the
/// relaxed network's class scores are the group popcounts of the discretised network,
/// which reads the chosen sources of every layer through its learned wiring; the same
/// network with the choices fixed (`with_chosen_inputs`) computes the same scores.
#[test]
fn hard_choices_in_every_layer_are_the_learned_wiring() {
    let spec = RelaxedSpec::parse("gates:30x3,groupsum:3", 3).unwrap();
    let seeded = RelaxedNet::build(spec, 40, 3, 5).unwrap();
    for (first, hidden) in [(4, 3), (1, 5)] {
        let net = seeded.clone().with_input_choice(first, 6).with_hidden_choice(hidden, 6, None).unwrap();
        assert_eq!((net.candidates(0), net.candidates(1), net.candidates(2)), (first, hidden, hidden));
        let mut logits = net.init(2, 0.0);
        let tables = net.n_table_logits();
        assert_eq!(net.n_choice_logits(), 30 * 2 * (first.max(2) * usize::from(first > 1) + 2 * hidden));
        let mut at = tables;
        for l in 0..3 {
            let c = net.candidates(l);
            if c == 1 {
                continue;
            }
            for (m, w) in logits[at..at + 60 * c].chunks_exact_mut(c).enumerate() {
                w.fill(-1000.0);
                w[(m * 7 + l) % c] = 0.0;
            }
            at += 60 * c;
        }
        harden_gates(&mut logits[..tables]);
        let learned = net.learned_wiring(&logits);
        assert_eq!(learned.len(), 3);
        assert_eq!(learned[0].is_empty(), first == 1, "a layer without a choice keeps its seeded wiring");
        for (l, (learned, layer)) in learned.iter().zip(&net.layers).enumerate().skip(1) {
            assert_ne!(learned, &layer.sources, "the choice of layer {l} moved some inputs");
        }
        let discrete = net.discrete_network(&logits);
        let params = net.discretise(&logits);
        let x = random_inputs(40, 50, 8);
        let idx: Vec<usize> = (0..50).collect();
        let scores = |n: &RelaxedNet, logits: &[f32]| {
            let ins: Vec<Tensor> =
                n.logit_tensors(logits).into_iter().chain(n.wiring()).chain([gather(&x, &idx)]).collect();
            eval_tensors(&n.circuit(1.0), &ins.iter().collect::<Vec<_>>()).swap_remove(0)
        };
        let soft = scores(&net, &logits);
        let out = forward(&discrete.circuit, &params, &x);
        let per = out.rows() / 3;
        for e in 0..50 {
            for c in 0..3 {
                let count = (c * per..(c + 1) * per).filter(|&j| out.get(j, e)).count();
                assert_eq!(soft.data()[e * 3 + c], count as f32, "example {e} class {c}");
            }
        }
        let fixed = net.with_chosen_inputs(&logits);
        assert!(!fixed.has_choice());
        assert_eq!(scores(&fixed, &logits[..tables]).data(), soft.data());
        assert_ne!(discrete, net.network);
        // With soft tables, `soft_scores` (on the chosen, reachable gates only) computes
        // the whole network's floats, bit for bit.
        let mut rng = ChaCha8Rng::seed_from_u64(first as u64);
        logits[..tables].iter_mut().for_each(|w| *w = rng.random_range(-3.0..3.0));
        let whole = scores(&net, &logits);
        assert!(fixed.reachable_part().is_some(), "some gates are not read, and not computed");
        assert_eq!(net.soft_scores(&logits, &x), whole.data(), "{first} x {hidden} candidates");
        // And so do soft choices, which it computes on the whole network.
        logits[tables..].iter_mut().for_each(|w| *w = rng.random_range(-3.0..3.0));
        assert_eq!(net.soft_scores(&logits, &x), scores(&net, &logits).data());
    }
}

/// Straight-through choices: the forward pass of a choice that `StraightThroughChoice`
/// covers reads each input's heaviest candidate, so with every choice covered the soft
/// logits compute what the network with its choices fixed (`with_chosen_inputs`)
/// computes, and the choice logits still get gradients; `Hidden` leaves the first
/// layer's choice a mixture.
#[test]
fn straight_through_choices_read_the_heaviest_candidates() {
    let spec = RelaxedSpec::parse("gates:30x3,groupsum:3", 3).unwrap();
    let seeded = RelaxedNet::build(spec, 40, 3, 5).unwrap();
    let x = random_inputs(40, 50, 8);
    let idx: Vec<usize> = (0..50).collect();
    let y = one_hot(&[0, 1, 2].repeat(17)[..50], &idx, 3);
    let ins = |n: &RelaxedNet, logits: &[f32]| -> Vec<Tensor> {
        n.logit_tensors(logits).into_iter().chain(n.wiring()).chain([gather(&x, &idx)]).collect()
    };
    let scores = |n: &RelaxedNet, logits: &[f32], choice: StraightThroughChoice| {
        let ins = ins(n, logits);
        eval_tensors(&n.circuit_with(1.0, false, choice), &ins.iter().collect::<Vec<_>>()).swap_remove(0)
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let random_choices = |n: &RelaxedNet, rng: &mut rand_chacha::ChaCha8Rng| {
        let mut logits = n.init(2, 0.0);
        for w in &mut logits[n.n_table_logits()..] {
            *w = rng.random_range(-2.0..2.0);
        }
        logits
    };
    use StraightThroughChoice::{All, Hidden, None};
    let both = seeded.clone().with_input_choice(4, 6).with_hidden_choice(3, 6, Option::None).unwrap();
    let hidden_only = seeded.clone().with_hidden_choice(3, 6, Option::None).unwrap();
    for (net, covering) in [(&both, All), (&hidden_only, Hidden), (&hidden_only, All)] {
        let logits = random_choices(net, &mut rng);
        let tables = net.n_table_logits();
        let fixed = net.with_chosen_inputs(&logits);
        let want = scores(&fixed, &logits[..tables], None);
        assert_eq!(scores(net, &logits, covering).data(), want.data(), "{covering:?}");
        assert_ne!(scores(net, &logits, None).data(), want.data(), "a soft choice is a mixture");
        let step = step_circuit(&net.circuit_with(1.0, false, covering), false);
        let ins = ins(net, &logits);
        let grads = eval_tensors(&step, &ins.iter().chain([&y]).collect::<Vec<_>>());
        for g in &grads[net.layers.len()..net.layers.len() + net.choices.iter().flatten().count()] {
            assert!(g.data().iter().any(|&v| v != 0.0), "{covering:?}: the choice logits learn");
        }
    }
    let logits = random_choices(&both, &mut rng);
    let hidden = scores(&both, &logits, Hidden);
    assert_ne!(hidden.data(), scores(&both, &logits, All).data(), "the first layer's choice stays a mixture");
    assert_ne!(hidden.data(), scores(&both, &logits, None).data(), "the later layers' choices are hard");
    assert_eq!(
        StraightThroughChoice::NAMES.map(|n| StraightThroughChoice::parse(n).unwrap().name()),
        StraightThroughChoice::NAMES
    );
    assert_eq!(StraightThroughChoice::parse("soft"), Option::None);
}

/// A local hidden choice draws a gate's candidates among the previous layer's nodes
/// whose centre pixel (a first-layer gate's: the pixel of its first source; a later
/// gate's: its first source's centre) lies within the radius of the gate's own, keeps
/// the seeded source first, is the same for the same seed, and narrowing keeps the
/// heaviest candidates of every layer.
#[test]
fn a_local_hidden_choice_stays_near_the_centre_pixel() {
    let (grid, bits, radius) = (PixelGrid { width: 9, height: 7 }, 2, 1);
    let spec = RelaxedSpec::parse("gates:300x3,groupsum:2", 2).unwrap();
    let net = RelaxedNet::build(spec, 9 * 7 * bits, 2, 4).unwrap();
    let local = net.clone().with_hidden_choice(5, 9, Some((grid, radius))).unwrap();
    assert!(local.choices[0].is_none());
    let xy = |pixel: usize| (pixel % grid.width, pixel / grid.width);
    let mut centres: Vec<usize> =
        net.layers[0].sources.chunks_exact(2).map(|g| g[0] as usize / bits).collect();
    for l in 1..3 {
        let choice = local.choices[l].as_ref().unwrap();
        assert_eq!((choice.k, choice.sources.len()), (5, 300 * 2 * 5));
        let seeded = &net.layers[l].sources;
        for (gate, cands) in seeded.chunks_exact(2).zip(choice.sources.chunks_exact(2 * 5)) {
            assert_eq!(cands[0], gate[0], "the first candidate is the seeded source");
            let (cx, cy) = xy(centres[gate[0] as usize]);
            for &c in cands {
                let (x, y) = xy(centres[c as usize]);
                assert!(x.abs_diff(cx) <= radius && y.abs_diff(cy) <= radius, "layer {l}: node {c} is far");
            }
        }
        centres = seeded.chunks_exact(2).map(|g| centres[g[0] as usize]).collect();
    }
    let again = net.clone().with_hidden_choice(5, 9, Some((grid, radius))).unwrap();
    assert_eq!(again.choices, local.choices);
    let global = net.clone().with_hidden_choice(5, 9, None).unwrap();
    assert_ne!(global.choices, local.choices);
    let e = net.with_hidden_choice(5, 9, Some((PixelGrid { width: 5, height: 5 }, 1))).unwrap_err();
    assert!(e.to_string().contains("not a whole number of bits per pixel"), "{e}");

    // Narrowing to 2 keeps each address bit's two heaviest candidates, in both layers.
    let mut logits = local.init(1, 0.0);
    let tables = local.n_table_logits();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    logits[tables..].iter_mut().for_each(|w| *w = standard_normal(&mut rng));
    let (narrowed, kept) = local.with_top_candidates(&logits, 2);
    assert_eq!(kept.len(), 2 * 300 * 2 * 2);
    assert_eq!(local.keep_of(kept.len()), Some(2));
    for l in 1..3 {
        let (full, small) = (local.choices[l].as_ref().unwrap(), narrowed.choices[l].as_ref().unwrap());
        assert_eq!(small.k, 2);
        let base = (l - 1) * 300 * 2 * 5;
        for (m, pair) in kept[(l - 1) * 1200..l * 1200].chunks_exact(2).enumerate() {
            let w = &logits[tables + base + m * 5..][..5];
            assert_eq!(pair[0], base + m * 5 + argmax(w));
            assert_eq!(
                &small.sources[m * 2..][..2],
                [full.sources[pair[0] - base], full.sources[pair[1] - base]]
            );
        }
    }
}

/// A later layer's choice starts `residual` above on its seeded source (candidate 0);
/// the first layer's starts uniform (the pinned recipes' initialisation).
#[test]
fn a_hidden_choice_starts_on_its_seeded_source() {
    let spec = RelaxedSpec::parse("gates:30x3,groupsum:3", 3).unwrap();
    let net = RelaxedNet::build(spec, 40, 3, 5).unwrap().with_input_choice(4, 6);
    let net = net.with_hidden_choice(3, 6, None).unwrap();
    let logits = net.init(2, 1.5);
    let choice = &logits[net.n_table_logits()..];
    let (first, hidden) = choice.split_at(30 * 2 * 4);
    assert!(first.iter().all(|&w| w == 0.0));
    assert_eq!(hidden.len(), 2 * 30 * 2 * 3);
    for w in hidden.chunks_exact(3) {
        assert_eq!(w, [1.5, 0.0, 0.0]);
    }
}

/// Score offsets (boosting) enter the loss: zero offsets train exactly as none; offsets
/// far in favour of each example's class leave nothing to learn (the loss near 0, every
/// example right, the logits near where they started); the same offsets against the
/// class make the loss large.
#[test]
fn score_offsets_shift_the_loss_and_nothing_else() {
    let (rows, n, classes) = (24, 300, 3);
    let x = random_inputs(rows, n, 5);
    let labels: Vec<u32> = (0..n as u32).map(|e| e * 7 % 3).collect();
    let spec = RelaxedSpec::parse("lut:3:30x2", classes).unwrap();
    let net = RelaxedNet::build(spec, rows, classes, 2).unwrap();
    let p = RelaxedParams { epochs: 2, batch: 64, lr: 0.05, tau: 2.0, ..RelaxedParams::default() };
    let run = |offsets: Option<Vec<f32>>| {
        let mut rule = RelaxedRule::new(&net, &x, &labels, p);
        if let Some(o) = offsets {
            rule = rule.with_score_offsets(o);
        }
        let report = super::super::Trainer::new().epochs(2).seed(0).run(&mut rule, None, |_| {}).unwrap();
        (rule.logits(), report.history)
    };
    let toward = |w: f32| -> Vec<f32> {
        labels.iter().flat_map(|&l| (0..classes as u32).map(move |c| if c == l { w } else { 0.0 })).collect()
    };
    let (plain, plain_history) = run(None);
    let (zero, zero_history) = run(Some(vec![0.0; n * classes]));
    assert_eq!(zero, plain);
    assert_eq!(zero_history[1].loss, plain_history[1].loss);
    let (helped, helped_history) = run(Some(toward(40.0)));
    assert!(helped_history[1].loss < 1e-6, "{}", helped_history[1].loss);
    assert_eq!(helped_history[1].running_accuracy, 1.0);
    let init = net.init(p.seed, p.residual);
    let moved = |l: &[f32]| l.iter().zip(&init).map(|(a, b)| (a - b).abs()).sum::<f32>();
    assert!(moved(&helped) < moved(&plain) / 100.0, "{} vs {}", moved(&helped), moved(&plain));
    let (_, hindered_history) = run(Some(toward(-40.0)));
    assert!(hindered_history[1].loss > 10.0, "{}", hindered_history[1].loss);
}

/// A network reading only the input rows its first layer reads computes, on those rows,
/// what the whole network computes on all of them; with a first-layer choice too.
#[test]
fn a_network_reads_only_its_inputs() {
    let spec = RelaxedSpec::parse("lut:4:20x2:6,groupsum:3", 3).unwrap();
    let seeded = RelaxedNet::build(spec, 300, 3, 5).unwrap();
    let x = random_inputs(300, 70, 2);
    let idx: Vec<usize> = (0..70).collect();
    for net in [seeded.clone(), seeded.with_input_choice(3, 6)] {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let logits: Vec<f32> = (0..net.n_logits()).map(|_| rng.random_range(-3.0..3.0)).collect();
        let scores = |n: &RelaxedNet, x: Tensor| {
            let ins: Vec<Tensor> =
                n.logit_tensors(&logits).into_iter().chain(n.wiring()).chain([x]).collect();
            eval_tensors(&n.circuit(1.0), &ins.iter().collect::<Vec<_>>()).swap_remove(0)
        };
        let (rows, narrow) = net.reading_only_its_inputs();
        assert!(rows.len() < 300 && rows.windows(2).all(|w| w[0] < w[1]), "{} rows", rows.len());
        let x_rows = gather_rows(&x, &rows, &idx);
        assert_eq!(scores(&narrow, x_rows).data(), scores(&net, gather(&x, &idx)).data());
    }
}

/// An epoch with draws trains on every image and `drawn` of its copies, in the order's
/// order, drawn afresh each epoch; the cosine clock counts the epoch's examples.
#[test]
fn an_epoch_draws_some_copies_of_every_image() {
    let (images, copies, drawn) = (50, 4, 1);
    let d = Draws { copies, drawn };
    let n = images * (1 + copies);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut order: Vec<usize> = (0..n).collect();
    let mut seen = vec![false; n];
    let mut picks = Vec::new();
    for _ in 0..8 {
        order.shuffle(&mut rng);
        let pick = d.pick(&order, &mut rng);
        assert_eq!(pick.len(), d.per_epoch(n));
        let mut per_image = vec![0usize; images];
        for &e in &pick {
            seen[e] = true;
            if e >= images {
                per_image[e % images] += 1;
            }
        }
        assert!(per_image.iter().all(|&c| c == drawn), "{per_image:?}");
        assert!((0..images).all(|i| pick.contains(&i)), "every image");
        let places: Vec<usize> = pick.iter().map(|e| order.iter().position(|o| o == e).unwrap()).collect();
        assert!(places.windows(2).all(|w| w[0] < w[1]), "the order's order");
        picks.push(pick.iter().filter(|&&e| e >= images).map(|&e| e / images).collect::<Vec<_>>());
    }
    assert!(picks.windows(2).any(|w| w[0] != w[1]), "drawn afresh");
    assert!(seen.iter().filter(|&&s| s).count() > n * 9 / 10, "over the epochs most copies are seen");

    // Training: the epoch's steps are over its 2 x 60 examples of 300.
    let (rows, classes) = (24, 3);
    let x = random_inputs(rows, 60, 5);
    let x = BitMatrix::concat_examples(&[&x, &x, &x, &x, &x]);
    let labels: Vec<u32> = (0..60u32).map(|e| e * 7 % 3).collect::<Vec<_>>().repeat(5);
    let spec = RelaxedSpec::parse("lut:3:30x2", classes).unwrap();
    let net = RelaxedNet::build(spec, rows, classes, 2).unwrap();
    let p =
        RelaxedParams { epochs: 3, batch: 16, lr: 0.05, tau: 2.0, cosine: true, ..RelaxedParams::default() };
    let run = |p: RelaxedParams| {
        let mut rule = RelaxedRule::new(&net, &x, &labels, p);
        let report = super::super::Trainer::new().epochs(3).seed(0).run(&mut rule, None, |_| {}).unwrap();
        (rule.steps, rule.logits(), report.history)
    };
    let (all_steps, all, _) = run(p);
    let (steps, some, history) = run(RelaxedParams { draws: Some(Draws { copies: 4, drawn: 1 }), ..p });
    assert_eq!((all_steps, steps), (3 * 300usize.div_ceil(16), 3 * 120usize.div_ceil(16)));
    assert_ne!(all, some);
    assert!(history.iter().all(|h| h.loss.is_finite() && h.running_accuracy <= 1.0), "{history:?}");
}

/// The training step takes a learned input choice's weight adjoints straight from the
/// first LUT layer's output adjoints, in one gate (`smooth::fuse_choice_adjoints`); a
/// hidden choice, whose input adjoints the layer before also needs, keeps the two gates.
/// The steps with and without the fused gate give the same gradients, bit for bit.
#[test]
fn the_input_choice_learns_through_one_fused_gate() {
    let spec = RelaxedSpec::parse("lut:4:20x2:6,groupsum:3", 3).unwrap();
    let net = RelaxedNet::build(spec, 40, 3, 5)
        .unwrap()
        .with_input_choice(4, 6)
        .with_hidden_choice(3, 6, None)
        .unwrap();
    let step = step_circuit(&net.circuit(1.0), false);
    let hist = step.gate_histogram();
    let count = |n: &str| hist.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v);
    assert_eq!(count("relaxed_lut4_choice_grad_w"), 1, "{hist:?}");
    assert_eq!(count("soft_choice_grad_w"), 1, "the hidden choice's: {hist:?}");
    // The same step with the two gates: the learner's changes unfused.
    let learner =
        crate::smooth::loss::learner(&net.circuit(1.0), &LossKind::SoftmaxCrossEntropy.lens(), 1.0).unwrap();
    let n = net.circuit(1.0).n_params();
    let fused = crate::smooth::parameter_changes(&learner, n);
    let unfused = {
        let rev = learner.changes();
        let pick = crate::circuit::Circuit::wiring(rev.n_outputs(), &(0..n).collect::<Vec<_>>());
        crate::smooth::shared(&rev.then(&pick).unwrap().with_params(n).unwrap().pruned())
    };
    assert_ne!(fused.gate_histogram(), unfused.gate_histogram());
    let x = random_inputs(40, 70, 3);
    let idx: Vec<usize> = (0..70).collect();
    let y = one_hot(&[0, 1, 2].repeat(24)[..70], &idx, 3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let logits: Vec<f32> = net.init(2, 1.0).iter().map(|v| v + rng.random_range(-0.5..0.5)).collect();
    let ins: Vec<Tensor> =
        net.logit_tensors(&logits).into_iter().chain(net.wiring()).chain([gather(&x, &idx), y]).collect();
    let ins: Vec<&Tensor> = ins.iter().collect();
    let bits =
        |ts: Vec<Tensor>| ts.iter().flat_map(|t| t.data().iter().map(|v| v.to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(eval_tensors(&fused, &ins)), bits(eval_tensors(&unfused, &ins)));
}
