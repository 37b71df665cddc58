//! Data sets: loading (CSV, Espresso PLA, IDX images, built-in copies of scikit-learn's data),
//! Boolean encoding of numeric features, train/test splits and validation folds.

mod builtin;
mod csv;
mod encode;
mod error;
mod fold;
pub mod idx;
mod memory;
mod pla;
mod split;

use std::io::{BufRead, Read};
use std::path::Path;

pub use builtin::{BUILTIN_NAMES, builtin};
pub use csv::{parse_csv, read_csv, read_csv_within};
pub use encode::{BitRule, Encoder, Encoding, MAX_ENCODED_BITS};
pub use error::DataError;
pub use fold::{FoldError, ValidFold};
pub use memory::MemoryLimit;
pub use pla::{parse_pla, read_pla, read_pla_within};
pub use split::{first_per_class, random_split, stratified_split};

use crate::lanes::BitMatrix;

/// A labelled classification data set.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// Built-in name, or the file stem for data read from a path.
    pub name: String,
    /// One feature vector per example.
    pub features: Features,
    /// Class of each example, an index into `class_names`.
    pub labels: Vec<u32>,
    /// Name of each class.
    pub class_names: Vec<String>,
}

/// The features of a [`Dataset`].
#[derive(Clone, Debug, PartialEq)]
pub enum Features {
    /// Numeric features, row-major (`values[row * n_features + f]`).
    Real {
        /// Features per example.
        n_features: usize,
        /// `n_examples * n_features` values, row-major.
        values: Vec<f64>,
        /// One name per feature.
        names: Vec<String>,
    },
    /// Already-Boolean inputs (PLA): one `BitMatrix` row per input bit, examples packed.
    Bits(BitMatrix),
}

impl Dataset {
    /// Number of examples.
    #[must_use]
    pub fn n_examples(&self) -> usize {
        self.labels.len()
    }

    /// Number of classes (`class_names.len()`).
    #[must_use]
    pub fn n_classes(&self) -> usize {
        self.class_names.len()
    }

    /// The examples at `rows`, in the given order (repeats allowed).
    ///
    /// # Panics
    /// If an index is not below [`n_examples`](Self::n_examples) (a caller bug, not bad input).
    #[must_use]
    pub fn subset(&self, rows: &[usize]) -> Dataset {
        let features = match &self.features {
            Features::Real { n_features, values, names } => {
                let n = *n_features;
                let mut out = Vec::with_capacity(rows.len() * n);
                for &r in rows {
                    out.extend_from_slice(&values[r * n..(r + 1) * n]);
                }
                Features::Real { n_features: n, values: out, names: names.clone() }
            }
            Features::Bits(m) => Features::Bits(m.select_examples(rows)),
        };
        Dataset {
            name: self.name.clone(),
            features,
            labels: rows.iter().map(|&r| self.labels[r]).collect(),
            class_names: self.class_names.clone(),
        }
    }

    /// The examples as images of `width` x `height` pixels (one real feature per pixel,
    /// row by row) moved `dx` pixels right and `dy` pixels down; the pixels moved in are 0.
    ///
    /// # Panics
    /// If the features are not `width * height` real values (a caller bug: the grid comes
    /// from the image data itself).
    #[must_use]
    pub fn shifted(&self, width: usize, height: usize, dx: isize, dy: isize) -> Dataset {
        let Features::Real { n_features, values, names } = &self.features else {
            panic!("shifted needs image pixels as real features");
        };
        assert_eq!(*n_features, width * height, "shifted needs one feature per pixel");
        let mut out = vec![0.0; values.len()];
        for (image, moved) in values.chunks_exact(*n_features).zip(out.chunks_exact_mut(*n_features)) {
            for y in 0..height {
                let Some(from_y) = y.checked_add_signed(-dy).filter(|&v| v < height) else { continue };
                for x in 0..width {
                    if let Some(from_x) = x.checked_add_signed(-dx).filter(|&v| v < width) {
                        moved[y * width + x] = image[from_y * width + from_x];
                    }
                }
            }
        }
        Dataset {
            name: self.name.clone(),
            features: Features::Real { n_features: *n_features, values: out, names: names.clone() },
            labels: self.labels.clone(),
            class_names: self.class_names.clone(),
        }
    }
}

/// Loads a built-in data set by name, else a file chosen by its extension:
/// `.csv`, `.csv.gz`, `.pla` or `.pla.gz` (case-insensitive).
///
/// # Errors
/// [`DataError::Unknown`] if `name_or_path` is neither a built-in name nor a path with a
/// known extension; otherwise any error of [`read_csv`] or [`read_pla`].
pub fn load_dataset(name_or_path: &str) -> Result<Dataset, DataError> {
    load_dataset_within(name_or_path, &MemoryLimit::available())
}

/// [`load_dataset`] keeping what it parses within `limit` (files are streamed, gzip included,
/// so only the parsed data is held; the check is made as it grows).
///
/// # Errors
/// As [`load_dataset`], and [`DataError::TooLarge`] when the parsed data would pass `limit`.
pub fn load_dataset_within(name_or_path: &str, limit: &MemoryLimit) -> Result<Dataset, DataError> {
    if let Some(result) = builtin(name_or_path) {
        return result;
    }
    let lower = name_or_path.to_ascii_lowercase();
    let path = Path::new(name_or_path);
    if lower.ends_with(".csv") || lower.ends_with(".csv.gz") {
        read_csv_within(path, limit)
    } else if lower.ends_with(".pla") || lower.ends_with(".pla.gz") {
        read_pla_within(path, limit)
    } else {
        Err(DataError::Unknown(name_or_path.to_owned()))
    }
}

/// A buffered reader of `path`'s text, gunzipping on the fly if its name ends in `.gz`.
pub(crate) fn open_text(path: &Path) -> Result<Box<dyn BufRead>, DataError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| DataError::Io { path: shown, source })?;
    let gz = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    Ok(if gz {
        Box::new(std::io::BufReader::new(flate2::read::GzDecoder::new(std::io::BufReader::new(file))))
    } else {
        Box::new(std::io::BufReader::new(file))
    })
}

/// Calls `f` on each line of `r` with its 1-based number (the `\n` removed, a byte-order
/// mark on line 1 removed), until `f` returns `true` or the text ends. Only one line is
/// held at a time; a line may be at most `max_line` bytes.
///
/// # Errors
/// [`DataError::Io`] for a read or gzip failure, [`DataError::Parse`] at the line for text
/// that is not UTF-8, a line longer than `max_line`, or more than [`MAX_TEXT_BYTES`] in
/// all; any error of `f`.
pub(crate) fn for_each_line(
    mut r: impl BufRead,
    path: &str,
    max_line: u64,
    mut f: impl FnMut(usize, &str) -> Result<bool, DataError>,
) -> Result<(), DataError> {
    let mut buf = Vec::new();
    let mut total = 0u64;
    let mut line = 0;
    loop {
        line += 1;
        buf.clear();
        let n = (&mut r)
            .take(max_line.saturating_add(1))
            .read_until(b'\n', &mut buf)
            .map_err(|source| DataError::Io { path: path.to_owned(), source })?;
        if n == 0 {
            return Ok(());
        }
        total += n as u64;
        if total > MAX_TEXT_BYTES {
            return Err(DataError::parse(
                path,
                line,
                format!("holds more than {MAX_TEXT_BYTES} bytes of text"),
            ));
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if n as u64 > max_line {
            return Err(DataError::parse(path, line, format!("line is longer than {max_line} bytes")));
        }
        let Ok(mut text) = std::str::from_utf8(&buf) else {
            return Err(DataError::parse(path, line, "not valid UTF-8 text"));
        };
        if line == 1 {
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
        }
        if f(line, text)? {
            return Ok(());
        }
    }
}

/// Largest text a data file may hold (after gunzip): a small compressed file cannot
/// expand into unbounded memory.
pub const MAX_TEXT_BYTES: u64 = 1 << 32;

/// Decodes file contents to text: optional gunzip, UTF-8 check, byte-order mark removed.
/// `path` names the source in errors.
///
/// # Errors
/// [`DataError::Io`] for a broken gzip stream, [`DataError::Parse`] for text that is not
/// UTF-8 or that decompresses to more than [`MAX_TEXT_BYTES`].
pub fn decode_text(bytes: &[u8], gz: bool, path: &str) -> Result<String, DataError> {
    let raw = if gz {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(MAX_TEXT_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|source| DataError::Io { path: path.to_owned(), source })?;
        if out.len() as u64 > MAX_TEXT_BYTES {
            return Err(DataError::parse(
                path,
                1,
                format!("decompresses to more than {MAX_TEXT_BYTES} bytes"),
            ));
        }
        out
    } else {
        bytes.to_vec()
    };
    match String::from_utf8(raw) {
        Ok(mut s) => {
            if s.starts_with('\u{feff}') {
                s.drain(..'\u{feff}'.len_utf8());
            }
            Ok(s)
        }
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..valid].iter().filter(|&&b| b == b'\n').count();
            Err(DataError::parse(path, line, "not valid UTF-8 text"))
        }
    }
}

/// The data set name for a path: its file name without `.gz` and the format extension.
pub(crate) fn stem_of(path: &str) -> String {
    let file =
        Path::new(path).file_name().map_or_else(|| path.to_owned(), |f| f.to_string_lossy().into_owned());
    let mut name = file.as_str();
    for ext in [".gz", ".csv", ".pla"] {
        if name.len() > ext.len() && name[name.len() - ext.len()..].eq_ignore_ascii_case(ext) {
            name = &name[..name.len() - ext.len()];
        }
    }
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_images_move_and_fill_with_zero() {
        // Two 3 x 2 images (width 3): pixel values 1..=6 and 11..=16.
        let values: Vec<f64> = (1..=6).chain(11..=16).map(f64::from).collect();
        let d = Dataset {
            name: "t".into(),
            features: Features::Real {
                n_features: 6,
                values,
                names: (0..6).map(|i| format!("p{i}")).collect(),
            },
            labels: vec![1, 0],
            class_names: vec!["x".into(), "y".into()],
        };
        let pixels = |s: Dataset| match s.features {
            Features::Real { values, .. } => values,
            Features::Bits(_) => panic!("kind changed"),
        };
        // One right: each row's first pixel is new.
        assert_eq!(pixels(d.shifted(3, 2, 1, 0))[..6], [0.0, 1.0, 2.0, 0.0, 4.0, 5.0]);
        // One up: the last row is new.
        assert_eq!(pixels(d.shifted(3, 2, 0, -1))[6..], [14.0, 15.0, 16.0, 0.0, 0.0, 0.0]);
        // Left and down at once, labels kept; no move is the same data.
        assert_eq!(pixels(d.shifted(3, 2, -1, 1))[..6], [0.0, 0.0, 0.0, 2.0, 3.0, 0.0]);
        assert_eq!(d.shifted(3, 2, -1, 1).labels, d.labels);
        assert_eq!(d.shifted(3, 2, 0, 0), d);
    }

    #[test]
    fn subset_keeps_order_and_kind() {
        let d = Dataset {
            name: "t".into(),
            features: Features::Real {
                n_features: 2,
                values: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
                names: vec!["a".into(), "b".into()],
            },
            labels: vec![0, 1, 0],
            class_names: vec!["x".into(), "y".into()],
        };
        let s = d.subset(&[2, 0]);
        assert_eq!(s.labels, vec![0, 0]);
        assert_eq!(s.n_examples(), 2);
        assert_eq!(s.n_classes(), 2);
        match s.features {
            Features::Real { values, .. } => assert_eq!(values, vec![4.0, 5.0, 0.0, 1.0]),
            Features::Bits(_) => panic!("kind changed"),
        }
        let b = Dataset {
            features: Features::Bits(BitMatrix::from_examples(1, &[[true], [false], [true]])),
            ..d
        };
        match b.subset(&[1, 2]).features {
            Features::Bits(m) => assert_eq!((m.get(0, 0), m.get(0, 1)), (false, true)),
            Features::Real { .. } => panic!("kind changed"),
        }
    }

    #[test]
    fn load_dispatch_and_unknown() {
        assert!(matches!(load_dataset("nope"), Err(DataError::Unknown(_))));
        assert!(matches!(load_dataset("missing-file.csv"), Err(DataError::Io { .. })));
        assert_eq!(load_dataset("iris").map(|d| d.name).ok(), Some("iris".to_owned()));
        let e = load_dataset("/nonexistent/x.pla.gz").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.starts_with("/nonexistent/x.pla.gz: "), "{e}");
    }

    #[test]
    fn stems_and_text() {
        assert_eq!(stem_of("dir/ex00.train.pla.gz"), "ex00.train");
        assert_eq!(stem_of("Iris.CSV"), "Iris");
        assert_eq!(decode_text(b"\xef\xbb\xbfa,b\n", false, "f").ok().as_deref(), Some("a,b\n"));
        let e = decode_text(b"a\nb\xff\n", false, "f.csv").err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("f.csv:2: not valid UTF-8 text"));
    }
}
