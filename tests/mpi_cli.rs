//! Data-parallel training under `mpirun` (feature `mpi`): `-np 2` and `-np 3` (uneven
//! shards) write byte-identical `model.json` files to `-np 1` and to the build without
//! the feature (the pins of `tests/golden.rs`, recorded by that build), for Boolean vote
//! counting, relaxed gates and a smooth MLP; a checkpoint written by 2 ranks resumes on
//! 3; a rank that dies ends the job with a non-zero exit. Skips (with a printed reason)
//! when `mpirun` is missing, unless `CIRCUITLEARN_REQUIRE_TOOLS=1`.
#![cfg(feature = "mpi")]

mod common;

use common::pinned::{
    IRIS_DEFAULT, Pinned, RELAXED_BOOSTED, RELAXED_CASCADE, RELAXED_GATES, RELAXED_PHASES, SMOOTH_MLP, fnv1a,
};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn mpirun_found() -> bool {
    let ok = Command::new("mpirun").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(!common::tools_required(), "CIRCUITLEARN_REQUIRE_TOOLS=1, but mpirun is not installed");
        eprintln!("mpi_cli: skipped: mpirun not found (apt-get install -y openmpi-bin libopenmpi-dev)");
    }
    ok
}

fn mpirun_command(np: usize, dir: &Path) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_circuitlearn"))
        .current_dir(dir)
        // One thread per rank: the machine running the tests has few cores.
        .env("RAYON_NUM_THREADS", "1");
    c
}

/// `mpirun -np N circuitlearn args` in `dir`.
fn mpirun(np: usize, args: &[&str], dir: &Path) -> Output {
    mpirun_command(np, dir).args(args).output().unwrap()
}

/// `train args --out OUT` under `np` ranks; the bytes of `OUT/model.json`.
fn train(np: usize, args: &[&str], out: &str, dir: &Path) -> Vec<u8> {
    let all = [&["train", "--hardware", "none", "--threads", "1", "--out", out][..], args].concat();
    let o = mpirun(np, &all, dir);
    assert!(o.status.success(), "-np {np} train {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(dir.join(out).join("model.json")).unwrap()
}

/// The same model.json for 1, 2 and 3 ranks, and (when pinned) the golden length and
/// hash of the build without the feature.
fn check_ranks(what: &str, args: &[&str], pin: Option<(usize, u64)>) {
    let d = tempfile::tempdir().unwrap();
    let one = train(1, args, "np1", d.path());
    if let Some(pin) = pin {
        assert_eq!((one.len(), fnv1a(&one)), pin, "{what}: -np 1 differs from the build without mpi");
    }
    for np in [2, 3] {
        let many = train(np, args, &format!("np{np}"), d.path());
        assert!(many == one, "{what}: -np {np} model.json differs from -np 1");
    }
    // Only rank 0 wrote: one run directory per run, nothing else.
    let mut entries: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    entries.sort();
    assert_eq!(entries, ["np1", "np2", "np3"], "{what}: files outside the run directories");
}

/// [`check_ranks`] for a recipe pinned in `tests/golden.rs`.
fn check_recipe(r: &Pinned) {
    check_ranks(r.what, r.args, Some(r.pin()));
}

#[test]
fn boolean_votes_are_identical_for_any_rank_count() {
    if !mpirun_found() {
        return;
    }
    check_recipe(&IRIS_DEFAULT);
}

#[test]
fn relaxed_gates_are_identical_for_any_rank_count() {
    if !mpirun_found() {
        return;
    }
    check_recipe(&RELAXED_GATES);
    check_recipe(&RELAXED_PHASES);
    check_recipe(&RELAXED_BOOSTED);
    check_recipe(&RELAXED_CASCADE);
    // Three chunks of 128 a batch: -np 2 splits them 2 + 1, -np 3 one each.
    check_ranks("relaxed gates:256x2, digits", &relaxed_digits("10"), Some(RELAXED_PIN));
}

/// Relaxed `gates:256x2` on digits for `epochs`, batch 384 (three chunks of 128).
fn relaxed_digits(epochs: &str) -> [&str; 10] {
    [
        "--domain",
        "relaxed",
        "--data",
        "digits",
        "--model",
        "gates:256x2",
        "--epochs",
        epochs,
        "--batch",
        "384",
    ]
}

/// Length and FNV-1a of the `model.json` of the digits run of
/// `relaxed_gates_are_identical_for_any_rank_count` by the build without the feature
/// (recorded 2026-12-02).
const RELAXED_PIN: (usize, u64) = (20633, 0x207d_44fe_1fc8_d678);

#[test]
fn a_smooth_mlp_is_identical_for_any_rank_count() {
    if !mpirun_found() {
        return;
    }
    check_recipe(&SMOOTH_MLP);
    // Three chunks of 128 a batch, as for the relaxed run.
    let args = [
        "--domain", "smooth", "--data", "digits", "--model", "mlp:16", "--epochs", "10", "--batch", "384",
        "--lr", "0.01",
    ];
    check_ranks("smooth mlp:16, digits", &args, Some(SMOOTH_PIN));
}

/// Length and FNV-1a of the `model.json` of the digits run of
/// `a_smooth_mlp_is_identical_for_any_rank_count` by the build without the feature
/// (recorded 2026-12-02).
const SMOOTH_PIN: (usize, u64) = (14705, 0xd8b6_1fbe_1589_59cd);

#[test]
fn a_checkpoint_of_two_ranks_resumes_on_three_and_a_dead_rank_fails_the_job() {
    if !mpirun_found() {
        return;
    }
    let votes = ["--data", "digits", "--model", "lut:6:256x1,groupsum:10", "--epochs", "8", "--batch", "64"];
    kill_on_two_and_resume_on_three("votes", &votes);
    kill_on_two_and_resume_on_three("relaxed", &relaxed_digits("30"));
}

/// Trains `args` on 2 ranks, kills rank 1 after the first checkpoint, checks the job
/// failed, resumes on 3 ranks and compares with the uninterrupted single-rank run.
fn kill_on_two_and_resume_on_three(what: &str, args: &[&str]) {
    let d = tempfile::tempdir().unwrap();
    let full = train(1, args, "full", d.path());
    // Rank 1 is killed (SIGKILL) once rank 0 has written its first checkpoint.
    let mut child = mpirun_command(2, d.path())
        .args(["train", "--hardware", "none", "--threads", "1", "--out", "killed", "--checkpoint-every", "1"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let checkpoint = d.path().join("killed/checkpoint.bin");
    let t0 = Instant::now();
    while !checkpoint.exists() && t0.elapsed() < Duration::from_secs(300) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let ranks = Command::new("pgrep").args(["-P", &child.id().to_string()]).output().unwrap();
    let pids: Vec<String> = String::from_utf8_lossy(&ranks.stdout).lines().map(str::to_owned).collect();
    if let Some(pid) = pids.get(1) {
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
    let out = child.wait_with_output().unwrap();
    assert!(checkpoint.exists(), "{what}: no checkpoint was written");
    if pids.len() == 2 {
        assert!(!out.status.success(), "{what}: a job with a dead rank exited 0");
    }
    // The job's other rank is ended by mpirun; wait until it has gone (it held the lock).
    let t0 = Instant::now();
    while pids.iter().any(|p| Path::new(&format!("/proc/{p}")).exists())
        && t0.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = mpirun(3, &["train", "--resume", "killed"], d.path());
    assert!(o.status.success(), "{what}: resume on 3 ranks: {}", String::from_utf8_lossy(&o.stderr));
    let resumed = std::fs::read(d.path().join("killed/model.json")).unwrap();
    assert!(resumed == full, "{what}: the run resumed on 3 ranks differs from the uninterrupted one");
}

/// `results.tsv` without its `seconds` column.
fn without_seconds(tsv: &str) -> Vec<String> {
    let seconds = tsv
        .lines()
        .next()
        .and_then(|h| h.split('\t').position(|c| c == "seconds"))
        .expect("a seconds column");
    tsv.lines()
        .map(|l| {
            l.split('\t')
                .enumerate()
                .filter(|&(i, _)| i != seconds)
                .map(|(_, f)| f)
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect()
}

#[test]
fn iwls_suite_over_ranks_writes_what_one_process_writes() {
    if !mpirun_found() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/iwls2020");
    let suite = |np: usize, out: &str| {
        let o = mpirun(
            np,
            &["iwls-suite", &data.display().to_string(), "--out", out, "--max-and", "300"],
            d.path(),
        );
        assert!(o.status.success(), "-np {np} iwls-suite: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(d.path().join(out).join("results.tsv")).unwrap()
    };
    let one = suite(1, "np1");
    assert_eq!(one.lines().count(), 3, "a header and two benchmarks: {one}");
    // Three ranks for two benchmarks: one rank gets nothing to do.
    for np in [2, 3] {
        let out = format!("np{np}");
        assert_eq!(without_seconds(&suite(np, &out)), without_seconds(&one), "-np {np} results.tsv");
        for ex in ["ex30", "ex75"] {
            let a = std::fs::read(d.path().join("np1").join(format!("{ex}.aig"))).unwrap();
            let b = std::fs::read(d.path().join(&out).join(format!("{ex}.aig"))).unwrap();
            assert!(a == b, "-np {np}: {ex}.aig differs");
        }
    }
}

#[test]
fn a_sweep_over_ranks_writes_what_one_process_writes() {
    if !mpirun_found() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("grid.toml"),
        "[set]\ndata = \"iris\"\nepochs = 2\nhardware = \"none\"\n[grid]\nmodel = [\"lut:4:16x1,groupsum:3\", \"lut:4:32x1,groupsum:3\"]\nseed = [0, 1]\n",
    )
    .unwrap();
    let sweep = |np: usize, out: &str| {
        let o = mpirun(np, &["sweep", "--grid", "grid.toml", "-o", out], d.path());
        assert!(o.status.success(), "-np {np} sweep: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(d.path().join(out).join("results.tsv")).unwrap()
    };
    let one = sweep(1, "np1");
    assert_eq!(one.lines().count(), 5, "a header and four points: {one}");
    let two = sweep(2, "np2");
    assert_eq!(without_seconds(&two), without_seconds(&one), "-np 2 results.tsv");
    for p in ["p000", "p001", "p002", "p003"] {
        let read = |dir: &str| std::fs::read(d.path().join(dir).join(p).join("model.json")).unwrap();
        assert!(read("np1") == read("np2"), "-np 2: {p}/model.json differs");
    }
}
