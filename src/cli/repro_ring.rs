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

/// What [`sat_vs_wrap`] measures: the data, the word widths, the epochs of each run.
#[derive(Clone, Debug)]
pub struct SatWrapParams {
    /// A built-in data set or a path.
    pub data: String,
    /// Bits per word, one row each.
    pub bits: Vec<u32>,
    /// Epochs per run (`None`: the poly default, 30).
    pub epochs: Option<usize>,
}

impl Default for SatWrapParams {
    /// The published measurement: breast-cancer, K in 20, 21, 22, 24, 32, 30 epochs.
    fn default() -> Self {
        Self { data: "breast-cancer".into(), bits: vec![20, 21, 22, 24, 32], epochs: None }
    }
}

fn accuracies(p: &SatWrapParams, ring: &str) -> anyhow::Result<(f64, f64)> {
    let o = TrainOptions {
        data: Some(p.data.clone()),
        ring: Some(ring.into()),
        epochs: p.epochs,
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

/// The rows of the measurement.
///
/// # Errors
/// Data that cannot be read, or a width the model cannot use (`check_expressible`).
pub fn sat_vs_wrap(p: &SatWrapParams) -> anyhow::Result<Vec<SatWrapRow>> {
    p.bits
        .iter()
        .map(|&k| {
            let (wrap_train, wrap_test) = accuracies(p, &format!("z2k:{k}"))?;
            let (sat_train, sat_test) = accuracies(p, &format!("sat:{}", (1u64 << (k - 1)) - 1))?;
            Ok(SatWrapRow { bits: k, wrap_test, wrap_train, sat_test, sat_train })
        })
        .collect()
}

/// Runs the repro.
///
/// # Errors
/// As [`sat_vs_wrap`].
pub fn run(json: bool) -> anyhow::Result<()> {
    let p = SatWrapParams::default();
    let rows = sat_vs_wrap(&p)?;
    if json {
        println!("{}", serde_json::json!({ "experiment": "sat-vs-wrap", "data": p.data, "rows": rows }));
        return Ok(());
    }
    println!(
        "{}, linear, 8 fraction bits, {} epochs, seed 0: test (train) accuracy",
        p.data,
        p.epochs.unwrap_or(30)
    );
    println!("{:>4}  {:>15}  {:>15}", "bits", "z2k (wrap)", "sat (saturate)");
    for r in &rows {
        println!(
            "{:>4}  {:>7.4} ({:.4})  {:>7.4} ({:.4})",
            r.bits, r.wrap_test, r.wrap_train, r.sat_test, r.sat_train
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The finding, in a shortened run (K = 20, 6 epochs): in 20-bit words the wrapped
    /// changes break training (about chance), the saturated ones do not.
    #[test]
    fn saturation_beats_wrap_around_in_narrow_words() {
        let p = SatWrapParams { bits: vec![20], epochs: Some(6), ..SatWrapParams::default() };
        let rows = sat_vs_wrap(&p).unwrap();
        let r = &rows[0];
        assert_eq!(r.bits, 20);
        assert!(r.sat_test >= 0.9, "saturating run fell to {}", r.sat_test);
        assert!(r.sat_train >= 0.9, "saturating run fell to {} on its training data", r.sat_train);
        assert!(r.sat_test - r.wrap_test >= 0.2, "wrap {} is not well below sat {}", r.wrap_test, r.sat_test);
    }
}
