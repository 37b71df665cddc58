//! Law tests of the lens core over the Boolean domain: composition, tensor, the chain
//! rule for `R[-]`, linearity of `R[f](x, -)`, one-gate rules against bit flips, and the
//! bit-parallel evaluator against the one-example reference.

use circuitlearn::{
    BitMatrix, Bool, Circuit, CircuitBuilder, EvalParams, Lens, ReverseProgram, Signature, WireId,
    eval_lanes, rdiff,
};
use proptest::prelude::*;

/// A recipe for a random circuit: gate choices and fan-in picks as raw numbers.
#[derive(Clone, Debug)]
struct Recipe {
    n_in: usize,
    gates: Vec<(u8, Vec<u32>)>,
    outs: Vec<u32>,
}

fn recipe(n_in: usize, max_gates: usize, n_out: usize) -> impl Strategy<Value = Recipe> {
    (
        prop::collection::vec((0u8..9, prop::collection::vec(any::<u32>(), 11)), 0..max_gates),
        prop::collection::vec(any::<u32>(), n_out),
    )
        .prop_map(move |(gates, outs)| Recipe { n_in, gates, outs })
}

fn op_of(code: u8) -> Bool {
    match code {
        0 => Bool::Xor,
        1 => Bool::And,
        2 => Bool::Not,
        3 => Bool::Or,
        4 => Bool::Mux,
        5 => Bool::Lut(1),
        6 => Bool::Lut(2),
        7 => Bool::Lut(3),
        _ => Bool::Const(true),
    }
}

fn build(r: &Recipe, n_params: usize) -> Circuit<Bool> {
    let mut b = CircuitBuilder::<Bool>::new(n_params, r.n_in - n_params);
    let mut wires: u32 = r.n_in as u32;
    for (code, picks) in &r.gates {
        let op = op_of(*code);
        let fanins: Vec<WireId> = picks[..op.arity()].iter().map(|p| WireId(p % wires)).collect();
        b.gate(op, &fanins);
        wires += 1;
    }
    let outs = r.outs.iter().map(|p| WireId(p % wires)).collect();
    b.finish(outs).unwrap()
}

fn bits(v: u64, n: usize) -> Vec<bool> {
    (0..n).map(|i| v >> i & 1 == 1).collect()
}

/// Extensional equality on `samples` input vectors drawn from `seed`.
fn same_function(a: &Circuit<Bool>, b: &Circuit<Bool>, seed: u64) -> bool {
    assert_eq!(a.n_inputs(), b.n_inputs());
    let n = a.n_inputs();
    (0..64u64).all(|i| {
        let x = bits(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(i as u32) ^ i, n.min(64));
        let mut x = x;
        x.resize(n, i % 2 == 1);
        a.eval_one(&x) == b.eval_one(&x)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn then_is_associative(f in recipe(4, 12, 3), g in recipe(3, 12, 3), h in recipe(3, 12, 2), s in any::<u64>()) {
        let (f, g, h) = (build(&f, 0), build(&g, 0), build(&h, 0));
        let left = f.then(&g).unwrap().then(&h).unwrap();
        let right = f.then(&g.then(&h).unwrap()).unwrap();
        prop_assert!(same_function(&left, &right, s));
    }

    #[test]
    fn identity_is_a_unit(f in recipe(4, 12, 3), s in any::<u64>()) {
        let f = build(&f, 0);
        prop_assert!(same_function(&Circuit::identity(4).then(&f).unwrap(), &f, s));
        prop_assert!(same_function(&f.then(&Circuit::identity(3)).unwrap(), &f, s));
    }

    #[test]
    fn tensor_is_functorial(f in recipe(2, 8, 2), g in recipe(3, 8, 2), h in recipe(2, 8, 1), k in recipe(2, 8, 3), s in any::<u64>()) {
        let (f, g, h, k) = (build(&f, 0), build(&g, 0), build(&h, 0), build(&k, 0));
        let left = f.tensor(&g).then(&h.tensor(&k)).unwrap();
        let right = f.then(&h).unwrap().tensor(&g.then(&k).unwrap());
        prop_assert!(same_function(&left, &right, s));
    }

    #[test]
    fn chain_rule(f in recipe(4, 12, 3), g in recipe(3, 12, 2), s in any::<u64>()) {
        let (f, g) = (build(&f, 0), build(&g, 0));
        let whole = rdiff(&f.then(&g).unwrap());
        let composed = Lens::of(f).then(&Lens::of(g)).unwrap().rev;
        prop_assert!(same_function(&whole, &composed, s));
    }

    #[test]
    fn chain_rule_with_parameters(f in recipe(5, 12, 3), g in recipe(4, 12, 2), s in any::<u64>()) {
        let (f, g) = (build(&f, 2), build(&g, 1));
        let whole = rdiff(&f.then(&g).unwrap());
        let composed = Lens::of(f).then(&Lens::of(g)).unwrap().rev;
        prop_assert!(same_function(&whole, &composed, s));
    }

    #[test]
    fn reverse_derivative_of_a_tensor_is_the_tensor_of_lenses(f in recipe(3, 10, 2), g in recipe(4, 10, 3), s in any::<u64>()) {
        let (f, g) = (build(&f, 1), build(&g, 2));
        let whole = rdiff(&f.tensor(&g));
        // rdiff keeps the tensor's input order (P_f, P_g, A_f, A_g, dB_f, dB_g), as does the lens tensor.
        let parts = Lens::of(f).tensor(&Lens::of(g)).rev;
        prop_assert!(same_function(&whole, &parts, s));
    }

    #[test]
    fn reparametrisation_precomposes_the_parameters(f in recipe(5, 12, 2), r in recipe(2, 8, 3), s in any::<u64>()) {
        let (f, r) = (build(&f, 3), build(&r, 0));
        let fr = f.reparam(&r).unwrap();
        prop_assert_eq!((fr.n_params(), fr.n_args()), (2, 2));
        for v in 0..16u64 {
            let x = bits(v ^ s, 4);
            let mut direct = r.eval_one(&x[..2]);
            direct.extend_from_slice(&x[2..]);
            prop_assert_eq!(fr.eval_one(&x), f.eval_one(&direct));
        }
    }

    #[test]
    fn reverse_derivative_is_linear_in_dy(f in recipe(5, 16, 3), x in any::<u8>(), d1 in 0u8..8, d2 in 0u8..8) {
        let r = rdiff(&build(&f, 0));
        let run = |d: u8| {
            let mut v = bits(u64::from(x), 5);
            v.extend(bits(u64::from(d), 3));
            r.eval_one(&v)
        };
        let sum: Vec<bool> = run(d1).iter().zip(run(d2)).map(|(a, b)| a ^ b).collect();
        prop_assert_eq!(run(d1 ^ d2), sum);
    }

    #[test]
    fn lanes_agree_with_one_example_evaluation(f in recipe(6, 40, 4), seed in any::<u64>(), n in 1usize..300, tw in 0usize..4) {
        let c = build(&f, 2);
        let examples: Vec<Vec<bool>> = (0..n)
            .map(|e| bits(seed.wrapping_add(e as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) >> 7, 6))
            .collect();
        let m = BitMatrix::from_examples(6, &examples);
        let out = eval_lanes(&c, &m, &EvalParams { tile_words: tw, parallel: tw % 2 == 0 });
        for (e, ex) in examples.iter().enumerate() {
            prop_assert_eq!(out.example(e), c.eval_one(ex));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused reverse kernel computes exactly the generic `R[f]` circuit's outputs.
    #[test]
    fn fused_reverse_agrees_with_the_generic_reverse_circuit(f in recipe(7, 40, 3), seed in any::<u64>(), n in 1usize..200, tw in 0usize..3) {
        let c = build(&f, 2);
        let r = rdiff(&c);
        let examples: Vec<Vec<bool>> = (0..n)
            .map(|e| bits(seed.wrapping_add(e as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) >> 5, 10))
            .collect();
        let all = BitMatrix::from_examples(10, &examples);
        let x = all.select_examples(&(0..n).collect::<Vec<_>>());
        let (inputs, dy) = (row_range(&x, 0, 7), row_range(&x, 7, 10));
        let p = EvalParams { tile_words: tw, parallel: tw != 1 };
        let generic = eval_lanes(&r, &inputs.vstack(&dy), &p);
        let fused = ReverseProgram::new(&c).eval(&inputs, &dy, &p);
        prop_assert_eq!(&fused, &generic);
        // Parameters only: the same parameter rows, zero rows for the arguments.
        let params = ReverseProgram::params_only(&c).eval(&inputs, &dy, &p);
        for r in 0..7 {
            if r < c.n_params() {
                prop_assert_eq!(params.row(r), generic.row(r));
            } else {
                prop_assert_eq!(params.count_ones(r), 0);
            }
        }
    }
}

fn row_range(m: &BitMatrix, r0: usize, r1: usize) -> BitMatrix {
    let mut out = BitMatrix::zeros(r1 - r0, m.examples());
    for r in r0..r1 {
        out.row_mut(r - r0).copy_from_slice(m.row(r));
    }
    out
}

/// Every gate's reverse rule equals its bit-flip derivative: `dx_i = dy & (g(x) ^ g(x ^ e_i))`.
#[test]
fn one_gate_rules_equal_bit_flip_derivatives() {
    let ops = [
        Bool::Const(false),
        Bool::Const(true),
        Bool::Xor,
        Bool::And,
        Bool::Not,
        Bool::Or,
        Bool::Mux,
        Bool::Lut(1),
        Bool::Lut(2),
        Bool::Lut(3),
    ];
    for op in ops {
        let n = op.arity();
        let mut b = CircuitBuilder::<Bool>::new(0, n);
        let args = b.args();
        let y = b.gate(op, &args);
        let g = b.finish(vec![y]).unwrap();
        let r = rdiff(&g);
        for v in 0..1u64 << n {
            let x = bits(v, n);
            let gx = g.eval_one(&x)[0];
            for dy in [false, true] {
                let mut inp = x.clone();
                inp.push(dy);
                let dx = r.eval_one(&inp);
                for i in 0..n {
                    let mut xi = x.clone();
                    xi[i] = !xi[i];
                    let flip = gx ^ g.eval_one(&xi)[0];
                    assert_eq!(dx[i], dy & flip, "{op:?} x={x:?} input {i}");
                }
            }
        }
    }
}

#[test]
fn composition_reports_arity_mismatches() {
    let f: Circuit<Bool> = Circuit::identity(3);
    let g: Circuit<Bool> = Circuit::identity(2);
    let e = f.then(&g).unwrap_err();
    assert_eq!(e.to_string(), "cannot compose 3 outputs into 2 inputs");
    assert!(f.reparam(&g).is_err());
    assert!(Lens::of(f).then(&Lens::of(g)).is_err());
}

/// The formal derivative is not the flip derivative for composites: `x & x` has
/// `R = dy & x ^ dy & x = 0` while flipping `x` changes the output.
#[test]
fn formal_derivative_of_x_and_x_is_zero() {
    let mut b = CircuitBuilder::<Bool>::new(0, 1);
    let x = b.arg(0);
    let y = b.gate(Bool::And, &[x, x]);
    let r = rdiff(&b.finish(vec![y]).unwrap());
    for x in [false, true] {
        assert_eq!(r.eval_one(&[x, true]), vec![false]);
    }
}
