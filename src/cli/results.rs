//! The `results.tsv` of the suites (`iwls-suite`, `sweep`): a header and one row per job,
//! keyed by the row's first column and kept sorted by it, rewritten atomically after every
//! job so that an interrupted suite leaves a complete file and resumes where it stopped.

use crate::io::write_atomic;
use std::path::{Path, PathBuf};

/// A suite's results file as it is being filled.
pub(super) struct ResultsTable {
    path: PathBuf,
    header: String,
    rows: Vec<String>,
}

/// The key of a row: its first column.
fn key(row: &str) -> &str {
    row.split('\t').next().unwrap_or("")
}

impl ResultsTable {
    /// The table at `path`, keeping the rows of an earlier run when its header is
    /// `header` (the same columns); otherwise empty.
    pub(super) fn open(path: &Path, header: &str) -> Self {
        let rows = std::fs::read_to_string(path)
            .ok()
            .filter(|t| t.lines().next() == Some(header))
            .map(|t| t.lines().skip(1).map(str::to_string).collect())
            .unwrap_or_default();
        Self { path: path.to_owned(), header: header.to_owned(), rows }
    }

    /// Whether a row has the key `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        self.rows.iter().any(|r| key(r) == name)
    }

    /// The rows, sorted by key.
    pub(super) fn rows(&self) -> &[String] {
        &self.rows
    }

    /// The file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Puts `row` in place of the row with its key (if any) and rewrites the file.
    ///
    /// # Errors
    /// The file cannot be written (the message names it).
    pub(super) fn put(&mut self, row: String) -> Result<(), String> {
        self.rows.retain(|r| key(r) != key(&row));
        self.rows.push(row);
        self.rows.sort();
        let text = std::iter::once(self.header.as_str())
            .chain(self.rows.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        write_atomic(&self.path, text.as_bytes()).map_err(|e| format!("writing {}: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_replaced_by_key_sorted_and_kept_across_opens() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("results.tsv");
        let mut t = ResultsTable::open(&path, "k\tv");
        t.put("b\t1".into()).unwrap();
        t.put("a\t2".into()).unwrap();
        t.put("b\t3".into()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "k\tv\na\t2\nb\t3\n");
        let again = ResultsTable::open(&path, "k\tv");
        assert!(again.has("a") && again.has("b") && !again.has("c"));
        // Other columns: the earlier rows are not this suite's.
        assert!(ResultsTable::open(&path, "k\tw").rows().is_empty());
    }
}
