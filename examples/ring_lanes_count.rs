//! The reverse derivative `R[f]` of the Iris-sized linear ring model (`benches/ring_lanes.rs`'s)
//! evaluated on 4,096 examples `--reps` times, one example per word or bit-sliced, for
//! counting instructions rather than timing on a shared machine (BENCHMARKS.md, "Ring
//! packing by transposes"): the difference of two runs' totals divided by the difference
//! of their `--reps` is the cost of one evaluation, setup (bit-blasting) excluded.
//!
//! ```sh
//! cargo build --release --example ring_lanes_count
//! for reps in 1 11; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/ring_lanes_count --k 16 --path sliced --reps $reps; done
//! ```
//!
//! `--path` is `word`, `sliced` (inputs already packed into bit rows) or `sliced-packing`
//! (packing the elements and unpacking the results included).

use circuitlearn::{
    EvalParams, RingKind, RingModel, RingModelSpec, random_ring_rows, rdiff, ring_lanes::BitSliced,
    ring_lanes::pack,
};
use clap::{Parser, ValueEnum};
use std::hint::black_box;

/// How `R[f]` is evaluated.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Path {
    /// One example per word (`RingKind::eval`).
    Word,
    /// Bit-sliced on inputs packed beforehand.
    Sliced,
    /// Bit-sliced, packing and unpacking included.
    SlicedPacking,
}

#[derive(Parser)]
struct Args {
    /// The ring is `z2k:K`.
    #[arg(long, default_value_t = 16)]
    k: u32,
    #[arg(long, value_enum, default_value_t = Path::Sliced)]
    path: Path,
    /// Evaluations of the 4,096 examples.
    #[arg(long, default_value_t = 1)]
    reps: usize,
}

fn main() {
    let args = Args::parse();
    let ring = RingKind::Z2k(args.k);
    let mut m = RingModel::init(RingModelSpec::Linear, ring, 2, 4, 3, 0);
    m.params = (0..m.params.len() as i64).map(|i| ring.from_signed(i * 7 - 40)).collect();
    let reverse = ring.canonical(&rdiff(&m.circuit()));
    // The bench's inputs (its seed 2).
    let xs = random_ring_rows(reverse.n_inputs(), 4096, ring, 2);
    let one = EvalParams { tile_words: 0, parallel: false };
    let sliced = BitSliced::new(&reverse, ring);
    let packed = pack(&xs, reverse.n_inputs(), ring);
    for _ in 0..args.reps {
        match args.path {
            Path::Word => {
                black_box(xs.iter().map(|e| ring.eval(&reverse, e)).collect::<Vec<_>>());
            }
            Path::Sliced => {
                black_box(sliced.eval_packed(black_box(&packed), &one));
            }
            Path::SlicedPacking => {
                black_box(sliced.eval(black_box(&xs), &one));
            }
        }
    }
}
