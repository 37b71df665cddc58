//! Espresso PLA truth tables, as used by the IWLS 2020 "learning from examples" contest.
//! Parsed as they are read (a gzip stream is never inflated whole), the packed bits
//! checked against a memory limit as they grow.

use std::path::Path;

use super::{DataError, Dataset, Features, MemoryLimit, for_each_line, open_text, stem_of};
use crate::lanes::BitMatrix;
use crate::lanes::matrix::{LANES, words_for};

/// Largest number of outputs (classes are the `2^M` output patterns).
const MAX_OUTPUTS: usize = 16;

/// Reads a PLA file (gunzipped on the fly if the name ends in `.gz`) within the memory
/// the machine has now ([`MemoryLimit::available`]).
///
/// The data set is named after the file stem (`ex00.train.pla.gz` gives `ex00.train`).
///
/// # Errors
/// As [`read_pla_within`].
pub fn read_pla(path: &Path) -> Result<Dataset, DataError> {
    read_pla_within(path, &MemoryLimit::available())
}

/// Reads a PLA file, streaming it, and refuses it as soon as the packed rows would pass
/// `limit`.
///
/// # Errors
/// [`DataError::Io`] if the file cannot be read or decompressed; [`DataError::TooLarge`]
/// past `limit`; otherwise any error of [`parse_pla`].
pub fn read_pla_within(path: &Path, limit: &MemoryLimit) -> Result<Dataset, DataError> {
    let shown = path.display().to_string();
    parse_from(open_text(path)?, &shown, limit)
}

/// Parses PLA text; `path_for_errors` names the source in error messages and gives the
/// data set its name.
///
/// Accepted: `.i N` (required, N >= 1), `.o M` (required, 1 <= M <= 16), `.p P` (optional;
/// must equal the number of rows), `.type fr` or `.type f` (optional), `.ilb` / `.ob`
/// (optional; their counts are checked against `.i` / `.o`, the names are not kept),
/// `.e` / `.end` (ends the table), and `#` comments. Each row is N characters `0`/`1`,
/// whitespace (spaces or tabs), then M characters `0`/`1`; don't-cares (`-`) are rejected.
///
/// The inputs become [`Features::Bits`] (one row per input, column 0 first). The label of a
/// row is `sum_j bit_j << j` over the output columns (column 0 is bit 0), and the class names
/// are all `2^M` output patterns written as the output characters in column order
/// (class `v` has character `j` equal to bit `j` of `v`; for M = 1: `["0", "1"]`).
///
/// # Errors
/// [`DataError::Empty`] if there are no rows; [`DataError::Parse`] (with the 1-based line)
/// for a missing, repeated or malformed `.i`/`.o`, an unsupported `.type` or directive,
/// a row of the wrong width or with a character other than `0`/`1`, or a `.p` count that
/// disagrees with the rows.
pub fn parse_pla(text: &str, path_for_errors: &str) -> Result<Dataset, DataError> {
    parse_from(text.as_bytes(), path_for_errors, &MemoryLimit::available())
}

fn parse_from(r: impl std::io::BufRead, path: &str, limit: &MemoryLimit) -> Result<Dataset, DataError> {
    let mut p = Parser::new(path, *limit);
    // The line buffer may double past the longest line; keep it a fraction of the limit.
    for_each_line(r, path, limit.limit() / 8, |line, raw| {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let content = raw.find('#').map_or(raw, |c| &raw[..c]);
        let toks = tokens(content);
        let Some(&(_, first)) = toks.first() else {
            return Ok(false);
        };
        if first.starts_with('.') {
            p.directive(line, first, &toks[1..])
        } else {
            p.row(line, content, &toks).map(|()| false)
        }
    })?;
    p.finish()
}

/// Whitespace-separated tokens with their byte offsets in `line`.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

/// A value given by a header line, with the line it came from.
#[derive(Clone, Copy)]
struct Given {
    value: usize,
    line: usize,
}

struct Parser<'p> {
    path: &'p str,
    limit: MemoryLimit,
    inputs: Option<Given>,
    outputs: Option<Given>,
    declared_rows: Option<Given>,
    /// Packed words of each input, grown as rows arrive.
    words: Vec<Vec<u64>>,
    labels: Vec<u32>,
}

impl<'p> Parser<'p> {
    fn new(path: &'p str, limit: MemoryLimit) -> Self {
        Self {
            path,
            limit,
            inputs: None,
            outputs: None,
            declared_rows: None,
            words: Vec::new(),
            labels: Vec::new(),
        }
    }

    fn err(&self, line: usize, msg: impl Into<String>) -> DataError {
        DataError::parse(self.path, line, msg)
    }

    /// The single numeric argument of `.i`, `.o` or `.p`.
    fn count_arg(&self, line: usize, name: &str, args: &[(usize, &str)]) -> Result<usize, DataError> {
        match args {
            [(_, a)] => a
                .parse()
                .map_err(|_| self.err(line, format!("{name} expects a non-negative integer, found '{a}'"))),
            _ => Err(self.err(line, format!("{name} expects one number, found {} arguments", args.len()))),
        }
    }

    /// Sets a header value once, before the data rows.
    fn set_once(
        &self,
        line: usize,
        name: &str,
        slot: Option<Given>,
        value: usize,
    ) -> Result<Given, DataError> {
        if let Some(g) = slot {
            return Err(self.err(line, format!("{name} given again (first on line {})", g.line)));
        }
        if !self.labels.is_empty() {
            return Err(self.err(line, format!("{name} must come before the data rows")));
        }
        Ok(Given { value, line })
    }

    /// Handles a directive line; returns `true` at the end marker.
    fn directive(&mut self, line: usize, name: &str, args: &[(usize, &str)]) -> Result<bool, DataError> {
        match name {
            ".i" => {
                let n = self.count_arg(line, name, args)?;
                if n == 0 {
                    return Err(self.err(line, ".i 0: expected at least 1 input"));
                }
                self.inputs = Some(self.set_once(line, name, self.inputs, n)?);
            }
            ".o" => {
                let m = self.count_arg(line, name, args)?;
                if !(1..=MAX_OUTPUTS).contains(&m) {
                    return Err(self.err(
                        line,
                        format!(
                            ".o {m}: expected 1 to {MAX_OUTPUTS} outputs (classes are the 2^M output patterns)"
                        ),
                    ));
                }
                self.outputs = Some(self.set_once(line, name, self.outputs, m)?);
            }
            ".p" => {
                let p = self.count_arg(line, name, args)?;
                self.declared_rows = Some(self.set_once(line, name, self.declared_rows, p)?);
            }
            ".type" => match args {
                [(_, "fr" | "f")] => {}
                [(_, t)] => {
                    return Err(self.err(
                        line,
                        format!(".type {t} is not supported, expected fr or f (rows are minterms with 0/1 outputs)"),
                    ));
                }
                _ => {
                    return Err(
                        self.err(line, format!(".type expects one word, found {} arguments", args.len()))
                    );
                }
            },
            ".ilb" => self.check_names(line, name, args.len(), self.inputs, ".i")?,
            ".ob" => self.check_names(line, name, args.len(), self.outputs, ".o")?,
            ".e" | ".end" => return Ok(true),
            _ => {
                return Err(self.err(
                    line,
                    format!("unsupported directive '{name}' (known: .i .o .p .type .ilb .ob .e)"),
                ));
            }
        }
        Ok(false)
    }

    fn check_names(
        &self,
        line: usize,
        name: &str,
        found: usize,
        count: Option<Given>,
        from: &str,
    ) -> Result<(), DataError> {
        match count {
            Some(g) if g.value != found => Err(self.err(
                line,
                format!("{name} has {found} names, expected {} (from {from} {})", g.value, g.value),
            )),
            _ => Ok(()),
        }
    }

    /// Parses one data row.
    fn row(&mut self, line: usize, content: &str, toks: &[(usize, &str)]) -> Result<(), DataError> {
        let Some(n) = self.inputs.map(|g| g.value) else {
            return Err(self.err(line, "missing .i: expected '.i N' before the first data row"));
        };
        let Some(m) = self.outputs.map(|g| g.value) else {
            return Err(self.err(line, "missing .o: expected '.o M' before the first data row"));
        };
        let [(in_at, ins), (out_at, outs)] = toks else {
            let msg = match toks {
                [(_, t)] => format!(
                    "expected {n} input characters, whitespace, then {m} output characters; found one field of {} characters",
                    t.chars().count()
                ),
                _ => format!("expected 2 fields (inputs, outputs), found {}", toks.len()),
            };
            return Err(self.err(line, msg));
        };
        let n_found = ins.chars().count();
        if n_found != n {
            return Err(
                self.err(line, format!("input part has {n_found} characters, expected {n} (from .i {n})"))
            );
        }
        let m_found = outs.chars().count();
        if m_found != m {
            return Err(
                self.err(line, format!("output part has {m_found} characters, expected {m} (from .o {m})"))
            );
        }
        if self.words.is_empty() {
            // Allocated only now, once a row has shown that `.i` fits on a line.
            self.words = vec![Vec::new(); n];
        }
        let e = self.labels.len();
        if e.is_multiple_of(LANES) {
            let word = e / LANES;
            if self.words.first().is_some_and(|w| w.len() == w.capacity()) {
                // The buffers are about to grow (doubling): the grown words of every input
                // and labels, the old ones while they are copied, and the matrix `finish`
                // packs them into must fit.
                let new_words = (word * 2).max(16);
                let need = (n as u64)
                    .checked_mul((new_words + word + new_words) as u64 * 8)
                    .and_then(|b| b.checked_add((new_words * LANES) as u64 * 8));
                self.limit.check(self.path, &format!("the rows read up to line {line}"), need)?;
                for w in &mut self.words {
                    w.reserve_exact(new_words - w.len());
                }
                self.labels.reserve_exact(new_words * LANES - self.labels.len());
            }
            for w in &mut self.words {
                w.push(0);
            }
        }
        let bit = 1u64 << (e % LANES);
        let word = e / LANES;
        let in_col = content[..*in_at].chars().count() + 1;
        for (j, c) in ins.chars().enumerate() {
            if bit_of(c).map_err(|hint| self.bad_char(line, in_col + j, "input", j, c, hint))? {
                self.words[j][word] |= bit;
            }
        }
        let out_col = content[..*out_at].chars().count() + 1;
        let mut label = 0u32;
        for (j, c) in outs.chars().enumerate() {
            if bit_of(c).map_err(|hint| self.bad_char(line, out_col + j, "output", j, c, hint))? {
                label |= 1 << j;
            }
        }
        self.labels.push(label);
        Ok(())
    }

    fn bad_char(&self, line: usize, col: usize, part: &str, j: usize, c: char, hint: &str) -> DataError {
        self.err(line, format!("column {col} ({part} {j}, 0-based) is '{c}', expected 0 or 1{hint}"))
    }

    fn finish(self) -> Result<Dataset, DataError> {
        let rows = self.labels.len();
        if rows == 0 {
            return Err(DataError::Empty { path: self.path.to_owned() });
        }
        if let Some(p) = self.declared_rows.filter(|p| p.value != rows) {
            return Err(self.err(p.line, format!(".p says {} rows, found {rows}", p.value)));
        }
        // Rows exist, so `.i` and `.o` were given.
        let n = self.inputs.map_or(0, |g| g.value);
        let m = self.outputs.map_or(1, |g| g.value);
        let mut matrix = BitMatrix::zeros(n, rows);
        debug_assert_eq!(matrix.words(), words_for(rows));
        for (r, w) in self.words.iter().enumerate() {
            matrix.row_mut(r).copy_from_slice(w);
        }
        let class_names = (0..1u32 << m)
            .map(|v| (0..m).map(|j| if (v >> j) & 1 == 1 { '1' } else { '0' }).collect())
            .collect();
        Ok(Dataset {
            name: stem_of(self.path),
            features: Features::Bits(matrix),
            labels: self.labels,
            class_names,
        })
    }
}

/// The bit written as `c`, or a hint for the error message.
fn bit_of(c: char) -> Result<bool, &'static str> {
    match c {
        '0' => Ok(false),
        '1' => Ok(true),
        '-' | '~' | '2' => Err(" (don't-cares are not supported)"),
        _ => Err(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_pla(text, "x.pla").err().map(|e| e.to_string()).unwrap_or_default()
    }

    fn bits(d: &Dataset) -> &BitMatrix {
        match &d.features {
            Features::Bits(m) => m,
            Features::Real { .. } => panic!("expected bits"),
        }
    }

    #[test]
    fn parses_rows_and_labels() -> Result<(), DataError> {
        let text = "# comment\n.i 3\n.o 2\n.p 3\n.type fr\n.ilb a b c\n.ob y0 y1\n\
                    101 10\n011\t\t01 # trailing\r\n  000   11\n.e\nignored after .e\n";
        let d = parse_pla(text, "dir/t.pla")?;
        assert_eq!(d.name, "t");
        assert_eq!(d.labels, vec![1, 2, 3]);
        assert_eq!(d.class_names, vec!["00", "10", "01", "11"]);
        let m = bits(&d);
        assert_eq!((m.rows(), m.examples()), (3, 3));
        assert_eq!(m.example(0), vec![true, false, true]);
        assert_eq!(m.example(1), vec![false, true, true]);
        assert_eq!(m.example(2), vec![false, false, false]);
        let one = parse_pla(".i 1\n.o 1\n1 1\n0 0\n", "u.pla")?;
        assert_eq!(one.class_names, vec!["0", "1"]);
        assert_eq!(one.labels, vec![1, 0]);
        Ok(())
    }

    #[test]
    fn many_rows_pack_across_words() -> Result<(), DataError> {
        let mut text = String::from(".i 2\n.o 1\n");
        for e in 0..130 {
            text.push_str(if e % 3 == 0 { "10 1\n" } else { "01 0\n" });
        }
        let d = parse_pla(&text, "w.pla")?;
        let m = bits(&d);
        assert_eq!(m.count_ones(0), 44);
        assert_eq!(m.count_ones(1), 86);
        assert!(m.get(0, 129) && !m.get(1, 129));
        Ok(())
    }

    #[test]
    fn malformed_inputs_name_file_line_and_column() {
        let head = ".i 4\n.o 1\n";
        assert_eq!(
            err(&format!("{head}0101 1\n010 1\n")),
            "x.pla:4: input part has 3 characters, expected 4 (from .i 4)"
        );
        assert_eq!(
            err(&format!("{head}0101 10\n")),
            "x.pla:3: output part has 2 characters, expected 1 (from .o 1)"
        );
        assert_eq!(
            err(&format!("{head}01-1 1\n")),
            "x.pla:3: column 3 (input 2, 0-based) is '-', expected 0 or 1 (don't-cares are not supported)"
        );
        assert_eq!(
            err(&format!("{head} 0101  x\n")),
            "x.pla:3: column 8 (output 0, 0-based) is 'x', expected 0 or 1"
        );
        assert_eq!(
            err(&format!("{head}01011\n")),
            "x.pla:3: expected 4 input characters, whitespace, then 1 output characters; found one field of 5 characters"
        );
        assert_eq!(err(".i 4\n.o 1\n.p 3\n0101 1\n0000 0\n"), "x.pla:3: .p says 3 rows, found 2");
        assert_eq!(err(".o 1\n0101 1\n"), "x.pla:2: missing .i: expected '.i N' before the first data row");
        assert_eq!(err(".i 4\n0101 1\n"), "x.pla:2: missing .o: expected '.o M' before the first data row");
        assert_eq!(
            err(".i 4\n.o 1\n.type fd\n"),
            "x.pla:3: .type fd is not supported, expected fr or f (rows are minterms with 0/1 outputs)"
        );
        assert_eq!(err(".i four\n"), "x.pla:1: .i expects a non-negative integer, found 'four'");
        assert_eq!(err(".i 4\n.i 5\n"), "x.pla:2: .i given again (first on line 1)");
        assert_eq!(
            err(".i 4\n.o 17\n"),
            "x.pla:2: .o 17: expected 1 to 16 outputs (classes are the 2^M output patterns)"
        );
        assert_eq!(err(".i 2\n.o 1\n.ilb a\n"), "x.pla:3: .ilb has 1 names, expected 2 (from .i 2)");
        assert_eq!(
            err(".i 2\n.o 1\n.mv 3\n"),
            "x.pla:3: unsupported directive '.mv' (known: .i .o .p .type .ilb .ob .e)"
        );
        assert_eq!(err(".i 2\n.o 1\n.e\n"), "x.pla: no data rows");
        assert_eq!(err(".i 99999999999999\n.o 1\n"), "x.pla: no data rows");
        assert_eq!(
            err(".i 99999999999999\n.o 1\n01 1\n"),
            "x.pla:3: input part has 2 characters, expected 99999999999999 (from .i 99999999999999)"
        );
    }

    #[test]
    fn gzip_file() -> Result<(), Box<dyn std::error::Error>> {
        use std::io::Write;
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("ex.train.pla.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b".i 2\n.o 1\n.p 2\n.type fr\n10 1\n01 0\n.e\n")?;
        std::fs::write(&path, enc.finish()?)?;
        let d = read_pla(&path)?;
        assert_eq!(d.name, "ex.train");
        assert_eq!(d.labels, vec![1, 0]);
        assert_eq!(crate::data::load_dataset(&path.display().to_string())?, d);
        Ok(())
    }

    /// Rows are packed as they stream in and refused once the packed bits would pass the
    /// limit; the `.e` end marker stops reading (what follows is not even decoded).
    #[test]
    fn packed_rows_stop_at_the_memory_limit() -> Result<(), Box<dyn std::error::Error>> {
        let row = format!("{} 1\n", "01".repeat(500));
        let text = format!(".i 1000\n.o 1\n{}", row.repeat(20_000));
        let e =
            parse_from(text.as_bytes(), "big.pla", &MemoryLimit::bytes(1 << 20)).err().map(|e| e.to_string());
        let e = e.unwrap_or_default();
        assert!(e.starts_with("big.pla: the rows read up to line "), "{e}");
        let d = parse_from(text.as_bytes(), "big.pla", &MemoryLimit::bytes(64 << 20))?;
        assert_eq!(d.n_examples(), 20_000);
        let mut bytes = b".i 1\n.o 1\n1 1\n.e\n".to_vec();
        bytes.extend_from_slice(b"\xff\xfe");
        assert_eq!(parse_from(&bytes[..], "e.pla", &MemoryLimit::available())?.n_examples(), 1);
        Ok(())
    }
}
