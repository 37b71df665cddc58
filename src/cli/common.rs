//! Shared pieces of the subcommands: exit codes, progress bars, JSON output.

use crate::data::DataError;
use crate::io::ModelFileError;
use crate::io::aiger_reader::AigerError;
use crate::io::blif_reader::BlifError;
use crate::io::netlist::NameError;
use crate::learn::ModelError;
use crate::learn::spec::SpecError;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use thiserror::Error;

/// A command-line value that makes no sense (bad flag combination, unknown name).
#[derive(Debug, Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// 2 when the error is bad input (data, model file, spec, usage), 3 for an undecided
/// equivalence check (`cec` out of SAT limits), 1 otherwise.
#[must_use]
pub fn exit_code(e: &anyhow::Error) -> i32 {
    if e.chain().any(|c| c.is::<super::cec::Undecided>()) {
        return super::cec::EXIT_UNDECIDED;
    }
    let bad_input = e.chain().any(|c| {
        c.is::<DataError>()
            || c.is::<ModelFileError>()
            || c.is::<ModelError>()
            || c.is::<SpecError>()
            || c.is::<UsageError>()
            || c.downcast_ref::<crate::pipeline::PipelineError>()
                .is_some_and(crate::pipeline::PipelineError::is_bad_input)
            || matches!(
                c.downcast_ref::<crate::pass::PassError>(),
                Some(
                    crate::pass::PassError::Unknown(_)
                        | crate::pass::PassError::Option { .. }
                        | crate::pass::PassError::NoCareSet
                )
            )
            || matches!(
                c.downcast_ref::<crate::verify::cec::CecError>(),
                Some(
                    crate::verify::cec::CecError::Inputs { .. }
                        | crate::verify::cec::CecError::Outputs { .. }
                )
            )
            || c.is::<BlifError>()
            || c.is::<AigerError>()
            || c.is::<NameError>()
    });
    if bad_input { 2 } else { 1 }
}

/// The one line printed for an error: its message and each cause, joined by `: `, with a
/// cause left out when the line already ends with it (errors that name their source in
/// their own message, like `model.json: No such file or directory`, and contexts repeated
/// by two layers), so no cause is said twice.
#[must_use]
pub fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.is_empty() {
            line = text;
        } else if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

/// Writes `value` as pretty JSON with a final newline to `path`, atomically (the
/// `metrics.json` of every training run).
///
/// # Errors
/// Serialisation or I/O failure, naming the file.
pub fn write_json_file(path: &std::path::Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    crate::io::write_atomic(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// Progress over `len` steps: a bar on a terminal; when stderr is not a terminal (a log
/// file, CI), one line per step (`train 3/12: loss 0.41 (2m 5s)`), so that long runs are
/// not silent; nothing with `--json`.
pub struct Progress {
    bar: ProgressBar,
    lines: bool,
    what: String,
    /// Steps shorter than this print no line ([`Progress::silent_below`]).
    shortest_line: std::time::Duration,
    /// When the current step started.
    step_start: std::cell::Cell<std::time::Instant>,
}

impl Progress {
    /// The message shown with the bar (and in the next step's line).
    pub fn set_message(&self, msg: impl Into<String>) {
        self.bar.set_message(msg.into());
    }

    /// Without a terminal, no line for a step shorter than `shortest` (quick runs stay
    /// quiet).
    #[must_use]
    pub fn silent_below(self, shortest: std::time::Duration) -> Self {
        Self { shortest_line: shortest, ..self }
    }

    /// Advances by `n` steps.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        let step = self.step_start.replace(std::time::Instant::now()).elapsed();
        if self.lines && step >= self.shortest_line {
            let len = self.bar.length().unwrap_or(0);
            let elapsed = indicatif::HumanDuration(self.bar.elapsed());
            eprintln!("{} {}/{len}: {} ({elapsed})", self.what, self.bar.position(), self.bar.message());
        }
    }

    /// Sets the step count (a resumed run starts where it stopped).
    pub fn set_position(&self, pos: u64) {
        self.bar.set_position(pos);
    }

    /// Removes the bar.
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// [`Progress`] over `len` steps of `what`; `json` silences it.
pub fn progress(len: u64, json: bool, what: &str) -> Progress {
    let terminal = std::io::stderr().is_terminal();
    let bar = if json || !terminal { ProgressBar::hidden() } else { ProgressBar::new(len) };
    bar.set_length(len);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(what.to_string());
    Progress {
        bar,
        lines: !json && !terminal,
        what: what.to_string(),
        shortest_line: std::time::Duration::ZERO,
        step_start: std::cell::Cell::new(std::time::Instant::now()),
    }
}

/// A progress hook for library work that reports `(what, done, total)` (SAT sweeping):
/// a bar on a terminal; when stderr is not a terminal, one line every 5 seconds once the
/// work has run 5 seconds (short work stays silent); `None` with `--json`.
#[must_use]
pub fn progress_hook(json: bool) -> Option<crate::pass::ProgressHook> {
    use std::sync::Mutex;
    use std::time::{Duration, Instant};
    if json {
        return None;
    }
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let state: Mutex<(Option<(String, Progress)>, Instant)> = Mutex::new((None, start));
    Some(crate::pass::ProgressHook::new(move |what, done, total| {
        let Ok(mut st) = state.lock() else { return };
        if terminal {
            if st.0.as_ref().is_none_or(|(w, _)| w != what) {
                st.0 = Some((what.to_string(), progress(total as u64, false, what)));
            }
            if let Some((_, bar)) = &st.0 {
                bar.set_position(done as u64);
                if done >= total {
                    bar.finish_and_clear();
                    st.0 = None;
                }
            }
        } else if start.elapsed() >= Duration::from_secs(5) && st.1.elapsed() >= Duration::from_secs(5) {
            eprintln!("{what} {done}/{total} ({})", indicatif::HumanDuration(start.elapsed()));
            st.1 = Instant::now();
        }
    }))
}

/// The identity of an existing file: device and inode on Unix (so hard links and
/// symbolic links to one file compare equal), the canonical path elsewhere; `None` when
/// the path does not name an existing file.
fn file_identity(path: &Path) -> Option<(u64, u64, std::path::PathBuf)> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino(), std::path::PathBuf::new()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some((0, 0, std::fs::canonicalize(path).ok()?))
    }
}

/// Checks a command's output files before it works: none may lie under a file
/// (`-o notes.txt/x.aig`, [`check_output_folder`]), and none may be one of `inputs` (the
/// same file after following links: same device and inode, so hard links count) unless
/// `force`: a command must never replace the file it reads (`opt a.blif -o a.blif`,
/// `export --model model.json -o model.json`). Outputs that do not exist yet, and inputs
/// that do not exist (their reader reports them), pass. `force` is the command's
/// `--force`, `None` for a command without one.
///
/// # Errors
/// [`UsageError`] (exit 2) naming the output and the file in its way, or the output, the
/// input and `--force`.
pub fn check_outputs(outputs: &[&Path], inputs: &[&Path], force: Option<bool>) -> Result<(), UsageError> {
    for out in outputs {
        if let Some(folder) = out.parent() {
            check_output_folder(&out.display().to_string(), folder)?;
        }
    }
    if force == Some(true) {
        return Ok(());
    }
    let ins: Vec<_> = inputs.iter().filter_map(|p| file_identity(p).map(|id| (id, *p))).collect();
    for out in outputs {
        let Some(id) = file_identity(out) else { continue };
        if let Some((_, input)) = ins.iter().find(|(i, _)| *i == id) {
            let same =
                if out == input { String::new() } else { format!(" (the same file as {})", input.display()) };
            let or_force = if force.is_some() { " or give --force" } else { "" };
            return Err(UsageError(format!(
                "{}: is an input of this command{same}; refusing to overwrite it (choose another output{or_force})",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Refuses an output folder that is a file or lies under one (`--out results.csv`,
/// `--out results.csv/run`) before any work starts; a folder that does not exist yet
/// passes (the command creates it). `what` begins the error line: the option and its
/// value, or the output file that would go in `dir`.
///
/// # Errors
/// [`UsageError`] (exit 2): `what`, then the file in the way.
pub fn check_output_folder(what: &str, dir: &Path) -> Result<(), UsageError> {
    match dir.ancestors().find(|p| !p.as_os_str().is_empty() && p.exists()) {
        Some(file) if !file.is_dir() => {
            Err(UsageError(format!("{what}: {} is a file, not a folder", file.display())))
        }
        _ => Ok(()),
    }
}

/// Sets the size of rayon's global pool (0 = one thread per core). Only the first call
/// in a process takes effect.
pub fn set_threads(n: usize) {
    let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
}

/// A time budget in seconds (option `flag`) as a duration: a finite number, at least 0.
///
/// # Errors
/// A [`UsageError`] naming `flag`.
pub fn budget_seconds(flag: &str, s: f64) -> Result<std::time::Duration, UsageError> {
    std::time::Duration::try_from_secs_f64(s)
        .map_err(|_| UsageError(format!("{flag}: expected seconds >= 0, got {s}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_say_each_cause_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "not found");
        let e = anyhow::Error::from(crate::io::ModelFileError::Io { path: "m.json".into(), source: io() });
        assert_eq!(format!("{e:#}"), "m.json: not found: not found");
        assert_eq!(error_line(&e), "m.json: not found");
        let e = anyhow::Error::from(io()).context("writing x").context("writing x");
        assert_eq!(error_line(&e), "writing x: not found");
    }

    #[test]
    fn outputs_that_are_inputs_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.blif");
        let b = d.path().join("b.blif");
        std::fs::write(&a, "x").unwrap();
        std::fs::write(&b, "x").unwrap();
        let new = d.path().join("new.blif");
        assert!(check_outputs(&[&new, &b], &[&a], Some(false)).is_ok());
        let e = check_outputs(&[&a], &[&a], Some(false)).unwrap_err().to_string();
        assert!(e.ends_with("a.blif: is an input of this command; refusing to overwrite it (choose another output or give --force)"), "{e}");
        // The same file under another spelling.
        let dotted = d.path().join(".").join("a.blif");
        assert!(check_outputs(&[&dotted], &[&a], Some(false)).is_err());
        assert!(check_outputs(&[&a], &[&a], Some(true)).is_ok());
        // A command without --force does not offer it.
        let e = check_outputs(&[&a], &[&a], None).unwrap_err().to_string();
        assert!(e.ends_with("refusing to overwrite it (choose another output)"), "{e}");
        #[cfg(unix)]
        {
            let hard = d.path().join("hard.blif");
            std::fs::hard_link(&a, &hard).unwrap();
            let e = check_outputs(&[&hard], &[&a], Some(false)).unwrap_err().to_string();
            assert!(e.contains("(the same file as"), "{e}");
            let soft = d.path().join("soft.blif");
            std::os::unix::fs::symlink(&a, &soft).unwrap();
            assert!(check_outputs(&[&soft], &[&a], Some(false)).is_err());
        }
    }
}
