//! `circuitlearn repro rda-mnist --data DIR`: the two-class MNIST row of Wilson & Zanasi,
//! *Reverse Derivative Ascent* (ACT 2020). Digits 0 and 1 only; a pixel is the bit
//! `pixel > 32`; the model is the paper's pseudo-linear map (784 parameters and 784 inputs
//! to one output bit, the label); the first 11,400 such training images (file order) are
//! the pool, the remaining ones validation. Starting from all-zero parameters, each step is
//! one faithful RDA update on one pool example (a seeded shuffle of the pool); the
//! parameters with the best validation accuracy over the steps (the first, on ties) are
//! scored on the test images of digits 0 and 1. Published: 99.2% test accuracy.
//!
//! MNIST is not shipped: `DIR` holds its IDX files as distributed
//! (`train-images-idx3-ubyte`, `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte`,
//! `t10k-labels-idx1-ubyte`, each optionally `.gz`).

use super::common::UsageError;
use crate::data::idx::{LabelledImages, read_image_dir};
use crate::lanes::BitMatrix;
use crate::learn::head::accuracy;
use crate::learn::predict::predict;
use crate::learn::{Body, Head, ModelSpec, Network};
use crate::train::{Init, RdaRule, RdaVariant, Trainer};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The protocol's settings (`repro rda-mnist` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdaMnistParams {
    /// Single-example RDA steps (the paper: about 1,000).
    pub steps: usize,
    /// Training images of digits 0 and 1 in the pool; the rest validate (the paper: 11,400).
    pub pool: usize,
    /// Seed of the pool's shuffle.
    pub seed: u64,
}

impl Default for RdaMnistParams {
    fn default() -> Self {
        Self { steps: 1000, pool: 11_400, seed: 0 }
    }
}

/// What the protocol measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RdaMnistResult {
    /// Test accuracy of the selected parameters on digits 0 and 1.
    pub test_accuracy: f64,
    /// Their validation accuracy.
    pub valid_accuracy: f64,
    /// The step they were reached at (0: the all-zero start).
    pub best_step: usize,
    /// Images of digits 0 and 1: pool, validation, test.
    pub sizes: (usize, usize, usize),
}

/// The images of digits 0 and 1 as bits `pixel > 32` (one row per pixel) and their labels.
fn zeros_and_ones(set: &LabelledImages) -> (BitMatrix, Vec<u32>) {
    let keep: Vec<usize> = (0..set.labels.len()).filter(|&i| set.labels[i] <= 1).collect();
    let size = set.images.rows * set.images.cols;
    let mut x = BitMatrix::zeros(size, keep.len());
    for (e, &i) in keep.iter().enumerate() {
        for (p, &v) in set.images.pixels[i * size..(i + 1) * size].iter().enumerate() {
            if v > 32 {
                x.set(p, e, true);
            }
        }
    }
    (x, keep.iter().map(|&i| u32::from(set.labels[i])).collect())
}

/// Runs the protocol on the MNIST IDX files in `dir`.
///
/// # Errors
/// [`UsageError`] (exit 2) if the files cannot be read or hold no digits 0 and 1, or the
/// settings leave no pool; otherwise what the trainer reports.
pub fn rda_mnist(dir: &Path, p: &RdaMnistParams) -> anyhow::Result<RdaMnistResult> {
    if p.steps == 0 || p.pool == 0 {
        return Err(UsageError("repro rda-mnist: --steps and --pool must be at least 1".into()).into());
    }
    let splits = read_image_dir(dir).map_err(|e| UsageError(format!("repro rda-mnist: {e}")))?;
    let (x, y) = zeros_and_ones(&splits.train);
    let (x_test, y_test) = zeros_and_ones(&splits.test);
    if y.is_empty() || y_test.is_empty() {
        return Err(UsageError(format!(
            "repro rda-mnist: {} has no training or no test images of digits 0 and 1",
            dir.display()
        ))
        .into());
    }
    let n_pool = p.pool.min(y.len());
    let valid: Vec<usize> = (n_pool..y.len()).collect();
    // Without a validation split (a pool of every image) the selection reads the pool.
    let select: Vec<usize> = if valid.is_empty() { (0..n_pool).collect() } else { valid.clone() };
    let (x_sel, y_sel) = (x.select_examples(&select), select.iter().map(|&e| y[e]).collect::<Vec<_>>());
    let net = Network::build(ModelSpec { body: Body::PseudoLinear, head: Head::Binary }, x.rows(), 2, 0)?;
    let mut order: Vec<usize> = (0..n_pool).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(p.seed));
    let score = |params: &[bool]| accuracy(&predict(&net, params, &x_sel), &y_sel);
    let mut params = vec![false; net.n_params()];
    let (mut best, mut best_acc, mut best_step) = (params.clone(), score(&params), 0);
    for step in 1..=p.steps {
        let e = order[(step - 1) % n_pool];
        let (xe, ye) = (x.select_examples(&[e]), [y[e]]);
        let rule =
            RdaRule::new(&net, &xe, &ye, RdaVariant::Faithful).init(Init::Given(params)).shuffle(false);
        params = Trainer::new().epochs(1).fit(rule).0.into_params();
        let acc = score(&params);
        if acc > best_acc {
            (best, best_acc, best_step) = (params.clone(), acc, step);
        }
    }
    Ok(RdaMnistResult {
        test_accuracy: accuracy(&predict(&net, &best, &x_test), &y_test),
        valid_accuracy: best_acc,
        best_step,
        sizes: (n_pool, valid.len(), y_test.len()),
    })
}

/// `repro rda-mnist`: runs [`rda_mnist`] and prints its figures.
///
/// # Errors
/// As [`rda_mnist`]; no `--data`.
pub fn run(data: Option<&Path>, p: &RdaMnistParams, json: bool) -> anyhow::Result<()> {
    let Some(dir) = data else {
        return Err(UsageError(
            "repro rda-mnist needs --data DIR, a directory with MNIST's IDX files \
             (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, \
             t10k-labels-idx1-ubyte, optionally .gz); MNIST is not shipped"
                .into(),
        )
        .into());
    };
    let r = rda_mnist(dir, p)?;
    let round = |v: f64| (v * 10000.0).round() / 10000.0;
    if !json {
        println!(
            "RDA paper, MNIST digits 0 and 1, pseudo-linear model, best of {} single-example steps on validation (published: 99.2%)",
            p.steps
        );
        println!("  images: {} pool, {} validation, {} test", r.sizes.0, r.sizes.1, r.sizes.2);
        println!("  validation accuracy {:.2}% (step {})", r.valid_accuracy * 100.0, r.best_step);
        println!("  test accuracy       {:.2}%", r.test_accuracy * 100.0);
    }
    println!(
        "{}",
        serde_json::json!({
            "test_accuracy": round(r.test_accuracy), "valid_accuracy": round(r.valid_accuracy),
            "best_step": r.best_step, "steps": p.steps, "pool": r.sizes.0, "valid": r.sizes.1, "test": r.sizes.2,
        })
    );
    Ok(())
}
