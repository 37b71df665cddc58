//! Named scripts, as ABC's: a name in a pass list stands for its passes.
//!
//! ABC's `resyn2` is `b; rw; rf; b; rw; rwz; b; rfz; rwz; b` and `compress2` is
//! `b -l; rw -l; rf -l; b -l; rw -l; rwz -l; b -l; rfz -l; rwz -l; b -l` (the `-l`
//! variants preserve levels; ours do not, so the two differ only in their start).

/// The named scripts and their passes.
pub const SCRIPTS: &[(&str, &str)] = &[
    ("resyn", "balance; rewrite; rewrite -z; balance; rewrite -z; balance"),
    (
        "resyn2",
        "balance; rewrite; refactor; balance; rewrite; rewrite -z; balance; refactor -z; rewrite -z; balance",
    ),
    (
        "compress2",
        "balance; rewrite; refactor; balance; rewrite; rewrite -z; balance; refactor -z; rewrite -z; balance",
    ),
];

/// The largest repeat count of a script (`resyn2*16`); a larger one is left unexpanded,
/// so that parsing refuses it as an unknown pass instead of allocating without bound.
pub const MAX_SCRIPT_REPEAT: usize = 16;

/// The pass names of `script` (comma or semicolon separated), named scripts expanded,
/// with an optional repeat count for scripts (`resyn2*3`, at most `MAX_SCRIPT_REPEAT`).
#[must_use]
pub fn expand_script(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in script.split([',', ';']).map(str::trim).filter(|s| !s.is_empty()) {
        let (name, times) = match item.split_once('*') {
            Some((n, k)) if k.trim().parse::<usize>().is_ok_and(|t| (1..=MAX_SCRIPT_REPEAT).contains(&t)) => {
                (n.trim(), k.trim().parse().unwrap_or(1))
            }
            _ => (item, 1),
        };
        match SCRIPTS.iter().find(|(n, _)| *n == name) {
            Some((_, body)) => {
                for _ in 0..times {
                    out.extend(expand_script(body));
                }
            }
            None => out.push(item.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_expand_to_their_passes() {
        let r = expand_script("strash, resyn2");
        assert_eq!(r.len(), 11);
        assert_eq!(r[0], "strash");
        assert_eq!(r[4], "balance");
        assert_eq!(r[10], "balance");
        assert_eq!(expand_script("resyn*2").len(), 12);
        assert_eq!(expand_script("rewrite -z;balance"), ["rewrite -z", "balance"]);
        // A repeat count past the cap (found by fuzzing: `resyn2*99999999` took gigabytes)
        // or of zero stays one item, which parsing refuses.
        assert_eq!(expand_script("resyn2*99999999"), ["resyn2*99999999"]);
        assert_eq!(expand_script("resyn2*0"), ["resyn2*0"]);
        assert_eq!(expand_script("resyn2*16").len(), 160);
    }
}
