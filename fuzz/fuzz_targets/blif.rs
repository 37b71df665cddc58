//! BLIF reader; a netlist that parses is also lowered to an AIG (what `opt` and `cec` do).
#![no_main]

use circuitlearn::{Aig, parse_blif};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(net) = parse_blif(&String::from_utf8_lossy(bytes), "fuzz.blif") {
        let _ = Aig::from_circuit(net.circuit(), None);
    }
});
