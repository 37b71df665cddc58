//! Binding trained parameters: `P x A -> B` at `p` becomes the parameter-free `A -> B`.
//!
//! Every parameter wire is replaced by one of two shared constant gates (created only if
//! used), so LUT gates keep their shape and read constant tables: the "trained circuit"
//! that every writer exports. Nothing else is simplified; constant propagation is a pass.

use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::{Bool, BoolBuild};
use crate::error::ArityMismatch;

/// `c` with its parameter block fixed to `params`: a circuit with no parameters, the same
/// arguments and outputs, and the same gates in the same order, preceded by at most two
/// constant gates (`0` then `1`, each only if some parameter has that value and is read).
///
/// # Errors
/// [`ArityMismatch`] unless `params` has one value per parameter of `c`.
pub fn bind_params(c: &Circuit<Bool>, params: &[bool]) -> Result<Circuit<Bool>, ArityMismatch> {
    if params.len() != c.n_params() {
        return Err(ArityMismatch { left: params.len(), right: c.n_params() });
    }
    let fanout = c.fanout_counts();
    let used = |v: bool| params.iter().zip(&fanout).any(|(&p, &n)| p == v && n > 0);
    let mut b = CircuitBuilder::<Bool>::new(0, c.n_args());
    let zero = used(false).then(|| b.constant(false));
    let one = used(true).then(|| b.constant(true));
    // Unread parameters map to a placeholder that nothing looks up.
    let mut inputs: Vec<WireId> =
        params.iter().map(|&p| if p { one } else { zero }.unwrap_or(WireId(u32::MAX))).collect();
    inputs.extend(b.args());
    let outputs = b.instantiate(c, &inputs)?;
    Ok(b.finish(outputs).expect("binding parameters keeps a valid circuit valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_matches_evaluation_with_the_parameters() -> Result<(), Box<dyn std::error::Error>> {
        let mut b = CircuitBuilder::<Bool>::new(5, 2);
        let (p, x) = (b.params(), b.args());
        let l = b.lut(&p[..4], &x);
        let y = b.and(l, p[4]);
        let c = b.finish(vec![y, l])?;
        let params = [false, true, true, false, true];
        let bound = bind_params(&c, &params)?;
        assert_eq!((bound.n_params(), bound.n_args(), bound.n_gates()), (0, 2, 4));
        assert_eq!(
            bound.gate_histogram(),
            vec![("and".into(), 1), ("const0".into(), 1), ("const1".into(), 1), ("lut2".into(), 1)]
        );
        for v in 0..4u32 {
            let x = [v & 1 == 1, v & 2 == 2];
            let mut full = params.to_vec();
            full.extend(x);
            assert_eq!(bound.eval_one(&x), c.eval_one(&full));
        }
        assert!(bind_params(&c, &params[..4]).is_err());
        Ok(())
    }

    #[test]
    fn only_read_constants_are_created() -> Result<(), Box<dyn std::error::Error>> {
        let mut b = CircuitBuilder::<Bool>::new(2, 1);
        let y = b.and(b.param(0), b.arg(0));
        let c = b.finish(vec![y])?;
        // Parameter 1 is unread, so only the constant 1 appears.
        let bound = bind_params(&c, &[true, false])?;
        assert_eq!(bound.gate_histogram(), vec![("and".into(), 1), ("const1".into(), 1)]);
        Ok(())
    }
}
