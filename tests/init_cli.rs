//! `train --init FILE`: Boolean training that starts from a trained model's parameters
//! (an RDA run's or a relaxed run's discretised `lut:2` network), and the one-line errors
//! when the model does not fit the flags or the data.

mod common;

use common::circuitlearn;

use std::path::Path;

fn train(args: &[&str], dir: &Path) -> serde_json::Value {
    let mut all = vec!["train", "--json"];
    all.extend_from_slice(args);
    let o = circuitlearn(&all, dir);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("last line is JSON")
}

fn model(dir: &Path, run: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(run).join("model.json")).expect("model.json written");
    serde_json::from_str(&text).expect("model.json is JSON")
}

#[test]
fn init_starts_from_the_model_and_fine_tunes_it() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let first = train(&["--model", "lut:4:16x1,groupsum:3", "--epochs", "2", "--seed", "4", "--out", "a"], p);
    // Zero epochs from --init: the same model, the same figures.
    let same = train(&["--init", "a/model.json", "--epochs", "0", "--seed", "4", "--out", "b"], p);
    assert_eq!(same["init"]["test_accuracy"], first["test_accuracy"], "{same}");
    assert_eq!(same["test_accuracy"], first["test_accuracy"], "{same}");
    // No epochs took no time: 0, not the -0 of an empty float sum.
    assert_eq!(same["seconds"].as_f64().map(f64::is_sign_positive), Some(true), "{same}");
    let (ma, mb) = (model(p, "a"), model(p, "b"));
    for key in ["spec", "seed", "params", "encoder"] {
        assert_eq!(ma[key], mb[key], "{key}");
    }
    // Fine-tuning with another training seed keeps the wiring (the model file's seed).
    let tuned =
        train(&["--init", "a/model.json", "--epochs", "3", "--seed", "4", "--lr", "1", "--out", "c"], p);
    assert!(tuned["epochs"].as_u64() >= Some(1), "{tuned}");
    let mc = model(p, "c");
    assert_eq!((&mc["spec"], &mc["seed"]), (&ma["spec"], &ma["seed"]));
    assert_ne!(mc["params"], ma["params"], "three epochs of RDA changed nothing");
}

/// The relaxed path's discretised network is rebuilt with its wiring: RDA starts from
/// exactly the accuracy the relaxed run reported.
#[test]
fn init_continues_a_relaxed_model_with_rda() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let relaxed = train(
        &["--data", "wine", "--domain", "smooth", "--model", "gates:64x2", "--epochs", "20", "--batch", "32"],
        p,
    );
    let tuned =
        train(&["--data", "wine", "--init", "runs/wine/model.json", "--epochs", "2", "--out", "tuned"], p);
    assert_eq!(tuned["model"], "lut:2:64x2,groupsum:3", "{tuned}");
    assert_eq!(tuned["init"]["test_accuracy"], relaxed["test_accuracy"], "{tuned} vs {relaxed}");
    // A learned first-layer wiring is rebuilt too, and carried to the fine-tuned model.
    let learned = train(
        &[
            "--data",
            "wine",
            "--domain",
            "smooth",
            "--model",
            "gates:64x2",
            "--epochs",
            "20",
            "--batch",
            "32",
            "--input-candidates",
            "4",
            "--out",
            "learned",
        ],
        p,
    );
    let from_learned = train(
        &["--data", "wine", "--init", "learned/model.json", "--epochs", "0", "--out", "tuned-learned"],
        p,
    );
    assert_eq!(
        from_learned["init"]["test_accuracy"], learned["test_accuracy"],
        "{from_learned} vs {learned}"
    );
    let wiring = &model(p, "learned")["learned_wiring"];
    assert!(wiring.is_array(), "the relaxed run learned its wiring");
    assert_eq!(&model(p, "tuned-learned")["learned_wiring"], wiring);
    assert_eq!(tuned["optimizer"], "rda-votes");
}

fn assert_refused(args: &[&str], dir: &Path, needle: &str) {
    let o = circuitlearn(args, dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one error line: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

#[test]
fn init_refuses_models_that_do_not_fit() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    train(&["--model", "lut:4:16x1,groupsum:3", "--epochs", "1", "--out", "a"], p);
    let init = ["train", "--init", "a/model.json"];
    let with = |more: &[&'static str]| [&init[..], more].concat();
    assert_refused(&with(&["--model", "lut:4:8x1,groupsum:3"]), p, "does not match --model lut:4:8x1");
    assert_refused(&with(&["--encoding", "thermometer:2"]), p, "encoding thermometer:8 does not match");
    assert_refused(&with(&["--data", "wine"]), p, "a/model.json: classes");
    assert_refused(&with(&["--domain", "smooth"]), p, "--init: applies to Boolean training (--domain bool)");
    assert_refused(&["train", "--init", "missing.json"], p, "missing.json");
    std::fs::write(p.join("bad.json"), "{\"spec\": \n").unwrap();
    assert_refused(&["train", "--init", "bad.json"], p, "bad.json:2");
}
