//! The lens-core laws over polynomial circuits, one test body run for several rings:
//! `Z_2` (as the ring `Z_(2^1)`), `Z_(2^8)`, `Z_(2^64)` and `Z_251` (the Boolean domain runs the same laws in
//! `tests/laws.rs`). Reverse derivatives must compose by the chain rule and be linear in
//! the output change; composition is associative with identities; `⊗` is functorial.

use circuitlearn::{Circuit, CircuitBuilder, Lens, Poly, PolyOp, Ring, Signature, WireId, Z2k, Zp, rdiff};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Recipe {
    gates: Vec<(u8, u32, u32, u64)>,
    outs: Vec<u32>,
}

fn recipe(max_gates: usize, n_out: usize) -> impl Strategy<Value = Recipe> {
    (
        prop::collection::vec((0u8..7, any::<u32>(), any::<u32>(), any::<u64>()), 0..max_gates),
        prop::collection::vec(any::<u32>(), n_out),
    )
        .prop_map(|(gates, outs)| Recipe { gates, outs })
}

fn build<R: Ring>(r: &Recipe, n_params: usize, n_args: usize) -> Circuit<Poly<R>> {
    let mut b = CircuitBuilder::<Poly<R>>::new(n_params, n_args);
    let mut wires = (n_params + n_args) as u32;
    for &(code, a, c, k) in &r.gates {
        let op = match code {
            0 => PolyOp::Add,
            1 => PolyOp::Sub,
            2 => PolyOp::Neg,
            3 | 4 => PolyOp::Mul,
            5 => PolyOp::Const(k),
            _ => PolyOp::Shr((k % 3) as u8),
        };
        let g = Poly::<R>::new(op);
        let fanins: Vec<WireId> = [a, c][..g.arity()].iter().map(|p| WireId(p % wires.max(1))).collect();
        b.gate(g, &fanins);
        wires += 1;
    }
    let outs = r.outs.iter().map(|p| WireId(p % wires)).collect();
    b.finish(outs).unwrap()
}

fn values<R: Ring>(seed: u64, n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| R::reduce(seed.wrapping_add(i).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17)))
        .collect()
}

fn same<R: Ring>(a: &Circuit<Poly<R>>, b: &Circuit<Poly<R>>, seed: u64) -> bool {
    (0..16).all(|t| {
        let x = values::<R>(seed ^ t, a.n_inputs());
        a.eval_one(&x) == b.eval_one(&x)
    })
}

fn then_is_associative<R: Ring>(f: &Recipe, g: &Recipe, h: &Recipe, s: u64) -> bool {
    let (f, g, h) = (build::<R>(f, 0, 3), build::<R>(g, 0, 3), build::<R>(h, 0, 3));
    same(&f.then(&g).unwrap().then(&h).unwrap(), &f.then(&g.then(&h).unwrap()).unwrap(), s)
}

fn chain_rule<R: Ring>(f: &Recipe, g: &Recipe, s: u64) -> bool {
    let (f, g) = (build::<R>(f, 2, 3), build::<R>(g, 1, 3));
    same(&rdiff(&f.then(&g).unwrap()), &Lens::of(f).then(&Lens::of(g)).unwrap().rev, s)
}

fn tensor_is_functorial<R: Ring>(f: &Recipe, g: &Recipe, h: &Recipe, k: &Recipe, s: u64) -> bool {
    let (f, g, h, k) = (build::<R>(f, 0, 2), build::<R>(g, 0, 3), build::<R>(h, 0, 2), build::<R>(k, 0, 2));
    same(&f.tensor(&g).then(&h.tensor(&k)).unwrap(), &f.then(&h).unwrap().tensor(&g.then(&k).unwrap()), s)
}

/// `R[f](x, a dy1 + dy2) = a R[f](x, dy1) + R[f](x, dy2)`.
fn linear_in_dy<R: Ring>(f: &Recipe, s: u64) -> bool {
    let r = rdiff(&build::<R>(f, 1, 3));
    let x = values::<R>(s, 4);
    let (d1, d2, a) = (values::<R>(s ^ 1, 3), values::<R>(s ^ 2, 3), R::reduce(s >> 7));
    let run = |d: &[u64]| {
        let mut v = x.clone();
        v.extend_from_slice(d);
        r.eval_one(&v)
    };
    let mixed: Vec<u64> = d1.iter().zip(&d2).map(|(&p, &q)| R::add(R::mul(a, p), q)).collect();
    let want: Vec<u64> = run(&d1).iter().zip(run(&d2)).map(|(&p, q)| R::add(R::mul(a, p), q)).collect();
    run(&mixed) == want
}

/// Word-lane evaluation (one example per word, tiled) agrees with one-example evaluation.
fn lanes_agree<R: Ring>(f: &Recipe, s: u64, n: usize, tw: usize) -> bool {
    use circuitlearn::{EvalParams, Program, WordMatrix};
    let c = build::<R>(f, 1, 3);
    let examples: Vec<Vec<u64>> = (0..n).map(|e| values::<R>(s ^ e as u64, 4)).collect();
    let out = Program::new(&c).eval_words(
        &WordMatrix::from_examples(4, &examples),
        &EvalParams { tile_words: tw, parallel: tw.is_multiple_of(2) },
    );
    examples.iter().enumerate().all(|(e, x)| out.example(e) == c.eval_one(x))
}

macro_rules! ring_laws {
    ($name:ident, $ring:ty) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]
                #[test]
                fn associativity(f in recipe(10, 3), g in recipe(10, 3), h in recipe(10, 2), s in any::<u64>()) {
                    prop_assert!(then_is_associative::<$ring>(&f, &g, &h, s));
                }
                #[test]
                fn chain(f in recipe(10, 3), g in recipe(10, 2), s in any::<u64>()) {
                    prop_assert!(chain_rule::<$ring>(&f, &g, s));
                }
                #[test]
                fn functorial(f in recipe(6, 2), g in recipe(6, 2), h in recipe(6, 1), k in recipe(6, 3), s in any::<u64>()) {
                    prop_assert!(tensor_is_functorial::<$ring>(&f, &g, &h, &k, s));
                }
                #[test]
                fn linearity(f in recipe(12, 3), s in any::<u64>()) {
                    prop_assert!(linear_in_dy::<$ring>(&f, s));
                }
                #[test]
                fn word_lanes(f in recipe(20, 3), s in any::<u64>(), n in 1usize..300, tw in 0usize..5) {
                    prop_assert!(lanes_agree::<$ring>(&f, s, n, tw));
                }
            }
        }
    };
}

ring_laws!(z2, Z2k<1>);
ring_laws!(z2_8, Z2k<8>);
ring_laws!(z2_64, Z2k<64>);
ring_laws!(z251, Zp<251>);

/// Mul's reverse rule is the formal derivative: `d(x0 x1) = (x1 dy, x0 dy)`.
#[test]
fn mul_rule_is_the_product_rule() {
    type R = Zp<251>;
    let mut b = CircuitBuilder::<Poly<R>>::new(0, 2);
    let a = b.args();
    let y = b.gate(Poly::new(PolyOp::Mul), &a);
    let r = rdiff(&b.finish(vec![y]).unwrap());
    assert_eq!(r.eval_one(&[3, 5, 7]), vec![35, 21]);
}

#[test]
fn polycirc_iris_repro_reaches_the_published_96_percent() {
    let acc = circuitlearn::repro_polycirc_iris().unwrap();
    assert!((acc - 0.96).abs() < 1e-9, "{acc}");
}

/// The saturating semiring `Sat_1000` (add, multiply, constants): the same laws.
mod sat {
    use super::*;
    use circuitlearn::{Sat, SatOp};
    type S = Sat<1000>;

    fn build_sat(r: &Recipe, n_params: usize, n_args: usize) -> Circuit<S> {
        let mut b = CircuitBuilder::<S>::new(n_params, n_args);
        let mut wires = (n_params + n_args) as u32;
        for &(code, a, c, k) in &r.gates {
            let op = match code % 3 {
                0 => SatOp::Add,
                1 => SatOp::Mul,
                _ => SatOp::Const(k % 1200),
            };
            let fanins: Vec<WireId> =
                [a, c][..Sat::<1000>(op).arity()].iter().map(|p| WireId(p % wires.max(1))).collect();
            b.gate(Sat(op), &fanins);
            wires += 1;
        }
        b.finish(r.outs.iter().map(|p| WireId(p % wires)).collect()).unwrap()
    }

    fn vals(seed: u64, n: usize) -> Vec<u64> {
        (0..n as u64)
            .map(|i| (seed.wrapping_add(i).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) % 1001)
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn chain(f in recipe(10, 3), g in recipe(10, 2), s in any::<u64>()) {
            let (f, g) = (build_sat(&f, 2, 3), build_sat(&g, 1, 3));
            let (whole, parts) = (rdiff(&f.then(&g).unwrap()), Lens::of(f).then(&Lens::of(g)).unwrap().rev);
            for t in 0..16 {
                let x = vals(s ^ t, whole.n_inputs());
                prop_assert_eq!(whole.eval_one(&x), parts.eval_one(&x));
            }
        }

        #[test]
        fn linearity(f in recipe(12, 3), s in any::<u64>()) {
            let r = rdiff(&build_sat(&f, 1, 3));
            let x = vals(s, 4);
            let (d1, d2, a) = (vals(s ^ 1, 3), vals(s ^ 2, 3), (s >> 9) % 1001);
            let run = |d: &[u64]| { let mut v = x.clone(); v.extend_from_slice(d); r.eval_one(&v) };
            let mixed: Vec<u64> = d1.iter().zip(&d2).map(|(&p, &q)| S::add(S::mul(a, p), q)).collect();
            let want: Vec<u64> = run(&d1).iter().zip(run(&d2)).map(|(&p, q)| S::add(S::mul(a, p), q)).collect();
            prop_assert_eq!(run(&mixed), want);
        }
    }
}
