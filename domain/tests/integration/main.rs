//! The domain's integration tests (the public API only), one binary: one link instead of six
//! (the test loop, issue 28). Run one file with `cargo test -p domain --test integration pictures::`.

// The simulations allocate a state, a view and JSON at every step: mimalloc instead of glibc's
// malloc takes a quarter off this binary's time (issue 28: the test loop).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod choices_once;
mod fair_bots;
mod no_leaks;
mod pictures;
mod snapshots;
mod timeouts;
