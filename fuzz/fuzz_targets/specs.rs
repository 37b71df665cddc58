//! The two small command-line languages: model specs (`lut:6:64x1,groupsum:3`) and pass
//! scripts (`strash,fraig`). A spec that parses must print back to a spec that parses to
//! the same value.
#![no_main]

use circuitlearn::{ModelSpec, PassContext, parse_script};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    if let Ok(spec) = text.parse::<ModelSpec>() {
        assert_eq!(spec.to_string().parse::<ModelSpec>(), Ok(spec));
    }
    let _ = parse_script(text, &PassContext::default());
});
