//! K-feasible cuts of an AIG node and the bounded, sorted cut sets ("priority cuts") the
//! mapper keeps per node.
//!
//! A cut is a sorted set of at most [`MAX_LUT_INPUTS`] leaf nodes such that every path
//! from an input to the root passes through a leaf. Cuts of an AND node are the pairwise
//! merges of its fan-ins' cuts (each fan-in's trivial cut included); a merge larger than
//! K is dropped, and so is a cut that contains another (it is dominated). Only the C best
//! cuts under the current pass's order survive (Mishchenko, Cho, Chatterjee, Brayton,
//! *Combinational and sequential mapping with priority cuts*, ICCAD 2007).

/// Most LUT inputs the mapper supports.
pub const MAX_LUT_INPUTS: usize = 8;

/// A cut with the costs of the pass that built it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cut {
    /// Leaf node indices, sorted, the first `len` valid.
    leaves: [u32; MAX_LUT_INPUTS],
    /// Number of leaves.
    len: u8,
    /// One bit per leaf (`1 << leaf % 64`): a quick subset filter.
    sig: u64,
    /// LUT levels from the inputs through this cut.
    pub delay: u32,
    /// Area flow: the LUT plus the leaves' flows shared among their estimated fan-outs.
    pub flow: f32,
    /// Exact local area: LUTs this cut adds to the current mapping (exact-area passes only).
    pub area: u32,
}

impl Cut {
    /// The cut `{n}`.
    pub fn trivial(n: u32) -> Self {
        let mut leaves = [0; MAX_LUT_INPUTS];
        leaves[0] = n;
        Self { leaves, len: 1, sig: 1 << (n % 64), delay: 0, flow: 0.0, area: 0 }
    }

    /// The leaves, sorted.
    pub fn leaves(&self) -> &[u32] {
        &self.leaves[..self.len as usize]
    }

    /// The union of two cuts, if it has at most `k` leaves.
    pub fn merge(a: &Cut, b: &Cut, k: usize) -> Option<Cut> {
        if (a.sig | b.sig).count_ones() as usize > k {
            return None;
        }
        let (x, y) = (a.leaves(), b.leaves());
        let mut leaves = [0; MAX_LUT_INPUTS];
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < x.len() || j < y.len() {
            let v = if j == y.len() || (i < x.len() && x[i] < y[j]) {
                i += 1;
                x[i - 1]
            } else if i == x.len() || y[j] < x[i] {
                j += 1;
                y[j - 1]
            } else {
                i += 1;
                j += 1;
                x[i - 1]
            };
            if n == k {
                return None;
            }
            leaves[n] = v;
            n += 1;
        }
        Some(Cut { leaves, len: n as u8, sig: a.sig | b.sig, delay: 0, flow: 0.0, area: 0 })
    }

    /// Whether every leaf of `self` is a leaf of `other` (then `other` is dominated).
    pub fn subset_of(&self, other: &Cut) -> bool {
        if self.len > other.len || self.sig & !other.sig != 0 {
            return false;
        }
        let mut j = 0;
        let o = other.leaves();
        for &l in self.leaves() {
            while j < o.len() && o[j] < l {
                j += 1;
            }
            if j == o.len() || o[j] != l {
                return false;
            }
            j += 1;
        }
        true
    }

    /// Same leaves.
    pub fn same_leaves(&self, other: &Cut) -> bool {
        self.leaves() == other.leaves()
    }
}

/// What a pass sorts cuts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Delay, then size (small cuts merge further), then area flow.
    Delay,
    /// Area flow, then delay, then size.
    Flow,
    /// Exact local area, then area flow, then delay, then size.
    Area,
}

/// Floats closer than this are equal (area flows are sums of fractions).
const EPS: f32 = 1e-4;

fn cmp_f32(a: f32, b: f32) -> std::cmp::Ordering {
    if (a - b).abs() < EPS { std::cmp::Ordering::Equal } else { a.total_cmp(&b) }
}

impl Order {
    /// The order of two evaluated cuts (less is better).
    pub fn cmp(self, a: &Cut, b: &Cut) -> std::cmp::Ordering {
        let size = a.len.cmp(&b.len);
        match self {
            Order::Delay => a.delay.cmp(&b.delay).then(size).then(cmp_f32(a.flow, b.flow)),
            Order::Flow => cmp_f32(a.flow, b.flow).then(a.delay.cmp(&b.delay)).then(size),
            Order::Area => {
                a.area.cmp(&b.area).then(cmp_f32(a.flow, b.flow)).then(a.delay.cmp(&b.delay)).then(size)
            }
        }
    }
}

/// Inserts an evaluated cut into a set sorted by `order` that holds at most `cap` cuts,
/// unless a cut of the set dominates it; drops the cuts it dominates. Returns whether it
/// was kept.
pub(crate) fn insert(set: &mut Vec<Cut>, cut: Cut, order: Order, cap: usize) -> bool {
    if set.iter().any(|c| c.subset_of(&cut)) {
        return false;
    }
    set.retain(|c| !cut.subset_of(c));
    let at = set.partition_point(|c| order.cmp(c, &cut) != std::cmp::Ordering::Greater);
    if at >= cap {
        return false;
    }
    set.insert(at, cut);
    set.truncate(cap);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(ls: &[u32]) -> Cut {
        ls.iter().skip(1).fold(Cut::trivial(ls[0]), |c, &l| Cut::merge(&c, &Cut::trivial(l), 8).unwrap())
    }

    #[test]
    fn merge_is_a_sorted_union_bounded_by_k() {
        let (a, b) = (cut(&[3, 7, 9]), cut(&[1, 7, 12]));
        assert_eq!(Cut::merge(&a, &b, 5).unwrap().leaves(), &[1, 3, 7, 9, 12]);
        assert!(Cut::merge(&a, &b, 4).is_none());
        // 70 and 6 share a signature bit: the filter passes, the count does not.
        assert!(Cut::merge(&cut(&[6, 70]), &cut(&[134]), 2).is_none());
        assert_eq!(Cut::merge(&cut(&[6, 70]), &cut(&[70]), 2).unwrap().leaves(), &[6, 70]);
    }

    #[test]
    fn dominated_cuts_are_dropped() {
        let mut set = Vec::new();
        assert!(insert(&mut set, cut(&[1, 2, 3]), Order::Delay, 4));
        assert!(!insert(&mut set, cut(&[1, 2, 3, 4]), Order::Delay, 4));
        assert!(insert(&mut set, cut(&[1, 3]), Order::Delay, 4));
        assert_eq!(set.len(), 1);
        assert_eq!(set[0].leaves(), &[1, 3]);
        assert!(cut(&[2, 9]).subset_of(&cut(&[1, 2, 9])));
        assert!(!cut(&[2, 9]).subset_of(&cut(&[1, 2, 73])));
    }

    #[test]
    fn the_set_keeps_the_best_under_its_order() {
        let mut set = Vec::new();
        for (i, d) in [(10u32, 5u32), (20, 2), (30, 9), (40, 1)] {
            let mut c = cut(&[i, i + 1]);
            c.delay = d;
            insert(&mut set, c, Order::Delay, 3);
        }
        let delays: Vec<u32> = set.iter().map(|c| c.delay).collect();
        assert_eq!(delays, vec![1, 2, 5]);
    }
}
