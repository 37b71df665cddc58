//! `circuitlearn repro sat-vs-wrap`: the JLAMP paper's argument for the saturating
//! semiring, measured. The same fixed-point linear model is trained on breast-cancer
//! (its standardised features reach 10-12 standard deviations, so products of a feature
//! and a change reach 2^19 and more in 8 fraction bits) in `z2k:K`, where a value past
//! the range wraps around to a small or negative one, and in `sat:2^(K-1)-1`, the same
//! `K`-bit words saturating instead, for K from 20 (the narrowest ring `check_expressible`
//! lets the model use) to 32. Same split, seed, order and learning rate in every run.

use crate::pipeline::{self, TrainConfig, TrainOptions};

/// One row of the measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SatWrapRow {
    /// Bits per word.
    pub bits: u32,
    /// Test accuracy in `z2k:K`.
    pub wrap_test: f64,
    /// Training accuracy in `z2k:K`.
    pub wrap_train: f64,
    /// Test accuracy in `sat:2^(K-1)-1`.
    pub sat_test: f64,
    /// Training accuracy in `sat:2^(K-1)-1`.
    pub sat_train: f64,
}

fn accuracies(data: &str, ring: &str) -> anyhow::Result<(f64, f64)> {
    let o = TrainOptions {
        data: Some(data.into()),
        ring: Some(ring.into()),
        frac_bits: Some(8),
        hardware: Some("none".into()),
        ..TrainOptions::default()
    };
    let cfg = TrainConfig::resolve(&o)?;
    let d = pipeline::load_data(&cfg)?;
    let t = pipeline::train(&cfg, &d, None, &mut |_| {})?;
    let (tr, te) = t.accuracies();
    Ok((tr.unwrap_or(0.0), te.unwrap_or(0.0)))
}

/// The rows of the measurement on `data`.
///
/// # Errors
/// Only if the built-in data were unreadable.
pub fn sat_vs_wrap(data: &str) -> anyhow::Result<Vec<SatWrapRow>> {
    [20u32, 21, 22, 24, 32]
        .iter()
        .map(|&k| {
            let (wrap_train, wrap_test) = accuracies(data, &format!("z2k:{k}"))?;
            let (sat_train, sat_test) = accuracies(data, &format!("sat:{}", (1u64 << (k - 1)) - 1))?;
            Ok(SatWrapRow { bits: k, wrap_test, wrap_train, sat_test, sat_train })
        })
        .collect()
}

/// Runs the repro.
///
/// # Errors
/// As [`sat_vs_wrap`].
pub fn run(json: bool) -> anyhow::Result<()> {
    let rows = sat_vs_wrap("breast-cancer")?;
    if json {
        println!(
            "{}",
            serde_json::json!({ "experiment": "sat-vs-wrap", "data": "breast-cancer", "rows": rows })
        );
        return Ok(());
    }
    println!("breast-cancer, linear, 8 fraction bits, 30 epochs, seed 0: test (train) accuracy");
    println!("{:>4}  {:>15}  {:>15}", "bits", "z2k (wrap)", "sat (saturate)");
    for r in &rows {
        println!(
            "{:>4}  {:>7.4} ({:.4})  {:>7.4} ({:.4})",
            r.bits, r.wrap_test, r.wrap_train, r.sat_test, r.sat_train
        );
    }
    Ok(())
}
