//! `test CASES` on hostile bytes: the case file parsed, then every case run against a guide estate (see `bodies::test_file`).
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bodies::test_file(data);
});
