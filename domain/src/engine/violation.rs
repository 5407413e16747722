//! A command refused by the rules, naming the rule it breaks.

use crate::i18n::{Lang, Says};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A command refused by the rules, naming the rule it breaks (e.g. `WR-021`). Built by the guard
/// helpers of [`crate::decider`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{rule}: {message}")]
pub struct RuleViolation {
    pub rule: Cow<'static, str>,
    /// The specifics in English (logs, `Display`, the English answer): `says` told in English.
    pub message: String,
    /// The specifics as data (a catalogue key and its arguments), told in the caller's
    /// language by the server (issue 18). `None` for a refusal written as English text only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub says: Option<Says>,
}

impl RuleViolation {
    /// A refusal whose specifics are English text only (no catalogue entry).
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        RuleViolation {
            rule: Cow::Borrowed(rule),
            message: message.into(),
            says: None,
        }
    }

    /// A refusal whose specifics are the catalogue's `violations.<key>` with arguments.
    pub fn said(rule: &'static str, says: Says) -> Self {
        RuleViolation {
            rule: Cow::Borrowed(rule),
            message: says.tell(Lang::En),
            says: Some(says),
        }
    }

    /// The specifics in `lang`.
    pub fn message_in(&self, lang: Lang) -> String {
        match &self.says {
            Some(says) => says.tell(lang),
            None => self.message.clone(),
        }
    }
}
