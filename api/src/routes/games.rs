//! `/v1/games/*`: lobby, commands, views, prompts, the event feed, its live stream, replay.

use crate::adapters::sse_stream;
use crate::application::{CommandAnswer, CommandRequest, CreateGame, DetailAnswer, GameRead};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::extract::GamePath;
use crate::extract::{IdempotencyKey, IfMatch, IfNoneMatch, LastEventId, OptionalJson, int64};
use crate::routes::auth::UserInfo;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use domain::i18n::says;
use domain::{Outcome, Prompt};
use infra::store::StoredEvent;
use infra::store::{GameRow, GameStatus, ListFilter, SeatRow};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// Hosted games: the `kind` of a game in the server's registry. (The document lists the
/// kinds as an enum, from the registry; the server checks a kind against its registry and
/// refuses an unknown one with a 422 naming the known kinds.)
#[derive(Serialize, Deserialize, ToSchema, Clone, PartialEq, Eq, Debug)]
#[serde(transparent)]
pub struct GameKind(pub String);

impl GameKind {
    pub fn tag(&self) -> &str {
        &self.0
    }
}

#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Lobby,
    Active,
    Finished,
    /// The host cancelled the lobby.
    Cancelled,
    /// Nobody started the lobby in time (`HOMESTRETCH_LOBBY_TTL`).
    Expired,
}

impl From<GameStatus> for Status {
    fn from(s: GameStatus) -> Self {
        match s {
            GameStatus::Lobby => Status::Lobby,
            GameStatus::Active => Status::Active,
            GameStatus::Finished => Status::Finished,
            GameStatus::Cancelled => Status::Cancelled,
            GameStatus::Expired => Status::Expired,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGameRequest {
    pub kind: GameKind,
    /// Number of seats (the game starts when all are taken).
    #[schema(example = 3, minimum = 1, maximum = 6)]
    pub seats: u8,
    /// Game options (see each game's `…Options` schema); `{}` for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Value,
    /// Admins only: a fixed RNG seed (the game is then marked not fair).
    pub rng_seed: Option<String>,
    /// Optional client seed mixed into the game's RNG (provably fair dice).
    #[schema(max_length = 128)]
    pub client_seed: Option<String>,
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// Optional client seed mixed into the game's RNG.
    #[schema(max_length = 128)]
    pub client_seed: Option<String>,
}

#[derive(Serialize, Deserialize, ToSchema, Clone)]
pub struct SeatInfo {
    #[schema(example = 1)]
    pub seat: u8,
    pub user: UserInfo,
    /// The server bot playing this seat (`random` | `greedy`): given in the lobby, or since
    /// its player resigned or timed out too often.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
    /// When this seat's clock runs out, while the game waits for it (clocked games only).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub deadline: Option<time::OffsetDateTime>,
}

/// A game's time control (`options.clock` at creation; see "Clocks" in the API guide).
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy)]
pub struct ClockInfo {
    /// Seconds per decision, counted from the entry at which the seat's decision began.
    pub per_decision_s: u64,
    /// Timeouts in a row after which the seat passes to a bot.
    pub abandon_after: u32,
}

/// A game as listed, and the header of a game's full answer.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    pub id: uuid::Uuid,
    pub kind: GameKind,
    pub status: Status,
    pub seat_count: u8,
    pub seats: Vec<SeatInfo>,
    pub host: uuid::Uuid,
    /// The log's head: number of events so far.
    pub version: u64,
    /// False when the game was created with a fixed `rng_seed` (not provably fair).
    pub fair: bool,
    /// SHA-256 of the secret server seed, published at creation.
    pub seed_commitment: String,
    pub rules_version: String,
    #[schema(value_type = Object)]
    pub options: Value,
    pub outcome: Option<Outcome>,
    /// Seats whose player left the game to a bot (resigned, or timed out `abandon_after` times
    /// in a row): the outcome stands, marked with them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub abandoned: Vec<u8>,
    /// The time control, if the game has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockInfo>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: time::OffsetDateTime,
    /// The lobby's invite code, shown to its seated players until the game starts (then
    /// null): `POST /v1/games/join {code}` takes the next free seat. Null in lists.
    #[schema(example = "7KQ2MX9D")]
    pub join_code: Option<String>,
    /// The invite as an app deep link, `homestretch://join/<join_code>`.
    #[schema(example = "homestretch://join/7KQ2MX9D")]
    pub join_url: Option<String>,
    /// On a finished game: the lobby opened as its rematch (`POST /v1/games/{id}/rematch`),
    /// once a player asked for one. Null in lists.
    pub rematch: Option<uuid::Uuid>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct GameList {
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; absent on the last page (also in the `Link` header).
    pub next_cursor: Option<String>,
}

/// A game with the caller's view.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct GameDetail {
    #[serde(flatten)]
    pub summary: GameSummary,
    /// The caller's seat, if seated.
    pub your_seat: Option<u8>,
    /// The game state as the caller may see it (null before the start). Shape: the game's
    /// `…View` schema.
    #[schema(value_type = Option<Object>)]
    pub view: Value,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct PromptsResponse {
    pub version: u64,
    /// Who must or may act now, with which command types (`must`: the game waits for the
    /// seat; otherwise the seat only may act, e.g. an optional trade), and in a clocked game
    /// until when.
    pub prompts: Vec<PromptOut>,
    /// The caller's legal commands now, exactly, as JSON Schema 2020-12 families (one per
    /// command family): every instance of a family is accepted, and nothing else is. Empty when
    /// the caller has nothing to send.
    pub choices: Vec<domain::choices::Family>,
    /// A short sample of concrete commands drawn from `choices`, for simple bots: at most 16
    /// commands and 1,024 bytes of JSON, every command type while the bytes allow, the whole list
    /// when it fits (so the prompts answer stays within 16 KB). Not the contract: `choices` is.
    #[schema(value_type = Vec<Object>)]
    pub legal: Vec<Value>,
}

/// A prompt, with its deadline in a clocked game.
#[derive(Serialize, Deserialize, ToSchema, Clone)]
pub struct PromptOut {
    #[serde(flatten)]
    pub prompt: Prompt,
    /// When the seat's clock runs out (RFC 3339): present on every `must` prompt of a person's
    /// seat in a clocked game. Past it the server sends the seat's default move.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub deadline: Option<time::OffsetDateTime>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandBody {
    /// Client-chosen id; a repeat returns the first answer (also accepted as `Idempotency-Key`).
    pub command_id: Option<uuid::Uuid>,
    /// The version the command was decided against; 409 when stale (or send `If-Match`).
    pub expected_version: Option<u64>,
    /// A command of the game (see `WhiskyRaceCommand`, `BanditsCommand`, `MushCommand`).
    #[schema(value_type = Object)]
    pub command: Value,
}

/// An event as the caller may see it.
#[derive(Serialize, Deserialize, ToSchema, Clone)]
pub struct EventOut {
    pub seq: u64,
    /// The event's `type` tag.
    #[serde(rename = "type")]
    pub kind: String,
    /// Seat that sent the command (null for the host's start).
    pub actor: Option<u8>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: time::OffsetDateTime,
    /// This event's link in the game's SHA-256 hash chain.
    pub hash: String,
    /// The event (see the game's `…Event` schema), redacted for the caller.
    #[schema(value_type = Object)]
    pub data: Value,
}

impl From<StoredEvent> for EventOut {
    fn from(e: StoredEvent) -> Self {
        EventOut {
            seq: e.seq,
            kind: e.kind,
            actor: e.actor,
            recorded_at: e.recorded_at,
            hash: e.hash,
            data: e.payload,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct CommandResponse {
    /// The game's version after the command.
    pub version: u64,
    /// The events the command produced, as the caller may see them.
    pub events: Vec<EventOut>,
    /// Who must act now and the caller's legal commands, as of `next.version` (≥ `version`
    /// when others moved meanwhile): a client can send its next command without asking.
    pub next: PromptsResponse,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct EventsPage {
    pub events: Vec<EventOut>,
    /// Pass as `after` to continue.
    pub next_after: u64,
    pub has_more: bool,
}

/// One Server-Sent Event of a game's stream (as the OpenAPI 3.1 `text/event-stream` schema
/// describes each event): `id` = seq, `event` = the event's type, `data` = its `EventOut` JSON;
/// the first carries only `retry`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct StreamEvent {
    pub id: Option<String>,
    pub event: Option<String>,
    /// An `EventOut`, as JSON text.
    pub data: Option<String>,
    /// Reconnection delay in milliseconds.
    pub retry: Option<u64>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct StateAt {
    pub version: u64,
    #[schema(value_type = Object)]
    pub view: Value,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    pub kind: Option<GameKind>,
    pub status: Option<Status>,
    /// Only games the caller has a seat in.
    #[serde(default)]
    pub mine: bool,
    /// Page size, 1..=100 (default 20).
    pub limit: Option<u32>,
    /// Opaque cursor from the previous page.
    pub cursor: Option<String>,
}

impl ListQuery {
    /// The store's filter (one more row than the page, to know if another follows) and the
    /// page size.
    fn filter(&self, state: &AppState, user: infra::UserId) -> ApiResult<(ListFilter, u32)> {
        let limit = self.limit.unwrap_or(20);
        if !(1..=100).contains(&limit) {
            return Err(ApiError::Invalid(
                says("errors.limit_between")
                    .arg("min", 1u32)
                    .arg("max", 100u32),
            ));
        }
        let before = match &self.cursor {
            None => None,
            Some(cursor) => Some(
                decode_cursor(cursor)
                    .ok_or_else(|| ApiError::Invalid(says("errors.invalid_cursor")))?,
            ),
        };
        let kind = match &self.kind {
            Some(kind) => Some(state.services.games.known_kind(kind.tag())?.to_string()),
            None => None,
        };
        let filter = ListFilter {
            kind,
            status: self.status.map(|s| match s {
                Status::Lobby => GameStatus::Lobby,
                Status::Active => GameStatus::Active,
                Status::Finished => GameStatus::Finished,
                Status::Cancelled => GameStatus::Cancelled,
                Status::Expired => GameStatus::Expired,
            }),
            member: self.mine.then_some(user),
            before,
            limit: limit + 1,
        };
        Ok((filter, limit))
    }

    /// The `Link` to the page after `cursor`, with the same filters.
    fn next_link(&self, limit: u32, cursor: &str) -> String {
        let mut link = format!("/v1/games?limit={limit}&cursor={cursor}");
        if let Some(kind) = &self.kind {
            link += &format!("&kind={}", kind.tag());
        }
        if let Some(status) = self.status {
            link += &format!(
                "&status={}",
                serde_json::to_value(status)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            );
        }
        if self.mine {
            link += "&mine=true";
        }
        format!("<{link}>; rel=\"next\"")
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Return events with `seq > after` (default 0).
    pub after: Option<u64>,
    /// 1..=1000 (default 100).
    pub limit: Option<u32>,
    /// The newest version the client was shown (default 0): the page is never read from a
    /// replica behind it (monotonic reads, issue 29).
    pub min_version: Option<u64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AtQuery {
    /// The version to replay to (0 = before setup).
    pub at: u64,
}

/// The link form of an invite code: an app deep link (`homestretch://join/<code>`). The app
/// registers the `homestretch` scheme, reads the code off the link and sends
/// `POST /v1/games/join {code}`.
pub fn join_url(code: &str) -> String {
    format!("homestretch://join/{code}")
}

/// Fills the caller-specific links of a game's answer: the invite (to a seated player of a
/// lobby only: the code is theirs to share) and the rematch (on a finished game).
pub(crate) async fn with_links(
    state: &AppState,
    user: &AuthUser,
    row: &GameRow,
    seats: &[SeatRow],
    mut summary: GameSummary,
) -> ApiResult<GameSummary> {
    if seats.iter().any(|s| s.user_id == user.id)
        && let Some(invite) = state.services.lobby.invite(row).await?
    {
        summary.join_url = Some(join_url(&invite.code));
        summary.join_code = Some(invite.code);
    }
    summary.rematch = state.services.lobby.rematch_of(row).await?.map(|id| id.0);
    Ok(summary)
}

pub(crate) fn summary(row: &GameRow, seats: &[SeatRow]) -> GameSummary {
    GameSummary {
        id: row.id.0,
        kind: GameKind(row.kind.clone()),
        status: row.status.into(),
        seat_count: row.seat_count,
        seats: seats
            .iter()
            .map(|s| SeatInfo {
                seat: s.seat,
                user: UserInfo {
                    id: s.user_id.0,
                    name: s.user_name.clone(),
                },
                bot: s.bot.clone(),
                deadline: None,
            })
            .collect(),
        host: row.host_id.0,
        version: row.version,
        fair: row.fair,
        seed_commitment: row.seed_commitment.clone(),
        rules_version: row.rules_version.clone(),
        options: row.options.clone(),
        outcome: row
            .outcome
            .clone()
            .and_then(|o| serde_json::from_value(o).ok()),
        abandoned: seats
            .iter()
            .filter(|s| s.bot.is_some() && !infra::deadlines::is_server_actor(s.user_id))
            .map(|s| s.seat)
            .collect(),
        clock: row
            .clock
            .clone()
            .and_then(|c| serde_json::from_value(c).ok()),
        created_at: row.created_at,
        join_code: None,
        join_url: None,
        rematch: None,
    }
}

pub(crate) fn client_seed(seed: Option<String>) -> ApiResult<String> {
    let seed = seed.unwrap_or_default();
    if seed.len() > 128 {
        return Err(ApiError::Invalid(
            says("errors.too_many_bytes")
                .arg("field", "client_seed")
                .arg("max", 128u32),
        ));
    }
    Ok(seed)
}

impl CreateGameRequest {
    fn into_create(self) -> ApiResult<CreateGame> {
        if self.rng_seed.as_ref().is_some_and(|s| s.len() > 256) {
            return Err(ApiError::Invalid(
                says("errors.too_many_bytes")
                    .arg("field", "rng_seed")
                    .arg("max", 256u32),
            ));
        }
        Ok(CreateGame {
            kind: self.kind.0,
            seats: self.seats,
            options: self.options,
            rng_seed: self.rng_seed,
            client_seed: client_seed(self.client_seed)?,
        })
    }
}

/// Create a game (the caller takes seat 1 and is the host). At most
/// `HOMESTRETCH_QUOTA_LOBBIES` (20) lobbies hosted that have not started, per user.
#[utoipa::path(tag = "games", request_body = CreateGameRequest, security(("bearer" = [])),
    responses((status = 201, body = GameSummary), (status = 401, body = Problem), (status = 403, body = Problem),
              (status = 422, body = Problem),
              (status = 429, body = Problem, description = "too many games created lately, or as many lobbies hosted as the quota allows")))]
#[post("/v1/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<CreateGameRequest>,
) -> ApiResult<HttpResponse> {
    let create = body.into_inner().into_create()?;
    state.users.lobby_quota(user.id).await?;
    // Only an admin may fix the seed (checked by the use case).
    let is_admin = create.rng_seed.is_some() && state.users.is_admin(user.id).await?;
    let id = state
        .services
        .lobby
        .create(user.id, create, is_admin)
        .await?;
    let (row, seats) = state.services.games.game_row(id).await?;
    let answer = with_links(&state, &user, &row, &seats, summary(&row, &seats)).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/games/{id}")))
        .json(answer))
}

/// List games, newest first, with cursor pagination (`Link: <…>; rel="next"`).
#[utoipa::path(tag = "games", params(ListQuery), security(("bearer" = [])),
    responses((status = 200, body = GameList), (status = 401, body = Problem)))]
#[get("/v1/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    user: AuthUser,
    query: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    let (filter, limit) = query.filter(&state, user.id)?;
    let page = GameList::page(state.services.lobby.list(&filter).await?, limit);
    let mut response = HttpResponse::Ok();
    if let Some(cursor) = &page.next_cursor {
        response.insert_header((header::LINK, query.next_link(limit, cursor)));
    }
    Ok(response.json(page))
}

impl GameList {
    /// A page of at most `limit` games from `rows` (fetched with one more row than the page:
    /// when it came, another page follows, from the cursor of the page's last game).
    fn page(mut rows: Vec<(GameRow, Vec<SeatRow>)>, limit: u32) -> GameList {
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next_cursor = rows
            .last()
            .filter(|_| more)
            .map(|(r, _)| encode_cursor(r.created_at, r.id.0));
        let games = rows
            .iter()
            .map(|(row, seats)| summary(row, seats))
            .collect();
        GameList { games, next_cursor }
    }
}

fn encode_cursor(at: time::OffsetDateTime, id: uuid::Uuid) -> String {
    format!("{}_{}", at.unix_timestamp_nanos(), id.simple())
}

fn decode_cursor(cursor: &str) -> Option<(time::OffsetDateTime, uuid::Uuid)> {
    let (nanos, id) = cursor.split_once('_')?;
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(nanos.parse().ok()?).ok()?;
    Some((at, uuid::Uuid::parse_str(id).ok()?))
}

/// Join a game in its lobby (takes the lowest free seat).
#[utoipa::path(tag = "games", request_body(content = Option<JoinRequest>, description = "optional"),
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = GameSummary), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[post("/v1/games/{id}/seats")]
pub async fn join_game(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    body: OptionalJson<JoinRequest>,
) -> ApiResult<HttpResponse> {
    let seed = client_seed(body.0.and_then(|b| b.client_seed))?;
    state.services.lobby.join(id, user.id, &seed).await?;
    let (row, seats) = state.services.games.game_row(id).await?;
    let answer = with_links(&state, &user, &row, &seats, summary(&row, &seats)).await?;
    Ok(HttpResponse::Ok().json(answer))
}

/// Leave a game before it starts.
#[utoipa::path(tag = "games", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])), responses((status = 204), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[delete("/v1/games/{id}/seats/me")]
pub async fn leave_game(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
) -> ApiResult<HttpResponse> {
    state.services.lobby.leave(id, user.id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Start the game (host only, every seat taken): runs the game's setup.
#[utoipa::path(tag = "games", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])),
    responses((status = 200, body = CommandResponse), (status = 403, body = Problem), (status = 404, body = Problem),
              (status = 422, body = Problem)))]
#[post("/v1/games/{id}/start")]
pub async fn start_game(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    IdempotencyKey(key): IdempotencyKey,
) -> ApiResult<HttpResponse> {
    // Starting is idempotent per Idempotency-Key; without one, per game.
    let command_id = key.unwrap_or_else(|| uuid::Uuid::new_v5(&id.0, b"start"));
    Ok(command_answer(
        state.services.lobby.start(id, user.id, command_id).await?,
    ))
}

/// A game: summary and the caller's view (`ETag` = version). Spectators get the public view.
#[utoipa::path(tag = "games", params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = GameDetail), (status = 304), (status = 404, body = Problem)))]
#[get("/v1/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    if_none_match: IfNoneMatch,
) -> ApiResult<HttpResponse> {
    // An active game's answer is the same bytes for every reader of a seat (or spectator) at
    // a version: rendered once (issue 31).
    let render = |read: GameRead, your_seat| {
        let GameRead {
            row,
            seats,
            view,
            deadlines,
        } = read;
        let summary = summary(&row, &seats);
        crate::extract::json_bytes(&GameDetail::with(summary, &deadlines, your_seat, view))
    };
    let read = match state
        .services
        .reads
        .detail_bytes(id, user.id, render)
        .await?
    {
        DetailAnswer::Bytes(version, bytes) => {
            return Ok(if_none_match.json_bytes(version, bytes));
        }
        DetailAnswer::Read(read) => *read,
    };
    let detail = GameDetail::of(&state, &user, read).await?;
    Ok(if_none_match.answer(detail.etag(), |mut ok| ok.json(detail)))
}

impl GameDetail {
    /// The answer of `GET /v1/games/{id}`: the summary with the caller's links and the seats'
    /// deadlines, the caller's seat and view.
    async fn of(state: &AppState, user: &AuthUser, read: GameRead) -> ApiResult<GameDetail> {
        let GameRead {
            row,
            seats,
            view,
            deadlines,
        } = read;
        let your_seat = seats.iter().find(|s| s.user_id == user.id).map(|s| s.seat);
        let summary = with_links(state, user, &row, &seats, summary(&row, &seats)).await?;
        Ok(GameDetail::with(summary, &deadlines, your_seat, view))
    }

    /// The answer of the summary with the seats' deadlines, the caller's seat and view.
    fn with(
        mut summary: GameSummary,
        deadlines: &[(u8, time::OffsetDateTime)],
        your_seat: Option<u8>,
        view: Value,
    ) -> GameDetail {
        for seat in &mut summary.seats {
            seat.deadline = deadlines
                .iter()
                .find(|(s, _)| *s == seat.seat)
                .map(|(_, at)| *at);
        }
        GameDetail {
            summary,
            your_seat,
            view,
        }
    }

    /// The version; a rematch opened after the end changes the answer, not the version.
    fn etag(&self) -> String {
        let version = self.summary.version;
        match self.summary.rematch {
            Some(rematch) => format!("\"{version}-rematch-{}\"", rematch.simple()),
            None => format!("\"{version}\""),
        }
    }
}

/// Who must act now, and the caller's legal commands.
#[utoipa::path(tag = "games",
    params(("id" = uuid::Uuid, Path), ("If-None-Match" = Option<String>, Header, description = "the ETag of a previous answer: 304 when unchanged")),
    security(("bearer" = [])),
    responses((status = 200, body = PromptsResponse), (status = 304, description = "unchanged since the given ETag"), (status = 404, body = Problem),
    (status = 422, body = Problem, description = "the game has not started")))]
#[get("/v1/games/{id}/prompts")]
pub async fn prompts(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    // Rendered once per version and audience (issue 31).
    let (version, bytes) = state
        .services
        .reads
        .prompts_bytes(id, user.id, |prompts| {
            crate::extract::json_bytes(&PromptsResponse::from(prompts))
        })
        .await?;
    Ok(IfNoneMatch::of(&req).json_bytes(version, bytes))
}

/// A command is a JSON object (its `type` and fields are the game's to check).
pub(crate) fn command_object(command: &Value) -> ApiResult<()> {
    if !command.is_object() {
        return Err(ApiError::Invalid(says("errors.command_not_object")));
    }
    Ok(())
}

impl CommandBody {
    /// The command with its id and expected version, each from the body or its header
    /// (`Idempotency-Key`, `If-Match`); both given and different is a 422.
    fn into_request(
        self,
        key: Option<uuid::Uuid>,
        if_match: Option<u64>,
    ) -> ApiResult<CommandRequest> {
        command_object(&self.command)?;
        let command_id = match (self.command_id, key) {
            (Some(a), Some(b)) if a != b => {
                return Err(ApiError::Invalid(says("errors.command_id_mismatch")));
            }
            (Some(a), _) | (None, Some(a)) => a,
            (None, None) => uuid::Uuid::now_v7(),
        };
        let expected_version = match (self.expected_version, if_match) {
            (Some(a), Some(b)) if a != b => {
                return Err(ApiError::Invalid(says("errors.expected_version_mismatch")));
            }
            (a, b) => a.or(b),
        };
        Ok(CommandRequest {
            command_id,
            expected_version: expected_version
                .map(|v| int64("expected_version", v))
                .transpose()?,
            command: self.command,
        })
    }
}

/// A command's answer (send or start): the events and `next`, `ETag` = the version.
fn command_answer(answer: CommandAnswer) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::ETAG, format!("\"{}\"", answer.version)))
        .json(CommandResponse {
            version: answer.version,
            events: answer.events.into_iter().map(EventOut::from).collect(),
            next: PromptsResponse::from(answer.next),
        })
}

/// Send a command for the caller's seat.
#[utoipa::path(tag = "games", request_body = CommandBody,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = CommandResponse), (status = 401, body = Problem),
              (status = 403, body = Problem, description = "not seated in this game"),
              (status = 404, body = Problem), (status = 409, body = Problem, description = "stale expected_version / If-Match"),
              (status = 422, body = Problem, description = "rule violation (with `rule`) or invalid command")))]
#[post("/v1/games/{id}/commands")]
pub async fn send_command(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    IdempotencyKey(key): IdempotencyKey,
    IfMatch(if_match): IfMatch,
    body: web::Json<CommandBody>,
) -> ApiResult<HttpResponse> {
    let request = body.into_inner().into_request(key, if_match)?;
    Ok(command_answer(
        state
            .services
            .commands
            .command(id, user.id, request)
            .await?,
    ))
}

/// The event log as the caller may see it (hidden events are left out; `seq` stays global).
#[utoipa::path(tag = "games", params(("id" = uuid::Uuid, Path), EventsQuery),
    security(("bearer" = [])), responses((status = 200, body = EventsPage), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/events")]
pub async fn events(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    query: web::Query<EventsQuery>,
) -> ApiResult<HttpResponse> {
    let limit = query.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::Invalid(
            says("errors.limit_between")
                .arg("min", 1u32)
                .arg("max", 1000u32),
        ));
    }
    let after = int64("after", query.after.unwrap_or(0))?;
    let min_version = int64("min_version", query.min_version.unwrap_or(0))?;
    let (last, events) = state
        .services
        .reads
        .events_page(id, user.id, after, limit, min_version)
        .await?;
    let head = state.services.reads.head(id).await?;
    Ok(HttpResponse::Ok().json(EventsPage {
        events: events.into_iter().map(EventOut::from).collect(),
        next_after: last,
        has_more: last < head,
    }))
}

/// Replay: the caller's view at version `at` (everything once the game is over).
#[utoipa::path(tag = "replay", params(("id" = uuid::Uuid, Path), AtQuery),
    security(("bearer" = [])), responses((status = 200, body = StateAt), (status = 404, body = Problem),
    (status = 422, body = Problem), (status = 429, body = Problem, description = "the caller already has as many heavy requests (audits, exports, replays) in flight as it may")))]
#[get("/v1/games/{id}/state")]
pub async fn state_at(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    query: web::Query<AtQuery>,
) -> ApiResult<HttpResponse> {
    let (version, view) = state
        .services
        .replays
        .view_at(id, user.id, int64("at", query.at)?)
        .await?;
    Ok(HttpResponse::Ok().json(StateAt { version, view }))
}

/// Live events (Server-Sent Events): `id` = seq, `event` = type, `data` = the `EventOut` JSON.
/// Resume with `Last-Event-ID`. Ends after the game's last event, or when the access expires.
#[utoipa::path(tag = "games",
    params(("id" = uuid::Uuid, Path), ("Last-Event-ID" = Option<u64>, Header, description = "resume after this seq"),
           ("ticket" = Option<String>, Query, description = "a stream ticket (`POST /v1/stream-tickets`) instead of the bearer token, for `EventSource`")),
    security(("bearer" = []), ()),
    responses((status = 200, content_type = "text/event-stream", body = StreamEvent), (status = 404, body = Problem),
              (status = 429, body = Problem)))]
#[get("/v1/games/{id}/events/stream")]
pub async fn stream(
    state: web::Data<AppState>,
    access: crate::routes::tickets::StreamAccess,
    GamePath(id): GamePath,
    LastEventId(after): LastEventId,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let after = after.unwrap_or(0);
    // Fail early (404, not started) before committing to a stream.
    state.services.games.with_game(id, |_| ()).await?;
    let user = access.user.id;
    let slot = (state.hub).open(user, crate::limits::client_ip(&req), &state.limits.config)?;
    // Subscribed before the game's fan-out reads its head, so no append in between is missed;
    // the fan-out (adapters/game_feed.rs) reads each append once for all the game's streams.
    let heads = state.hub.subscribe(id);
    let body = (state.hub.game_feeds)
        .stream(
            heads,
            state.services.reads.clone(),
            id,
            user,
            after,
            slot,
            event_message,
        )
        .await?;
    Ok(sse_stream::sse_response(body, access.until))
}

/// One event as a stream message: `id` = seq, `event` = type, `data` = the `EventOut` JSON.
fn event_message(event: StoredEvent) -> actix_web::web::Bytes {
    let out = EventOut::from(event);
    let data = serde_json::to_string(&out).unwrap_or_default();
    sse_stream::frame(out.seq, &out.kind, &data)
}
