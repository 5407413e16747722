//! Seeing a game (issue 30): the picture of a position (`board.svg`), the replay page's record
//! in words (`replay`), the pictures of a disputed move, the page's sign-in, and the page
//! itself (`GET /games/{id}`, its script and style compiled in: `api/src/page/`).

use crate::application::board::{Caller, MoveRecord, Picture, ReplayRecord};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::extract::{DisputePath, GamePath};
use crate::extract::{IfNoneMatch, OptionalAuth};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use domain::i18n::{Lang, says};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    /// The version to draw (0 = before the setup); the head when absent.
    pub at: Option<u64>,
}

/// What a picture may be cached as: a running game's per reader and revalidated (`ETag`: its
/// version, and the head's version for the head); a finished game's by anyone, for a day (it
/// never changes again, and everyone sees the same).
fn svg_answer(if_none_match: &IfNoneMatch, picture: Picture, head: bool) -> HttpResponse {
    let etag = match (picture.finished, head) {
        (true, _) => format!("\"{}-final\"", picture.at),
        (false, true) => format!("\"{}\"", picture.at),
        (false, false) => format!("\"{}-at\"", picture.at),
    };
    let cache = if picture.finished {
        "public, max-age=86400"
    } else {
        "private, no-cache"
    };
    let mut answer = if_none_match.answer(etag, |mut ok| {
        ok.content_type("image/svg+xml; charset=utf-8")
            // A picture opened on its own runs nothing and loads nothing.
            .insert_header((
                "content-security-policy",
                "default-src 'none'; style-src 'unsafe-inline'",
            ))
            .body(picture.svg)
    });
    let headers = answer.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static(cache),
    );
    headers.insert(
        header::VARY,
        header::HeaderValue::from_static("authorization"),
    );
    answer
}

/// Who calls: a signed-in user, or nobody (a token sent must be valid).
fn caller(auth: OptionalAuth) -> ApiResult<Caller> {
    Ok(match auth.user()? {
        Some(user) => Caller::User(user.id),
        None => Caller::Anonymous,
    })
}

/// A running game's picture or record needs a sign-in.
fn sign_in() -> ApiError {
    ApiError::Unauthorized(says("errors.missing_bearer_token"))
}

/// The board as the caller may see it at version `at` (the head without it): an SVG picture
/// (no pixel size: it fills its box; every piece titled), drawn from the caller's view — a
/// seat sees its own hidden items, never another seat's; a spectator the public picture. A
/// finished game's pictures are public (no token needed) and cacheable by anyone; a running
/// game's are private (`ETag`, `If-None-Match` → 304).
#[utoipa::path(tag = "replay",
    params(("id" = uuid::Uuid, Path), BoardQuery,
           ("If-None-Match" = Option<String>, Header, description = "the ETag of a previous answer: 304 when unchanged")),
    security(("bearer" = []), ()),
    responses((status = 200, content_type = "image/svg+xml", body = String), (status = 304),
              (status = 401, body = Problem, description = "a running game's picture needs a sign-in"),
              (status = 404, body = Problem), (status = 422, body = Problem, description = "`at` beyond the head, or a lobby")))]
#[get("/v1/games/{id}/board.svg")]
pub async fn board_svg(
    state: web::Data<AppState>,
    auth: OptionalAuth,
    GamePath(id): GamePath,
    query: web::Query<BoardQuery>,
    if_none_match: IfNoneMatch,
) -> ApiResult<HttpResponse> {
    let at = query
        .at
        .map(|at| crate::extract::int64("at", at))
        .transpose()?;
    let picture = state
        .services
        .boards
        .picture(id, caller(auth)?, at)
        .await?
        .ok_or_else(sign_in)?;
    Ok(svg_answer(&if_none_match, picture, at.is_none()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SideQuery {
    /// `before` or `after` the disputed move.
    #[param(inline)]
    pub side: Side,
}

#[derive(Deserialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Before,
    After,
}

/// The board before or after a disputed move, for the dispute's readers (its game's players
/// and admins): an arbiter (an admin who does not play the game) sees everything, a player
/// what its seat may see.
#[utoipa::path(tag = "replay",
    params(("id" = uuid::Uuid, Path), SideQuery), security(("bearer" = [])),
    responses((status = 200, content_type = "image/svg+xml", body = String), (status = 304),
              (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/v1/disputes/{id}/board.svg")]
pub async fn dispute_board_svg(
    state: web::Data<AppState>,
    user: AuthUser,
    DisputePath(id): DisputePath,
    query: web::Query<SideQuery>,
    if_none_match: IfNoneMatch,
) -> ApiResult<HttpResponse> {
    let picture = state
        .disputes
        .dispute_picture(user.id, id, query.side == Side::After)
        .await?;
    Ok(svg_answer(&if_none_match, picture, false))
}

/// One move of the replay: the events of one command, in words.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ReplayMove {
    /// The move's events: `first_seq..=last_seq`. The board after it is `board.svg?at=last_seq`,
    /// before it `at=first_seq - 1`.
    pub first_seq: u64,
    pub last_seq: u64,
    /// The seat that sent it (null for the start and the server's own entries).
    pub seat: Option<u8>,
    /// Who sent it: the seat holder's name, `clock:` or `bot:N`.
    pub sent_by: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: time::OffsetDateTime,
    /// `sound`, `unsound` (the audit's first divergence is in it) or `unchecked` (after it).
    /// Details: `GET /v1/games/{id}/audit/{last_seq}`.
    pub verdict: String,
    /// Each event as the caller may see it, in words (`Accept-Language`: English or French).
    pub words: Vec<String>,
    /// The dice the move rolled, in order.
    pub dice: Vec<u8>,
}

impl From<MoveRecord> for ReplayMove {
    fn from(m: MoveRecord) -> Self {
        ReplayMove {
            first_seq: m.first_seq,
            last_seq: m.last_seq,
            seat: m.seat,
            sent_by: m.sent_by,
            recorded_at: m.recorded_at,
            verdict: m.verdict.into(),
            words: m.words,
            dice: m.dice,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ReplaySeat {
    pub seat: u8,
    pub name: String,
}

/// A game's record for the replay page (`GET /games/{id}`).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Replay {
    pub kind: String,
    pub status: String,
    /// The log's head: versions `0..=version` can be drawn.
    pub version: u64,
    pub fair: bool,
    /// SHA-256 of the server seed, published at creation.
    pub seed_commitment: String,
    /// The server seed, revealed once the game is over (check: its SHA-256 is the commitment).
    pub server_seed: Option<String>,
    pub rules_version: String,
    pub seats: Vec<ReplaySeat>,
    /// The caller's seat, if seated (a seated player may dispute a move).
    pub your_seat: Option<u8>,
    /// The audit of the whole log: hash chain, head, seed, and every command re-run.
    pub sound: bool,
    pub checks: Vec<infra::audit::Check>,
    /// The first event where the record and the rules disagree, if any.
    pub divergence: Option<u64>,
    pub moves: Vec<ReplayMove>,
    /// The language of `words` (`en` or `fr`).
    pub lang: String,
}

impl Replay {
    fn of(record: ReplayRecord, lang: Lang) -> Replay {
        Replay {
            kind: record.kind,
            status: record.status,
            version: record.version,
            fair: record.fair,
            seed_commitment: record.seed_commitment,
            server_seed: record.server_seed,
            rules_version: record.rules_version,
            seats: record
                .seats
                .into_iter()
                .map(|(seat, name)| ReplaySeat { seat, name })
                .collect(),
            your_seat: record.your_seat,
            sound: record.sound,
            checks: record.checks,
            divergence: record.divergence,
            moves: record.moves.into_iter().map(ReplayMove::from).collect(),
            lang: lang.tag().into(),
        }
    }
}

/// The language `Accept-Language` asks for (English by default).
fn lang_of(req: &HttpRequest) -> Lang {
    req.headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(Lang::from_accept_language)
        .unwrap_or_default()
}

/// The game's record for the replay page: every move in words (English or French, by
/// `Accept-Language`), its dice and its audit verdict; the seed commitment and, after the end,
/// the seed. Public once the game is over; before, as the caller may see it.
#[utoipa::path(tag = "replay",
    params(("id" = uuid::Uuid, Path), ("Accept-Language" = Option<String>, Header, description = "`fr` for French words")),
    security(("bearer" = []), ()),
    responses((status = 200, body = Replay), (status = 401, body = Problem, description = "a running game's record needs a sign-in"),
              (status = 404, body = Problem), (status = 422, body = Problem, description = "a lobby")))]
#[get("/v1/games/{id}/replay")]
pub async fn replay(
    state: web::Data<AppState>,
    auth: OptionalAuth,
    GamePath(id): GamePath,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let lang = lang_of(&req);
    let record = state
        .services
        .boards
        .replay_record(id, caller(auth)?, lang)
        .await?
        .ok_or_else(sign_in)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_LANGUAGE, lang.tag()))
        .insert_header((header::VARY, "authorization, accept-language"))
        .json(Replay::of(record, lang)))
}

/// The replay page's own access token.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PageSession {
    pub access_token: String,
    /// Seconds left: never more than the access that bought the ticket had.
    pub expires_in: u64,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TicketQuery {
    /// A stream ticket (`POST /v1/stream-tickets`): single use, 30 s.
    pub ticket: Option<String>,
}

/// Signs the replay page in: an app opens `/games/{id}#ticket=T` with a stream ticket it just
/// bought (`POST /v1/stream-tickets`: single use, 30 seconds, so the URL is worthless
/// afterwards and the token never appears in one); the page trades it here for an access token
/// of the same session that expires when the access that bought the ticket does.
#[utoipa::path(tag = "replay", params(TicketQuery),
    responses((status = 201, body = PageSession), (status = 401, body = Problem)))]
#[post("/v1/page-sessions")]
pub async fn page_session(
    state: web::Data<AppState>,
    access: crate::routes::tickets::StreamAccess,
) -> ApiResult<HttpResponse> {
    let user = access.user;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    // Issued so that it expires with the access behind the ticket, never later.
    let issued_at = now.min(user.expires - crate::auth::ACCESS_TTL_SECONDS);
    let token = state
        .jwt
        .issue(user.id, &user.name, user.family, issued_at)?;
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(PageSession {
            access_token: token,
            expires_in: (issued_at + crate::auth::ACCESS_TTL_SECONDS - now).max(0) as u64,
        }))
}

/// What the page may load: this server's script and style, its own pictures and data; nothing
/// from another host.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The replay and audit page of a game (HTML, served by this server alone): the board at every
/// version, the moves in words with their dice and audit verdicts, the seed, and for a seated
/// player a way to dispute a move (`#dispute=ID` shows a dispute: the move's pictures before
/// and after, side by side). Sign in with `#ticket=T` (see `POST /v1/page-sessions`); a
/// finished game's page needs none.
#[utoipa::path(tag = "replay", params(("id" = uuid::Uuid, Path)),
    responses((status = 200, content_type = "text/html", body = String), (status = 404, body = Problem)))]
#[get("/games/{id}")]
pub async fn page(GamePath(id): GamePath, req: HttpRequest) -> ApiResult<HttpResponse> {
    let lang = lang_of(&req);
    let html = crate::page::html(&id.0.to_string(), lang);
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("content-security-policy", PAGE_POLICY))
        .insert_header((header::CONTENT_LANGUAGE, lang.tag()))
        .insert_header((header::VARY, "accept-language"))
        .body(html))
}

/// The page's script (an asset, left out of the spec).
#[get("/games/assets/replay.js")]
pub async fn page_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(crate::page::SCRIPT)
}

/// The page's style (an asset, left out of the spec).
#[get("/games/assets/replay.css")]
pub async fn page_style() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(crate::page::STYLE)
}
