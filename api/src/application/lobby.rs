use super::clocks;
use super::*;

impl GameService {
    pub async fn create(
        &self,
        host: UserId,
        request: CreateGame,
        is_admin: bool,
    ) -> Result<GameId> {
        let game = self.game_of(&request.kind)?;
        if !game.seat_range().contains(&request.seats) {
            let range = game.seat_range();
            return Err(StoreError::Invalid(format!(
                "{} is played by {} to {} players",
                request.kind,
                range.start(),
                range.end()
            )));
        }
        // `options.clock` is the server's, valid for every kind (issue 17); the rest the game's.
        let (options, clock) = clocks::split_clock(&request.options)?;
        let options = game
            .normalize_options(&options)
            .map_err(|e| StoreError::Invalid(format!("options: {e}")))?;
        let (server_seed, fair) = match &request.rng_seed {
            Some(_) if !is_admin => {
                return Err(StoreError::Forbidden("only admins may fix rng_seed".into()));
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
        self.store
            .create_game(NewGame {
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

    /// Starts a full lobby: runs the game's setup as the log's first command.
    pub async fn start(&self, id: GameId, user: UserId, command_id: Uuid) -> Result<CommandAnswer> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        let row = self.store.game(id).await?;
        if row.host_id != user {
            return Err(StoreError::Forbidden(
                "only the host may start the game".into(),
            ));
        }
        // Only the host's own records answer (the host is the only one who gets this far).
        if let Some((_, first, last)) = self.store.command(id, user, command_id).await? {
            self.ensure_fresh(id, &mut guard, None).await?;
            let loaded = guard.as_ref().expect("loaded");
            return self.answer_from_log(loaded, user, first, last).await;
        }
        if row.status != GameStatus::Lobby {
            return Err(StoreError::Invalid("the game has already started".into()));
        }
        let seats = self.store.seats(id).await?;
        let game = self.game_of(&row.kind)?;
        if seats.len() != usize::from(row.seat_count) {
            return Err(StoreError::Invalid(format!(
                "{} of {} seats are taken: the game starts when every seat is taken",
                seats.len(),
                row.seat_count
            )));
        }
        let client_seeds: Vec<String> = seats.iter().map(|s| s.client_seed.clone()).collect();
        let mut rng = ChaChaRng::for_command(&row.server_seed, &client_seeds, 0);
        let events = game.setup(&row.options, row.seat_count, &mut rng)?;
        let mut loaded = Loaded {
            game,
            version: 0,
            head_hash: row.head_hash.clone(),
            state: game.new_state(),
            finished: false,
            head_at: None,
            seats,
            row,
        };
        let answer = self
            .append_decided(
                &mut loaded,
                user,
                None,
                command_id,
                &json!({"type": "start"}),
                events,
                None,
            )
            .await?;
        match answer {
            Ok(answer) => {
                *guard = Some(loaded);
                Ok(answer)
            }
            Err(current) => Err(StoreError::Conflict { current }),
        }
    }

    pub async fn game_row(&self, id: GameId) -> Result<(GameRow, Vec<SeatRow>)> {
        let row = self.store.game(id).await?;
        let seats = self.store.seats(id).await?;
        Ok((row, seats))
    }
}

impl GameService {
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

    /// Takes a free seat in a lobby; returns the seat number.
    pub async fn join(&self, id: GameId, user: UserId, client_seed: &str) -> Result<u8> {
        self.store.join(id, user, client_seed).await
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
        self.store.leave_lobby(id, user).await
    }

    /// The head version of a game as stored.
    pub async fn head(&self, id: GameId) -> Result<u64> {
        Ok(self.store.head(id).await?.0)
    }

    /// The games past their lobby (for `homestretch check-snapshots`).
    pub async fn started_games(&self) -> Result<Vec<GameId>> {
        self.store.started_games().await
    }

    /// Whether the database answers (readiness).
    pub async fn ping(&self) -> Result<()> {
        self.store.ping().await
    }
}
