//! `circuitlearn plot`: test accuracy against AIG AND nodes for a set of training runs
//! (their `metrics.json`), drawn as an SVG scatter plot, one colour per training path.

use super::common::{UsageError, refuse_overwriting_inputs};
use crate::io::plot::{Point, scatter_svg};
use crate::io::write_atomic;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Run directories (holding `metrics.json`) or `metrics.json` files.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output SVG file.
    #[arg(short, long, visible_alias = "out", default_value = "accuracy-vs-and-nodes.svg")]
    pub output: PathBuf,
    /// Plot title.
    #[arg(long, default_value = "Test accuracy against AIG AND nodes")]
    pub title: String,
    /// Write even when the output is one of the metrics files read (replacing it).
    #[arg(long)]
    pub force: bool,
}

/// The point of one run: `and_nodes`, `test_accuracy`, the series from
/// `training_path` (else domain and optimiser), labelled with the run directory; `None`
/// for a smooth-domain model that is not a circuit (an MLP: `and_nodes` null or absent).
fn point(path: &Path) -> anyhow::Result<Option<Point>> {
    let file = if path.is_dir() { path.join("metrics.json") } else { path.to_path_buf() };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| UsageError(format!("{}: cannot read: {e}", file.display())))?;
    let m: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| UsageError(format!("{}:{}: not JSON: {e}", file.display(), e.line())))?;
    let number = |k: &str| {
        m[k].as_f64().ok_or_else(|| {
            UsageError(format!("{}: no number \"{k}\" (is it a metrics.json?)", file.display()))
        })
    };
    if m["domain"] == "smooth" && m["and_nodes"].is_null() {
        return Ok(None);
    }
    let text_of = |k: &str| m[k].as_str().unwrap_or("?").to_string();
    let series = m["training_path"]
        .as_str()
        .map_or_else(|| format!("{} {}", text_of("domain"), text_of("optimizer")), str::to_string);
    let label = file
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok(Some(Point { x: number("and_nodes")?, y: number("test_accuracy")?, series, label }))
}

/// Runs `plot`.
///
/// # Errors
/// A missing or malformed metrics file (exit 2); an unwritable output (exit 1).
pub fn run(a: &PlotArgs) -> anyhow::Result<()> {
    let files: Vec<PathBuf> =
        a.runs.iter().map(|r| if r.is_dir() { r.join("metrics.json") } else { r.clone() }).collect();
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    refuse_overwriting_inputs(&[&a.output], &inputs, a.force)?;
    let mut points = Vec::new();
    for run in &a.runs {
        match point(run)? {
            Some(p) => points.push(p),
            None => println!("skipped {}: a smooth model, not a circuit (no and_nodes)", run.display()),
        }
    }
    let svg = scatter_svg(&points, &a.title, "AIG AND nodes (whole classifier, log scale)", "test accuracy");
    write_atomic(&a.output, svg.as_bytes()).with_context(|| format!("writing {}", a.output.display()))?;
    println!("plotted {} runs -> {}", points.len(), a.output.display());
    Ok(())
}
