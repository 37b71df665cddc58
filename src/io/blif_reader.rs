//! BLIF reader for the combinational subset real benchmark suites use: one `.model`,
//! `.inputs`, `.outputs`, `.names` with ON-set (`1`) or OFF-set (`0`) covers, constant
//! nodes, buffers, `#` comments and `\` line continuations. Timing annotations
//! (`.area`, `.delay`, `.default_*`, ...) are skipped. `.latch` is refused as sequential;
//! hierarchy (`.subckt`, a second `.model`), `.gate` and `.exdc` are refused as
//! unsupported. Combinational loops are refused with the wires on the loop.
//!
//! A cover over at most [`MAX_COVER_LUT`] inputs becomes one LUT over the inputs its
//! function depends on (a buffer becomes a plain wire, an inverter a NOT gate, a
//! constant a shared constant gate); a wider cover becomes a tree of ANDs (one per row)
//! under a tree of ORs, inverted for an OFF-set cover.

use super::cover::TruthTable;
use super::netlist::{Netlist, PortNames};
use super::netlist_graph::{Loop, SignalGraph};
use crate::circuit::{CircuitBuilder, WireId};
use crate::domain::{Bool, BoolBuild};
use std::collections::HashMap;
use std::path::Path;
use thiserror::Error;

/// Widest cover that becomes a single LUT.
pub const MAX_COVER_LUT: usize = 6;

/// Directives that carry timing or area annotations only; skipped.
const IGNORED: &[&str] = &[
    ".area",
    ".delay",
    ".wire_load_slope",
    ".wire",
    ".input_arrival",
    ".output_required",
    ".input_drive",
    ".output_load",
    ".max_input_load",
    ".default_input_arrival",
    ".default_output_required",
    ".default_input_drive",
    ".default_output_load",
    ".default_max_input_load",
];

/// A BLIF file that cannot be read.
#[derive(Debug, Error)]
pub enum BlifError {
    /// The file cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// File.
        file: String,
        /// Cause.
        source: std::io::Error,
    },
    /// A line that does not parse.
    #[error("{file}:{line}: {msg}")]
    Syntax {
        /// File.
        file: String,
        /// Line (1-based; the first line of a continued line).
        line: usize,
        /// What was expected.
        msg: String,
    },
    /// A latch: only combinational circuits can be read.
    #[error(
        "{file}:{line}: sequential circuits are not supported ({directive}); only combinational BLIF can be read"
    )]
    Sequential {
        /// File.
        file: String,
        /// Line.
        line: usize,
        /// The directive (`.latch`, `.mlatch`).
        directive: String,
    },
    /// A construct outside the supported subset.
    #[error("{file}:{line}: {construct} is not supported (flat, combinational .names netlists only)")]
    Unsupported {
        /// File.
        file: String,
        /// Line.
        line: usize,
        /// What was found.
        construct: String,
    },
    /// A signal read (or listed as an output) that nothing drives.
    #[error("{file}:{line}: signal '{name}' is used but never defined")]
    Undefined {
        /// File.
        file: String,
        /// Line of the use.
        line: usize,
        /// Signal.
        name: String,
    },
    /// A signal driven twice (or an input also driven by a `.names`, or a port listed twice).
    #[error("{file}:{line}: signal '{name}' is defined twice (first at line {first})")]
    Redefined {
        /// File.
        file: String,
        /// Line of the second definition.
        line: usize,
        /// Line of the first.
        first: usize,
        /// Signal.
        name: String,
    },
    /// A combinational loop.
    #[error("{file}:{line}: combinational loop {cycle}")]
    Loop {
        /// File.
        file: String,
        /// Line of the `.names` driving the first wire on the loop.
        line: usize,
        /// The shortest loop through that wire: its first signals and its length.
        cycle: Loop,
    },
}

/// One `.names` block.
struct Node {
    line: usize,
    inputs: Vec<usize>,
    output: usize,
    /// Input planes (bytes `0`, `1`, `-`), one per row.
    rows: Vec<Vec<u8>>,
    /// Output column of the rows (`None` while there are no rows).
    polarity: Option<bool>,
}

#[derive(Clone, Copy)]
enum Driver {
    Input,
    Node(usize),
}

/// Signal names, interned.
#[derive(Default)]
struct Signals {
    index: HashMap<String, usize>,
    names: Vec<String>,
    driver: Vec<Option<(Driver, usize)>>,
    first_use: Vec<usize>,
}

impl Signals {
    fn id(&mut self, name: &str, line: usize) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len();
        self.index.insert(name.to_string(), i);
        self.names.push(name.to_string());
        self.driver.push(None);
        self.first_use.push(line);
        i
    }
}

/// Reads a BLIF file.
///
/// # Errors
/// [`BlifError`] with the file and line of the first problem.
pub fn read_blif(path: &Path) -> Result<Netlist, BlifError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| BlifError::Io { file: file.clone(), source })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid].iter().filter(|&&b| b == b'\n').count();
        BlifError::Syntax { file: file.clone(), line, msg: "not valid UTF-8 text".into() }
    })?;
    parse_blif(&text, &file)
}

/// Parses BLIF text; `file` names it in errors.
///
/// # Errors
/// [`BlifError`] with the file and line of the first problem.
pub fn parse_blif(text: &str, file: &str) -> Result<Netlist, BlifError> {
    let syntax = |line: usize, msg: String| BlifError::Syntax { file: file.to_string(), line, msg };
    let mut sig = Signals::default();
    let mut model: Option<String> = None;
    let mut inputs: Vec<usize> = Vec::new();
    let mut outputs: Vec<(usize, usize)> = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut in_cover = false;
    let mut ended = false;
    for (line, logical) in logical_lines(text) {
        let tokens: Vec<&str> = logical.split_whitespace().collect();
        let Some(&head) = tokens.first() else { continue };
        if ended {
            return Err(match head {
                ".model" => BlifError::Unsupported {
                    file: file.to_string(),
                    line,
                    construct: "a second .model (hierarchical BLIF)".into(),
                },
                _ => syntax(line, format!("'{head}' after .end")),
            });
        }
        if !head.starts_with('.') {
            if !in_cover {
                return Err(syntax(
                    line,
                    format!("'{logical}' is not a directive and not inside a .names block"),
                ));
            }
            let node = nodes.last_mut().ok_or_else(|| syntax(line, "cover row outside .names".into()))?;
            cover_row(node, &tokens).map_err(|msg| syntax(line, msg))?;
            continue;
        }
        in_cover = false;
        match head {
            ".model" => {
                if model.is_some() {
                    let construct = "a second .model (hierarchical BLIF)".into();
                    return Err(BlifError::Unsupported { file: file.to_string(), line, construct });
                }
                model = Some(tokens.get(1).unwrap_or(&"top").to_string());
            }
            ".inputs" => {
                for name in &tokens[1..] {
                    let s = sig.id(name, line);
                    if let Some((_, first)) = sig.driver[s] {
                        return Err(redefined(file, line, first, name));
                    }
                    sig.driver[s] = Some((Driver::Input, line));
                    inputs.push(s);
                }
            }
            ".outputs" => {
                for name in &tokens[1..] {
                    let s = sig.id(name, line);
                    if let Some(&(_, first)) = outputs.iter().find(|(o, _)| *o == s) {
                        return Err(redefined(file, line, first, name));
                    }
                    outputs.push((s, line));
                }
            }
            ".names" => {
                let Some((&out, ins)) = tokens[1..].split_last() else {
                    return Err(syntax(line, ".names needs at least an output signal".into()));
                };
                let output = sig.id(out, line);
                if let Some((_, first)) = sig.driver[output] {
                    return Err(redefined(file, line, first, out));
                }
                sig.driver[output] = Some((Driver::Node(nodes.len()), line));
                let inputs = ins.iter().map(|n| sig.id(n, line)).collect();
                nodes.push(Node { line, inputs, output, rows: Vec::new(), polarity: None });
                in_cover = true;
            }
            ".end" => ended = true,
            ".latch" | ".mlatch" => {
                return Err(BlifError::Sequential {
                    file: file.to_string(),
                    line,
                    directive: head.to_string(),
                });
            }
            h if IGNORED.contains(&h) => {}
            h => {
                return Err(BlifError::Unsupported {
                    file: file.to_string(),
                    line,
                    construct: h.to_string(),
                });
            }
        }
    }
    if model.is_none() && inputs.is_empty() && outputs.is_empty() && nodes.is_empty() {
        return Err(syntax(1, "no BLIF content: expected .model, .inputs, .outputs and .names".into()));
    }
    let order = topological_order(&nodes, &sig, file)?;
    build(&nodes, &order, &sig, &inputs, &outputs, model.unwrap_or_else(|| "top".into()), file)
}

fn redefined(file: &str, line: usize, first: usize, name: &str) -> BlifError {
    BlifError::Redefined { file: file.to_string(), line, first, name: name.to_string() }
}

/// Lines with comments removed and `\` continuations joined, numbered by their first
/// physical line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut acc = String::new();
    let mut start = 0;
    for (i, raw) in text.lines().enumerate() {
        let body = raw.split('#').next().unwrap_or("").trim_end();
        if acc.is_empty() {
            start = i + 1;
        }
        if let Some(cont) = body.strip_suffix('\\') {
            acc.push_str(cont);
            acc.push(' ');
            continue;
        }
        acc.push_str(body);
        if !acc.trim().is_empty() {
            out.push((start, std::mem::take(&mut acc)));
        }
        acc.clear();
    }
    if !acc.trim().is_empty() {
        out.push((start, acc));
    }
    out
}

/// Adds one cover row to `node`.
fn cover_row(node: &mut Node, tokens: &[&str]) -> Result<(), String> {
    let n = node.inputs.len();
    let (plane, out) = match (n, tokens) {
        (0, [o]) => ("", *o),
        (_, [p, o]) if n > 0 => (*p, *o),
        _ => {
            return Err(format!("a cover row of this .names needs {} input characters and an output bit", n));
        }
    };
    if plane.len() != n || !plane.bytes().all(|c| matches!(c, b'0' | b'1' | b'-')) {
        return Err(format!("input plane '{plane}' must be {n} characters from 0, 1, -"));
    }
    let v = match out {
        "1" => true,
        "0" => false,
        _ => return Err(format!("output bit '{out}' must be 0 or 1")),
    };
    if node.polarity.is_some_and(|p| p != v) {
        return Err("a cover mixes ON-set (1) and OFF-set (0) rows".into());
    }
    node.polarity = Some(v);
    node.rows.push(plane.as_bytes().to_vec());
    Ok(())
}

/// The `.names` blocks in an order where every block comes after the blocks it reads.
fn topological_order(nodes: &[Node], sig: &Signals, file: &str) -> Result<Vec<usize>, BlifError> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; nodes.len()];
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..nodes.len() {
        if state[root] != NEW {
            continue;
        }
        state[root] = ACTIVE;
        stack.push((root, 0));
        while let Some(&(n, next)) = stack.last() {
            let Some(&s) = nodes[n].inputs.get(next) else {
                state[n] = DONE;
                order.push(n);
                stack.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            let child = match sig.driver[s] {
                Some((Driver::Node(m), _)) => m,
                Some((Driver::Input, _)) => continue,
                None => {
                    let name = sig.names[s].clone();
                    return Err(BlifError::Undefined { file: file.to_string(), line: nodes[n].line, name });
                }
            };
            match state[child] {
                NEW => {
                    state[child] = ACTIVE;
                    stack.push((child, 0));
                }
                ACTIVE => {
                    let cycle = shortest_loop(nodes, sig, nodes[child].output);
                    return Err(BlifError::Loop { file: file.to_string(), line: nodes[child].line, cycle });
                }
                _ => {}
            }
        }
    }
    Ok(order)
}

/// The shortest loop through signal `start`, which the depth-first search found on one.
fn shortest_loop(nodes: &[Node], sig: &Signals, start: usize) -> Loop {
    let mut g = SignalGraph::new();
    let ids: Vec<_> = sig.names.iter().map(|n| g.add_signal(n.as_str())).collect();
    for node in nodes {
        for &s in &node.inputs {
            g.add_edge(ids[s], ids[node.output]);
        }
    }
    g.loop_through(ids[start]).unwrap_or_else(|| Loop {
        first: vec![sig.names[start].clone()],
        length: 1,
        component: 1,
    })
}

/// Shared constant gates, made on first use.
#[derive(Default)]
struct Consts {
    zero: Option<WireId>,
    one: Option<WireId>,
}

impl Consts {
    fn get(&mut self, b: &mut CircuitBuilder<Bool>, v: bool) -> WireId {
        let slot = if v { &mut self.one } else { &mut self.zero };
        *slot.get_or_insert_with(|| b.constant(v))
    }
}

fn build(
    nodes: &[Node],
    order: &[usize],
    sig: &Signals,
    inputs: &[usize],
    outputs: &[(usize, usize)],
    model: String,
    file: &str,
) -> Result<Netlist, BlifError> {
    let mut b = CircuitBuilder::<Bool>::new(0, inputs.len());
    let mut wire: Vec<Option<WireId>> = vec![None; sig.names.len()];
    for (i, &s) in inputs.iter().enumerate() {
        wire[s] = Some(b.arg(i));
    }
    let mut consts = Consts::default();
    for &n in order {
        let node = &nodes[n];
        // Every input is an input port or a block earlier in the order.
        let ins: Vec<WireId> = node.inputs.iter().map(|&s| wire[s].unwrap_or(WireId(u32::MAX))).collect();
        wire[node.output] = Some(cover_gates(&mut b, &mut consts, node, &ins));
    }
    let mut outs = Vec::with_capacity(outputs.len());
    for &(s, line) in outputs {
        let w = wire[s].ok_or_else(|| BlifError::Undefined {
            file: file.to_string(),
            line,
            name: sig.names[s].clone(),
        })?;
        outs.push(w);
    }
    let circuit = b.finish(outs).map_err(|e| BlifError::Syntax {
        file: file.to_string(),
        line: 0,
        msg: e.to_string(),
    })?;
    let names = PortNames {
        model,
        inputs: inputs.iter().map(|&s| sig.names[s].clone()).collect(),
        outputs: outputs.iter().map(|&(s, _)| sig.names[s].clone()).collect(),
    };
    Netlist::new(names, circuit).map_err(|e| BlifError::Syntax {
        file: file.to_string(),
        line: 0,
        msg: e.to_string(),
    })
}

/// The gates computing one cover; returns the wire with its value.
fn cover_gates(b: &mut CircuitBuilder<Bool>, consts: &mut Consts, node: &Node, ins: &[WireId]) -> WireId {
    let on = node.polarity.unwrap_or(true);
    if node.rows.is_empty() {
        return consts.get(b, false);
    }
    let n = ins.len();
    if n <= MAX_COVER_LUT {
        let cubes: Vec<(usize, usize)> = node
            .rows
            .iter()
            .map(|r| {
                r.iter().enumerate().fold((0, 0), |(care, val), (i, &c)| match c {
                    b'-' => (care, val),
                    c => (care | 1 << i, val | usize::from(c == b'1') << i),
                })
            })
            .collect();
        let f = TruthTable::from_fn(n, |s| cubes.iter().any(|&(care, val)| s & care == val) == on);
        let support: Vec<usize> = (0..n).filter(|&i| f.depends_on(i)).collect();
        let f = f.project(&support);
        let addr: Vec<WireId> = support.iter().map(|&i| ins[i]).collect();
        return match (addr.len(), f.constant()) {
            (_, Some(v)) => consts.get(b, v),
            (1, _) if f.get(1) => addr[0],
            (1, _) => b.not(addr[0]),
            (k, _) => {
                let table: Vec<WireId> = (0..1usize << k).map(|s| consts.get(b, f.get(s))).collect();
                b.lut(&table, &addr)
            }
        };
    }
    let mut negated: Vec<Option<WireId>> = vec![None; n];
    let mut terms = Vec::with_capacity(node.rows.len());
    for row in &node.rows {
        let mut lits = Vec::new();
        for (i, &c) in row.iter().enumerate() {
            match c {
                b'1' => lits.push(ins[i]),
                b'0' => lits.push(*negated[i].get_or_insert_with(|| b.not(ins[i]))),
                _ => {}
            }
        }
        terms.push(if lits.is_empty() { consts.get(b, true) } else { tree(b, lits, Bool::And) });
    }
    let sum = tree(b, terms, Bool::Or);
    if on { sum } else { b.not(sum) }
}

/// A balanced tree of a binary gate over `items` (at least one).
fn tree(b: &mut CircuitBuilder<Bool>, mut items: Vec<WireId>, op: Bool) -> WireId {
    while items.len() > 1 {
        items = items.chunks(2).map(|p| if p.len() == 2 { b.gate(op, p) } else { p[0] }).collect();
    }
    items[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(n: &Netlist, x: &[bool]) -> Vec<bool> {
        n.circuit().eval_one(x)
    }

    #[test]
    fn reads_covers_constants_buffers_and_continuations() -> Result<(), Box<dyn std::error::Error>> {
        let text = "\
# a comment
.model t
.inputs a b \\
  c
.outputs f g h k z
.names a b f   # and
11 1
.names a b c g
000 0
.names h
1
.names c k
1 1
.names z
.end
";
        let n = parse_blif(text, "t.blif")?;
        assert_eq!(n.names().inputs, ["a", "b", "c"]);
        assert_eq!(n.names().outputs, ["f", "g", "h", "k", "z"]);
        for v in 0..8u32 {
            let x: Vec<bool> = (0..3).map(|i| v >> i & 1 == 1).collect();
            assert_eq!(eval(&n, &x), [x[0] && x[1], x[0] || x[1] || x[2], true, x[2], false]);
        }
        // k is a buffer: no gate, the output is the input wire.
        assert_eq!(n.circuit().outputs()[3], WireId(2));
        Ok(())
    }

    #[test]
    fn wide_covers_become_and_or_trees() -> Result<(), Box<dyn std::error::Error>> {
        let text = ".model w\n.inputs a b c d e f g\n.outputs y\n.names a b c d e f g y\n1111111 0\n0------ 0\n.end\n";
        let n = parse_blif(text, "w.blif")?;
        assert!(n.circuit().gate_histogram().iter().all(|(g, _)| !g.starts_with("lut")));
        for v in 0..128u32 {
            let x: Vec<bool> = (0..7).map(|i| v >> i & 1 == 1).collect();
            assert_eq!(eval(&n, &x), [v != 127 && x[0]]);
        }
        Ok(())
    }

    /// Files that are not circuits: empty, not UTF-8, and a 100,000-signal loop, whose
    /// error names its first signals and its length on one short line.
    #[test]
    fn empty_binary_and_long_loop_files_are_refused_briefly() {
        let d = tempfile::tempdir().unwrap();
        let read = |name: &str, bytes: &[u8]| {
            let p = d.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            read_blif(&p).map(|_| ()).unwrap_err().to_string()
        };
        assert!(
            read("e.blif", b"")
                .ends_with("e.blif:1: no BLIF content: expected .model, .inputs, .outputs and .names")
        );
        let e = read("u.blif", b".model m\n.inputs a\xff\n.outputs y\n.names a\xff y\n1 1\n");
        assert!(e.ends_with("u.blif:2: not valid UTF-8 text"), "{e}");
        let n = 100_000;
        let mut text = String::from(".model m\n.inputs a\n.outputs s0\n");
        for i in 0..n {
            text.push_str(&format!(".names a s{} s{i}\n11 1\n", (i + n - 1) % n));
        }
        let e = read("loop.blif", text.as_bytes());
        assert!(e.len() < 200, "{} bytes: {}", e.len(), &e[..200]);
        assert!(
            e.ends_with("loop.blif:4: combinational loop of 100000 signals through s0 -> s1 -> s2 -> s3 -> s4 -> s5 -> s6 -> s7 -> ..."),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            (
                ".model m\n.inputs a\n.outputs q\n.latch a q re clk 0\n.end\n",
                "m.blif:4: sequential circuits are not supported (.latch)",
            ),
            (
                ".model m\n.inputs a\n.outputs p\n.names a q p\n11 1\n.names p q\n1 1\n",
                "m.blif:4: combinational loop through p -> q -> p",
            ),
            (
                ".model m\n.inputs a\n.outputs y\n.names a b y\n11 1\n",
                "m.blif:4: signal 'b' is used but never defined",
            ),
            (
                ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.names a y\n0 1\n",
                "m.blif:6: signal 'y' is defined twice (first at line 4)",
            ),
            (".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n0 0\n", "m.blif:6: a cover mixes ON-set"),
            (
                ".model m\n.inputs a\n.outputs y\n.names a y\n11 1\n",
                "m.blif:5: input plane '11' must be 1 characters",
            ),
            (".model m\n.inputs a\n.outputs y\n.subckt sub x=a y=y\n", "m.blif:4: .subckt is not supported"),
            (".model m\n.inputs a\n.outputs y\n", "m.blif:3: signal 'y' is used but never defined"),
            ("11 1\n", "m.blif:1: '11 1' is not a directive"),
            ("", "m.blif:1: no BLIF content"),
            ("# only a comment\n\n", "m.blif:1: no BLIF content"),
        ];
        for (text, want) in cases {
            let got = parse_blif(text, "m.blif").map(|_| ()).unwrap_err().to_string();
            assert!(got.starts_with(want), "got: {got}\nwant: {want}");
        }
    }
}
