//! The counted classifier of a run: `classifier.aig`, the AIG whose AND nodes
//! `metrics.json` reports, tied to the `model.json` it was synthesised from by a
//! fingerprint in its AIGER comment section. `export --model` writes this circuit by
//! default, so the exported netlist is the one the run counted.

use crate::aig::Aig;
use crate::io::aiger::{AigerFormat, write_aiger_with_comment};
use crate::io::aiger_reader::{AigerError, parse_aiger_with_comment};
use crate::io::{PortNames, write_atomic_with};
use std::path::{Path, PathBuf};

/// The counted classifier's file name in a run directory.
pub const CLASSIFIER_FILE: &str = "classifier.aig";

/// The comment line that names the model a classifier was synthesised from.
const FINGERPRINT_TAG: &str = "model.json fnv1a64";

/// FNV-1a (64 bits) of a model file's bytes: enough to tell a classifier written for
/// another model (a re-run, a copied file) from its own; not a cryptographic check.
#[must_use]
pub fn model_fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Writes `aig` as binary AIGER to `path` (atomically), its comment naming the
/// fingerprint of `model_bytes`.
///
/// # Errors
/// The file cannot be written.
pub fn write_classifier(path: &Path, aig: &Aig, model_bytes: &[u8]) -> std::io::Result<()> {
    let names = PortNames::indexed("classifier", aig.n_inputs(), aig.outputs().len());
    let comment = format!("{FINGERPRINT_TAG} {:016x}", model_fingerprint(model_bytes));
    write_atomic_with(path, |w| write_aiger_with_comment(aig, &names, AigerFormat::Binary, &comment, w))
}

/// What sits beside a model file.
#[derive(Debug)]
pub enum SavedClassifier {
    /// The classifier synthesised from exactly this model file.
    Matching(Aig),
    /// No `classifier.aig` beside the model.
    Missing,
    /// A `classifier.aig` written for other model bytes (or without a fingerprint).
    Stale(PathBuf),
}

/// The classifier saved beside `model_path` (`DIR/classifier.aig` for `DIR/model.json`),
/// checked against the model file's fingerprint.
///
/// # Errors
/// The model file cannot be read; the classifier file cannot be read or parsed.
pub fn saved_classifier(model_path: &Path) -> Result<SavedClassifier, AigerError> {
    let path = model_path.with_file_name(CLASSIFIER_FILE);
    fn io(file: &Path) -> impl FnOnce(std::io::Error) -> AigerError + '_ {
        move |source| AigerError::Io { file: file.display().to_string(), source }
    }
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(SavedClassifier::Missing),
        Err(e) => return Err(io(&path)(e)),
    };
    let model = std::fs::read(model_path).map_err(io(model_path))?;
    let (aig, _, comment) = parse_aiger_with_comment(&bytes, &path.display().to_string(), "classifier")?;
    let want = format!("{FINGERPRINT_TAG} {:016x}", model_fingerprint(&model));
    Ok(if comment.lines().any(|l| l.trim() == want) {
        SavedClassifier::Matching(aig)
    } else {
        SavedClassifier::Stale(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xor_aig() -> Aig {
        let mut g = Aig::new(2);
        let (a, b) = (g.input(0), g.input(1));
        let x = g.xor(a, b);
        g.add_output(x);
        g
    }

    #[test]
    fn a_classifier_is_found_only_beside_its_own_model() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let model = dir.path().join("model.json");
        assert!(matches!(saved_classifier(&model)?, SavedClassifier::Missing));
        std::fs::write(&model, b"{\"a\": 1}")?;
        write_classifier(&dir.path().join(CLASSIFIER_FILE), &xor_aig(), b"{\"a\": 1}")?;
        match saved_classifier(&model)? {
            SavedClassifier::Matching(aig) => assert_eq!(aig.n_ands(), xor_aig().n_ands()),
            other => panic!("expected the matching classifier, got {other:?}"),
        }
        std::fs::write(&model, b"{\"a\": 2}")?;
        assert!(matches!(saved_classifier(&model)?, SavedClassifier::Stale(_)));
        Ok(())
    }

    #[test]
    fn the_fingerprint_is_fnv1a() {
        assert_eq!(model_fingerprint(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(model_fingerprint(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
