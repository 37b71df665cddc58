//! Yosys synthesis figures: generic `synth; abc -lut 6` LUT6 count and the iCE40 flow's
//! `SB_LUT4` count, read from `stat -json`.

use super::tool::{Tool, ToolError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Cell counts of one Verilog module under two flows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct YosysCounts {
    /// `$lut` cells after `synth -top M; abc -lut 6` (LUTs of at most 6 inputs).
    pub lut6: u64,
    /// `SB_LUT4` cells after `synth_ice40 -top M`.
    pub sb_lut4: u64,
    /// Every cell type after the LUT6 flow.
    pub lut6_cells: BTreeMap<String, u64>,
    /// Every cell type after the iCE40 flow.
    pub ice40_cells: BTreeMap<String, u64>,
}

/// Synthesises module `top` of `verilog` twice (generic LUT6 mapping, iCE40) in the
/// file's directory; logs and `stat -json` reports go beside it as
/// `<stem>.yosys-lut6.log`, `<stem>.lut6.json`, `<stem>.yosys-ice40.log`, `<stem>.ice40.json`.
///
/// # Errors
/// [`ToolError`] if Yosys is missing, fails, or writes no readable statistics.
pub fn yosys_counts(verilog: &Path, top: &str) -> Result<YosysCounts, ToolError> {
    let dir = verilog.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file = verilog.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = verilog.file_stem().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let run = |flow: &str, synth: String| -> Result<BTreeMap<String, u64>, ToolError> {
        let json = format!("{stem}.{flow}.json");
        let log = dir.join(format!("{stem}.yosys-{flow}.log"));
        // A stale report from an earlier run must not pass for this one's.
        let _ = std::fs::remove_file(dir.join(&json));
        let script = format!("read_verilog {file}; {synth}; tee -q -o {json} stat -json");
        Tool::Yosys.run_ok(&["-q", "-p", &script], dir, &log)?;
        let fail = |what: String| ToolError::Failed { tool: Tool::Yosys.name(), what, log: log.clone() };
        let text = std::fs::read_to_string(dir.join(&json)).map_err(|e| fail(format!("no {json}: {e}")))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(format!("{json}: {e}")))?;
        let cells = v["design"]["num_cells_by_type"]
            .as_object()
            .ok_or_else(|| fail(format!("{json} has no design.num_cells_by_type")))?;
        Ok(cells.iter().filter_map(|(k, n)| Some((k.clone(), n.as_u64()?))).collect())
    };
    let lut6_cells = run("lut6", format!("synth -top {top}; abc -lut 6"))?;
    let ice40_cells = run("ice40", format!("synth_ice40 -top {top}"))?;
    Ok(YosysCounts {
        lut6: lut6_cells.get("$lut").copied().unwrap_or(0),
        sb_lut4: ice40_cells.get("SB_LUT4").copied().unwrap_or(0),
        lut6_cells,
        ice40_cells,
    })
}
