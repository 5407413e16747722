use super::clocks;
use super::commands::CommandAnswer;
use super::commands::Commands;
use super::error::AppError;
use super::error::Result;
use super::games::Games;
use super::loaded::Loaded;
use super::notify;
use domain::engine::ChaChaRng;
use domain::engine::seed_commitment;
use domain::i18n::says;
use infra::ids::GameId;
use infra::ids::UserId;
use infra::random::fill_random;
use infra::store::GameRow;
use infra::store::GameStatus;
use infra::store::ListFilter;
use infra::store::NewGame;
use infra::store::SeatRow;
use infra::store::Store;
use serde_json::Value;
use serde_json::json;
use sha2::Digest;
use sha2::Sha256;
use std::sync::Arc;
use uuid::Uuid;

pub struct CreateGame {
    pub kind: String,
    pub seats: u8,
    pub options: Value,
    pub rng_seed: Option<String>,
    pub client_seed: String,
}

/// The lobby: create, list, join (by id or invite code), leave, start, rematch; the rename of
/// a user's seats. The start is the log's first command, appended through [`Commands`].
pub struct Lobby {
    games: Arc<Games>,
    store: Store,
    commands: Arc<Commands>,
}

impl Lobby {
    pub fn new(games: Arc<Games>, commands: Arc<Commands>) -> Self {
        Lobby {
            store: games.store.clone(),
            games,
            commands,
        }
    }
}

impl Lobby {
    pub async fn create(
        &self,
        host: UserId,
        request: CreateGame,
        is_admin: bool,
    ) -> Result<GameId> {
        let game = self.games.game_of(&request.kind)?;
        if !game.seat_range().contains(&request.seats) {
            let range = game.seat_range();
            return Err(AppError::Invalid(
                says("errors.seat_count_range")
                    .arg("kind", &request.kind)
                    .arg("min", *range.start())
                    .arg("max", *range.end()),
            ));
        }
        // `options.clock` is the server's, valid for every kind (issue 17); the rest the game's.
        let (options, clock) = clocks::split_clock(&request.options)?;
        let options = game
            .normalize_options(&options)
            .map_err(|e| AppError::Invalid(says("errors.invalid_options").arg("detail", e)))?;
        let (server_seed, fair) = match &request.rng_seed {
            Some(_) if !is_admin => {
                return Err(AppError::Forbidden(says("errors.rng_seed_admins_only")));
            }
            Some(fixed) => (Sha256::digest(fixed.as_bytes()).into(), false),
            None => {
                let mut seed = [0u8; 32];
                fill_random(&mut seed);
                (seed, true)
            }
        };
        let id = GameId::new();
        let commitment = seed_commitment(&server_seed);
        // The lobby and its invite code in one transaction.
        self.store
            .create_lobby(NewGame {
                id,
                kind: game.kind(),
                seat_count: request.seats,
                options: &options,
                host,
                fair,
                server_seed,
                seed_commitment: &commitment,
                rules_version: game.rules_version(),
                host_client_seed: &request.client_seed,
                clock: clock.as_ref(),
            })
            .await?;
        Ok(id)
    }

    /// Starts a full lobby: runs the game's setup as the log's first command. One
    /// transaction from the lobby's row lock to the append (issue 26): the host, the status and
    /// the seats are read under the lock every other lobby transition and every command takes,
    /// so a leave, join, cancel or expiry lands wholly before (and the start sees it) or after
    /// (and sees a started game); the cache gets the very seats the log was decided on.
    pub async fn start(&self, id: GameId, user: UserId, command_id: Uuid) -> Result<CommandAnswer> {
        let slot = self.games.slot(id);
        let mut guard = slot.lock().await;
        let mut lock = self.store.lock_game(id).await?;
        if lock.row.host_id != user {
            return Err(AppError::Forbidden(says("errors.host_only_start")));
        }
        // Only the host's own records answer (the host is the only one who gets this far).
        if let Some((_, first, last)) = lock.command(user, command_id).await? {
            drop(lock);
            self.games.ensure_fresh(id, &mut guard, None).await?;
            let loaded = guard.as_mut().expect("loaded");
            return self
                .commands
                .answer_from_log(loaded, user, first, last)
                .await;
        }
        let row = lock.row.clone();
        if row.status != GameStatus::Lobby {
            return Err(AppError::Invalid(says("errors.game_already_started")));
        }
        let seats = lock.seats.clone();
        let game = self.games.game_of(&row.kind)?;
        if seats.len() != usize::from(row.seat_count) {
            return Err(AppError::Invalid(
                says("errors.seats_not_all_taken")
                    .arg("taken", seats.len())
                    .arg("seats", row.seat_count),
            ));
        }
        let client_seeds: Vec<String> = seats.iter().map(|s| s.client_seed.clone()).collect();
        let mut rng = ChaChaRng::for_command(&row.server_seed, &client_seeds, 0);
        let events = game.setup(&row.options, row.seat_count, &mut rng)?;
        let head_hash = row.head_hash.clone();
        let mut loaded = Loaded::new(game, row, seats, 0, head_hash, game.new_state());
        let answer = self
            .commands
            .append_decided(
                &mut loaded,
                user,
                None,
                command_id,
                &json!({"type": "start"}),
                events,
                None,
                Some(lock),
            )
            .await?;
        match answer {
            Ok(answer) => {
                *guard = Some(loaded);
                Ok(answer)
            }
            Err(current) => Err(AppError::Conflict { current }),
        }
    }
}

impl Lobby {
    /// The games matching `filter`, each with its seats.
    pub async fn list(&self, filter: &ListFilter) -> Result<Vec<(GameRow, Vec<SeatRow>)>> {
        let rows = self.store.list(filter).await?;
        let mut listed = Vec::with_capacity(rows.len());
        for row in rows {
            let seats = self.store.seats(row.id).await?;
            listed.push((row, seats));
        }
        Ok(listed)
    }

    /// Takes a free seat in a lobby; returns the seat number. The other seated players are
    /// notified (`player_joined`) in the seat's transaction.
    pub async fn join(&self, id: GameId, user: UserId, client_seed: &str) -> Result<u8> {
        let row = self.store.game(id).await?;
        self.store
            .join(id, user, client_seed, |seat, others| {
                notify::player_joined(&row, seat, others, others.len() + 1)
            })
            .await
            .map_err(AppError::from)
    }

    /// Whether `user` has a seat in the game.
    pub async fn seated(&self, id: GameId, user: UserId) -> Result<bool> {
        Ok(self
            .store
            .seats(id)
            .await?
            .iter()
            .any(|s| s.user_id == user))
    }

    /// Leaves a lobby; the host's leaving hands it to the next seated person (issue 17).
    pub async fn leave(&self, id: GameId, user: UserId) -> Result<()> {
        self.store
            .leave_lobby(id, user)
            .await
            .map_err(AppError::from)
    }
    /// The games past their lobby (for `homestretch check-snapshots`).
    pub async fn started_games(&self) -> Result<Vec<GameId>> {
        self.store.started_games().await.map_err(AppError::from)
    }

    /// Whether the database answers (readiness).
    pub async fn ping(&self) -> Result<()> {
        self.store.ping().await.map_err(AppError::from)
    }
}

/// A lobby's invite: its code and the link form of it.
pub struct Invite {
    pub code: String,
}

impl Lobby {
    /// The invite of a game still in its lobby (`None` once it has started: the code no
    /// longer joins).
    pub async fn invite(&self, row: &GameRow) -> Result<Option<Invite>> {
        if row.status != GameStatus::Lobby {
            return Ok(None);
        }
        Ok(self
            .store
            .join_code(row.id)
            .await?
            .map(|code| Invite { code }))
    }

    /// Takes the next free seat of the lobby invite code `code` names (same rules and errors as
    /// joining by id); returns the game.
    pub async fn join_by_code(
        &self,
        code: &str,
        user: UserId,
        client_seed: &str,
    ) -> Result<GameId> {
        let unknown = || AppError::NotFound(says("errors.invite_code_unknown"));
        let code = infra::lobby::normalize_join_code(code).ok_or_else(unknown)?;
        let (id, status) = self.store.game_by_code(&code).await?.ok_or_else(unknown)?;
        if status != GameStatus::Lobby {
            return Err(AppError::Invalid(says("errors.invite_expired")));
        }
        // The same join as by id: the seated players are told (`player_joined`).
        self.join(id, user, client_seed).await?;
        Ok(id)
    }

    /// The lobby opened as the rematch of a finished game, if any.
    pub async fn rematch_of(&self, row: &GameRow) -> Result<Option<GameId>> {
        if row.status != GameStatus::Finished {
            return Ok(None);
        }
        self.store.rematch_of(row.id).await.map_err(AppError::from)
    }

    /// A rematch of finished game `id`, asked by one of its players: a new lobby of the same
    /// kind, options and seat count, the caller its host in seat 1, the other players invited.
    /// Idempotent: once open, every player asking gets the same lobby.
    pub async fn rematch(&self, id: GameId, user: UserId) -> Result<infra::lobby::Rematch> {
        let row = self.store.game(id).await?;
        let seats = self.store.seats(id).await?;
        if !seats.iter().any(|s| s.user_id == user) {
            return Err(AppError::Forbidden(says("errors.rematch_players_only")));
        }
        if row.status != GameStatus::Finished {
            return Err(AppError::Invalid(says("errors.rematch_not_over")));
        }
        if let Some(open) = self.store.rematch_of(id).await? {
            return Ok(infra::lobby::Rematch {
                game: open,
                created: false,
            });
        }
        let game = self.games.game_of(&row.kind)?;
        // Always a fair game with a fresh seed, even after a game with a fixed seed.
        let mut server_seed = [0u8; 32];
        fill_random(&mut server_seed);
        let commitment = seed_commitment(&server_seed);
        let lobby = GameId::new();
        let clock = clocks::current(row.clock.as_ref());
        // The other players (people: a server bot is never invited) are told.
        let invitations: Vec<_> = seats
            .iter()
            .filter(|s| s.user_id != user && !infra::deadlines::is_server_actor(s.user_id))
            .map(|s| notify::invited(s.user_id, lobby, game.kind(), id))
            .collect();
        self.store
            .open_rematch(
                id,
                NewGame {
                    id: lobby,
                    kind: game.kind(),
                    seat_count: row.seat_count,
                    options: &row.options,
                    host: user,
                    fair: true,
                    server_seed,
                    seed_commitment: &commitment,
                    rules_version: game.rules_version(),
                    host_client_seed: "",
                    // The same time control as the finished game (issue 17), under today's
                    // timeout rules (issue 26).
                    clock: clock.as_ref(),
                },
                &invitations,
            )
            .await
            .map_err(AppError::from)
    }
}

impl Lobby {
    /// `user` is now called `name` (a guest registered in place): the seats of their games
    /// cached here show it. (Another instance shows it once it reloads the game.)
    pub async fn renamed(&self, user: UserId, name: &str) -> Result<()> {
        for id in self.store.games_of(user).await? {
            let slot = self
                .games
                .cache
                .lock()
                .expect("cache lock")
                .get(&id)
                .cloned();
            let Some(slot) = slot else { continue };
            if let Some(loaded) = slot.lock().await.as_mut() {
                for seat in loaded.seats.iter_mut().filter(|s| s.user_id == user) {
                    seat.user_name = name.to_string();
                }
                // The detail answers name the seats.
                self.games.views.forget(id);
            }
        }
        Ok(())
    }
}
