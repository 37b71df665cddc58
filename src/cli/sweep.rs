//! `circuitlearn sweep --grid GRID.toml -o DIR`: trains every point of a grid of training
//! configurations, each into its own run directory `DIR/pNNN/` (the files `train` writes),
//! and tabulates them in `DIR/results.tsv` (one row per point: its grid values, test
//! accuracy, AND nodes, seconds). Every option of every point is checked before any
//! training starts. With `valid-fold` (in the grid, `[set]` or base) a `held_out` column
//! says what each point's `test_accuracy` scored: `valid I/F`, its validation fold of the
//! training examples (the test split untouched), or `test`; with `valid-fold` a key of the
//! grid (or `seed` one, every point holding out a fold), the closing line names the
//! setting with the best mean over its repeats, and how many standard errors it leads
//! the next by (one run's noise pooled over the settings' repeats), and `DIR/settings.tsv`
//! lists every setting's mean, best first. The grid
//! file is TOML:
//!
//! ```toml
//! base = "wine.toml"   # optional: a `train --config` file (relative to this file)
//! [set]                # optional: options every point shares, over the base
//! epochs = 5
//! [grid]               # lists of values; the points are every combination,
//! lr = [0.1, 0.3]      # the first key varying slowest
//! seed = [0, 1, 2]
//! ```
//!
//! Points run through the suites' job queue ([`dist::run_jobs`](crate::dist::run_jobs)):
//! in order in one process; under `mpirun -np N` handed out one at a time to whichever rank
//! is free, the costliest first (epochs times the numbers of the model spec). A point is
//! trained by one rank alone, which writes its run directory (so `DIR` must be on a file
//! system every rank sees); rank 0 writes `results.tsv`, the same file as one process
//! writes but for the seconds. `--resume` skips the points already finished.

use super::common::{UsageError, check_output_folder, progress, set_threads};
use super::results::ResultsTable;
use super::train::{INCOMPLETE_FILE, train_options};
use crate::pipeline::{TrainConfig, TrainOptions};
use anyhow::Context;
use clap::Args;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml::Spanned;

/// Arguments of `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The grid: a TOML file with an optional `base = "FILE.toml"` (a `train --config`
    /// file), an optional `[set]` table of options every point shares and a `[grid]`
    /// table of lists of option values (every combination is a point).
    #[arg(long, value_name = "GRID.toml")]
    pub grid: PathBuf,
    /// Output folder: one run directory per point (`p000`, `p001`, ...), `points.toml`
    /// (every point's options), `results.tsv` and, for a grid over validation folds or
    /// seeds, `settings.tsv` (each setting's mean over them).
    #[arg(short, long, visible_alias = "output")]
    pub out: PathBuf,
    /// Continue the sweep in the output folder: points already finished are skipped (the
    /// grid must be the one it was started with).
    #[arg(long)]
    pub resume: bool,
    /// Check every point's options and list the points; train nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Worker threads of each rank, 0 = one per core (shared among the ranks of one
    /// machine); results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

/// The grid file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    base: Option<Spanned<String>>,
    #[serde(default)]
    set: BTreeMap<String, Spanned<toml::Value>>,
    grid: Option<BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>>,
}

/// Where an option's value was written: a file and a line.
#[derive(Clone, Debug)]
struct Place {
    file: String,
    line: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A value of the grid with its line.
struct GridValue {
    value: toml::Value,
    line: usize,
}

/// The grid, checked: its keys in file order with their values, and every point.
struct Grid {
    keys: Vec<(String, Vec<GridValue>)>,
    /// Per point: the index of its value of each key.
    points: Vec<Vec<usize>>,
    /// Per point: its options (base < set < grid values; `out` its run directory).
    options: Vec<TrainOptions>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A value as a cell of `results.tsv`: strings without quotes, tabs and newlines as spaces.
fn cell(v: &toml::Value) -> String {
    let s = match v {
        toml::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    s.replace(['\t', '\n', '\r'], " ")
}

/// Options of one `key = value`, or why they are not train options.
fn one_option(key: &str, value: &toml::Value) -> Result<TrainOptions, String> {
    let mut t = toml::Table::new();
    t.insert(key.to_owned(), value.clone());
    t.try_into::<TrainOptions>().map_err(|e| format!("{key}: {}", e.message().trim()))
}

/// The line of `key = ...` in a TOML text (the first such line), if any.
fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('=')))
        .map(|i| i + 1)
}

fn usage(place: &Place, message: impl std::fmt::Display) -> anyhow::Error {
    UsageError(format!("{place}: {message}")).into()
}

/// Reads and checks the grid file: every value a train option of the right type, and
/// every point's options valid ([`TrainConfig::resolve`]), each point's run directory
/// under `out`.
fn read_grid(path: &Path, out: &Path) -> anyhow::Result<Grid> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{shown}: cannot read: {e}")))?;
    let at = |line: usize| Place { file: shown.clone(), line };
    let file: GridFile = toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(&text, s.start));
        usage(&at(line), e.message().trim())
    })?;
    // The base file and its lines.
    let (base, base_text, base_name) = match &file.base {
        None => (TrainOptions::default(), String::new(), String::new()),
        Some(b) => {
            let p = path.parent().unwrap_or(Path::new("")).join(b.get_ref());
            let t = std::fs::read_to_string(&p).map_err(|e| {
                usage(&at(line_of(&text, b.span().start)), format!("base {}: {e}", p.display()))
            })?;
            let o = TrainOptions::from_toml(&t, &p.display().to_string())
                .map_err(|e| UsageError(e.to_string()))?;
            (o, t, p.display().to_string())
        }
    };
    let sweep_sets = |place: &Place, key: &str| -> anyhow::Result<()> {
        if key == "out" {
            return Err(usage(place, "out: the sweep sets each point's run directory (DIR/pNNN); remove it"));
        }
        Ok(())
    };
    if base.out.is_some() {
        let line = key_line(&base_text, "out").or_else(|| key_line(&base_text, "output")).unwrap_or(1);
        sweep_sets(&Place { file: base_name.clone(), line }, "out")?;
    }
    let mut set = TrainOptions::default();
    let mut set_lines = BTreeMap::new();
    for (key, v) in &file.set {
        let place = at(line_of(&text, v.span().start));
        sweep_sets(&place, key)?;
        set = set.overlay(&one_option(key, v.get_ref()).map_err(|m| usage(&place, m))?);
        set_lines.insert(key.clone(), place.line);
    }
    let Some(grid) = file.grid.filter(|g| !g.is_empty()) else {
        return Err(usage(&at(1), "[grid]: needs at least one key with a list of values (lr = [0.1, 0.3])"));
    };
    let mut keys: Vec<(usize, String, Vec<GridValue>)> = Vec::new();
    for (key, values) in grid {
        let place = at(line_of(&text, values.span().start));
        sweep_sets(&place, &key)?;
        if set_lines.contains_key(&key) {
            return Err(usage(&place, format!("{key}: is in both [set] and [grid]")));
        }
        if values.get_ref().is_empty() {
            return Err(usage(&place, format!("{key}: needs at least one value")));
        }
        let mut checked = Vec::new();
        for v in values.get_ref() {
            let line = line_of(&text, v.span().start);
            one_option(&key, v.get_ref()).map_err(|m| usage(&at(line), m))?;
            checked.push(GridValue { value: v.get_ref().clone(), line });
        }
        keys.push((values.span().start, key, checked));
    }
    keys.sort_by_key(|k| k.0);
    let keys: Vec<(String, Vec<GridValue>)> = keys.into_iter().map(|(_, k, v)| (k, v)).collect();
    let n: usize =
        keys.iter().map(|(_, v)| v.len()).try_fold(1usize, usize::checked_mul).unwrap_or(usize::MAX);
    if n > 100_000 {
        return Err(usage(&at(1), format!("[grid]: {n} points; at most 100000")));
    }
    let width = (n.saturating_sub(1)).to_string().len().max(3);
    let mut points = Vec::with_capacity(n);
    let mut options = Vec::with_capacity(n);
    for p in 0..n {
        // Mixed radix, the last key fastest.
        let mut rest = p;
        let mut idx = vec![0; keys.len()];
        for (k, (_, values)) in keys.iter().enumerate().rev() {
            idx[k] = rest % values.len();
            rest /= values.len();
        }
        let mut o = base.overlay(&set);
        for (k, (key, values)) in keys.iter().enumerate() {
            o = o.overlay(&one_option(key, &values[idx[k]].value).expect("checked above"));
        }
        o.out = Some(out.join(format!("p{p:0width$}")));
        if let Err(e) = TrainConfig::resolve(&o) {
            let key = e.option.trim_start_matches("--");
            let k = keys.iter().position(|(name, _)| name == key);
            let place = match (k, set_lines.get(key), key_line(&base_text, key)) {
                (Some(k), ..) => at(keys[k].1[idx[k]].line),
                (None, Some(&line), _) => at(line),
                (None, None, Some(line)) => Place { file: base_name.clone(), line },
                _ => at(line_of(&text, text.find("[grid]").unwrap_or(0))),
            };
            let values: Vec<String> = keys
                .iter()
                .enumerate()
                .map(|(k, (name, v))| format!("{name} = {}", v[idx[k]].value))
                .collect();
            return Err(usage(&place, format!("{e} (point {p}: {})", values.join(", "))));
        }
        points.push(idx);
        options.push(o);
    }
    Ok(Grid { keys, points, options })
}

/// A point's run directory's name (`p007`).
fn point_name(o: &TrainOptions) -> String {
    o.out.as_deref().and_then(Path::file_name).map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The cost the queue orders points by (largest first): epochs times the numbers of the
/// model spec (`lut:6:64x2` is 6 x 64 x 2), a rough size of the work.
fn cost(o: &TrainOptions) -> u128 {
    let epochs = o.epochs.unwrap_or(20).max(1) as u128;
    let model = o.model.as_deref().unwrap_or("");
    model
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|d| d.parse::<u128>().ok())
        .filter(|&d| d > 0)
        .fold(epochs, |c, d| c.saturating_mul(d))
}

/// Runs `sweep`.
///
/// # Errors
/// A bad grid or point (exit 2, before any training), a point that fails, or an output
/// that cannot be written.
pub fn run(a: &SweepArgs) -> anyhow::Result<()> {
    let grid = read_grid(&a.grid, &a.out)?;
    check_output_folder(&format!("--out {}", a.out.display()), &a.out)?;
    let world = crate::dist::comm_world();
    let root = world.rank() == 0;
    // Points that hold out a validation fold score it, not the test split: a `held_out`
    // column says which (`test_accuracy` keeps its name, as in metrics.json).
    let validation = grid.options.iter().any(|o| o.valid_fold.is_some());
    let header = std::iter::once("point".to_owned())
        .chain(grid.keys.iter().map(|(k, _)| k.clone()))
        .chain(validation.then(|| HELD_OUT.to_owned()))
        .chain(["test_accuracy", "and_nodes", "seconds"].map(String::from))
        .collect::<Vec<_>>()
        .join("\t");
    let recorded =
        toml::to_string(&grid.options.iter().map(|o| (point_name(o), o.clone())).collect::<BTreeMap<_, _>>())
            .expect("options serialize");
    if a.dry_run {
        if root {
            println!("{header}");
            for (p, idx) in grid.points.iter().enumerate() {
                let cells: Vec<String> =
                    grid.keys.iter().zip(idx).map(|((_, v), &i)| cell(&v[i].value)).collect();
                println!("{}\t{}", point_name(&grid.options[p]), cells.join("\t"));
            }
            println!("{} points, every option valid", grid.points.len());
        }
        return Ok(());
    }
    let tsv = a.out.join("results.tsv");
    let points_file = a.out.join("points.toml");
    // Rank 0 alone decides what is left (it writes the folder's tables).
    if root {
        let earlier = std::fs::read_to_string(&points_file).ok();
        match (&earlier, a.resume) {
            (Some(_), false) => {
                return Err(UsageError(format!(
                    "{}: holds a sweep already; give --resume to continue it, or choose another -o",
                    a.out.display()
                ))
                .into());
            }
            (Some(e), true) if *e != recorded => {
                return Err(UsageError(format!(
                    "{}: the sweep there has other points (its points.toml); --resume continues the same grid only",
                    a.out.display()
                ))
                .into());
            }
            _ => {}
        }
        std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
        crate::io::write_atomic(&points_file, recorded.as_bytes())
            .with_context(|| format!("writing {}", points_file.display()))?;
    }
    let mut table = ResultsTable::open(&tsv, &header);
    let finished = |p: usize| {
        let dir = grid.options[p].out.clone().unwrap_or_default();
        table.has(&point_name(&grid.options[p]))
            && dir.join("metrics.json").exists()
            && !dir.join(INCOMPLETE_FILE).exists()
    };
    let mut todo: Vec<usize> = (0..grid.points.len()).filter(|&p| !finished(p)).collect();
    todo.sort_by_key(|&p| std::cmp::Reverse(cost(&grid.options[p])));
    set_threads(crate::dist::threads_per_rank(a.threads));
    if root {
        eprintln!(
            "sweep: {} points, {} to train, {} rank{}",
            grid.points.len(),
            todo.len(),
            world.size(),
            if world.size() == 1 { "" } else { "s" }
        );
    }
    let bar = progress(todo.len() as u64, !root, "sweep");
    let row_cells = |p: usize| -> Vec<String> {
        grid.keys.iter().zip(&grid.points[p]).map(|((_, v), &i)| cell(&v[i].value)).collect()
    };
    let work = |p: usize| -> Result<Vec<u8>, String> {
        let o = &grid.options[p];
        let name = point_name(o);
        let t0 = Instant::now();
        let run = train_options(o, None, true, std::rc::Rc::new(crate::dist::Local))
            .and_then(|r| {
                let r = r.expect("a process of its own is rank 0");
                r.hardware.as_ref().map_or(Ok(()), super::export::TrainedExport::check)?;
                Ok(r)
            })
            .map_err(|e| format!("{name}: {}", super::common::error_line(&e)))?;
        let m = &run.metrics;
        let accuracy = m["test_accuracy"].as_f64().map_or_else(|| "-".to_owned(), |v| format!("{v:.6}"));
        let ands = m["and_nodes"].as_u64().map_or_else(|| "-".to_owned(), |v| v.to_string());
        let held = validation.then(|| held_out(m));
        let row = std::iter::once(name)
            .chain(row_cells(p))
            .chain(held)
            .chain([accuracy, ands, format!("{:.2}", t0.elapsed().as_secs_f64())])
            .collect::<Vec<_>>()
            .join("\t");
        Ok(row.into_bytes())
    };
    let done = |p: usize, bytes: Vec<u8>| -> Result<(), String> {
        let row = String::from_utf8(bytes).map_err(|_| format!("point {p}: a malformed result message"))?;
        let cols: Vec<&str> = row.split('\t').collect();
        let n = cols.len();
        let values: Vec<String> =
            grid.keys.iter().zip(&cols[1..n - 3]).map(|((k, _), v)| format!("{k}={v}")).collect();
        let held = if validation { cols[n - 4] } else { "test" };
        bar.set_message(format!(
            "{} {}: {held} {}, {} AND nodes, {}s",
            cols[0],
            values.join(" "),
            cols[n - 3],
            cols[n - 2],
            cols[n - 1]
        ));
        table.put(row)?;
        bar.inc(1);
        Ok(())
    };
    crate::dist::run_jobs(&*world, &todo, work, done).context("sweep")?;
    bar.finish_and_clear();
    if root {
        let keys: Vec<&str> = grid.keys.iter().map(|(k, _)| k.as_str()).collect();
        print_summary(&table, &keys, validation)?;
    }
    Ok(())
}

/// The `results.tsv` column naming what a point's `test_accuracy` scored (present when a
/// point holds out a validation fold).
const HELD_OUT: &str = "held_out";

/// A point's `held_out` cell: `valid I/F` (its validation fold) or `test`.
fn held_out(metrics: &serde_json::Value) -> String {
    match metrics.get("validation") {
        Some(v) => format!("valid {}/{}", v["fold"], v["folds"]),
        None => "test".to_owned(),
    }
}

/// The closing line: points, the best held-out accuracy (test, or validation folds) and
/// where it is; with `valid-fold` a key of the grid (or `seed` one, points holding out a
/// fold), also the setting whose mean over its repeats is best, the figure to choose
/// settings by, and how far it leads the next one in units of the run-to-run noise; then
/// every setting's mean in `settings.tsv` beside `results.tsv`.
fn print_summary(table: &ResultsTable, keys: &[&str], validation: bool) -> anyhow::Result<()> {
    let rows = table.rows();
    let column = keys.len() + 1 + usize::from(validation);
    let best = rows
        .iter()
        .filter_map(|r| {
            let cols: Vec<&str> = r.split('\t').collect();
            let held = if validation { cols.get(column - 1)? } else { "test" };
            Some((cols.get(column)?.parse::<f64>().ok()?, cols[0].to_owned(), held.to_owned()))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let best = best.map_or(String::new(), |(acc, p, held)| match held.as_str() {
        "test" => format!(", best test accuracy {acc:.4} ({p})"),
        fold => format!(", best held-out accuracy {acc:.4} ({p}, {fold})"),
    });
    let repeats = Repeats::of(rows, keys, column, validation);
    let mut wrote = table.path().display().to_string();
    if let Some(r) = &repeats {
        let path = table.path().with_file_name(SETTINGS_FILE);
        crate::io::write_atomic(&path, r.tsv().as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        wrote = format!("{wrote} and {}", path.display());
    }
    let mean = repeats.map_or(String::new(), |r| format!("; {r}"));
    println!("{} points{best}{mean}; wrote {wrote}", rows.len());
    Ok(())
}

/// The table of settings (each setting's mean over its repeats, best first), beside
/// `results.tsv`.
const SETTINGS_FILE: &str = "settings.tsv";

/// The grid keys whose values repeat a setting rather than change it: the validation
/// fold and the seed.
const REPEAT_KEYS: [&str; 2] = ["valid-fold", "seed"];

/// A setting's held-out accuracies: the values of every grid key but the repeat keys, and
/// one accuracy per run.
#[derive(Debug)]
struct Setting {
    values: Vec<String>,
    runs: Vec<f64>,
}

impl Setting {
    fn mean(&self) -> f64 {
        self.runs.iter().sum::<f64>() / self.runs.len() as f64
    }

    /// The squared distances of its runs from their mean.
    fn squares(&self) -> f64 {
        let m = self.mean();
        self.runs.iter().map(|a| (a - m).powi(2)).sum()
    }

    /// Its own runs' sample standard deviation (`None` with one run).
    fn sd(&self) -> Option<f64> {
        let n = self.runs.len();
        (n > 1).then(|| (self.squares() / (n - 1) as f64).sqrt())
    }
}

/// A grid's settings over their repeats (folds and seeds), best mean first, and the noise
/// of one run, pooled over every setting's repeats (`None` with one run a setting).
#[derive(Debug)]
struct Repeats {
    /// The repeat keys of the grid, in its order.
    over: Vec<String>,
    /// The other keys, naming a setting.
    kept: Vec<String>,
    settings: Vec<Setting>,
    run_sd: Option<f64>,
}

impl Repeats {
    /// Over the rows of `results.tsv` (accuracy in `column`), when the grid repeats
    /// settings (`valid-fold` or `seed` a key) and its points hold out folds
    /// (`validation`): the settings (the first in the grid first on a tie).
    fn of(rows: &[String], keys: &[&str], column: usize, validation: bool) -> Option<Self> {
        let repeat = |k: &&str| REPEAT_KEYS.contains(k);
        if !validation || !keys.iter().any(repeat) {
            return None;
        }
        let mut settings: Vec<Setting> = Vec::new();
        for r in rows {
            let cols: Vec<&str> = r.split('\t').collect();
            let Some(acc) = cols.get(column).and_then(|c| c.parse::<f64>().ok()) else { continue };
            let values: Vec<String> = (0..keys.len())
                .filter(|k| !repeat(&keys[*k]))
                .map(|k| cols.get(k + 1).unwrap_or(&"").to_string())
                .collect();
            match settings.iter_mut().find(|s| s.values == values) {
                Some(s) => s.runs.push(acc),
                None => settings.push(Setting { values, runs: vec![acc] }),
            }
        }
        // Stable: a tie keeps the grid's order.
        settings.sort_by(|a, b| b.mean().total_cmp(&a.mean()));
        let squares: f64 = settings.iter().map(Setting::squares).sum();
        let dof: usize = settings.iter().map(|s| s.runs.len() - 1).sum();
        let names =
            |repeats: bool| keys.iter().filter(|k| repeat(k) == repeats).map(|k| (*k).to_owned()).collect();
        Some(Self {
            over: names(true),
            kept: names(false),
            run_sd: (dof > 0).then(|| (squares / dof as f64).sqrt()),
            settings,
        })
    }

    /// A setting as `key=value ...` (`every point` for a grid of repeats alone).
    fn name(&self, s: &Setting) -> String {
        if self.kept.is_empty() {
            return "every point".to_owned();
        }
        let pairs: Vec<String> = self.kept.iter().zip(&s.values).map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join(" ")
    }

    /// `settings.tsv`: the kept keys, then `runs`, `mean_accuracy` and `sd` (this setting's
    /// runs; empty with one), best mean first.
    fn tsv(&self) -> String {
        let mut out = self.kept.iter().map(|k| format!("{k}\t")).collect::<String>();
        out.push_str("runs\tmean_accuracy\tsd\n");
        for s in &self.settings {
            let sd = s.sd().map_or(String::new(), |sd| format!("{sd:.6}"));
            let values: String = s.values.iter().map(|v| format!("{v}\t")).collect();
            out.push_str(&format!("{values}{}\t{:.6}\t{sd}\n", s.runs.len(), s.mean()));
        }
        out
    }
}

impl std::fmt::Display for Repeats {
    /// The closing line's part: the best setting's mean, its lead over the next in
    /// standard errors of the difference, and one run's sd.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(best) = self.settings.first() else { return Ok(()) };
        let (mean, n) = (best.mean(), best.runs.len());
        let runs = if n == 1 { "run" } else { "runs" };
        write!(f, "best mean over {} {mean:.4} ({}, {n} {runs})", self.over.join(" and "), self.name(best))?;
        if let Some(next) = self.settings.get(1) {
            let lead = mean - next.mean();
            write!(f, ", {lead:.4} ahead of {}", self.name(next))?;
            let se = self.run_sd.map(|sd| sd * (1.0 / n as f64 + 1.0 / next.runs.len() as f64).sqrt());
            if let Some(se) = se.filter(|&se| se > 0.0) {
                write!(f, ", {:.1} standard errors", lead / se)?;
            }
        }
        match self.run_sd {
            Some(sd) => write!(f, " (one run's sd {sd:.4})"),
            None => write!(f, " (one run a setting: no noise estimate)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> anyhow::Result<Grid> {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("base.toml"), "data = \"iris\"\nepochs = 2\n").unwrap();
        std::fs::write(d.path().join("g.toml"), text).unwrap();
        read_grid(&d.path().join("g.toml"), Path::new("out"))
    }

    fn error(text: &str) -> String {
        super::super::common::error_line(&grid(text).err().expect("an error"))
    }

    #[test]
    fn points_are_every_combination_first_key_slowest() {
        let g = grid(
            "base = \"base.toml\"\n[set]\nhardware = \"none\"\n[grid]\nseed = [0, 1, 2]\nlr = [0.1, 0.3]\n",
        )
        .unwrap();
        assert_eq!(g.keys.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(), ["seed", "lr"]);
        assert_eq!(g.points.len(), 6);
        let o = &g.options[3];
        assert_eq!(
            (o.seed, o.lr, o.epochs, o.hardware.as_deref()),
            (Some(1), Some(0.3), Some(2), Some("none"))
        );
        assert_eq!(o.out.as_deref(), Some(Path::new("out/p003")));
    }

    #[test]
    fn a_bad_point_names_the_line_of_its_value() {
        let e = error("[grid]\nseed = [0]\nlr = [0.3,\n  2.0]\n");
        assert!(e.contains("g.toml:4: --lr: ") && e.contains("(point 1: seed = 0, lr = 2.0)"), "{e}");
        let e = error("[set]\nepochs = 2\n[grid]\nmodle = [\"lut:4:8x1\"]\n");
        assert!(e.contains("g.toml:4: ") && e.contains("modle"), "{e}");
        let e = error("[set]\nout = \"x\"\n[grid]\nseed = [0]\n");
        assert!(e.contains("g.toml:2: out: "), "{e}");
        let e = error("[grid]\nseed = []\n");
        assert!(e.contains("g.toml:2: seed: needs at least one value"), "{e}");
        let e = error("[set]\nseed = 1\n[grid]\nseed = [0]\n");
        assert!(e.contains("g.toml:4: seed: is in both"), "{e}");
        let e = error("[grid]\nepochs = [\"two\"]\n");
        assert!(e.contains("g.toml:2: epochs: "), "{e}");
        // An option that conflicts with another: the line of the one the check names.
        let e = error(
            "[set]\nmargin = 0.2\n[grid]\noptimizer = [\"votes\", \"faithful\"]\nmodel = [\"table\"]\n",
        );
        assert!(e.contains("g.toml:2: --margin: ") && e.contains("point 1"), "{e}");
        assert!(error("[set]\nepochs = 2\n").contains("g.toml:1: [grid]"));
    }

    #[test]
    fn the_best_setting_is_the_best_mean_over_its_repeats() {
        let rows: Vec<String> = [
            "p000\ta\t1/2\tvalid 1/2\t0.90\t5\t0.1",
            "p001\ta\t2/2\tvalid 2/2\t0.70\t5\t0.1",
            "p002\tb\t1/2\tvalid 1/2\t0.85\t5\t0.1",
            "p003\tb\t2/2\tvalid 2/2\t0.80\t5\t0.1",
        ]
        .map(String::from)
        .to_vec();
        // a has the best single fold (0.90) but b the best mean (0.825 against 0.80).
        let r = Repeats::of(&rows, &["model", "valid-fold"], 4, true).unwrap();
        let best = &r.settings[0];
        assert_eq!((r.name(best).as_str(), best.runs.len()), ("model=b", 2));
        assert!((best.mean() - 0.825).abs() < 1e-12, "{r:?}");
        assert_eq!(r.name(&r.settings[1]), "model=a");
        // One run's sd pooled over both settings: (0.01 + 0.01 + 0.000625 * 2) / 2.
        let sd = r.run_sd.unwrap();
        assert!((sd - 0.010_625_f64.sqrt()).abs() < 1e-12, "{sd}");
        // The lead, 0.025, is 0.24 of the difference's standard error, sd * sqrt(1/2 + 1/2).
        assert_eq!(
            r.to_string(),
            format!(
                "best mean over valid-fold 0.8250 (model=b, 2 runs), 0.0250 ahead of model=a, 0.2 standard \
                 errors (one run's sd {sd:.4})"
            )
        );
        // Every setting, best first, with its own runs' sd.
        assert_eq!(
            r.tsv(),
            "model\truns\tmean_accuracy\tsd\nb\t2\t0.825000\t0.035355\na\t2\t0.800000\t0.141421\n"
        );
        // A tie goes to the first setting; a grid of folds alone is one setting.
        let tie: Vec<String> =
            rows.iter().map(|r| r.replace("0.85", "0.90").replace("0.80", "0.70")).collect();
        let r = Repeats::of(&tie, &["model", "valid-fold"], 4, true).unwrap();
        assert_eq!(r.name(&r.settings[0]), "model=a");
        let alone: Vec<String> = ["p000\t1/2\tvalid 1/2\t0.5\t5\t0.1", "p001\t2/2\tvalid 2/2\t1.0\t5\t0.1"]
            .map(String::from)
            .to_vec();
        let r = Repeats::of(&alone, &["valid-fold"], 3, true).unwrap();
        assert_eq!(
            (r.settings.len(), r.name(&r.settings[0]), r.settings[0].mean()),
            (1, "every point".into(), 0.75)
        );
        assert_eq!(r.tsv(), "runs\tmean_accuracy\tsd\n2\t0.750000\t0.353553\n");
        // Seeds repeat a setting too, on a fold held out by every point.
        let seeds: Vec<String> = ["p000\ta\t0\tvalid 6/6\t0.5\t5\t0.1", "p001\tb\t0\tvalid 6/6\t0.6\t5\t0.1"]
            .map(String::from)
            .to_vec();
        let r = Repeats::of(&seeds, &["model", "seed"], 4, true).unwrap();
        assert_eq!(
            r.to_string(),
            "best mean over seed 0.6000 (model=b, 1 run), 0.1000 ahead of model=a (one run a setting: no noise estimate)"
        );
        assert_eq!(r.tsv(), "model\truns\tmean_accuracy\tsd\nb\t1\t0.600000\t\na\t1\t0.500000\t\n");
        // Points that score the test split are not repeats to choose by, nor is a grid
        // without a repeat key.
        assert!(Repeats::of(&seeds, &["model", "seed"], 3, false).is_none());
        assert!(Repeats::of(&seeds, &["model", "lr"], 4, true).is_none());
    }

    #[test]
    fn costs_order_bigger_models_first() {
        let o = |m: &str, e: usize| TrainOptions {
            model: Some(m.into()),
            epochs: Some(e),
            ..TrainOptions::default()
        };
        assert!(cost(&o("lut:6:64x2", 2)) > cost(&o("lut:6:64x1", 2)));
        assert!(cost(&o("lut:6:64x1", 4)) > cost(&o("lut:6:64x1", 2)));
    }
}
