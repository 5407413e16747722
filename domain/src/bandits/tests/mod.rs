//! Tests of the bandits engine, by spec section.

mod cards;
mod examples;
mod fixture;
mod general;
mod hidden;
mod moves;
mod props;
mod sim;
mod svg;
