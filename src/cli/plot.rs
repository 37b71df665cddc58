//! `circuitlearn plot`: test accuracy against AIG AND nodes for a set of training runs
//! (their `metrics.json`) or tables of points (`.tsv`), drawn as an SVG scatter plot, one
//! colour per series.

use super::common::{UsageError, refuse_overwriting_inputs};
use crate::io::plot::{Point, scatter_svg};
use crate::io::write_atomic;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Run directories (holding `metrics.json`), `metrics.json` files, or `.tsv` tables of
    /// points: a header line naming the tab-separated columns, at least `and_nodes` and
    /// `test_accuracy`, optionally `series` and `label` (other columns ignored, `#` lines
    /// skipped; without `series` the file name is the series).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output SVG file.
    #[arg(short, long, visible_alias = "out", default_value = "accuracy-vs-and-nodes.svg")]
    pub output: PathBuf,
    /// Plot title.
    #[arg(long, default_value = "Test accuracy against AIG AND nodes")]
    pub title: String,
    /// Write even when the output is one of the files read (replacing it).
    #[arg(long)]
    pub force: bool,
}

/// The point of one run: `and_nodes`, `test_accuracy`, the series from
/// `training_path` (else domain and optimiser), labelled with the run directory; `None`
/// for a smooth-domain model that is not a circuit (an MLP: `and_nodes` null or absent).
fn point(file: &Path) -> anyhow::Result<Option<Point>> {
    let text = std::fs::read_to_string(file)
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

/// The points of a `.tsv` table: a header naming the tab-separated columns (`and_nodes`
/// and `test_accuracy` required, `series` and `label` optional, others ignored), then
/// one point per line; blank lines and lines starting with `#` are skipped.
///
/// # Errors
/// A [`UsageError`] naming the file and line: unreadable file, no header, a required
/// column missing or a column named twice, a line with a different number of fields, a
/// value that is not a finite number.
fn tsv_points(file: &Path) -> Result<Vec<Point>, UsageError> {
    let at = |n: usize, what: String| UsageError(format!("{}:{n}: {what}", file.display()));
    let text = std::fs::read_to_string(file)
        .map_err(|e| UsageError(format!("{}: cannot read: {e}", file.display())))?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let (header_at, header) =
        lines.next().ok_or_else(|| UsageError(format!("{}: no header line", file.display())))?;
    let names: Vec<&str> = header.split('\t').map(str::trim).collect();
    let column = |k: &str| -> Result<Option<usize>, UsageError> {
        match names.iter().filter(|n| **n == k).count() {
            0 => Ok(None),
            1 => Ok(names.iter().position(|n| *n == k)),
            _ => Err(at(header_at, format!("column \"{k}\" named twice"))),
        }
    };
    let required = |k: &str| {
        column(k)?.ok_or_else(|| {
            at(header_at, format!("no column \"{k}\" in the header (needs and_nodes and test_accuracy)"))
        })
    };
    let (x_col, y_col) = (required("and_nodes")?, required("test_accuracy")?);
    let (series_col, label_col) = (column("series")?, column("label")?);
    let default_series = file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut points = Vec::new();
    for (n, line) in lines {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(at(n, format!("{} fields, the header has {}", fields.len(), names.len())));
        }
        let number = |c: usize| {
            fields[c]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(n, format!("{}: not a number: \"{}\"", names[c], fields[c])))
        };
        points.push(Point {
            x: number(x_col)?,
            y: number(y_col)?,
            series: series_col.map_or_else(|| default_series.clone(), |c| fields[c].to_string()),
            label: label_col.map_or_else(String::new, |c| fields[c].to_string()),
        });
    }
    Ok(points)
}

fn is_tsv(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv"))
}

/// Runs `plot`.
///
/// # Errors
/// A missing or malformed metrics file or table (exit 2); an unwritable output (exit 1).
pub fn run(a: &PlotArgs) -> anyhow::Result<()> {
    let files: Vec<PathBuf> =
        a.runs.iter().map(|r| if r.is_dir() { r.join("metrics.json") } else { r.clone() }).collect();
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    refuse_overwriting_inputs(&[&a.output], &inputs, a.force)?;
    let mut points = Vec::new();
    for (run, file) in a.runs.iter().zip(&files) {
        if is_tsv(file) {
            points.extend(tsv_points(file)?);
            continue;
        }
        match point(file)? {
            Some(p) => points.push(p),
            None => println!("skipped {}: a smooth model, not a circuit (no and_nodes)", run.display()),
        }
    }
    let svg = scatter_svg(&points, &a.title, "AIG AND nodes (whole classifier, log scale)", "test accuracy");
    write_atomic(&a.output, svg.as_bytes()).with_context(|| format!("writing {}", a.output.display()))?;
    println!("plotted {} points -> {}", points.len(), a.output.display());
    Ok(())
}
