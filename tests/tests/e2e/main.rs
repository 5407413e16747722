//! End-to-end tests: real HTTP against a real server and a real PostgreSQL (one database each).

// The servers under test run in this process: the server's allocator (api/src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod accounts;
mod architecture;
mod audit;
mod audit_server;
mod bandits_rules;
mod bandits_upcast;
mod board;
mod choices;
mod clocks;
mod cluster;
mod contract;
mod decisions26;
mod errors;
mod fuzz;
mod generated_client;
mod ghosts;
mod group_commit;
mod i18n;
mod inbox;
mod invites;
mod leaks26;
mod limits;
mod lobby;
mod logs;
mod mush_rules;
mod notify;
mod openapi;
mod play;
mod prompts_size;
mod races;
mod readme;
mod registry;
mod reliability;
mod replica;
mod routes28;
mod rules27;
mod schema;
mod services28;
mod sse31;
mod store;
mod trust;
mod trust26;
mod ts_client;
mod views31;
mod web_clients;
mod whisky_race_rules;
