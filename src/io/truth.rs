//! Complete truth tables as input: `.truth` files and fully specified PLA files, both
//! read into a [`Function`] (every output's value on every input pattern).
//!
//! **`.truth`** is the format of ABC's `read_truth -x -f FILE` (`-x`: binary, not hex):
//! one output per line (several on one line, separated by white space, are accepted
//! too, as ABC does), each a string of `2^n` characters `0`/`1`, **most significant
//! minterm first**: character `c` (from 0, left to right) is the output on minterm
//! `2^n - 1 - c`, and input `i` is bit `i` of the minterm (the first input, `a`, is the
//! least significant bit). So `1000` is `a & b` and `0010` is `a & !b`, as in ABC. Every
//! output has the same `n`. Ports are named as ABC names them: inputs `a`, `b`, `c`, ...
//! and outputs `F0`, `F1`, ... Blank lines and lines starting with `#` are skipped.
//!
//! **PLA** (espresso): `.i N`, `.o M`, optional `.ilb` / `.ob` names, `.p`, `.type f`
//! (default), `fd` or `fr`, rows `CUBE OUTPUTS` (input characters `0 1 -`, output
//! characters `0 1`), `.e`. With `f` and `fd`, an output is 1 exactly on the union of the
//! cubes whose row has a 1 in its column; with `fr`, rows with a 0 list the OFF-set, and
//! every minterm must be in exactly one of the two. A don't-care output (`-`, `~`) or a
//! minterm that `fr` leaves open is an error: the function must be fully specified.

use super::netlist::PortNames;
use std::path::Path;
use thiserror::Error;

/// Most inputs of a complete function (`2^20` bits per output).
pub const MAX_FUNCTION_INPUTS: usize = 20;

/// A completely specified multi-output Boolean function as truth tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    n_inputs: usize,
    outputs: Vec<Vec<u64>>,
    names: PortNames,
}

/// A malformed truth-table or PLA file.
#[derive(Debug, Error)]
pub enum TruthError {
    /// The file cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line that does not parse.
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What was expected.
        message: String,
    },
    /// A problem of the whole file.
    #[error("{file}: {message}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// Words of a table over `n` inputs.
fn words(n: usize) -> usize {
    (1usize << n).div_ceil(64)
}

impl Function {
    /// A function from its tables (bit `s` of output `j` is `outputs[j]` bit `s`), with
    /// ABC's port names.
    ///
    /// # Panics
    /// If `n_inputs` exceeds [`MAX_FUNCTION_INPUTS`] or a table has the wrong length.
    #[must_use]
    pub fn new(n_inputs: usize, mut outputs: Vec<Vec<u64>>) -> Self {
        assert!(n_inputs <= MAX_FUNCTION_INPUTS, "at most {MAX_FUNCTION_INPUTS} inputs");
        for t in &mut outputs {
            assert_eq!(t.len(), words(n_inputs), "one table of 2^n bits per output");
            if n_inputs < 6 {
                t[0] &= (1u64 << (1 << n_inputs)) - 1;
            }
        }
        let names = abc_names("ex", n_inputs, outputs.len());
        Self { n_inputs, outputs, names }
    }

    /// Number of inputs.
    #[must_use]
    pub fn n_inputs(&self) -> usize {
        self.n_inputs
    }

    /// Number of outputs.
    #[must_use]
    pub fn n_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The table of output `j`: bit `s` is the output on minterm `s`.
    #[must_use]
    pub fn table(&self, j: usize) -> &[u64] {
        &self.outputs[j]
    }

    /// Output `j` on minterm `s`.
    #[must_use]
    pub fn get(&self, j: usize, s: usize) -> bool {
        self.outputs[j][s / 64] >> (s % 64) & 1 == 1
    }

    /// The port names (ABC's for `.truth`; the PLA's `.ilb` / `.ob` when given).
    #[must_use]
    pub fn names(&self) -> &PortNames {
        &self.names
    }

    /// Renames the model.
    pub fn set_model(&mut self, model: &str) {
        self.names.model = model.to_string();
    }

    /// The first output and minterm on which `g` (inputs and outputs by position)
    /// differs from the function, by simulating every input pattern; `None` if they agree.
    ///
    /// # Panics
    /// If `g` has another number of inputs or outputs.
    #[must_use]
    pub fn first_mismatch(&self, g: &crate::aig::Aig) -> Option<(usize, usize)> {
        assert_eq!((g.n_inputs(), g.outputs().len()), (self.n_inputs, self.outputs.len()), "same interface");
        let sim = g.simulate(&crate::lanes::all_patterns(self.n_inputs));
        for (j, t) in self.outputs.iter().enumerate() {
            let row = sim.row(j);
            for (w, &want) in t.iter().enumerate() {
                let got =
                    if self.n_inputs < 6 { row[w] & ((1u64 << (1 << self.n_inputs)) - 1) } else { row[w] };
                if got != want {
                    return Some((j, w * 64 + (got ^ want).trailing_zeros() as usize));
                }
            }
        }
        None
    }

    /// The function in `.truth` format: one line per output, most significant minterm first.
    #[must_use]
    pub fn to_truth(&self) -> String {
        let mut s = String::with_capacity(self.outputs.len() * ((1 << self.n_inputs) + 1));
        for j in 0..self.outputs.len() {
            for m in (0..1usize << self.n_inputs).rev() {
                s.push(if self.get(j, m) { '1' } else { '0' });
            }
            s.push('\n');
        }
        s
    }
}

/// ABC's names: inputs `a`, `b`, ... (`x20`, ... past `z`), outputs `F0`, `F1`, ...
fn abc_names(model: &str, n_inputs: usize, n_outputs: usize) -> PortNames {
    PortNames {
        model: model.to_string(),
        inputs: (0..n_inputs)
            .map(|i| if i < 26 { char::from(b'a' + i as u8).to_string() } else { format!("x{i}") })
            .collect(),
        outputs: (0..n_outputs).map(|j| format!("F{j}")).collect(),
    }
}

/// Reads a `.truth` file.
///
/// # Errors
/// [`TruthError`] naming the file and line of the first problem.
pub fn read_truth(path: &Path) -> Result<Function, TruthError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|source| TruthError::Io { file: file.clone(), source })?;
    parse_truth(&text, &file)
}

/// Parses `.truth` text (`file` names it in errors).
///
/// # Errors
/// [`TruthError`] naming the file and line of the first problem.
pub fn parse_truth(text: &str, file: &str) -> Result<Function, TruthError> {
    let syntax = |line: usize, message: String| TruthError::Syntax { file: file.to_string(), line, message };
    let mut n: Option<(usize, usize)> = None;
    let mut outputs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        for token in line.split_whitespace() {
            if let Some((col, c)) = token.char_indices().find(|&(_, c)| c != '0' && c != '1') {
                return Err(syntax(ln, format!("expected only 0 and 1, found {c:?} at column {}", col + 1)));
            }
            let len = token.len();
            if !len.is_power_of_two() {
                return Err(syntax(ln, format!("a truth table has 2^n bits; this one has {len}")));
            }
            let k = len.trailing_zeros() as usize;
            if k > MAX_FUNCTION_INPUTS {
                return Err(syntax(ln, format!("{len} bits is {k} inputs; at most {MAX_FUNCTION_INPUTS}")));
            }
            match n {
                None => n = Some((k, ln)),
                Some((k0, l0)) if k0 != k => {
                    return Err(syntax(
                        ln,
                        format!(
                            "{len} bits, but the table on line {l0} has {} (one input count for all)",
                            1usize << k0
                        ),
                    ));
                }
                Some(_) => {}
            }
            let mut t = vec![0u64; words(k)];
            for (c, b) in token.bytes().enumerate() {
                if b == b'1' {
                    let m = len - 1 - c;
                    t[m / 64] |= 1 << (m % 64);
                }
            }
            outputs.push(t);
        }
    }
    let Some((k, _)) = n else {
        return Err(TruthError::File {
            file: file.to_string(),
            message: "no truth table in the file".into(),
        });
    };
    Ok(Function::new(k, outputs))
}

/// Reads a fully specified PLA file.
///
/// # Errors
/// [`TruthError`] naming the file and line of the first problem; a function that is
/// not fully specified.
pub fn read_pla_function(path: &Path) -> Result<Function, TruthError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|source| TruthError::Io { file: file.clone(), source })?;
    parse_pla_function(&text, &file)
}

/// Parses fully specified PLA text (`file` names it in errors).
///
/// # Errors
/// As [`read_pla_function`].
pub fn parse_pla_function(text: &str, file: &str) -> Result<Function, TruthError> {
    let syntax = |line: usize, message: String| TruthError::Syntax { file: file.to_string(), line, message };
    let (mut ni, mut no): (Option<usize>, Option<usize>) = (None, None);
    let (mut ilb, mut ob): (Option<Vec<String>>, Option<Vec<String>>) = (None, None);
    let mut fr = false;
    let mut on: Vec<Vec<u64>> = Vec::new();
    let mut off: Vec<Vec<u64>> = Vec::new();
    let count = |ln: usize, v: Option<&str>, what: &str| -> Result<usize, TruthError> {
        v.and_then(|s| s.parse().ok()).ok_or_else(|| syntax(ln, format!("expected a number after {what}")))
    };
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words_it = line.split_whitespace();
        let head = words_it.next().unwrap_or("");
        if head.starts_with('.') {
            match head {
                ".i" => {
                    let n = count(ln, words_it.next(), ".i")?;
                    if n > MAX_FUNCTION_INPUTS {
                        return Err(syntax(
                            ln,
                            format!(".i {n}: at most {MAX_FUNCTION_INPUTS} inputs for a complete function"),
                        ));
                    }
                    ni = Some(n);
                }
                ".o" => no = Some(count(ln, words_it.next(), ".o")?),
                ".ilb" => ilb = Some(words_it.map(str::to_string).collect()),
                ".ob" => ob = Some(words_it.map(str::to_string).collect()),
                ".p" => {
                    count(ln, words_it.next(), ".p")?;
                }
                ".type" => match words_it.next() {
                    Some("f" | "fd") => fr = false,
                    Some("fr") => fr = true,
                    other => {
                        return Err(syntax(
                            ln,
                            format!("expected .type f, fd or fr, found {}", other.unwrap_or("nothing")),
                        ));
                    }
                },
                ".e" | ".end" => break,
                _ => return Err(syntax(ln, format!("unknown directive {head}"))),
            }
            continue;
        }
        let (Some(n), Some(m)) = (ni, no) else {
            return Err(syntax(ln, "a cube before .i and .o".into()));
        };
        if on.is_empty() {
            on = vec![vec![0u64; words(n)]; m];
            off = vec![vec![0u64; words(n)]; m];
        }
        let row: String = line.split_whitespace().collect();
        if row.len() != n + m {
            return Err(syntax(
                ln,
                format!("expected {n} input and {m} output characters, found {}", row.len()),
            ));
        }
        let (cube, outs) = row.split_at(n);
        let (mut care, mut value) = (0usize, 0usize);
        for (k, c) in cube.chars().enumerate() {
            // The first column is the first input, the least significant minterm bit.
            match c {
                '0' => care |= 1 << k,
                '1' => {
                    care |= 1 << k;
                    value |= 1 << k;
                }
                '-' => {}
                _ => return Err(syntax(ln, format!("expected 0, 1 or - in the input part, found {c:?}"))),
            }
        }
        for (j, c) in outs.chars().enumerate() {
            let target = match c {
                '1' => &mut on[j],
                '0' if fr => &mut off[j],
                '0' => continue,
                '-' | '~' | '2' => {
                    return Err(syntax(
                        ln,
                        format!("output {j} is a don't care: the function must be fully specified"),
                    ));
                }
                _ => return Err(syntax(ln, format!("expected 0 or 1 in the output part, found {c:?}"))),
            };
            // Every minterm of the cube: the free bits run through all values.
            let free = !care & ((1usize << n) - 1);
            let mut sub = 0usize;
            loop {
                let s = value | sub;
                target[s / 64] |= 1 << (s % 64);
                sub = (sub.wrapping_sub(free)) & free;
                if sub == 0 {
                    break;
                }
            }
        }
    }
    let (Some(n), Some(m)) = (ni, no) else {
        return Err(TruthError::File { file: file.to_string(), message: "expected .i and .o".into() });
    };
    if on.is_empty() {
        on = vec![vec![0u64; words(n)]; m];
        off = vec![vec![0u64; words(n)]; m];
    }
    if fr {
        for j in 0..m {
            for s in 0..1usize << n {
                let (a, b) = (on[j][s / 64] >> (s % 64) & 1, off[j][s / 64] >> (s % 64) & 1);
                if a == b {
                    let what = if a == 1 {
                        "in both the ON- and the OFF-set"
                    } else {
                        "in neither the ON- nor the OFF-set"
                    };
                    let bits: String = (0..n).map(|k| if s >> k & 1 == 1 { '1' } else { '0' }).collect();
                    return Err(TruthError::File {
                        file: file.to_string(),
                        message: format!(
                            "output {j} on input {bits} is {what}: the function must be fully specified"
                        ),
                    });
                }
            }
        }
    }
    let mut f = Function::new(n, on);
    let stem = Path::new(file).file_stem().map_or("pla".into(), |s| s.to_string_lossy().into_owned());
    f.names.model = super::netlist::model_name_from(&stem);
    if let Some(names) = ilb {
        if names.len() != n {
            return Err(TruthError::File {
                file: file.into(),
                message: format!(".ilb has {} names for {n} inputs", names.len()),
            });
        }
        f.names.inputs = names;
    }
    if let Some(names) = ob {
        if names.len() != m {
            return Err(TruthError::File {
                file: file.into(),
                message: format!(".ob has {} names for {m} outputs", names.len()),
            });
        }
        f.names.outputs = names;
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_truth(text, "f.truth").unwrap_err().to_string()
    }

    #[test]
    fn abc_convention_most_significant_minterm_first() {
        let f = parse_truth("1000\n0010\n", "f.truth").unwrap();
        assert_eq!((f.n_inputs(), f.n_outputs()), (2, 2));
        // 1000 is a & b: only minterm 3.
        assert_eq!((0..4).map(|s| f.get(0, s)).collect::<Vec<_>>(), [false, false, false, true]);
        // 0010 is minterm 1: a = 1, b = 0.
        assert_eq!((0..4).map(|s| f.get(1, s)).collect::<Vec<_>>(), [false, true, false, false]);
        assert_eq!(f.names().inputs, ["a", "b"]);
        assert_eq!(f.names().outputs, ["F0", "F1"]);
        // As ABC: several tables on one line are several outputs.
        assert_eq!(parse_truth("1000 0010", "g").unwrap().table(1), f.table(1));
    }

    #[test]
    fn round_trip_through_text() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for n in [1usize, 3, 6, 7, 10] {
            let tables: Vec<Vec<u64>> = (0..3)
                .map(|_| {
                    (0..words(n))
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            x
                        })
                        .collect()
                })
                .collect();
            let f = Function::new(n, tables);
            let text = f.to_truth();
            assert_eq!(text.lines().next().unwrap().len(), 1 << n);
            assert_eq!(parse_truth(&text, "t").unwrap(), f);
        }
    }

    #[test]
    fn malformed_files_name_the_line() {
        assert_eq!(err("1000\n10x0\n"), "f.truth:2: expected only 0 and 1, found 'x' at column 3");
        assert_eq!(err("# c\n\n1000000\n"), "f.truth:3: a truth table has 2^n bits; this one has 7");
        assert_eq!(
            err("1000\n10001000\n"),
            "f.truth:2: 8 bits, but the table on line 1 has 4 (one input count for all)"
        );
        assert_eq!(err("\n# nothing\n"), "f.truth: no truth table in the file");
    }

    #[test]
    fn pla_functions_on_and_off_sets() {
        let f = parse_pla_function(".i 3\n.o 2\n.ilb x y z\n1-- 10\n-11 01\n.e\n", "p.pla").unwrap();
        for s in 0..8 {
            assert_eq!(f.get(0, s), s & 1 == 1, "minterm {s}");
            assert_eq!(f.get(1, s), s & 6 == 6, "minterm {s}");
        }
        assert_eq!(f.names().inputs, ["x", "y", "z"]);
        assert_eq!(f.names().model, "p");
        let fr = parse_pla_function(".i 2\n.o 1\n.type fr\n11 1\n0- 0\n10 0\n", "q.pla").unwrap();
        assert_eq!((0..4).map(|s| fr.get(0, s)).collect::<Vec<_>>(), [false, false, false, true]);
    }

    #[test]
    fn pla_functions_must_be_fully_specified() {
        let e = |t: &str| parse_pla_function(t, "p.pla").unwrap_err().to_string();
        assert_eq!(
            e(".i 2\n.o 1\n.type fr\n11 1\n"),
            "p.pla: output 0 on input 00 is in neither the ON- nor the OFF-set: the function must be fully specified"
        );
        assert_eq!(
            e(".i 2\n.o 1\n1- -\n"),
            "p.pla:3: output 0 is a don't care: the function must be fully specified"
        );
        assert_eq!(e(".i 2\n.o 1\n1-1 1\n"), "p.pla:3: expected 2 input and 1 output characters, found 4");
        assert_eq!(e(".i 2\n.o 1\n1x 1\n"), "p.pla:3: expected 0, 1 or - in the input part, found 'x'");
        assert_eq!(e(".i 30\n"), "p.pla:1: .i 30: at most 20 inputs for a complete function");
        assert_eq!(e("11 1\n"), "p.pla:1: a cube before .i and .o");
    }
}
