//! Guard clauses: `check` validates a command without producing events (shared with `legal`).

use crate::decider::Decided;
use crate::decider::{MessageArg, ensure, says, violation};
use crate::engine::{RuleViolation, Seat};
use crate::whisky_race::board::{Family, Kind, MarkerId, board};
use crate::whisky_race::command::{Action, Bundle, Command, Direction, Piece, Reward, UseParams};
use crate::whisky_race::state::*;

/// A marker names itself by its identifier (`banff#1`) in every language.
impl MessageArg for MarkerId {
    fn arg_text(&self) -> String {
        self.to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// Small rule helpers shared by decide and legal
// ---------------------------------------------------------------------------------------------

/// Cost of leaving `space` for `seat` (WR-048, WR-049).
pub fn step_cost(s: &State, seat: Seat, space: u8) -> u32 {
    if space == board().start {
        return 1; // WR-049: no squabbling on the start space.
    }
    1 + s.pawns_on(space).filter(|o| *o != seat).count() as u32
}

/// How many consecutive steps `seat` can afford from its current state (WR-052).
pub fn affordable_steps(s: &State, seat: Seat) -> u32 {
    let mut pos = s.pawn(seat);
    let mut malt = s.chosen[seat.index()];
    let mut n = 0;
    while pos < s.finish() {
        let cost = step_cost(s, seat, pos);
        if cost > malt {
            break;
        }
        malt -= cost;
        pos += 1;
        n += 1;
    }
    n
}

/// WR-157 (replaces WR-086's strict test): X is passed by the active player P iff
/// start_P ≤ space_X < space_P at the declaration. A player who shared P's starting space and
/// whom P left behind was overtaken; one level with P or ahead of him was not.
pub fn is_passed(s: &State, target: Seat) -> bool {
    let Some(t) = &s.turn else { return false };
    target != t.seat
        && s.has_seat(target)
        && t.start_space <= s.pawn(target)
        && s.pawn(target) < s.pawn(t.seat)
}

/// WR-088, WR-159: an eligible vetoer for the top declaration is not its declarer and holds an
/// unused Banff not already declared in this chain. The one-whisky-per-turn limit (WR-083)
/// binds only the active player: during another player's turn a player may veto in every
/// window, once per window (the window is offered to each seat once, WR-089).
pub fn eligible_vetoer(s: &State, seat: Seat, declarer: Seat) -> bool {
    let limited = s
        .turn
        .as_ref()
        .is_some_and(|t| t.seat == seat && t.whisky_used);
    seat != declarer && s.vetoing_banffs(seat).next().is_some() && !limited
}

pub(super) fn seat_or(s: &State, seat: Seat, rule: &'static str) -> Decided {
    ensure(s.has_seat(seat), rule, || {
        says("seat_not_table").seat("seat", seat)
    })
}

pub(super) fn piece_space(s: &State, piece: Piece) -> Option<u8> {
    match piece {
        Piece::Englishman {} => Some(s.englishman),
        Piece::Pawn { seat } => s.has_seat(seat).then(|| s.pawn(seat)),
    }
}

// ---------------------------------------------------------------------------------------------
// Validation (pure; shared with `legal`)
// ---------------------------------------------------------------------------------------------

/// Checks `command` from `actor` without producing events: the game is on and the seat is
/// in it; then the command answers the innermost pending context (§5.1: a veto window D10,
/// duel bids D11, a customs tax D12), or, none being open, the phase's own decision.
pub fn check(s: &State, actor: Seat, command: &Command) -> Decided {
    ensure(s.phase != Phase::NotStarted, "WR-017", || {
        says("game_not_set_up_yet")
    })?;
    ensure(s.phase != Phase::Over, "WR-132", || says("game_over"))?;
    ensure(s.has_seat(actor), "WR-002", || {
        says("seat_actor_not_seat_game_seats")
            .seat("actor", actor)
            .arg("seats", s.seats)
    })?;
    match command {
        Command::OfferTrade { to, give, receive } => check_offer(s, actor, *to, give, receive),
        Command::AcceptTrade { offer } => check_accept(s, actor, *offer),
        Command::DeclineTrade { offer } => check_decline(s, actor, *offer),
        Command::WithdrawTrade { offer } => check_withdraw(s, actor, *offer),
        Command::Veto { banff } => check_veto(s, actor, *banff),
        Command::PassVeto {} => check_window(s, actor),
        Command::SubmitDuelBid { amount } => check_duel_bid(s, actor, *amount),
        Command::PayTax {} | Command::DiscardWhisky { .. } => check_tax(s, actor, command),
        _ => {
            no_open_interrupt(s)?;
            check_phase_command(s, actor, command)
        }
    }
}

/// WR-037, WR-038: declining an offer addressed to you, while trading is open.
fn check_decline(s: &State, actor: Seat, offer: u32) -> Decided {
    ensure(s.trading_open(), "WR-038", || says("trading_closed_now"))?;
    ensure(
        s.offers.iter().any(|o| o.id == offer && o.to == actor),
        "WR-037",
        || says("no_pending_offer_addressed_to").arg("offer", offer),
    )
}

/// WR-037, WR-038: withdrawing an offer of yours, while trading is open.
fn check_withdraw(s: &State, actor: Seat, offer: u32) -> Decided {
    ensure(s.trading_open(), "WR-038", || says("trading_closed_now"))?;
    ensure(
        s.offers.iter().any(|o| o.id == offer && o.from == actor),
        "WR-037",
        || says("no_pending_offer_yours").arg("offer", offer),
    )
}

/// D10: a veto with a Banff of yours, unused and not already in this chain.
fn check_veto(s: &State, actor: Seat, banff: MarkerId) -> Decided {
    check_window(s, actor)?;
    ensure(
        s.holds(actor, banff) && banff.kind() == Kind::Banff,
        "WR-088",
        || says("do_not_hold_banff").arg("banff", banff),
    )?;
    ensure(!s.is_used(banff), "WR-082", || {
        says("banff_already_used").arg("banff", banff)
    })?;
    // WR-159: each Banff once; one already declared in this chain is being used.
    ensure(!s.locked(banff), "WR-159", || {
        says("banff_already_declared_veto_chain").arg("banff", banff)
    })
}

/// D11 (WR-105): the duellists' sealed bids, from their supply (WR-005).
fn check_duel_bid(s: &State, actor: Seat, amount: u32) -> Decided {
    let d = s
        .duel
        .as_ref()
        .ok_or_else(|| violation("WR-105", says("no_duel_waiting_bids")))?;
    let slot = if actor == d.challenger {
        0
    } else if actor == d.defender {
        1
    } else {
        return Err(violation("WR-105", says("only_challenger_defender_bid")));
    };
    ensure(d.bids[slot].is_none(), "WR-105", || {
        says("duel_bid_already_submitted")
    })?;
    ensure(amount <= s.supply[actor.index()], "WR-005", || {
        says("duel_bid_comes_from_supply_only")
    })
}

/// D12 (WR-120, WR-122): the met player pays the tax in full or discards a whisky.
fn check_tax(s: &State, actor: Seat, command: &Command) -> Decided {
    ensure(s.decls.is_empty() && s.duel.is_none(), "WR-122", || {
        says("no_tax_decision_open_now")
    })?;
    ensure(
        s.taxes.first().map(|t| t.seat) == Some(actor),
        "WR-122",
        || says("not_tax_decision"),
    )?;
    match command {
        Command::PayTax {} => {
            // WR-155: the amount fixed when the Englishman met him.
            let t = s.taxes.first().map_or(0, |t| t.amount);
            ensure(s.supply[actor.index()] >= t, "WR-120", || {
                says("tax_no_partial_payment_allowed_discard").arg("t", t)
            })
        }
        Command::DiscardWhisky { whisky } => ensure(
            s.holds(actor, *whisky) && whisky.is_whisky(),
            "WR-120",
            || says("hold_no_whisky").arg("whisky", whisky),
        ),
        _ => Ok(()),
    }
}

/// No veto window (WR-089), duel (WR-105) or customs tax (WR-122) is pending: every other
/// command answers the innermost pending context, and none may jump it.
fn no_open_interrupt(s: &State) -> Decided {
    if let Some(top) = s.decls.last() {
        let told = match top.offered {
            Some(who) => says("veto_window_open_offered_to").seat("who", who),
            None => says("veto_window_open"),
        };
        return Err(violation("WR-089", told));
    }
    if s.duel.is_some() {
        return Err(violation("WR-105", says("duel_bids_pending")));
    }
    if let Some(t) = s.taxes.first() {
        let seat = t.seat;
        return Err(violation(
            "WR-122",
            says("customs_tax_seat_pending").seat("seat", seat),
        ));
    }
    Ok(())
}

pub(super) fn check_window(s: &State, actor: Seat) -> Decided {
    let top = s
        .decls
        .last()
        .ok_or_else(|| violation("WR-087", says("no_veto_window_open")))?;
    ensure(top.offered == Some(actor), "WR-089", || {
        says("veto_window_not_offered_to")
    })
}

/// The phase's own decisions (§3.2 setup, §3.4 planning, §3.5 ties, §3.7 the player turn,
/// §3.19 variants), once no interrupt is pending.
pub(super) fn check_phase_command(s: &State, actor: Seat, command: &Command) -> Decided {
    match command {
        Command::ReplaceSetupMarker { marker } => {
            check_d1(s, actor)?;
            ensure(
                matches!(s.loc_of(*marker), Loc::Space { .. }),
                "WR-146",
                || says("marker_not_board").arg("marker", marker),
            )?;
            ensure(!s.reserve().is_empty(), "WR-146", || says("reserve_empty"))
        }
        Command::PassReplacement {} => check_d1(s, actor),
        Command::SubmitGroupBid { amount } => check_group_bid(s, actor, *amount),
        Command::ProposeOrder { group, order } => check_proposal(s, actor, *group, order),
        Command::AcceptOrder { group, proposal } => check_acceptance(s, actor, *group, *proposal),
        Command::RefuseAgreement { group } => check_tie_member(s, actor, *group).map(|_| ()),
        Command::ChooseWhiskyGroup { group } => check_group_choice(s, actor, *group),
        Command::SubmitMaltChoice { amount } => check_malt_choice(s, actor, *amount),
        Command::Step { n } => {
            check_active(s, actor, "WR-042")?;
            check_movement(s)?;
            ensure(*n >= 1, "WR-054", || says("step_needs_1"))?;
            let can = affordable_steps(s, actor);
            ensure(*n <= can, "WR-054", || {
                says("only_can_step_affordable_now").arg("can", can)
            })
        }
        Command::FinishMovement {} => {
            check_active(s, actor, "WR-042")?;
            check_movement(s)
        }
        Command::UseWhisky { whisky, params } => check_use(s, actor, *whisky, params),
        Command::Activate { marker, action } => check_activate(s, actor, *marker, action),
        Command::EndTurn {} => {
            check_active(s, actor, "WR-042")?;
            let step = s.turn.as_ref().map(|t| t.step);
            ensure(step == Some(TurnStep::PostActivation), "WR-046", || {
                says("endturn_accepted_only_after_activation_check")
            })
        }
        Command::ChooseEnglishmanMarker { marker } => {
            ensure(d13_chooser(s) == Some(actor), "WR-153", || {
                says("do_not_choose_englishman_marker_now")
            })?;
            ensure(s.loc_of(*marker) == Loc::Offer, "WR-153", || {
                says("marker_not_offer").arg("marker", marker)
            })
        }
        // Handled in `check`.
        _ => Ok(()),
    }
}

/// §3.19 variant (WR-149): one sealed group bid, at most the starting malt.
fn check_group_bid(s: &State, actor: Seat, amount: u32) -> Decided {
    ensure(s.phase == Phase::GroupBidding, "WR-149", || {
        says("group_bids_not_open")
    })?;
    ensure(s.sealed[actor.index()].is_none(), "WR-149", || {
        says("group_bid_already_submitted")
    })?;
    let max = s.supply[actor.index()].min(board().c.starting_malt);
    ensure(amount <= max, "WR-149", || {
        says("bids_0_max").arg("max", max)
    })
}

/// §3.5 ties (the rule of `tie_rule`): a proposed order is a permutation of the whole tie group.
fn check_proposal(s: &State, actor: Seat, group: u8, order: &[Seat]) -> Decided {
    let t = check_tie_member(s, actor, group)?;
    let mut a = order.to_vec();
    a.sort();
    let mut b = t.members.clone();
    b.sort();
    ensure(a == b, tie_rule(s), || {
        says("order_must_permutation_whole_tie_group")
    })
}

/// §3.5 ties: accepting the current proposal, once.
fn check_acceptance(s: &State, actor: Seat, group: u8, proposal: u32) -> Decided {
    let t = check_tie_member(s, actor, group)?;
    ensure(
        t.proposal.is_some() && t.proposal_id == proposal,
        tie_rule(s),
        || {
            says("proposal_not_current_proposal_group")
                .arg("proposal", proposal)
                .arg("group", group)
        },
    )?;
    ensure(!t.accepted.contains(&actor), tie_rule(s), || {
        says("already_accepted_proposal")
    })
}

/// §3.19 variant (WR-151): choosing a free whisky group, in turn order.
fn check_group_choice(s: &State, actor: Seat, group: u8) -> Decided {
    ensure(
        s.phase == Phase::GroupChoice && s.ties.iter().all(|t| t.status != TieStatus::Open),
        "WR-151",
        || says("whisky_groups_not_being_chosen_now"),
    )?;
    ensure(s.order.get(s.next) == Some(&actor), "WR-151", || {
        says("not_turn_to_choose_group")
    })?;
    let g = usize::from(group);
    ensure(
        g >= 1 && g <= s.groups_taken.len() && s.groups_taken[g - 1].is_none(),
        "WR-151",
        || says("group_not_available").arg("group", group),
    )
}

/// §3.4 planning (WR-019..WR-021, WR-156): the secret malt choice.
fn check_malt_choice(s: &State, actor: Seat, amount: u32) -> Decided {
    ensure(s.phase == Phase::Planning, "WR-019", || {
        says("malt_chosen_during_planning_phase_only")
    })?;
    ensure(s.sealed[actor.index()].is_none(), "WR-021", || {
        says("choice_already_submitted_final")
    })?;
    let supply = s.supply[actor.index()];
    ensure(amount <= supply, "WR-019", || {
        says("cannot_choose_more_than_supply").arg("supply", supply)
    })?;
    ensure(amount >= 1 || supply == 0, "WR-020", || {
        says("malt_supply_must_choose_least_1")
    })?;
    // WR-156, WR-036: malt promised by your own pending offers cannot also be chosen,
    // so that those offers stay affordable whatever you chose.
    let offered = s.offered_malt(actor);
    ensure(amount + offered <= supply, "WR-156", || {
        says("pending_offers_give_offered_malt_choose")
            .arg("offered", offered)
            .arg("at_most", supply.saturating_sub(offered))
    })
}

pub(super) fn check_d1(s: &State, actor: Seat) -> Decided {
    ensure(s.phase == Phase::SetupReplacement, "WR-146", || {
        says("setup_replacements_over")
    })?;
    ensure(s.order.get(s.next) == Some(&actor), "WR-145", || {
        says("not_turn_lot_order")
    })
}

pub(super) fn tie_rule(s: &State) -> &'static str {
    if s.phase == Phase::GroupChoice {
        "WR-150"
    } else {
        "WR-027"
    }
}

pub(super) fn check_tie_member(s: &State, actor: Seat, group: u8) -> Result<&Tie, RuleViolation> {
    let rule = if s.phase == Phase::GroupChoice {
        "WR-150"
    } else {
        "WR-026"
    };
    ensure(
        matches!(s.phase, Phase::TieNegotiation | Phase::GroupChoice),
        rule,
        || says("no_tie_negotiation_open"),
    )?;
    let t = s
        .ties
        .iter()
        .find(|t| t.group == group)
        .ok_or_else(|| violation(rule, says("no_tie_group").arg("group", group)))?;
    ensure(t.members.contains(&actor), rule, || {
        says("not_member_tie_group").arg("group", group)
    })?;
    ensure(
        t.status == TieStatus::Open,
        if rule == "WR-026" { "WR-028" } else { rule },
        || says("negotiation_group_already_settled").arg("group", group),
    )?;
    Ok(t)
}

pub(super) fn check_active(s: &State, actor: Seat, rule: &'static str) -> Decided {
    ensure(
        s.phase == Phase::PlayerTurns && s.active() == Some(actor),
        rule,
        || says("not_turn"),
    )
}

pub(super) fn check_movement(s: &State) -> Decided {
    let step = s.turn.as_ref().map(|t| t.step);
    ensure(step == Some(TurnStep::Movement), "WR-043", || {
        says("movement_step_over")
    })
}

/// `UseWhisky` (§5.2): the general conditions of a use (§3.12), parameters in their one
/// canonical form (WR-084), then the whisky's own conditions (§3.14).
pub(super) fn check_use(s: &State, actor: Seat, whisky: MarkerId, p: &UseParams) -> Decided {
    check_may_use(s, actor, whisky)?;
    let kind = whisky.kind();
    check_use_params(whisky, kind, p)?;
    match kind {
        Kind::Banff => check_banff_use(s, p),
        Kind::Benromach => Ok(()),
        Kind::Coleraine => {
            let target = p
                .target
                .ok_or_else(|| violation("WR-100", says("coleraine_needs_target_player")))?;
            seat_or(s, target, "WR-100")?;
            ensure(is_passed(s, target), "WR-157", || {
                says("did_not_pass_seat_target_turn").seat("target", target)
            })
        }
        Kind::Convalmore => {
            let target = p
                .target
                .ok_or_else(|| violation("WR-101", says("convalmore_needs_target_player")))?;
            seat_or(s, target, "WR-101")?;
            ensure(is_passed(s, target), "WR-157", || {
                says("did_not_pass_seat_target_turn").seat("target", target)
            })?;
            let take = p
                .take
                .ok_or_else(|| violation("WR-101", says("convalmore_needs_whisky_to_take")))?;
            ensure(s.holds(target, take) && take.is_whisky(), "WR-101", || {
                says("seat_target_does_not_hold_take")
                    .seat("target", target)
                    .arg("take", take)
            })
        }
        Kind::GlenMhor => {
            let target = p
                .target
                .ok_or_else(|| violation("WR-104", says("glen_mhor_needs_defender")))?;
            seat_or(s, target, "WR-104")?;
            ensure(target != actor, "WR-104", || says("cannot_duel_yourself"))?;
            let take = p.take.ok_or_else(|| {
                violation("WR-104", says("glen_mhor_names_one_defender_whiskies"))
            })?;
            ensure(s.holds(target, take) && take.is_whisky(), "WR-104", || {
                says("seat_target_does_not_hold_take")
                    .seat("target", target)
                    .arg("take", take)
            })
        }
        Kind::Kinclaith => check_kinclaith_use(s, p),
        Kind::Brora | Kind::Glenlochy => Err(violation("WR-082", says("never_used"))),
        _ => Err(violation("WR-081", says("not_whisky"))),
    }
}

/// §3.12: the active player, in the movement step or after the activation, uses a whisky he
/// holds, usable and unused, once per turn.
fn check_may_use(s: &State, actor: Seat, whisky: MarkerId) -> Decided {
    check_active(s, actor, "WR-081")?;
    let t = s
        .turn
        .as_ref()
        .ok_or_else(|| violation("WR-081", says("no_turn")))?;
    ensure(
        matches!(t.step, TurnStep::Movement | TurnStep::PostActivation),
        "WR-044",
        || says("whiskies_used_during_movement_step_after"),
    )?;
    ensure(
        s.holds(actor, whisky) && whisky.is_whisky(),
        "WR-081",
        || says("do_not_hold_whisky").arg("whisky", whisky),
    )?;
    ensure(
        !matches!(whisky.kind(), Kind::Brora | Kind::Glenlochy),
        "WR-082",
        || says("whisky_never_used_actively").arg("whisky", whisky),
    )?;
    ensure(!s.is_used(whisky), "WR-082", || {
        says("whisky_used_face_down").arg("whisky", whisky)
    })?;
    ensure(t.convalmore_blocked != Some(whisky), "WR-092", || {
        says("convalmore_was_vetoed_turn")
    })?;
    // WR-083, WR-160: one whisky use per turn, a whisky reactivated at the holy place included.
    ensure(!t.whisky_used, "WR-083", || {
        says("already_declared_whisky_use_turn")
    })
}

/// WR-084: parameters a whisky does not take are refused.
fn check_use_params(whisky: MarkerId, kind: Kind, p: &UseParams) -> Decided {
    // Parse, don't validate: parameters a whisky does not take are refused, so that every
    // accepted use has one canonical form (the one `legal` lists).
    let expected = match kind {
        Kind::Banff => (false, false, true, false),
        Kind::Benromach => (false, false, false, false),
        Kind::Coleraine => (true, false, false, false),
        Kind::Convalmore | Kind::GlenMhor => (true, true, false, false),
        Kind::Kinclaith => (false, false, false, true),
        _ => (false, false, false, false),
    };
    let extra = (p.target.is_some() && !expected.0)
        || (p.take.is_some() && !expected.1)
        || (p.brora.is_some() && !expected.2)
        || ((p.piece.is_some() || p.direction.is_some()) && !expected.3);
    ensure(!extra, "WR-084", || {
        says("whisky_does_not_take_some_these").arg("whisky", whisky)
    })
}

/// WR-093, WR-095: Banff used actively suspends a Brora held by a player, once a round.
fn check_banff_use(s: &State, p: &UseParams) -> Decided {
    let b = p
        .brora
        .ok_or_else(|| violation("WR-093", says("banff_vetoes_only_through_veto_window")))?;
    let held = matches!(s.loc_of(b), Loc::Held { .. });
    ensure(b.kind() == Kind::Brora && held, "WR-095", || {
        says("not_brora_held_player").arg("b", b)
    })?;
    ensure(!s.suspended.contains(&b), "WR-095", || {
        says("already_suspended_round").arg("b", b)
    })
}

/// WR-109..WR-112: Kinclaith moves a piece not on the finish, backward only with room.
fn check_kinclaith_use(s: &State, p: &UseParams) -> Decided {
    let piece = p
        .piece
        .ok_or_else(|| violation("WR-109", says("kinclaith_needs_piece")))?;
    let dir = p
        .direction
        .ok_or_else(|| violation("WR-109", says("kinclaith_needs_direction")))?;
    let pos = piece_space(s, piece).ok_or_else(|| violation("WR-109", says("no_such_piece")))?;
    ensure(pos != s.finish(), "WR-112", || {
        says("piece_finish_never_moves_again")
    })?;
    ensure(
        dir == Direction::Forward || pos >= board().start + 2,
        "WR-111",
        || says("backward_needs_least_2_spaces_behind"),
    )
}

/// The non-decline actions possible for `marker` on the active player's space (spec §5.3).
pub fn action_legal(s: &State, actor: Seat, marker: MarkerId, action: &Action) -> Decided {
    let supply = s.supply[actor.index()];
    let c = &board().c;
    match (marker.family(), marker.kind(), action) {
        (Family::Whisky, _, Action::Buy { marker: None }) => {
            ensure(supply >= c.whisky_marker_price, "WR-067", || {
                says("whisky_marker_costs_whisky_marker_price")
                    .arg("whisky_marker_price", c.whisky_marker_price)
            })
        }
        (Family::Whisky, _, Action::Decline {}) => Ok(()),
        (Family::Whisky, _, _) => Err(violation("WR-063", says("whisky_marker_bought_declined"))),
        // WR-162: a brown marker may be the one chosen among several; it then applies, and
        // is never declined.
        (Family::Brown, _, Action::Collect {}) if s.single_activation => Ok(()),
        (Family::Brown, _, _) if s.single_activation => Err(violation(
            "WR-162",
            says("brown_marker_applies_never_declined"),
        )),
        // WR-061, WR-161 (games begun before WR-162): brown markers apply automatically;
        // they are never chosen or declined.
        (Family::Brown, _, _) => Err(violation(
            "WR-161",
            says("brown_marker_applies_automatically_never_chosen"),
        )),
        (Family::Blue, _, Action::Decline {}) => Ok(()),
        (Family::Blue, Kind::Pub, Action::Sell { whisky, .. }) => ensure(
            s.holds(actor, *whisky) && whisky.is_whisky(),
            "WR-074",
            || says("do_not_hold_whisky").arg("whisky", whisky),
        ),
        (Family::Blue, Kind::StCulabansFeast, Action::Swap { marker_a, marker_b }) => {
            match (s.loc_of(*marker_a), s.loc_of(*marker_b)) {
                (Loc::Space { space: a }, Loc::Space { space: b }) => {
                    ensure(a != b, "WR-075", || {
                        says("two_markers_must_lie_different_spaces")
                    })
                }
                _ => Err(violation("WR-075", says("both_markers_must_lie_board"))),
            }
        }
        (
            Family::Blue,
            Kind::EnglishmanMarker,
            Action::MoveEnglishman {
                direction,
                distance,
            },
        ) => {
            ensure(
                (1..=c.englishman_marker_max_steps).contains(distance),
                "WR-076",
                || says("distance_1_3"),
            )?;
            ensure(s.englishman != s.finish(), "WR-116", || {
                says("englishman_has_finished")
            })?;
            let can = match direction {
                Direction::Forward => s.englishman < s.finish(),
                Direction::Backward => s.englishman > board().start,
            };
            ensure(can, "WR-076", || says("englishman_cannot_move_direction"))
        }
        (Family::Blue, Kind::HolyPlace, Action::Reactivate { whisky }) => ensure(
            s.holds(actor, *whisky)
                && whisky.is_whisky()
                && s.is_used(*whisky)
                && !whisky.kind().is_continuous(),
            "WR-079",
            || says("whisky_not_one_used_single_use").arg("whisky", whisky),
        ),
        (Family::Blue, Kind::HolyPlace, Action::Buy { marker: Some(m) }) => {
            ensure(
                m.is_whisky() && matches!(s.loc_of(*m), Loc::Space { .. }),
                "WR-080",
                || says("not_whisky_marker_board").arg("m", m),
            )?;
            ensure(supply >= c.holy_place_whisky_price, "WR-080", || {
                says("holy_place_sells_whiskies_holy_place")
                    .arg("holy_place_whisky_price", c.holy_place_whisky_price)
            })
        }
        (Family::Blue, _, _) => Err(violation(
            "WR-063",
            says("action_does_not_belong_to_marker"),
        )),
    }
}

/// Non-decline actions of `marker` for the active `seat` (spec §5.3), each one [`action_legal`]
/// accepts: the continuation skips a marker without one, `legal` lists them.
pub fn activation_actions(s: &State, seat: Seat, marker: MarkerId) -> Vec<Action> {
    let mut out = Vec::new();
    let mut push = |a: Action| {
        if action_legal(s, seat, marker, &a).is_ok() {
            out.push(a);
        }
    };
    match (marker.family(), marker.kind()) {
        (Family::Whisky, _) => push(Action::Buy { marker: None }),
        // WR-162: a brown marker chosen among several is collected (`action_legal` refuses
        // it in games begun before WR-162, where the engine applies brown markers, WR-161).
        (Family::Brown, _) => push(Action::Collect {}),
        (Family::Blue, Kind::Pub) => {
            for w in s.whiskies_of(seat) {
                push(Action::Sell {
                    whisky: w,
                    reward: Reward::Vp,
                });
                push(Action::Sell {
                    whisky: w,
                    reward: Reward::Malt,
                });
            }
        }
        (Family::Blue, Kind::StCulabansFeast) => {
            let on_board: Vec<MarkerId> = board()
                .all_markers()
                .filter(|m| matches!(s.loc_of(*m), Loc::Space { .. }))
                .collect();
            for a in &on_board {
                for b in &on_board {
                    push(Action::Swap {
                        marker_a: *a,
                        marker_b: *b,
                    });
                }
            }
        }
        (Family::Blue, Kind::EnglishmanMarker) => {
            for direction in [Direction::Forward, Direction::Backward] {
                for distance in 1..=board().c.englishman_marker_max_steps {
                    push(Action::MoveEnglishman {
                        direction,
                        distance,
                    });
                }
            }
        }
        (Family::Blue, Kind::HolyPlace) => {
            for w in s.whiskies_of(seat) {
                push(Action::Reactivate { whisky: w });
            }
            for m in board()
                .all_markers()
                .filter(|m| m.is_whisky() && matches!(s.loc_of(*m), Loc::Space { .. }))
            {
                push(Action::Buy { marker: Some(m) });
            }
        }
        (Family::Blue, _) => {}
    }
    out
}

pub(super) fn check_activate(s: &State, actor: Seat, marker: MarkerId, action: &Action) -> Decided {
    check_active(s, actor, "WR-042")?;
    let space = s.pawn(actor);
    let here = s.loc_of(marker) == (Loc::Space { space });
    // WR-069: a whisky marker is bought only through the activation of its own space.
    let elsewhere_buy = marker.is_whisky() && matches!(action, Action::Buy { .. });
    ensure(here || !elsewhere_buy, "WR-069", || {
        says("marker_not_space").arg("marker", marker)
    })?;
    let step = s.turn.as_ref().map(|t| t.step);
    ensure(step != Some(TurnStep::PostActivation), "WR-065", || {
        says("activation_check_turn_used_up")
    })?;
    ensure(step == Some(TurnStep::Activation), "WR-058", || {
        says("activation_happens_after_finishmovement")
    })?;
    ensure(here, "WR-060", || {
        says("marker_not_space").arg("marker", marker)
    })?;
    action_legal(s, actor, marker, action)
}

pub(super) fn check_offer(
    s: &State,
    actor: Seat,
    to: Seat,
    give: &Bundle,
    receive: &Bundle,
) -> Decided {
    ensure(s.trading_open(), "WR-038", || says("trading_closed_now"))?;
    seat_or(s, to, "WR-037")?;
    ensure(to != actor, "WR-037", || says("trade_needs_another_player"))?;
    check_own_malt(s, actor, give.malt, "WR-005")?;
    // The recipient's side is checked on public figures only: his sealed choice is his own
    // business and is checked when he accepts (WR-156).
    ensure(receive.malt <= s.supply[to.index()], "WR-037", || {
        says("seat_to_has_not_much_malt").seat("to", to)
    })?;
    check_bundle_markers(s, actor, give)?;
    check_bundle_markers(s, to, receive)
}

/// The actor gives `malt` in a trade (offering or accepting). Every refusal here is about the
/// actor's own malt and goes to the actor only.
pub(super) fn check_own_malt(s: &State, actor: Seat, malt: u32, rule: &'static str) -> Decided {
    let supply = s.supply[actor.index()];
    ensure(malt <= supply, rule, || {
        says("can_give_malt_from_supply_only")
    })?;
    ensure(
        malt <= supply.saturating_sub(s.committed_malt(actor)),
        "WR-158",
        || says("malt_declared_holy_place_purchase_cannot"),
    )?;
    let tradeable = s.tradeable_malt(actor);
    ensure(malt <= tradeable, "WR-156", || {
        says("sealed_malt_choice_pending_offers_leave").arg("tradeable", tradeable)
    })
}

pub(super) fn check_bundle_markers(s: &State, owner: Seat, b: &Bundle) -> Decided {
    for (i, m) in b.markers.iter().enumerate() {
        ensure(!b.markers[..i].contains(m), "WR-037", || {
            says("listed_twice").arg("m", m)
        })?;
        ensure(m.is_whisky() || m.kind().is_checkpoint(), "WR-035", || {
            says("only_whiskies_checkpoints_traded")
        })?;
        ensure(s.holds(owner, *m), "WR-035", || {
            says("seat_owner_does_not_hold")
                .seat("owner", owner)
                .arg("m", m)
        })?;
        ensure(!s.locked(*m), "WR-040", || {
            says("named_pending_declaration").arg("m", m)
        })?;
        if let Some(taxed) = s.owed_on(*m) {
            return Err(violation(
                "WR-155",
                says("seat_taxed_owes_customs_tax_cannot")
                    .seat("taxed", taxed)
                    .arg("m", m),
            ));
        }
    }
    Ok(())
}

pub(super) fn check_accept(s: &State, actor: Seat, offer: u32) -> Decided {
    ensure(s.trading_open(), "WR-038", || says("trading_closed_now"))?;
    let o = s
        .offers
        .iter()
        .find(|o| o.id == offer && o.to == actor)
        .ok_or_else(|| {
            violation(
                "WR-037",
                says("no_pending_offer_addressed_to").arg("offer", offer),
            )
        })?;
    // WR-037: re-validate ownership and amounts at acceptance, on public figures for the
    // offerer: a sealed offerer's pending offers always fit beside his sealed choice (WR-156,
    // `State::tradeable_malt`), so his secret never decides this answer.
    let from = o.from;
    ensure(o.give.malt <= s.supply[from.index()], "WR-037", || {
        says("offerer_no_longer_has_malt")
    })?;
    ensure(
        o.give.malt <= s.supply[from.index()].saturating_sub(s.committed_malt(from)),
        "WR-158",
        || says("seat_from_malt_committed_to_declared").seat("from", from),
    )?;
    check_own_malt(s, actor, o.receive.malt, "WR-037")?;
    check_bundle_markers(s, o.from, &o.give)?;
    check_bundle_markers(s, actor, &o.receive)
}

/// Who chooses the Englishman's marker now (D13), if anybody.
pub fn d13_chooser(s: &State) -> Option<Seat> {
    let waiting = s.phase == Phase::EndOfRound
        && s.eor == Eor::Draw
        && s.options.englishman_offer
        && s.taxes.is_empty()
        && s.decls.is_empty();
    if !waiting {
        return None;
    }
    let offered = s.loc.iter().filter(|l| **l == Loc::Offer).count();
    if offered < 2 {
        return None;
    }
    s.took_turn.first().copied()
}
