//! The four small scikit-learn data sets, embedded in the crate (see `data/README.md`).

use super::{DataError, Dataset, Features, decode_text, parse_csv};

/// Names accepted by [`builtin`] (and by [`load`](super::load_dataset)).
pub const BUILTIN_NAMES: &[&str] = &["iris", "wine", "breast-cancer", "digits"];

const IRIS: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/iris.csv"));
const WINE: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/wine_data.csv"));
const BREAST_CANCER: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/breast_cancer.csv"));
const DIGITS: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/digits.csv.gz"));

const IRIS_FEATURES: [&str; 4] = ["sepal_length", "sepal_width", "petal_length", "petal_width"];

const WINE_FEATURES: [&str; 13] = [
    "alcohol",
    "malic_acid",
    "ash",
    "alcalinity_of_ash",
    "magnesium",
    "total_phenols",
    "flavanoids",
    "nonflavanoid_phenols",
    "proanthocyanins",
    "color_intensity",
    "hue",
    "od280/od315_of_diluted_wines",
    "proline",
];

/// The ten measurements of breast-cancer; each appears as mean, error and worst.
const CELL_MEASURES: [&str; 10] = [
    "radius",
    "texture",
    "perimeter",
    "area",
    "smoothness",
    "compactness",
    "concavity",
    "concave_points",
    "symmetry",
    "fractal_dimension",
];

/// A built-in data set by name (ASCII case-insensitive), or `None` if `name` is not one of
/// [`BUILTIN_NAMES`].
///
/// Class names are those of scikit-learn (`setosa`, `class_0`, `malignant`, `0`..`9`);
/// feature names follow scikit-learn's `feature_names` in `snake_case`
/// (`petal_length`, `mean_radius`, `radius_error`, `worst_radius`, `pixel_0_0`, ...).
///
/// # Errors
/// The inner result is an error only if the embedded file failed to parse, which the
/// crate's tests rule out.
#[must_use]
pub fn builtin(name: &str) -> Option<Result<Dataset, DataError>> {
    let canonical = *BUILTIN_NAMES.iter().find(|n| n.eq_ignore_ascii_case(name))?;
    let (bytes, file, gz, names): (&[u8], &str, bool, Vec<String>) = match canonical {
        "iris" => (IRIS, "iris.csv", false, owned(&IRIS_FEATURES)),
        "wine" => (WINE, "wine_data.csv", false, owned(&WINE_FEATURES)),
        "breast-cancer" => (BREAST_CANCER, "breast_cancer.csv", false, breast_cancer_features()),
        _ => (DIGITS, "digits.csv.gz", true, digits_features()),
    };
    let shown = format!("{file} (built-in)");
    Some(decode_text(bytes, gz, &shown).and_then(|text| parse_csv(&text, &shown)).map(|mut d| {
        d.name = canonical.to_owned();
        if let Features::Real { n_features, names: old, .. } = &mut d.features
            && *n_features == names.len()
        {
            *old = names;
        }
        d
    }))
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

fn breast_cancer_features() -> Vec<String> {
    let mean = CELL_MEASURES.iter().map(|m| format!("mean_{m}"));
    let error = CELL_MEASURES.iter().map(|m| format!("{m}_error"));
    let worst = CELL_MEASURES.iter().map(|m| format!("worst_{m}"));
    mean.chain(error).chain(worst).collect()
}

fn digits_features() -> Vec<String> {
    (0..64).map(|p| format!("pixel_{}_{}", p / 8, p % 8)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(name: &str) -> Dataset {
        match builtin(name) {
            Some(Ok(d)) => d,
            Some(Err(e)) => panic!("{e}"),
            None => panic!("{name} is not built in"),
        }
    }

    fn shape(d: &Dataset) -> (usize, usize, usize) {
        let nf = match &d.features {
            Features::Real { n_features, names, values } => {
                assert_eq!(names.len(), *n_features);
                assert_eq!(values.len(), n_features * d.n_examples());
                *n_features
            }
            Features::Bits(_) => panic!("expected real features"),
        };
        (d.n_examples(), nf, d.n_classes())
    }

    fn class_counts(d: &Dataset) -> Vec<usize> {
        let mut c = vec![0; d.n_classes()];
        for &l in &d.labels {
            c[l as usize] += 1;
        }
        c
    }

    #[test]
    fn iris_in_file_order() {
        let d = get("iris");
        assert_eq!(d.name, "iris");
        assert_eq!(shape(&d), (150, 4, 3));
        assert_eq!(d.class_names, vec!["setosa", "versicolor", "virginica"]);
        for (i, &l) in d.labels.iter().enumerate() {
            assert_eq!(l as usize, i / 50);
        }
    }

    #[test]
    fn all_builtins_parse() {
        let wine = get("wine");
        assert_eq!(shape(&wine), (178, 13, 3));
        assert_eq!(class_counts(&wine), vec![59, 71, 48]);
        let bc = get("Breast-Cancer");
        assert_eq!(bc.name, "breast-cancer");
        assert_eq!(shape(&bc), (569, 30, 2));
        assert_eq!(bc.class_names, vec!["malignant", "benign"]);
        assert_eq!(class_counts(&bc), vec![212, 357]);
        let digits = get("digits");
        assert_eq!(shape(&digits), (1797, 64, 10));
        assert_eq!(digits.class_names, (0..10).map(|i| i.to_string()).collect::<Vec<_>>());
        assert_eq!(class_counts(&digits), vec![178, 182, 177, 183, 181, 182, 181, 179, 174, 180]);
        assert!(builtin("mnist").is_none());
    }
}
