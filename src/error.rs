//! Error types shared across the library.

use thiserror::Error;

/// Two maps whose interfaces do not line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("cannot compose {left} outputs into {right} inputs")]
pub struct ArityMismatch {
    /// Wires offered.
    pub left: usize,
    /// Wires expected.
    pub right: usize,
}

/// Why a [`CircuitBuilder`](crate::circuit::CircuitBuilder) refused to finish.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum InvalidCircuit {
    /// A gate has the wrong number of fan-ins for its type.
    #[error("gate {gate} ({op}) has {found} inputs, expected {expected}")]
    WrongArity {
        /// Gate index.
        gate: usize,
        /// Gate type name.
        op: String,
        /// Arity of the gate type.
        expected: usize,
        /// Fan-ins given.
        found: usize,
    },
    /// A gate reads a wire defined at or after itself (a cycle or a forward reference).
    #[error("gate {gate} reads wire {wire}, which is not defined before it")]
    NotTopological {
        /// Gate index.
        gate: usize,
        /// Offending wire id.
        wire: u32,
    },
    /// An output names a wire that does not exist.
    #[error("output {output} names undefined wire {wire}")]
    UndefinedOutput {
        /// Output position.
        output: usize,
        /// Offending wire id.
        wire: u32,
    },
    /// More wires than a `u32` id can name.
    #[error("circuit has {wires} wires, more than a 32-bit id can name")]
    TooLarge {
        /// Wire count.
        wires: usize,
    },
}
