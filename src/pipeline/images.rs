//! Image data by name: `fashion-mnist` (Debian's package) or a directory of MNIST-layout
//! IDX files, whose `t10k` split is the test set. Shared by every training domain and by
//! `eval` and `verify`.

use super::PipelineError;
use crate::data::idx::{self, ImageSplits};
use std::path::Path;

/// The two splits of an image directory with the names the outputs use.
pub struct ImageData {
    /// `fashion-mnist` or the directory's name.
    pub name: String,
    /// Training (`train-*`) and test (`t10k-*`) images.
    pub splits: ImageSplits,
    /// One name per class.
    pub class_names: Vec<String>,
    /// Where the test examples came from, for `metrics.json`.
    pub test_source: String,
}

/// Loads `data` when it names image data (`fashion-mnist` or a directory); `None` for
/// anything else (CSV, PLA, a built-in table).
///
/// # Errors
/// Unreadable or inconsistent files, or a `--test` next to image data.
pub fn load(data: &str, test: Option<&str>) -> Result<Option<ImageData>, PipelineError> {
    let path = Path::new(data);
    let builtin = crate::data::BUILTIN_NAMES.iter().any(|n| n.eq_ignore_ascii_case(data));
    let (dir, name) = if data == "fashion-mnist" {
        (Path::new(idx::FASHION_MNIST_DIR), data.to_owned())
    } else if path.is_dir() && !builtin {
        (path, path.file_name().map_or_else(|| "images".to_owned(), |n| n.to_string_lossy().into_owned()))
    } else {
        return Ok(None);
    };
    if test.is_some() {
        return Err(PipelineError::Invalid(format!("--test: {data} brings its own test set (t10k-*)")));
    }
    let splits = idx::read_image_dir(dir)?;
    let (tr, te) = (&splits.train.images, &splits.test.images);
    if (tr.rows, tr.cols) != (te.rows, te.cols) {
        return Err(PipelineError::Invalid(format!(
            "{}: training images are {}x{} but test images {}x{}",
            dir.display(),
            tr.rows,
            tr.cols,
            te.rows,
            te.cols
        )));
    }
    let labels = splits.train.labels.iter().chain(&splits.test.labels);
    let n_classes = labels.copied().max().map_or(1, |m| usize::from(m) + 1);
    let class_names: Vec<String> = if data == "fashion-mnist" && n_classes <= 10 {
        idx::FASHION_MNIST_CLASSES.iter().map(|s| (*s).to_owned()).collect()
    } else {
        (0..n_classes).map(|c| c.to_string()).collect()
    };
    Ok(Some(ImageData { name, splits, class_names, test_source: format!("{}/t10k-*", dir.display()) }))
}
