//! Icarus Verilog co-simulation: compile a self-checking bench with its design, run it,
//! and read the verdict it prints.

use super::tool::{Tool, ToolError, ToolLimits};
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

/// [`run_icarus_every`] with each of the two runs (`iverilog`, `vvp`) bounded by
/// `limits`. The compiled `.vvp` is written under a temporary name and renamed when
/// `iverilog` succeeds, so a killed compile never leaves a truncated `.vvp` behind.
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
    let step = format!("+step={}", step.max(1));
    let out = Tool::Vvp.run_limited(
        &["-n".as_ref(), vvp_file.as_os_str(), step.as_ref()],
        dir,
        &run_log,
        limits,
    )?;
    let pass = out
        .text
        .lines()
        .find_map(|l| l.trim().strip_prefix("PASS: ")?.strip_suffix(" vectors")?.parse().ok());
    match pass {
        Some(vectors) if out.success => Ok(IcarusOutcome::Pass { vectors, log: out.log }),
        _ if out.text.contains("FAIL:") => {
            let report: Vec<&str> =
                out.text.lines().filter(|l| l.contains("MISMATCH") || l.contains("FAIL:")).collect();
            Ok(IcarusOutcome::Mismatch { report: report.join("\n"), log: out.log })
        }
        _ => Err(ToolError::Failed {
            tool: Tool::Vvp.name(),
            what: format!("{}, and no PASS or FAIL line from the bench", out.status),
            log: out.log,
        }),
    }
}
