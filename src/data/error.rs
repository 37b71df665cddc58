//! Errors from loading, parsing and encoding data sets.

use thiserror::Error;

/// Why a data set could not be loaded or encoded.
///
/// Every variant a user can trigger names the file; content errors also give the 1-based
/// line and say what was expected.
#[derive(Debug, Error)]
pub enum DataError {
    /// The file's content is malformed at `line` (1-based).
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// File name as given by the user (or the built-in name).
        path: String,
        /// 1-based line number.
        line: usize,
        /// What was found and what was expected.
        msg: String,
    },
    /// A binary file (IDX) is malformed at byte `offset` (0-based, in the decompressed stream).
    #[error("{path}: byte {offset}: {msg}")]
    Binary {
        /// File name as given by the user.
        path: String,
        /// 0-based byte offset of the offending field.
        offset: usize,
        /// What was found and what was expected.
        msg: String,
    },
    /// The file could not be opened, read or decompressed.
    #[error("{path}: {source}")]
    Io {
        /// File name as given by the user.
        path: String,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// Neither a built-in data set nor a path with a known extension.
    #[error(
        "unknown data set '{0}': built-in names are iris, wine, breast-cancer, digits; \
         paths must end in .csv, .csv.gz, .pla or .pla.gz"
    )]
    Unknown(String),
    /// The file holds no data rows.
    #[error("{path}: no data rows")]
    Empty {
        /// File name as given by the user.
        path: String,
    },
    /// The data would take more memory than the limit allows (checked before allocating).
    #[error("{path}: {what} would take {need}, more than the {limit}")]
    TooLarge {
        /// File (or data set) name.
        path: String,
        /// What would be allocated.
        what: String,
        /// How much, in words (`3.9 GiB`).
        need: String,
        /// The limit and where it came from.
        limit: String,
    },
    /// An encoder cannot be fitted, or cannot encode the data it was given.
    #[error("{0}")]
    Encode(String),
}

impl DataError {
    /// A [`DataError::Parse`] for `path` at 1-based `line`.
    pub(crate) fn parse(path: &str, line: usize, msg: impl Into<String>) -> Self {
        Self::Parse { path: path.to_owned(), line, msg: msg.into() }
    }

    /// A [`DataError::Binary`] for `path` at byte `offset`.
    pub(crate) fn binary(path: &std::path::Path, offset: usize, msg: impl Into<String>) -> Self {
        Self::Binary { path: path.display().to_string(), offset, msg: msg.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_file_and_line() {
        assert_eq!(
            DataError::parse("iris.csv", 7, "expected 5 fields, found 4").to_string(),
            "iris.csv:7: expected 5 fields, found 4"
        );
        assert_eq!(
            DataError::Unknown("foo".into()).to_string(),
            "unknown data set 'foo': built-in names are iris, wine, breast-cancer, digits; \
             paths must end in .csv, .csv.gz, .pla or .pla.gz"
        );
        assert_eq!(DataError::Empty { path: "x.pla".into() }.to_string(), "x.pla: no data rows");
        let io = DataError::Io {
            path: "x.csv".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "not found"),
        };
        assert_eq!(io.to_string(), "x.csv: not found");
    }
}
