//! External tools: Icarus Verilog co-simulation, Yosys synthesis counts and ABC
//! equivalence checking. Each runner writes the tool's output to a log file and tells a
//! missing tool (with its Debian package), a failed run (with the log path) and a failed
//! check apart. (In-process proofs live elsewhere; this module only spawns programs.)

pub mod abc;
pub mod icarus;
pub mod tool;
pub mod yosys;

pub use abc::{Cec, Matching, abc_cec};
pub use icarus::{IcarusOutcome, run_icarus, run_icarus_every};
pub use tool::{Tool, ToolError};
pub use yosys::{YosysCounts, YosysFlow, yosys_counts};
