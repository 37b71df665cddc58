//! `Signature`: the generators of a circuit domain and their arities.

use std::fmt::Debug;
use std::hash::Hash;

/// A gate type of some domain (Boolean, ring, smooth). Every gate has exactly one output;
/// copy and discard, the cartesian structure, are implicit in the wiring (a wire read
/// twice is copied, a wire never read is discarded).
pub trait Signature: Clone + Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    /// Number of inputs the gate reads.
    fn arity(&self) -> usize;
    /// A short name for diagrams and netlists (`and`, `lut4`, ...).
    fn name(&self) -> String;
}
