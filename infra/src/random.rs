//! Secrets from the operating system's CSPRNG.

/// Fills `out` from the operating system's CSPRNG (seeds, tokens, passwords).
pub fn fill_random(out: &mut [u8]) {
    getrandom::fill(out).expect("the OS random source is available");
}
