//! A run killed with SIGKILL after a checkpoint and continued with `--resume` writes the
//! same `model.json` as an uninterrupted run, for relaxed and smooth training (Boolean
//! RDA: `tests/reliability.rs`; ring descent: `tests/poly_cli.rs` and `train::tests`).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn train(args: &[&str], dir: &Path) -> std::process::Output {
    common::circuitlearn(&[&["train", "--hardware", "none"], args].concat(), dir)
}

/// Starts `train args --out killed --checkpoint-every 1`, kills it (SIGKILL) as soon as
/// its first checkpoint is on disk, resumes it, and compares its `model.json` with that
/// of an uninterrupted run of the same arguments.
fn check_kill_and_resume(what: &str, args: &[&str]) {
    check_kill_at("checkpoint.bin", what, args);
}

/// [`check_kill_and_resume`], killing the run as soon as `file` is in its directory;
/// returns the resumed run's stderr (its progress lines).
fn check_kill_at(file: &str, what: &str, args: &[&str]) -> String {
    let d = tempfile::tempdir().unwrap();
    let full = train(&[args, &["--out", "full"]].concat(), d.path());
    assert!(full.status.success(), "{what}: {}", String::from_utf8_lossy(&full.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_circuitlearn"))
        .args([&["train", "--hardware", "none", "--out", "killed", "--checkpoint-every", "1"], args].concat())
        .current_dir(d.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let checkpoint = d.path().join("killed").join(file);
    let t0 = Instant::now();
    while !checkpoint.exists() && t0.elapsed() < Duration::from_secs(600) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // SIGKILL: no chance to clean up or finish writing.
    let _ = child.kill();
    let _ = child.wait();
    assert!(checkpoint.exists(), "{what}: no checkpoint was written");
    let resumed = common::circuitlearn(&["train", "--resume", "killed"], d.path());
    assert!(resumed.status.success(), "{what}: {}", String::from_utf8_lossy(&resumed.stderr));
    let a = std::fs::read(d.path().join("full/model.json")).unwrap();
    let b = std::fs::read(d.path().join("killed/model.json")).unwrap();
    assert!(a == b, "{what}: the resumed run's model.json differs");
    String::from_utf8_lossy(&resumed.stderr).into_owned()
}

#[test]
fn relaxed_training_resumes_after_sigkill() {
    let args = [
        "--data",
        "digits",
        "--model",
        "gates:256x2",
        "--epochs",
        "8",
        "--input-candidates",
        "4",
        "--narrow-candidates",
        "2",
        "--narrow-after",
        "2",
        "--hard-choice-epochs",
        "3",
        "--hard-gate-epochs",
        "1",
        "--lr-schedule",
        "cosine",
    ];
    check_kill_and_resume("relaxed", &args);
}

/// Relaxed 3-input LUTs on digits, as the two-network runs that are killed train them.
const DIGITS_LUTS: [&str; 10] = [
    "--data",
    "digits",
    "--domain",
    "relaxed",
    "--model",
    "lut:3:256x2:40",
    "--epochs",
    "6",
    "--input-candidates",
    "4",
];

/// A boosted run killed in its first network resumes that network; killed once the
/// first has finished, it starts from the first one's kept state and trains only the
/// second. Both write the uninterrupted run's `model.json`.
#[test]
fn boosted_training_resumes_after_sigkill() {
    let args = [&DIGITS_LUTS[..], &["--hidden-candidates", "4", "--boost", "2"]].concat();
    check_kill_and_resume("boosted, first network", &args);
    let progress = check_kill_at("checkpoint-network-1.bin", "boosted, second network", &args);
    assert!(!progress.contains("network 1/2"), "the first network trained again:\n{progress}");
}

/// A cascade resumes as a boosted pair does: killed in the first network, it resumes
/// that network; killed once the first has finished, it starts from the first one's kept
/// state and trains only the specialist. Both write the uninterrupted run's `model.json`.
#[test]
fn a_cascade_resumes_after_sigkill() {
    let args = [&DIGITS_LUTS[..], &["--specialist", "3,5"]].concat();
    check_kill_and_resume("cascade, first network", &args);
    let progress = check_kill_at("checkpoint-network-1.bin", "cascade, specialist", &args);
    assert!(!progress.contains("network 1/2"), "the first network trained again:\n{progress}");
}

/// A boosted run with checkpoints keeps each finished network's state; a fresh run into
/// the same directory leaves none of them behind.
#[test]
fn a_fresh_run_removes_the_finished_networks_states() {
    let d = tempfile::tempdir().unwrap();
    let args =
        ["--data", "iris", "--domain", "relaxed", "--model", "lut:3:16x2:6", "--epochs", "2", "--out", "b"];
    let kept = train(&[&args[..], &["--boost", "2", "--checkpoint-every", "1"]].concat(), d.path());
    assert!(kept.status.success(), "{}", String::from_utf8_lossy(&kept.stderr));
    let states = ["b/checkpoint-network-1.bin", "b/checkpoint-network-2.bin"];
    assert!(states.iter().all(|f| d.path().join(f).exists()), "each finished network's state");
    let fresh = train(&args, d.path());
    assert!(fresh.status.success(), "{}", String::from_utf8_lossy(&fresh.stderr));
    assert!(states.iter().all(|f| !d.path().join(f).exists()), "a fresh run keeps no earlier state");
}

#[test]
fn smooth_training_resumes_after_sigkill() {
    check_kill_and_resume(
        "smooth",
        &["--data", "digits", "--model", "mlp:64", "--optimizer", "nesterov", "--epochs", "10"],
    );
}

#[test]
fn resume_refuses_other_options_and_a_missing_checkpoint() {
    let d = tempfile::tempdir().unwrap();
    let run = train(&["--epochs", "2", "--out", "r", "--checkpoint-every", "1"], d.path());
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let other = common::circuitlearn(&["train", "--resume", "r", "--epochs", "5"], d.path());
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains("--epochs") && err.lines().count() == 1, "{err}");
    let none = common::circuitlearn(&["train", "--resume", "nowhere"], d.path());
    assert_eq!(none.status.code(), Some(2), "{}", String::from_utf8_lossy(&none.stderr));
}

/// One run per directory: a live run's lock refuses a second one; a killed run's stale
/// lock is taken over; a finished run leaves neither the lock nor the INCOMPLETE marker,
/// and no file of an earlier run in the same directory.
#[test]
fn a_run_directory_belongs_to_one_run() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    std::fs::create_dir_all(out.join("verilog")).unwrap();
    std::fs::write(out.join("verilog/old.v"), "module old; endmodule\n").unwrap();
    // This test's own process is alive: its lock stands.
    std::fs::write(out.join(".lock"), format!("{}\n", std::process::id())).unwrap();
    let o = train(&["--epochs", "1", "--out", "r"], d.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("another run") && err.trim().lines().count() == 1, "{err}");
    // No process has this id (above Linux's pid_max): the lock is stale.
    std::fs::write(out.join(".lock"), "4294967295\n").unwrap();
    let o = train(&["--epochs", "1", "--out", "r"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for gone in [".lock", "INCOMPLETE", "verilog/old.v"] {
        assert!(!out.join(gone).exists(), "{gone} is left");
    }
    assert!(out.join("model.json").exists() && out.join("classifier.aig").exists());
}
