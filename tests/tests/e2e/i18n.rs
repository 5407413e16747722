//! Issue 18, the language part: problems are told in French with `Accept-Language: fr` (or the
//! account's stored preference) and in English otherwise, from one catalogue; the `type`, the
//! `rule` and the status never change with the language.

use domain::i18n::{self, Lang};
use homestretch_tests::{Answer, Player, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};

/// A refused command of `kind`'s opening, sent by `players`' seat that breaks a rule: for a
/// simultaneous opening (every seat prompted) an impossible amount, else a command of the
/// prompted seat sent by a seat that is not prompted.
async fn refused_command(app: &TestApp, kind: &str, players: &[Player]) -> (String, Player, Value) {
    let id = app.started_game(kind, players, json!({}), None).await;
    let mut legal = Vec::new();
    for player in players {
        let prompts = app
            .get(&format!("/v1/games/{id}/prompts"), &player.token)
            .await
            .ok();
        legal.push(prompts["legal"].as_array().cloned().unwrap_or_default());
    }
    let idle = legal.iter().position(Vec::is_empty);
    let acting = legal
        .iter()
        .position(|l| !l.is_empty())
        .expect("someone acts");
    match idle {
        Some(idle) => (id, players[idle].clone(), legal[acting][0].clone()),
        // Whisky Race opens with every seat planning at once: WR-019, more malt than the supply.
        None => (
            id,
            players[0].clone(),
            json!({"type": "submit_malt_choice", "amount": 99}),
        ),
    }
}

async fn send(
    app: &TestApp,
    id: &str,
    player: &Player,
    command: &Value,
    lang: Option<&str>,
) -> Answer {
    let headers: Vec<(&str, &str)> = lang.map(|l| ("accept-language", l)).into_iter().collect();
    app.request(
        "POST",
        &format!("/v1/games/{id}/commands"),
        Some(&player.token),
        Some(&json!({"command_id": uuid::Uuid::new_v4(), "command": command})),
        &headers,
    )
    .await
}

fn rule_and_detail(answer: &Answer) -> (String, String) {
    let problem = answer.problem(422);
    assert_eq!(problem["type"], "/problems/rule-violation", "{problem}");
    (
        problem["rule"].as_str().expect("a rule").to_string(),
        problem["detail"].as_str().unwrap_or_default().to_string(),
    )
}

/// The `{name}` arguments that make `template` read `text`, if it does.
fn fits(template: &str, text: &str) -> Option<Vec<(String, String)>> {
    // Literal pieces and argument names, alternating: lit0 {a0} lit1 {a1} … litN.
    let mut literals = vec![];
    let mut names = vec![];
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}')?;
        literals.push(&rest[..open]);
        names.push(rest[open + 1..close].split(':').next().unwrap_or_default());
        rest = &rest[close + 1..];
    }
    literals.push(rest);
    fn go<'a>(lits: &[&str], text: &'a str, out: &mut Vec<&'a str>) -> bool {
        let Some(after) = text.strip_prefix(lits[0]) else {
            return false;
        };
        if lits.len() == 1 {
            return after.is_empty();
        }
        // Each argument is non-empty; try every split (messages are short).
        for (end, _) in after.char_indices().skip(1).chain([(after.len(), ' ')]) {
            out.push(&after[..end]);
            if go(&lits[1..], &after[end..], out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut values = vec![];
    go(&literals, text, &mut values).then(|| {
        names
            .iter()
            .zip(values)
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    })
}

/// The engine's specifics of a rule violation's `detail` in `lang` (`"<rule>: <sentence>
/// (<specifics>)"`), if it has any told from the catalogue: the key and its arguments.
fn specifics(detail: &str, rule: &str, lang: Lang) -> Option<(String, Vec<(String, String)>)> {
    let colon = if lang == Lang::Fr { " : " } else { ": " };
    let sentence = i18n::rule(rule, lang).expect("every rule has a sentence");
    let rest = detail
        .strip_prefix(&format!("{rule}{colon}{sentence}"))
        .unwrap_or_else(|| panic!("{detail:?} does not start with the {lang:?} sentence"));
    if rest.is_empty() {
        return None;
    }
    let told = rest
        .strip_prefix(" (")
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{detail:?}: specifics not in parentheses"));
    let found = i18n::catalogue(lang)
        .violations
        .iter()
        .find_map(|(key, template)| fits(template, told).map(|args| (key.clone(), args)));
    // French specifics are always the catalogue's (anything else would be English text).
    assert!(
        found.is_some() || lang == Lang::En,
        "{told:?} is no {lang:?} message of the catalogue"
    );
    found
}

/// French answer: the French title, `"<rule> : <the rule's French sentence>"`, then the
/// engine's specifics told from the French catalogue (no English text).
fn assert_french(answer: &Answer, rule: &str) -> Option<(String, Vec<(String, String)>)> {
    let problem = answer.problem(422);
    assert_eq!(problem["type"], "/problems/rule-violation");
    assert_eq!(
        problem["rule"], rule,
        "the rule ID does not change with the language"
    );
    assert_eq!(
        problem["title"],
        i18n::problem("rule-violation", Lang::Fr).unwrap().title
    );
    specifics(problem["detail"].as_str().unwrap(), rule, Lang::Fr)
}

fn assert_english(answer: &Answer, rule: &str) -> Option<(String, Vec<(String, String)>)> {
    let problem = answer.problem(422);
    assert_eq!(problem["rule"], rule);
    assert_eq!(problem["title"], "Rule violation");
    specifics(problem["detail"].as_str().unwrap(), rule, Lang::En)
}

/// Issue 18: the same refused command tells the engine's specifics in English and in French,
/// the same message (catalogue key) with the same arguments in both.
#[actix_web::test]
async fn the_engine_specifics_are_told_in_french_and_in_english() {
    let app = spawn_app().await;
    let players = [
        app.register("ann").await,
        app.register("bob").await,
        app.register("cid").await,
    ];
    for kind in ["whisky_race", "bandits", "mush"] {
        let (id, player, command) = refused_command(&app, kind, &players).await;
        let english = send(&app, &id, &player, &command, None).await;
        let (rule, _) = rule_and_detail(&english);
        let en = assert_english(&english, &rule)
            .unwrap_or_else(|| panic!("{kind}: no English specifics in {}", english.text));
        let french = send(&app, &id, &player, &command, Some("fr")).await;
        let fr = assert_french(&french, &rule)
            .unwrap_or_else(|| panic!("{kind}: no French specifics in {}", french.text));
        assert_eq!(en, fr, "{kind}: {} / {}", english.text, french.text);
        assert_ne!(
            english.problem(422)["detail"],
            french.problem(422)["detail"]
        );
    }
}

/// Issue 18: a problem type's page (`/problems/{slug}`, the target of `type`) follows
/// `Accept-Language`.
#[actix_web::test]
async fn problem_pages_follow_accept_language() {
    let app = spawn_app().await;
    for (header, lang) in [
        (None, Lang::En),
        (Some("fr-CA, en;q=0.5"), Lang::Fr),
        (Some("en"), Lang::En),
    ] {
        let headers: Vec<(&str, &str)> =
            header.map(|h| ("accept-language", h)).into_iter().collect();
        for (slug, _) in api::routes::problems::PROBLEMS {
            let page = app
                .request("GET", &format!("/problems/{slug}"), None, None, &headers)
                .await;
            assert_eq!(page.status, 200, "{slug}");
            let text = i18n::problem(slug, lang).unwrap();
            assert!(
                page.text.contains(&format!("<h1>{}</h1>", text.title)),
                "{slug} {lang:?}: {}",
                page.text
            );
            assert!(
                page.text
                    .contains(&format!("<html lang=\"{}\">", lang.tag()))
            );
        }
        let index = app.request("GET", "/problems", None, None, &headers).await;
        let title = &i18n::problem("rule-violation", lang).unwrap().title;
        assert!(index.text.contains(title.as_str()), "{}", index.text);
    }
}

#[actix_web::test]
async fn the_same_refused_command_is_answered_in_french_and_in_english_for_each_game() {
    let app = spawn_app().await;
    let players = [
        app.register("ann").await,
        app.register("bob").await,
        app.register("cid").await,
    ];
    for kind in ["whisky_race", "bandits", "mush"] {
        let (id, player, command) = refused_command(&app, kind, &players).await;
        let english = send(&app, &id, &player, &command, None).await;
        let (rule, _) = rule_and_detail(&english);
        assert_english(&english, &rule);
        // q-values are honoured: French is preferred here, and fr-CA is French.
        for header in ["fr", "fr-CA", "en;q=0.3, fr-CA;q=0.9", "de, fr;q=0.5"] {
            let french = send(&app, &id, &player, &command, Some(header)).await;
            assert_french(&french, &rule);
        }
        for header in ["en", "de", "fr;q=0.2, en;q=0.8"] {
            let english = send(&app, &id, &player, &command, Some(header)).await;
            assert_english(&english, &rule);
        }
    }
}

#[actix_web::test]
async fn the_stored_preference_applies_without_the_header_and_the_header_wins() {
    let app = spawn_app().await;
    let players = [
        app.register("ann").await,
        app.register("bob").await,
        app.register("cid").await,
    ];
    let (id, player, command) = refused_command(&app, "whisky_race", &players).await;
    let me = app.get("/v1/me", &player.token).await.ok();
    assert_eq!(me["language"], Value::Null);
    let patch = |body: Value| {
        let token = player.token.clone();
        let app = &app;
        async move {
            app.request("PATCH", "/v1/me", Some(&token), Some(&body), &[])
                .await
        }
    };
    let me = patch(json!({"language": "fr"})).await.ok();
    assert_eq!(me["language"], "fr");
    assert_eq!(
        app.get("/v1/me", &player.token).await.ok()["language"],
        "fr"
    );

    let stored = send(&app, &id, &player, &command, None).await;
    let (rule, _) = rule_and_detail(&stored);
    assert_french(&stored, &rule);
    // The explicit header wins for that one request.
    assert_english(&send(&app, &id, &player, &command, Some("en")).await, &rule);
    // Another player's answers keep their own (no) preference.
    let other = app
        .get(
            "/v1/games/00000000-0000-0000-0000-000000000000",
            &players[1].token,
        )
        .await;
    assert_eq!(other.problem(404)["title"], "Not found");
    // Generic problems follow the preference too, with their type unchanged.
    let missing = app
        .get(
            "/v1/games/00000000-0000-0000-0000-000000000000",
            &player.token,
        )
        .await;
    let problem = missing.problem(404);
    assert_eq!(problem["type"], "/problems/not-found");
    assert_eq!(
        problem["title"],
        i18n::problem("not-found", Lang::Fr).unwrap().title
    );
    // …with its specifics in French too (issue 18).
    assert_told(&missing, 404, "game_not_found", &[], Lang::Fr);

    // Bad settings are refused and change nothing; `{}` changes nothing; null clears.
    patch(json!({"language": "de"})).await.problem(422);
    patch(json!({"language": "fr", "theme": "dark"}))
        .await
        .problem(422);
    assert_eq!(patch(json!({})).await.ok()["language"], "fr");
    assert_eq!(
        patch(json!({"language": null})).await.ok()["language"],
        Value::Null
    );
    assert_english(&send(&app, &id, &player, &command, None).await, &rule);
}

#[actix_web::test]
async fn generic_problems_are_french_with_their_arguments_and_every_problem_type_is_catalogued() {
    // Every problem type the server answers with has both languages, and nothing else does.
    let slugs: std::collections::BTreeSet<&str> = api::routes::problems::PROBLEMS
        .iter()
        .map(|p| p.0)
        .collect();
    for lang in i18n::LANGS {
        let catalogued: std::collections::BTreeSet<&str> = i18n::catalogue(lang)
            .problems
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(catalogued, slugs, "{lang:?}");
    }

    let app = spawn_app().await;
    let players = [
        app.register("ann").await,
        app.register("bob").await,
        app.register("cid").await,
    ];
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    // A stale version: 409 in French, with the current version as its argument.
    let stale = app
        .request(
            "POST",
            &format!("/v1/games/{id}/commands"),
            Some(&players[0].token),
            Some(
                &json!({"command_id": uuid::Uuid::new_v4(), "expected_version": 0,
                         "command": {"type": "submit_malt_choice", "amount": 3}}),
            ),
            &[("accept-language", "fr")],
        )
        .await;
    let problem = stale.problem(409);
    assert_eq!(problem["type"], "/problems/version-conflict");
    let current = problem["current_version"]
        .as_u64()
        .expect("current version");
    assert_eq!(
        problem["detail"],
        i18n::fill(
            &i18n::problem("version-conflict", Lang::Fr).unwrap().detail,
            Lang::Fr,
            &[("current_version", &current.to_string())]
        )
    );
    // An unknown field: serde's English words, under a French sentence that says so.
    let invalid = app
        .request(
            "POST",
            &format!("/v1/games/{id}/commands"),
            Some(&players[0].token),
            Some(&json!({"command_id": uuid::Uuid::new_v4(),
                         "command": {"type": "submit_malt_choice", "amount": 3, "junk": 1}})),
            &[("accept-language", "fr")],
        )
        .await;
    let problem = invalid.problem(422);
    assert_eq!(problem["type"], "/problems/invalid-request");
    assert_eq!(problem["title"], "Requête invalide");
    assert_told(
        &invalid,
        422,
        "invalid_command",
        &[("detail", "unknown field `junk`, expected `amount`")],
        Lang::Fr,
    );
    // The same in English keeps the specifics.
    let english = app
        .request(
            "POST",
            &format!("/v1/games/{id}/commands"),
            Some(&players[0].token),
            Some(&json!({"command_id": uuid::Uuid::new_v4(),
                         "command": {"type": "submit_malt_choice", "amount": 3, "junk": 1}})),
            &[],
        )
        .await;
    assert!(
        english.problem(422)["detail"]
            .as_str()
            .unwrap()
            .contains("unknown field"),
        "{}",
        english.text
    );
    // Without a token (no account to read a preference from) the header still applies.
    let anonymous = app
        .request("GET", "/v1/me", None, None, &[("accept-language", "fr")])
        .await;
    assert_eq!(anonymous.problem(401)["title"], "Non authentifié");
    // A framework error (an unmatched method) is a problem in French too.
    let mut raw = app
        .client
        .delete(app.url("/v1/me"))
        .insert_header(("accept-language", "fr"))
        .send()
        .await
        .unwrap();
    let status = raw.status().as_u16();
    assert!(status == 404 || status == 405, "{status}");
    assert_eq!(
        raw.headers()
            .get("content-language")
            .unwrap()
            .to_str()
            .unwrap(),
        "fr"
    );
    let body: Value = serde_json::from_slice(&raw.body().await.unwrap()).unwrap();
    let slug = body["type"]
        .as_str()
        .unwrap()
        .trim_start_matches("/problems/");
    assert_eq!(body["title"], i18n::problem(slug, Lang::Fr).unwrap().title);
}

/// A web client on an allowed origin may set the preference (`PATCH`) and ask for a language.
#[actix_web::test]
async fn a_browser_may_patch_the_preference_and_send_accept_language() {
    const ORIGIN: &str = "https://play.example.com";
    let app = spawn_app_with(|c| c.cors_origins = vec![ORIGIN.into()]).await;
    let res = app
        .client
        .request(awc::http::Method::OPTIONS, app.url("/v1/me"))
        .insert_header(("origin", ORIGIN))
        .insert_header(("access-control-request-method", "PATCH"))
        .insert_header((
            "access-control-request-headers",
            "authorization, content-type, accept-language",
        ))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let header = |name: &str| {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_lowercase())
            .unwrap_or_default()
    };
    assert!(header("access-control-allow-methods").contains("patch"));
    assert!(header("access-control-allow-headers").contains("accept-language"));
}

/// Notifications are told in the recipient's stored language (issue 18): no request carries
/// an `Accept-Language` for them. Ann prefers French, Bob has no preference.
#[actix_web::test]
async fn notifications_follow_the_recipient_s_stored_language() {
    let app = spawn_app().await;
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    app.request(
        "PATCH",
        "/v1/me",
        Some(&ann.token),
        Some(&json!({"language": "fr"})),
        &[],
    )
    .await
    .ok();
    let id = app.lobby("mush", 2, &ann).await;
    app.post(&format!("/v1/games/{id}/seats"), &bob.token, &json!({}))
        .await
        .ok();
    app.post(&format!("/v1/games/{id}/start"), &ann.token, &json!({}))
        .await
        .ok();
    let first = |player: Player, kind: &'static str| {
        let app = &app;
        async move {
            let feed = app
                .get("/v1/me/notifications?after=0&limit=100", &player.token)
                .await
                .ok();
            feed["notifications"]
                .as_array()
                .expect("notifications")
                .iter()
                .map(|n| n["notification"].clone())
                .find(|n| n["type"] == kind)
                .unwrap_or_else(|| panic!("no {kind} in {feed}"))
        }
    };
    let joined = first(ann.clone(), "player_joined").await;
    assert_eq!(joined["title"], "Un joueur est arrivé");
    assert_eq!(
        joined["body"],
        i18n::notification(
            "player_joined",
            Lang::Fr,
            &[("seat", "2"), ("game", "mush")]
        )
    );
    let started = first(bob.clone(), "game_started").await;
    assert_eq!(started["title"], "The game started");
    assert_eq!(
        started["body"],
        i18n::notification("game_started", Lang::En, &[("game", "mush")])
    );
}

/// Asserts that `answer` is the problem `status` whose `detail` is its type's sentence in
/// `lang`, then, in parentheses, the server's specifics: the catalogue's `errors.<key>` in
/// `lang` with `args`. Returns the specifics as told.
fn assert_told(
    answer: &Answer,
    status: u16,
    key: &str,
    args: &[(&str, &str)],
    lang: Lang,
) -> String {
    let problem = answer.problem(status);
    let slug = problem["type"]
        .as_str()
        .unwrap()
        .trim_start_matches("/problems/");
    let text = i18n::problem(slug, lang).expect("a catalogued problem type");
    assert_eq!(problem["title"], text.title.as_str(), "{}", answer.text);
    let template = i18n::error_text(key, lang).unwrap_or_else(|| panic!("errors.{key}"));
    let specific = i18n::fill(template, lang, args);
    assert_eq!(
        problem["detail"].as_str().unwrap(),
        format!("{} ({specific})", text.detail),
        "{lang:?}: {}",
        answer.text
    );
    specific
}

/// Sends the same request with `Accept-Language: fr` and `en`: the French answer carries the
/// French specifics of `errors.<key>`, the English one the English, and they differ; the type
/// and status do not.
async fn told_in_both(
    app: &TestApp,
    (method, path, token, body): (&str, &str, Option<&str>, Option<&Value>),
    status: u16,
    key: &str,
    args: &[(&str, &str)],
) -> (String, String) {
    let mut told = Vec::new();
    for lang in [Lang::Fr, Lang::En] {
        let answer = app
            .request(
                method,
                path,
                token,
                body,
                &[("accept-language", lang.tag())],
            )
            .await;
        told.push(assert_told(&answer, status, key, args, lang));
    }
    assert_ne!(told[0], told[1], "errors.{key}: French is English");
    (told[0].clone(), told[1].clone())
}

/// Issue 18: the server's own refusals (not the rules engine's) tell their specifics in French
/// too, over real HTTP: a started game, a bad clock option, a second resignation, an unknown
/// game, a bad join code, a webhook over http, an absent, a malformed or an expired token.
#[actix_web::test]
async fn server_errors_tell_their_specifics_in_french_and_in_english() {
    let app = spawn_app().await;
    let players = [app.register("ann").await, app.register("bob").await];
    let late = app.register("cid").await;
    let id = app.started_game("mush", &players, json!({}), None).await;

    // Joining a started game.
    let seats = format!("/v1/games/{id}/seats");
    let (fr, en) = told_in_both(
        &app,
        ("POST", &seats, Some(late.token.as_str()), Some(&json!({}))),
        422,
        "game_already_started",
        &[],
    )
    .await;
    // The catalogue itself says what it should (not an English text in the French table).
    assert_eq!(fr, "la partie a déjà commencé");
    assert_eq!(en, "the game has already started");

    // A bad clock option: its limit is an argument, in both languages.
    let clock = json!({"kind": "mush", "seats": 2,
                       "options": {"clock": {"per_decision_s": 0}}});
    let max = (30 * 24 * 3600).to_string();
    told_in_both(
        &app,
        (
            "POST",
            "/v1/games",
            Some(players[0].token.as_str()),
            Some(&clock),
        ),
        422,
        "clock_per_decision_range",
        &[("max", &max)],
    )
    .await;

    // Resigning twice (another key: not a repeat of the first).
    let resign = format!("/v1/games/{id}/seats/me/resign");
    app.post(&resign, &players[1].token, &json!({})).await.ok();
    for lang in [Lang::Fr, Lang::En] {
        let key = uuid::Uuid::new_v4().to_string();
        let again = app
            .request(
                "POST",
                &resign,
                Some(&players[1].token),
                Some(&json!({})),
                &[("accept-language", lang.tag()), ("idempotency-key", &key)],
            )
            .await;
        assert_told(&again, 422, "seat_already_bot", &[], lang);
    }

    // An unknown game, and a game id that is no UUID.
    let unknown = format!("/v1/games/{}", uuid::Uuid::new_v4());
    let token = Some(players[0].token.as_str());
    told_in_both(
        &app,
        ("GET", &unknown, token, None),
        404,
        "game_not_found",
        &[],
    )
    .await;
    told_in_both(
        &app,
        ("GET", "/v1/games/xyz", token, None),
        404,
        "game_not_found",
        &[],
    )
    .await;

    // A join code no lobby has.
    let code = json!({"code": "ZZZZZZZZ"});
    told_in_both(
        &app,
        (
            "POST",
            "/v1/games/join",
            Some(late.token.as_str()),
            Some(&code),
        ),
        404,
        "invite_code_unknown",
        &[],
    )
    .await;

    // A webhook over plain http: the field and the scheme are arguments.
    let hook = json!({"url": "http://example.com/hook", "secret": "0123456789abcdef0123"});
    let (fr, _) = told_in_both(
        &app,
        (
            "POST",
            "/v1/me/webhooks",
            Some(late.token.as_str()),
            Some(&hook),
        ),
        422,
        "destination_not_https",
        &[("field", "url"), ("scheme", "http")],
    )
    .await;
    assert!(fr.starts_with("url : l'URL doit être en https"), "{fr}");

    // No token, a malformed one, an expired one.
    told_in_both(
        &app,
        ("GET", "/v1/me", None, None),
        401,
        "missing_bearer_token",
        &[],
    )
    .await;
    told_in_both(
        &app,
        ("GET", "/v1/me", Some("not.a.token"), None),
        401,
        "token_malformed",
        &[],
    )
    .await;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let expired = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &json!({"sub": late.id, "name": late.name, "iss": "homestretch",
                "aud": "homestretch-api", "exp": now - 120, "iat": now - 1000,
                "nbf": now - 1000, "fam": uuid::Uuid::new_v4()}),
        &jsonwebtoken::EncodingKey::from_secret(homestretch_tests::JWT_SECRET),
    )
    .unwrap();
    told_in_both(
        &app,
        ("GET", "/v1/me", Some(expired.as_str()), None),
        401,
        "token_expired",
        &[],
    )
    .await;
}

/// Words that are not ours (serde's, on a body that does not parse) stay English under a French
/// sentence that says they are; a 405 names the method and the allowed ones in French.
#[actix_web::test]
async fn foreign_words_are_said_to_be_english_and_framework_refusals_are_french() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    let body = json!({"kind": "mush", "seats": 2, "colour": "red"});
    let french = app
        .request(
            "POST",
            "/v1/games",
            Some(&ann.token),
            Some(&body),
            &[("accept-language", "fr")],
        )
        .await;
    let detail = french.problem(422)["detail"].as_str().unwrap().to_string();
    let sentence = &i18n::problem("invalid-request", Lang::Fr).unwrap().detail;
    let english_words = detail
        .strip_prefix(&format!(
            "{sentence} (corps de requête invalide ; détail (en anglais) : "
        ))
        .unwrap_or_else(|| panic!("{detail}"));
    assert!(
        english_words.starts_with("unknown field `colour`"),
        "{detail}"
    );
    let english = app
        .request("POST", "/v1/games", Some(&ann.token), Some(&body), &[])
        .await;
    assert!(
        english.problem(422)["detail"]
            .as_str()
            .unwrap()
            .contains("(invalid body: unknown field `colour`"),
        "{}",
        english.text
    );

    // A method the route does not have (405, naming the ones it has), and no route at all.
    let answer = app
        .request(
            "PUT",
            "/v1/me",
            Some(&ann.token),
            None,
            &[("accept-language", "fr")],
        )
        .await;
    let detail = answer.problem(405)["detail"].as_str().unwrap();
    assert!(
        detail.contains("(PUT n'est pas accepté ici ; méthodes acceptées : "),
        "{detail}"
    );
    let nowhere = app
        .request(
            "GET",
            "/v1/nowhere",
            None,
            None,
            &[("accept-language", "fr")],
        )
        .await;
    assert_told(&nowhere, 404, "no_such_route", &[], Lang::Fr);
}
