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
    /// Data: a built-in name or a path (.csv, .pla, .pla.gz); for smooth models also
    /// `fashion-mnist` or an IDX directory (their test split).
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
    let smooth = std::fs::read_to_string(&a.model)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok().map(|v| v["domain"] == "smooth"));
    if smooth == Some(true) {
        let model = super::train_smooth::read_model(&a.model)?;
        let (acc, n) = super::train_smooth::eval_accuracy(&model, &a.data)?;
        return report(a, &model.spec, n, acc);
    }
    let m = ModelFile::read(&a.model)?;
    let (net, params) = m.network(&a.model)?;
    let ds = data::load(&a.data)?;
    let x =
        m.encoder.encode(&ds).with_context(|| format!("encoding {} for {}", a.data, a.model.display()))?;
    let acc = accuracy(&predict(&net, &params, &x), &ds.labels);
    report(a, &m.spec, ds.n_examples(), acc)
}

fn report(a: &EvalArgs, spec: &str, examples: usize, acc: f64) -> anyhow::Result<()> {
    if a.json {
        println!(
            "{}",
            serde_json::json!({"model": spec, "data": a.data, "examples": examples, "accuracy": acc})
        );
    } else {
        println!("{}: accuracy {:.4} on {} examples of {}", a.model.display(), acc, examples, a.data);
    }
    Ok(())
}
