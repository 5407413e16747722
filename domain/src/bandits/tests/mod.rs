//! Tests of the bandits engine, by spec section.

mod cards;
mod choices;
mod errata;
mod examples;
mod fixture;
mod general;
mod hidden;
mod hunter;
mod legacy;
mod moves;
mod properties;
mod render;
mod segments;
mod sim;
mod stacking;
