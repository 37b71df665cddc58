//! Latency and bandwidth of the collective the training engine's steps use, on this
//! machine's loopback (shared memory between ranks of one host): `sum_u64`, the allreduce
//! of the vote counts and of the fixed-point gradient sums.
//!
//! ```sh
//! cargo build --release --features mpi --example mpi_latency
//! mpirun --allow-run-as-root -np 2 target/release/examples/mpi_latency
//! ```
//!
//! Rank 0 prints one line per message size: microseconds per call (median of repeats).

use circuitlearn::{comm_world, init_mpi};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let _session = init_mpi();
    let world = comm_world();
    let (rank, size) = (world.rank(), world.size());
    if rank == 0 {
        println!("ranks {size}; microseconds per call, median of 7 rounds");
        println!("{:>10} {:>14}", "bytes", "sum_u64");
    }
    for bytes in [8usize, 1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 23] {
        let reps = (1 << 24) / bytes.max(1 << 12);
        let mut words = vec![1u64; bytes / 8];
        let mut sum = Vec::new();
        for _ in 0..7 {
            let t0 = Instant::now();
            for _ in 0..reps {
                world.sum_u64(&mut words);
            }
            sum.push(t0.elapsed().as_secs_f64() * 1e6 / reps as f64);
        }
        if rank == 0 {
            println!("{bytes:>10} {:>14.2}", median(sum));
        }
    }
}
