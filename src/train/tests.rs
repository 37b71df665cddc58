//! Resuming from any epoch's checkpoint, through its bytes, ends exactly where an
//! uninterrupted run ends, for every rule.

use super::*;
use crate::data::{Encoder, Encoding, builtin};
use crate::learn::relaxed::{RelaxedNet, RelaxedSpec};
use crate::learn::{Head, ModelSpec, Network};
use crate::smooth::examples::Examples;
use crate::smooth::layers::{SmoothModel, SmoothSpec, WeightInit};
use crate::smooth::loss::LossKind;
use crate::smooth::optim::OptimizerSpec;

/// Runs `make()`'s rule with `trainer`, saving every epoch's checkpoint as bytes, then
/// resumes a fresh rule from each and checks that report and `result` agree.
fn check_resume<R: Rule, T: PartialEq + std::fmt::Debug>(
    what: &str,
    trainer: &Trainer,
    mut make: impl FnMut() -> R,
    result: impl Fn(&R) -> T,
) {
    let mut rule = make();
    let mut saved = Vec::new();
    let full = trainer.run(&mut rule, None, |end| saved.push(end.checkpoint().to_bytes())).unwrap();
    let want = result(&rule);
    assert!(full.history.len() >= 2, "{what}: too short to test resuming");
    for bytes in &saved {
        let c = Checkpoint::<R::Epoch>::from_bytes(bytes).unwrap();
        let mut again = make();
        let resumed = trainer.run(&mut again, Some(c), |_| {}).unwrap();
        assert_eq!((resumed.stop, &resumed.history), (full.stop, &full.history), "{what}");
        assert_eq!(result(&again), want, "{what}");
    }
}

fn iris_bits() -> (crate::lanes::BitMatrix, Vec<u32>) {
    let iris = builtin("iris").unwrap().unwrap();
    let x = Encoder::fit(&Encoding::Thermometer { bits: 4 }, &iris).unwrap().encode(&iris).unwrap();
    (x, iris.labels)
}

#[test]
fn rda_rules_resume_exactly() {
    let (x, labels) = iris_bits();
    let votes = VoteParams::for_head(Head::GroupSum(3), 3);
    for (spec, variant) in [
        ("lut:4:24x1,groupsum:3", RdaVariant::Votes(votes)),
        ("lut:4:24x2,groupsum:3", RdaVariant::Votes(VoteParams { sum_fanouts: true, ..votes })),
        ("lut:3:12x2,onehot", RdaVariant::Parity),
        ("lut:2:6x1", RdaVariant::Faithful),
        ("lut:4:24x1,groupsum:3", RdaVariant::HwVotes(HwVoteParams::from_votes(&votes, 4, 11).unwrap())),
    ] {
        let net = Network::build(spec.parse::<ModelSpec>().unwrap(), x.rows(), 3, 5).unwrap();
        let trainer = Trainer::new().epochs(6).seed(9);
        check_resume(
            spec,
            &trainer,
            || RdaRule::new(&net, &x, &labels, variant).batch(40),
            |r| r.params().to_vec(),
        );
    }
}

/// A rewiring run's checkpoints carry the wiring: resumed from any epoch, the rule ends
/// with the same tables and the same sources.
#[test]
fn rewiring_resumes_exactly() {
    let (x, labels) = iris_bits();
    let votes = VoteParams::for_head(Head::GroupSum(3), 3);
    let net =
        Network::build("lut:3:24x2:12,groupsum:3".parse::<ModelSpec>().unwrap(), x.rows(), 3, 5).unwrap();
    let trainer = Trainer::new().epochs(5).seed(9);
    let p = RewireParams { fraction: 0.5, candidates: 8, finalists: 5, min_examples: 0 };
    let make = || RdaRule::new(&net, &x, &labels, RdaVariant::Votes(votes)).batch(40).rewire(p);
    let mut rule = make();
    trainer.run(&mut rule, None, |_| {}).unwrap();
    let wiring = rule.wiring().expect("the run rewired");
    assert_ne!(wiring[0], net.layers.as_ref().unwrap().layers[0].sources, "no LUT was rewired");
    check_resume("rewire", &trainer, make, |r| (r.params().to_vec(), r.wiring()));
}

#[test]
fn a_checkpoint_of_another_model_is_refused() {
    let (x, labels) = iris_bits();
    let small = Network::build("lut:2:4x1".parse::<ModelSpec>().unwrap(), x.rows(), 3, 0).unwrap();
    let big = Network::build("lut:2:8x1".parse::<ModelSpec>().unwrap(), x.rows(), 3, 0).unwrap();
    let mut saved = None;
    let mut rule = RdaRule::new(&small, &x, &labels, RdaVariant::Faithful);
    Trainer::new().epochs(2).run(&mut rule, None, |end| saved = Some(end.checkpoint())).unwrap();
    let mut other = RdaRule::new(&big, &x, &labels, RdaVariant::Faithful);
    let e = Trainer::new().epochs(2).run(&mut other, saved.clone(), |_| {}).unwrap_err();
    assert!(e.to_string().contains("params"), "{e}");
    let mut votes = RdaRule::new(&small, &x, &labels, RdaVariant::Parity);
    let e = Trainer::new().epochs(2).run(&mut votes, saved, |_| {}).unwrap_err();
    assert!(e.to_string().contains("rule rda"), "{e}");
}

/// A short relaxed run through every phase: narrowing after 2 of 6 epochs, the hard
/// choice for the last 2, straight-through for the last.
fn every_phase() -> RelaxedParams {
    RelaxedParams {
        epochs: 6,
        batch: 32,
        lr: 0.05,
        tau: 2.0,
        seed: 3,
        cosine: true,
        narrow_after: 2,
        narrow_to: 2,
        hard_choice_epochs: 2,
        hard_gate_epochs: 1,
        ..RelaxedParams::default()
    }
}

#[test]
fn relaxed_training_resumes_exactly_through_every_phase() {
    let (x, labels) = iris_bits();
    let spec = RelaxedSpec::parse("gates:24x2", 3).unwrap();
    let net = RelaxedNet::build(spec, x.rows(), 3, 1).unwrap().with_input_choice(4, 1);
    let p = every_phase();
    let schedule = Schedule::of(&p, true);
    assert_eq!(
        schedule.0,
        vec![(3, Phase::Narrow { keep: 2 }), (5, Phase::HardChoice), (6, Phase::StraightThrough)]
    );
    let trainer = Trainer::new().epochs(p.epochs).seed(p.seed);
    check_resume("relaxed", &trainer, || RelaxedRule::new(&net, &x, &labels, p), RelaxedRule::logits);
    // Learned wiring in every layer (three choices, of 4, 3 and 3 candidates, narrowed
    // to 2 each), and in the later layers only.
    let deep = RelaxedSpec::parse("gates:24x3", 3).unwrap();
    let every = RelaxedNet::build(deep, x.rows(), 3, 1).unwrap().with_input_choice(4, 1);
    let every = every.with_hidden_choice(3, 1, None).unwrap();
    let hidden = RelaxedNet::build(deep, x.rows(), 3, 1).unwrap().with_hidden_choice(3, 1, None).unwrap();
    for (what, net) in [("every layer", &every), ("hidden layers", &hidden)] {
        check_resume(what, &trainer, || RelaxedRule::new(net, &x, &labels, p), RelaxedRule::logits);
    }
}

/// Training only the gates an output reaches gives every logit, dead gates' included,
/// the value that training every gate gives, through every phase, with and without
/// learned wiring in any layer.
#[test]
fn training_only_the_reachable_gates_gives_the_same_logits() {
    let (x, labels) = iris_bits();
    // A last layer of 6 gates reads at most 12 of the 60 before it.
    let spec = RelaxedSpec::parse("gates:60x3:6", 3).unwrap();
    let p = RelaxedParams { residual: 1.0, ..every_phase() };
    let seeded = RelaxedNet::build(spec, x.rows(), 3, 1).unwrap();
    let first = seeded.clone().with_input_choice(4, 1);
    let every_layer = first.clone().with_hidden_choice(3, 1, None).unwrap();
    for (what, net) in [("seeded", &seeded), ("input choice", &first), ("every layer", &every_layer)] {
        let part = net.reachable_part().expect("some gates are not reached");
        let reached: usize = part.net.layers.iter().map(|l| l.width()).sum();
        assert!(reached < 126, "{what}: {reached} of 126 gates reached");
        let trainer = Trainer::new().epochs(p.epochs).seed(p.seed);
        let mut pruned = RelaxedRule::new(net, &x, &labels, p);
        let a = trainer.run(&mut pruned, None, |_| {}).unwrap();
        let mut every = RelaxedRule::new(net, &x, &labels, p).every_gate();
        let b = trainer.run(&mut every, None, |_| {}).unwrap();
        assert_eq!(pruned.logits(), every.logits(), "{what}");
        assert_eq!(a.history, b.history, "{what}");
        assert_ne!(pruned.logits(), net.init(p.seed, p.residual), "{what}: it trained");
    }
}

/// A checkpoint narrowed for one network's choices is refused by another's.
#[test]
fn a_narrowed_checkpoint_of_other_choices_is_refused() {
    let (x, labels) = iris_bits();
    let spec = RelaxedSpec::parse("gates:24x3", 3).unwrap();
    let p = RelaxedParams { epochs: 3, batch: 32, narrow_after: 1, narrow_to: 2, ..RelaxedParams::default() };
    let net = RelaxedNet::build(spec, x.rows(), 3, 1).unwrap().with_hidden_choice(3, 1, None).unwrap();
    let mut saved = None;
    let mut rule = RelaxedRule::new(&net, &x, &labels, p);
    let trainer = Trainer::new().epochs(p.epochs);
    trainer.run(&mut rule, None, |end| saved = Some(end.checkpoint())).unwrap();
    let other = RelaxedNet::build(spec, x.rows(), 3, 1).unwrap().with_input_choice(5, 1);
    let mut again = RelaxedRule::new(&other, &x, &labels, p);
    let e = trainer.run(&mut again, saved, |_| {}).unwrap_err();
    assert!(e.to_string().contains("do not fit the model's choices"), "{e}");
}

#[test]
fn the_schedule_drops_a_narrowing_that_comes_after_the_hard_choice() {
    let p = RelaxedParams {
        epochs: 4,
        narrow_after: 3,
        narrow_to: 2,
        hard_choice_epochs: 3,
        ..RelaxedParams::default()
    };
    assert_eq!(Schedule::of(&p, true).0, vec![(2, Phase::HardChoice)]);
    assert_eq!(Schedule::of(&p, false).0, vec![]);
}

#[test]
fn smooth_training_resumes_exactly_for_every_optimiser() {
    let iris = builtin("iris").unwrap().unwrap();
    let data = Examples::from_dataset(&iris).unwrap();
    let spec: SmoothSpec = "mlp:8".parse().unwrap();
    for name in OptimizerSpec::NAMES {
        let p = SmoothParams {
            loss: LossKind::SoftmaxCrossEntropy,
            optimizer: OptimizerSpec::parse(name, 0.01).unwrap(),
            batch: 32,
            shuffle: true,
            max_steps: None,
        };
        let trainer = Trainer::new().epochs(4).seed(2);
        let mut models: Vec<SmoothModel> = Vec::new();
        let fresh =
            || SmoothModel::from_spec(&spec, &data.shape, data.classes, WeightInit::FanIn, 4).unwrap();
        // The model is borrowed by the rule: keep one per run.
        let mut first = fresh();
        let mut rule = SmoothRule::new(&mut first, &data, p);
        let mut saved = Vec::new();
        let full = trainer.run(&mut rule, None, |end| saved.push(end.checkpoint().to_bytes())).unwrap();
        drop(rule);
        for bytes in &saved {
            let c = Checkpoint::<SmoothEpoch>::from_bytes(bytes).unwrap();
            let mut m = fresh();
            let mut again = SmoothRule::new(&mut m, &data, p);
            let resumed = trainer.run(&mut again, Some(c), |_| {}).unwrap();
            assert_eq!(resumed.history, full.history, "{name}");
            drop(again);
            models.push(m);
        }
        for m in &models {
            assert_eq!(m.params, first.params, "{name}");
        }
    }
}

#[test]
fn ring_training_resumes_exactly() {
    let iris = builtin("iris").unwrap().unwrap();
    let full = polycirc_iris(&iris).unwrap();
    assert!((full.train_accuracy - 0.96).abs() < 1e-9);
    let (step, x, y, order) = polycirc_iris_parts(&iris).unwrap();
    let trainer = Trainer::new().epochs(5);
    check_resume(
        "ring",
        &trainer,
        || RingRule::new(&step, vec![0; 12], &x, &y, order.clone()),
        |r| r.params().to_vec(),
    );
}
