//! Tests of the Whisky Race engine: fixtures in [`fixture`], then one file per theme.

mod choices;
mod examples;
mod fixture;
mod hidden;
mod props;
mod rules;
mod sim_tests;
mod variants;
