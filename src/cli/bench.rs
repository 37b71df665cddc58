//! `circuitlearn bench`: throughput figures of this machine.

use super::common::{UsageError, set_threads};
use clap::Args;

/// Arguments of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Seconds spent on each figure (the best run counts).
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Worker threads for the all-core figures (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Model of the training figure (784 random input bits, 10 classes).
    #[arg(long, default_value = crate::bench::TRAIN_REFERENCE_MODEL)]
    pub train_model: String,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
}

/// Runs `bench`.
///
/// # Errors
/// None in practice; JSON serialisation.
pub fn run(a: &BenchArgs) -> anyhow::Result<()> {
    set_threads(a.threads);
    let spec: crate::learn::ModelSpec =
        a.train_model.parse().map_err(|e| UsageError(format!("--train-model: {e}")))?;
    let train = crate::bench::TrainReference::with_model(spec)
        .map_err(|e| UsageError(format!("--train-model: {e}")))?;
    let r = crate::bench::run(a.seconds, &train);
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        println!("forward, one core        {:.3e} gate-evaluations/s", r.forward_gate_evals_per_s);
        println!(
            "forward, {} threads       {:.3e} gate-evaluations/s",
            r.threads, r.forward_gate_evals_per_s_all
        );
        println!(
            "training (RDA votes)      {:.0} examples/s  ({}, 784 input bits)",
            r.train_examples_per_s, a.train_model
        );
        println!("inference, 48k gates      {:.0} images/s  (2,352 input bits)", r.infer_images_per_s);
        println!("peak resident memory      {:.0} MiB", r.peak_rss_mb);
    }
    Ok(())
}
