//! `circuitlearn eval`: accuracy of a saved model on a data set.

use super::common::set_threads;
use crate::data;
use crate::io::ModelFile;
use crate::learn::head::accuracy;
use crate::learn::trainer::predict;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The model file written by `train` (`DIR/model.json`).
    #[arg(long)]
    pub model: PathBuf,
    /// Data: a built-in name or a path (.csv, .pla, .pla.gz).
    #[arg(long)]
    pub data: String,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
}

/// Runs `eval`.
///
/// # Errors
/// Bad model file, bad data, or data whose shape does not fit the model.
pub fn run(a: &EvalArgs) -> anyhow::Result<()> {
    set_threads(a.threads);
    let m = ModelFile::read(&a.model)?;
    let (net, params) = m.network(&a.model)?;
    let ds = data::load(&a.data)?;
    let x =
        m.encoder.encode(&ds).with_context(|| format!("encoding {} for {}", a.data, a.model.display()))?;
    let acc = accuracy(&predict(&net, &params, &x), &ds.labels);
    if a.json {
        println!(
            "{}",
            serde_json::json!({"model": m.spec, "data": a.data, "examples": ds.n_examples(), "accuracy": acc})
        );
    } else {
        println!("{}: accuracy {:.4} on {} examples of {}", a.model.display(), acc, ds.n_examples(), a.data);
    }
    Ok(())
}
