//! Ring circuits one example per word against bit-sliced (64 examples per word, the
//! circuit bit-blasted): the Iris-sized linear model's classifier (weights bound, the
//! blasted circuit strashed so constant products fold) and its reverse derivative
//! `R[f]` with the weights as inputs, in `Z_(2^K)` for K = 8, 16, 32, over 4,096
//! examples. Throughput is in examples.

use circuitlearn::{
    Aig, EvalParams, Program, RingKind, RingModel, RingModelSpec, rdiff, ring_lanes::BitSliced,
    ring_lanes::pack,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const EXAMPLES: usize = 4096;

fn rows(n: usize, ring: RingKind, seed: u64) -> Vec<Vec<u64>> {
    let mut s = seed | 1;
    (0..EXAMPLES)
        .map(|_| {
            (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    ring.from_signed((s % 512) as i64 - 256)
                })
                .collect()
        })
        .collect()
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
        let folded =
            Aig::from_circuit(&BitSliced::new(&classifier, ring).circuit().clone(), None).to_circuit();
        let folded_program = Program::new(&folded);
        let sliced_r = BitSliced::new(&reverse, ring);
        let (px, pr) = (pack(&x, 4, ring), pack(&xr, reverse.n_inputs(), ring));
        eprintln!(
            "K={k}: classifier {} ring gates -> {} bit gates after strash; R[f] {} ring gates -> {} bit gates",
            classifier.n_gates(),
            folded.n_gates(),
            reverse.n_gates(),
            sliced_r.circuit().n_gates()
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
        g.bench_function("rf_bitsliced_with_packing", |b| b.iter(|| sliced_r.eval(&xr, &one)));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
