//! One training epoch of the reference LUT network (`circuitlearn bench`'s training
//! figure): batched RDA with vote counting on `lut:6:1000x1,groupsum:10`, 8,192 examples
//! of 784 bits, on one thread and on the whole pool. Throughput is in examples.

use circuitlearn::TrainReference;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let reference = TrainReference::new();
    let mut g = c.benchmark_group("train_epoch_lut6_1000x1");
    g.throughput(Throughput::Elements(reference.examples() as u64));
    g.sample_size(10);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    g.bench_function("1core", |b| b.iter(|| one.install(|| reference.epoch())));
    g.bench_function("all_cores", |b| b.iter(|| reference.epoch()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
