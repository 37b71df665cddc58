//! The command-line contract: default training, reproductions, JSON output, exit codes
//! and error lines on bad input, determinism.

mod common;

use common::circuitlearn;

use std::path::Path;
use std::process::Output;

fn last_json(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("last line is not JSON ({e}): {stdout}"))
}

/// `eval --split test` and `--split train` of the saved model at `path` give the
/// accuracies `train` reported in `metrics` (its JSON line).
fn assert_eval_matches_train(path: &str, metrics: &serde_json::Value, dir: &Path) {
    for (split, key) in [("test", "test_accuracy"), ("train", "train_accuracy")] {
        let eval = circuitlearn(&["eval", "--model", path, "--split", split, "--json"], dir);
        assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
        assert_eq!(last_json(&eval)["accuracy"], metrics[key], "{split}");
    }
}

#[test]
fn default_train_learns_iris_and_writes_its_files() {
    let d = tempfile::tempdir().unwrap();
    let out = circuitlearn(&["train"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("runs/iris/metrics.json")).unwrap())
            .unwrap();
    for key in [
        "dataset",
        "domain",
        "model",
        "optimizer",
        "epochs",
        "seed",
        "train_accuracy",
        "test_accuracy",
        "gates",
        "and_nodes",
        "params",
        "seconds",
    ] {
        assert!(m.get(key).is_some(), "metrics.json lacks {key}: {m}");
    }
    assert!(m["test_accuracy"].as_f64().unwrap() >= 0.9, "{m}");
    assert!(m["and_nodes"].as_u64().unwrap() > 0);
    // The default script (strash, resyn2, fraig) finishes well within its 120 s budget on
    // Iris, so the count is the same on every machine: pinned (2026-12-02; 3,016 with
    // the former strash,fraig on an older lowering, 2,674 before the passes now; 2,378
    // -> 2,372 with ABC's balance order, later that day).
    assert_eq!(m["synthesis"]["stop"], "completed", "{m}");
    assert_eq!(m["synthesis"]["ran"].as_array().map(Vec::len), Some(12), "{m}");
    assert_eq!(
        (m["and_nodes_before_passes"].as_u64(), m["and_nodes"].as_u64()),
        (Some(2674), Some(2372)),
        "{m}"
    );
    // Piped stderr: one progress line per epoch instead of a bar (of at most 20 epochs).
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("train 1/20: train acc") && err.contains("train 2/20: "), "{err}");
    // The steps after training print a line only when they take 2 seconds or more.
    assert!(!err.contains("finish "), "{err}");
    let json = circuitlearn(&["train", "--epochs", "2", "--out", "j", "--json"], d.path());
    assert!(json.status.success() && !String::from_utf8_lossy(&json.stderr).contains("train 1/2"));
    let eval =
        circuitlearn(&["eval", "--model", "runs/iris/model.json", "--data", "iris", "--json"], d.path());
    assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
    assert!(last_json(&eval)["accuracy"].as_f64().unwrap() > 0.9);
}

#[test]
fn repro_rda_iris_prints_the_published_figures() {
    let d = tempfile::tempdir().unwrap();
    let out = circuitlearn(&["repro", "rda-iris", "--json"], d.path());
    assert!(out.status.success());
    let j = last_json(&out);
    assert_eq!(j["two_class_binary"], 0.98);
    assert_eq!(j["two_class_onehot"], 0.98);
    assert_eq!(j["three_class"], 0.733);
}

#[test]
fn repro_polycirc_iris_prints_the_published_training_accuracy() {
    let d = tempfile::tempdir().unwrap();
    let out = circuitlearn(&["repro", "polycirc-iris", "--json"], d.path());
    assert!(out.status.success());
    assert_eq!(last_json(&out)["train_accuracy"], 0.96);
}

#[test]
fn same_seed_gives_the_same_model_for_any_thread_count() {
    let d = tempfile::tempdir().unwrap();
    let run = |threads: &str, out: &str| {
        let o = circuitlearn(
            &["train", "--data", "wine", "--epochs", "5", "--threads", threads, "--out", out, "--json"],
            d.path(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(d.path().join(out).join("model.json")).unwrap()
    };
    assert_eq!(run("1", "a"), run("2", "b"));
}

#[test]
fn trains_on_pla_files_with_a_separate_test_file() {
    let d = tempfile::tempdir().unwrap();
    // Target: majority of the first three of eight inputs; every fifth row is held out.
    let mut train = String::from(".i 8\n.o 1\n.type fr\n");
    let mut test = train.clone();
    for v in 0u32..256 {
        let bits: String = (0..8).map(|i| if v >> i & 1 == 1 { '1' } else { '0' }).collect();
        let y = u32::from((v & 1) + (v >> 1 & 1) + (v >> 2 & 1) >= 2);
        let row = format!("{bits} {y}\n");
        if v % 5 == 0 { test.push_str(&row) } else { train.push_str(&row) }
    }
    std::fs::write(d.path().join("t.train.pla"), train + ".e\n").unwrap();
    std::fs::write(d.path().join("t.valid.pla"), test).unwrap();
    let out = circuitlearn(
        &[
            "train",
            "--data",
            "t.train.pla",
            "--test",
            "t.valid.pla",
            "--model",
            "lut:3:32x1,groupsum:2",
            "--json",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    assert_eq!(j["test_examples"], 52);
    assert!(j["test_accuracy"].as_f64().unwrap() >= 0.9, "{j}");
    // With a validation fold, the fold comes from --data and the --test file is not scored.
    let args = ["train", "--data", "t.train.pla", "--test", "t.valid.pla", "--valid-fold", "4/4", "--json"];
    let out =
        circuitlearn(&[&args[..], &["--model", "lut:3:32x1,groupsum:2", "--out", "v"]].concat(), d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    // Stratified: the last quarter of each class's examples, 50 of 204.
    assert_eq!((j["train_examples"].as_u64(), j["test_examples"].as_u64()), (Some(154), Some(50)), "{j}");
    let source = j["test_source"].as_str().unwrap();
    assert!(source.starts_with("validation fold 4/4 of the 204 training examples of t.train.pla"), "{j}");
    assert!(source.ends_with("the test set t.valid.pla is not evaluated"), "{j}");
}

fn assert_bad_input(args: &[&str], dir: &Path, needle: &str) {
    let out = circuitlearn(args, dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one error line: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_gives_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.csv"), "a,b,label\n1,2,x\n3,oops,y\n").unwrap();
    assert_bad_input(&["train", "--data", "bad.csv"], d.path(), "bad.csv:3");
    std::fs::write(d.path().join("bad.pla"), ".i 4\n.o 1\n0101 1\n011 0\n").unwrap();
    assert_bad_input(&["train", "--data", "bad.pla"], d.path(), "bad.pla:4");
    assert_bad_input(&["train", "--data", "missing.csv"], d.path(), "missing.csv");
    assert_bad_input(&["train", "--model", "lut:6"], d.path(), "bad model spec");
    assert_bad_input(&["train", "--data", "nosuchset"], d.path(), "nosuchset");
    std::fs::write(d.path().join("model.json"), "{\"format_version\": 99}").unwrap();
    assert_bad_input(&["eval", "--model", "model.json", "--data", "iris"], d.path(), "version 99");
}

/// `iwls` and `iwls-suite` on a small synthetic benchmark (`x < y` for two 5-bit numbers):
/// the AIG stays within the budget, its accuracy on valid is what the tool reports
/// (checked by simulating the written AIGER), cross-validation reports an estimate, and
/// the suite resumes instead of redoing work.
#[test]
fn iwls_fits_selects_and_writes_a_small_aig() {
    use circuitlearn::read_aiger;
    let d = tempfile::tempdir().unwrap();
    let row = |v: u32| {
        let bits: String = (0..10).map(|i| if v >> i & 1 == 1 { '1' } else { '0' }).collect();
        format!("{bits} {}\n", u32::from((v & 31) < (v >> 5)))
    };
    let (mut train, mut valid) =
        (String::from(".i 10\n.o 1\n.type fr\n"), String::from(".i 10\n.o 1\n.type fr\n"));
    for v in 0..1024u32 {
        if v % 4 == 0 { valid.push_str(&row(v)) } else { train.push_str(&row(v)) }
    }
    std::fs::create_dir(d.path().join("suite")).unwrap();
    std::fs::write(d.path().join("suite/ex99.train.pla"), train).unwrap();
    std::fs::write(d.path().join("suite/ex99.valid.pla"), &valid).unwrap();
    let out = circuitlearn(
        &[
            "iwls",
            "--train",
            "suite/ex99.train.pla",
            "--valid",
            "suite/ex99.valid.pla",
            "-o",
            "ex99.aig",
            "--max-and",
            "300",
            "--json",
        ],
        d.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    let (acc, ands) = (j["aig_valid_accuracy"].as_f64().unwrap(), j["and_nodes"].as_u64().unwrap());
    assert!(acc >= 0.9 && ands <= 300, "{j}");
    assert!(j["cv_accuracy"].as_f64().unwrap() >= 0.9 && j["valid_accuracy"].as_f64().unwrap() >= 0.9, "{j}");
    let (aig, _) = read_aiger(&d.path().join("ex99.aig")).unwrap();
    assert_eq!(aig.n_ands() as u64, ands);
    let correct = (0..1024u32)
        .filter(|v| v % 4 == 0)
        .filter(|&v| {
            let x: Vec<bool> = (0..10).map(|i| v >> i & 1 == 1).collect();
            aig.eval_one(&x)[0] == ((v & 31) < (v >> 5))
        })
        .count();
    assert!((correct as f64 / 256.0 - acc).abs() < 1e-9);
    for _ in 0..2 {
        let s = circuitlearn(&["iwls-suite", "suite", "--out", "res"], d.path());
        assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    }
    let tsv = std::fs::read_to_string(d.path().join("res/results.tsv")).unwrap();
    assert_eq!(tsv.lines().count(), 2, "{tsv}");
    assert!(
        tsv.starts_with(
            "ex\tinputs\tcv_accuracy\tvalid_accuracy\taig_valid_accuracy\tand_nodes\tseconds\tmodel\nex99\t10\t"
        ),
        "{tsv}"
    );
}

/// The sum bit of an adder (bit 9 of `a + b` for 10-bit `a`, `b`, random examples) is out
/// of reach of trees and symmetric models; `iwls` finds the operand pair, learns the
/// carry as a threshold function and gets it nearly right on validation.
#[test]
fn iwls_learns_an_adder_sum_bit_as_a_threshold_xor_pair() {
    use rand::{RngExt, SeedableRng};
    let d = tempfile::tempdir().unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut pla = |rows: usize| {
        let mut s = String::from(".i 20\n.o 1\n.type fr\n");
        for _ in 0..rows {
            let (a, b) = (rng.random_range(0..1024u32), rng.random_range(0..1024u32));
            let bits: String = (0..20).map(|i| if (a | b << 10) >> i & 1 == 1 { '1' } else { '0' }).collect();
            s.push_str(&format!("{bits} {}\n", (a + b) >> 9 & 1));
        }
        s
    };
    std::fs::write(d.path().join("add.train.pla"), pla(3000)).unwrap();
    std::fs::write(d.path().join("add.valid.pla"), pla(1000)).unwrap();
    let out = circuitlearn(
        &["iwls", "--train", "add.train.pla", "--valid", "add.valid.pla", "-o", "add.aig", "--json"],
        d.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    assert!(j["valid_accuracy"].as_f64().unwrap() >= 0.97, "{j}");
    assert!(j["model"].as_str().unwrap().contains("xor inputs [9, 19]"), "{j}");
}

/// `plot` draws one point per run from the runs' metrics.json (two training paths, two
/// colours) and refuses a file that is not a metrics.json with one line and exit 2.
#[test]
fn plot_draws_runs_and_rejects_non_metrics() {
    let d = tempfile::tempdir().unwrap();
    for (run, path, ands, acc) in
        [("a", "rda", 1200, 0.8), ("b", "relaxed", 40000, 0.88), ("c", "rda", 9000, 0.83)]
    {
        std::fs::create_dir(d.path().join(run)).unwrap();
        let m = format!(r#"{{"training_path":"{path}","and_nodes":{ands},"test_accuracy":{acc}}}"#);
        std::fs::write(d.path().join(run).join("metrics.json"), m).unwrap();
    }
    let out = circuitlearn(&["plot", "a", "b", "c/metrics.json", "-o", "p.svg"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(d.path().join("p.svg")).unwrap();
    assert_eq!(svg.matches("<circle").count(), 3 + 2, "3 points and 2 legend entries: {svg}");
    // A smooth model (an MLP) is not a circuit: skipped, not an error.
    std::fs::write(d.path().join("mlp.json"), r#"{"domain":"smooth","and_nodes":null,"test_accuracy":0.88}"#)
        .unwrap();
    let out = circuitlearn(&["plot", "a", "b", "c", "mlp.json", "-o", "q.svg"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("skipped mlp.json"));
    let svg = std::fs::read_to_string(d.path().join("q.svg")).unwrap();
    assert_eq!(svg.matches("<circle").count(), 3 + 2, "{svg}");
    std::fs::write(d.path().join("x.json"), r#"{"test_accuracy":0.5}"#).unwrap();
    assert_bad_input(&["plot", "x.json"], d.path(), "x.json: no number \"and_nodes\"");
    assert_bad_input(&["plot", "missing"], d.path(), "missing");
}

/// `plot` also reads `.tsv` tables of points (any column order, extra columns ignored,
/// `#` lines skipped, series from a column or else the file name), mixed with runs; a
/// malformed table is one line naming file and line, exit 2, and nothing is written.
#[test]
fn plot_reads_tsv_points_and_rejects_malformed_tables() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("run")).unwrap();
    std::fs::write(
        d.path().join("run/metrics.json"),
        r#"{"training_path":"rda","and_nodes":1200,"test_accuracy":0.8}"#,
    )
    .unwrap();
    std::fs::write(
        d.path().join("v.tsv"),
        "# variants\nsource\ttest_accuracy\tlabel\tseries\tand_nodes\n\
         s1\t0.8809\tseed 0\trelaxed gates\t45210\n# a comment\n\n\
         s2\t0.8214\tpure\tRDA votes\t30125\ns3\t0.872\tdifflogic\tpublished\t48000\n",
    )
    .unwrap();
    std::fs::write(d.path().join("bare.tsv"), "and_nodes\ttest_accuracy\n9000\t0.83\n").unwrap();
    let out = circuitlearn(&["plot", "run", "v.tsv", "bare.tsv", "-o", "p.svg"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("plotted 5 points"));
    let svg = std::fs::read_to_string(d.path().join("p.svg")).unwrap();
    // 5 points; series rda, relaxed gates, RDA votes, published, bare.tsv.
    assert_eq!(svg.matches("<circle").count(), 5 + 5, "{svg}");
    assert!(svg.contains("<title>seed 0: 45210 ANDs, 0.8809</title>"), "{svg}");
    assert!(svg.contains(">RDA votes<") && svg.contains(">bare.tsv<"), "{svg}");
    for (name, text, needle) in [
        ("nox.tsv", "test_accuracy\tlabel\n0.8\ta\n", "nox.tsv:1: no column \"and_nodes\""),
        ("short.tsv", "# c\nand_nodes\ttest_accuracy\n100\t0.5\n200\n", "short.tsv:4: 1 fields"),
        (
            "nan.tsv",
            "and_nodes\ttest_accuracy\n100\t0.5\n1e3\tNaN\n",
            "nan.tsv:3: test_accuracy: not a number",
        ),
        (
            "word.tsv",
            "and_nodes\ttest_accuracy\n4.5K\t0.5\n",
            "word.tsv:2: and_nodes: not a number: \"4.5K\"",
        ),
        (
            "twice.tsv",
            "and_nodes\tlabel\ttest_accuracy\tlabel\n",
            "twice.tsv:1: column \"label\" named twice",
        ),
        ("empty.tsv", "# only a comment\n", "empty.tsv: no header"),
        ("noacc.tsv", "and_nodes\tlabel\n", "noacc.tsv:1: no accuracy column"),
        (
            "both.tsv",
            "and_nodes\ttest_accuracy\tvalid_accuracy\n",
            "both.tsv:1: both test_accuracy and valid_accuracy",
        ),
    ] {
        std::fs::write(d.path().join(name), text).unwrap();
        assert_bad_input(&["plot", "run", name, "-o", "bad.svg"], d.path(), needle);
        assert!(!d.path().join("bad.svg").exists(), "{name}: nothing written on error");
    }
}

/// A run scored on a validation fold (its metrics.json names the fold) and a table of
/// `valid_accuracy` plot validation accuracy, axis and title saying so; a plot that
/// would put them beside test accuracies is refused, naming a file of each, exit 2.
#[test]
fn plot_keeps_validation_and_test_accuracies_apart() {
    let d = tempfile::tempdir().unwrap();
    for (run, validation) in [("fold", r#","validation":{"fold":6,"folds":6}"#), ("test", "")] {
        std::fs::create_dir(d.path().join(run)).unwrap();
        let m =
            format!(r#"{{"training_path":"relaxed","and_nodes":32000,"test_accuracy":0.89{validation}}}"#);
        std::fs::write(d.path().join(run).join("metrics.json"), m).unwrap();
    }
    std::fs::write(d.path().join("v.tsv"), "and_nodes\tvalid_accuracy\tlabel\n41788\t0.8944\twide\n")
        .unwrap();
    let out = circuitlearn(&["plot", "fold", "v.tsv", "-o", "v.svg"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(d.path().join("v.svg")).unwrap();
    assert!(svg.contains("Validation accuracy against AIG AND nodes"), "{svg}");
    assert!(svg.contains(">validation accuracy<") && !svg.contains("test accuracy"), "{svg}");
    assert!(svg.contains("<title>wide: 41788 ANDs, 0.8944</title>"), "{svg}");
    let out = circuitlearn(&["plot", "test", "-o", "t.svg"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(d.path().join("t.svg")).unwrap();
    assert!(svg.contains(">test accuracy<") && !svg.contains("validation"), "{svg}");
    for mixed in [["test", "fold"], ["v.tsv", "test"]] {
        let args = ["plot", mixed[0], mixed[1], "-o", "m.svg"];
        assert_bad_input(&args, d.path(), "validation accuracies");
        assert!(!d.path().join("m.svg").exists(), "nothing written on error");
    }
}

#[test]
fn boolean_training_on_an_idx_directory_uses_its_test_split() {
    let d = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let args = ["train", "--data", dir.to_str().unwrap(), "--model", "lut:4:20x1,groupsum:10"];
    let out = circuitlearn(
        &[&args[..], &["--encoding", "uniform:3", "--epochs", "5", "--json"]].concat(),
        d.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    assert_eq!(j["domain"], "bool");
    assert_eq!((j["train_examples"].as_u64(), j["test_examples"].as_u64()), (Some(6), Some(4)));
    assert_eq!(j["input_bits"], 784 * 3);
    assert_eq!(j["encoding"], "uniform:3");
    assert!(j["test_source"].as_str().unwrap().ends_with("t10k-*"), "{j}");
    assert!(j["and_nodes"].as_u64().unwrap() > 0, "{j}");
    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(d.path().join("runs/fashion-tiny/metrics.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written["test_accuracy"], j["test_accuracy"]);
    // The directory brings its own test set.
    let both = circuitlearn(&[&args[..], &["--test", "iris"]].concat(), d.path());
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("brings its own test set"));
}

/// `--input-radius` on a Boolean LUT model over images: every first-layer LUT reads bits
/// of pixels within the radius of its first input, `model.json` carries that wiring, and
/// `eval` rebuilds the trained network from it; on data that is not an image it is one
/// error line.
#[test]
fn input_radius_wires_first_layer_luts_locally() {
    let d = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let data = dir.to_str().unwrap();
    let args = ["train", "--data", data, "--model", "lut:6:60x2:20,groupsum:10", "--encoding", "uniform:3"];
    let extra = ["--input-radius", "2", "--epochs", "3", "--hardware", "none", "--json"];
    let out = circuitlearn(&[&args[..], &extra[..]].concat(), d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    assert_eq!(j["input_radius"], 2);
    let path = d.path().join("runs/fashion-tiny/model.json");
    let model: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let first = model["learned_wiring"][0].as_array().unwrap();
    assert_eq!(first.len(), 60 * 6);
    let place = |v: &serde_json::Value| {
        let b = v.as_u64().unwrap() as usize;
        (b / 3 % 28, b / 3 / 28)
    };
    for lut in first.chunks_exact(6) {
        let (cx, cy) = place(&lut[0]);
        assert!(
            lut.iter().map(place).all(|(x, y)| x.abs_diff(cx) <= 2 && y.abs_diff(cy) <= 2),
            "LUT reads {lut:?}"
        );
    }
    let eval = circuitlearn(&["eval", "--model", path.to_str().unwrap(), "--data", data, "--json"], d.path());
    assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
    assert_eq!(last_json(&eval)["accuracy"], j["test_accuracy"]);
    assert_bad_input(
        &["train", "--data", "iris", "--model", "lut:2:8x1,groupsum:3", "--input-radius", "1"],
        d.path(),
        "--input-radius applies to image data",
    );
}

/// `--rewire` moves first-layer LUTs of a two-layer model to new sources: `model.json`
/// carries every layer's wiring, and `eval` on it agrees with train's figures on both
/// splits; without a hidden layer it is one error line.
#[test]
fn rewired_wiring_is_in_the_model_file() {
    let d = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let data = dir.to_str().unwrap();
    let args = ["train", "--data", data, "--model", "lut:6:60x2:20,groupsum:10", "--encoding", "uniform:3"];
    let run = |extra: &[&str], out: &str| {
        let more = ["--epochs", "3", "--hardware", "none", "--json", "--out", out];
        let o = circuitlearn(&[&args[..], extra, &more[..]].concat(), d.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let model = std::fs::read_to_string(d.path().join(out).join("model.json")).unwrap();
        (last_json(&o), serde_json::from_str::<serde_json::Value>(&model).unwrap())
    };
    let (_, plain) = run(&[], "plain");
    assert!(plain.get("learned_wiring").is_none());
    let (j, model) = run(&["--rewire", "0.5", "--rewire-candidates", "16"], "rewired");
    assert_eq!(
        j["rewire"],
        serde_json::json!({ "fraction": 0.5, "candidates": 16, "finalists": 16, "min_examples": 0 })
    );
    let wiring = model["learned_wiring"].as_array().unwrap();
    assert_eq!((wiring[0].as_array().unwrap().len(), wiring[1].as_array().unwrap().len()), (60 * 6, 20 * 6));
    assert!(wiring[0].as_array().unwrap().iter().all(|s| s.as_u64().unwrap() < 784 * 3));
    let path = d.path().join("rewired/model.json");
    let path = path.to_str().unwrap();
    assert_eval_matches_train(path, &j, d.path());
    assert_bad_input(
        &["train", "--data", "iris", "--model", "lut:2:8x1,groupsum:3", "--rewire", "0.5"],
        d.path(),
        "--rewire: applies to LUT models with a hidden layer",
    );
}

/// `--vote-weights`: the weights are in `model.json` (the same for any thread count),
/// `metrics.json` gives the accuracies with equal votes beside them, `eval` scores the
/// saved model as `train` did, Icarus runs its exported classifier as the Rust simulator
/// does (`verify --icarus`), and an
/// `--init` model that is not a groupsum network is refused before training.
#[test]
fn vote_weights_are_fitted_saved_and_scored() {
    let d = tempfile::tempdir().unwrap();
    let run = |threads: &str, out: &str| {
        let args = ["train", "--data", "digits", "--model", "lut:6:300x2:50,groupsum:10", "--epochs", "3"];
        let more = ["--vote-weights", "--threads", threads, "--hardware", "none", "--json", "--out", out];
        let o = circuitlearn(&[&args[..], &more[..]].concat(), d.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (last_json(&o), std::fs::read_to_string(d.path().join(out).join("model.json")).unwrap())
    };
    let (j, model) = run("2", "a");
    assert_eq!(model, run("1", "b").1, "weights differ between thread counts");
    let m: serde_json::Value = serde_json::from_str(&model).unwrap();
    assert_eq!(m["vote_weights"]["weights"].as_array().unwrap().len(), 50);
    assert_eq!(m["vote_weights"]["bias"].as_array().unwrap().len(), 10);
    assert!(j["vote_weights"]["unweighted_test_accuracy"].as_f64().is_some(), "{j}");
    let path = d.path().join("a/model.json");
    let path = path.to_str().unwrap();
    assert_eval_matches_train(path, &j, d.path());
    if common::have(&[circuitlearn::Tool::Iverilog, circuitlearn::Tool::Vvp]) {
        let verify = circuitlearn(&["verify", "--model", path, "--icarus"], d.path());
        assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stderr));
    }
    let onehot = circuitlearn(
        &[
            "train",
            "--data",
            "iris",
            "--model",
            "lut:2:8x1,onehot",
            "--epochs",
            "1",
            "--out",
            "o",
            "--hardware",
            "none",
        ],
        d.path(),
    );
    assert!(onehot.status.success(), "{}", String::from_utf8_lossy(&onehot.stderr));
    assert_bad_input(
        &["train", "--data", "iris", "--init", "o/model.json", "--vote-weights", "--out", "p"],
        d.path(),
        "--vote-weights applies to a groupsum head",
    );
}

/// A synthetic MNIST-shaped directory: 28x28 images of "0" (a ring), "1" (a bar) and "7"
/// (a diagonal, which the protocol must drop), with a few pixels flipped.
fn synthetic_digits(dir: &Path) {
    let mut state = 12345u64;
    let mut noise = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % 100 < 3
    };
    let mut split = |prefix: &str, count: usize| {
        let (mut pixels, mut labels) = (Vec::new(), Vec::new());
        for i in 0..count {
            let digit = [0u8, 1, 7][i % 3];
            for r in 0..28i32 {
                for c in 0..28i32 {
                    let d2 = (r - 14).pow(2) + (c - 14).pow(2);
                    let ink = match digit {
                        0 => (49..=100).contains(&d2),
                        1 => (13..=15).contains(&c) && (4..24).contains(&r),
                        _ => (r - c).abs() <= 1,
                    };
                    pixels.push(if ink != noise() { 200 } else { 0 });
                }
            }
            labels.push(digit);
        }
        let n = u32::try_from(count).unwrap();
        let images = circuitlearn::encode_u8(&[n, 28, 28], &pixels);
        std::fs::write(dir.join(format!("{prefix}-images-idx3-ubyte")), images).unwrap();
        std::fs::write(
            dir.join(format!("{prefix}-labels-idx1-ubyte")),
            circuitlearn::encode_u8(&[n], &labels),
        )
        .unwrap();
    };
    split("train", 80);
    split("t10k", 30);
}

#[test]
fn repro_rda_mnist_learns_zeros_from_ones_and_selects_on_validation() {
    let d = tempfile::tempdir().unwrap();
    synthetic_digits(d.path());
    let dir = d.path().to_str().unwrap();
    let args = ["repro", "rda-mnist", "--data", dir, "--pool", "40", "--steps", "120", "--json"];
    let out = circuitlearn(&args, d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = last_json(&out);
    // 54 training and 20 test images of digits 0 and 1: a pool of 40, 14 to validate.
    assert_eq!((j["pool"].as_u64(), j["valid"].as_u64(), j["test"].as_u64()), (Some(40), Some(14), Some(20)));
    assert!(j["valid_accuracy"].as_f64().unwrap() >= 0.9, "{j}");
    assert!(j["test_accuracy"].as_f64().unwrap() >= 0.9, "{j}");
    assert!(j["best_step"].as_u64().unwrap() >= 1, "the all-zero start is not the answer: {j}");
    // Without data, and with its flags on another experiment: one line, exit 2.
    assert_bad_input(&["repro", "rda-mnist"], d.path(), "needs --data DIR");
    assert_bad_input(
        &["repro", "rda-iris", "--steps", "5"],
        d.path(),
        "--steps applies only to repro rda-mnist",
    );
}

/// Every subcommand's help says each default once: clap adds `[default: X]` for an
/// argument with a default value, so a doc comment must not say it again.
#[test]
fn help_states_each_default_once() {
    let d = tempfile::tempdir().unwrap();
    let top = circuitlearn(&["--help"], d.path());
    let text = String::from_utf8_lossy(&top.stdout).into_owned();
    let subcommands: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .collect();
    assert!(subcommands.len() >= 10, "{subcommands:?}");
    for c in subcommands {
        let out = circuitlearn(&[c, "--help"], d.path());
        let help = String::from_utf8_lossy(&out.stdout);
        for line in help.lines() {
            let defaults: Vec<&str> =
                line.split("[default: ").skip(1).filter_map(|rest| rest.split(']').next()).collect();
            assert!(defaults.windows(2).all(|w| w[0] != w[1]), "{c}: a default said twice: {line}");
        }
    }
}

fn metrics_of(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
}

/// `--valid-fold I/F` cuts the training part (what the stratified test split leaves) into
/// F stratified folds and holds out fold I in the test split's place: `test_*` figures are
/// the fold's, `test_source` and `validation` say so, `eval --split test` scores the fold,
/// and the test split itself is not evaluated.
#[test]
fn a_validation_fold_takes_the_test_splits_place() {
    let d = tempfile::tempdir().unwrap();
    let train = |extra: &[&str], out: &str| {
        let args = ["train", "--data", "breast-cancer", "--model", "lut:4:16x1,groupsum:2", "--epochs", "2"];
        let o = circuitlearn(&[&args[..], &["--hardware", "none", "--out", out], extra].concat(), d.path());
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        (String::from_utf8_lossy(&o.stdout).into_owned(), metrics_of(&d.path().join(out)))
    };
    // 569 examples; the stratified 30% (64 + 107) leaves 148 + 250 = 398 to train on, cut
    // class by class into folds of 50 + 84, 49 + 83 and 49 + 83.
    let (_, plain) = train(&[], "plain");
    assert_eq!((plain["train_examples"].as_u64(), plain["test_examples"].as_u64()), (Some(398), Some(171)));
    assert!(plain.get("validation").is_none(), "{plain}");
    let (stdout, m) = train(&["--valid-fold", "2/3"], "v2");
    assert_eq!((m["train_examples"].as_u64(), m["test_examples"].as_u64()), (Some(266), Some(132)), "{m}");
    assert_eq!(m["validation"], serde_json::json!({"fold": 2, "folds": 3}));
    assert_eq!(
        m["test_source"],
        "validation fold 2/3 of the 398 training examples of breast-cancer (132 examples); the stratified \
         30% test split (seed 0) is not evaluated"
    );
    assert!(m["test_accuracy"].as_f64().is_some(), "{m}");
    assert!(
        stdout.contains(", valid ") && stdout.contains("132 examples of validation fold 2/3"),
        "{stdout}"
    );
    assert!(!stdout.contains(", test "), "{stdout}");
    let (_, last) = train(&["--valid-fold", "3/3"], "v3");
    assert_eq!((last["train_examples"].as_u64(), last["test_examples"].as_u64()), (Some(266), Some(132)));
    let (_, first) = train(&["--valid-fold", "1/3"], "v1");
    assert_eq!((first["train_examples"].as_u64(), first["test_examples"].as_u64()), (Some(264), Some(134)));
    // The run records the option; eval --split test rebuilds the fold and scores it.
    let config = std::fs::read_to_string(d.path().join("v2/config.toml")).unwrap();
    assert!(config.contains("valid-fold = \"2/3\""), "{config}");
    let e = circuitlearn(&["eval", "--model", "v2/model.json", "--split", "test", "--json"], d.path());
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    let j = last_json(&e);
    assert_eq!((j["examples"].as_u64(), &j["accuracy"]), (Some(132), &m["test_accuracy"]), "{j}");
    assert!(j["data"].as_str().unwrap().starts_with("validation fold 2/3"), "{j}");
    // Image data: fold 1/3 of fashion-tiny's six training images (labels 9 0 0 3 0 2: the
    // first of each class's parts, four images); its t10k images are not scored.
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    for model in ["lut:4:20x1,groupsum:10", "gates:40x2", "mlp:8"] {
        let args = ["train", "--data", tiny.to_str().unwrap(), "--model", model, "--epochs", "1"];
        let o = circuitlearn(
            &[&args[..], &["--valid-fold", "1/3", "--hardware", "none", "--json"]].concat(),
            d.path(),
        );
        assert!(o.status.success(), "{model}: {}", String::from_utf8_lossy(&o.stderr));
        let j = last_json(&o);
        assert_eq!((j["train_examples"].as_u64(), j["test_examples"].as_u64()), (Some(2), Some(4)), "{j}");
        assert_eq!(
            j["test_source"],
            "validation fold 1/3 of fashion-tiny's training images (4 examples); the test split is not evaluated"
        );
    }
    // More folds than training examples (Iris leaves 105): one line, exit 2, nothing written.
    assert_bad_input(
        &["train", "--valid-fold", "2/200", "--out", "never"],
        d.path(),
        "--valid-fold: fold 2 of 200 over 105 training examples",
    );
    assert!(!d.path().join("never").exists());
}

/// The folds are stratified: fold I holds part I of each class's training examples, in
/// the order loaded; each fold's run trains on the others, so different folds hold out
/// different examples, and together they hold out every training example once.
#[test]
fn validation_folds_partition_each_class_of_the_training_part_in_load_order() {
    use circuitlearn::pipeline::{self, TrainConfig, TrainData, TrainOptions};
    let load = |data: &str, fold: Option<&str>| -> TrainData {
        let o = TrainOptions {
            data: Some(data.to_owned()),
            valid_fold: fold.map(str::to_owned),
            ..TrainOptions::default()
        };
        pipeline::load_data(&TrainConfig::resolve(&o).unwrap()).unwrap()
    };
    let part = load("breast-cancer", None).train;
    // The training part's 148 + 250 examples of its two classes, cut into parts of
    // 50, 49, 49 and 84, 83, 83.
    let members: Vec<Vec<usize>> =
        (0..2).map(|c| (0..part.labels.len()).filter(|&e| part.labels[e] == c).collect()).collect();
    assert_eq!((members[0].len(), members[1].len()), (148, 250));
    let parts = [[0..50, 50..99, 99..148], [0..84, 84..167, 167..250]];
    let mut seen = vec![0; part.labels.len()];
    let folds: Vec<TrainData> = (1..=3).map(|i| load("breast-cancer", Some(&format!("{i}/3")))).collect();
    for (i, f) in folds.iter().enumerate() {
        let mut held: Vec<usize> = (0..2).flat_map(|c| members[c][parts[c][i].clone()].to_vec()).collect();
        held.sort_unstable();
        held.iter().for_each(|&e| seen[e] += 1);
        assert_eq!(f.test, part.subset(&held), "fold {}", i + 1);
        let rest: Vec<usize> = (0..part.labels.len()).filter(|e| !held.contains(e)).collect();
        assert_eq!(f.train, part.subset(&rest), "fold {}", i + 1);
    }
    assert!(seen.iter().all(|&n| n == 1), "every training example is held out once");
    assert_ne!(folds[0].test, folds[1].test);
    // Image data: fold 2/3 of fashion-tiny's six training images (labels 9 0 0 3 0 2) is
    // image 2, the second of the three of class 0 (the other classes have one image each,
    // which is part 1), in the data set and in the images the smooth domain reads.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let tiny = load(dir.to_str().unwrap(), Some("2/3"));
    assert_eq!((tiny.train.labels.as_slice(), tiny.test.labels.as_slice()), (&[9, 0, 3, 0, 2][..], &[0][..]));
    let images = circuitlearn::read_image_dir(&dir).unwrap();
    let splits = &tiny.images.as_ref().unwrap().splits;
    assert_eq!(
        (&splits.train, &splits.test),
        (&images.train.select(&[0, 1, 3, 4, 5]), &images.train.select(&[2]))
    );
}

/// `eval --predictions` writes one row per example whose predicted classes score the
/// accuracy `eval` reports and are the argmax (first on ties) of the class scores, for a
/// Boolean LUT network (vote counts), a smooth model (its outputs) and a ring model
/// (classes only); it never overwrites the model it reads.
#[test]
fn eval_writes_every_examples_prediction_and_scores() {
    let d = tempfile::tempdir().unwrap();
    let runs: [&[&str]; 3] = [
        &["--model", "lut:4:16x1,groupsum:3", "--out", "bool"],
        &["--domain", "smooth", "--model", "mlp:8", "--out", "smooth"],
        &["--ring", "z2k:16", "--frac-bits", "6", "--passes", "strash", "--out", "ring"],
    ];
    for (run, scored) in runs.into_iter().zip([true, true, false]) {
        let mut args = vec!["train", "--epochs", "3", "--hardware", "none", "--json"];
        args.extend_from_slice(run);
        let train = circuitlearn(&args, d.path());
        assert!(train.status.success(), "{}", String::from_utf8_lossy(&train.stderr));
        let dir = run[run.len() - 1];
        let (model, table) = (format!("{dir}/model.json"), format!("{dir}/p.tsv"));
        let eval = circuitlearn(
            &["eval", "--model", &model, "--split", "test", "--json", "--predictions", &table],
            d.path(),
        );
        assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
        let accuracy = last_json(&eval)["accuracy"].as_f64().unwrap();
        let text = std::fs::read_to_string(d.path().join(&table)).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let scores =
            if scored { vec!["score:setosa", "score:versicolor", "score:virginica"] } else { vec![] };
        assert_eq!(header, [vec!["example", "label", "predicted"], scores].concat(), "{dir}");
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows.len(), 45, "{dir}: iris's 30% test split");
        let mut right = 0;
        for (e, row) in rows.iter().enumerate() {
            assert_eq!(row[0], e.to_string());
            right += usize::from(row[1] == row[2]);
            if scored {
                let s: Vec<f64> = row[3..].iter().map(|v| v.parse().unwrap()).collect();
                let best = (0..s.len()).fold(0, |b, c| if s[c] > s[b] { c } else { b });
                assert_eq!(row[2], best.to_string(), "{dir} example {e}: {row:?}");
            }
        }
        assert_eq!(right as f64 / 45.0, accuracy, "{dir}");
        assert_bad_input(
            &["eval", "--model", &model, "--split", "test", "--predictions", &model],
            d.path(),
            "refusing to overwrite it (choose another output)",
        );
    }
}
