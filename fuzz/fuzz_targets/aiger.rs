//! AIGER reader, ASCII (`aag`) and binary (`aig`) alike (the header tells them apart);
//! an AIG that parses is also converted to a circuit.
#![no_main]

use circuitlearn::parse_aiger;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok((aig, _names)) = parse_aiger(bytes, "fuzz.aig", "fuzz") {
        let _ = aig.to_circuit();
    }
});
