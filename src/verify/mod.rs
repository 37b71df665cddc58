//! Verification: combinational equivalence checking (exhaustive simulation or a bounded
//! SAT miter; it lives beside the passes it proves, [`crate::pass::cec`]) and the bounded
//! SAT layer it runs on ([`crate::sat`]), gathered under one name.

pub use crate::pass::cec;
pub use crate::pass::cec::{CEC_LIMITS, CecMethod, CecParams, Verdict, cec, cec_with};
pub use crate::sat::SatLimits;
