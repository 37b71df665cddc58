//! AIGER reader (ASCII `aag` and binary `aig`), combinational only.
//!
//! Latches are refused ("sequential circuits are not supported"), as are the AIGER 1.9
//! property sections (bad states, constraints, justice, fairness). Every count in the
//! header is checked before anything is allocated from it: variable indices must fit a
//! 32-bit literal, and the lines (or delta bytes) the counts promise must fit in the rest
//! of the file, so a header claiming 2^40 nodes fails at once. Errors name the file and
//! the line (ASCII parts) or the byte offset (the binary AND section and after).

use super::netlist::{Netlist, PortNames, model_name_from};
use crate::aig::{Aig, Lit};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use thiserror::Error;

/// Largest variable index: literals `2M + 1` must fit in 32 bits.
pub const MAX_VARIABLE: u64 = (u32::MAX as u64 - 1) / 2;

/// Most inputs accepted (binary files store inputs implicitly, so their count is not
/// bounded by the file size).
pub const MAX_INPUTS: u64 = 1 << 20;

/// Where in a file an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A line (1-based).
    Line(usize),
    /// A byte offset (0-based).
    Byte(usize),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "{n}"),
            Position::Byte(n) => write!(f, "byte {n}"),
        }
    }
}

/// An AIGER file that cannot be read.
#[derive(Debug, Error)]
pub enum AigerError {
    /// The file cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// File.
        file: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Malformed content.
    #[error("{file}:{at}: {msg}")]
    Parse {
        /// File.
        file: String,
        /// Where.
        at: Position,
        /// What was expected.
        msg: String,
    },
    /// Latches in the header.
    #[error(
        "{file}:1: sequential circuits are not supported ({latches} latches); only combinational AIGER can be read"
    )]
    Sequential {
        /// File.
        file: String,
        /// Latch count.
        latches: u64,
    },
}

/// Reads an AIGER file (`aag` or `aig`, told apart by the header) as an AIG and its
/// port names (from the symbol table; `x[i]` / `y[j]` where it has none; the model is
/// named after the file stem).
///
/// # Errors
/// [`AigerError`] with the file and position of the first problem.
pub fn read_aiger(path: &Path) -> Result<(Aig, PortNames), AigerError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| AigerError::Io { file: file.clone(), source })?;
    let model = model_name_from(&path.file_stem().unwrap_or_default().to_string_lossy());
    parse_aiger(&bytes, &file, &model)
}

/// [`read_aiger`] converted to a circuit of AND and NOT gates.
///
/// # Errors
/// [`AigerError`] with the file and position of the first problem.
pub fn read_aiger_netlist(path: &Path) -> Result<Netlist, AigerError> {
    let (aig, names) = read_aiger(path)?;
    Netlist::new(names, aig.to_circuit()).map_err(|e| AigerError::Parse {
        file: path.display().to_string(),
        at: Position::Line(1),
        msg: format!("symbol table: {e}"),
    })
}

/// Parses AIGER bytes; `file` names them in errors, `model` becomes the model name.
///
/// # Errors
/// [`AigerError`] with the file and position of the first problem.
pub fn parse_aiger(bytes: &[u8], file: &str, model: &str) -> Result<(Aig, PortNames), AigerError> {
    parse_aiger_with_comment(bytes, file, model).map(|(aig, names, _)| (aig, names))
}

/// [`parse_aiger`] that also returns the comment section (the text after the `c` line;
/// empty without one), lossily decoded as UTF-8.
///
/// # Errors
/// As [`parse_aiger`].
pub fn parse_aiger_with_comment(
    bytes: &[u8],
    file: &str,
    model: &str,
) -> Result<(Aig, PortNames, String), AigerError> {
    let mut r = Reader { bytes, pos: 0, line: 1, file };
    let header = r.line_text()?;
    let tokens: Vec<&str> = header.split_ascii_whitespace().collect();
    let binary = match tokens.first() {
        Some(&"aig") => true,
        Some(&"aag") => false,
        _ => return Err(r.err_line(1, "expected a header 'aag M I L O A' or 'aig M I L O A'".into())),
    };
    if !(6..=10).contains(&tokens.len()) {
        return Err(
            r.err_line(1, format!("header has {} numbers, expected 5 (M I L O A) to 9", tokens.len() - 1))
        );
    }
    let mut n = [0u64; 9];
    for (slot, t) in n.iter_mut().zip(&tokens[1..]) {
        *slot = t.parse().map_err(|_| r.err_line(1, format!("header field '{t}' is not a number")))?;
    }
    let [m, i, l, o, a, b, c, j, f] = n;
    if l > 0 {
        return Err(AigerError::Sequential { file: file.to_string(), latches: l });
    }
    if b + c + j + f > 0 {
        return Err(
            r.err_line(1, "bad-state, constraint, justice and fairness sections are not supported".into())
        );
    }
    if m > MAX_VARIABLE {
        return Err(r.err_line(
            1,
            format!("header claims M = {m} variables; at most {MAX_VARIABLE} fit 32-bit literals"),
        ));
    }
    if i > MAX_INPUTS {
        return Err(r.err_line(1, format!("header claims {i} inputs; at most {MAX_INPUTS} are supported")));
    }
    // The header's counts are any u64s: sum them wide, so that no sum wraps.
    let (m, i_a) = (u128::from(m), u128::from(i) + u128::from(a));
    if (binary && m != i_a) || m < i_a {
        let rel = if binary { "=" } else { ">=" };
        return Err(r.err_line(1, format!("header: M = {m} but I + L + A = {i_a}; need M {rel} I + L + A")));
    }
    // Each promised line takes at least two bytes ("2\n"), each binary AND two delta bytes.
    let promised = if binary { u128::from(o) + u128::from(a) } else { i_a + u128::from(o) };
    let left = (bytes.len() - r.pos) as u128;
    if promised.saturating_mul(2) > left {
        return Err(r.err_line(
            1,
            format!("header promises {promised} entries but only {left} bytes follow; the file is truncated or the header is wrong"),
        ));
    }
    // All counts now fit in memory proportional to the file.
    let (m, i, o, a) = (m as u32, i as usize, o as usize, a as usize);
    let (aig, n_out) = if binary { binary_body(&mut r, i, o, a)? } else { ascii_body(&mut r, m, i, o, a)? };
    let names = symbols(&mut r, model, i, n_out, binary)?;
    let comment = String::from_utf8_lossy(&bytes[r.pos.min(bytes.len())..]).into_owned();
    Ok((aig, names, comment))
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    file: &'a str,
}

impl Reader<'_> {
    fn err_line(&self, line: usize, msg: String) -> AigerError {
        AigerError::Parse { file: self.file.to_string(), at: Position::Line(line), msg }
    }

    fn err_byte(&self, at: usize, msg: String) -> AigerError {
        AigerError::Parse { file: self.file.to_string(), at: Position::Byte(at), msg }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The next line without its newline; an error at the end of the file.
    fn line_text(&mut self) -> Result<String, AigerError> {
        if self.at_end() {
            return Err(self.err_line(self.line, "unexpected end of file".into()));
        }
        let rest = &self.bytes[self.pos..];
        let len = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        let Ok(text) = std::str::from_utf8(&rest[..len]) else {
            return Err(self.err_line(self.line, "not valid UTF-8 text".into()));
        };
        let text = text.trim_end_matches('\r').to_string();
        self.pos += (len + 1).min(rest.len());
        self.line += 1;
        Ok(text)
    }

    /// A line of `k` unsigned numbers; returns them and the line number.
    fn numbers(&mut self, k: usize, what: &str) -> Result<(Vec<u32>, usize), AigerError> {
        let line = self.line;
        let text = self.line_text()?;
        let v: Vec<u32> = text.split_ascii_whitespace().filter_map(|t| t.parse().ok()).collect();
        if v.len() != k || text.split_ascii_whitespace().count() != k {
            return Err(self.err_line(line, format!("expected {what}, found '{text}'")));
        }
        Ok((v, line))
    }

    /// `o` output lines, each a literal up to `max_lit`, with their line numbers.
    fn outputs(&mut self, o: usize, max_lit: u32) -> Result<Vec<(u32, usize)>, AigerError> {
        let mut outs = Vec::with_capacity(o);
        for _ in 0..o {
            let (v, line) = self.numbers(1, "an output literal")?;
            if v[0] > max_lit {
                let msg = format!("output literal {} exceeds the largest literal {max_lit}", v[0]);
                return Err(self.err_line(line, msg));
            }
            outs.push((v[0], line));
        }
        Ok(outs)
    }

    /// One binary delta (7 bits per byte, low group first).
    fn delta(&mut self) -> Result<u32, AigerError> {
        let start = self.pos;
        let mut x: u64 = 0;
        for shift in (0..35).step_by(7) {
            let Some(&byte) = self.bytes.get(self.pos) else {
                return Err(self.err_byte(start, "unexpected end of file in the AND section".into()));
            };
            self.pos += 1;
            x |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return u32::try_from(x)
                    .map_err(|_| self.err_byte(start, "delta does not fit 32 bits".into()));
            }
        }
        Err(self.err_byte(start, "delta longer than 5 bytes".into()))
    }
}

fn binary_body(r: &mut Reader<'_>, i: usize, o: usize, a: usize) -> Result<(Aig, usize), AigerError> {
    let max_lit = 2 * (i + a) as u32 + 1;
    let outs = r.outputs(o, max_lit)?;
    let mut aig = Aig::new(i);
    let mut map: Vec<Lit> = Vec::with_capacity(1 + i + a);
    map.push(Lit::FALSE);
    map.extend((0..i).map(|k| aig.input(k)));
    for k in 0..a {
        let at = r.pos;
        let lhs = 2 * (i + 1 + k) as u32;
        let d0 = r.delta()?;
        let d1 = r.delta()?;
        if d0 == 0 || d0 > lhs {
            return Err(r.err_byte(at, format!("AND {lhs}: first delta {d0} must be in 1..={lhs}")));
        }
        let r0 = lhs - d0;
        if d1 > r0 {
            return Err(r.err_byte(at, format!("AND {lhs}: second delta {d1} exceeds the first input {r0}")));
        }
        let r1 = r0 - d1;
        let lit = |l: u32| Lit(map[(l >> 1) as usize].0 ^ (l & 1));
        let v = aig.and(lit(r0), lit(r1));
        map.push(v);
    }
    for (l, _) in outs {
        aig.add_output(Lit(map[(l >> 1) as usize].0 ^ (l & 1)));
    }
    Ok((aig, o))
}

enum Def {
    Input(usize),
    And(u32, u32, usize),
}

fn ascii_body(r: &mut Reader<'_>, m: u32, i: usize, o: usize, a: usize) -> Result<(Aig, usize), AigerError> {
    let max_lit = 2 * m + 1;
    let mut defs: HashMap<u32, Def> = HashMap::with_capacity(i + a);
    let mut define = |r: &Reader<'_>, lit: u32, def: Def, line: usize| {
        if lit < 2 || lit & 1 == 1 || lit > max_lit {
            return Err(r.err_line(line, format!("{lit} is not a positive literal of a variable 1..={m}")));
        }
        if defs.insert(lit >> 1, def).is_some() {
            return Err(r.err_line(line, format!("variable {} is defined twice", lit >> 1)));
        }
        Ok(())
    };
    for k in 0..i {
        let (v, line) = r.numbers(1, "an input literal")?;
        define(r, v[0], Def::Input(k), line)?;
    }
    let outs = r.outputs(o, max_lit)?;
    let mut ands = Vec::with_capacity(a);
    for _ in 0..a {
        let (v, line) = r.numbers(3, "an AND line 'lhs rhs0 rhs1'")?;
        if v[1] > max_lit || v[2] > max_lit {
            return Err(r.err_line(line, format!("AND inputs must be literals up to {max_lit}")));
        }
        define(r, v[0], Def::And(v[1], v[2], line), line)?;
        ands.push(v[0] >> 1);
    }
    let mut aig = Aig::new(i);
    let mut done: HashMap<u32, Lit> = HashMap::with_capacity(i + a + 1);
    done.insert(0, Lit::FALSE);
    for (&var, def) in &defs {
        if let Def::Input(k) = def {
            done.insert(var, aig.input(*k));
        }
    }
    // Definitions may come in any order: resolve each AND after its inputs, depth first.
    for &root in &ands {
        let mut stack = vec![root];
        let mut active: HashSet<u32> = HashSet::new();
        while let Some(&var) = stack.last() {
            if done.contains_key(&var) {
                stack.pop();
                continue;
            }
            let Some(Def::And(x, y, line)) = defs.get(&var) else {
                stack.pop();
                continue;
            };
            let pending: Vec<u32> = [x >> 1, y >> 1].into_iter().filter(|v| !done.contains_key(v)).collect();
            if pending.is_empty() {
                let lit = |l: u32| Lit(done[&(l >> 1)].0 ^ (l & 1));
                let v = aig.and(lit(*x), lit(*y));
                done.insert(var, v);
                active.remove(&var);
                stack.pop();
                continue;
            }
            for p in pending {
                if !defs.contains_key(&p) {
                    return Err(
                        r.err_line(*line, format!("literal {} refers to undefined variable {p}", 2 * p))
                    );
                }
                if active.contains(&p) || p == var {
                    return Err(r.err_line(*line, format!("combinational loop through variable {p}")));
                }
                stack.push(p);
            }
            active.insert(var);
        }
    }
    for (l, line) in outs {
        let Some(&v) = done.get(&(l >> 1)) else {
            return Err(
                r.err_line(line, format!("output literal {l} refers to undefined variable {}", l >> 1))
            );
        };
        aig.add_output(Lit(v.0 ^ (l & 1)));
    }
    Ok((aig, o))
}

/// The symbol table (up to a `c` line or the end), with defaults for unnamed ports.
fn symbols(
    r: &mut Reader<'_>,
    model: &str,
    i: usize,
    o: usize,
    binary: bool,
) -> Result<PortNames, AigerError> {
    let mut names = PortNames::indexed(model, i, o);
    let mut given_in: Vec<bool> = vec![false; i];
    let mut given_out: Vec<bool> = vec![false; o];
    while !r.at_end() {
        let (start, line) = (r.pos, r.line);
        let at =
            |r: &Reader<'_>, msg: String| if binary { r.err_byte(start, msg) } else { r.err_line(line, msg) };
        let text = r.line_text()?;
        if text == "c" || text.starts_with("c ") {
            break;
        }
        let (kind, rest) = text.split_at(text.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(text.len()));
        let (index, name) = rest.split_once(' ').unwrap_or((rest, ""));
        let parsed: Option<usize> = index.parse().ok();
        let (list, given, count) = match kind {
            "i" => (&mut names.inputs, &mut given_in, i),
            "o" => (&mut names.outputs, &mut given_out, o),
            _ => {
                return Err(at(
                    r,
                    format!("expected a symbol 'i<k> name', 'o<k> name' or 'c', found '{text}'"),
                ));
            }
        };
        let Some(k) = parsed.filter(|&k| k < count) else {
            return Err(at(r, format!("symbol '{text}' names no port ({count} of that kind)")));
        };
        if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == '#') {
            return Err(at(r, format!("symbol name '{name}' is empty or contains white space or '#'")));
        }
        if std::mem::replace(&mut given[k], true) {
            return Err(at(r, format!("port {kind}{k} is named twice")));
        }
        list[k] = name.to_string();
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::aiger::{AigerFormat, write_aiger};

    fn sample() -> (Aig, PortNames) {
        let mut g = Aig::new(3);
        let (a, b, c) = (g.input(0), g.input(1), g.input(2));
        let n1 = g.and(a, !b);
        let n2 = g.and(!n1, c);
        g.add_output(!n2);
        g.add_output(n1);
        let mut names = PortNames::indexed("s", 3, 2);
        names.inputs[1] = "enable".into();
        (g, names)
    }

    #[test]
    fn both_formats_round_trip() -> Result<(), Box<dyn std::error::Error>> {
        let (g, names) = sample();
        for format in [AigerFormat::Ascii, AigerFormat::Binary] {
            let mut bytes = Vec::new();
            write_aiger(&g, &names, format, &mut bytes)?;
            let (h, n) = parse_aiger(&bytes, "s", "s")?;
            assert_eq!((&h, &n), (&g, &names));
        }
        Ok(())
    }

    #[test]
    fn ascii_definitions_may_come_in_any_order() -> Result<(), Box<dyn std::error::Error>> {
        let text = b"aag 4 2 0 1 2\n2\n4\n9\n8 6 2\n6 2 5\n";
        let (g, _) = parse_aiger(text, "o.aag", "o")?;
        for v in 0..4u32 {
            let x = [v & 1 == 1, v & 2 == 2];
            assert_eq!(g.eval_one(&x), [!x[0] || x[1]]);
        }
        Ok(())
    }

    #[test]
    fn hostile_headers_fail_cleanly() {
        let cases: [(&[u8], &str); 11] = [
            (b"aig 1099511627776 1099511627776 0 0 0\n", "h:1: header claims M = 1099511627776"),
            (
                b"aig 2147483647 0 0 1 2147483647\n",
                "h:1: header promises 2147483648 entries but only 0 bytes follow",
            ),
            // Found by the fuzzer: I + A wrapped to 1 <= M, and the reader reserved 2^64 slots.
            (
                b"aag 3 2 0 0 000018446744073709551615\n2\n4\n7Ymc\x04m\n",
                "h:1: header: M = 3 but I + L + A = 18446744073709551617",
            ),
            (b"aag 3 1 1 1 1\n2\n4 2\n6\n6 2 4\n", "h:1: sequential circuits are not supported (1 latches)"),
            (b"aag 1 1 0 1 0 1\n2\n2\n", "h:1: bad-state"),
            (b"aig 2 1 0 1 1\n4\n\x00\x01", "h:byte 16: AND 4: first delta 0"),
            (b"aig 2 1 0 1 1\n4\n\x01\x05", "h:byte 16: AND 4: second delta 5"),
            (b"aag 2 1 0 1 1\n2\n4\n4 6 2\n", "h:4: AND inputs must be literals up to 5"),
            (b"aag 3 1 0 1 2\n2\n4\n4 6 2\n6 4 2\n", "h:5: combinational loop"),
            (b"aag 1 1 0 1 0\n2\n2\nq0 a\n", "h:4: expected a symbol"),
            (b"aag 1 1 0 1 0\n2\n2\ni0 \xff\n", "h:4: not valid UTF-8 text"),
        ];
        for (bytes, want) in cases {
            let got = parse_aiger(bytes, "h", "h").map(|_| ()).unwrap_err().to_string();
            assert!(got.starts_with(want), "got: {got}\nwant: {want}");
        }
    }
}
