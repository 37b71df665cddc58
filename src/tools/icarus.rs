//! Icarus Verilog co-simulation: compile a self-checking bench with its design, run it,
//! and read the verdict it prints.

use super::tool::{RunOutput, Tool, ToolError, ToolLimits};
use std::path::{Path, PathBuf};

/// What the bench reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IcarusOutcome {
    /// Every vector matched.
    Pass {
        /// Vectors checked.
        vectors: usize,
        /// The simulation log.
        log: PathBuf,
    },
    /// Some vector mismatched (`$fatal` was called).
    Mismatch {
        /// The bench's mismatch and summary lines.
        report: String,
        /// The simulation log.
        log: PathBuf,
    },
}

/// Compiles `bench` (top module `bench_module`) with `design` using `iverilog -g2005` and
/// runs it with `vvp -n` in `dir` (where the vectors file is); logs go to
/// `dir/<bench_module>.iverilog.log` and `dir/<bench_module>.vvp.log`.
///
/// # Errors
/// [`ToolError`] if a tool is missing, fails to compile, or the run ends without the
/// bench's `PASS` or `FAIL` line.
pub fn run_icarus(
    dir: &Path,
    bench: &Path,
    design: &Path,
    bench_module: &str,
) -> Result<IcarusOutcome, ToolError> {
    run_icarus_every(dir, bench, design, bench_module, 1)
}

/// [`run_icarus`] checking every `step`-th vector of the bench only (`vvp +step=K`, see
/// [`write_testbench`](crate::write_testbench)); the outcome counts the vectors checked.
///
/// # Errors
/// As [`run_icarus`].
pub fn run_icarus_every(
    dir: &Path,
    bench: &Path,
    design: &Path,
    bench_module: &str,
    step: usize,
) -> Result<IcarusOutcome, ToolError> {
    run_icarus_limited(dir, bench, design, bench_module, step, &ToolLimits::default())
}

/// [`run_icarus_every`] with each tool run (`iverilog`, then each `vvp`) bounded by
/// `limits`, and the vectors shared out over [`vvp_parts`] runs of `vvp` at once. The
/// compiled `.vvp` is written under a temporary name and renamed when `iverilog`
/// succeeds, so a killed compile never leaves a truncated `.vvp` behind.
///
/// # Errors
/// As [`run_icarus`], plus [`ToolError::TimedOut`].
pub fn run_icarus_limited(
    dir: &Path,
    bench: &Path,
    design: &Path,
    bench_module: &str,
    step: usize,
    limits: &ToolLimits,
) -> Result<IcarusOutcome, ToolError> {
    run_icarus_parts(dir, bench, design, bench_module, step, vvp_parts(), limits)
}

/// Most `vvp` runs [`run_icarus_limited`] starts at once: each holds the whole vectors
/// file in memory (150 MB for Fashion-MNIST's 10,000 test images).
pub const MAX_VVP_PARTS: usize = 4;

/// The `vvp` runs [`run_icarus_limited`] starts at once: one per thread of the rayon pool
/// (`--threads`), at most [`MAX_VVP_PARTS`]. Icarus simulates on one core, so a big bench
/// shared out over the cores finishes sooner (Fashion-MNIST's 10,000 vectors: 1.3x on two
/// hyperthreads of one core).
#[must_use]
pub fn vvp_parts() -> usize {
    rayon::current_num_threads().clamp(1, MAX_VVP_PARTS)
}

/// [`run_icarus_limited`] with `parts` runs of `vvp` at once, run `p` checking vectors
/// `p * step, (p + parts) * step, ...` (`+first`, `+step`): together every `step`-th
/// vector, each once. Their outputs, in order, make one log; the bench passes if every
/// run passes, and the outcome counts the vectors of all runs.
///
/// # Errors
/// As [`run_icarus_limited`]; a run that timed out or failed makes the whole check so.
pub fn run_icarus_parts(
    dir: &Path,
    bench: &Path,
    design: &Path,
    bench_module: &str,
    step: usize,
    parts: usize,
    limits: &ToolLimits,
) -> Result<IcarusOutcome, ToolError> {
    // The tools run in `dir`: name every file absolutely so that does not matter.
    let io = |source| ToolError::Io { tool: Tool::Iverilog.name(), log: dir.to_path_buf(), source };
    let dir = std::path::absolute(dir).map_err(io)?;
    let (bench, design) = (std::path::absolute(bench).map_err(io)?, std::path::absolute(design).map_err(io)?);
    let dir = dir.as_path();
    let vvp_file = dir.join(format!("{bench_module}.vvp"));
    let partial = dir.join(format!("{bench_module}.vvp.partial-{}", std::process::id()));
    let compile_log = dir.join(format!("{bench_module}.iverilog.log"));
    // A stale compile of an earlier design must not run in place of this one.
    let _ = std::fs::remove_file(&vvp_file);
    let args = [
        "-g2005".as_ref(),
        "-s".as_ref(),
        bench_module.as_ref(),
        "-o".as_ref(),
        partial.as_os_str(),
        bench.as_os_str(),
        design.as_os_str(),
    ];
    let compiled = Tool::Iverilog.run_ok_limited(&args, dir, &compile_log, limits);
    if compiled.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    compiled?;
    std::fs::rename(&partial, &vvp_file).map_err(|source| ToolError::Io {
        tool: Tool::Iverilog.name(),
        log: compile_log.clone(),
        source,
    })?;
    let run_log = dir.join(format!("{bench_module}.vvp.log"));
    let (step, parts) = (step.max(1), parts.max(1));
    let part_log = |p: usize| {
        if parts == 1 { run_log.clone() } else { dir.join(format!("{bench_module}.vvp.{p}.log")) }
    };
    let runs: Vec<Result<RunOutput, ToolError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..parts)
            .map(|p| {
                let (log, vvp_file) = (part_log(p), &vvp_file);
                scope.spawn(move || {
                    let (step, first) = (format!("+step={}", parts * step), format!("+first={}", p * step));
                    let args = ["-n".as_ref(), vvp_file.as_os_str(), step.as_ref(), first.as_ref()];
                    Tool::Vvp.run_limited(&args, dir, &log, limits)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a vvp run's thread does not panic")).collect()
    });
    if parts > 1 {
        // One log for the check: the parts' logs, in order.
        let mut text = String::new();
        for p in 0..parts {
            text.push_str(&std::fs::read_to_string(part_log(p)).unwrap_or_default());
            let _ = std::fs::remove_file(part_log(p));
        }
        crate::io::write_atomic(&run_log, text.as_bytes()).map_err(|source| ToolError::Io {
            tool: Tool::Vvp.name(),
            log: run_log.clone(),
            source,
        })?;
    }
    // A mismatch in any part is the verdict; otherwise any part's error is.
    let (mut vectors, mut mismatched, mut error) = (0, 0, None);
    let (mut mismatches, mut other_failures) = (Vec::new(), Vec::new());
    for run in runs {
        let out = match run {
            Ok(out) => out,
            Err(e) => {
                error.get_or_insert(e.with_log(&run_log));
                continue;
            }
        };
        let pass = out
            .text
            .lines()
            .find_map(|l| l.trim().strip_prefix("PASS: ")?.strip_suffix(" vectors")?.parse::<usize>().ok());
        match pass {
            Some(v) if out.success => vectors += v,
            _ if out.text.contains("FAIL:") => {
                for line in out.text.lines().map(str::trim) {
                    if let Some((e, n)) = mismatch_count(line) {
                        (mismatched, vectors) = (mismatched + e, vectors + n);
                    } else if line.contains("MISMATCH") {
                        mismatches.push(line.to_owned());
                    } else if line.contains("FAIL:") {
                        other_failures.push(line.to_owned());
                    }
                }
            }
            _ => {
                error.get_or_insert(ToolError::Failed {
                    tool: Tool::Vvp.name(),
                    what: format!("{}, and no PASS or FAIL line from the bench", out.status),
                    log: run_log.clone(),
                });
            }
        }
    }
    if mismatched > 0 || !other_failures.is_empty() {
        // The first mismatches over all parts, then one count for the whole check.
        mismatches.sort_by_key(|l| vector_of(l));
        mismatches.truncate(MAX_MISMATCH_LINES);
        if mismatched > 0 {
            mismatches.push(format!("FAIL: {mismatched} of {vectors} vectors mismatched"));
        }
        mismatches.extend(other_failures);
        return Ok(IcarusOutcome::Mismatch { report: mismatches.join("\n"), log: run_log });
    }
    match error {
        Some(e) => Err(e),
        None => Ok(IcarusOutcome::Pass { vectors, log: run_log }),
    }
}

/// Mismatch lines a report keeps (each `vvp` run prints its first ten).
const MAX_MISMATCH_LINES: usize = 10;

/// `(mismatched, checked)` from a bench's line `... FAIL: E of N vectors mismatched`.
fn mismatch_count(line: &str) -> Option<(usize, usize)> {
    let (_, rest) = line.split_once("FAIL: ")?;
    let (e, rest) = rest.split_once(" of ")?;
    let n = rest.strip_suffix(" vectors mismatched")?;
    Some((e.parse().ok()?, n.parse().ok()?))
}

/// The vector a bench's line `MISMATCH vector J: ...` names.
fn vector_of(line: &str) -> Option<usize> {
    let (_, rest) = line.split_once("MISMATCH vector ")?;
    rest.split(':').next()?.parse().ok()
}
