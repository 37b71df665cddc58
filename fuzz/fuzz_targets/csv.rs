//! CSV reader: decode, parse, and (when it parses) fit and apply the default encoder.
#![no_main]

use circuitlearn::{Encoder, Encoding, decode_text, parse_csv};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = decode_text(bytes, false, "fuzz.csv") else { return };
    let Ok(ds) = parse_csv(&text, "fuzz.csv") else { return };
    if let Ok(enc) = Encoder::fit(&Encoding::Thermometer { bits: 4 }, &ds) {
        let _ = enc.encode(&ds);
    }
});
