//! End-to-end tests: real HTTP against a real server and a real PostgreSQL (one database each).

mod accounts;
mod audit;
mod bandits_rules;
mod bandits_upcast;
mod choices;
mod clocks;
mod contract;
mod errors;
mod fuzz;
mod generated_client;
mod limits;
mod lobby;
mod logs;
mod mush_rules;
mod openapi;
mod play;
mod readme;
mod registry;
mod reliability;
mod store;
mod trust;
mod ts_client;
mod web_clients;
mod whisky_race_rules;
