//! Files in and out: atomic writes, model files, netlist writers (Verilog, BLIF, AIGER,
//! DOT) and readers (BLIF, AIGER), testbenches.

pub mod aiger;
pub mod aiger_reader;
pub mod atomic;
pub mod blif;
pub mod blif_reader;
pub mod cover;
pub mod dot;
pub mod model_file;
pub mod netlist;
pub mod netlist_graph;
pub mod plot;
pub mod raw_inputs;
pub mod ring_model;
pub mod smooth_model;
pub mod testbench;
pub mod trainer_bench;
pub mod truth;
pub mod verilog;
pub mod verilog_ring;
pub mod verilog_trainer;
pub mod verilog_trainer_votes;

pub use atomic::{create_new, write_atomic, write_atomic_with};
pub use model_file::{ModelFile, ModelFileError};
pub use netlist::{Netlist, PortNames};
