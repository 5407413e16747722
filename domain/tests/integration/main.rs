//! The domain's integration tests (the public API only), one binary: one link instead of six
//! (the test loop, issue 28). Run one file with `cargo test -p domain --test integration pictures::`.

mod choices_once;
mod fair_bots;
mod no_leaks;
mod pictures;
mod snapshots;
mod timeouts;
