//! IDX reader (MNIST-style arrays), plain and gzip: the first byte picks which.
#![no_main]

use circuitlearn::parse_idx_bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Some((&mode, rest)) = bytes.split_first() {
        let _ = parse_idx_bytes(rest, mode & 1 == 1, "fuzz.idx".as_ref());
    }
});
