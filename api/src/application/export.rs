use super::*;

impl GameService {
    /// The whole record of a game as the server holds it (every payload, no seed).
    pub(super) async fn full_bundle(&self, id: GameId) -> Result<(Bundle, GameRow)> {
        let row = self.store.game(id).await?;
        let seats = self.store.seats(id).await?;
        let mut commands = self.store.commands(id).await?;
        let mut events = Vec::new();
        loop {
            let batch = self
                .store
                .events(id, events.len() as u64, None, 10_000)
                .await?;
            if batch.is_empty() {
                break;
            }
            events.extend(batch);
        }
        // A live game (a player, a bot, the clock) may move between these reads: the log then
        // ends past the head read first, and an audit would say "the head moved" of a sound
        // game (issue 17: half the audits of a game played by bots did). Such entries were
        // committed with a newer head, which a second read shows: the bundle is the log as of
        // the first head. Entries past even the newer head are left in, for the audit to name.
        if events.last().is_some_and(|e| e.seq > row.version) {
            let moved_to = self.store.game(id).await?.version;
            if events.last().is_some_and(|e| e.seq <= moved_to) {
                events.retain(|e| e.seq <= row.version);
                commands.retain(|c| c.last_seq <= row.version);
            }
        }
        let bundle = Bundle {
            format: bundles::FORMAT.into(),
            game: BundleGame {
                id: row.id.0,
                kind: row.kind.clone(),
                options: row.options.clone(),
                seat_count: row.seat_count,
                seats: seats
                    .iter()
                    .map(|s| BundleSeat {
                        seat: s.seat,
                        user_id: s.user_id.0,
                        name: s.user_name.clone(),
                        client_seed: s.client_seed.clone(),
                    })
                    .collect(),
                fair: row.fair,
                seed_commitment: row.seed_commitment.clone(),
                rules_version: row.rules_version.clone(),
                status: row.status.as_str().into(),
                version: row.version,
                head_hash: row.head_hash.clone(),
                clock: row.clock.clone(),
            },
            server_seed: None,
            commands: commands
                .into_iter()
                .map(|c| BundleCommand {
                    command_id: c.command_id,
                    seat: c.seat,
                    user_id: c.user_id.0,
                    command: c.command,
                    first_seq: c.first_seq,
                    last_seq: c.last_seq,
                    recorded_at: c.recorded_at,
                })
                .collect(),
            events,
        };
        Ok((bundle, row))
    }

    /// The export bundle as `user` may see it: everything (with the seed) once the game is
    /// over; before that, other seats' secrets are redacted.
    pub async fn export(&self, id: GameId, user: UserId) -> Result<Bundle> {
        let (mut bundle, row) = self.full_bundle(id).await?;
        if row.status == GameStatus::Finished {
            bundle.server_seed = Some(hex::encode(row.server_seed));
            return Ok(bundle);
        }
        if row.status == GameStatus::Lobby {
            return Ok(bundle);
        }
        self.with_game(id, |loaded| {
            let viewer = loaded.viewer(user);
            let mut hidden_seqs = std::collections::HashSet::new();
            for event in &mut bundle.events {
                // An event hidden altogether keeps its place, with a null payload.
                *event = loaded
                    .redact(event, viewer)
                    .unwrap_or_else(|| event.shown_as(Value::Null));
                if event.redacted {
                    hidden_seqs.insert(event.seq);
                }
            }
            // A command whose events hold a secret is the sender's alone. (Matched by the seqs
            // it produced: command ids are only unique per caller.)
            let me = loaded.seat_of(user).map(Seat::number);
            for command in &mut bundle.commands {
                let hides =
                    (command.first_seq..=command.last_seq).any(|s| hidden_seqs.contains(&s));
                if hides && command.seat != me {
                    command.command = Value::Null;
                }
            }
            bundle
        })
        .await
    }
}
