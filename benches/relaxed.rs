//! Kernels of relaxed-logic training at Fashion-MNIST size, on a batch of 128 examples (the
//! chunk a batch's gradient is summed over, `train::gradient_sum`) and on 64 (what a
//! smaller chunk would cost per example):
//! a layer of 18,000 relaxed two-input gates reading 18,000 rows, and the learned input
//! choice of 18,000 first-layer inputs among 16 candidate input bits each (5,488 rows of
//! 0/1 values: 784 pixels x 7 thermometer bits), forward and weight adjoints; and a
//! layer of 6,000 relaxed 4-input LUTs reading 24,000 rows (the `fashion-mnist-small`
//! recipe's first layer over its chosen inputs), forward and both adjoints, at random and
//! in order (`lut4_in_order_*`: node `j` reads rows `4j..4j+4`, as a layer with a learned
//! choice does), and that choice among 4 candidate input bits (after narrowing): forward,
//! and its weight adjoints through the LUTs by two kernels and by the one fused gate.
//! Throughput counts (row, example) pairs produced. Every call allocates its output, so
//! the figures include the page faults of fresh memory, which training (recycling its
//! buffers) does not pay: compare kernels here, epochs with `CIRCUITLEARN_OP_TIMES=1`.

use circuitlearn::{
    Tensor, lut_choice_grad_weights, lut_grad_inputs, lut_grad_tables, soft_choice, soft_choice_grad_weights,
    soft_lut,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const INPUT_BITS: usize = 5_488;
const GATES: usize = 18_000;
const CANDIDATES: usize = 16;
const LUT4S: usize = 6_000;
const LUT4_ROWS: usize = 24_000;

fn random(shape: Vec<usize>, rng: &mut ChaCha8Rng, f: impl Fn(&mut ChaCha8Rng) -> f32) -> Tensor {
    let n = shape.iter().product();
    Tensor::new(shape, (0..n).map(|_| f(rng)).collect())
}

fn bench(c: &mut Criterion) {
    for b in [128, 64] {
        bench_batch(c, b);
    }
}

#[allow(non_snake_case)]
fn bench_batch(c: &mut Criterion, B: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let bits = random(vec![INPUT_BITS, B], &mut rng, |r| f32::from(u8::from(r.random::<bool>())));
    let prev = random(vec![GATES, B], &mut rng, |r| r.random());
    let wiring = random(vec![GATES, 2], &mut rng, |r| r.random_range(0..GATES) as f32);
    let tables = random(vec![GATES, 4], &mut rng, |r| r.random());
    let cand = random(vec![GATES, CANDIDATES], &mut rng, |r| r.random_range(0..INPUT_BITS) as f32);
    let weights = random(vec![GATES, CANDIDATES], &mut rng, |r| r.random());
    let dy = random(vec![GATES, B], &mut rng, |r| r.random::<f32>() - 0.5);
    let mut g = c.benchmark_group(format!("relaxed_batch_{B}"));
    g.throughput(Throughput::Elements((GATES * B) as u64));
    g.sample_size(20);
    g.bench_function("gates_forward", |b| b.iter(|| soft_lut(&wiring, &tables, &prev)));
    g.bench_function("gates_table_grads", |b| b.iter(|| lut_grad_tables(&wiring, &prev, &dy)));
    g.bench_function("choice16_forward", |b| b.iter(|| soft_choice(&cand, &weights, &bits)));
    g.bench_function("choice16_weight_grads", |b| b.iter(|| soft_choice_grad_weights(&cand, &bits, &dy)));
    g.finish();
    let prev4 = random(vec![LUT4_ROWS, B], &mut rng, |r| r.random());
    let wiring4 = random(vec![LUT4S, 4], &mut rng, |r| r.random_range(0..LUT4_ROWS) as f32);
    let tables4 = random(vec![LUT4S, 16], &mut rng, |r| r.random());
    let dy4 = random(vec![LUT4S, B], &mut rng, |r| r.random::<f32>() - 0.5);
    let mut g = c.benchmark_group(format!("relaxed_lut4_batch_{B}"));
    g.throughput(Throughput::Elements((LUT4S * B) as u64));
    g.sample_size(20);
    g.bench_function("lut4_forward", |b| b.iter(|| soft_lut(&wiring4, &tables4, &prev4)));
    g.bench_function("lut4_table_grads", |b| b.iter(|| lut_grad_tables(&wiring4, &prev4, &dy4)));
    g.bench_function("lut4_input_grads", |b| b.iter(|| lut_grad_inputs(&wiring4, &tables4, &prev4, &dy4)));
    // The first layer as the recipe trains it: node j reads rows 4j..4j+4 of a learned
    // choice among 4 candidate input bits (after narrowing).
    let in_order = Tensor::new(vec![LUT4S, 4], (0..LUT4_ROWS).map(|r| r as f32).collect());
    let cand4 = random(vec![LUT4_ROWS, 4], &mut rng, |r| r.random_range(0..INPUT_BITS) as f32);
    let weights4 = random(vec![LUT4_ROWS, 4], &mut rng, |r| r.random());
    let chosen = soft_choice(&cand4, &weights4, &bits);
    g.bench_function("lut4_in_order_forward", |b| b.iter(|| soft_lut(&in_order, &tables4, &chosen)));
    g.bench_function("lut4_in_order_table_grads", |b| b.iter(|| lut_grad_tables(&in_order, &chosen, &dy4)));
    g.bench_function("lut4_in_order_input_grads", |b| {
        b.iter(|| lut_grad_inputs(&in_order, &tables4, &chosen, &dy4))
    });
    g.bench_function("choice4_forward", |b| b.iter(|| soft_choice(&cand4, &weights4, &bits)));
    g.bench_function("choice4_weight_grads_of_lut4", |b| {
        b.iter(|| {
            soft_choice_grad_weights(&cand4, &bits, &lut_grad_inputs(&in_order, &tables4, &chosen, &dy4))
        })
    });
    g.bench_function("choice4_weight_grads_of_lut4_fused", |b| {
        b.iter(|| lut_choice_grad_weights(&in_order, &tables4, &cand4, &bits, &chosen, &dy4))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
