//! Tests of the Mush engine: rule-by-rule tests (given a position, when a command, then events
//! / a RuleViolation naming the rule / a state), the spec's worked examples (§7), properties
//! ("legal is exact"), the simulation and the generated board picture.

mod choices;
mod erased;
mod errata;
mod examples;
mod fair;
mod fixture;
mod properties;
mod render;
mod rules;
