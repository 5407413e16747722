//! Issue 13's positions over real HTTP (errata BD-505 … BD-514): a game is created with an
//! admin `rng_seed` and played by a fixed policy (the `k`-th command picks a fixed index of the
//! whole legal list, drawn from `/prompts`' `choices`: its `legal` is a short sample, issue 31)
//! until the position is reached; then the rules are checked through `/prompts` and `/commands`.
//!
//! The seeds are the first the same policy brings to each position, played in the domain with
//! the server's RNG ([`SEEDS`]; `the_seeds_are_the_first_that_reach_their_positions` finds
//! them again and fails when they change).

use domain::Seat;
use domain::bandits::{Bandits, Command, State, decide};
use domain::engine::{ChaChaRng, Game as _};
use homestretch_tests::{Player, TestApp, bandits_commands, spawn_app};
use serde_json::{Value, json};

/// The policy: the `k`-th command of the game takes this index of the legal list.
fn pick(k: usize, len: usize) -> usize {
    ((k as u64).wrapping_mul(2_654_435_761) >> 7) as usize % len
}

fn options() -> Value {
    json!({"pawns_per_player": 2, "first_player": 1})
}

// ------------------------------------------------------------------------------- positions

/// What we are looking for in a state (the acting seat's view of it).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Position {
    /// BD-505: a distribute card with a total of 5 and a single pawn to move.
    DistributeFiveOnePawn,
    /// BD-506: a turn roll with which the pawn on the probation officer can leave it.
    LeaveTheOfficer,
    /// BD-507: Évasion express for a pawn in Huntington.
    EvasionInHuntington,
    /// BD-514: two Sur le dos, Bodyguards or Surveillers of the acting seat on offer.
    TwoCardsOfAKind,
    /// BD-518: a move ending on a pawn in Huntington with a Sur le dos on offer.
    SurLeDosInHuntington,
}

fn reached(st: &State, seat: Seat, legal: &[Command], position: Position) -> bool {
    use domain::bandits::state::{DestinyKind, ExecStep, Frame, Phase, SupportKind};
    let exec = match st.ctl.stack.last() {
        Some(Frame::Destiny(d)) => d.exec.clone(),
        _ => None,
    };
    match position {
        Position::DistributeFiveOnePawn => exec.is_some_and(|e| {
            e.card.kind() == DestinyKind::Distribute
                && e.step == ExecStep::Move
                && e.value == 5
                && e.moved.is_empty()
                && decide::outside_movable(st, seat).len() == 1
        }),
        Position::LeaveTheOfficer => match st.ctl.phase {
            Phase::Action {
                value,
                attempt: false,
            } => {
                decide::must_leave_officer(st, seat, value).is_some()
                    && st.pawns_of(seat).filter(|&p| st.is_movable(p)).count() >= 2
            }
            _ => false,
        },
        Position::EvasionInHuntington => exec.is_some_and(|e| {
            e.card.kind() == DestinyKind::ExpressEscape
                && e.step == ExecStep::Choice
                && decide::subjects(st, seat, &e)
                    .iter()
                    .any(|&p| st.in_huntington(p))
        }),
        Position::TwoCardsOfAKind => [
            SupportKind::Piggyback,
            SupportKind::Bodyguard,
            SupportKind::Watch,
        ]
        .iter()
        .any(|&kind| {
            let mut ids: Vec<_> = legal
                .iter()
                .flat_map(|c| match c {
                    Command::PlayCard {
                        card,
                        piggyback_card,
                        ..
                    } => vec![Some(*card), *piggyback_card],
                    Command::MovePawn { piggyback_card, .. }
                    | Command::FreePawn { piggyback_card }
                    | Command::RideExpress { piggyback_card } => vec![*piggyback_card],
                    _ => vec![],
                })
                .flatten()
                .filter(|c| c.kind() == kind)
                .collect();
            ids.sort();
            ids.dedup();
            ids.len() >= 2
        }),
        Position::SurLeDosInHuntington => legal.iter().any(|c| sur_le_dos_in_huntington(st, c)),
    }
}

/// BD-518: `c` is a move onto a pawn in Huntington that names a Sur le dos.
fn sur_le_dos_in_huntington(st: &State, c: &Command) -> bool {
    use domain::bandits::board::{Zone, board};
    match c {
        Command::MovePawn {
            path,
            piggyback_card: Some(_),
            ..
        } => path
            .last()
            .is_some_and(|&n| board().info(n).zone == Zone::Huntington && !st.at(n).is_empty()),
        _ => false,
    }
}

/// Plays `rng_seed`'s game in the domain, as the server would, until `position`; the number
/// of commands it takes.
fn commands_to(rng_seed: &str, seats: u8, position: Position, max: usize) -> Option<usize> {
    use sha2::Digest;
    let key: [u8; 32] = sha2::Sha256::digest(rng_seed.as_bytes()).into();
    let clients = vec![String::new(); usize::from(seats)];
    let options = serde_json::from_value(options()).unwrap();
    let mut version = 0u64;
    let setup = Bandits::setup(
        &options,
        seats,
        &mut ChaChaRng::for_command(&key, &clients, 0),
    )
    .unwrap();
    let mut st = domain::engine::replay::<Bandits>(&setup);
    version += setup.len() as u64;
    for k in 0..max {
        if st.winner.is_some() {
            return None;
        }
        let seat = Bandits::prompts(&st)[0].seat;
        let legal = Bandits::legal(&st, seat);
        if reached(&st, seat, &legal, position) {
            return Some(k);
        }
        let cmd = &legal[pick(k, legal.len())];
        let mut rng = ChaChaRng::for_command(&key, &clients, version);
        for e in Bandits::decide(&st, seat, cmd, &mut rng).unwrap() {
            Bandits::evolve(&mut st, &e);
            version += 1;
        }
    }
    None
}

/// Where each position's test begins: the first seed `bandits-rules-<n>` whose game the policy
/// brings to the position, and after how many commands.
const SEEDS: [(Position, &str, usize); 5] = [
    (Position::DistributeFiveOnePawn, "bandits-rules-12", 340),
    (Position::LeaveTheOfficer, "bandits-rules-0", 78),
    (Position::EvasionInHuntington, "bandits-rules-10", 212),
    (Position::TwoCardsOfAKind, "bandits-rules-0", 399),
    (Position::SurLeDosInHuntington, "bandits-rules-42", 59),
];

/// How [`SEEDS`] were found, checked: the search gives them again (a rules change that moves a
/// position shows here first, with the seeds to use instead).
#[test]
fn the_seeds_are_the_first_that_reach_their_positions() {
    for (position, seed, commands) in SEEDS {
        let found = (0..3000).find_map(|n| {
            let seed = format!("bandits-rules-{n}");
            commands_to(&seed, 2, position, 1500).map(|k| (seed, k))
        });
        assert_eq!(
            found,
            Some((seed.to_string(), commands)),
            "{position:?}: the first seed reaching it"
        );
    }
}

// ------------------------------------------------------------------------------- over HTTP

struct Table {
    id: String,
    players: Vec<Player>,
}

impl Table {
    /// Creates the game of `position`'s seed ([`SEEDS`]) and plays the policy up to it.
    async fn at(app: &TestApp, position: Position) -> Table {
        let (_, rng_seed, commands) = SEEDS
            .into_iter()
            .find(|(p, _, _)| *p == position)
            .expect("a seed for every position");
        assert_eq!(
            commands_to(rng_seed, 2, position, commands + 1),
            Some(commands),
            "the domain reaches the position after {commands} commands"
        );
        let players = vec![app.admin("root-admin").await, app.register("bo").await];
        let id = app
            .started_game("bandits", &players, options(), Some(rng_seed))
            .await;
        let game = Table { id, players };
        for k in 0..commands {
            let (player, legal) = game.turn(app).await;
            let cmd = legal[pick(k, legal.len())].clone();
            let answer = app.command(&game.id, player, cmd.clone()).await;
            assert_eq!(answer.status, 200, "{cmd}: {}", answer.text);
        }
        game
    }

    /// The player who must act and all their legal commands (from `choices`, in the domain's
    /// order: the walks were found with `Bandits::legal`).
    async fn turn<'a>(&'a self, app: &TestApp) -> (&'a Player, Vec<Value>) {
        let prompts = app
            .get(
                &format!("/v1/games/{}/prompts", self.id),
                &self.players[0].token,
            )
            .await
            .ok();
        let seat = prompts["prompts"][0]["seat"].as_u64().unwrap() as usize;
        let player = &self.players[seat - 1];
        let mine = app
            .get(&format!("/v1/games/{}/prompts", self.id), &player.token)
            .await
            .ok();
        (player, bandits_commands(&mine))
    }

    async fn view(&self, app: &TestApp, player: &Player) -> Value {
        app.get(&format!("/v1/games/{}", self.id), &player.token)
            .await
            .ok()["view"]
            .clone()
    }
}

fn rule_of(answer: &homestretch_tests::Answer) -> String {
    answer.problem(422)["rule"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn exec(view: &Value) -> Value {
    view["control"]["stack"]
        .as_array()
        .and_then(|s| s.last())
        .map(|f| f["exec"].clone())
        .unwrap_or(Value::Null)
}

#[actix_web::test]
async fn bd505_distribute_five_points_one_pawn_uses_all_five() {
    // « TOUS LES POINTS DOIVENT ÊTRE UTILISÉS ! »: before the errata the pawn moved once and
    // the rest was thrown away.
    let app = spawn_app().await;
    let game = Table::at(&app, Position::DistributeFiveOnePawn).await;
    let (player, legal) = game.turn(&app).await;
    assert_eq!(exec(&game.view(&app, player).await)["value"], 5);
    let answer = app.command(&game.id, player, json!({"type": "pass"})).await;
    assert_eq!(rule_of(&answer), "BD-505");
    // Shares that end on a space without effect (no card drawn, no ride): the same pawn must
    // go on until the 5 points are used.
    use domain::bandits::board::{Kind, Node, board};
    let quiet = |c: &&&Value| {
        let last = c["path"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .as_str()
            .unwrap();
        matches!(
            board().info(Node::parse(last).unwrap()).kind,
            Kind::Plain | Kind::Lawyer | Kind::Probation
        )
    };
    let mut used = 0;
    let mut legal = legal;
    let mut pawn = Value::Null;
    let mut sent = 0;
    loop {
        let shares: Vec<&Value> = legal.iter().filter(|c| c["type"] == "move_pawn").collect();
        let share = (*shares
            .iter()
            .filter(quiet)
            .min_by_key(|c| c["path"].as_array().unwrap().len())
            .or(shares.first())
            .expect("a share is offered while points are left"))
        .clone();
        assert!(pawn.is_null() || share["pawn"] == pawn, "one pawn only");
        pawn = share["pawn"].clone();
        used += share["path"].as_array().unwrap().len();
        sent += 1;
        let answer = app.command(&game.id, player, share).await.ok();
        let resolved =
            answer["events"].as_array().unwrap().iter().any(|e| {
                e["data"]["type"] == "destiny_card_resolved" && e["data"]["card"] == "D08"
            });
        if resolved {
            break;
        }
        assert!(used < 5, "the card goes on after 5 points: {answer}");
        let view = game.view(&app, player).await;
        assert_eq!(exec(&view)["value"], 5 - used as u64, "points left");
        let (next, l) = game.turn(&app).await;
        assert_eq!(next.id, player.id);
        legal = l;
    }
    assert_eq!(used, 5, "the card ends when all 5 points are used");
    assert!(sent >= 2, "the pawn took several shares");
}

#[actix_web::test]
async fn bd506_no_pass_while_the_pawn_can_leave_the_probation_officer() {
    // « CELUI-CI DOIT ÊTRE QUITTÉ À LA PROCHAINE OCCASION »
    let app = spawn_app().await;
    let game = Table::at(&app, Position::LeaveTheOfficer).await;
    let (player, legal) = game.turn(&app).await;
    let prompts = app
        .get(&format!("/v1/games/{}/prompts", game.id), &player.token)
        .await
        .ok();
    // Only that pawn's move (in segments when the roll may take it over 5 steps, BD-517).
    let kinds = prompts["prompts"][0]["kinds"].as_array().unwrap().clone();
    assert!(!kinds.is_empty());
    assert!(
        kinds
            .iter()
            .all(|k| *k == "move_pawn" || *k == "move_segment"),
        "{kinds:?}"
    );
    let officer_pawn = legal[0]["pawn"].clone();
    assert!(legal.iter().all(
        |c| (c["type"] == "move_pawn" || c["type"] == "move_segment") && c["pawn"] == officer_pawn
    ));
    let answer = app.command(&game.id, player, json!({"type": "pass"})).await;
    assert_eq!(rule_of(&answer), "BD-506");
    // Moving the other pawn is refused too.
    let mine = legal[0]["pawn"].as_str().unwrap();
    let (colour, number) = mine.rsplit_once('-').unwrap();
    let other = format!("{colour}-{}", if number == "1" { 2 } else { 1 });
    let answer = app
        .command(
            &game.id,
            player,
            json!({"type": "move_pawn", "pawn": other, "path": ["R01"]}),
        )
        .await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    app.command(&game.id, player, legal[0].clone()).await.ok();
}

#[actix_web::test]
async fn bd507_evasion_express_offers_the_train_in_huntington() {
    // « DÉPLACE TON PION JUSQU'AU TRAIN EXPRESS LE PLUS PROCHE … ET UTILISE-LE SI POSSIBLE »
    let app = spawn_app().await;
    let game = Table::at(&app, Position::EvasionInHuntington).await;
    let (player, legal) = game.turn(&app).await;
    let train = legal
        .iter()
        .find(|c| c["type"] == "resolve_destiny" && c["option"] == "train")
        .expect("the train is offered")
        .clone();
    let answer = app.command(&game.id, player, train).await.ok();
    let events = answer["events"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["data"]["type"] == "express_ridden" || e["data"]["type"] == "express_missed"),
        "{answer}"
    );
}

#[actix_web::test]
async fn bd514_any_card_of_the_kind_may_be_played() {
    // Two cards of a kind on offer: the one with the higher id is accepted.
    let app = spawn_app().await;
    let game = Table::at(&app, Position::TwoCardsOfAKind).await;
    let (player, legal) = game.turn(&app).await;
    let card_of = |c: &Value| -> Vec<String> {
        ["card", "piggyback_card"]
            .iter()
            .filter_map(|f| c[*f].as_str().map(String::from))
            .collect()
    };
    // Sur le dos S19–S24, Surveiller S31–S36, Bodyguard S37–S42: a kind with two ids offered.
    let kind = |id: &str| -> u8 { (id[1..].parse::<u8>().unwrap() - 1) / 6 };
    let mut ids: Vec<String> = legal
        .iter()
        .flat_map(card_of)
        .filter(|id| [3, 5, 6].contains(&kind(id)))
        .collect();
    ids.sort();
    ids.dedup();
    let pair = ids
        .windows(2)
        .find(|w| kind(&w[0]) == kind(&w[1]))
        .expect("two cards of a kind on offer");
    let (lowest, highest) = (pair[0].clone(), pair[1].clone());
    assert!(lowest < highest);
    let cmd = legal
        .iter()
        .find(|c| card_of(c).contains(&highest))
        .unwrap()
        .clone();
    let answer = app.command(&game.id, player, cmd).await.ok();
    let played = answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["data"]["type"] == "card_played" && e["data"]["card"] == highest.as_str());
    assert!(played, "{highest}: {answer}");
}

#[actix_web::test]
async fn bd518_sur_le_dos_onto_a_pawn_in_huntington_over_http() {
    // « L'EMPILEMENT DES PIONS EST AUTORISÉ ! PLACE TON PION SUR UN PION ADVERSE OU ALLIÉ »:
    // the finding's position — a move ends on a pawn in Huntington and its player holds a
    // usable Sur le dos. On main the climb was refused with BD-381 (ring nodes only).
    let app = spawn_app().await;
    let game = Table::at(&app, Position::SurLeDosInHuntington).await;
    let (player, legal) = game.turn(&app).await;
    use domain::bandits::board::{Node, Zone, board};
    let in_huntington = |c: &Value| {
        c["path"]
            .as_array()
            .and_then(|p| p.last())
            .and_then(Value::as_str)
            .and_then(Node::parse)
            .is_some_and(|n| board().info(n).zone == Zone::Huntington)
    };
    let climb = legal
        .iter()
        .find(|c| {
            c["type"] == "move_pawn"
                && c.get("piggyback_card").is_some_and(|v| !v.is_null())
                && in_huntington(c)
        })
        .expect("legal offers the climb")
        .clone();
    let node = climb["path"].as_array().unwrap().last().unwrap().clone();
    let below = game.view(&app, player).await["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["node"] == node)
        .expect("a pawn stands there")["pawns"]
        .clone();
    let answer = app.command(&game.id, player, climb.clone()).await.ok();
    let stacked = answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["data"]["type"] == "pawn_stacked")
        .unwrap_or_else(|| panic!("no pawn_stacked: {answer}"));
    assert_eq!(stacked["data"]["pawn"], climb["pawn"]);
    assert_eq!(stacked["data"]["on"], node);
    // The unit there: the pawns that were there, then the climber on top.
    let unit = game.view(&app, player).await["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["node"] == node)
        .unwrap()["pawns"]
        .clone();
    let mut expected = below.as_array().unwrap().clone();
    expected.push(climb["pawn"].clone());
    assert_eq!(unit, Value::Array(expected));
}
