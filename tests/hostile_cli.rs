//! Reliability of the command line against careless and hostile use (issue 22): an output
//! that is an input is refused unless `--force`; hand-edited model files are refused when
//! read, by every command; data and encodings are sized before they are allocated, so a
//! decompression bomb or a huge declared size is one error line with exit status 2 — also
//! under an address-space limit (`RLIMIT_AS`), where an allocation failure would abort.

mod common;

use common::circuitlearn;
use std::io::Write;
#[cfg(target_os = "linux")]
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Output;

const BLIF: &[u8] = b".model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Expects exit status 2 and one error line containing `want`.
fn refused(o: &Output, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "expected '{want}', got: {err}");
    assert_eq!(err.lines().count(), 1, "one error line expected: {err}");
    assert!(err.contains(want), "expected '{want}' in: {err}");
}

fn gzip(bytes: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for chunk in bytes {
        enc.write_all(&chunk).unwrap();
    }
    enc.finish().unwrap()
}

/// A one-epoch Iris model in `dir/run/model.json`.
fn train_iris(dir: &Path) {
    let o = circuitlearn(&["train", "--data", "iris", "--epochs", "1", "--out", "run", "--json"], dir);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn outputs_that_resolve_to_inputs_are_refused_unless_forced() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.blif"), BLIF).unwrap();
    std::fs::write(p.join("t.pla"), b".i 2\n.o 1\n00 0\n01 1\n10 1\n11 0\n").unwrap();
    std::fs::hard_link(p.join("a.blif"), p.join("hard.blif")).unwrap();
    std::fs::hard_link(p.join("a.blif"), p.join("m_tb.v")).unwrap();
    let o = circuitlearn(&["opt", "a.blif", "--passes", "strash", "-o", "a.aig"], p);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::create_dir(p.join("run")).unwrap();
    std::fs::write(p.join("run/metrics.json"), b"{\"and_nodes\": 3, \"test_accuracy\": 0.5}\n").unwrap();
    let refuse = "refusing to overwrite it (choose another output or give --force)";
    for args in [
        &["opt", "a.blif", "-o", "a.blif"][..],
        &["opt", "a.blif", "-o", "./a.blif"],
        &["opt", "a.blif", "-o", "hard.blif"],
        &["opt", "a.aig", "-o", "a.aig"],
        &["opt", "a.aig", "-o", "x.aag", "--care", "t.pla"],
        &["opt", "a.aig", "-o", "t.pla", "--care", "t.pla"],
        &["export", "--circuit", "a.blif", "-o", "a.blif"],
        &["export", "--circuit", "a.blif", "--format", "verilog", "-o", "hard.blif"],
        &["export", "--circuit", "a.blif", "-o", "b.v", "--testbench", ".", "--name", "m"],
        &["iwls", "--train", "t.pla", "--valid", "t.pla", "-o", "t.pla"],
        &["plot", "run", "-o", "run/metrics.json"],
        &["verify", "--circuit", "a.blif", "--work", "."],
    ] {
        let before = (std::fs::read(p.join("a.blif")).unwrap(), std::fs::read(p.join("t.pla")).unwrap());
        let o = circuitlearn(args, p);
        if args[0] == "opt" && args.contains(&"x.aag") {
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            continue;
        }
        refused(&o, refuse);
        let after = (std::fs::read(p.join("a.blif")).unwrap(), std::fs::read(p.join("t.pla")).unwrap());
        assert!(before == after, "{args:?} changed an input");
    }
    let o = circuitlearn(&["opt", "a.blif", "-o", "a.blif", "--force"], p);
    assert!(o.status.success(), "{}", stderr(&o));

    // A model file: the trained model is not replaced by its own export.
    train_iris(p);
    let model = std::fs::read(p.join("run/model.json")).unwrap();
    let o = circuitlearn(
        &["export", "--model", "run/model.json", "--format", "verilog", "-o", "run/model.json"],
        p,
    );
    refused(&o, refuse);
    assert_eq!(std::fs::read(p.join("run/model.json")).unwrap(), model);
}

/// Edits `run/model.json` with `edit` and expects every command that reads it to refuse
/// it with one line containing `want`.
fn every_reader_refuses(dir: &Path, edit: impl Fn(&mut serde_json::Value), want: &str) {
    let good: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("run/model.json")).unwrap()).unwrap();
    let mut v = good.clone();
    edit(&mut v);
    std::fs::write(dir.join("bad.json"), v.to_string()).unwrap();
    for args in [
        &["eval", "--model", "bad.json", "--data", "iris"][..],
        &["export", "--model", "bad.json", "-o", "bad.v"],
        &["verify", "--model", "bad.json", "--icarus", "--work", "w"],
        &["train", "--data", "iris", "--init", "bad.json", "--epochs", "1", "--out", "r2"],
    ] {
        let o = circuitlearn(args, dir);
        refused(&o, want);
        assert!(stderr(&o).contains("bad.json"), "{args:?}: the file is not named: {}", stderr(&o));
    }
    assert!(!dir.join("bad.v").exists(), "a wrong-width module was written");
}

#[test]
fn hand_edited_model_files_are_refused_when_read() {
    let d = tempfile::tempdir().unwrap();
    train_iris(d.path());
    every_reader_refuses(
        d.path(),
        |v| v["n_inputs"] = 31.into(),
        "n_inputs is 31 but the encoder gives 32 bits",
    );
    every_reader_refuses(
        d.path(),
        |v| v["encoder"]["input"]["Real"]["codes"][2]["Thermometer"]["thresholds"] = serde_json::json!([]),
        "encoder feature 2 (petal_length): 0 thresholds, the encoding gives 8 per feature",
    );
    every_reader_refuses(
        d.path(),
        |v| {
            v["encoder"]["input"]["Real"]["codes"][0]["Thermometer"]["thresholds"] =
                serde_json::json!([1.0, 2.0])
        },
        "encoder feature 0 (sepal_length): 2 thresholds",
    );
    every_reader_refuses(
        d.path(),
        |v| v["format_version"] = "1".into(),
        "format_version must be a number, found \"1\"",
    );
    every_reader_refuses(
        d.path(),
        |v| v["class_names"] = serde_json::json!(["a", "b"]),
        "head groupsum:3 does not match the data's 2 classes",
    );
}

#[test]
fn errors_say_each_cause_once() {
    let d = tempfile::tempdir().unwrap();
    for args in [
        &["eval", "--model", "missing.json", "--data", "iris"][..],
        &["opt", "missing.aig", "-o", "x.aig"],
        &["train", "--data", "missing.csv"],
    ] {
        let o = circuitlearn(args, d.path());
        let err = stderr(&o);
        assert_eq!(err.matches("No such file or directory").count(), 1, "{args:?}: {err}");
    }
    std::fs::write(d.path().join("a.blif"), BLIF).unwrap();
    let o = circuitlearn(&["opt", "a.blif", "-o", "/proc/none/x.blif"], d.path());
    assert_eq!(stderr(&o).matches("writing /proc/none/x.blif").count(), 1, "{}", stderr(&o));
}

#[test]
fn synth_scaling_options_are_checked_before_any_chain_is_built() {
    let d = tempfile::tempdir().unwrap();
    refused(&circuitlearn(&["bench", "--synth-scaling", "0"], d.path()), "--synth-scaling: 0 is not from 1");
    refused(
        &circuitlearn(&["bench", "--synth-scaling", "9999999999"], d.path()),
        "--synth-scaling: 9999999999",
    );
    let o = circuitlearn(&["bench", "--synth-scaling", "1000", "--synth-aig-dir", "missing"], d.path());
    refused(&o, "--synth-aig-dir: missing is not a directory");
    assert!(o.stdout.is_empty(), "work started before the check: {}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn empty_and_binary_blif_files_are_not_circuits() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("e.blif"), b"").unwrap();
    std::fs::write(d.path().join("u.blif"), b".model m\n.inputs \xff\n.outputs y\n.names \xff y\n1 1\n")
        .unwrap();
    refused(&circuitlearn(&["opt", "e.blif", "-o", "o.aig"], d.path()), "e.blif:1: no BLIF content");
    refused(&circuitlearn(&["cec", "u.blif", "u.blif"], d.path()), "u.blif:2: not valid UTF-8 text");
}

/// Decompression bombs and huge declared sizes: refused from the size they would take,
/// before it is allocated.
#[test]
fn data_is_sized_before_it_is_allocated() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // 40 MB of CSV rows (5 million values) in a few KB of gzip.
    let rows = b"1,2,3,4,x\n".repeat(1 << 16);
    std::fs::write(
        p.join("bomb.csv.gz"),
        gzip(std::iter::once(b"a,b,c,d,label\n".to_vec()).chain((0..64).map(|_| rows.clone()))),
    )
    .unwrap();
    train_iris(p);
    let o = circuitlearn(
        &["eval", "--model", "run/model.json", "--data", "bomb.csv.gz", "--max-memory", "8M"],
        p,
    );
    refused(&o, "bomb.csv.gz: the values parsed up to line ");
    assert!(stderr(&o).contains("more than the 8.0 MiB --max-memory limit"), "{}", stderr(&o));
    let o = circuitlearn(
        &["verify", "--model", "run/model.json", "--icarus", "--data", "bomb.csv.gz", "--max-memory", "8M"],
        p,
    );
    refused(&o, "bomb.csv.gz: the values parsed up to line ");
    // The same for a PLA bomb, and a bad size.
    let pla_rows = format!("{} 1\n", "0".repeat(200)).repeat(1 << 12).into_bytes();
    std::fs::write(
        p.join("bomb.pla.gz"),
        gzip(std::iter::once(b".i 200\n.o 1\n".to_vec()).chain((0..64).map(|_| pla_rows.clone()))),
    )
    .unwrap();
    let o = circuitlearn(
        &["iwls", "--train", "bomb.pla.gz", "--valid", "bomb.pla.gz", "-o", "o.aig", "--max-memory", "1M"],
        p,
    );
    refused(&o, "bomb.pla.gz: the rows read up to line ");
    let o = circuitlearn(&["opt", "x.blif", "-o", "o.aig", "--max-memory", "lots"], p);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // An IDX directory declaring five million images it does not hold.
    let img = p.join("img");
    std::fs::create_dir(&img).unwrap();
    let header = circuitlearn::encode_u8(&[5_000_000, 28, 28], &[0; 64]);
    for (name, bytes) in [
        ("train-images-idx3-ubyte", header.clone()),
        ("train-labels-idx1-ubyte", circuitlearn::encode_u8(&[5_000_000], &[0; 64])),
        ("t10k-images-idx3-ubyte", circuitlearn::encode_u8(&[1, 28, 28], &[0; 784])),
        ("t10k-labels-idx1-ubyte", circuitlearn::encode_u8(&[1], &[0])),
    ] {
        std::fs::write(img.join(name), bytes).unwrap();
    }
    let o = circuitlearn(&["train", "--data", "img"], p);
    refused(
        &o,
        "train-images-idx3-ubyte: byte 16: dimensions [5000000, 28, 28] of U8 need 3920000000 data bytes",
    );
}

/// A CSV of `features` numeric columns and a label, `rows` rows, two classes.
fn write_wide_csv(path: &Path, features: usize, rows: usize) {
    let mut text = (0..features).map(|i| format!("f{i},")).collect::<String>() + "label\n";
    for r in 0..rows {
        text.extend((0..features).map(|f| if (r + f) % 3 == 0 { "1," } else { "0," }));
        text.push_str(if r % 2 == 0 { "a\n" } else { "b\n" });
    }
    std::fs::write(path, text).unwrap();
}

/// Sets `RLIMIT_AS` in the child before it runs.
#[cfg(target_os = "linux")]
trait Limit {
    fn pre_exec_limit(&mut self, bytes: u64) -> &mut Self;
}
#[cfg(target_os = "linux")]
impl Limit for std::process::Command {
    fn pre_exec_limit(&mut self, bytes: u64) -> &mut Self {
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            self.pre_exec(move || {
                let lim = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                if libc::setrlimit(libc::RLIMIT_AS, &raw const lim) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })
        }
    }
}

/// Runs the binary in `dir` under an address-space limit of `bytes`.
#[cfg(target_os = "linux")]
fn run_limited(args: &[&str], dir: &Path, bytes: u64) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_circuitlearn"))
        .args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "1")
        .pre_exec_limit(bytes)
        .output()
        .unwrap()
}

/// Hostile inputs under an address-space limit: every one is refused with exit status 2
/// (the readers see the limit and size the data against it), none is killed, aborts or
/// panics. The limit is stated here: 1 GiB of address space for the whole process.
#[cfg(target_os = "linux")]
#[test]
fn hostile_data_under_an_address_space_limit_exits_2() {
    const LIMIT: u64 = 1 << 30;
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // A bomb that parses to more than the limit: 2 bytes of text per value, 8 once parsed
    // (2048 columns x 65536 rows: 268 MB of text, 1 GiB of values).
    let wide = format!("{}x\n", "0,".repeat(2048)).into_bytes();
    let header = format!("{}label\n", (0..2048).map(|i| format!("f{i},")).collect::<String>()).into_bytes();
    std::fs::write(
        p.join("wide.csv.gz"),
        gzip(std::iter::once(header).chain((0..(1 << 16)).map(|_| wide.clone()))),
    )
    .unwrap();
    // One 256 MB line.
    let long_line = vec![b'7'; 1 << 20];
    std::fs::write(p.join("line.csv.gz"), gzip((0..256).map(|_| long_line.clone()))).unwrap();
    // 200,000 images that are there (zeros compress well): the pixels fit, as numbers they do not.
    let img = p.join("img");
    std::fs::create_dir(&img).unwrap();
    let n_images = 200_000u32;
    let pixels = n_images as usize * 784;
    let chunk = vec![0u8; 1 << 20];
    let chunks = std::iter::once(circuitlearn::encode_u8(&[n_images, 28, 28], &[]))
        .chain((0..pixels >> 20).map(|_| chunk.clone()))
        .chain(std::iter::once(vec![0u8; pixels % (1 << 20)]));
    std::fs::write(img.join("train-images-idx3-ubyte.gz"), gzip(chunks)).unwrap();
    let labels = circuitlearn::encode_u8(&[n_images], &vec![0; n_images as usize]);
    std::fs::write(img.join("train-labels-idx1-ubyte.gz"), gzip([labels])).unwrap();
    let test_images = circuitlearn::encode_u8(&[1, 28, 28], &[0; 784]);
    std::fs::write(img.join("t10k-images-idx3-ubyte"), test_images).unwrap();
    std::fs::write(img.join("t10k-labels-idx1-ubyte"), circuitlearn::encode_u8(&[1], &[0])).unwrap();
    // 3,000 features x 1,000 rows (12 MB of text) encoded with 4,096 bits per feature: 12
    // million bits x 700 training rows, 1.1 GB.
    write_wide_csv(&p.join("enc.csv"), 3000, 1000);
    let cases: [&[&str]; 4] = [
        &["train", "--data", "wide.csv.gz", "--threads", "1"],
        &["train", "--data", "line.csv.gz", "--threads", "1"],
        &["train", "--data", "img", "--threads", "1"],
        &["train", "--data", "enc.csv", "--encoding", "uniform:4096", "--threads", "1"],
    ];
    for args in cases {
        let o = run_limited(args, p, LIMIT);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?} under RLIMIT_AS {LIMIT}: {:?}: {err}", o.status);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("would take") || err.contains("at most") || err.contains("longer than"),
            "{args:?}: {err}"
        );
    }
}

/// Generated hostile inputs (seeded): IDX image headers with random dimensions over a
/// little data, plain and gzip (a claim within the limit is read as a stream and found
/// short, a larger one refused before reading), and thermometer / uniform encodings of random huge widths,
/// each run under `RLIMIT_AS` = 1 GiB: every one exits 2 with one line.
#[cfg(target_os = "linux")]
#[test]
fn generated_headers_and_encodings_under_an_address_space_limit_exit_2() {
    use rand::{RngExt, SeedableRng};
    const LIMIT: u64 = 1 << 30;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
    let d = tempfile::tempdir().unwrap();
    for case in 0..12 {
        let dir = d.path().join(format!("c{case}"));
        std::fs::create_dir(&dir).unwrap();
        let args: Vec<String> = if case % 2 == 0 {
            // Log-uniform claims from 2^10 to 2^52 pixels (below and above the limit), at
            // most 999 bytes present.
            let mut log =
                |lo: u32, hi: u32| (1u32 << rng.random_range(lo..hi)) | rng.random_range(0..1u32 << lo);
            let gz = case % 4 == 0;
            let dims =
                if gz { [log(10, 24), log(0, 4), log(0, 4)] } else { [log(10, 32), log(0, 10), log(0, 10)] };
            let data: Vec<u8> = (0..rng.random_range(0..1000)).map(|_| rng.random()).collect();
            let name = if gz { "train-images-idx3-ubyte.gz" } else { "train-images-idx3-ubyte" };
            let bytes = circuitlearn::encode_u8(&dims, &data);
            std::fs::write(dir.join(name), if gz { gzip([bytes]) } else { bytes }).unwrap();
            std::fs::write(dir.join("train-labels-idx1-ubyte"), circuitlearn::encode_u8(&[1], &[0])).unwrap();
            std::fs::write(dir.join("t10k-images-idx3-ubyte"), circuitlearn::encode_u8(&[1, 1, 1], &[0]))
                .unwrap();
            std::fs::write(dir.join("t10k-labels-idx1-ubyte"), circuitlearn::encode_u8(&[1], &[0])).unwrap();
            vec!["train".into(), "--data".into(), dir.display().to_string()]
        } else {
            // A data set that is small as text but wide when encoded: `features` columns,
            // `rows` rows, B bits per feature (at most the CLI's 4096), chosen so that the
            // encoded training rows pass the limit while the width stays within 2^24 bits.
            let (features, rows, bits) = loop {
                let f: u64 = rng.random_range(500..3000);
                let r: u64 = rng.random_range(200..3000);
                let b: u64 = rng.random_range(256..=4096);
                let encoded = b * f * (r * 7 / 10).div_ceil(64) * 8;
                if b * f <= 1 << 24 && encoded > 3 * LIMIT / 2 {
                    break (f, r, b);
                }
            };
            write_wide_csv(&dir.join("wide.csv"), features as usize, rows as usize);
            let kind = if rng.random_bool(0.5) { "thermometer" } else { "uniform" };
            vec![
                "train".into(),
                "--data".into(),
                "wide.csv".into(),
                "--encoding".into(),
                format!("{kind}:{bits}"),
            ]
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run_limited(&args, &dir, LIMIT);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?} under RLIMIT_AS {LIMIT}: {:?}: {err}", o.status);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn output_folders_that_are_files_are_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("afile"), b"keep me\n").unwrap();
    std::fs::write(p.join("g.toml"), b"[grid]\nepochs = [1]\n").unwrap();
    std::fs::write(p.join("a.blif"), BLIF).unwrap();
    for (args, file) in [
        (&["train", "--data", "iris", "--out", "afile"][..], "afile"),
        (&["train", "--data", "iris", "--out", "afile/run"], "afile"),
        (&["sweep", "--grid", "g.toml", "--out", "afile"], "afile"),
        (&["opt", "a.blif", "--passes", "strash", "-o", "afile/a.aig"], "afile"),
        (&["export", "--circuit", "a.blif", "-o", "afile/sub/a.v"], "afile"),
        (&["verify", "--circuit", "a.blif", "--work", "afile/v"], "afile"),
    ] {
        refused(&circuitlearn(args, p), &format!(": {file} is a file, not a folder"));
    }
    assert_eq!(std::fs::read(p.join("afile")).unwrap(), b"keep me\n");
}
