//! Pinned results: the same seed and data must give byte-identical `model.json` files
//! release after release. Each case is a small run of a published recipe; its file's
//! FNV-1a hash and length were recorded before the training engine was rewritten, so a
//! change that moves any parameter, encoder threshold or wiring fails here.
//!
//! When a change is *meant* to move a result (a better rule, a new default), re-pin the
//! value and say so in the commit and in BENCHMARKS.md.

mod common;

use common::circuitlearn;
use std::path::Path;

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(file).display().to_string()
}

/// Runs `train` with `args` (plus `--out run`) in a fresh directory and checks the hash and
/// length of the `model.json` it writes.
fn assert_pinned(what: &str, args: &[&str], len: usize, hash: u64) {
    let d = tempfile::tempdir().unwrap();
    let mut all: Vec<&str> = vec!["train", "--out", "run", "--json"];
    all.extend(args);
    let out = circuitlearn(&all, d.path());
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(d.path().join("run/model.json")).unwrap();
    assert_eq!((bytes.len(), fnv1a(&bytes)), (len, hash), "{what}: model.json moved");
}

#[test]
fn the_iris_default_is_pinned() {
    assert_pinned("train (Iris default)", &[], 2868, 0x96ed_e3f4_16c5_4810);
}

#[test]
fn an_iwls_pla_run_is_pinned() {
    let (train, valid) = (data("iwls2020/ex75.train.pla.gz"), data("iwls2020/ex75.valid.pla.gz"));
    let args = ["--data", &train, "--test", &valid, "--model", "lut:6:256x1,groupsum:2", "--epochs", "3"];
    assert_pinned("ex75, lut:6:256x1", &args, 4456, 0x6efd_ca29_a319_cb87);
}

#[test]
fn a_short_relaxed_run_is_pinned() {
    assert_pinned(
        "relaxed gates, random wiring",
        &["--data", "iris", "--model", "gates:64x2", "--epochs", "3"],
        1945,
        0x579f_914e_8ce5_2371,
    );
    // Learned input choice, narrowed, then hard choice and hard gates, cosine rate: every
    // scheduled phase of relaxed training.
    let phases = [
        "--domain",
        "smooth",
        "--data",
        "iris",
        "--model",
        "gates:64x2",
        "--input-candidates",
        "4",
        "--narrow-candidates",
        "2",
        "--narrow-after",
        "1",
        "--hard-choice-epochs",
        "1",
        "--hard-gate-epochs",
        "1",
        "--epochs",
        "4",
        "--lr-schedule",
        "cosine",
    ];
    assert_pinned("relaxed gates, every phase", &phases, 3238, 0xba58_6657_c5ba_cdce);
}

#[test]
fn the_smooth_mlp_is_pinned() {
    let args = ["--domain", "smooth", "--data", "iris", "--model", "mlp:16", "--epochs", "3"];
    assert_pinned("smooth mlp:16", &args, 1759, 0xd056_afcd_bc52_c536);
}

/// The yarrow-polycirc Iris demo in `Z_(2^64)`: its trained fixed-point weights.
#[test]
fn the_polycirc_repro_is_pinned() {
    let iris = circuitlearn::load_dataset("iris").unwrap();
    let run = circuitlearn::polycirc_iris(&iris).unwrap();
    let weights: Vec<i64> = run.params.iter().map(|&p| p.cast_signed()).collect();
    assert_eq!(
        weights,
        [-105, 902, -898, 397, -11, -201, 65, 27, -1407, -641, 1407, 2336],
        "polycirc-iris weights moved"
    );
    assert!((run.train_accuracy - 0.96).abs() < 1e-9, "{}", run.train_accuracy);
}

/// Trains `toml`'s run through the library pipeline (no synthesis) and checks the
/// `model.json` it writes.
fn assert_pinned_pipeline(what: &str, toml: &str, len: usize, hash: u64) {
    use circuitlearn::{pipeline, pipeline::TrainConfig, pipeline::TrainOptions};
    let cfg = TrainConfig::resolve(&TrainOptions::from_toml(toml, what).unwrap()).unwrap();
    let data = pipeline::load_data(&cfg).unwrap();
    let trained = pipeline::train(&cfg, &data, None, &mut |_| {}).unwrap();
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("model.json");
    trained.write_model(&path, &cfg).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!((bytes.len(), fnv1a(&bytes)), (len, hash), "{what}: model.json moved");
}

fn fashion_tiny() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny").display().to_string()
}

/// The Fashion-MNIST recipes on six images: the full-size networks, their encodings and
/// every setting, two epochs (pinned from the recipe as the earlier command line ran it).
#[test]
fn the_fashion_mnist_rda_recipe_is_pinned() {
    let toml = format!("preset = \"fashion-mnist-rda\"\ndata = \"{}\"\nepochs = 2\n", fashion_tiny());
    assert_pinned_pipeline("fashion-mnist-rda", &toml, 341_276, 0x101b_f059_c3b7_c271);
}

#[test]
fn the_fashion_mnist_relaxed_recipe_is_pinned() {
    let toml = format!("preset = \"fashion-mnist\"\ndata = \"{}\"\nepochs = 2\n", fashion_tiny());
    assert_pinned_pipeline("fashion-mnist", &toml, 1_957_497, 0x1202_f470_caf4_5c52);
}
