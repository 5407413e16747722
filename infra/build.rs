//! `sqlx::migrate!` (src/db.rs) embeds the migrations at compile time; without this, adding
//! or editing one would not rebuild the crate and a binary would run the old set.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
