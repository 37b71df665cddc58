//! The ring `model.json` (`"domain": "poly"`): a fixed-point ring model as its ring,
//! shape, fraction bits, feature coding (offset and scale per feature), class names and
//! parameters (signed readings). Reading it validates every field against the others:
//! the ring parses, the ring can express the model, there is one parameter per weight
//! and each fits the ring, one offset and one finite non-zero scale per feature.

use super::atomic::write_atomic;
use super::model_file::{ModelFileError, format_version_of};
use crate::domain::ring_kind::RingKind;
use crate::learn::ring_model::{FeatureCoding, MAX_FRAC_BITS, RingModel, RingModelSpec, check_expressible};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of the ring `model.json` layout.
pub const RING_FORMAT_VERSION: u64 = 1;

/// The ring `model.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RingModelFile {
    /// `RING_FORMAT_VERSION` (now 1).
    pub format_version: u64,
    /// `poly`.
    pub domain: String,
    /// The data set trained on.
    pub dataset: String,
    /// `z2k:K`, `zp:P` or `sat:N`.
    pub ring: String,
    /// `linear` or `mlp:H`.
    pub model: String,
    /// Fraction bits `F`.
    pub frac_bits: u8,
    /// The seed of the run.
    pub seed: u64,
    /// Class names, in label order.
    pub class_names: Vec<String>,
    /// Subtracted from each feature before scaling.
    pub feature_offset: Vec<f64>,
    /// Multiplied with each offset feature (then by `2^F`, rounded).
    pub feature_scale: Vec<f64>,
    /// Parameters as signed readings (see [`RingModel::params`]).
    pub params: Vec<i64>,
}

/// Whether model-file text is a ring model (`"domain": "poly"`).
#[must_use]
pub fn is_ring_model(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("domain").and_then(|d| d.as_str().map(|d| d == "poly")))
        .unwrap_or(false)
}

impl RingModelFile {
    /// The file of a trained model.
    #[must_use]
    pub fn of(
        model: &RingModel,
        coding: &FeatureCoding,
        dataset: &str,
        seed: u64,
        class_names: &[String],
    ) -> Self {
        Self {
            format_version: RING_FORMAT_VERSION,
            domain: "poly".into(),
            dataset: dataset.into(),
            ring: model.ring.to_string(),
            model: model.spec.to_string(),
            frac_bits: model.frac_bits,
            seed,
            class_names: class_names.to_vec(),
            feature_offset: coding.offset.clone(),
            feature_scale: coding.scale.clone(),
            params: model.params.iter().map(|&p| model.ring.signed(p)).collect(),
        }
    }

    /// Writes the file atomically.
    ///
    /// # Errors
    /// [`ModelFileError::Io`].
    pub fn write(&self, path: &Path) -> Result<(), ModelFileError> {
        let text = serde_json::to_string(self).expect("a model serializes") + "\n";
        write_atomic(path, text.as_bytes())
            .map_err(|source| ModelFileError::Io { path: path.display().to_string(), source })
    }

    /// Reads and validates a file.
    ///
    /// # Errors
    /// [`ModelFileError`] naming the file: unreadable, malformed, another version, or
    /// fields that disagree.
    pub fn read(path: &Path) -> Result<(Self, RingModel, FeatureCoding), ModelFileError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| ModelFileError::Io { path: shown.clone(), source })?;
        Self::parse(&text, &shown)
    }

    /// Parses and validates file text (`path` names it in errors).
    ///
    /// # Errors
    /// As [`read`](Self::read).
    pub fn parse(text: &str, path: &str) -> Result<(Self, RingModel, FeatureCoding), ModelFileError> {
        let json = |e: serde_json::Error| ModelFileError::Json {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        };
        let doc: serde_json::Value = serde_json::from_str(text).map_err(json)?;
        let bad = |msg: String| ModelFileError::Inconsistent { path: path.to_owned(), msg };
        let version = format_version_of(&doc).map_err(bad)?;
        if version != RING_FORMAT_VERSION {
            return Err(ModelFileError::Inconsistent {
                path: path.to_owned(),
                msg: format!(
                    "ring model format version {version}, this build reads version {RING_FORMAT_VERSION}"
                ),
            });
        }
        let f: Self = serde_json::from_value(doc).map_err(|e| bad(e.to_string()))?;
        if f.domain != "poly" {
            return Err(bad(format!("domain {}, expected poly", f.domain)));
        }
        let ring: RingKind =
            f.ring.parse().map_err(|e: crate::domain::ring_kind::RingError| bad(e.to_string()))?;
        let spec: RingModelSpec =
            f.model.parse().map_err(|e: crate::learn::ring_model::RingModelError| bad(e.to_string()))?;
        if !(1..=MAX_FRAC_BITS).contains(&f.frac_bits) {
            return Err(bad(format!("frac_bits {} outside 1..={MAX_FRAC_BITS}", f.frac_bits)));
        }
        check_expressible(ring, spec, f.frac_bits).map_err(|e| bad(e.to_string()))?;
        let n = f.feature_offset.len();
        if f.feature_scale.len() != n {
            return Err(bad(format!("{n} feature offsets but {} scales", f.feature_scale.len())));
        }
        if let Some(j) = (0..n).find(|&j| {
            !(f.feature_offset[j].is_finite() && f.feature_scale[j].is_finite() && f.feature_scale[j] != 0.0)
        }) {
            return Err(bad(format!("feature {j}: offset and scale must be finite, the scale non-zero")));
        }
        let c = f.class_names.len();
        if c == 0 {
            return Err(bad("no class names".into()));
        }
        let want = RingModel::n_params(spec, n, c);
        if f.params.len() != want {
            return Err(bad(format!(
                "{} parameters, {spec} on {n} features and {c} classes has {want}",
                f.params.len()
            )));
        }
        if let Some(i) = f.params.iter().position(|&p| !ring.fits(p)) {
            return Err(bad(format!("parameter {i} ({}) does not fit {ring}", f.params[i])));
        }
        let model = RingModel {
            spec,
            ring,
            frac_bits: f.frac_bits,
            n_features: n,
            n_classes: c,
            params: f.params.iter().map(|&p| ring.from_signed(p)).collect(),
        };
        let coding = FeatureCoding {
            offset: f.feature_offset.clone(),
            scale: f.feature_scale.clone(),
            frac_bits: f.frac_bits,
        };
        Ok((f, model, coding))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> String {
        let m = RingModel::init(RingModelSpec::Linear, RingKind::Z2k(32), 8, 2, 2, 0);
        let coding = FeatureCoding { offset: vec![0.0, 1.0], scale: vec![1.0, 0.5], frac_bits: 8 };
        serde_json::to_string(&RingModelFile::of(&m, &coding, "d", 0, &["a".into(), "b".into()])).unwrap()
    }

    #[test]
    fn round_trips_and_refuses_inconsistent_files() {
        let text = sample();
        let (f, m, _) = RingModelFile::parse(&text, "m.json").unwrap();
        assert_eq!((f.ring.as_str(), m.params.len()), ("z2k:32", 6));
        assert!(is_ring_model(&text));
        for (from, to) in [
            ("\"z2k:32\"", "\"zp:91\""),
            ("\"z2k:32\"", "\"z2k:12\""),
            ("\"params\":[0,0,0,0,0,0]", "\"params\":[0,0,0]"),
            ("\"params\":[0,0,0,0,0,0]", "\"params\":[0,0,0,0,0,4294967296]"),
            ("\"feature_scale\":[1.0,0.5]", "\"feature_scale\":[1.0]"),
            ("\"linear\"", "\"mlp:0\""),
        ] {
            assert!(text.contains(from), "{from}");
            let e = RingModelFile::parse(&text.replace(from, to), "m.json").unwrap_err();
            assert!(e.to_string().starts_with("m.json: "), "{e}");
        }
    }
}
