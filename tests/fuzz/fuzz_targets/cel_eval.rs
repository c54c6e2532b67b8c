//! A hostile CEL expression parsed, checked and evaluated under the cost budget with a request of hostile attribute values (see `bodies::cel_eval`).
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bodies::cel_eval(data);
});
