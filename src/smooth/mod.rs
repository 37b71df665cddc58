//! The smooth domain: circuits whose wires carry f32 tensors ([`SmoothOp`] gates over
//! [`Tensor`] values), trained by gradient descent through the same lens core as the
//! Boolean and ring domains.
//!
//! A model is a `Circuit<SmoothOp>` `P x A -> B` whose parameter block holds one wire
//! per weight tensor; its lens is [`Lens::of`](crate::cat::Lens::of), losses and the
//! learning rate are lenses ([`loss`]), and [`learner`](loss::learner) composes them into the circuit
//! that returns the parameter gradient. Optimisers ([`optim`]) are the stateful
//! reparametrisations that turn that gradient into new parameters. Relaxed gate and LUT
//! networks (`learn::relaxed`) are circuits of the same gates plus those of [`lut`].

mod error;
pub mod examples;
pub mod layers;
pub mod loss;
pub mod lut;
mod op;
pub mod optim;
pub mod tensor;

pub use error::SmoothError;
pub use op::SmoothOp;
pub use tensor::{PackedBits, Tensor};

use crate::circuit::Circuit;
use std::borrow::Cow;

/// A smooth circuit.
pub type SmoothCircuit = Circuit<SmoothOp>;

/// Asks the C allocator to keep freed memory for reuse instead of returning it to the
/// system (glibc only; elsewhere nothing). [`eval_tensors`] allocates every gate's output afresh
/// and drops it after its last use, and with glibc's defaults each tensor of 128 KiB or
/// more (a relaxed layer's activations are megabytes, the same sizes every batch) came
/// back as new zero-filled pages: a quarter of relaxed training's time went to page
/// faults. A process-wide setting, so programs call it once at start (the `circuitlearn`
/// binary does).
pub fn retain_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap, and
        // the heap is trimmed only above 1 GiB free.
        // SAFETY: mallopt only changes allocator parameters; it is called with valid
        // options and values and touches no memory of ours.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        }
    }
}

/// Wall time of [`eval_tensors`]' gates by kind, for finding where a training epoch's
/// time goes: with `CIRCUITLEARN_OP_TIMES` set, the trainer prints each epoch's table on
/// stderr (BENCHMARKS.md, 2026-12-07). Off, it costs one relaxed atomic load a gate.
pub mod op_times {
    use super::SmoothOp;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    static ON: AtomicBool = AtomicBool::new(false);
    /// Per kind (its `Debug` name): total time and calls.
    static TIMES: Mutex<Vec<(String, Duration, u64)>> = Mutex::new(Vec::new());

    /// Turns the timing on or off (process-wide).
    pub fn set_enabled(on: bool) {
        ON.store(on, Ordering::Relaxed);
    }

    /// Turns the timing on if `CIRCUITLEARN_OP_TIMES` is set.
    pub fn enable_from_env() {
        if std::env::var_os("CIRCUITLEARN_OP_TIMES").is_some() {
            set_enabled(true);
        }
    }

    /// Whether gates are being timed.
    #[must_use]
    pub fn enabled() -> bool {
        ON.load(Ordering::Relaxed)
    }

    /// `f()`, its time added to `op`'s kind when the timing is on.
    pub(super) fn timed<T>(op: &SmoothOp, f: impl FnOnce() -> T) -> T {
        if !enabled() {
            return f();
        }
        let start = Instant::now();
        let out = f();
        let (took, name) = (start.elapsed(), format!("{op:?}"));
        let mut times = TIMES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match times.iter_mut().find(|t| t.0 == name) {
            Some(t) => (t.1, t.2) = (t.1 + took, t.2 + 1),
            None => times.push((name, took, 1)),
        }
        out
    }

    /// The times since the last call, longest first: kind, total, calls.
    #[must_use]
    pub fn take() -> Vec<(String, Duration, u64)> {
        let mut times = std::mem::take(&mut *TIMES.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        times.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        times
    }

    /// [`take`] as lines of a table, headed `title`; none if nothing was timed.
    #[must_use]
    pub fn report(title: &str) -> Option<String> {
        if !enabled() {
            return None;
        }
        let times = take();
        let total: Duration = times.iter().map(|t| t.1).sum();
        (!times.is_empty()).then(|| {
            let mut s = format!("{title}: gates {:.2} s\n", total.as_secs_f64());
            for (name, took, calls) in times {
                s += &format!("  {name:<24} {:>8.3} s {calls:>8} calls\n", took.as_secs_f64());
            }
            s
        })
    }
}

/// Evaluates `c` on one tensor per input (parameters first). Each value is dropped after
/// its last reader, so memory stays near the live set; kernels run in parallel inside.
///
/// # Panics
/// If `inputs` does not have one tensor per circuit input, or shapes do not fit the gates
/// (use [`check_shapes`] first on circuits built from user input).
#[must_use]
pub fn eval_tensors(c: &SmoothCircuit, inputs: &[&Tensor]) -> Vec<Tensor> {
    assert_eq!(inputs.len(), c.n_inputs(), "one tensor per circuit input");
    let mut uses = c.fanout_counts();
    let mut vals: Vec<Option<Cow<'_, Tensor>>> = inputs.iter().map(|t| Some(Cow::Borrowed(*t))).collect();
    vals.reserve(c.n_gates());
    for (_, op, fanins) in c.gates() {
        let out = {
            let args: Vec<&Tensor> = fanins
                .iter()
                .map(|w| vals[w.index()].as_deref().expect("value is live until its last use"))
                .collect();
            op_times::timed(op, || op.apply(&args))
        };
        for w in fanins {
            uses[w.index()] -= 1;
            if uses[w.index()] == 0 {
                vals[w.index()] = None;
            }
        }
        vals.push(Some(Cow::Owned(out)));
    }
    c.outputs()
        .iter()
        .map(|w| {
            uses[w.index()] -= 1;
            let v = if uses[w.index()] == 0 { vals[w.index()].take() } else { vals[w.index()].clone() };
            v.expect("output value is live").into_owned()
        })
        .collect()
}

/// The shape of every output of `c` for inputs of the given shapes.
///
/// # Errors
/// A message naming the first gate whose input shapes do not fit.
pub fn check_shapes(c: &SmoothCircuit, inputs: &[Vec<usize>]) -> Result<Vec<Vec<usize>>, SmoothError> {
    if inputs.len() != c.n_inputs() {
        return Err(SmoothError::Shape(format!("{} input shapes for {} inputs", inputs.len(), c.n_inputs())));
    }
    let mut shapes: Vec<Vec<usize>> = inputs.to_vec();
    for (g, op, fanins) in c.gates() {
        let ins: Vec<&[usize]> = fanins.iter().map(|w| shapes[w.index()].as_slice()).collect();
        let s = op.out_shape(&ins).map_err(|e| SmoothError::Shape(format!("gate {g}: {e}")))?;
        shapes.push(s);
    }
    Ok(c.outputs().iter().map(|w| shapes[w.index()].clone()).collect())
}

/// The circuit `P x (A, Y) -> P'` of parameter changes proposed by a learner lens
/// (`(model ⊗ id) ; loss ; learning rate`, see [`loss::learner`]): its backward map
/// restricted to the parameters, with everything else pruned (no input gradient of the
/// first layer is computed) and repeated gates shared (the composite's backward map
/// computes the model's forward pass once for the loss and once inside `R[model]`).
#[must_use]
pub fn parameter_changes(learner: &crate::cat::Lens<SmoothOp>, n_params: usize) -> SmoothCircuit {
    let rev = learner.changes();
    let keep: Vec<usize> = (0..n_params).collect();
    let pick = Circuit::wiring(rev.n_outputs(), &keep);
    let picked = rev
        .then(&pick)
        .expect("a learner's backward map returns one change per input")
        .with_params(n_params)
        .expect("the parameters are the first inputs");
    fuse_choice_adjoints(&shared(&picked.pruned()))
}

/// `c` with each `SoftChoiceGradW(candidates, x, v)` whose `v = RelaxedLutGradX(k)(wiring,
/// tables, u, g)` nothing else reads computed as one [`SmoothOp::LutChoiceGradW`] gate:
/// the weight adjoints of a learned input choice then come straight from the LUT layer's
/// output adjoints, without the `[M, B]` tensor of its input adjoints (the same values).
#[must_use]
pub fn fuse_choice_adjoints(c: &SmoothCircuit) -> SmoothCircuit {
    use crate::circuit::{CircuitBuilder, WireId};
    let mut readers = vec![0usize; c.n_wires()];
    for w in c.gates().flat_map(|(_, _, fanins)| fanins).chain(c.outputs()) {
        readers[w.index()] += 1;
    }
    let mut b = CircuitBuilder::<SmoothOp>::new(c.n_params(), c.n_args());
    let mut map: Vec<WireId> = (0..c.n_inputs()).map(|i| WireId(i as u32)).collect();
    for (g, op, fanins) in c.gates() {
        let ins: Vec<WireId> = fanins.iter().map(|w| map[w.index()]).collect();
        let inner = (*op == SmoothOp::SoftChoiceGradW && readers[fanins[2].index()] == 1)
            .then(|| c.driver(fanins[2]))
            .flatten()
            .and_then(|i| match *c.op(i) {
                SmoothOp::RelaxedLutGradX(k) => Some((k, c.fanins(i))),
                _ => None,
            });
        let w = match inner {
            Some((k, v)) => {
                let v: Vec<WireId> = v.iter().map(|w| map[w.index()]).collect();
                b.gate(SmoothOp::LutChoiceGradW(k), &[v[0], v[1], ins[0], ins[1], v[2], v[3]])
            }
            None => b.gate(*op, &ins),
        };
        debug_assert_eq!(c.gate_wire(g).index(), map.len());
        map.push(w);
    }
    let outs = c.outputs().iter().map(|w| map[w.index()]).collect();
    b.finish(outs).expect("fusing keeps a valid circuit valid").pruned()
}

/// `c` with gates of equal type and equal fan-ins merged (every smooth gate is a
/// function of its inputs, so the outputs stay the same), then pruned.
#[must_use]
pub fn shared(c: &SmoothCircuit) -> SmoothCircuit {
    use crate::circuit::{CircuitBuilder, WireId};
    use std::collections::HashMap;
    let mut b = CircuitBuilder::<SmoothOp>::new(c.n_params(), c.n_args());
    let mut map: Vec<WireId> = (0..c.n_inputs()).map(|i| WireId(i as u32)).collect();
    let mut seen: HashMap<(SmoothOp, Vec<WireId>), WireId> = HashMap::new();
    for (_, op, fanins) in c.gates() {
        let ins: Vec<WireId> = fanins.iter().map(|w| map[w.index()]).collect();
        let w = *seen.entry((*op, ins)).or_insert_with_key(|(op, ins)| b.gate(*op, ins));
        map.push(w);
    }
    let outs = c.outputs().iter().map(|w| map[w.index()]).collect();
    b.finish(outs).expect("sharing keeps a valid circuit valid").pruned()
}

#[cfg(test)]
mod tests;
