//! NPN classification of 4-input functions (truth tables as `u16`, bit `x` is `f(x)`,
//! input `i` is bit `i` of `x`): every function is an input permutation, input
//! negations and an output negation away from one of 222 class representatives.
//!
//! [`Npn4::get`] builds, once per process, a 65,536-entry table from every function to its
//! class and the transform that takes the representative to it.

use std::sync::OnceLock;

/// Number of NPN classes of 4-input functions.
pub const N_CLASSES: usize = 222;

/// The 24 permutations of four inputs, in lexicographic order.
pub const PERMS: [[u8; 4]; 24] = perms();

const fn perms() -> [[u8; 4]; 24] {
    let mut out = [[0u8; 4]; 24];
    let mut k = 0;
    let mut a = 0;
    while a < 4 {
        let mut b = 0;
        while b < 4 {
            let mut c = 0;
            while c < 4 {
                let d = 6 - a - b - c;
                if a != b && b != c && a != c && d < 4 && d != a && d != b && d != c {
                    out[k] = [a as u8, b as u8, c as u8, d as u8];
                    k += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    out
}

/// How a function is obtained from its class representative `r`:
/// `f(x) = out ^ r(y)` with `y_j = x_{perm[j]} ^ (neg >> j & 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Transform {
    /// Index into [`PERMS`].
    pub perm: u8,
    /// Input negations (bit `j` negates representative input `j`).
    pub neg: u8,
    /// Output negation.
    pub out: bool,
}

/// Applies `t` to the representative table `r`.
#[must_use]
pub fn apply(r: u16, t: Transform) -> u16 {
    let p = PERMS[t.perm as usize];
    let mut f = 0u16;
    for x in 0..16usize {
        let y = (0..4).fold(0usize, |y, j| y | ((x >> p[j] & 1) ^ usize::from(t.neg >> j & 1)) << j);
        let v = (r >> y & 1 == 1) ^ t.out;
        f |= u16::from(v) << x;
    }
    f
}

/// The classification table.
#[derive(Debug)]
pub struct Npn4 {
    /// Class of every function.
    class: Vec<u8>,
    /// Transform from the class representative to every function.
    transform: Vec<Transform>,
    /// Representatives, in order of discovery (the smallest table of each class).
    reps: Vec<u16>,
}

impl Npn4 {
    /// The shared table (built on first use, a few milliseconds).
    #[must_use]
    pub fn get() -> &'static Npn4 {
        static T: OnceLock<Npn4> = OnceLock::new();
        T.get_or_init(Npn4::build)
    }

    fn build() -> Npn4 {
        let mut class = vec![u8::MAX; 1 << 16];
        let mut transform = vec![Transform::default(); 1 << 16];
        let mut reps = Vec::with_capacity(N_CLASSES);
        for r in 0..=u16::MAX {
            if class[r as usize] != u8::MAX {
                continue;
            }
            let id = reps.len() as u8;
            reps.push(r);
            for perm in 0..24u8 {
                for neg in 0..16u8 {
                    for out in [false, true] {
                        let t = Transform { perm, neg, out };
                        let f = apply(r, t) as usize;
                        if class[f] == u8::MAX {
                            class[f] = id;
                            transform[f] = t;
                        }
                    }
                }
            }
        }
        debug_assert_eq!(reps.len(), N_CLASSES);
        Npn4 { class, transform, reps }
    }

    /// The class of `f` and the transform from its representative.
    #[must_use]
    pub fn classify(&self, f: u16) -> (usize, Transform) {
        (self.class[f as usize] as usize, self.transform[f as usize])
    }

    /// The class representatives.
    #[must_use]
    pub fn reps(&self) -> &[u16] {
        &self.reps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_222_classes_and_transforms_reproduce_every_function() {
        let t = Npn4::get();
        assert_eq!(t.reps().len(), N_CLASSES);
        for f in 0..=u16::MAX {
            let (c, tr) = t.classify(f);
            assert_eq!(apply(t.reps()[c], tr), f);
        }
        assert_eq!(PERMS.iter().collect::<std::collections::HashSet<_>>().len(), 24);
    }
}
