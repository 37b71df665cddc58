//! `circuitlearn plot`: test accuracy against AIG AND nodes for a set of training runs
//! (their `metrics.json`) or tables of points (`.tsv`), drawn as an SVG scatter plot, one
//! colour per series. Runs scored on a validation fold (`train --valid-fold`) and tables
//! of `valid_accuracy` plot validation accuracy instead, never on one axis with test
//! accuracy.

use super::common::{UsageError, check_outputs};
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
    /// `test_accuracy` (or `valid_accuracy`), optionally `series` and `label` (other
    /// columns ignored, `#` lines skipped; without `series` the file name is the series).
    /// Test and validation accuracies are not mixed in one plot.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output SVG file.
    #[arg(short, long, visible_alias = "out", default_value = "accuracy-vs-and-nodes.svg")]
    pub output: PathBuf,
    /// Plot title [default: Test (or Validation) accuracy against AIG AND nodes].
    #[arg(long)]
    pub title: Option<String>,
    /// Write even when the output is one of the files read (replacing it).
    #[arg(long)]
    pub force: bool,
}

/// What a point's accuracy was measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scored {
    /// The test split.
    Test,
    /// A validation fold of the training data (`train --valid-fold`), or a table's
    /// `valid_accuracy`.
    Validation,
}

impl Scored {
    /// The y axis's label.
    fn axis(self) -> &'static str {
        match self {
            Self::Test => "test accuracy",
            Self::Validation => "validation accuracy",
        }
    }

    /// The default title.
    fn title(self) -> &'static str {
        match self {
            Self::Test => "Test accuracy against AIG AND nodes",
            Self::Validation => "Validation accuracy against AIG AND nodes",
        }
    }
}

/// The point of one run: `and_nodes`, `test_accuracy` (a validation fold's accuracy when
/// the run held one out), the series from `training_path` (else domain and optimiser),
/// labelled with the run directory; `None` for a smooth-domain model that is not a
/// circuit (an MLP: `and_nodes` null or absent).
fn point(file: &Path) -> anyhow::Result<Option<(Point, Scored)>> {
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
    let scored = if m["validation"].is_object() { Scored::Validation } else { Scored::Test };
    Ok(Some((Point { x: number("and_nodes")?, y: number("test_accuracy")?, series, label }, scored)))
}

/// The points of a `.tsv` table: a header naming the tab-separated columns (`and_nodes`
/// and one of `test_accuracy` and `valid_accuracy` required, `series` and `label`
/// optional, others ignored), then one point per line; blank lines and lines starting
/// with `#` are skipped.
///
/// # Errors
/// A [`UsageError`] naming the file and line: unreadable file, no header, a required
/// column missing or a column named twice, both accuracy columns, a line with a
/// different number of fields, a value that is not a finite number.
fn tsv_points(file: &Path) -> Result<(Vec<Point>, Scored), UsageError> {
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
    let needs = "needs and_nodes and test_accuracy or valid_accuracy";
    let x_col = column("and_nodes")?
        .ok_or_else(|| at(header_at, format!("no column \"and_nodes\" in the header ({needs})")))?;
    let (y_col, scored) = match (column("test_accuracy")?, column("valid_accuracy")?) {
        (Some(c), None) => (c, Scored::Test),
        (None, Some(c)) => (c, Scored::Validation),
        (None, None) => return Err(at(header_at, format!("no accuracy column in the header ({needs})"))),
        (Some(_), Some(_)) => {
            return Err(at(
                header_at,
                "both test_accuracy and valid_accuracy: one accuracy per table".into(),
            ));
        }
    };
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
    Ok((points, scored))
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
    check_outputs(&[&a.output], &inputs, Some(a.force))?;
    let mut points = Vec::new();
    // The first file scored each way, to name them if both occur.
    let mut first: [Option<&Path>; 2] = [None, None];
    for (run, file) in a.runs.iter().zip(&files) {
        let scored = if is_tsv(file) {
            let (p, scored) = tsv_points(file)?;
            points.extend(p);
            scored
        } else {
            match point(file)? {
                Some((p, scored)) => {
                    points.push(p);
                    scored
                }
                None => {
                    println!("skipped {}: a smooth model, not a circuit (no and_nodes)", run.display());
                    continue;
                }
            }
        };
        first[usize::from(scored == Scored::Validation)].get_or_insert(file);
    }
    let scored = match first {
        [Some(test), Some(valid)] => {
            return Err(UsageError(format!(
                "{}: validation accuracies, {}: test accuracies; plot them apart",
                valid.display(),
                test.display()
            ))
            .into());
        }
        [None, Some(_)] => Scored::Validation,
        _ => Scored::Test,
    };
    let title = a.title.as_deref().unwrap_or(scored.title());
    let svg = scatter_svg(&points, title, "AIG AND nodes (whole classifier, log scale)", scored.axis());
    write_atomic(&a.output, svg.as_bytes()).with_context(|| format!("writing {}", a.output.display()))?;
    println!("plotted {} points -> {}", points.len(), a.output.display());
    Ok(())
}
