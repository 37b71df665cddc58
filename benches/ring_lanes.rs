//! Ring circuits one example per word against bit-sliced (64 examples per word, the
//! circuit bit-blasted): the Iris-sized linear model's classifier (weights bound, the
//! blasted circuit strashed so constant products fold) and its reverse derivative
//! `R[f]` with the weights as inputs, in `Z_(2^K)` for K = 8, 16, 32, over 4,096
//! examples. `R[f]` bit-sliced is measured in both blast styles: the evaluator's
//! (`BlastStyle::Lanes`, what training uses) and the hardware one
//! (`BlastStyle::Hardware`). Throughput is in examples.
//!
//! Then training: one epoch of mini-batch descent (`train::RingBatchRule`, batches of
//! 64, 256, 512 and 1,024) of the same model over 4,096 examples, one example per word
//! against bit-sliced, in `z2k:8`, `z2k:16` and `sat:2047` (12-bit words).

use circuitlearn::{
    Aig, BlastStyle, EvalParams, Program, RingBatchRule, RingKind, RingLanes, RingModel, RingModelSpec,
    Trainer, random_ring_rows, rdiff, ring_lanes::BitSliced, ring_lanes::pack,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const EXAMPLES: usize = 4096;

fn rows(n: usize, ring: RingKind, seed: u64) -> Vec<Vec<u64>> {
    random_ring_rows(n, EXAMPLES, ring, seed)
}

fn bench(c: &mut Criterion) {
    let one = EvalParams { tile_words: 0, parallel: false };
    for k in [8u32, 16, 32] {
        let ring = RingKind::Z2k(k);
        let mut m = RingModel::init(RingModelSpec::Linear, ring, 2, 4, 3, 0);
        m.params = (0..m.params.len() as i64).map(|i| ring.from_signed(i * 7 - 40)).collect();
        let classifier = m.classifier();
        let reverse = ring.canonical(&rdiff(&m.circuit()));
        let x = rows(4, ring, 1);
        let xr = rows(reverse.n_inputs(), ring, 2);
        let strashed = |style| {
            Aig::from_circuit(BitSliced::styled(&classifier, ring, style).circuit(), None).to_circuit()
        };
        let (folded, folded_lanes) = (strashed(BlastStyle::Hardware), strashed(BlastStyle::Lanes));
        let folded_program = Program::new(&folded);
        let sliced_r = BitSliced::new(&reverse, ring);
        let sliced_r_hw = BitSliced::styled(&reverse, ring, BlastStyle::Hardware);
        let (px, pr) = (pack(&x, 4, ring), pack(&xr, reverse.n_inputs(), ring));
        eprintln!(
            "K={k}: classifier {} ring gates -> {} bit gates after strash ({} from the lanes style); R[f] {} ring gates -> {} bit gates ({} in the hardware style)",
            classifier.n_gates(),
            folded.n_gates(),
            folded_lanes.n_gates(),
            reverse.n_gates(),
            sliced_r.circuit().n_gates(),
            sliced_r_hw.circuit().n_gates()
        );
        let mut g = c.benchmark_group(format!("ring_z2k{k}_{EXAMPLES}_examples"));
        g.throughput(Throughput::Elements(EXAMPLES as u64));
        g.sample_size(10);
        g.bench_function("f_word", |b| {
            b.iter(|| x.iter().map(|e| ring.eval(&classifier, e)).collect::<Vec<_>>())
        });
        g.bench_function("f_bitsliced", |b| b.iter(|| folded_program.eval(&px, &one)));
        g.bench_function("rf_word", |b| {
            b.iter(|| xr.iter().map(|e| ring.eval(&reverse, e)).collect::<Vec<_>>())
        });
        g.bench_function("rf_bitsliced", |b| b.iter(|| sliced_r.eval_packed(&pr, &one)));
        g.bench_function("rf_bitsliced_hardware_style", |b| b.iter(|| sliced_r_hw.eval_packed(&pr, &one)));
        g.bench_function("rf_bitsliced_with_packing", |b| b.iter(|| sliced_r.eval(&xr, &one)));
        g.finish();
    }
}

fn bench_training(c: &mut Criterion) {
    for ring in [RingKind::Z2k(8), RingKind::Z2k(16), RingKind::Sat(2047)] {
        let m = RingModel::init(RingModelSpec::Linear, ring, 2, 4, 3, 0);
        let (changes, update) = m.descent_circuits(1).unwrap();
        let x: Vec<Vec<u64>> = rows(4, ring, 1)
            .into_iter()
            .map(|mut r| {
                r.push(ring.from_signed(4));
                r
            })
            .collect();
        let y: Vec<Vec<u64>> = (0..EXAMPLES)
            .map(|i| (0..3).map(|k| ring.from_signed(if i % 3 == k { 4 } else { 0 })).collect())
            .collect();
        let mut g = c
            .benchmark_group(format!("ring_train_{}_{EXAMPLES}_examples", ring.to_string().replace(':', "")));
        g.throughput(Throughput::Elements(EXAMPLES as u64));
        g.sample_size(10);
        for batch in [64, 256, 512, 1024] {
            for lanes in [RingLanes::Word, RingLanes::BitSliced] {
                // The rule (and its bit-blasted circuit) is built once, as a run builds it.
                let mut rule =
                    RingBatchRule::new((&changes, &update), ring, m.params.clone(), (&x, &y), batch, lanes);
                g.bench_function(format!("{}_b{batch}", lanes.name()), |b| {
                    b.iter(|| Trainer::new().epochs(1).run(&mut rule, None, |_| {}).unwrap())
                });
            }
        }
        g.finish();
    }
}

criterion_group!(benches, bench, bench_training);
criterion_main!(benches);
