//! Verilog-2001 writer: one synthesizable module per netlist.
//!
//! Conventions (stable; testbenches and scripts rely on them):
//! - ports `input wire [N-1:0] x` and `output wire [M-1:0] y`; input `i` of the circuit is
//!   `x[i]`, output `j` is `y[j]` (bit 0 is the least significant); a pipelined module
//!   also has `input wire clk` first. A port with no bits is left out.
//! - the wire driven by gate `g` is `w<id>` with `id = n_inputs + g` (the circuit's wire
//!   id); constants are written as `1'b0` / `1'b1`.
//! - LUTs: [`LutStyle::Table`] writes a constant table `localparam [2^k-1:0] T<id>` (bit
//!   `s` is the output at address `s`) indexed by the address bits, most significant
//!   first; [`LutStyle::Expr`] writes an irredundant sum of products. A LUT whose table
//!   bits are wires (an unbound parameter block) is indexed as a wire vector `w<id>_t`,
//!   or written as a sum of products over table and address bits.
//! - `pipeline = N > 0` inserts `N` register stages (latency `N` clock cycles): gates are
//!   split into `N + 1` stages by logic level, and a signal read in a later stage than
//!   its own is registered once per stage boundary it crosses (`w<id>_s<k>` and
//!   `x<i>_s<k>` hold it in stage `k`). With [`VerilogParams::valid`] the ports are
//!   `clk, en, valid_in, x, y, valid_out`: registers load only when `en` is 1, and
//!   `valid_out` is `valid_in` delayed by the same `N` enabled edges as the data.
//! - [`write_verilog_documented`] adds comment lines after the first (a model's export
//!   states there what each input bit means and the class order of the output).

use super::cover::{Cube, isop};
use super::netlist::{Netlist, constant_wires, gate_function};
use crate::circuit::{Circuit, WireId};
use crate::domain::Bool;
use itertools::Itertools;
use std::fmt::Write as _;
use std::io::{self, Write};

/// How LUT gates are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LutStyle {
    /// A constant table `localparam` indexed by the address bits.
    #[default]
    Table,
    /// An `assign` of a sum-of-products expression.
    Expr,
}

/// Options of [`write_verilog`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerilogParams {
    /// How LUT gates are written.
    pub lut_style: LutStyle,
    /// Register stages (0 = purely combinational, no clock port).
    pub pipeline: usize,
    /// With `pipeline > 0`: a clock enable `en` (the registers advance only on edges
    /// where it is 1) and a valid bit carried beside the data, `valid_in` to `valid_out`
    /// (`valid_out` is `valid_in` of the example whose result `y` holds).
    pub valid: bool,
}

/// Verilog-2001 reserved words, which cannot name a module.
const KEYWORDS: &str = "always and assign automatic begin buf case casex casez cell cmos config deassign default \
    defparam design disable edge else end endcase endconfig endfunction endgenerate endmodule \
    endprimitive endspecify endtable endtask event for force forever fork function generate genvar \
    highz0 highz1 if ifnone incdir include initial inout input instance integer join large liblist \
    library localparam macromodule medium module nand negedge nmos nor noshowcancelled not notif0 \
    notif1 or output parameter pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_onevent \
    pulsestyle_ondetect rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 \
    scalared showcancelled signed small specify specparam strong0 strong1 supply0 supply1 table task \
    time tran tranif0 tranif1 tri tri0 tri1 triand trior trireg unsigned use uwire vectored wait \
    wand weak0 weak1 while wire wor xnor xor";

/// A legal Verilog identifier for a module named `name`: characters other than letters,
/// digits, `_` and `$` become `_`; a leading digit or `$`, an empty name or a reserved
/// word gets the prefix `m_`.
#[must_use]
pub fn module_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '$' { c } else { '_' })
        .collect();
    if s.is_empty()
        || s.starts_with(|c: char| c.is_ascii_digit() || c == '$')
        || KEYWORDS.split_whitespace().any(|k| k == s)
    {
        s.insert_str(0, "m_");
    }
    s
}

/// The netlist as Verilog text.
#[must_use]
pub fn to_verilog(n: &Netlist, p: &VerilogParams) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail, and the writer emits only ASCII.
    let _ = write_verilog(n, p, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the netlist as one Verilog-2001 module named after the netlist's model (see
/// [`module_name`]), following the conventions in the module documentation.
///
/// # Errors
/// Any error of the underlying writer.
pub fn write_verilog<W: Write + ?Sized>(n: &Netlist, p: &VerilogParams, w: &mut W) -> io::Result<()> {
    write_verilog_documented(n, p, &[], w)
}

/// [`write_verilog`] with `doc` written as `//` comment lines after the first line.
///
/// # Errors
/// Any error of the underlying writer.
pub fn write_verilog_documented<W: Write + ?Sized>(
    n: &Netlist,
    p: &VerilogParams,
    doc: &[String],
    w: &mut W,
) -> io::Result<()> {
    let c = n.circuit();
    let name = module_name(&n.names().model);
    let consts = constant_wires(c);
    let stages = Stages::new(c, &consts, p.pipeline);
    let (ni, no) = (c.n_inputs(), c.n_outputs());
    let style = match p.lut_style {
        LutStyle::Table => "table",
        LutStyle::Expr => "expr",
    };
    writeln!(
        w,
        "// Generated by circuitlearn: {ni} inputs, {no} outputs, {} nodes; LUT style {style}; {} pipeline stages.",
        c.n_gates(),
        p.pipeline
    )?;
    for line in doc {
        writeln!(w, "// {line}")?;
    }
    let default = super::netlist::PortNames::indexed(&n.names().model, ni, no);
    if n.names().inputs != default.inputs || n.names().outputs != default.outputs {
        for (i, s) in n.names().inputs.iter().enumerate() {
            writeln!(w, "// x[{i}] = {s}")?;
        }
        for (j, s) in n.names().outputs.iter().enumerate() {
            writeln!(w, "// y[{j}] = {s}")?;
        }
    }
    let mut ports = Vec::new();
    let valid = p.valid && p.pipeline > 0;
    if p.pipeline > 0 {
        ports.push("  input wire clk".to_string());
    }
    if valid {
        ports.push("  input wire en".to_string());
        ports.push("  input wire valid_in".to_string());
    }
    if ni > 0 {
        ports.push(format!("  input wire [{}:0] x", ni - 1));
    }
    if no > 0 {
        ports.push(format!("  output wire [{}:0] y", no - 1));
    }
    if valid {
        ports.push("  output wire valid_out".to_string());
    }
    writeln!(w, "module {name} (\n{}\n);", ports.join(",\n"))?;
    if valid {
        writeln!(w, "  reg [{}:0] v = 0;", p.pipeline - 1)?;
        writeln!(w, "  assign valid_out = v[{}];", p.pipeline - 1)?;
    }
    for (wire, k) in stages.registers() {
        writeln!(w, "  reg {};", stages.name_at(c, wire, k))?;
    }
    let mut line = String::new();
    for (g, op, fanins) in c.gates() {
        if matches!(op, Bool::Const(_)) {
            continue;
        }
        let id = c.gate_wire(g).0;
        let s = stages.of(c.gate_wire(g));
        let r = |wire: WireId| stages.reference(c, &consts, wire, s);
        line.clear();
        match *op {
            Bool::Const(_) => {}
            Bool::Xor => {
                let _ = write!(line, "{} ^ {}", r(fanins[0]), r(fanins[1]));
            }
            Bool::And => {
                let _ = write!(line, "{} & {}", r(fanins[0]), r(fanins[1]));
            }
            Bool::Or => {
                let _ = write!(line, "{} | {}", r(fanins[0]), r(fanins[1]));
            }
            Bool::Not => {
                let _ = write!(line, "~{}", r(fanins[0]));
            }
            Bool::Mux => {
                let _ = write!(line, "{} ? {} : {}", r(fanins[0]), r(fanins[2]), r(fanins[1]));
            }
            Bool::Lut(k) => {
                let (table, addr) = fanins.split_at(1 << k);
                let addr_text = || {
                    let bits: Vec<String> = addr.iter().rev().map(|&a| r(a)).collect();
                    if bits.len() == 1 { bits[0].clone() } else { format!("{{{}}}", bits.join(", ")) }
                };
                let const_table: Option<Vec<bool>> = table.iter().map(|t| consts[t.index()]).collect();
                match (p.lut_style, const_table) {
                    (_, _) if k == 0 => line.push_str(&r(table[0])),
                    (LutStyle::Table, Some(bits)) => {
                        writeln!(
                            w,
                            "  localparam [{}:0] T{id} = {}'h{};",
                            bits.len() - 1,
                            bits.len(),
                            hex(&bits)
                        )?;
                        let _ = write!(line, "T{id}[{}]", addr_text());
                    }
                    (LutStyle::Table, None) => {
                        let t = table.iter().rev().map(|&t| r(t)).join(", ");
                        writeln!(w, "  wire [{}:0] w{id}_t = {{{t}}};", table.len() - 1)?;
                        let _ = write!(line, "w{id}_t[{}]", addr_text());
                    }
                    (LutStyle::Expr, Some(_)) => match gate_function(op, fanins, &consts) {
                        Some(f) => {
                            let vars: Vec<String> = f.inputs.iter().map(|&v| r(v)).collect();
                            sum_of_products(&mut line, &isop(&f.table), &vars);
                        }
                        None => table_sop(&mut line, table, addr, &consts, &r),
                    },
                    (LutStyle::Expr, None) => table_sop(&mut line, table, addr, &consts, &r),
                }
            }
        }
        writeln!(w, "  wire w{id} = {line};")?;
    }
    for (j, &o) in c.outputs().iter().enumerate() {
        writeln!(w, "  assign y[{j}] = {};", stages.reference(c, &consts, o, p.pipeline))?;
    }
    let regs = stages.registers();
    if !regs.is_empty() || valid {
        writeln!(w, "  always @(posedge clk) begin")?;
        let indent = if valid { "      " } else { "    " };
        if valid {
            writeln!(w, "    if (en) begin")?;
            let shifted = if p.pipeline == 1 {
                "valid_in".to_string()
            } else {
                format!("{{v[{}:0], valid_in}}", p.pipeline - 2)
            };
            writeln!(w, "{indent}v <= {shifted};")?;
        }
        for (wire, k) in regs {
            writeln!(w, "{indent}{} <= {};", stages.name_at(c, wire, k), stages.name_at(c, wire, k - 1))?;
        }
        if valid {
            writeln!(w, "    end")?;
        }
        writeln!(w, "  end")?;
    }
    writeln!(w, "endmodule")
}

/// `bits` (bit 0 first) as hexadecimal digits, most significant first.
fn hex(bits: &[bool]) -> String {
    let digits = bits.len().div_ceil(4);
    (0..digits)
        .rev()
        .map(|d| {
            let v = (0..4).fold(0u32, |a, i| a | u32::from(bits.get(d * 4 + i) == Some(&true)) << i);
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect()
}

/// Appends `cube | cube | ...` over the named variables (`1'b0` for no cubes).
fn sum_of_products(line: &mut String, cubes: &[Cube], vars: &[String]) {
    if cubes.is_empty() {
        line.push_str("1'b0");
        return;
    }
    let terms: Vec<String> = cubes
        .iter()
        .map(|c| {
            let lits: Vec<String> = (0..vars.len())
                .filter_map(|i| {
                    c.literal(i).map(|v| if v { vars[i].clone() } else { format!("~{}", vars[i]) })
                })
                .collect();
            match lits.len() {
                0 => "1'b1".to_string(),
                1 => lits[0].clone(),
                _ if cubes.len() == 1 => lits.join(" & "),
                _ => format!("({})", lits.join(" & ")),
            }
        })
        .collect();
    line.push_str(&terms.join(" | "));
}

/// A LUT with wire table bits as `(t_s & [addr = s]) | ...`, constant bits folded.
fn table_sop(
    line: &mut String,
    table: &[WireId],
    addr: &[WireId],
    consts: &[Option<bool>],
    r: &dyn Fn(WireId) -> String,
) {
    let mut terms = Vec::new();
    for (s, &t) in table.iter().enumerate() {
        let mut lits = match consts[t.index()] {
            Some(false) => continue,
            Some(true) => Vec::new(),
            None => vec![r(t)],
        };
        for (i, &a) in addr.iter().enumerate().rev() {
            let bit = s >> i & 1 == 1;
            lits.push(if bit { r(a) } else { format!("~{}", r(a)) });
        }
        terms.push(if lits.is_empty() { "1'b1".to_string() } else { format!("({})", lits.join(" & ")) });
    }
    if terms.is_empty() {
        line.push_str("1'b0");
    } else {
        line.push_str(&terms.join(" | "));
    }
}

/// The pipeline schedule: the stage of every wire and the register chains.
struct Stages {
    n: usize,
    /// Stage of each wire (inputs: 0).
    stage: Vec<usize>,
    /// Latest stage each wire is read in.
    last_use: Vec<usize>,
}

impl Stages {
    fn new(c: &Circuit<Bool>, consts: &[Option<bool>], n: usize) -> Self {
        let mut level = vec![0usize; c.n_wires()];
        for (g, _, fanins) in c.gates() {
            let w = c.gate_wire(g).index();
            if consts[w].is_none() {
                level[w] = 1 + fanins.iter().map(|f| level[f.index()]).max().unwrap_or(0);
            }
        }
        let depth = level.iter().copied().max().unwrap_or(0).max(1);
        let stage: Vec<usize> =
            level.iter().map(|&l| if l == 0 { 0 } else { (l - 1) * (n + 1) / depth }).collect();
        let mut last_use = stage.clone();
        for (g, _, fanins) in c.gates() {
            let s = stage[c.gate_wire(g).index()];
            for f in fanins {
                last_use[f.index()] = last_use[f.index()].max(s);
            }
        }
        for o in c.outputs() {
            last_use[o.index()] = n;
        }
        for (w, k) in consts.iter().enumerate() {
            if k.is_some() {
                last_use[w] = stage[w];
            }
        }
        Self { n, stage, last_use }
    }

    fn of(&self, w: WireId) -> usize {
        self.stage[w.index()]
    }

    /// Every register `(wire, stage)`, by wire then stage.
    fn registers(&self) -> Vec<(WireId, usize)> {
        if self.n == 0 {
            return Vec::new();
        }
        (0..self.stage.len())
            .flat_map(|w| (self.stage[w] + 1..=self.last_use[w]).map(move |k| (WireId(w as u32), k)))
            .collect()
    }

    /// The name of `w` as held in stage `k` (its own name in its own stage).
    fn name_at(&self, c: &Circuit<Bool>, w: WireId, k: usize) -> String {
        let own = k == self.stage[w.index()];
        match (w.index() < c.n_inputs(), own) {
            (true, true) => format!("x[{}]", w.0),
            (true, false) => format!("x{}_s{k}", w.0),
            (false, true) => format!("w{}", w.0),
            (false, false) => format!("w{}_s{k}", w.0),
        }
    }

    /// How stage `k` refers to `w`: a constant literal or its name in that stage.
    fn reference(&self, c: &Circuit<Bool>, consts: &[Option<bool>], w: WireId, k: usize) -> String {
        match consts[w.index()] {
            Some(v) => format!("1'b{}", u8::from(v)),
            None => self.name_at(c, w, k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::CircuitBuilder;
    use crate::domain::{BoolBuild, bind_params};

    /// y0 = lut2[0110](x0, x1) (xor), y1 = !(y0 & x2), y2 = x2.
    fn small() -> Result<Netlist, Box<dyn std::error::Error>> {
        let mut b = CircuitBuilder::<Bool>::new(4, 3);
        let (p, x) = (b.params(), b.args());
        let l = b.lut(&p, &x[..2]);
        let a = b.and(l, x[2]);
        let n = b.not(a);
        let c = b.finish(vec![l, n, x[2]])?;
        Ok(Netlist::indexed("demo", bind_params(&c, &[false, true, true, false])?))
    }

    #[test]
    fn golden_table_style() -> Result<(), Box<dyn std::error::Error>> {
        let want = "\
// Generated by circuitlearn: 3 inputs, 3 outputs, 5 nodes; LUT style table; 0 pipeline stages.
module demo (
  input wire [2:0] x,
  output wire [2:0] y
);
  localparam [3:0] T5 = 4'h6;
  wire w5 = T5[{x[1], x[0]}];
  wire w6 = w5 & x[2];
  wire w7 = ~w6;
  assign y[0] = w5;
  assign y[1] = w7;
  assign y[2] = x[2];
endmodule
";
        assert_eq!(to_verilog(&small()?, &VerilogParams::default()), want);
        Ok(())
    }

    #[test]
    fn golden_expr_style() -> Result<(), Box<dyn std::error::Error>> {
        let p = VerilogParams { lut_style: LutStyle::Expr, pipeline: 0, valid: false };
        let want = "\
// Generated by circuitlearn: 3 inputs, 3 outputs, 5 nodes; LUT style expr; 0 pipeline stages.
module demo (
  input wire [2:0] x,
  output wire [2:0] y
);
  wire w5 = (x[0] & ~x[1]) | (~x[0] & x[1]);
  wire w6 = w5 & x[2];
  wire w7 = ~w6;
  assign y[0] = w5;
  assign y[1] = w7;
  assign y[2] = x[2];
endmodule
";
        assert_eq!(to_verilog(&small()?, &p), want);
        Ok(())
    }

    #[test]
    fn golden_pipeline() -> Result<(), Box<dyn std::error::Error>> {
        let p = VerilogParams { lut_style: LutStyle::Table, pipeline: 1, valid: false };
        let want = "\
// Generated by circuitlearn: 3 inputs, 3 outputs, 5 nodes; LUT style table; 1 pipeline stages.
module demo (
  input wire clk,
  input wire [2:0] x,
  output wire [2:0] y
);
  reg x2_s1;
  reg w5_s1;
  reg w6_s1;
  localparam [3:0] T5 = 4'h6;
  wire w5 = T5[{x[1], x[0]}];
  wire w6 = w5 & x[2];
  wire w7 = ~w6_s1;
  assign y[0] = w5_s1;
  assign y[1] = w7;
  assign y[2] = x2_s1;
  always @(posedge clk) begin
    x2_s1 <= x[2];
    w5_s1 <= w5;
    w6_s1 <= w6;
  end
endmodule
";
        assert_eq!(to_verilog(&small()?, &p), want);
        Ok(())
    }

    #[test]
    fn unbound_luts_index_a_wire_vector() -> Result<(), Box<dyn std::error::Error>> {
        let mut b = CircuitBuilder::<Bool>::new(2, 1);
        let (p, x) = (b.params(), b.args());
        let y = b.lut(&p, &x);
        let n = Netlist::indexed("u", b.finish(vec![y])?);
        let t = to_verilog(&n, &VerilogParams::default());
        assert!(t.contains("  wire [1:0] w3_t = {x[1], x[0]};\n  wire w3 = w3_t[x[2]];\n"), "{t}");
        let e = to_verilog(&n, &VerilogParams { lut_style: LutStyle::Expr, pipeline: 0, valid: false });
        assert!(e.contains("  wire w3 = (x[0] & ~x[2]) | (x[1] & x[2]);\n"), "{e}");
        Ok(())
    }

    #[test]
    fn module_names_are_legal_identifiers() {
        assert_eq!(module_name("iris"), "iris");
        assert_eq!(module_name("breast-cancer"), "breast_cancer");
        assert_eq!(module_name("7seg"), "m_7seg");
        assert_eq!(module_name("module"), "m_module");
        assert_eq!(module_name(""), "m_");
    }
}
