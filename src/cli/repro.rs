//! `circuitlearn repro NAME`: published experiments, reproduced.
//!
//! `rda-iris`: Wilson & Zanasi, *Reverse Derivative Ascent* (ACT 2020), Iris table.
//! Lookup-table model, threshold encoding (min-max over the rows in use, bit = value >
//! 0.5), the first 25 rows of each class (file order) train and the rest test, every
//! table entry starts at 0, one pass of faithful per-example RDA in file order. Test
//! accuracy is the exact match of all label bits.
//!
//! `numeric-optics-iris`: the Iris experiments of numeric-optics, the implementation
//! accompanying Cruttwell et al., *Categorical Foundations of Gradient-Based Learning*:
//! linear 4->3, dense 4->3 sigmoid, 4->20->3 sigmoid; MSE, gradient descent with learning
//! rate 0.01, batch 1, 400 shuffled epochs; training accuracy (see
//! [`crate::train::numeric_optics_iris`]). Its data are UCI's `iris.data` too.
//!
//! The RDA paper's code reads UCI's `iris.data`, which differs from the scikit-learn copy
//! shipped here in two setosa rows: UCI documents samples 35 and 38 as transcription
//! errors (`4.9,3.1,1.5,0.1` in both), and scikit-learn ships the corrected values. The
//! repro restores UCI's values ([`uci_iris`]); with the corrected file the three-class
//! figure is 74.7% instead of 73.3% (reported as `three_class_corrected_data`).

use super::common::UsageError;
use crate::data::{self, Dataset, Encoder, Encoding};
use crate::learn::head::accuracy;
use crate::learn::predict::predict;
use crate::learn::{Body, Head, ModelSpec, Network};
use crate::train::{Init, RdaRule, RdaVariant, Trainer};
use clap::Args;

/// Arguments of `repro`.
#[derive(Debug, Args)]
pub struct ReproArgs {
    /// Experiment: rda-iris, rda-mnist, polycirc-iris, numeric-optics-iris, sat-vs-wrap.
    pub name: String,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
    /// rda-mnist: directory with MNIST's IDX files (not shipped).
    #[arg(long, value_name = "DIR")]
    pub data: Option<std::path::PathBuf>,
    /// rda-mnist: single-example RDA steps [default: 1000].
    #[arg(long)]
    pub steps: Option<usize>,
    /// rda-mnist: training images of digits 0 and 1 in the pool, the rest validate
    /// [default: 11400].
    #[arg(long)]
    pub pool: Option<usize>,
    /// rda-mnist: seed of the pool's shuffle [default: 0].
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Runs `repro`.
///
/// # Errors
/// Unknown experiment name.
pub fn run(a: &ReproArgs) -> anyhow::Result<()> {
    if a.name != "rda-mnist" {
        let given = [
            ("--data", a.data.is_some()),
            ("--steps", a.steps.is_some()),
            ("--pool", a.pool.is_some()),
            ("--seed", a.seed.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
            return Err(UsageError(format!("{flag} applies only to repro rda-mnist")).into());
        }
    }
    match a.name.as_str() {
        "rda-mnist" => {
            let d = super::repro_mnist::RdaMnistParams::default();
            let p = super::repro_mnist::RdaMnistParams {
                steps: a.steps.unwrap_or(d.steps),
                pool: a.pool.unwrap_or(d.pool),
                seed: a.seed.unwrap_or(d.seed),
            };
            super::repro_mnist::run(a.data.as_deref(), &p, a.json)
        }
        "rda-iris" => rda_iris(a.json),
        "polycirc-iris" => polycirc_iris(a.json),
        "numeric-optics-iris" => numeric_optics_iris(a.json),
        "sat-vs-wrap" => super::repro_ring::run(a.json),
        other => Err(UsageError(format!(
            "unknown experiment '{other}'; available: rda-iris, rda-mnist, polycirc-iris, numeric-optics-iris, sat-vs-wrap"
        ))
        .into()),
    }
}

/// Test accuracy of the RDA paper's Iris protocol on `classes` classes with `head`.
///
/// # Errors
/// Only if the embedded data were unreadable.
pub fn rda_iris_accuracy(iris: &Dataset, classes: usize, head: Head) -> anyhow::Result<f64> {
    let rows: Vec<usize> = (0..iris.n_examples()).filter(|&e| (iris.labels[e] as usize) < classes).collect();
    let mut ds: Dataset = iris.subset(&rows);
    ds.class_names.truncate(classes);
    let enc = Encoder::fit(&Encoding::Threshold, &ds)?;
    let x = enc.encode(&ds)?;
    let (train, test) = data::first_per_class(&ds.labels, 25);
    let net = Network::build(ModelSpec { body: Body::Table, head }, enc.n_bits(), classes, 0)?;
    let ytr: Vec<u32> = train.iter().map(|&e| ds.labels[e]).collect();
    let xtr = x.select_examples(&train);
    let rule = RdaRule::new(&net, &xtr, &ytr, RdaVariant::Faithful).init(Init::Zeros).shuffle(false);
    let params = Trainer::new().epochs(1).fit(rule).0.into_params();
    let yte: Vec<u32> = test.iter().map(|&e| ds.labels[e]).collect();
    Ok(accuracy(&predict(&net, &params, &x.select_examples(&test)), &yte))
}

/// The embedded Iris data with UCI `iris.data`'s values for samples 35 and 38 (1-based),
/// which scikit-learn's copy corrects.
///
/// # Errors
/// Only if the embedded data were unreadable.
pub fn uci_iris() -> anyhow::Result<Dataset> {
    let mut iris = data::load_dataset("iris")?;
    if let data::Features::Real { values, .. } = &mut iris.features {
        for sample in [35, 38] {
            let row = (sample - 1) * 4;
            values[row..row + 4].copy_from_slice(&[4.9, 3.1, 1.5, 0.1]);
        }
    }
    Ok(iris)
}

fn rda_iris(json: bool) -> anyhow::Result<()> {
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    let uci = uci_iris()?;
    let two_bin = round(rda_iris_accuracy(&uci, 2, Head::Binary)?);
    let two_hot = round(rda_iris_accuracy(&uci, 2, Head::OneHot)?);
    let three = round(rda_iris_accuracy(&uci, 3, Head::Binary)?);
    let corrected = round(rda_iris_accuracy(&data::load_dataset("iris")?, 3, Head::Binary)?);
    if !json {
        println!(
            "RDA paper, Iris, lookup table, one pass of per-example RDA (published: 98.0 / 98.0 / 73.3)"
        );
        println!("  two classes, binary label : {:.1}%", two_bin * 100.0);
        println!("  two classes, one-hot label: {:.1}%", two_hot * 100.0);
        println!("  three classes             : {:.1}%", three * 100.0);
        println!("  three classes on scikit-learn's corrected rows 35 and 38: {:.1}%", corrected * 100.0);
    }
    println!(
        "{}",
        serde_json::json!({"two_class_binary": two_bin, "two_class_onehot": two_hot, "three_class": three, "three_class_corrected_data": corrected})
    );
    Ok(())
}

/// Training accuracy of the yarrow-polycirc Iris demo ([`crate::train::polycirc_iris`]).
///
/// # Errors
/// Only if the embedded data were unreadable.
pub fn polycirc_iris_accuracy() -> anyhow::Result<f64> {
    Ok(crate::train::polycirc_iris(&data::load_dataset("iris")?)?.train_accuracy)
}

fn polycirc_iris(json: bool) -> anyhow::Result<()> {
    let acc = (polycirc_iris_accuracy()? * 1000.0).round() / 1000.0;
    if !json {
        println!(
            "yarrow-polycirc Iris demo in Z2^64, 10-bit fixed point, 60 epochs (published: 96.0% train)"
        );
        println!("  training accuracy: {:.1}%", acc * 100.0);
    }
    println!("{}", serde_json::json!({ "train_accuracy": acc }));
    Ok(())
}

/// Training accuracies of the numeric-optics Iris models (`linear`, `dense`, `hidden`)
/// after `epochs` epochs (the experiment runs 400), on UCI's rows.
///
/// # Errors
/// Only if the embedded data were unreadable.
pub fn numeric_optics_iris_accuracies(epochs: usize) -> anyhow::Result<crate::train::IrisAccuracies> {
    let iris = crate::smooth::examples::Examples::from_dataset(&uci_iris()?)
        .map_err(|e| UsageError(e.to_string()))?;
    Ok(crate::train::numeric_optics_iris(&iris, epochs, 0))
}

fn numeric_optics_iris(json: bool) -> anyhow::Result<()> {
    let acc = numeric_optics_iris_accuracies(400)?;
    let round = |v: f64| (v * 10000.0).round() / 10000.0;
    if !json {
        println!(
            "numeric-optics Iris, MSE, gradient descent lr 0.01, batch 1, 400 epochs (reference: 66.67 / 94.67 / 96.67)"
        );
        println!("  linear 4->3             : {:.2}%", acc.linear * 100.0);
        println!("  dense 4->3, sigmoid     : {:.2}%", acc.dense * 100.0);
        println!("  4->20->3, sigmoid hidden: {:.2}%", acc.hidden * 100.0);
    }
    println!(
        "{}",
        serde_json::json!({"linear": round(acc.linear), "dense": round(acc.dense), "hidden": round(acc.hidden)})
    );
    Ok(())
}
