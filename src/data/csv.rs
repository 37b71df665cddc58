//! Comma-separated data sets.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::{DataError, Dataset, Features, numbered_lines, read_text, stem_of};

/// Column names that mark the label column of a plain CSV, in order of preference.
const LABEL_COLUMNS: [&str; 4] = ["label", "class", "target", "y"];

/// Reads a CSV file (gunzipped first if the name ends in `.gz`).
///
/// The data set is named after the file stem (`iris.csv.gz` gives `iris`).
///
/// # Errors
/// [`DataError::Io`] if the file cannot be read or decompressed; otherwise any error of
/// [`parse_csv`].
pub fn read_csv(path: &Path) -> Result<Dataset, DataError> {
    let text = read_text(path)?;
    parse_csv(&text, &path.display().to_string())
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
/// that disagrees with a scikit-learn header.
pub fn parse_csv(text: &str, path_for_errors: &str) -> Result<Dataset, DataError> {
    let path = path_for_errors;
    let mut rows = numbered_lines(text).filter(|(_, l)| !l.is_empty()).map(|(n, l)| (n, split_fields(l)));
    let Some((first_line, first)) = rows.next() else {
        return Err(DataError::Empty { path: path.to_owned() });
    };
    let name = stem_of(path);
    if is_sklearn_header(&first) {
        parse_sklearn(name, path, first_line, &first, rows)
    } else if first.iter().all(|f| is_number(f)) {
        let n_features = first.len().saturating_sub(1);
        let names = (0..n_features).map(|i| format!("x{i}")).collect();
        parse_plain(
            name,
            path,
            first_line,
            names,
            n_features,
            std::iter::once((first_line, first)).chain(rows),
        )
    } else {
        let (names, label_col) = header_columns(path, first_line, &first)?;
        parse_plain(name, path, first_line, names, label_col, rows)
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

fn parse_sklearn<'a>(
    name: String,
    path: &str,
    header_line: usize,
    header: &[&str],
    rows: impl Iterator<Item = (usize, Vec<&'a str>)>,
) -> Result<Dataset, DataError> {
    // `is_sklearn_header` checked that both leading fields parse.
    let n_samples: usize = header[0].parse().unwrap_or(0);
    let n_features: usize = header[1].parse().unwrap_or(0);
    let class_names: Vec<String> = header[2..].iter().map(|s| (*s).to_owned()).collect();
    let n_classes = class_names.len();
    if n_features == 0 {
        return Err(DataError::parse(path, header_line, "header says 0 features, expected at least 1"));
    }
    let mut values = Vec::new();
    let mut labels = Vec::new();
    for (line, fields) in rows {
        field_count(path, line, n_features.saturating_add(1), fields.len())?;
        for (col, f) in fields[..n_features].iter().enumerate() {
            values.push(number(path, line, col, f)?);
        }
        let class = fields[n_features];
        let index: u32 = class.parse().map_err(|_| {
            DataError::parse(
                path,
                line,
                format!("'{class}' is not a class index (expected an integer from 0 to {})", n_classes - 1),
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
        labels.push(index);
    }
    if labels.is_empty() {
        return Err(DataError::Empty { path: path.to_owned() });
    }
    if labels.len() != n_samples {
        return Err(DataError::parse(
            path,
            header_line,
            format!("header says {n_samples} rows, found {}", labels.len()),
        ));
    }
    let names = (0..n_features).map(|i| format!("x{i}")).collect();
    Ok(Dataset { name, features: Features::Real { n_features, values, names }, labels, class_names })
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

/// Parses rows whose column `label_col` is a string label and all others are numbers.
fn parse_plain<'a>(
    name: String,
    path: &str,
    first_line: usize,
    names: Vec<String>,
    label_col: usize,
    rows: impl Iterator<Item = (usize, Vec<&'a str>)>,
) -> Result<Dataset, DataError> {
    let n_features = names.len();
    if n_features == 0 {
        return Err(DataError::parse(
            path,
            first_line,
            "expected at least 2 fields (features, then a label), found 1",
        ));
    }
    let mut values = Vec::new();
    let mut label_text: Vec<&str> = Vec::new();
    for (line, fields) in rows {
        field_count(path, line, n_features + 1, fields.len())?;
        for (col, f) in fields.iter().enumerate() {
            if col == label_col {
                if f.is_empty() {
                    return Err(DataError::parse(
                        path,
                        line,
                        format!("field {} (the label) is empty", col + 1),
                    ));
                }
                label_text.push(f);
            } else {
                values.push(number(path, line, col, f)?);
            }
        }
    }
    if label_text.is_empty() {
        return Err(DataError::Empty { path: path.to_owned() });
    }
    let class_names = sorted_classes(&label_text);
    let index: HashMap<&str, u32> = class_names.iter().zip(0u32..).map(|(n, i)| (n.as_str(), i)).collect();
    let labels = label_text.iter().map(|t| index.get(t).copied().unwrap_or(0)).collect();
    Ok(Dataset { name, features: Features::Real { n_features, values, names }, labels, class_names })
}

/// Distinct labels, numerically sorted if all are integers, else in byte order.
fn sorted_classes(labels: &[&str]) -> Vec<String> {
    let distinct: BTreeSet<&str> = labels.iter().copied().collect();
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
        let d2 = crate::data::load(&path.display().to_string())?;
        assert_eq!(d, d2);
        Ok(())
    }
}
