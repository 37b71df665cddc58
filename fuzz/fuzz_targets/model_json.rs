//! `model.json` reader: parse, then rebuild the network and its parameters.
#![no_main]

use circuitlearn::ModelFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    if let Ok(model) = ModelFile::parse(text, "fuzz.json") {
        let _ = model.network("fuzz.json".as_ref());
    }
});
