//! `simulate --requests FILE` on hostile bytes: the file parsed, then played against a guide estate (see `bodies::request_file`).
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bodies::request_file(data);
});
