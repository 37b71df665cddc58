//! `checkpoint.json`, written by `train --checkpoint-every N` into the output directory:
//! the run's arguments and the trainer's state after an epoch ([`Checkpoint`]).
//! `train --resume DIR` reads it back and continues with the same arguments, ending with
//! the model an uninterrupted run writes.

use super::common::UsageError;
use super::train::TrainArgs;
use crate::io::write_atomic;
use crate::learn::Checkpoint;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The checkpoint's file name inside the output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.json";

/// The format version this build writes and reads.
pub const CHECKPOINT_VERSION: u64 = 1;

/// A training run stopped after an epoch.
#[derive(Debug, Serialize, Deserialize)]
pub struct TrainCheckpoint {
    /// [`CHECKPOINT_VERSION`].
    pub format_version: u64,
    /// The run's arguments (`out` is the directory holding the checkpoint).
    pub args: TrainArgs,
    /// Where training stood.
    pub trainer: Checkpoint,
}

impl TrainCheckpoint {
    /// Writes `DIR/checkpoint.json` atomically (`DIR` is `args.out`).
    ///
    /// # Errors
    /// If the file cannot be written.
    pub fn write(args: &TrainArgs, trainer: Checkpoint) -> anyhow::Result<()> {
        let path = args.out.as_deref().unwrap_or(Path::new(".")).join(CHECKPOINT_FILE);
        let c = TrainCheckpoint { format_version: CHECKPOINT_VERSION, args: args.clone(), trainer };
        let text = serde_json::to_string(&c)? + "\n";
        write_atomic(&path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
    }

    /// Reads `DIR/checkpoint.json`; the arguments' output directory becomes `DIR`.
    ///
    /// # Errors
    /// [`UsageError`] (exit 2) naming the file when it is missing, malformed or of
    /// another format version.
    pub fn read(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(CHECKPOINT_FILE);
        let shown = path.display();
        let text =
            std::fs::read_to_string(&path).map_err(|e| UsageError(format!("{shown}: cannot resume: {e}")))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| UsageError(format!("{shown}:{}:{}: {e}", e.line(), e.column())))?;
        match v.get("format_version").and_then(serde_json::Value::as_u64) {
            Some(CHECKPOINT_VERSION) => {}
            found => {
                return Err(UsageError(format!(
                    "{shown}: checkpoint format version {}, this build reads version {CHECKPOINT_VERSION}",
                    found.map_or_else(|| "missing".into(), |f| f.to_string())
                ))
                .into());
            }
        }
        let mut c: TrainCheckpoint = serde_json::from_value(v)
            .map_err(|e| UsageError(format!("{shown}: not a training checkpoint: {e}")))?;
        c.args.out = Some(dir.to_path_buf());
        c.args.resume = None;
        Ok(c)
    }
}
