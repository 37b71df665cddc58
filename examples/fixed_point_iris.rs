//! Fixed-point training in the ring `Z_(2^64)` through the library: the polycirc Iris
//! demo, then the trained model as word-level Verilog.
//!
//! `cargo run --release --example fixed_point_iris`

use anyhow::Result;
use circuitlearn::{bind_ring_params, load_dataset, polycirc_iris, z2k_verilog};

fn main() -> Result<()> {
    let run = polycirc_iris(&load_dataset("iris")?)?;
    println!("training accuracy {:.3} (published: 0.960)", run.train_accuracy);
    let w: Vec<f64> = run.params.iter().map(|&p| (p as i64) as f64 / 1024.0).collect();
    for (i, row) in w.chunks(4).enumerate() {
        println!("W[{i}] = {row:?}");
    }
    let bound = bind_ring_params(&run.model, &run.params)?;
    print!("{}", z2k_verilog(&bound, "iris_fixed"));
    Ok(())
}
