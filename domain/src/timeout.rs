//! The generic timeout policy (issue 17): when a seat's clock runs out, the server sends the
//! cheapest legal command for it. Games override [`crate::Game::default_move`] where
//! "cheapest" needs game knowledge; `docs/rules/*.md` writes each game's policy down.

/// Command tags that give nothing away, in order of preference: declining to act is always
/// the cheapest choice when the rules offer it.
pub const CHEAP_TAGS: &[&str] = &["pass", "decline", "skip", "stop", "done", "end", "finish"];

/// The index of the cheapest command among legal commands of the given `type` tags: the first
/// whose tag is (or starts/ends with) a [`CHEAP_TAGS`] word, in that word order; else the first
/// legal command (games list their legal commands cheapest first: lowest bid, first path).
pub fn cheapest(tags: &[String]) -> Option<usize> {
    if tags.is_empty() {
        return None;
    }
    let cheap = |tag: &str, word: &str| {
        tag == word || tag.starts_with(&format!("{word}_")) || tag.ends_with(&format!("_{word}"))
    };
    CHEAP_TAGS
        .iter()
        .find_map(|word| tags.iter().position(|tag| cheap(tag, word)))
        .or(Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_pass_is_cheapest() {
        assert_eq!(cheapest(&tags(&["move", "buy", "pass"])), Some(2));
        assert_eq!(
            cheapest(&tags(&["move", "decline_trade", "end_turn"])),
            Some(1)
        );
    }

    #[test]
    fn else_the_first_legal_command() {
        assert_eq!(cheapest(&tags(&["bid", "bid"])), Some(0));
        assert_eq!(cheapest(&tags(&["nothing"])), Some(0));
        assert_eq!(cheapest(&[]), None);
    }
}
