//! `model.json`: a trained model as a small, versioned JSON document. The circuit is
//! rebuilt from the spec, input width, class count and seed (the wiring is a function of
//! the seed, except for layers whose wiring was learned, stored as `learned_wiring`); the
//! parameters are stored as a hex string.

use super::atomic::write_atomic;
use crate::data::Encoder;
use crate::learn::vote_weights::VoteWeights;
use crate::learn::{ModelError, ModelSpec, Network, param_count};
use itertools::Itertools;
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// A saved model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    /// Format version (`FORMAT_VERSION`, now 1).
    pub format_version: u32,
    /// Data set the model was trained on.
    pub dataset: String,
    /// Model spec, e.g. `lut:6:64x1,groupsum:3`.
    pub spec: String,
    /// Seed of the wiring and of training.
    pub seed: u64,
    /// Input bits after encoding.
    pub n_inputs: usize,
    /// Class names, in label order.
    pub class_names: Vec<String>,
    /// How raw features become input bits.
    pub encoder: Encoder,
    /// Optimiser used (`rda`, `rda-votes`).
    pub optimizer: String,
    /// Parameter bits, hex, four per digit, parameter 0 in the lowest bit of the first digit.
    pub params: String,
    /// Learned wiring: entry `l`, when not empty, replaces the seeded wiring of LUT layer
    /// `l` (`k` source indices per LUT; see [`Network::build_with_wiring`]). Absent in
    /// models whose wiring is all drawn from the seed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learned_wiring: Vec<Vec<u32>>,
    /// Integer weights on a `groupsum` head's votes (`--vote-weights`): one per output and
    /// one constant per class. Absent in models whose every vote counts one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_weights: Option<VoteWeights>,
}

/// A `model.json` that cannot be used.
#[derive(Debug, Error)]
pub enum ModelFileError {
    /// The file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The file is not a model document.
    #[error("{path}:{line}:{column}: {msg}")]
    Json {
        /// File.
        path: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What was wrong.
        msg: String,
    },
    /// Written by a newer or older format.
    #[error("{path}: model format version {found}, this build reads version {FORMAT_VERSION}")]
    Version {
        /// File.
        path: String,
        /// Version in the file.
        found: u64,
    },
    /// A smooth (f32 tensor) model where a circuit model is needed.
    #[error("{path}: a smooth model (f32 tensors) is not a circuit; only `eval` reads it")]
    NotACircuit {
        /// File.
        path: String,
    },
    /// The stored spec or shape does not build.
    #[error("{path}: {source}")]
    Model {
        /// File.
        path: String,
        /// Cause.
        source: ModelError,
    },
    /// The parameter string does not fit the model.
    #[error("{path}: {msg}")]
    Params {
        /// File.
        path: String,
        /// What was wrong.
        msg: String,
    },
    /// The fields disagree with each other (a hand-edited file): the encoder's bits and
    /// `n_inputs`, the encoder and its encoding, the class names.
    #[error("{path}: {msg}")]
    Inconsistent {
        /// File.
        path: String,
        /// What disagrees with what.
        msg: String,
    },
}

/// The `format_version` of a JSON document: `Ok(n)` for a non-negative integer, else
/// the complaint (`missing`, or `must be a number, found "2"`). Shared by every
/// versioned file the tool reads (models, checkpoints).
///
/// # Errors
/// The complaint, without the file name.
pub fn format_version_of(doc: &serde_json::Value) -> Result<u64, String> {
    match doc.get("format_version") {
        None => Err("format_version missing".into()),
        Some(v) => v.as_u64().ok_or_else(|| format!("format_version must be a number, found {v}")),
    }
}

/// Parameters as hex, four bits per digit, parameter 0 in the lowest bit of digit 0.
#[must_use]
pub fn params_to_hex(params: &[bool]) -> String {
    params
        .chunks(4)
        .map(|c| {
            let v = c.iter().enumerate().fold(0u32, |a, (i, &b)| a | (u32::from(b) << i));
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect()
}

/// Inverse of [`params_to_hex`] for `n` parameters; `None` on a bad digit or length.
#[must_use]
pub fn params_from_hex(hex: &str, n: usize) -> Option<Vec<bool>> {
    if hex.len() != n.div_ceil(4) {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for ch in hex.chars() {
        let v = ch.to_digit(16)?;
        for i in 0..4 {
            if out.len() < n {
                out.push(v >> i & 1 == 1);
            }
        }
    }
    Some(out)
}

/// What the ports of a model's exported classifier mean, as comment lines for the
/// Verilog header: the encoding and the meaning of every input bit `x[i]` (feature and
/// threshold), and the class order of the output `y`.
#[must_use]
pub fn port_doc(encoder: &Encoder, class_names: &[String]) -> Vec<String> {
    use crate::data::BitRule;
    let mut doc = match (encoder.bit_rules(), encoder.feature_names()) {
        (Some(rules), Some(names)) => {
            let mut d = vec![format!(
                "Inputs: {} bits encoding {} features ({}, feature-major); x[i] = 1 when:",
                rules.len(),
                names.len(),
                encoder.encoding()
            )];
            d.extend(rules.iter().enumerate().map(|(i, &(f, rule))| {
                let n = &names[f];
                match rule {
                    BitRule::Above(t) => format!("  x[{i}]: {n} > {t}"),
                    BitRule::Scaled { min, max } => {
                        format!("  x[{i}]: ({n} - {min}) / ({max} - {min}) > 0.5")
                    }
                    BitRule::Never => format!("  x[{i}]: never ({n} was constant in training)"),
                }
            }));
            d
        }
        _ => {
            vec![format!("Inputs: x[i] is input bit i of the data ({} bits, not encoded).", encoder.n_bits())]
        }
    };
    let classes = class_names.iter().enumerate().map(|(k, c)| format!("{k} = {c}")).join(", ");
    doc.push(format!("Output: y is the class index, unsigned binary: {classes}."));
    doc
}

impl ModelFile {
    /// The port documentation of this model (see [`to_verilog`](crate::to_verilog)'s header).
    #[must_use]
    pub fn port_doc(&self) -> Vec<String> {
        port_doc(&self.encoder, &self.class_names)
    }

    /// Reads and checks a model file.
    ///
    /// # Errors
    /// [`ModelFileError`] naming the file (and line for malformed JSON).
    pub fn read(path: &Path) -> Result<Self, ModelFileError> {
        let p = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|source| ModelFileError::Io { path: p.clone(), source })?;
        Self::parse(&text, &p)
    }

    /// Parses and checks model-file text; `path` names it in errors.
    ///
    /// # Errors
    /// [`ModelFileError::Json`] for malformed JSON or a missing field,
    /// [`ModelFileError::Version`] for another format version.
    pub fn parse(text: &str, path: &str) -> Result<Self, ModelFileError> {
        // Check the version before the full shape, so a newer file says so.
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| json_err(path, &e))?;
        if v.get("domain").and_then(serde_json::Value::as_str) == Some("smooth") {
            return Err(ModelFileError::NotACircuit { path: path.to_owned() });
        }
        let found = format_version_of(&v)
            .map_err(|msg| ModelFileError::Inconsistent { path: path.to_owned(), msg })?;
        if found != u64::from(FORMAT_VERSION) {
            return Err(ModelFileError::Version { path: path.to_owned(), found });
        }
        let file: Self = serde_json::from_str(text).map_err(|e| json_err(path, &e))?;
        file.check(path)?;
        Ok(file)
    }

    /// Checks that the fields agree (everything [`network`](Self::network) and the encoder
    /// rely on), so a hand-edited file is refused when it is read, not half-way through a
    /// command: the encoder is consistent and gives `n_inputs` bits, there is at least one
    /// class, the parameter string has the length the spec needs, and the network builds
    /// (head against classes, learned wiring in range).
    fn check(&self, path: &str) -> Result<(), ModelFileError> {
        let bad = |msg: String| ModelFileError::Inconsistent { path: path.to_owned(), msg };
        self.encoder.check().map_err(|e| bad(e.to_string()))?;
        if self.encoder.n_bits() != self.n_inputs {
            return Err(bad(format!(
                "n_inputs is {} but the encoder gives {} bits",
                self.n_inputs,
                self.encoder.n_bits()
            )));
        }
        if self.class_names.is_empty() {
            return Err(bad("class_names is empty, expected one name per class".into()));
        }
        // The spec against the classes and the learned wiring against the layers: the
        // network builds (cheap next to any use of it).
        self.network(Path::new(path)).map(|_| ())
    }

    /// The number of parameters the spec needs over `n_inputs` and the classes, checked
    /// against the length of the parameter string.
    fn param_count(&self, path: &str) -> Result<(ModelSpec, usize), ModelFileError> {
        let spec: ModelSpec = self
            .spec
            .parse()
            .map_err(|e| ModelFileError::Model { path: path.to_owned(), source: ModelError::Spec(e) })?;
        // The parameter string bounds the network's size, so a hostile `n_inputs` or spec
        // is refused before anything is built from it.
        let n_params = param_count(spec, self.n_inputs, self.class_names.len()).unwrap_or(usize::MAX);
        if n_params.div_ceil(4) != self.params.len() {
            return Err(ModelFileError::Params {
                path: path.to_owned(),
                msg: if n_params == usize::MAX {
                    format!("model {spec} over {} inputs is too large", self.n_inputs)
                } else {
                    format!("params must be {} hex digits for {n_params} parameters", n_params.div_ceil(4))
                },
            });
        }
        Ok((spec, n_params))
    }

    /// Writes the model atomically, pretty-printed.
    ///
    /// # Errors
    /// [`ModelFileError::Io`] if the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), ModelFileError> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        write_atomic(path, text.as_bytes())
            .map_err(|source| ModelFileError::Io { path: path.display().to_string(), source })
    }

    /// Rebuilds the network and its trained parameters.
    ///
    /// # Errors
    /// [`ModelFileError`] if the spec does not build or the parameters do not fit it.
    pub fn network(&self, path: &Path) -> Result<(Network, Vec<bool>), ModelFileError> {
        let p = path.display().to_string();
        let (spec, n_params) = self.param_count(&p)?;
        let n_classes = self.class_names.len();
        let mut net =
            Network::build_with_wiring(spec, self.n_inputs, n_classes, self.seed, &self.learned_wiring)
                .map_err(|source| ModelFileError::Model { path: p.clone(), source })?;
        if let Some(v) = &self.vote_weights {
            let outputs = net.circuit.n_outputs();
            let misfit = if matches!(spec.head, crate::learn::Head::GroupSum(_)) {
                v.misfit(outputs, n_classes)
            } else {
                Some(format!("vote_weights apply to a groupsum head, not {spec}"))
            };
            if let Some(msg) = misfit {
                return Err(ModelFileError::Params { path: p, msg });
            }
            net.vote_weights = Some(v.clone());
        }
        let params = params_from_hex(&self.params, n_params)
            .ok_or_else(|| ModelFileError::Params { path: p, msg: "params must be hex digits".into() })?;
        Ok((net, params))
    }
}

fn json_err(path: &str, e: &serde_json::Error) -> ModelFileError {
    ModelFileError::Json { path: path.to_string(), line: e.line(), column: e.column(), msg: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bits: Vec<bool> = (0..11).map(|i| i % 3 == 0).collect();
        let h = params_to_hex(&bits);
        assert_eq!(h.len(), 3);
        assert_eq!(params_from_hex(&h, 11).unwrap(), bits);
        assert!(params_from_hex("zz", 5).is_none());
        assert!(params_from_hex("0", 5).is_none());
    }

    /// `learned_wiring` survives the JSON round trip, rebuilds the network with it, and is
    /// refused with the file's name when it does not fit the spec.
    #[test]
    fn learned_wiring_round_trips_and_is_checked() {
        let ds = crate::data::load_dataset("iris").unwrap();
        let encoder = Encoder::fit(&crate::data::Encoding::Thermometer { bits: 2 }, &ds).unwrap();
        let spec: ModelSpec = "lut:2:6x1,groupsum:3".parse().unwrap();
        let n_params = param_count(spec, 8, 3).unwrap();
        let wiring: Vec<u32> = (0..12).map(|i| (i * 3 % 8) as u32).collect();
        let mut file = ModelFile {
            format_version: FORMAT_VERSION,
            dataset: "iris".into(),
            spec: spec.to_string(),
            seed: 1,
            n_inputs: 8,
            class_names: ds.class_names.clone(),
            encoder,
            optimizer: "relaxed-adam".into(),
            params: params_to_hex(&vec![true; n_params]),
            learned_wiring: vec![wiring.clone()],
            vote_weights: None,
        };
        let text = serde_json::to_string(&file).unwrap();
        let back = ModelFile::parse(&text, "m.json").unwrap();
        assert_eq!(back, file);
        let (net, _) = back.network(Path::new("m.json")).unwrap();
        let want = Network::build_with_wiring(spec, 8, 3, 1, &[wiring]).unwrap();
        assert_eq!(net, want);
        assert_ne!(net, Network::build(spec, 8, 3, 1).unwrap());
        file.learned_wiring = vec![vec![9; 12]];
        let e = file.network(Path::new("m.json")).unwrap_err().to_string();
        assert!(e.starts_with("m.json: learned wiring of layer 0: source 9"), "{e}");
        // Files without the field read as before.
        file.learned_wiring.clear();
        assert!(!serde_json::to_string(&file).unwrap().contains("learned_wiring"));
    }

    /// `vote_weights` survive the JSON round trip into the network, and weights that do not
    /// fit the head (count, or a magnitude the head circuit cannot repeat) are refused with
    /// the file's name; files without the field have none.
    #[test]
    fn vote_weights_round_trip_and_are_checked() {
        let mut v = iris_model();
        let vw = VoteWeights { weights: vec![1, -2, 3, 0, 4, 1], bias: vec![0, -1, 2] };
        v["vote_weights"] = serde_json::to_value(&vw).unwrap();
        let file = ModelFile::parse(&v.to_string(), "m.json").unwrap();
        assert_eq!(file.network(Path::new("m.json")).unwrap().0.vote_weights, Some(vw));
        v["vote_weights"]["weights"] = serde_json::json!([1, 2, 3]);
        assert!(
            refusal(&v).starts_with("m.json: vote_weights must hold 6 weights and 3 constants"),
            "{}",
            refusal(&v)
        );
        v["vote_weights"]["weights"] = serde_json::json!([1, 2, 3, 4, 5, 1_000_000]);
        assert!(refusal(&v).starts_with("m.json: vote_weights must lie within"), "{}", refusal(&v));
        let plain = ModelFile::parse(&iris_model().to_string(), "m.json").unwrap();
        assert_eq!(plain.network(Path::new("m.json")).unwrap().0.vote_weights, None);
    }

    /// A valid model file of Iris (thermometer:2, 8 input bits) as a JSON value.
    fn iris_model() -> serde_json::Value {
        let ds = crate::data::load_dataset("iris").unwrap();
        let encoder = Encoder::fit(&crate::data::Encoding::Thermometer { bits: 2 }, &ds).unwrap();
        let spec: ModelSpec = "lut:2:6x1,groupsum:3".parse().unwrap();
        let n_params = param_count(spec, 8, 3).unwrap();
        let file = ModelFile {
            format_version: FORMAT_VERSION,
            dataset: "iris".into(),
            spec: spec.to_string(),
            seed: 1,
            n_inputs: 8,
            class_names: ds.class_names.clone(),
            encoder,
            optimizer: "rda".into(),
            params: params_to_hex(&vec![false; n_params]),
            learned_wiring: Vec::new(),
            vote_weights: None,
        };
        serde_json::to_value(&file).unwrap()
    }

    fn refusal(v: &serde_json::Value) -> String {
        match ModelFile::parse(&v.to_string(), "m.json") {
            Ok(_) => "accepted".into(),
            Err(e) => e.to_string(),
        }
    }

    /// Hand-edited files whose parts disagree are refused when read, with one line
    /// naming the file (they used to panic `eval` in the LUT kernel, or export a module
    /// of the wrong width).
    #[test]
    fn inconsistent_files_are_refused_when_read() {
        let good = iris_model();
        assert_eq!(refusal(&good), "accepted");
        let mut v = good.clone();
        v["n_inputs"] = 9.into();
        assert!(
            refusal(&v).starts_with("m.json: n_inputs is 9 but the encoder gives 8 bits"),
            "{}",
            refusal(&v)
        );
        let mut v = good.clone();
        v["encoder"]["input"]["Real"]["codes"][1]["Thermometer"]["thresholds"] = serde_json::json!([]);
        assert_eq!(
            refusal(&v),
            "m.json: encoder feature 1 (sepal_width): 0 thresholds, the encoding gives 2 per feature"
        );
        let mut v = good.clone();
        v["encoder"]["input"]["Real"]["codes"][0]["Thermometer"]["thresholds"] = serde_json::json!([1.0]);
        assert!(refusal(&v).contains("feature 0 (sepal_length): 1 thresholds"), "{}", refusal(&v));
        let mut v = good.clone();
        v["encoder"]["input"]["Real"]["names"] = serde_json::json!(["a"]);
        assert_eq!(refusal(&v), "m.json: encoder has 1 feature names for 4 features");
        let mut v = good.clone();
        v["class_names"] = serde_json::json!(["a", "b"]);
        assert_eq!(refusal(&v), "m.json: head groupsum:3 does not match the data's 2 classes");
        let mut v = good.clone();
        v["learned_wiring"] = serde_json::json!([[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 99]]);
        assert!(refusal(&v).contains("source 99"), "{}", refusal(&v));
        let mut v = good.clone();
        v["class_names"] = serde_json::json!([]);
        assert!(refusal(&v).starts_with("m.json: "), "{}", refusal(&v));
        let mut v = good.clone();
        v["params"] = "0".into();
        assert!(refusal(&v).starts_with("m.json: params must be"), "{}", refusal(&v));
        let mut v = good;
        v["encoder"]["encoding"] = "Threshold".into();
        assert!(refusal(&v).contains("coded for another encoding"), "{}", refusal(&v));
    }

    #[test]
    fn format_version_must_be_a_number() {
        let mut v = iris_model();
        v["format_version"] = "2".into();
        assert_eq!(refusal(&v), "m.json: format_version must be a number, found \"2\"");
        v.as_object_mut().unwrap().remove("format_version");
        assert_eq!(refusal(&v), "m.json: format_version missing");
    }
}
