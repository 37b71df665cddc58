//! Reliability guarantees of the command line: a training run killed with SIGKILL and
//! resumed from its checkpoint ends with the model of an uninterrupted run; the same data,
//! seed and thread count give byte-identical model files and Verilog in every domain the
//! tool trains; hostile input files give one error line and exit status 2.

mod common;

use circuitlearn::{Checkpoint, RdaEpoch};
use common::circuitlearn;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Digits, a 10-class LUT network: long enough (a fraction of a second per epoch) to be
/// killed between checkpoints.
const LONG_RUN: [&str; 14] = [
    "train",
    "--data",
    "digits",
    "--model",
    "lut:6:200x1,groupsum:10",
    "--epochs",
    "8",
    "--threads",
    "2",
    "--passes",
    "strash",
    "--out",
    "run",
    "--json",
];

#[cfg(unix)]
#[test]
fn a_run_killed_mid_way_resumes_to_the_uninterrupted_model() {
    let (whole, killed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let o = circuitlearn(&LONG_RUN, whole.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let mut args = LONG_RUN.to_vec();
    args.extend(["--checkpoint-every", "1"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_circuitlearn"))
        .args(&args)
        .current_dir(killed.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let checkpoint = killed.path().join("run/checkpoint.bin");
    let t0 = Instant::now();
    while !checkpoint.exists() {
        assert!(t0.elapsed() < Duration::from_secs(300), "no checkpoint after 5 minutes");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first checkpoint");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let saved = Checkpoint::<RdaEpoch>::from_bytes(&read(&checkpoint)).unwrap();
    let done = saved.epoch();
    assert!(done < 8, "killed after the last epoch ({done}); the test needs a longer run");
    assert!(!killed.path().join("run/model.json").exists(), "the killed run wrote its model");

    let o = circuitlearn(&["train", "--resume", "run", "--json"], killed.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for file in ["run/model.json", "run/verilog/run.v", "run/verilog/run_tb.v", "run/verilog/run.mem"] {
        assert!(read(whole.path().join(file)) == read(killed.path().join(file)), "{file} differs");
    }
}

/// Boolean domain: two runs with the same data, seed and thread count write the same
/// bytes (model, Verilog, testbench); so does a run with another thread count.
#[test]
fn boolean_training_is_byte_for_byte_reproducible() {
    let run = |threads: &str| {
        let d = tempfile::tempdir().unwrap();
        let o = circuitlearn(
            &["train", "--data", "wine", "--epochs", "4", "--threads", threads, "--out", "run", "--json"],
            d.path(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        ["run/model.json", "run/verilog/run.v", "run/verilog/run_tb.v", "run/verilog/run.mem"]
            .map(|f| read(d.path().join(f)))
    };
    let first = run("2");
    assert!(first == run("2"), "same thread count, different files");
    assert!(first == run("1"), "another thread count, different files");
}

/// Smooth domain (an f32 MLP) and relaxed logic (discretised gate network, with its
/// Verilog): the same seed and thread count give byte-identical files; for the MLP another
/// thread count does too (its reductions run in a fixed order).
#[test]
fn smooth_and_relaxed_training_are_byte_for_byte_reproducible() {
    let run = |model: &str, threads: &str, files: &[&str]| {
        let d = tempfile::tempdir().unwrap();
        let o = circuitlearn(
            &[
                "train",
                "--domain",
                "smooth",
                "--data",
                "wine",
                "--model",
                model,
                "--epochs",
                "5",
                "--threads",
                threads,
                "--out",
                "run",
                "--json",
            ],
            d.path(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        files.iter().map(|f| read(d.path().join(f))).collect::<Vec<_>>()
    };
    let mlp = ["run/model.json"];
    let first = run("mlp:16", "2", &mlp);
    assert!(first == run("mlp:16", "2", &mlp), "smooth: same thread count, different model.json");
    assert!(first == run("mlp:16", "1", &mlp), "smooth: another thread count, different model.json");
    let relaxed = ["run/model.json", "run/verilog/run.v"];
    let first = run("gates:64x2", "2", &relaxed);
    assert!(first == run("gates:64x2", "2", &relaxed), "relaxed: different files");
    assert!(first == run("gates:64x2", "1", &relaxed), "relaxed: another thread count, different files");
}

/// Ring domain (fixed-point polynomial circuits over Z_(2^64), the polycirc Iris model):
/// trained parameters and word-level Verilog are identical whatever the thread pool.
#[test]
fn ring_training_is_byte_for_byte_reproducible() {
    use circuitlearn::{bind_ring_params, polycirc_iris, z2k_verilog};
    let iris = circuitlearn::load_dataset("iris").unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let r = polycirc_iris(&iris).unwrap();
            (r.params.clone(), z2k_verilog(&bind_ring_params(&r.model, &r.params).unwrap(), "iris_fixed"))
        })
    };
    let first = run(2);
    assert!(first.1.contains("module iris_fixed"));
    assert_eq!(first, run(2));
    assert_eq!(first, run(1));
}

/// Runs `args` in a directory holding `files` and expects exit status 2 with exactly one
/// line on stderr that contains `want`.
fn refused(args: &[&str], files: &[(&str, &[u8])], want: &str) {
    let d = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(d.path().join(name), content).unwrap();
    }
    let o = circuitlearn(args, d.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one error line expected: {err}");
    assert!(err.contains(want), "{args:?}: expected '{want}' in: {err}");
}

#[test]
fn hostile_inputs_give_one_line_and_exit_2() {
    let blif_loop: &[u8] = b".model m\n.inputs a\n.outputs y\n.names a z y\n11 1\n.names y z\n0 1\n.end\n";
    refused(
        &["opt", "loop.blif", "--passes", "strash", "-o", "o.aig"],
        &[("loop.blif", blif_loop)],
        "loop.blif:4: combinational loop through y -> z -> y",
    );
    let huge: &[u8] = b"aig 1099511627776 1099511627776 0 0 0\n";
    refused(
        &["cec", "huge.aig", "huge.aig"],
        &[("huge.aig", huge)],
        "huge.aig:1: header claims M = 1099511627776",
    );
    let narrow_row: &[u8] = b".i 4\n.o 1\n0101 1\n011 0\n";
    refused(
        &["train", "--data", "w.pla"],
        &[("w.pla", narrow_row)],
        "w.pla:4: input part has 3 characters, expected 4",
    );
    let newer: &[u8] = br#"{"format_version": 2, "dataset": "iris", "future_field": true}"#;
    refused(
        &["eval", "--model", "model.json", "--data", "iris"],
        &[("model.json", newer)],
        "model.json: model format version 2, this build reads version 1",
    );
    // A model file whose size fields ask for 2^40 inputs: refused before anything is built.
    let wide = br#"{"format_version": 1, "dataset": "d", "spec": "pseudolinear", "seed": 0,
        "n_inputs": 1099511627776, "class_names": ["a", "b"], "optimizer": "rda", "params": "0",
        "encoder": {"encoding": "Threshold", "input": {"Bits": {"n": 1099511627776}}}}"#;
    refused(
        &["export", "--model", "model.json", "-o", "m.v"],
        &[("model.json", wide)],
        "model.json: params must be",
    );
    refused(
        &["train", "--model", "lut:6:4000000000x4000000000"],
        &[],
        "needs more than 1073741824 parameters",
    );
    refused(&["train", "--resume", "nowhere"], &[], "cannot resume: nowhere/config.toml: cannot read");
}

/// Every file the tool writes goes through `io::write_atomic` (temporary file + rename),
/// so a killed run never leaves a truncated file where a good one was: no other code
/// outside tests creates or writes files directly.
#[test]
fn every_file_write_goes_through_write_atomic() {
    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut stragglers = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("io/atomic.rs")) {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (i, line) in code.lines().enumerate() {
            if ["fs::write(", "File::create(", "OpenOptions"].iter().any(|w| line.contains(w)) {
                stragglers.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(stragglers.is_empty(), "files written without write_atomic:\n{}", stragglers.join("\n"));
}
