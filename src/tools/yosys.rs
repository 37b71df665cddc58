//! Yosys synthesis figures: a LUT6 count (`abc -lut 6`) and the iCE40 flow's `SB_LUT4`
//! count, read from `stat -json`. Both mapped netlists are also written as BLIF (the
//! iCE40 cells turned back into generic LUTs), so that a caller can prove them equivalent
//! to what Yosys read (ABC `cec`): the counts are then counts of a checked netlist.

use super::tool::{Tool, ToolError, ToolLimits};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What Yosys reads, and so which scripts it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum YosysFlow {
    /// An and-inverter graph in binary AIGER (`read_aiger`): the LUT6 count is ABC's
    /// mapping of it (`abc -lut 6`; `synth`'s word-level passes have nothing to do on
    /// an AIG), the iCE40 count `synth_ice40`'s. Minutes on a 100,000-gate classifier.
    Aig,
    /// The behavioural Verilog export (`read_verilog`): `synth -top M; abc -lut 6` and
    /// `synth_ice40 -top M`. Yosys's word-level passes take hours on big classifiers
    /// (and overflow a hash table on some), so this is for small circuits.
    Verilog,
}

/// Cell counts of one module under two flows, with the scripts that produced them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct YosysCounts {
    /// What Yosys read.
    pub flow: YosysFlow,
    /// `$lut` cells after the LUT6 flow (LUTs of at most 6 inputs).
    pub lut6: u64,
    /// `SB_LUT4` cells after `synth_ice40`.
    pub sb_lut4: u64,
    /// The exact Yosys script of the LUT6 flow (`yosys -p SCRIPT`, run in the file's
    /// directory).
    pub lut6_script: String,
    /// The exact Yosys script of the iCE40 flow.
    pub ice40_script: String,
    /// The LUT6 netlist as BLIF.
    pub lut6_netlist: PathBuf,
    /// The iCE40 netlist as BLIF, `SB_LUT4` and `SB_CARRY` cells written as LUTs.
    pub ice40_netlist: PathBuf,
    /// Every cell type after the LUT6 flow.
    pub lut6_cells: BTreeMap<String, u64>,
    /// Every cell type after the iCE40 flow.
    pub ice40_cells: BTreeMap<String, u64>,
}

/// A techmap file turning the iCE40 cells `synth_ice40` maps to back into generic
/// cells, so the netlist can be written as BLIF (`SB_LUT4`: `O = LUT_INIT[{I3,I2,I1,I0}]`).
const ICE40_TO_GENERIC: &str = "\
// Written by circuitlearn: iCE40 cells as generic cells, for `write_blif`.
module SB_LUT4 (output O, input I0, I1, I2, I3);
  parameter [15:0] LUT_INIT = 16'h0000;
  \\$lut #(.WIDTH(4), .LUT(LUT_INIT)) _TECHMAP_REPLACE_ (.A({I3, I2, I1, I0}), .Y(O));
endmodule
module SB_CARRY (output CO, input I0, I1, CI);
  assign CO = (I0 & I1) | ((I0 | I1) & CI);
endmodule
";

/// Synthesises module `top` of `input` (read as `flow` says) twice, generic LUT6
/// mapping and iCE40, in the file's directory; logs, `stat -json` reports and netlists
/// go beside it as `<stem>.yosys-lut6.log`, `<stem>.lut6.json`, `<stem>.lut6.blif`,
/// and the same with `ice40`.
///
/// # Errors
/// [`ToolError`] if Yosys is missing, fails, or writes no readable statistics.
pub fn yosys_counts(input: &Path, top: &str, flow: YosysFlow) -> Result<YosysCounts, ToolError> {
    yosys_counts_limited(input, top, flow, &ToolLimits::default())
}

/// [`yosys_counts`] with each Yosys run bounded by `limits`. Reports and netlists are
/// written under temporary names and renamed once Yosys succeeds.
///
/// # Errors
/// As [`yosys_counts`], plus [`ToolError::TimedOut`].
pub fn yosys_counts_limited(
    input: &Path,
    top: &str,
    flow: YosysFlow,
    limits: &ToolLimits,
) -> Result<YosysCounts, ToolError> {
    let dir = input.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file = input.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = input.file_stem().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let techmap = "ice40_to_generic.v";
    crate::io::write_atomic(&dir.join(techmap), ICE40_TO_GENERIC.as_bytes())
        .map_err(|source| ToolError::Io { tool: Tool::Yosys.name(), log: dir.join(techmap), source })?;
    let (read, lut6_map, ice40_map) = match flow {
        YosysFlow::Aig => (
            format!("read_aiger -module_name {top} {file}; hierarchy -top {top}"),
            "abc -lut 6".to_string(),
            format!("synth_ice40 -top {top}"),
        ),
        YosysFlow::Verilog => (
            format!("read_verilog {file}"),
            format!("synth -top {top}; abc -lut 6"),
            format!("synth_ice40 -top {top}"),
        ),
    };
    let run = |name: &str, map: &str, to_blif: &str| -> Result<(String, BTreeMap<String, u64>), ToolError> {
        let json = format!("{stem}.{name}.json");
        let blif = format!("{stem}.{name}.blif");
        let log = dir.join(format!("{stem}.yosys-{name}.log"));
        // Stale reports from an earlier run must not pass for this one's.
        for old in [&json, &blif] {
            let _ = std::fs::remove_file(dir.join(old));
        }
        let part = |f: &str| format!("{f}.partial-{}", std::process::id());
        let (json_part, blif_part) = (part(&json), part(&blif));
        let run_script =
            format!("{read}; {map}; tee -q -o {json_part} stat -json; {to_blif}write_blif {blif_part}");
        let ran = Tool::Yosys.run_ok_limited(&["-q", "-p", &run_script], dir, &log, limits);
        let fail = |what: String| ToolError::Failed { tool: Tool::Yosys.name(), what, log: log.clone() };
        for (p, f) in [(&json_part, &json), (&blif_part, &blif)] {
            if ran.is_ok() {
                std::fs::rename(dir.join(p), dir.join(f)).map_err(|e| fail(format!("no {p}: {e}")))?;
            } else {
                let _ = std::fs::remove_file(dir.join(p));
            }
        }
        ran?;
        // The script as a user would run it (final names).
        let script = format!("{read}; {map}; tee -q -o {json} stat -json; {to_blif}write_blif {blif}");
        let text = std::fs::read_to_string(dir.join(&json)).map_err(|e| fail(format!("no {json}: {e}")))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(format!("{json}: {e}")))?;
        let cells = v["design"]["num_cells_by_type"]
            .as_object()
            .ok_or_else(|| fail(format!("{json} has no design.num_cells_by_type")))?;
        Ok((script, cells.iter().filter_map(|(k, n)| Some((k.clone(), n.as_u64()?))).collect()))
    };
    let (lut6_script, lut6_cells) = run("lut6", &lut6_map, "")?;
    let (ice40_script, ice40_cells) = run("ice40", &ice40_map, &format!("techmap -map {techmap}; "))?;
    Ok(YosysCounts {
        flow,
        lut6: lut6_cells.get("$lut").copied().unwrap_or(0),
        sb_lut4: ice40_cells.get("SB_LUT4").copied().unwrap_or(0),
        lut6_script,
        ice40_script,
        lut6_netlist: dir.join(format!("{stem}.lut6.blif")),
        ice40_netlist: dir.join(format!("{stem}.ice40.blif")),
        lut6_cells,
        ice40_cells,
    })
}
