//! Comma-separated data sets, parsed as they are read (a gzip stream is never inflated
//! whole) and checked against a memory limit as the parsed values grow.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::{DataError, Dataset, Features, MemoryLimit, for_each_line, open_text, stem_of};

/// Column names that mark the label column of a plain CSV, in order of preference.
const LABEL_COLUMNS: [&str; 4] = ["label", "class", "target", "y"];

/// Reads a CSV file (gunzipped on the fly if the name ends in `.gz`) within the memory
/// the machine has now ([`MemoryLimit::available`]).
///
/// The data set is named after the file stem (`iris.csv.gz` gives `iris`).
///
/// # Errors
/// As [`read_csv_within`].
pub fn read_csv(path: &Path) -> Result<Dataset, DataError> {
    read_csv_within(path, &MemoryLimit::available())
}

/// Reads a CSV file, streaming it, and refuses it as soon as the parsed values would
/// pass `limit`.
///
/// # Errors
/// [`DataError::Io`] if the file cannot be read or decompressed; [`DataError::TooLarge`]
/// past `limit`; otherwise any error of [`parse_csv`].
pub fn read_csv_within(path: &Path, limit: &MemoryLimit) -> Result<Dataset, DataError> {
    let shown = path.display().to_string();
    parse_from(open_text(path)?, &shown, limit)
}

/// Parses CSV text; `path_for_errors` names the source in error messages and gives the
/// data set its name.
///
/// Three layouts are recognised from the first non-blank line:
///
/// 1. **scikit-learn's shipped files**: `n_samples,n_features,class0,class1,...` (two
///    integers, then class names, at least one of them not a number), followed by rows of
///    `n_features` numbers and an integer class index last.
/// 2. **A plain CSV with a header** of column names. The label column is the one named
///    `label`, `class`, `target` or `y` (case-insensitive, in that order of preference),
///    else the last column; every other column must be numeric.
/// 3. **A headerless numeric CSV** (the first line is all numbers, as in scikit-learn's
///    `digits.csv.gz`): the last column is the label, features are named `x0`, `x1`, ...
///
/// In layouts 2 and 3 labels are strings; the class names are the distinct label strings,
/// sorted numerically if all parse as integers, else lexicographically (byte order).
/// Fields are trimmed and a pair of surrounding double quotes is removed (quoted commas are
/// not supported); blank lines are skipped; `\r\n` line ends are accepted.
///
/// # Errors
/// [`DataError::Empty`] if there are no data rows; [`DataError::Parse`] (with the 1-based
/// line) for a row with the wrong number of fields, a feature that is not a finite number,
/// an empty label, a class index that is not an integer or is out of range, or a row count
/// that disagrees with a scikit-learn header; [`DataError::TooLarge`] when the values
/// would pass the memory the machine has.
pub fn parse_csv(text: &str, path_for_errors: &str) -> Result<Dataset, DataError> {
    parse_from(text.as_bytes(), path_for_errors, &MemoryLimit::available())
}

fn parse_from(r: impl std::io::BufRead, path: &str, limit: &MemoryLimit) -> Result<Dataset, DataError> {
    let mut p = Parser { path, limit: *limit, layout: None, values: Vec::new(), labels: Vec::new() };
    // A line's values take up to four times its text (`0,` becomes eight bytes).
    for_each_line(r, path, limit.limit() / 8, |line, text| {
        let text = text.trim();
        if !text.is_empty() {
            p.row(line, &split_fields(text))?;
        }
        Ok(false)
    })?;
    p.finish()
}

/// What the first line said.
enum Layout {
    /// scikit-learn's header: the row count, the features and the class names.
    Sklearn { header_line: usize, n_samples: usize, n_features: usize, class_names: Vec<String> },
    /// Named (or numbered) feature columns and a label column of strings, interned in the
    /// order first seen (`label_bytes`: their total length, for the memory check).
    Plain { names: Vec<String>, label_col: usize, classes: HashMap<String, u32>, label_bytes: u64 },
}

struct Parser<'p> {
    path: &'p str,
    limit: MemoryLimit,
    layout: Option<Layout>,
    values: Vec<f64>,
    labels: Vec<u32>,
}

impl Parser<'_> {
    fn row(&mut self, line: usize, fields: &[&str]) -> Result<(), DataError> {
        let path = self.path;
        let Some(layout) = &mut self.layout else {
            return self.first(line, fields);
        };
        match layout {
            Layout::Sklearn { n_features, class_names, .. } => {
                let (nf, n_classes) = (*n_features, class_names.len());
                field_count(path, line, nf.saturating_add(1), fields.len())?;
                self.reserve(line, nf)?;
                for (col, f) in fields[..nf].iter().enumerate() {
                    self.values.push(number(path, line, col, f)?);
                }
                let class = fields[nf];
                let index: u32 = class.parse().map_err(|_| {
                    DataError::parse(
                        path,
                        line,
                        format!(
                            "'{class}' is not a class index (expected an integer from 0 to {})",
                            n_classes - 1
                        ),
                    )
                })?;
                if index as usize >= n_classes {
                    return Err(DataError::parse(
                        path,
                        line,
                        format!(
                            "class index {index} is out of range: the header names {n_classes} classes (0 to {})",
                            n_classes - 1
                        ),
                    ));
                }
                self.labels.push(index);
            }
            Layout::Plain { names, label_col, .. } => {
                let (nf, label_col) = (names.len(), *label_col);
                field_count(path, line, nf + 1, fields.len())?;
                self.reserve(line, nf)?;
                let mut label = None;
                for (col, f) in fields.iter().enumerate() {
                    if col == label_col {
                        if f.is_empty() {
                            return Err(DataError::parse(
                                path,
                                line,
                                format!("field {} (the label) is empty", col + 1),
                            ));
                        }
                        label = Some(*f);
                    } else {
                        self.values.push(number(path, line, col, f)?);
                    }
                }
                let label = label.unwrap_or_default();
                let Some(Layout::Plain { classes, label_bytes, .. }) = &mut self.layout else {
                    return Ok(());
                };
                let next = u32::try_from(classes.len()).unwrap_or(u32::MAX);
                let id = match classes.get(label) {
                    Some(&id) => id,
                    None => {
                        *label_bytes += label.len() as u64 + 64;
                        classes.insert(label.to_owned(), next);
                        next
                    }
                };
                self.labels.push(id);
            }
        }
        Ok(())
    }

    /// The first non-blank line: decides the layout (and is a data row when headerless).
    fn first(&mut self, line: usize, fields: &[&str]) -> Result<(), DataError> {
        let path = self.path;
        if is_sklearn_header(fields) {
            // `is_sklearn_header` checked that both leading fields parse.
            let n_samples: usize = fields[0].parse().unwrap_or(0);
            let n_features: usize = fields[1].parse().unwrap_or(0);
            if n_features == 0 {
                return Err(DataError::parse(path, line, "header says 0 features, expected at least 1"));
            }
            let class_names = fields[2..].iter().map(|s| (*s).to_owned()).collect();
            self.layout = Some(Layout::Sklearn { header_line: line, n_samples, n_features, class_names });
            return Ok(());
        }
        let headerless = fields.iter().all(|f| is_number(f));
        let (names, label_col) = if headerless {
            let n_features = fields.len().saturating_sub(1);
            ((0..n_features).map(|i| format!("x{i}")).collect(), n_features)
        } else {
            header_columns(path, line, fields)?
        };
        if names.is_empty() {
            return Err(DataError::parse(
                path,
                line,
                "expected at least 2 fields (features, then a label), found 1",
            ));
        }
        self.layout = Some(Layout::Plain { names, label_col, classes: HashMap::new(), label_bytes: 0 });
        if headerless { self.row(line, fields) } else { Ok(()) }
    }

    /// Makes room for `more` values (and a label), checking the memory the grown buffers
    /// (and, while they are copied, the old ones) would take.
    fn reserve(&mut self, line: usize, more: usize) -> Result<(), DataError> {
        let (len, cap) = (self.values.len(), self.values.capacity());
        if len + more <= cap && self.labels.len() < self.labels.capacity() {
            return Ok(());
        }
        let new_cap = (cap * 2).max(len + more).max(1024);
        let rows = self.labels.len().max(1);
        let new_rows = (rows * 2).max(1024);
        let label_bytes = match &self.layout {
            Some(Layout::Plain { label_bytes, .. }) => *label_bytes,
            _ => 0,
        };
        let need = ((cap + new_cap) as u64)
            .checked_mul(8)
            .and_then(|v| v.checked_add(((rows + new_rows) as u64) * 4))
            .and_then(|v| v.checked_add(label_bytes));
        self.limit.check(self.path, &format!("the values parsed up to line {line}"), need)?;
        self.values.reserve_exact(new_cap - len);
        self.labels.reserve_exact(new_rows - self.labels.len());
        Ok(())
    }

    fn finish(self) -> Result<Dataset, DataError> {
        let path = self.path;
        let name = stem_of(path);
        let Some(layout) = self.layout else {
            return Err(DataError::Empty { path: path.to_owned() });
        };
        if self.labels.is_empty() {
            return Err(DataError::Empty { path: path.to_owned() });
        }
        match layout {
            Layout::Sklearn { header_line, n_samples, n_features, class_names } => {
                if self.labels.len() != n_samples {
                    return Err(DataError::parse(
                        path,
                        header_line,
                        format!("header says {n_samples} rows, found {}", self.labels.len()),
                    ));
                }
                let names = (0..n_features).map(|i| format!("x{i}")).collect();
                Ok(Dataset {
                    name,
                    features: Features::Real { n_features, values: self.values, names },
                    labels: self.labels,
                    class_names,
                })
            }
            Layout::Plain { names, classes, .. } => {
                let class_names = sorted_classes(classes.keys().map(String::as_str));
                let mut remap = vec![0u32; classes.len()];
                for (new, n) in (0u32..).zip(&class_names) {
                    remap[classes[n] as usize] = new;
                }
                let labels = self.labels.iter().map(|&l| remap[l as usize]).collect();
                let n_features = names.len();
                Ok(Dataset {
                    name,
                    features: Features::Real { n_features, values: self.values, names },
                    labels,
                    class_names,
                })
            }
        }
    }
}

/// Splits a trimmed line on commas, trimming each field and removing surrounding quotes.
fn split_fields(line: &str) -> Vec<&str> {
    line.split(',')
        .map(|f| {
            let f = f.trim();
            f.strip_prefix('"').and_then(|g| g.strip_suffix('"')).unwrap_or(f)
        })
        .collect()
}

fn is_number(s: &str) -> bool {
    s.parse::<f64>().is_ok()
}

/// `n_samples,n_features,names...` with at least one name that is not a number.
fn is_sklearn_header(fields: &[&str]) -> bool {
    fields.len() >= 3
        && fields[0].parse::<usize>().is_ok()
        && fields[1].parse::<usize>().is_ok()
        && fields[2..].iter().any(|f| !is_number(f))
}

/// Parses a finite number from field `col` (0-based) of `line`.
fn number(path: &str, line: usize, col: usize, s: &str) -> Result<f64, DataError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => {
            Err(DataError::parse(path, line, format!("'{s}' is not a finite number (field {})", col + 1)))
        }
        Err(_) if s.is_empty() => {
            Err(DataError::parse(path, line, format!("field {} is empty, expected a number", col + 1)))
        }
        Err(_) => Err(DataError::parse(path, line, format!("'{s}' is not a number (field {})", col + 1))),
    }
}

fn field_count(path: &str, line: usize, expected: usize, found: usize) -> Result<(), DataError> {
    if expected == found {
        Ok(())
    } else {
        Err(DataError::parse(path, line, format!("expected {expected} fields, found {found}")))
    }
}

/// Column names of a plain header and the index of the label column.
fn header_columns(path: &str, line: usize, header: &[&str]) -> Result<(Vec<String>, usize), DataError> {
    if header.len() < 2 {
        return Err(DataError::parse(
            path,
            line,
            format!("header has {} column, expected at least 2 (features, then a label)", header.len()),
        ));
    }
    let label_col = LABEL_COLUMNS
        .iter()
        .find_map(|want| header.iter().position(|h| h.eq_ignore_ascii_case(want)))
        .unwrap_or(header.len() - 1);
    let names = header
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != label_col)
        .map(|(i, h)| if h.is_empty() { format!("x{i}") } else { (*h).to_owned() })
        .collect();
    Ok((names, label_col))
}

/// Distinct labels, numerically sorted if all are integers, else in byte order.
fn sorted_classes<'a>(labels: impl Iterator<Item = &'a str>) -> Vec<String> {
    let distinct: BTreeSet<&str> = labels.collect();
    let mut names: Vec<&str> = distinct.into_iter().collect();
    let ints: Option<Vec<i128>> = names.iter().map(|s| s.parse::<i128>().ok()).collect();
    if let Some(ints) = ints {
        let mut pairs: Vec<(i128, &str)> = ints.into_iter().zip(names).collect();
        pairs.sort_unstable();
        names = pairs.into_iter().map(|(_, s)| s).collect();
    }
    names.into_iter().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str, path: &str) -> String {
        parse_csv(text, path).err().map(|e| e.to_string()).unwrap_or_default()
    }

    fn real(d: &Dataset) -> (usize, &[f64], &[String]) {
        match &d.features {
            Features::Real { n_features, values, names } => (*n_features, values, names),
            Features::Bits(_) => panic!("expected real features"),
        }
    }

    #[test]
    fn sklearn_layout() -> Result<(), DataError> {
        let d = parse_csv("3,2,a,b\r\n1.5,2,0\r\n\r\n 3 , 4 ,1\r\n5,6e-1,1\r\n", "dir/t.csv")?;
        assert_eq!(d.name, "t");
        assert_eq!(d.labels, vec![0, 1, 1]);
        assert_eq!(d.class_names, vec!["a", "b"]);
        let (n, v, names) = real(&d);
        assert_eq!((n, v), (2, &[1.5, 2.0, 3.0, 4.0, 5.0, 0.6][..]));
        assert_eq!(names, &["x0", "x1"]);
        Ok(())
    }

    #[test]
    fn plain_layout_with_named_label() -> Result<(), DataError> {
        let text = "sepal,Class,petal\n1,virginica,2\n3,setosa,4\n5,virginica,6\n";
        let d = parse_csv(text, "p.csv")?;
        assert_eq!(d.class_names, vec!["setosa", "virginica"]);
        assert_eq!(d.labels, vec![1, 0, 1]);
        let (n, v, names) = real(&d);
        assert_eq!((n, v), (2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0][..]));
        assert_eq!(names, &["sepal", "petal"]);
        Ok(())
    }

    #[test]
    fn plain_layout_last_column_numeric_labels() -> Result<(), DataError> {
        let d = parse_csv("\"a\",\"b\",out\n0,0,10\n0,1,9\n1,1,-2\n", "q.csv")?;
        assert_eq!(d.class_names, vec!["-2", "9", "10"]);
        assert_eq!(d.labels, vec![2, 1, 0]);
        assert_eq!(real(&d).2, &["a", "b"]);
        Ok(())
    }

    #[test]
    fn headerless_layout() -> Result<(), DataError> {
        let d = parse_csv("0,1,3\n2,3,0\n", "h.csv")?;
        assert_eq!(d.class_names, vec!["0", "3"]);
        assert_eq!(d.labels, vec![1, 0]);
        assert_eq!(real(&d).0, 2);
        Ok(())
    }

    #[test]
    fn malformed_inputs_name_file_and_line() {
        let sk = "150,4,setosa,versicolor,virginica\n";
        let rows5 = "5.1,3.5,1.4,0.2,0\n".repeat(5);
        assert_eq!(
            err(&format!("{sk}{rows5}1,2,3,0\n"), "iris.csv"),
            "iris.csv:7: expected 5 fields, found 4"
        );
        assert_eq!(err("2,1,a,b\n0,0\nabc,1\n", "x.csv"), "x.csv:3: 'abc' is not a number (field 1)");
        assert_eq!(err("2,1,a,b\n0,0\n,1\n", "x.csv"), "x.csv:3: field 1 is empty, expected a number");
        assert_eq!(err("2,1,a,b\n0,0\ninf,1\n", "x.csv"), "x.csv:3: 'inf' is not a finite number (field 1)");
        assert_eq!(
            err("2,1,a,b\n0,0\n1,2\n", "x.csv"),
            "x.csv:3: class index 2 is out of range: the header names 2 classes (0 to 1)"
        );
        assert_eq!(
            err("2,1,a,b\n0,0\n1,1.0\n", "x.csv"),
            "x.csv:3: '1.0' is not a class index (expected an integer from 0 to 1)"
        );
        assert_eq!(err("3,1,a,b\n0,0\n1,1\n", "x.csv"), "x.csv:1: header says 3 rows, found 2");
        assert_eq!(err("a,label\n1,x\n2,x,3\n", "p.csv"), "p.csv:3: expected 2 fields, found 3");
        assert_eq!(err("a,label\n1,x\nq,y\n", "p.csv"), "p.csv:3: 'q' is not a number (field 1)");
        assert_eq!(err("label,a\n,1\n", "p.csv"), "p.csv:2: field 1 (the label) is empty");
        assert_eq!(
            err("label\nx\n", "p.csv"),
            "p.csv:1: header has 1 column, expected at least 2 (features, then a label)"
        );
        assert_eq!(err("\n \r\n", "e.csv"), "e.csv: no data rows");
        assert_eq!(err("a,b\n", "e.csv"), "e.csv: no data rows");
        assert_eq!(
            err("1,18446744073709551615,a\n1,0\n", "h.csv"),
            "h.csv:2: expected 18446744073709551615 fields, found 2"
        );
    }

    /// A gzip bomb (a few KB expanding to 40 MB of rows) is parsed as it streams and refused
    /// once its values would pass the limit, long before the text is all inflated.
    #[test]
    fn gzip_bombs_stop_at_the_memory_limit() -> Result<(), Box<dyn std::error::Error>> {
        use std::io::Write;
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("bomb.csv.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(b"a,b,c,label\n")?;
        let rows = "0,0,0,x\n".repeat(1 << 16);
        for _ in 0..80 {
            enc.write_all(rows.as_bytes())?;
        }
        std::fs::write(&path, enc.finish()?)?;
        let e = read_csv_within(&path, &MemoryLimit::bytes(4 << 20)).err().map(|e| e.to_string());
        let e = e.unwrap_or_default();
        assert!(e.contains("bomb.csv.gz: the values parsed up to line "), "{e}");
        assert!(e.ends_with("more than the 4.0 MiB --max-memory limit"), "{e}");
        // The same rows fit a larger limit.
        assert_eq!(read_csv_within(&path, &MemoryLimit::bytes(1 << 30))?.n_examples(), 80 << 16);
        Ok(())
    }

    #[test]
    fn gzip_file_roundtrip() -> Result<(), Box<dyn std::error::Error>> {
        use std::io::Write;
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("small.csv.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b"a,b,label\n1,2,x\n3,4,y\n")?;
        std::fs::write(&path, enc.finish()?)?;
        let d = read_csv(&path)?;
        assert_eq!(d.name, "small");
        assert_eq!(d.labels, vec![0, 1]);
        let d2 = crate::data::load_dataset(&path.display().to_string())?;
        assert_eq!(d, d2);
        Ok(())
    }
}
