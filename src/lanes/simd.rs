//! Runtime choice of the instruction set for the hot loops: the closure is compiled
//! (inlined) four times, for AVX-512F with the vector popcount (`VPOPCNTQ`, which the
//! vote counts use), AVX-512F, AVX2 and the portable baseline, and the best one the CPU
//! supports runs.

/// Runs `f` compiled for the widest vector extension this CPU has. Callers mark the
/// closure `#[inline(always)]`: a closure left out of line is compiled once, for the
/// baseline, and every variant would only call it.
#[inline(always)]
pub(crate) fn best<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
        {
            // SAFETY: the CPU supports both extensions, checked just above.
            return unsafe { avx512_popcount(f) };
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F, checked just above.
            return unsafe { avx512(f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { avx2(f) };
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
