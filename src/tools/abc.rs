//! ABC combinational equivalence checking. ABC's exit status is 0 whatever `cec` finds,
//! so the verdict is read from its output.

use super::tool::{Tool, ToolError, ToolLimits};
use itertools::Itertools;
use std::path::Path;

/// The verdict of `cec`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cec {
    /// "Networks are equivalent".
    Equivalent,
    /// "Networks are NOT EQUIVALENT", with ABC's counterexample lines.
    NotEquivalent {
        /// ABC's report.
        report: String,
    },
}

/// How `cec` pairs the inputs and outputs of the two networks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matching {
    /// By name (ABC's default; the name sets must agree).
    Names,
    /// By position (`cec -n`), for files without (matching) symbol tables.
    Positions,
}

/// Runs `cec a b` in `dir` (both files named relative to it; ABC picks the reader from
/// the extension: `.blif`, `.aig`; its generic reader does not open `.aag`), logging to
/// `log`.
///
/// # Errors
/// [`ToolError`] if ABC is missing, fails, or prints neither verdict (for example when a
/// file does not parse, or, matching by name, the two interfaces differ).
pub fn abc_cec(dir: &Path, a: &str, b: &str, matching: Matching, log: &Path) -> Result<Cec, ToolError> {
    abc_cec_limited(dir, a, b, matching, log, &ToolLimits::default())
}

/// [`abc_cec`] bounded by `limits`.
///
/// # Errors
/// As [`abc_cec`], plus [`ToolError::TimedOut`].
pub fn abc_cec_limited(
    dir: &Path,
    a: &str,
    b: &str,
    matching: Matching,
    log: &Path,
    limits: &ToolLimits,
) -> Result<Cec, ToolError> {
    let fail =
        |what: &str| ToolError::Failed { tool: Tool::Abc.name(), what: what.into(), log: log.to_path_buf() };
    if [a, b].iter().any(|f| f.contains(|c: char| c.is_whitespace() || c == ';' || c == '"')) {
        return Err(fail("file names for ABC must not contain white space, ';' or '\"'"));
    }
    let flag = if matching == Matching::Positions { " -n" } else { "" };
    let out = Tool::Abc.run_ok_limited(&["-c", &format!("cec{flag} {a} {b}")], dir, log, limits)?;
    if out.text.contains("Networks are equivalent") {
        Ok(Cec::Equivalent)
    } else if out.text.contains("NOT EQUIVALENT") {
        let report = out.text.lines().skip_while(|l| !l.contains("NOT EQUIVALENT")).join("\n");
        Ok(Cec::NotEquivalent { report })
    } else {
        Err(fail("no verdict in the output of cec"))
    }
}
