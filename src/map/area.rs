//! Area recovery: reference counting over the current mapping, the exact local area of a
//! cut (the LUTs that choosing it adds, found by referencing it and undoing that), and
//! the blend of estimated fan-outs that area flow divides by between passes.
//!
//! As in ABC's `if` mapper: area flow (a global estimate) first, then exact local area,
//! which dereferences a node's current cut before comparing candidates, so that each
//! candidate is charged exactly for the logic only it would keep alive.

use super::cuts::Cut;
use super::mapper::Mapper;

impl Mapper<'_> {
    /// References the leaves of `c` (and, recursively, the cuts of leaves that were
    /// unreferenced); returns the LUTs that became live, `c`'s own included.
    pub(super) fn ref_cut(&mut self, c: &Cut) -> u32 {
        let mut area = 1;
        for &l in c.leaves() {
            let l = l as usize;
            if !self.is_and(l) {
                continue;
            }
            self.refs[l] += 1;
            if self.refs[l] == 1 {
                let lc = self.best[l].expect("an AND leaf has a cut");
                area += self.ref_cut(&lc);
            }
        }
        area
    }

    /// Undoes [`ref_cut`](Self::ref_cut); returns the LUTs that died, `c`'s own included.
    pub(super) fn deref_cut(&mut self, c: &Cut) -> u32 {
        let mut area = 1;
        for &l in c.leaves() {
            let l = l as usize;
            if !self.is_and(l) {
                continue;
            }
            self.refs[l] -= 1;
            if self.refs[l] == 0 {
                let lc = self.best[l].expect("an AND leaf has a cut");
                area += self.deref_cut(&lc);
            }
        }
        area
    }

    /// LUTs that choosing `c` adds to the current mapping (references left unchanged).
    pub(super) fn exact_area(&mut self, c: &Cut) -> u32 {
        let a = self.ref_cut(c);
        let b = self.deref_cut(c);
        debug_assert_eq!(a, b, "ref and deref of a cut agree");
        a
    }

    /// Blends the mapping's references into the estimated fan-outs: `(2 est + refs) / 3`.
    pub(super) fn update_est_refs(&mut self) {
        for (e, &r) in self.est_refs.iter_mut().zip(&self.refs) {
            *e = (2.0 * *e + r as f32) / 3.0;
        }
    }
}
