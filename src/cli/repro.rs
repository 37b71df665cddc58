//! `circuitlearn repro NAME`: published experiments, reproduced.
//!
//! `rda-iris`: Wilson & Zanasi, *Reverse Derivative Ascent* (ACT 2020), Iris table.
//! Lookup-table model, threshold encoding (min-max over the rows in use, bit = value >
//! 0.5), the first 25 rows of each class (file order) train and the rest test, every
//! table entry starts at 0, one pass of faithful per-example RDA in file order. Test
//! accuracy is the exact match of all label bits.
//!
//! The paper's code reads UCI's `iris.data`, which differs from the scikit-learn copy
//! shipped here in two setosa rows: UCI documents samples 35 and 38 as transcription
//! errors (`4.9,3.1,1.5,0.1` in both), and scikit-learn ships the corrected values. The
//! repro restores UCI's values ([`uci_iris`]); with the corrected file the three-class
//! figure is 74.7% instead of 73.3% (reported as `three_class_corrected_data`).

use super::common::UsageError;
use crate::data::{self, Dataset, Encoder, Encoding};
use crate::learn::head::accuracy;
use crate::learn::trainer::predict;
use crate::learn::{Body, Head, Init, ModelSpec, Network, Optimizer, Trainer};
use clap::Args;

/// Arguments of `repro`.
#[derive(Debug, Args)]
pub struct ReproArgs {
    /// Experiment: rda-iris, polycirc-iris.
    pub name: String,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
}

/// Runs `repro`.
///
/// # Errors
/// Unknown experiment name.
pub fn run(a: &ReproArgs) -> anyhow::Result<()> {
    match a.name.as_str() {
        "rda-iris" => rda_iris(a.json),
        "polycirc-iris" => polycirc_iris(a.json),
        other => {
            Err(UsageError(format!("unknown experiment '{other}'; available: rda-iris, polycirc-iris"))
                .into())
        }
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
    let report = Trainer::new(Optimizer::Rda).epochs(1).init(Init::Zeros).shuffle(false).run(
        &net,
        &x.select_examples(&train),
        &ytr,
        |_| {},
    );
    let yte: Vec<u32> = test.iter().map(|&e| ds.labels[e]).collect();
    Ok(accuracy(&predict(&net, &report.params, &x.select_examples(&test)), &yte))
}

/// The embedded Iris data with UCI `iris.data`'s values for samples 35 and 38 (1-based),
/// which scikit-learn's copy corrects.
///
/// # Errors
/// Only if the embedded data were unreadable.
pub fn uci_iris() -> anyhow::Result<Dataset> {
    let mut iris = data::load("iris")?;
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
    let corrected = round(rda_iris_accuracy(&data::load("iris")?, 3, Head::Binary)?);
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

/// Training accuracy of the yarrow-polycirc Iris demo reproduced in `Z_(2^64)`: a 3x4
/// linear layer without bias in 10-bit fixed point (inputs and one-hot labels scaled by
/// 2^10 and truncated), parameters from zero, the clipped displacement loss, fixed-point
/// gradient descent with learning rate 2^-7, 60 passes over the 150 rows in the
/// class-interleaving order 0, 50, 100, 1, 51, 101, ...; the class is the argmax of the
/// outputs (first on ties), scored on all 150 rows.
///
/// # Errors
/// Only if the embedded data were unreadable.
pub fn polycirc_iris_accuracy() -> anyhow::Result<f64> {
    use crate::circuit::Circuit;
    use crate::domain::ring::{Poly, Ring, Z2k};
    use crate::learn::fixed::{clipped_displacement, fixed_gd, linear};
    use crate::learn::learner::{displacement, feedback, learner, step};
    type R = Z2k<64>;
    const NBITS: u8 = 10;
    let one = 1i64 << NBITS;
    let iris = data::load("iris")?;
    let data::Features::Real { values, n_features, .. } = &iris.features else {
        anyhow::bail!("iris has numeric features");
    };
    let x: Vec<Vec<u64>> = values
        .chunks(*n_features)
        .map(|row| row.iter().map(|&v| R::from_signed((v * one as f64) as i64)).collect())
        .collect();
    let y: Vec<Vec<u64>> = iris
        .labels
        .iter()
        .map(|&l| (0..3).map(|c| if c == l { R::from_signed(one) } else { 0 }).collect())
        .collect();
    let model: Circuit<Poly<R>> = linear(3, 4);
    let zero = |b: &mut crate::circuit::CircuitBuilder<Poly<R>>| {
        use crate::domain::ring::{PolyBuild, PolyOp};
        b.poly(PolyOp::Const(0), &[])
    };
    let loss = displacement(clipped_displacement::<R>(3, NBITS), zero)?;
    let lens = learner(&model, &loss, &feedback(3))?;
    let step_circuit = step(&lens, 12, &fixed_gd::<R>(12, NBITS, one >> 7))?;
    let n = x.len();
    let order: Vec<usize> = (0..n).map(|j| (j % 3) * 50 + j / 3).collect();
    let mut p = vec![0u64; 12];
    for j in 0..n * 60 {
        let i = order[j % n];
        let mut inputs = p.clone();
        inputs.extend_from_slice(&x[i]);
        inputs.extend_from_slice(&y[i]);
        p = step_circuit.eval_one(&inputs);
    }
    let correct = (0..n)
        .filter(|&i| {
            let mut inputs = p.clone();
            inputs.extend_from_slice(&x[i]);
            let out: Vec<i64> = model.eval_one(&inputs).into_iter().map(R::signed).collect();
            let best = (0..3).fold(0, |b, c| if out[c] > out[b] { c } else { b });
            best == iris.labels[i] as usize
        })
        .count();
    Ok(correct as f64 / n as f64)
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
