//! [`load_data`]: the training and test examples of a run, and with `--valid-fold` the
//! validation fold that takes the test split's place, for every domain.

use super::{PipelineError, TrainConfig, TrainData, images};
use crate::data::{self, ValidFold};
use crate::learn::relaxed::PixelGrid;

/// Loads the data of `cfg`: image data (`fashion-mnist`, an IDX directory) with its own
/// test split, otherwise `--data` split (stratified, from the seed) or paired with `--test`.
/// With `--valid-fold I/F` each class's training examples are cut into `F` contiguous
/// parts and part `I` of every class (the fold) takes the test split's place (in
/// `data.test` and, for image data, in `data.images`'s splits); the test split is then
/// read (and checked) but not evaluated.
///
/// # Errors
/// Unreadable or malformed data; a `--valid-fold` with more folds than training examples.
pub fn load_data(cfg: &TrainConfig) -> Result<TrainData, PipelineError> {
    if let Some(mut img) = images::load(&cfg.data, cfg.test.as_deref())? {
        if let Some(fold) = cfg.valid_fold {
            let (rest, held) = fold_split(fold, &img.splits.train.labels)?;
            let train = &img.splits.train;
            img.test_source = format!(
                "validation fold {fold} of {}'s training images ({}); the test split is not evaluated",
                img.name,
                examples(held.len())
            );
            img.splits = data::idx::ImageSplits { test: train.select(&held), train: train.select(&rest) };
        }
        let names: Vec<&str> = img.class_names.iter().map(String::as_str).collect();
        let grid = PixelGrid { width: img.splits.train.images.cols, height: img.splits.train.images.rows };
        return Ok(TrainData {
            name: img.name.clone(),
            train: img.splits.train.to_dataset(&img.name, &names)?,
            test: img.splits.test.to_dataset(&img.name, &names)?,
            test_source: img.test_source.clone(),
            grid: Some(grid),
            images: Some(img),
        });
    }
    let ds = data::load_dataset(&cfg.data)?;
    let (mut train, mut test, mut test_source, test_split) = if let Some(t) = &cfg.test {
        (ds, data::load_dataset(t)?, t.clone(), format!("the test set {t}"))
    } else {
        let (tr, te) = data::stratified_split(&ds.labels, cfg.test_fraction, cfg.seed);
        let pct = cfg.test_fraction * 100.0;
        let src = format!("stratified {pct:.0}% of {} (seed {})", cfg.data, cfg.seed);
        let split = format!("the stratified {pct:.0}% test split (seed {})", cfg.seed);
        (ds.subset(&tr), ds.subset(&te), src, split)
    };
    if let Some(fold) = cfg.valid_fold {
        // The test examples were read (a bad --test is found now), but are not evaluated.
        let (rest, held) = fold_split(fold, &train.labels)?;
        test_source = format!(
            "validation fold {fold} of the {} training examples of {} ({}); {test_split} is not evaluated",
            train.n_examples(),
            cfg.data,
            examples(held.len())
        );
        (train, test) = (train.subset(&rest), train.subset(&held));
    }
    Ok(TrainData { name: train.name.clone(), train, test, test_source, grid: None, images: None })
}

/// The training and held-out examples of `--valid-fold` over training examples of the
/// classes `classes` (stratified: part I of each class's examples).
fn fold_split<K: Ord + Copy>(
    fold: ValidFold,
    classes: &[K],
) -> Result<(Vec<usize>, Vec<usize>), PipelineError> {
    fold.split(classes).map_err(|e| {
        PipelineError::Config(super::ConfigError { option: "--valid-fold".into(), message: e.to_string() })
    })
}

/// `n examples`, or `1 example`.
fn examples(n: usize) -> String {
    format!("{n} example{}", if n == 1 { "" } else { "s" })
}
