//! The replay and audit page (issue 30): one HTML shell, a script and a style, compiled into
//! the server (no build step, no other host: like the API reference in `api/src/docs/`). The
//! script draws nothing itself: it shows the server's pictures (`board.svg`) and record
//! (`replay`), in the words of the catalogue (`domain/i18n`, `moves.page.*`) for the page's
//! language.

use domain::i18n::{Lang, catalogue};

/// The page's script.
pub const SCRIPT: &str = include_str!("replay.js");
/// The page's style.
pub const STYLE: &str = include_str!("replay.css");
const SHELL: &str = include_str!("replay.html");

/// The page of game `id` in `lang`: the shell with the game's id and the page's words (a JSON
/// data block: not run, and escaped so that it cannot close its element).
pub fn html(id: &str, lang: Lang) -> String {
    let words: serde_json::Map<String, serde_json::Value> = catalogue(lang)
        .moves
        .iter()
        .filter_map(|(key, text)| {
            key.strip_prefix("page.")
                .map(|k| (k.to_string(), serde_json::Value::String(text.clone())))
        })
        .collect();
    let words = serde_json::Value::Object(words)
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    SHELL
        .replace("{lang}", lang.tag())
        .replace("{game}", &domain::draw::escape(id))
        .replace("{title}", &domain::draw::escape(&words_title(lang)))
        .replace("{words}", &words)
}

fn words_title(lang: Lang) -> String {
    catalogue(lang)
        .moves
        .get("page.title")
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_its_game_and_loads_nothing_from_another_host() {
        let page = html("0190a0b0-0000-7000-8000-000000000000", Lang::Fr);
        assert!(page.contains(r#"data-game="0190a0b0-0000-7000-8000-000000000000""#));
        assert!(page.contains(r#"<html lang="fr">"#));
        assert!(page.contains("Rejouer et vérifier"));
        // An arbiter resolves a dispute on the page.
        assert!(page.contains(r#"<form id="resolution" hidden>"#));
        assert!(!page.contains("://"), "{page}");
        assert!(!SCRIPT.contains("://") && !STYLE.contains("://"));
    }
}
