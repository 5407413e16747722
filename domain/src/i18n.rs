//! The message catalogue (issue 18): every player-facing text — rule-violation messages,
//! problem titles and details, notification texts — written once per language in
//! `domain/i18n/{en,fr}.json`, embedded at build time and parsed once.
//!
//! Keys: `rules.<ID>` (every rule ID of the specs), `violations.<key>` (what the engine says
//! when it refuses a command: the specifics after a rule's sentence, see [`Says`]),
//! `errors.<key>` (the server's specifics of any other problem — a game that has already
//! started, a bad clock option, an unknown user …: a [`Says`] whose key is `errors.<key>`),
//! `problems.<slug>.{title,detail,page}` (every problem type; `page` is its `/problems/{slug}`
//! page), `notifications.<type>.{title,body}` (every notification type). Texts may name
//! arguments as `{name}` (or `{name:ordinal}` for a place: "2nd" / "2e"); the arguments are the
//! engine's or the server's specifics, passed as data, so no language is baked into them.

use crate::engine::seat::Seat;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A language the server answers in. English unless French is asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Fr,
}

/// Every language of the catalogue.
pub const LANGS: [Lang; 2] = [Lang::En, Lang::Fr];

/// Every notification type (the webhook `type`, issue 18).
pub const NOTIFICATION_TYPES: [&str; 6] = [
    "your_turn",
    "player_joined",
    "game_started",
    "game_finished",
    "dispute_resolved",
    "invited",
];

impl Lang {
    /// The BCP 47 tag (`Content-Language`, the stored preference).
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
        }
    }

    /// A language tag (`fr`, `fr-CA`, `EN-gb` …): French for any `fr`, English for any `en`,
    /// `None` for anything else.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("fr") {
            Some(Lang::Fr)
        } else if primary.eq_ignore_ascii_case("en") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The language an `Accept-Language` header (RFC 9110 §12.5.4) asks for: among the ranges
    /// with q > 0, the one of highest q (the first on a tie) that we speak — `fr*` French,
    /// `en*` or `*` English. A header that names only other languages gets English; `None`
    /// when the header names no range at all (blank or unreadable).
    pub fn from_accept_language(header: &str) -> Option<Lang> {
        let mut best: Option<(f32, Lang)> = None;
        let mut any = false;
        for item in header.split(',') {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or_default().trim();
            if range.is_empty() {
                continue;
            }
            let mut q = 1.0f32;
            for param in parts {
                let (name, value) = param.split_once('=').unwrap_or((param, ""));
                if name.trim().eq_ignore_ascii_case("q") {
                    q = value.trim().parse().unwrap_or(0.0);
                }
            }
            any = true;
            if q <= 0.0 {
                continue;
            }
            let lang = if range == "*" {
                Some(Lang::En)
            } else {
                Lang::from_tag(range)
            };
            if let Some(lang) = lang
                && best.is_none_or(|(top, _)| q > top)
            {
                best = Some((q, lang));
            }
        }
        match best {
            Some((_, lang)) => Some(lang),
            None if any => Some(Lang::En),
            None => None,
        }
    }
}

/// One language's catalogue, as written in `domain/i18n/<lang>.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    pub rules: BTreeMap<String, String>,
    /// `violations.<key>`: the engine's specifics of a refusal ([`Says`]).
    pub violations: BTreeMap<String, String>,
    /// `errors.<key>`: the server's specifics of a problem that is not a rule violation.
    pub errors: BTreeMap<String, String>,
    pub problems: BTreeMap<String, Text>,
    pub notifications: BTreeMap<String, Text>,
    /// `moves.<kind>.<event type>`: an event of the log in words, its `{field}`s filled from
    /// the event (issue 30, the replay page); `moves.<entry>` for the server's own entries.
    #[serde(default)]
    pub moves: BTreeMap<String, String>,
}

/// A title and its longer text (a problem's `title`/`detail`, a notification's title/body).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub title: String,
    #[serde(alias = "body")]
    pub detail: String,
    /// The text used instead of `detail` when one of its arguments is not given (a game over
    /// for a player the game does not rank: only its winner has a place).
    #[serde(default)]
    pub otherwise: Option<String>,
    /// Bodies chosen by the `result` argument when one of `detail`'s arguments is not given
    /// (`game_finished` in a game that ranks only its winners: `won`, `not_won`; issue 27).
    #[serde(default)]
    pub cases: BTreeMap<String, String>,
    /// A problem type's page (`/problems/{slug}`): what it means and what a client does about
    /// it. `code` spans are shown as code.
    #[serde(default)]
    pub page: Option<String>,
}

impl Text {
    /// `detail`; when `params` lack one of its arguments, the case named by the `result`
    /// argument, else `otherwise`.
    fn body_for(&self, params: &[(&str, &str)]) -> &str {
        let complete = placeholders(&self.detail)
            .iter()
            .all(|name| params.iter().any(|(key, _)| key == name));
        if complete {
            return &self.detail;
        }
        let case = params
            .iter()
            .find(|(key, _)| *key == "result")
            .and_then(|(_, result)| self.cases.get(*result));
        match (case, &self.otherwise) {
            (Some(case), _) => case,
            (None, Some(otherwise)) => otherwise,
            (None, None) => &self.detail,
        }
    }
}

/// The catalogue of `lang`, parsed once (a malformed file fails every test that touches it).
pub fn catalogue(lang: Lang) -> &'static Catalogue {
    static EN: OnceLock<Catalogue> = OnceLock::new();
    static FR: OnceLock<Catalogue> = OnceLock::new();
    let (cell, text) = match lang {
        Lang::En => (&EN, include_str!("../i18n/en.json")),
        Lang::Fr => (&FR, include_str!("../i18n/fr.json")),
    };
    cell.get_or_init(|| serde_json::from_str(text).expect("domain/i18n catalogue is valid JSON"))
}

/// The player-facing sentence of rule `id` (e.g. `WR-019`), if the catalogue has it.
pub fn rule(id: &str, lang: Lang) -> Option<&'static str> {
    catalogue(lang).rules.get(id).map(String::as_str)
}

/// The `violations.<key>` template, if the catalogue has it.
pub fn violation_text(key: &str, lang: Lang) -> Option<&'static str> {
    catalogue(lang).violations.get(key).map(String::as_str)
}

/// The `errors.<key>` template (the server's specifics of a problem), if the catalogue has it.
pub fn error_text(key: &str, lang: Lang) -> Option<&'static str> {
    catalogue(lang).errors.get(key).map(String::as_str)
}

/// The template a [`Says`] key names: `errors.<key>` in the `errors` table, any other key in
/// `violations`.
pub fn message_text(key: &str, lang: Lang) -> Option<&'static str> {
    match key.strip_prefix(ERRORS) {
        Some(key) => error_text(key, lang),
        None => violation_text(key, lang),
    }
}

/// The key prefix of the server's error specifics (`errors.<key>`).
pub const ERRORS: &str = "errors.";

/// What the engine says when it refuses a command, as data: a `violations.<key>` of the
/// catalogue and its typed arguments, told in any language by [`Says::tell`]. Built with
/// [`says`]: `ensure(cond, "WR-081", || says("do_not_hold_whisky").arg("whisky", whisky))`.
/// The server's other errors say their specifics the same way, with a key `errors.<key>`
/// (issue 18: no error is built from an English sentence; its `Display` is the English text).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Says {
    pub key: Cow<'static, str>,
    /// `(name, value)`: values are language-neutral (numbers, the board's identifiers).
    pub args: Vec<(Cow<'static, str>, String)>,
}

/// The message `violations.<key>` of the catalogue, to give arguments with [`Says::arg`].
pub fn says(key: &'static str) -> Says {
    Says {
        key: Cow::Borrowed(key),
        args: Vec::new(),
    }
}

impl Says {
    /// Fills the template's `{name}` with `value`.
    pub fn arg(mut self, name: &'static str, value: impl MessageArg) -> Self {
        self.args.push((Cow::Borrowed(name), value.arg_text()));
        self
    }

    /// Fills `{name}` with a seat's number: the template says "seat {name}" / "joueur {name}"
    /// (a seat has no language-neutral text, so it is not a [`MessageArg`]).
    pub fn seat(mut self, name: &'static str, seat: Seat) -> Self {
        self.args
            .push((Cow::Borrowed(name), seat.number().to_string()));
        self
    }

    /// The message in `lang`; a key the catalogue lacks (a test's game) gives the key itself.
    pub fn tell(&self, lang: Lang) -> String {
        let params: Vec<(&str, &str)> = self
            .args
            .iter()
            .map(|(k, v)| (k.as_ref(), v.as_str()))
            .collect();
        match message_text(&self.key, lang) {
            Some(template) => fill(template, lang, &params),
            None => self.key.to_string(),
        }
    }
}

/// The English text (logs, `Display` of the errors that carry it).
impl std::fmt::Display for Says {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.tell(Lang::En))
    }
}

/// A value a message may name: numbers and identifiers, whose text is the same in every
/// language. A seat is named with [`Says::seat`].
pub trait MessageArg {
    fn arg_text(&self) -> String;
}

macro_rules! displayed_args {
    ($($t:ty),*) => {$(
        // Numbers and text as written.
        impl MessageArg for $t {
            fn arg_text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
displayed_args!(u8, u16, u32, u64, usize, i8, i16, i32, i64, str, String);

impl<T: MessageArg + ?Sized> MessageArg for &T {
    fn arg_text(&self) -> String {
        (**self).arg_text()
    }
}

/// An entry of a game's log (`payload`, as the reader may see it) in words, in `lang` (issue
/// 30): the catalogue's `moves.<kind>.<type>` (or `moves.<type>` for the server's own entries)
/// with each `{field}` filled from the entry's field of that name (a list joined with commas). An
/// entry hidden from the reader is "a hidden event"; one the catalogue lacks (a test's game) is
/// its type and fields as written.
pub fn describe_entry(kind: &str, payload: &serde_json::Value, lang: Lang) -> String {
    let moves = &catalogue(lang).moves;
    let Some(tag) = payload.get("type").and_then(serde_json::Value::as_str) else {
        return moves.get("hidden").cloned().unwrap_or_default();
    };
    let fields: Vec<(&str, String)> = payload
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, _)| *name != "type")
        .filter_map(|(name, value)| field_text(value).map(|text| (name.as_str(), text)))
        .collect();
    let params: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    match moves
        .get(&format!("{kind}.{tag}"))
        .or_else(|| moves.get(tag))
    {
        Some(template) => fill(template, lang, &params),
        None => {
            let listed: Vec<String> = fields.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!("{} ({})", tag.replace('_', " "), listed.join(", "))
        }
    }
}

/// A field as words: text, a number, a dash for nothing, or a list of them; `None` for anything
/// else.
fn field_text(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        // A field left empty (the Englishman has no arrival number).
        Value::Null => Some("—".into()),
        Value::Array(items) => items
            .iter()
            .map(field_text)
            .collect::<Option<Vec<_>>>()
            .map(|items| items.join(", ")),
        _ => None,
    }
}

/// The title and detail template of the problem type `slug` (`not-found`, `rule-violation` …).
pub fn problem(slug: &str, lang: Lang) -> Option<&'static Text> {
    catalogue(lang).problems.get(slug)
}

/// The title and body template of the notification type `kind` (`your_turn` …).
pub fn notification_text(kind: &str, lang: Lang) -> Option<&'static Text> {
    catalogue(lang).notifications.get(kind)
}

/// The body of a notification of type `kind` in `lang`, with its `{name}` arguments filled
/// from `params` (e.g. `[("game", "…"), ("place", "2")]`; `game_finished` without `place`, for
/// a player a game does not rank, says whether he won by its `result`, `won` or `not_won`, and
/// without either only that the game is over). An unknown kind gives the kind itself.
pub fn notification(kind: &str, lang: Lang, params: &[(&str, &str)]) -> String {
    match notification_text(kind, lang) {
        Some(text) => fill(text.body_for(params), lang, params),
        None => kind.to_string(),
    }
}

/// A notification's JSON told in `lang`: its `title` and `body` from the catalogue, filled
/// from the payload's own fields (`game_kind`, `seat`, `place`, `result`), so the text says
/// nothing the payload does not (issue 18: the recipient's stored preference picks `lang`).
pub fn tell_notification(payload: &mut serde_json::Value, lang: Lang) {
    let Some(fields) = payload.as_object() else {
        return;
    };
    let kind = fields
        .get("type")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let text = |key: &str| match fields.get(key) {
        // A game kind is shown as words; `result` names a case of the text, kept as it is.
        Some(serde_json::Value::String(s)) if key == "result" => Some(s.clone()),
        Some(serde_json::Value::String(s)) => Some(s.replace('_', " ")),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let values: Vec<(&str, String)> = [
        ("game", "game_kind"),
        ("seat", "seat"),
        ("place", "place"),
        ("result", "result"),
    ]
    .into_iter()
    .filter_map(|(name, key)| text(key).map(|v| (name, v)))
    .collect();
    let params: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let title = notification_title(&kind, lang, &params);
    let body = notification(&kind, lang, &params);
    if let Some(fields) = payload.as_object_mut() {
        fields.insert("title".into(), title.into());
        fields.insert("body".into(), body.into());
    }
}

/// The title of a notification of type `kind` in `lang` (arguments filled as in [`notification`]).
pub fn notification_title(kind: &str, lang: Lang, params: &[(&str, &str)]) -> String {
    match notification_text(kind, lang) {
        Some(text) => fill(&text.title, lang, params),
        None => kind.to_string(),
    }
}

/// `template` with each `{name}` replaced by its value in `params` (`{name:ordinal}`: the value
/// as an ordinal of `lang`); a name without a value stays as written.
pub fn fill(template: &str, lang: Lang, params: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let spec = &after[..close];
        let (name, format) = spec.split_once(':').unwrap_or((spec, ""));
        match params.iter().find(|(key, _)| *key == name) {
            Some((_, value)) if format == "ordinal" => out.push_str(&ordinal(value, lang)),
            Some((_, value)) => out.push_str(value),
            None => {
                out.push('{');
                out.push_str(spec);
                out.push('}');
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The names of the `{name}` arguments of `template`, in order.
pub fn placeholders(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}'))
        .map(|(spec, _)| spec.split(':').next().unwrap_or(spec))
        .collect()
}

fn ordinal(value: &str, lang: Lang) -> String {
    let Ok(n) = value.parse::<u32>() else {
        return value.to_string();
    };
    match lang {
        Lang::Fr if n == 1 => "1er".into(),
        Lang::Fr => format!("{n}e"),
        Lang::En => {
            let suffix = match (n % 10, n % 100) {
                (_, 11..=13) => "th",
                (1, _) => "st",
                (2, _) => "nd",
                (3, _) => "rd",
                _ => "th",
            };
            format!("{n}{suffix}")
        }
    }
}

#[cfg(test)]
mod tests;
