//! PLA reader through gunzip (`.pla.gz`).
#![no_main]

use circuitlearn::{decode_text, parse_pla};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(text) = decode_text(bytes, true, "fuzz.pla.gz") {
        let _ = parse_pla(&text, "fuzz.pla.gz");
    }
});
