//! PLA reader on plain text.
#![no_main]

use circuitlearn::{decode_text, parse_pla};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(text) = decode_text(bytes, false, "fuzz.pla") {
        let _ = parse_pla(&text, "fuzz.pla");
    }
});
