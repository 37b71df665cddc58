//! Runtime choice of the instruction set for the hot loops: the closure is compiled
//! (inlined) four times, for AVX-512F with the vector popcount (`VPOPCNTQ`, which the
//! vote counts use), AVX-512F, AVX2 and the portable baseline, and the best one the CPU
//! supports runs. `CIRCUITLEARN_SIMD` caps the choice (machines of one kind differ: some
//! have AVX-512, some only AVX2), so one machine can run the code another would, and
//! tests check that every level computes the same bits.

use std::sync::OnceLock;

/// The instruction sets the hot loops are compiled for, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    /// Portable code (SSE2 on x86-64).
    Baseline,
    /// AVX2.
    Avx2,
    /// AVX-512F.
    Avx512,
    /// AVX-512F with the vector popcount.
    Avx512Popcount,
}

/// The environment variable that caps the level.
pub const SIMD_ENV: &str = "CIRCUITLEARN_SIMD";

impl SimdLevel {
    /// Every level, narrowest first.
    pub const ALL: [SimdLevel; 4] =
        [SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512, SimdLevel::Avx512Popcount];

    /// The name `CIRCUITLEARN_SIMD` takes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Baseline => "baseline",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
            SimdLevel::Avx512Popcount => "avx512-popcount",
        }
    }

    /// The widest level this CPU supports.
    #[must_use]
    pub fn detected() -> SimdLevel {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512vpopcntdq") {
                return SimdLevel::Avx512Popcount;
            }
            if has!("avx512f") {
                return SimdLevel::Avx512;
            }
            if has!("avx2") {
                return SimdLevel::Avx2;
            }
        }
        SimdLevel::Baseline
    }

    /// The level `CIRCUITLEARN_SIMD` asks for (`native` or unset: `None`, no cap), or
    /// a one-line error naming the variable and the values it takes.
    ///
    /// # Errors
    /// A value that names no level.
    pub fn requested() -> Result<Option<SimdLevel>, String> {
        let Ok(v) = std::env::var(SIMD_ENV) else { return Ok(None) };
        if v.is_empty() || v == "native" {
            return Ok(None);
        }
        Self::ALL.into_iter().find(|l| l.name() == v).map(Some).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|l| l.name()).collect();
            format!("{SIMD_ENV}={v}: expected native, {}", names.join(", "))
        })
    }

    /// The level the hot loops run at: the CPU's, capped by `CIRCUITLEARN_SIMD` (read
    /// once; a bad value is refused by the command line before any work, and ignored
    /// here).
    #[must_use]
    pub fn active() -> SimdLevel {
        static ACTIVE: OnceLock<SimdLevel> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            let cpu = Self::detected();
            Self::requested().ok().flatten().map_or(cpu, |cap| cap.min(cpu))
        })
    }
}

/// Runs `f` compiled for the active level ([`SimdLevel::active`]). Callers mark the
/// closure `#[inline(always)]`: a closure left out of line is compiled once, for the
/// baseline, and every variant would only call it.
#[inline(always)]
pub(crate) fn best<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        match SimdLevel::active() {
            // SAFETY: `active` is never above what the CPU supports (`detected`).
            SimdLevel::Avx512Popcount => return unsafe { avx512_popcount(f) },
            // SAFETY: as above.
            SimdLevel::Avx512 => return unsafe { avx512(f) },
            // SAFETY: as above.
            SimdLevel::Avx2 => return unsafe { avx2(f) },
            SimdLevel::Baseline => {}
        }
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn avx512_popcount<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_levels_are_ordered() {
        for w in SimdLevel::ALL.windows(2) {
            assert!(w[0] < w[1]);
        }
        let names: Vec<&str> = SimdLevel::ALL.iter().map(|l| l.name()).collect();
        assert_eq!(names, ["baseline", "avx2", "avx512", "avx512-popcount"]);
        assert!(SimdLevel::active() <= SimdLevel::detected());
    }
}
