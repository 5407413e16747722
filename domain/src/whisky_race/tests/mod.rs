//! Tests of the Whisky Race engine: fixtures in [`fixture`], then one file per theme.

mod choices;
mod examples;
mod fixture;
mod hidden;
mod properties;
mod render;
mod rules;
mod sim;
mod variants;
