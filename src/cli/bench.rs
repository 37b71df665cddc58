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
    /// Instead of the throughput figures, time `strash`, `balance`, `rewrite`, `refactor`
    /// and `resyn2` on chains of EPFL circuits of these AND counts (comma separated).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub synth_scaling: Vec<usize>,
    /// With `--synth-scaling`, also write each chain as binary AIGER into this folder
    /// (`chain-SIZE.aig`), for ABC.
    #[arg(long)]
    pub synth_aig_dir: Option<std::path::PathBuf>,
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
    if !a.synth_scaling.is_empty() {
        return synth_scaling(a);
    }
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

/// The largest chain `bench --synth-scaling` builds (about 1.2 GB per million ANDs).
const MAX_SCALING_ANDS: usize = 5_000_000;

/// `bench --synth-scaling`: one row per size and pass, as it is measured.
fn synth_scaling(a: &BenchArgs) -> anyhow::Result<()> {
    if let Some(&bad) = a.synth_scaling.iter().find(|&&n| n == 0 || n > MAX_SCALING_ANDS) {
        return Err(UsageError(format!(
            "--synth-scaling: {bad} is not from 1 to {MAX_SCALING_ANDS} AND nodes"
        ))
        .into());
    }
    if let Some(dir) = a.synth_aig_dir.as_ref().filter(|d| !d.is_dir()) {
        return Err(UsageError(format!("--synth-aig-dir: {} is not a directory", dir.display())).into());
    }
    let mut rows = Vec::new();
    println!("{:>9}  {:<9} {:>9} {:>9} {:>9} {:>8}", "size", "pass", "before", "after", "seconds", "us/AND");
    for &size in &a.synth_scaling {
        if let Some(dir) = &a.synth_aig_dir {
            let chain = crate::bench::synth_scaling::epfl_chain(size);
            let names =
                crate::io::netlist::PortNames::indexed("chain", chain.n_inputs(), chain.outputs().len());
            let path = dir.join(format!("chain-{size}.aig"));
            crate::io::atomic::write_atomic_with(&path, |w| {
                crate::io::aiger::write_aiger(&chain, &names, crate::io::aiger::AigerFormat::Binary, w)
            })?;
        }
        rows.extend(crate::bench::synth_scaling::synth_scaling(size, |r| {
            println!(
                "{:>9}  {:<9} {:>9} {:>9} {:>9.3} {:>8.2}",
                r.size,
                r.pass,
                r.ands_before,
                r.ands_after,
                r.seconds,
                r.us_per_and()
            );
        }));
    }
    if a.json {
        println!("{}", serde_json::to_string(&rows)?);
    }
    Ok(())
}
