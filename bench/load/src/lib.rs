//! `homestretch-load`: bot players, benchmarks and a flood against a running Homestretch
//! server, over HTTP only. The games come from the domain's registry (`tables`); no game is
//! named here, and the bots play whatever the prompts offer.

pub mod bench;
mod client;
pub mod flood;
pub mod play;
pub mod tables;
