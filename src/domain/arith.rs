//! Boolean arithmetic building blocks: adders, popcount and comparison, built from the
//! generators so that they have exact reverse derivatives like any other circuit.

use super::boolean::{Bool, BoolBuild};
use crate::circuit::{CircuitBuilder, WireId};

/// Half adder: `(sum, carry)`.
pub fn half_adder(b: &mut CircuitBuilder<Bool>, x: WireId, y: WireId) -> (WireId, WireId) {
    (b.xor(x, y), b.and(x, y))
}

/// Full adder: `(sum, carry)` with carry `= xy | z(x ^ y)` (the two terms exclude each
/// other, so an OR does; in an AIG the adder is seven ANDs).
pub fn full_adder(b: &mut CircuitBuilder<Bool>, x: WireId, y: WireId, z: WireId) -> (WireId, WireId) {
    let t = b.xor(x, y);
    let s = b.xor(t, z);
    let c1 = b.and(x, y);
    let c2 = b.and(t, z);
    (s, b.or(c1, c2))
}

/// The number of ones among `bits`, as a binary number (least significant bit first).
/// An empty input gives an empty number (zero).
pub fn popcount(b: &mut CircuitBuilder<Bool>, bits: &[WireId]) -> Vec<WireId> {
    column_sum(b, vec![bits.to_vec()])
}

/// `sum_i w_i * x_i` for bits `x_i` and constant unsigned weights `w_i`, as a binary
/// number (LSB first): each bit goes into the column of every 1 in its weight, then the
/// columns are summed as in [`popcount`].
pub fn weighted_sum(b: &mut CircuitBuilder<Bool>, terms: &[(WireId, u64)]) -> Vec<WireId> {
    let mut columns: Vec<Vec<WireId>> = Vec::new();
    for &(x, w) in terms {
        for bit in (0..64).filter(|i| w >> i & 1 == 1) {
            if columns.len() <= bit {
                columns.resize(bit + 1, Vec::new());
            }
            columns[bit].push(x);
        }
    }
    column_sum(b, columns)
}

/// Sums columns of bits, column `k` weighing `2^k`, as a binary number (LSB first).
/// Wallace-style: bits of equal weight are combined with full and half adders, carries
/// moving up a column, until one bit per weight remains. Empty columns below the top
/// give constant zeros; no columns give an empty number.
fn column_sum(b: &mut CircuitBuilder<Bool>, mut columns: Vec<Vec<WireId>>) -> Vec<WireId> {
    while columns.last().is_some_and(Vec::is_empty) {
        columns.pop();
    }
    let mut out = Vec::new();
    let mut weight = 0;
    while weight < columns.len() {
        let mut col = std::mem::take(&mut columns[weight]);
        while col.len() > 1 {
            let (s, c) = if col.len() >= 3 {
                let (x, y, z) = (col.remove(0), col.remove(0), col.remove(0));
                full_adder(b, x, y, z)
            } else {
                let (x, y) = (col.remove(0), col.remove(0));
                half_adder(b, x, y)
            };
            col.push(s);
            if columns.len() <= weight + 1 {
                columns.push(Vec::new());
            }
            columns[weight + 1].push(c);
        }
        out.push(match col.first() {
            Some(&bit) => bit,
            None => b.constant(false),
        });
        weight += 1;
    }
    out
}

/// `x <= y` for unsigned binary numbers (LSB first, any widths; missing bits are zero).
pub fn less_equal(b: &mut CircuitBuilder<Bool>, x: &[WireId], y: &[WireId]) -> WireId {
    // Scan from the LSB: le_i = (x_i < y_i) | ((x_i == y_i) & le_{i-1}), le_{-1} = 1.
    let n = x.len().max(y.len());
    let mut le = b.constant(true);
    for i in 0..n {
        match (x.get(i).copied(), y.get(i).copied()) {
            (Some(xi), Some(yi)) => {
                // le' = mux(x_i ^ y_i, le, y_i): equal bits keep le, differing bits decide by y_i.
                let d = b.xor(xi, yi);
                le = b.mux(d, le, yi);
            }
            (Some(xi), None) => {
                // y_i = 0: le' = !x_i & le.
                let nx = b.not(xi);
                le = b.and(nx, le);
            }
            (None, Some(yi)) => le = b.or(yi, le),
            (None, None) => {}
        }
    }
    le
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(bits: &[bool]) -> usize {
        bits.iter().enumerate().map(|(i, &b)| usize::from(b) << i).sum()
    }

    #[test]
    fn popcount_counts_every_input_of_seven_bits() {
        let mut b = CircuitBuilder::<Bool>::new(0, 7);
        let args = b.args();
        let out = popcount(&mut b, &args);
        let c = b.finish(out).unwrap();
        for v in 0..128usize {
            let x: Vec<bool> = (0..7).map(|i| v >> i & 1 == 1).collect();
            assert_eq!(num(&c.eval_one(&x)), v.count_ones() as usize);
        }
    }

    #[test]
    fn popcount_lowers_to_about_seven_ands_per_bit() {
        // A full adder is seven AIG ANDs (its XORs share `xy` with the carry), and a
        // popcount of n bits needs about n of them.
        let mut b = CircuitBuilder::<Bool>::new(0, 256);
        let args = b.args();
        let out = popcount(&mut b, &args);
        let c = b.finish(out).unwrap();
        let ands = crate::aig::Aig::from_circuit(&c, None).n_ands();
        assert!(ands <= 7 * 256, "{ands} ANDs");
    }

    #[test]
    fn weighted_sum_matches_integers() {
        let weights = [5u64, 0, 12, 1, 7];
        let mut b = CircuitBuilder::<Bool>::new(0, weights.len());
        let terms: Vec<(WireId, u64)> = weights.iter().enumerate().map(|(i, &w)| (b.arg(i), w)).collect();
        let out = weighted_sum(&mut b, &terms);
        let c = b.finish(out).unwrap();
        for v in 0..1usize << weights.len() {
            let x: Vec<bool> = (0..weights.len()).map(|i| v >> i & 1 == 1).collect();
            let want: u64 = weights.iter().zip(&x).map(|(w, &xi)| if xi { *w } else { 0 }).sum();
            assert_eq!(num(&c.eval_one(&x)) as u64, want);
        }
    }

    #[test]
    fn less_equal_matches_integers_across_widths() {
        for (wx, wy) in [(3, 3), (3, 2), (2, 4)] {
            let mut b = CircuitBuilder::<Bool>::new(0, wx + wy);
            let args = b.args();
            let out = less_equal(&mut b, &args[..wx], &args[wx..]);
            let c = b.finish(vec![out]).unwrap();
            for v in 0..1usize << (wx + wy) {
                let bits: Vec<bool> = (0..wx + wy).map(|i| v >> i & 1 == 1).collect();
                let (x, y) = (num(&bits[..wx]), num(&bits[wx..]));
                assert_eq!(c.eval_one(&bits)[0], x <= y, "{x} <= {y}");
            }
        }
    }
}
