//! `decide`: guard clauses (each naming its rule ID), then the command's own events; the
//! automatic steps that follow (MU-161) live in `flow.rs`.

use super::board::{self, LinkId, RestClass, SpaceId};
use super::command::Command;
use super::event::Event;
use super::state::*;
use crate::decider::{Decided, MessageArg, ensure, says};
use crate::engine::{Rng, Seat};

pub mod flow;
use flow::*;

/// MU-023: at most ceil(n/3) players per training type.
pub fn training_limit(n: u8) -> usize {
    usize::from(n).div_ceil(3)
}

pub fn decide(s: &State, actor: Seat, cmd: &Command, rng: &mut dyn Rng) -> Decided<Vec<Event>> {
    // MU-152: nothing is accepted once the game is won.
    ensure(s.phase != Phase::GameOver, "MU-152", || says("game_over"))?;
    // MU-160: only seats of this game, and only once the game has been set up.
    ensure(s.phase != Phase::NotStarted, "MU-160", || {
        says("game_has_not_been_set_up")
    })?;
    ensure(s.is_seat(actor), "MU-160", || {
        says("seat_actor_not_seat_seats_player")
            .seat("actor", actor)
            .arg("seats", s.seats)
    })?;
    let mut c = Ctx::new(s.clone(), rng);
    match *cmd {
        Command::ChooseTraining { training } => choose_training(&mut c, actor, training)?,
        Command::BuyReroll {} => buy_reroll(&mut c, actor)?,
        Command::PassReroll {} => pass_reroll(&mut c, actor)?,
        Command::SubmitBid { amount } => submit_bid(&mut c, actor, amount)?,
        Command::BuyOvertake {} => buy_overtake(&mut c, actor)?,
        Command::EarlyRiserStep { to, modifier } => early_riser_step(&mut c, actor, to, modifier)?,
        Command::SkipEarlyRiser {} => skip_early_riser(&mut c, actor)?,
        Command::PlaceAvalanche { link } => place_avalanche(&mut c, actor, link)?,
        Command::MoveAvalanche { from_link, to_link } => {
            move_avalanche(&mut c, actor, from_link, to_link)?
        }
        Command::RemoveAvalanche { link } => remove_avalanche(&mut c, actor, link)?,
        Command::DeclareMove {} => declare_move(&mut c, actor)?,
        Command::DeclareRest { option } => declare_rest(&mut c, actor, option)?,
        Command::ReduceDice { tokens } => reduce_dice(&mut c, actor, tokens)?,
        Command::PassReduction {} => pass_reduction(&mut c, actor)?,
        Command::Step { to, modifier } => step(&mut c, actor, to, modifier)?,
        Command::EndMovement {} => end_movement(&mut c, actor)?,
    }
    advance(&mut c);
    Ok(c.into_events())
}

// ---------------------------------------------------------------------------------------------
// Setup (section 3.3)
// ---------------------------------------------------------------------------------------------

/// The setup events: the game and the first-trainer roll.
pub fn setup(
    layout: &[super::board::SegmentId],
    seats: u8,
    rng: &mut dyn Rng,
) -> Decided<Vec<Event>> {
    // MU-001: 2 to 6 players.
    ensure((2..=6).contains(&seats), "MU-001", || {
        says("mush_2_to_6_players_not").arg("seats", seats)
    })?;
    // MU-011 / MU-168: only the 16 legal layouts (anchorage, 0 to 3 distinct middle segments,
    // nome).
    ensure(board::layout_index(layout).is_some(), "MU-011", || {
        says("layout_anchorage_0_to_3_distinct")
    })?;
    Ok(vec![
        Event::GameCreated {
            seats,
            layout: layout.to_vec(),
        },
        first_trainer_roll(seats, rng, 1),
    ])
}

/// A space or a link names itself by its identifier (`anc_b3`, `anc_b3>anc_b4`) in every
/// language.
impl MessageArg for SpaceId {
    fn arg_text(&self) -> String {
        self.to_string()
    }
}

impl MessageArg for LinkId {
    fn arg_text(&self) -> String {
        self.to_string()
    }
}

/// A training names itself by its wire name (`hot`, `mixed`, `cold`) in every language.
impl MessageArg for Training {
    fn arg_text(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

fn choose_training(c: &mut Ctx, actor: Seat, training: Training) -> Decided {
    ensure(c.state().phase == Phase::SetupTraining, "MU-160", || {
        says("training_chosen_only_setup")
    })?;
    // MU-021: one chooser at a time, clockwise from the first trainer.
    ensure(c.state().chooser == Some(actor), "MU-021", || {
        says("not_seat_actor_turn_to_choose").seat("actor", actor)
    })?;
    let taken = c
        .state()
        .players
        .iter()
        .filter(|p| p.training == Some(training))
        .count();
    let limit = training_limit(c.state().seats);
    ensure(taken < limit, "MU-023", || {
        says("training_already_has_taken_team_limit")
            .arg("training", training)
            .arg("taken", taken)
            .arg("seats", c.state().seats)
            .arg("limit", limit)
    })?;
    c.emit(Event::TrainingChosen {
        seat: actor,
        training,
    });
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Re-roll window (MU-130–MU-132, MU-167, section 5.2)
// ---------------------------------------------------------------------------------------------

fn polled_in_reroll(c: &Ctx, actor: Seat) -> Decided {
    ensure(c.state().phase == Phase::RerollWindow, "MU-160", || {
        says("no_re_roll_window_open")
    })?;
    let polled = c.state().reroll.as_ref().map(|w| w.polled);
    // MU-132: the window polls one player at a time, in a fixed order.
    ensure(polled == Some(actor), "MU-132", || {
        says("re_roll_window_not_waiting_seat").seat("actor", actor)
    })
}

fn buy_reroll(c: &mut Ctx, actor: Seat) -> Decided {
    polled_in_reroll(c, actor)?;
    ensure(c.state().tokens(actor) >= REROLL_COST, "MU-130", || {
        says("re_roll_costs_3_tokens")
    })?;
    c.emit(Event::RerollBought { seat: actor });
    reroll(c);
    Ok(())
}

fn pass_reroll(c: &mut Ctx, actor: Seat) -> Decided {
    polled_in_reroll(c, actor)?;
    c.emit(Event::RerollPassed { seat: actor });
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bidding (MU-033–MU-038, section 5.4)
// ---------------------------------------------------------------------------------------------

fn submit_bid(c: &mut Ctx, actor: Seat, amount: u32) -> Decided {
    ensure(c.state().phase == Phase::Bidding, "MU-160", || {
        says("bids_taken_only_bidding_step")
    })?;
    let already = c
        .state()
        .bids
        .get(actor.index())
        .is_some_and(Option::is_some);
    ensure(!already, "MU-033", || {
        says("bid_already_committed_cannot_changed")
    })?;
    let tokens = c.state().tokens(actor);
    ensure(amount <= tokens, "MU-033", || {
        says("bid_must_0_tokens_hold").arg("tokens", tokens)
    })?;
    commit_bid(c, actor, amount, false);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Early riser (MU-039) and overtaking (MU-080–MU-084)
// ---------------------------------------------------------------------------------------------

fn buy_overtake(c: &mut Ctx, actor: Seat) -> Decided {
    let may = match c.state().phase {
        Phase::EarlyRiser => c.state().early_riser == Some(actor),
        Phase::Movement => c.state().active == Some(actor),
        _ => false,
    };
    // MU-082: only the mover, in the movement phase or the early-riser step.
    ensure(may, "MU-082", || {
        says("overtaking_right_bought_mover_their_movement")
    })?;
    ensure(c.state().overtake != Some(actor), "MU-084", || {
        says("already_hold_overtaking_right_turn")
    })?;
    ensure(c.state().tokens(actor) >= OVERTAKE_COST, "MU-082", || {
        says("overtaking_right_costs_4_tokens")
    })?;
    c.emit(Event::OvertakeBought { seat: actor });
    Ok(())
}

fn early_riser_step(c: &mut Ctx, actor: Seat, to: SpaceId, modifier: u8) -> Decided {
    ensure(
        c.state().phase == Phase::EarlyRiser && c.state().early_riser == Some(actor),
        "MU-039",
        || says("only_early_riser_may_take_free"),
    )?;
    validate_step(c.state(), actor, to, modifier)?;
    resolve_step(c, actor, to, modifier);
    Ok(())
}

fn skip_early_riser(c: &mut Ctx, actor: Seat) -> Decided {
    ensure(
        c.state().phase == Phase::EarlyRiser && c.state().early_riser == Some(actor),
        "MU-039",
        || says("only_early_riser_may_skip_free"),
    )?;
    c.emit(Event::EarlyRiserSkipped { seat: actor });
    start_first_turn(c);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Avalanche actions (MU-105–MU-108)
// ---------------------------------------------------------------------------------------------

fn avalanche_actor(c: &Ctx, actor: Seat) -> Decided {
    let phase_ok = matches!(c.state().phase, Phase::TurnStart | Phase::Movement);
    // MU-107: the active player, at turn start or between steps of their movement.
    ensure(
        phase_ok && c.state().active == Some(actor),
        "MU-107",
        || says("avalanche_actions_taken_only_active_player"),
    )?;
    ensure(
        c.state().tokens(actor) >= AVALANCHE_ACTION_COST,
        "MU-105",
        || says("avalanche_action_costs_5_tokens"),
    )
}

fn check_avalanche_target(s: &State, link: LinkId) -> Decided {
    // MU-014: a cut seam path does not exist, not even for avalanches.
    ensure(s.graph().is_live(link), "MU-014", || {
        says("link_not_link_layout").arg("link", link)
    })?;
    ensure(!link.touches_difficult(), "MU-106", || {
        says("link_touches_difficult_terrain").arg("link", link)
    })?;
    ensure(!s.avalanches.contains(&link), "MU-106", || {
        says("link_already_has_avalanche").arg("link", link)
    })
}

fn place_avalanche(c: &mut Ctx, actor: Seat, link: LinkId) -> Decided {
    avalanche_actor(c, actor)?;
    ensure(c.state().avalanche_supply > 0, "MU-105", || {
        says("no_avalanche_marker_left_supply")
    })?;
    check_avalanche_target(c.state(), link)?;
    c.emit(Event::AvalanchePlaced { seat: actor, link });
    Ok(())
}

fn move_avalanche(c: &mut Ctx, actor: Seat, from_link: LinkId, to_link: LinkId) -> Decided {
    avalanche_actor(c, actor)?;
    ensure(c.state().avalanches.contains(&from_link), "MU-105", || {
        says("no_avalanche_link").arg("link", from_link)
    })?;
    check_avalanche_target(c.state(), to_link)?;
    c.emit(Event::AvalancheMoved {
        seat: actor,
        from_link,
        to_link,
    });
    Ok(())
}

fn remove_avalanche(c: &mut Ctx, actor: Seat, link: LinkId) -> Decided {
    avalanche_actor(c, actor)?;
    ensure(c.state().avalanches.contains(&link), "MU-105", || {
        says("no_avalanche_link").arg("link", link)
    })?;
    c.emit(Event::AvalancheRemoved { seat: actor, link });
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Declaration (MU-045–MU-050) and resting (MU-120–MU-126)
// ---------------------------------------------------------------------------------------------

fn declaring(c: &Ctx, actor: Seat) -> Decided {
    // MU-046: one declaration, by the active player, at turn start.
    ensure(
        c.state().phase == Phase::TurnStart && c.state().active == Some(actor),
        "MU-046",
        || says("only_active_player_declares_start_their"),
    )
}

fn declare_move(c: &mut Ctx, actor: Seat) -> Decided {
    declaring(c, actor)?;
    let p = c.state().players[actor.index()].clone();
    ensure(p.fresh() > 0, "MU-047", || {
        says("all_8_dogs_fatigued_must_rest")
    })?;
    // MU-055: the weather at the sled's segment, fixed for the turn.
    let weather = board::weather_at(p.space, c.state().weather_roll);
    let training = p.training.unwrap_or(Training::Mixed);
    let relation = board::relation(training, weather);
    let colour = Colour::of(relation); // MU-057
    let outcome = WeatherOutcome::of(training, relation); // MU-058
    let dice = p.fresh(); // MU-059
    c.emit(Event::MoveDeclared {
        seat: actor,
        weather,
        relation,
        colour,
        outcome,
        dice,
    });
    Ok(())
}

/// MU-122 as amended: the rest options of the sled's space. MU-165: Anchorage offers only
/// `draw_1`, plus `remove_1` for a team whose 8 dogs are all fatigued. MU-163: every village
/// but Anchorage, Nikolai and Unalakleet (the minor ones) offers the four options in full.
/// MU-049: `stranded_recover` on difficult terrain with no fresh dog.
pub fn rest_options(s: &State, seat: Seat) -> &'static [RestOption] {
    use RestOption::*;
    let Some(p) = s.player(seat) else { return &[] };
    match p.space.info().rest_class {
        RestClass::Anchorage if p.fresh() == 0 => &[Draw1, Remove1],
        RestClass::Anchorage => &[Draw1],
        RestClass::Minor => &[Remove2, Draw4, Remove1Draw2],
        RestClass::Standard => &[Remove3, Draw6, Remove2Draw2, Remove1Draw4],
        RestClass::Wilderness => &[Remove1, Draw2],
        RestClass::Difficult if p.fresh() == 0 => &[StrandedRecover],
        RestClass::Difficult | RestClass::Finish => &[],
    }
}

fn declare_rest(c: &mut Ctx, actor: Seat, option: RestOption) -> Decided {
    declaring(c, actor)?;
    let p = c.state().players[actor.index()].clone();
    if p.space.is_difficult() {
        // MU-048 / MU-096: no resting on difficult terrain while a dog is fresh.
        ensure(p.fresh() == 0, "MU-048", || {
            says("no_rest_difficult_terrain_while_dog")
        })?;
        // MU-049: stranded — only `stranded_recover`.
        ensure(option == RestOption::StrandedRecover, "MU-049", || {
            says("stranded_sled_may_only_take_stranded")
        })?;
    }
    if p.space.info().rest_class == RestClass::Anchorage {
        // MU-165: resting in Anchorage draws 1 token; removing fatigue there is only for a team
        // with every dog fatigued.
        ensure(
            option != RestOption::Remove1 || p.fresh() == 0,
            "MU-165",
            || says("anchorage_only_team_whose_8_dogs"),
        )?;
    }
    ensure(
        rest_options(c.state(), actor).contains(&option),
        "MU-122",
        || {
            says("option_not_rest_option_space")
                .arg("option", option.id())
                .arg("space", p.space)
        },
    )?;
    let (remove, draw) = option.amounts();
    // MU-163: the option's amounts in full (no village sign caps them); MU-124: removal is
    // capped by the current fatigue only.
    let removed = remove.min(p.fatigue);
    c.emit(Event::Rested {
        seat: actor,
        option,
        removed,
        drawn: draw,
    });
    end_turn(c, actor);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Dice reduction (MU-134–MU-139, section 5.3)
// ---------------------------------------------------------------------------------------------

fn reduction_polled(c: &Ctx, actor: Seat) -> Decided {
    ensure(c.state().phase == Phase::ReductionWindow, "MU-160", || {
        says("no_dice_reduction_window_open")
    })?;
    // MU-137: never the active player's own dice.
    ensure(c.state().active != Some(actor), "MU-137", || {
        says("cannot_reduce_own_dice")
    })?;
    let polled = c.state().reduction.as_ref().map(|r| r.polled);
    ensure(polled == Some(actor), "MU-160", || {
        says("reduction_window_not_waiting_seat_actor").seat("actor", actor)
    })
}

/// MU-166: a polled opponent pays tokens into the shared pool; every 2 pooled tokens remove
/// one die, whoever paid them.
fn reduce_dice(c: &mut Ctx, actor: Seat, tokens: u8) -> Decided {
    reduction_polled(c, actor)?;
    let room = c
        .state()
        .reduction
        .as_ref()
        .map_or(0, |r| r.token_cap() - r.pooled());
    ensure(tokens >= 1, "MU-134", || says("pay_least_one_token"))?;
    // MU-166: at most 6 tokens (3 dice, and never more dice than D0) per turn, all payers
    // together.
    ensure(tokens <= room, "MU-166", || {
        says("only_room_more_token_may_pooled").arg("room", room)
    })?;
    // MU-005: payments need the tokens in hand.
    ensure(
        c.state().tokens(actor) >= u32::from(tokens),
        "MU-005",
        || says("hold_fewer_than_tokens").arg("tokens", tokens),
    )?;
    c.emit(Event::TokensPooled {
        seat: actor,
        tokens,
    });
    Ok(())
}

fn pass_reduction(c: &mut Ctx, actor: Seat) -> Decided {
    reduction_polled(c, actor)?;
    c.emit(Event::ReductionPassed { seat: actor });
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Movement (MU-070–MU-104)
// ---------------------------------------------------------------------------------------------

/// MU-072 (b)–(e) and the early-riser step's identical checks (MU-039).
pub fn validate_step(s: &State, actor: Seat, to: SpaceId, modifier: u8) -> Decided {
    let from = s.players[actor.index()].space;
    let link = LinkId::new(from, to);
    let graph = s.graph();
    // MU-014: a seam path of another arrangement does not exist here.
    let exists_elsewhere = board::data().layouts.iter().any(|g| g.is_live(link));
    ensure(graph.is_live(link) || !exists_elsewhere, "MU-014", || {
        says("link_cut_layout").arg("link", link)
    })?;
    // MU-013: one live link, forwards.
    ensure(graph.is_live(link), "MU-013", || {
        says("no_link_from_to").arg("from", from).arg("to", to)
    })?;
    let right = s.overtake == Some(actor);
    // MU-080: occupied wilderness and difficult spaces need the overtaking right.
    let blocked = !to.is_village() && s.occupied_by_other(to, actor) && !right;
    ensure(!blocked, "MU-080", || {
        says("to_occupied_buy_overtaking_right_first").arg("to", to)
    })?;
    // MU-164: moving on from a space entered during this movement that holds another sled is
    // passing it, villages included, and needs the right; leaving the space where the turn
    // began (e.g. the shared start in Anchorage) is free.
    let passing = s.mv.origin != Some(from) && s.occupied_by_other(from, actor) && !right;
    ensure(!passing, "MU-164", || {
        says("moving_from_passes_sled_there_buy").arg("from", from)
    })?;
    if s.avalanches.contains(&link) {
        // MU-101: avalanche modifier 0..=4.
        ensure(modifier <= MAX_AVALANCHE_MODIFIER, "MU-101", || {
            says("avalanche_modifier_0_to_4")
        })?;
    } else if to.is_difficult() {
        // MU-091: terrain modifier 0..=2.
        ensure(modifier <= MAX_TERRAIN_MODIFIER, "MU-091", || {
            says("terrain_modifier_0_to_2")
        })?;
    } else {
        // MU-072 (d): no roll, no modifier.
        ensure(modifier == 0, "MU-072", || {
            says("step_to_needs_no_roll_modifier").arg("to", to)
        })?;
    }
    // MU-072 (e) / MU-005: the modifier is paid from tokens in hand.
    ensure(s.tokens(actor) >= u32::from(modifier), "MU-072", || {
        says("not_enough_tokens_modifier")
    })
}

fn step(c: &mut Ctx, actor: Seat, to: SpaceId, modifier: u8) -> Decided {
    // MU-070: steps only in the active player's movement phase with MP left.
    ensure(
        c.state().phase == Phase::Movement && c.state().active == Some(actor),
        "MU-070",
        || says("steps_taken_only_active_player_their"),
    )?;
    ensure(c.state().mv.mp >= 1, "MU-072", || {
        says("no_movement_points_left")
    })?;
    validate_step(c.state(), actor, to, modifier)?;
    resolve_step(c, actor, to, modifier);
    Ok(())
}

fn end_movement(c: &mut Ctx, actor: Seat) -> Decided {
    ensure(
        c.state().phase == Phase::Movement && c.state().active == Some(actor),
        "MU-071",
        || says("only_active_player_ends_their_own"),
    )?;
    c.emit(Event::MovementEnded {
        seat: actor,
        reason: EndReason::Stopped,
    });
    end_turn(c, actor);
    Ok(())
}
