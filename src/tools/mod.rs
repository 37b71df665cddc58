//! External tools: Icarus Verilog co-simulation, Yosys synthesis counts and ABC
//! equivalence checking. Each runner writes the tool's output to a log file and tells a
//! missing tool (with its Debian package), a failed run (with the log path) and a failed
//! check apart. Every run has a time bound ([`ToolLimits`], 30 minutes by default; a
//! run that passes it is [`ToolError::TimedOut`]) and dies with this process (see
//! [`run_bounded`]). (In-process proofs live elsewhere; this module only spawns programs.)

pub mod abc;
pub mod icarus;
pub mod tool;
pub mod yosys;

pub use abc::{Cec, Matching, abc_cec, abc_cec_limited};
pub use icarus::{
    IcarusOutcome, MAX_VVP_PARTS, run_icarus, run_icarus_every, run_icarus_limited, run_icarus_parts,
    vvp_parts,
};
pub use tool::{DEFAULT_TOOL_TIMEOUT, Tool, ToolError, ToolLimits};
pub use yosys::{YosysCounts, YosysFlow, yosys_counts, yosys_counts_limited};
