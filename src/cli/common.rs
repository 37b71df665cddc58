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
}

impl Progress {
    /// The message shown with the bar (and in the next step's line).
    pub fn set_message(&self, msg: impl Into<String>) {
        self.bar.set_message(msg.into());
    }

    /// Advances by `n` steps.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        if self.lines {
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
    Progress { bar, lines: !json && !terminal, what: what.to_string() }
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

/// Sets the size of rayon's global pool (0 = one thread per core). Only the first call
/// in a process takes effect.
pub fn set_threads(n: usize) {
    let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
}
