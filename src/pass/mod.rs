//! Optimisation passes over AIGs: a [`Pass`] trait, a registry of named passes, and
//! scripts (`"strash,fraig,balance"`) run with per-pass statistics and, on request, an
//! equivalence proof after every function-preserving pass.
//!
//! | pass | what it does |
//! |---|---|
//! | `constprop` | propagate constants and trivial ANDs (`x & 0`, `x & x`, `x & !x`) |
//! | `sweep` | remove AND nodes no output reaches |
//! | `strash` | structural hashing: merge AND nodes with the same fan-ins (plus `constprop`, `sweep`) |
//! | `fraig` | SAT sweeping: merge nodes proven equivalent (or complementary) by SAT, candidates from random simulation |
//! | `balance` | rebuild AND trees with minimum depth |
//! | `rewrite` | DAG-aware rewriting of 4-input cuts with minimum structures per NPN class (`-z`: accept zero gain) |
//! | `refactor` | collapse reconvergence-driven cuts (up to 10 leaves) and re-synthesise them as factored ISOPs (`-z`) |
//! | `resub` | windowed resubstitution: re-express a node through existing nodes of its window, by simulation signatures, validated exhaustively |
//! | `dc` | don't-care simplification against a care set (the training data): merges nodes equal on every care pattern; **changes the function outside the care set** |

mod balance;
mod budget;
pub mod cec;
mod dc;
pub mod exact;
pub mod factor;
mod fraig;
pub(crate) mod graph;
pub mod input_care;
mod local;
mod lower;
mod options;
mod refactor;
mod resub;
pub mod rewrite;
mod scripts;
mod simple;

pub use balance::Balance;
pub use budget::{
    BudgetReport, DEFAULT_SYNTH_BUDGET, DEFAULT_SYNTH_SCRIPT, ScriptRun, ScriptStop, WALL_LIMIT_FACTOR,
    estimated_seconds, run_budgeted,
};
pub use dc::DontCare;
pub use fraig::{FRAIG_LIMITS, Fraig, FraigStats};
pub use local::{LocalPass, LocalStats};
pub use lower::LowerParams;
pub use options::{PassRun, ProgressHook, RunOptions};
pub use refactor::{Refactor, RefactorParams, refactor};
pub use resub::{Resub, ResubParams, resub};
pub use rewrite::{Rewrite, RewriteParams, rewrite};
pub use scripts::{SCRIPTS, expand_script};
pub use simple::{ConstProp, Strash, Sweep};

use crate::aig::Aig;
use crate::lanes::BitMatrix;
use crate::sat::solver::SatStats;
use cec::{CecParams, Verdict, cec_with};
use serde::Serialize;
use std::time::Instant;
use thiserror::Error;

/// One named transformation of an AIG.
pub trait Pass: Send + Sync {
    /// The name used in scripts.
    fn name(&self) -> &'static str;
    /// Whether the result computes the same function (everything but `dc`).
    fn preserves_function(&self) -> bool {
        true
    }
    /// Runs the pass.
    fn run(&self, aig: &Aig) -> Aig;
    /// Runs the pass under `opts` (SAT limits, progress) and says what it did; passes
    /// without SAT calls or counts of their own need not override it.
    fn run_observed(&self, aig: &Aig, opts: &RunOptions) -> PassRun {
        let _ = opts;
        PassRun { aig: self.run(aig), sat: None, detail: None, local: None }
    }
}

/// What a pass did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PassStats {
    /// Pass name.
    pub pass: String,
    /// AND nodes before.
    pub ands_before: usize,
    /// AND nodes after.
    pub ands_after: usize,
    /// Depth (levels) before.
    pub levels_before: u32,
    /// Depth after.
    pub levels_after: u32,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// How the result was proven equivalent, when checked (`exhaustive`, `sat`), or
    /// `not applicable` for passes that change the function, or `undecided (limit N
    /// conflicts / T s)` when the check ran out of its SAT budget.
    pub checked: Option<String>,
    /// The pass's SAT calls (`fraig`), undecided ones included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sat: Option<SatStats>,
    /// The pass's own one-line report, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The counts of a local pass (`rewrite`, `refactor`, `resub`): nodes visited,
    /// candidates tried, replaced, estimated gain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalStats>,
}

/// Inputs some passes need beyond the AIG.
#[derive(Clone, Debug, Default)]
pub struct PassContext {
    /// Care set for `dc`: one row per AIG input, one example per care pattern.
    pub care: Option<BitMatrix>,
}

/// A script or pass that cannot run.
#[derive(Debug, Error)]
pub enum PassError {
    /// No pass of that name.
    #[error(
        "unknown pass '{0}'; available: constprop, sweep, strash, fraig, balance, rewrite, refactor, resub, dc, and the scripts resyn, resyn2, compress2"
    )]
    Unknown(String),
    /// An option a pass does not take.
    #[error("pass '{pass}' has no option '{option}'")]
    Option {
        /// The pass.
        pass: String,
        /// The option.
        option: String,
    },
    /// `dc` without a care set.
    #[error("pass 'dc' needs a care set (the training data)")]
    NoCareSet,
    /// A pass produced a circuit that is not equivalent to its input (a bug).
    #[error("pass '{pass}' changed the function: outputs {outputs:?} differ on input {inputs}")]
    NotEquivalent {
        /// The pass.
        pass: String,
        /// Differing outputs.
        outputs: Vec<usize>,
        /// The counterexample as a bit string (input 0 first).
        inputs: String,
    },
    /// The equivalence check itself failed.
    #[error(transparent)]
    Cec(#[from] crate::pass::cec::CecError),
}

/// The registered pass names with one line of help each.
pub const PASSES: &[(&str, &str)] = &[
    ("constprop", "propagate constants and trivial ANDs"),
    ("sweep", "remove AND nodes no output reaches"),
    ("strash", "structural hashing: merge AND nodes with equal fan-ins"),
    ("fraig", "SAT sweeping: merge nodes proven equivalent"),
    ("balance", "rebuild AND trees with minimum depth"),
    ("rewrite", "rewrite 4-input cuts with minimum NPN-class structures (-z: zero gain)"),
    ("rewrite -z", "rewrite, accepting zero-gain replacements"),
    (
        "refactor",
        "collapse reconvergence-driven cuts and re-synthesise them as factored ISOPs (-z: zero gain)",
    ),
    ("refactor -z", "refactor, accepting zero-gain replacements"),
    ("resub", "windowed resubstitution by exhaustive window simulation"),
    ("dc", "merge nodes equal on the care set (changes the function outside it)"),
];

/// The pass named `name`.
///
/// # Errors
/// [`PassError::Unknown`], or [`PassError::NoCareSet`] for `dc` without a care set.
pub fn by_name(name: &str, ctx: &PassContext) -> Result<Box<dyn Pass>, PassError> {
    let mut words = name.split_whitespace();
    let head = words.next().unwrap_or("");
    let opts: Vec<&str> = words.collect();
    let zero = opts.contains(&"-z");
    if let Some(bad) = opts.iter().find(|o| **o != "-z" || !matches!(head, "rewrite" | "refactor" | "resub"))
    {
        return Err(PassError::Option { pass: head.to_string(), option: (*bad).to_string() });
    }
    Ok(match head {
        "rewrite" | "rw" => {
            Box::new(Rewrite { params: RewriteParams { zero_gain: zero, ..RewriteParams::default() } })
        }
        "rwz" => Box::new(Rewrite { params: RewriteParams { zero_gain: true, ..RewriteParams::default() } }),
        "refactor" | "rf" => {
            Box::new(Refactor { params: RefactorParams { zero_gain: zero, ..RefactorParams::default() } })
        }
        "rfz" => {
            Box::new(Refactor { params: RefactorParams { zero_gain: true, ..RefactorParams::default() } })
        }
        "constprop" => Box::new(ConstProp),
        "sweep" => Box::new(Sweep),
        "strash" => Box::new(Strash),
        "fraig" => Box::new(Fraig::default()),
        "balance" | "b" => Box::new(Balance),
        "resub" | "rs" => Box::new(Resub::default()),
        "dc" => Box::new(DontCare { care: ctx.care.clone().ok_or(PassError::NoCareSet)? }),
        other => return Err(PassError::Unknown(other.to_string())),
    })
}

/// Parses a script: pass names (with options, `rewrite -z`) separated by commas or
/// semicolons; a named script ([`SCRIPTS`]: `resyn2`, `compress2`, ...) stands for its
/// passes.
///
/// # Errors
/// As [`by_name`], for the first bad name.
pub fn parse_script(script: &str, ctx: &PassContext) -> Result<Vec<Box<dyn Pass>>, PassError> {
    expand_script(script).iter().map(|n| by_name(n, ctx)).collect()
}

/// Runs `passes` in order. With `check`, every function-preserving pass is proven
/// equivalent to its input ([`cec::cec`]); a failed proof is an error.
///
/// # Errors
/// [`PassError::NotEquivalent`] if a checked pass changed the function.
pub fn run_script(
    aig: &Aig,
    passes: &[Box<dyn Pass>],
    check: bool,
) -> Result<(Aig, Vec<PassStats>), PassError> {
    run_script_with(aig, passes, &RunOptions { check, ..RunOptions::default() })
}

/// [`run_script`] with SAT limits, a progress hook and a time budget
/// ([`run_budgeted`], whose skipped passes this drops). A check that runs out of its
/// budget is not an error: the pass's `checked` says `undecided (limit ...)`.
///
/// # Errors
/// [`PassError::NotEquivalent`] if a checked pass changed the function.
pub fn run_script_with(
    aig: &Aig,
    passes: &[Box<dyn Pass>],
    opts: &RunOptions,
) -> Result<(Aig, Vec<PassStats>), PassError> {
    run_budgeted(aig, passes, opts).map(|r| (r.aig, r.passes))
}

/// Runs one pass under `opts` and, with `opts.check`, proves it.
fn run_one(cur: &Aig, p: &dyn Pass, opts: &RunOptions) -> Result<(Aig, PassStats), PassError> {
    let t0 = Instant::now();
    let run = p.run_observed(cur, opts);
    let next = run.aig;
    let seconds = t0.elapsed().as_secs_f64();
    let checked = if !opts.check {
        None
    } else if !p.preserves_function() {
        Some("not applicable".to_string())
    } else {
        let mut params = CecParams::default();
        if let Some(l) = opts.limits {
            params.limits = l;
        }
        let r = cec_with(cur, &next, &params, opts.progress.as_ref())?;
        match r.verdict {
            Verdict::NotEquivalent { inputs, outputs } => {
                let inputs = inputs.iter().map(|&b| if b { '1' } else { '0' }).collect();
                return Err(PassError::NotEquivalent { pass: p.name().into(), outputs, inputs });
            }
            Verdict::Undecided { .. } => Some(format!("undecided (limit {})", params.limits.describe())),
            Verdict::Equivalent => Some(format!("{:?}", r.method).to_lowercase()),
        }
    };
    let stats = PassStats {
        pass: p.name().into(),
        ands_before: cur.n_ands(),
        ands_after: next.n_ands(),
        levels_before: cur.depth(),
        levels_after: next.depth(),
        seconds,
        checked,
        sat: run.sat,
        detail: run.detail,
        local: run.local,
    };
    Ok((next, stats))
}

#[cfg(test)]
mod tests;
