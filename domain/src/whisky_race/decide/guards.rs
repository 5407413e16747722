//! Guard clauses: `check` validates a command without producing events (shared with `legal`).

use super::*;
use crate::decider::{ensure, violation};
use crate::engine::{RuleViolation, Seat};
use crate::whisky_race::board::{Family, Kind, MarkerId, board};
use crate::whisky_race::command::{Action, Bundle, Command, Direction, Piece, UseParams};

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
        format!("{seat} is not at this table")
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
        "the game is not set up yet".into()
    })?;
    ensure(s.phase != Phase::Over, "WR-132", || {
        "the game is over".into()
    })?;
    ensure(s.has_seat(actor), "WR-002", || {
        format!("{actor} is not a seat of this game (seats 1..={})", s.seats)
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
    ensure(s.trading_open(), "WR-038", || {
        "trading is closed now".into()
    })?;
    ensure(
        s.offers.iter().any(|o| o.id == offer && o.to == actor),
        "WR-037",
        || format!("no pending offer {offer} addressed to you"),
    )
}

/// WR-037, WR-038: withdrawing an offer of yours, while trading is open.
fn check_withdraw(s: &State, actor: Seat, offer: u32) -> Decided {
    ensure(s.trading_open(), "WR-038", || {
        "trading is closed now".into()
    })?;
    ensure(
        s.offers.iter().any(|o| o.id == offer && o.from == actor),
        "WR-037",
        || format!("no pending offer {offer} of yours"),
    )
}

/// D10: a veto with a Banff of yours, unused and not already in this chain.
fn check_veto(s: &State, actor: Seat, banff: MarkerId) -> Decided {
    check_window(s, actor)?;
    ensure(
        s.holds(actor, banff) && banff.kind() == Kind::Banff,
        "WR-088",
        || format!("you do not hold the Banff {banff}"),
    )?;
    ensure(!s.is_used(banff), "WR-082", || {
        format!("{banff} is already used")
    })?;
    // WR-159: each Banff once; one already declared in this chain is being used.
    ensure(!s.locked(banff), "WR-159", || {
        format!("{banff} is already declared in this veto chain")
    })
}

/// D11 (WR-105): the duellists' sealed bids, from their supply (WR-005).
fn check_duel_bid(s: &State, actor: Seat, amount: u32) -> Decided {
    let d = s
        .duel
        .as_ref()
        .ok_or_else(|| violation("WR-105", "no duel is waiting for bids"))?;
    let slot = if actor == d.challenger {
        0
    } else if actor == d.defender {
        1
    } else {
        return Err(violation(
            "WR-105",
            "only the challenger and the defender bid",
        ));
    };
    ensure(d.bids[slot].is_none(), "WR-105", || {
        "your duel bid is already submitted".into()
    })?;
    ensure(amount <= s.supply[actor.index()], "WR-005", || {
        "a duel bid comes from your supply only".into()
    })
}

/// D12 (WR-120, WR-122): the met player pays the tax in full or discards a whisky.
fn check_tax(s: &State, actor: Seat, command: &Command) -> Decided {
    ensure(s.decls.is_empty() && s.duel.is_none(), "WR-122", || {
        "no tax decision is open now".into()
    })?;
    ensure(
        s.taxes.first().map(|t| t.seat) == Some(actor),
        "WR-122",
        || "it is not your tax decision".into(),
    )?;
    match command {
        Command::PayTax {} => {
            // WR-155: the amount fixed when the Englishman met him.
            let t = s.taxes.first().map_or(0, |t| t.amount);
            ensure(s.supply[actor.index()] >= t, "WR-120", || {
                format!(
                    "the tax is {t} and no partial payment is allowed; discard a whisky instead"
                )
            })
        }
        Command::DiscardWhisky { whisky } => ensure(
            s.holds(actor, *whisky) && whisky.is_whisky(),
            "WR-120",
            || format!("you hold no whisky {whisky}"),
        ),
        _ => Ok(()),
    }
}

/// No veto window (WR-089), duel (WR-105) or customs tax (WR-122) is pending: every other
/// command answers the innermost pending context, and none may jump it.
fn no_open_interrupt(s: &State) -> Decided {
    if let Some(top) = s.decls.last() {
        let who = top.offered.map(|o| o.to_string()).unwrap_or_default();
        return Err(violation(
            "WR-089",
            format!("a veto window is open (offered to {who})"),
        ));
    }
    if s.duel.is_some() {
        return Err(violation("WR-105", "duel bids are pending"));
    }
    if let Some(t) = s.taxes.first() {
        let seat = t.seat;
        return Err(violation(
            "WR-122",
            format!("the customs tax of {seat} is pending"),
        ));
    }
    Ok(())
}

pub(super) fn check_window(s: &State, actor: Seat) -> Decided {
    let top = s
        .decls
        .last()
        .ok_or_else(|| violation("WR-087", "no veto window is open"))?;
    ensure(top.offered == Some(actor), "WR-089", || {
        "the veto window is not offered to you".into()
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
                || format!("{marker} is not on the board"),
            )?;
            ensure(!s.reserve().is_empty(), "WR-146", || {
                "the reserve is empty".into()
            })
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
            ensure(*n >= 1, "WR-054", || "Step needs n ≥ 1".into())?;
            let can = affordable_steps(s, actor);
            ensure(*n <= can, "WR-054", || {
                format!("only {can} step(s) are affordable now")
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
                "EndTurn is accepted only after the activation check".into()
            })
        }
        Command::ChooseEnglishmanMarker { marker } => {
            ensure(d13_chooser(s) == Some(actor), "WR-153", || {
                "you do not choose the Englishman's marker now".into()
            })?;
            ensure(s.loc_of(*marker) == Loc::Offer, "WR-153", || {
                format!("{marker} is not in the offer")
            })
        }
        // Handled in `check`.
        _ => Ok(()),
    }
}

/// §3.19 variant (WR-149): one sealed group bid, at most the starting malt.
fn check_group_bid(s: &State, actor: Seat, amount: u32) -> Decided {
    ensure(s.phase == Phase::GroupBidding, "WR-149", || {
        "group bids are not open".into()
    })?;
    ensure(s.sealed[actor.index()].is_none(), "WR-149", || {
        "your group bid is already submitted".into()
    })?;
    let max = s.supply[actor.index()].min(board().c.starting_malt);
    ensure(amount <= max, "WR-149", || format!("bids are 0..={max}"))
}

/// §3.5 ties (the rule of `tie_rule`): a proposed order is a permutation of the whole tie group.
fn check_proposal(s: &State, actor: Seat, group: u8, order: &[Seat]) -> Decided {
    let t = check_tie_member(s, actor, group)?;
    let mut a = order.to_vec();
    a.sort();
    let mut b = t.members.clone();
    b.sort();
    ensure(a == b, tie_rule(s), || {
        "the order must be a permutation of the whole tie group".into()
    })
}

/// §3.5 ties: accepting the current proposal, once.
fn check_acceptance(s: &State, actor: Seat, group: u8, proposal: u32) -> Decided {
    let t = check_tie_member(s, actor, group)?;
    ensure(
        t.proposal.is_some() && t.proposal_id == proposal,
        tie_rule(s),
        || format!("proposal {proposal} is not the current proposal of group {group}"),
    )?;
    ensure(!t.accepted.contains(&actor), tie_rule(s), || {
        "you already accepted this proposal".into()
    })
}

/// §3.19 variant (WR-151): choosing a free whisky group, in turn order.
fn check_group_choice(s: &State, actor: Seat, group: u8) -> Decided {
    ensure(
        s.phase == Phase::GroupChoice && s.ties.iter().all(|t| t.status != TieStatus::Open),
        "WR-151",
        || "whisky groups are not being chosen now".into(),
    )?;
    ensure(s.order.get(s.next) == Some(&actor), "WR-151", || {
        "it is not your turn to choose a group".into()
    })?;
    let g = usize::from(group);
    ensure(
        g >= 1 && g <= s.groups_taken.len() && s.groups_taken[g - 1].is_none(),
        "WR-151",
        || format!("group {group} is not available"),
    )
}

/// §3.4 planning (WR-019..WR-021, WR-156): the secret malt choice.
fn check_malt_choice(s: &State, actor: Seat, amount: u32) -> Decided {
    ensure(s.phase == Phase::Planning, "WR-019", || {
        "malt is chosen during the planning phase only".into()
    })?;
    ensure(s.sealed[actor.index()].is_none(), "WR-021", || {
        "your choice is already submitted and final".into()
    })?;
    let supply = s.supply[actor.index()];
    ensure(amount <= supply, "WR-019", || {
        format!("you cannot choose more than your supply ({supply})")
    })?;
    ensure(amount >= 1 || supply == 0, "WR-020", || {
        "with malt in supply you must choose at least 1".into()
    })?;
    // WR-156, WR-036: malt promised by your own pending offers cannot also be chosen,
    // so that those offers stay affordable whatever you chose.
    let offered = s.offered_malt(actor);
    ensure(amount + offered <= supply, "WR-156", || {
        format!(
            "your pending offers give {offered} malt: choose at most {} or withdraw an offer",
            supply.saturating_sub(offered)
        )
    })
}

pub(super) fn check_d1(s: &State, actor: Seat) -> Decided {
    ensure(s.phase == Phase::SetupReplacement, "WR-146", || {
        "setup replacements are over".into()
    })?;
    ensure(s.order.get(s.next) == Some(&actor), "WR-145", || {
        "it is not your turn in the lot order".into()
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
        || "no tie negotiation is open".into(),
    )?;
    let t = s
        .ties
        .iter()
        .find(|t| t.group == group)
        .ok_or_else(|| violation(rule, format!("no tie group {group}")))?;
    ensure(t.members.contains(&actor), rule, || {
        format!("you are not a member of tie group {group}")
    })?;
    ensure(
        t.status == TieStatus::Open,
        if rule == "WR-026" { "WR-028" } else { rule },
        || format!("the negotiation of group {group} is already settled"),
    )?;
    Ok(t)
}

pub(super) fn check_active(s: &State, actor: Seat, rule: &'static str) -> Decided {
    ensure(
        s.phase == Phase::PlayerTurns && s.active() == Some(actor),
        rule,
        || "it is not your turn".into(),
    )
}

pub(super) fn check_movement(s: &State) -> Decided {
    let step = s.turn.as_ref().map(|t| t.step);
    ensure(step == Some(TurnStep::Movement), "WR-043", || {
        "your movement step is over".into()
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
                .ok_or_else(|| violation("WR-100", "Coleraine needs a target player"))?;
            seat_or(s, target, "WR-100")?;
            ensure(is_passed(s, target), "WR-157", || {
                format!("you did not pass {target} this turn")
            })
        }
        Kind::Convalmore => {
            let target = p
                .target
                .ok_or_else(|| violation("WR-101", "Convalmore needs a target player"))?;
            seat_or(s, target, "WR-101")?;
            ensure(is_passed(s, target), "WR-157", || {
                format!("you did not pass {target} this turn")
            })?;
            let take = p
                .take
                .ok_or_else(|| violation("WR-101", "Convalmore needs the whisky to take"))?;
            ensure(s.holds(target, take) && take.is_whisky(), "WR-101", || {
                format!("{target} does not hold {take}")
            })
        }
        Kind::GlenMhor => {
            let target = p
                .target
                .ok_or_else(|| violation("WR-104", "Glen Mhor needs a defender"))?;
            seat_or(s, target, "WR-104")?;
            ensure(target != actor, "WR-104", || {
                "you cannot duel yourself".into()
            })?;
            let take = p.take.ok_or_else(|| {
                violation("WR-104", "Glen Mhor names one of the defender's whiskies")
            })?;
            ensure(s.holds(target, take) && take.is_whisky(), "WR-104", || {
                format!("{target} does not hold {take}")
            })
        }
        Kind::Kinclaith => check_kinclaith_use(s, p),
        Kind::Brora | Kind::Glenlochy => Err(violation("WR-082", "never used")),
        _ => Err(violation("WR-081", "not a whisky")),
    }
}

/// §3.12: the active player, in the movement step or after the activation, uses a whisky he
/// holds, usable and unused, once per turn.
fn check_may_use(s: &State, actor: Seat, whisky: MarkerId) -> Decided {
    check_active(s, actor, "WR-081")?;
    let t = s
        .turn
        .as_ref()
        .ok_or_else(|| violation("WR-081", "no turn"))?;
    ensure(
        matches!(t.step, TurnStep::Movement | TurnStep::PostActivation),
        "WR-044",
        || "whiskies are used during the movement step or after the activation".into(),
    )?;
    ensure(
        s.holds(actor, whisky) && whisky.is_whisky(),
        "WR-081",
        || format!("you do not hold {whisky}"),
    )?;
    ensure(
        !matches!(whisky.kind(), Kind::Brora | Kind::Glenlochy),
        "WR-082",
        || format!("{whisky} is never used actively"),
    )?;
    ensure(!s.is_used(whisky), "WR-082", || {
        format!("{whisky} is used (face down)")
    })?;
    ensure(t.convalmore_blocked != Some(whisky), "WR-092", || {
        "this Convalmore was vetoed this turn".into()
    })?;
    // WR-083, WR-160: one whisky use per turn, a whisky reactivated at the holy place included.
    ensure(!t.whisky_used, "WR-083", || {
        "you already declared a whisky use this turn".into()
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
        format!("{whisky} does not take some of these parameters")
    })
}

/// WR-093, WR-095: Banff used actively suspends a Brora held by a player, once a round.
fn check_banff_use(s: &State, p: &UseParams) -> Decided {
    let b = p.brora.ok_or_else(|| {
        violation(
            "WR-093",
            "Banff vetoes only through a veto window, or suspends a Brora",
        )
    })?;
    let held = matches!(s.loc_of(b), Loc::Held { .. });
    ensure(b.kind() == Kind::Brora && held, "WR-095", || {
        format!("{b} is not a Brora held by a player")
    })?;
    ensure(!s.suspended.contains(&b), "WR-095", || {
        format!("{b} is already suspended this round")
    })
}

/// WR-109..WR-112: Kinclaith moves a piece not on the finish, backward only with room.
fn check_kinclaith_use(s: &State, p: &UseParams) -> Decided {
    let piece = p
        .piece
        .ok_or_else(|| violation("WR-109", "Kinclaith needs a piece"))?;
    let dir = p
        .direction
        .ok_or_else(|| violation("WR-109", "Kinclaith needs a direction"))?;
    let pos = piece_space(s, piece).ok_or_else(|| violation("WR-109", "no such piece"))?;
    ensure(pos != s.finish(), "WR-112", || {
        "a piece on the finish never moves again".into()
    })?;
    ensure(
        dir == Direction::Forward || pos >= board().start + 2,
        "WR-111",
        || "backward needs at least 2 spaces behind the piece".into(),
    )
}

/// The non-decline actions possible for `marker` on the active player's space (spec §5.3).
pub fn action_legal(s: &State, actor: Seat, marker: MarkerId, action: &Action) -> Decided {
    let supply = s.supply[actor.index()];
    let c = &board().c;
    match (marker.family(), marker.kind(), action) {
        (Family::Whisky, _, Action::Buy { marker: None }) => {
            ensure(supply >= c.whisky_marker_price, "WR-067", || {
                format!("a whisky marker costs {}", c.whisky_marker_price)
            })
        }
        (Family::Whisky, _, Action::Decline {}) => Ok(()),
        (Family::Whisky, _, _) => Err(violation("WR-063", "a whisky marker is bought or declined")),
        // WR-061, WR-161: brown markers apply automatically; they are never chosen or declined.
        (Family::Brown, _, _) => Err(violation(
            "WR-161",
            "a brown marker applies automatically; it is never chosen or declined",
        )),
        (Family::Blue, _, Action::Decline {}) => Ok(()),
        (Family::Blue, Kind::Pub, Action::Sell { whisky, .. }) => ensure(
            s.holds(actor, *whisky) && whisky.is_whisky(),
            "WR-074",
            || format!("you do not hold {whisky}"),
        ),
        (Family::Blue, Kind::StCulabansFeast, Action::Swap { marker_a, marker_b }) => {
            match (s.loc_of(*marker_a), s.loc_of(*marker_b)) {
                (Loc::Space { space: a }, Loc::Space { space: b }) => {
                    ensure(a != b, "WR-075", || {
                        "the two markers must lie on different spaces".into()
                    })
                }
                _ => Err(violation("WR-075", "both markers must lie on the board")),
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
                || "distance is 1..=3".into(),
            )?;
            ensure(s.englishman != s.finish(), "WR-116", || {
                "the Englishman has finished".into()
            })?;
            let can = match direction {
                Direction::Forward => s.englishman < s.finish(),
                Direction::Backward => s.englishman > board().start,
            };
            ensure(can, "WR-076", || {
                "the Englishman cannot move in that direction".into()
            })
        }
        (Family::Blue, Kind::HolyPlace, Action::Reactivate { whisky }) => ensure(
            s.holds(actor, *whisky)
                && whisky.is_whisky()
                && s.is_used(*whisky)
                && !whisky.kind().is_continuous(),
            "WR-079",
            || format!("{whisky} is not one of your used single-use whiskies"),
        ),
        (Family::Blue, Kind::HolyPlace, Action::Buy { marker: Some(m) }) => {
            ensure(
                m.is_whisky() && matches!(s.loc_of(*m), Loc::Space { .. }),
                "WR-080",
                || format!("{m} is not a whisky marker on the board"),
            )?;
            ensure(supply >= c.holy_place_whisky_price, "WR-080", || {
                format!(
                    "the holy place sells whiskies for {}",
                    c.holy_place_whisky_price
                )
            })
        }
        (Family::Blue, _, _) => Err(violation(
            "WR-063",
            "that action does not belong to this marker",
        )),
    }
}

pub(super) fn check_activate(s: &State, actor: Seat, marker: MarkerId, action: &Action) -> Decided {
    check_active(s, actor, "WR-042")?;
    let space = s.pawn(actor);
    let here = s.loc_of(marker) == (Loc::Space { space });
    // WR-069: a whisky marker is bought only through the activation of its own space.
    let elsewhere_buy = marker.is_whisky() && matches!(action, Action::Buy { .. });
    ensure(here || !elsewhere_buy, "WR-069", || {
        format!("{marker} is not on your space")
    })?;
    let step = s.turn.as_ref().map(|t| t.step);
    ensure(step != Some(TurnStep::PostActivation), "WR-065", || {
        "the activation check of this turn is used up".into()
    })?;
    ensure(step == Some(TurnStep::Activation), "WR-058", || {
        "activation happens after FinishMovement".into()
    })?;
    ensure(here, "WR-060", || format!("{marker} is not on your space"))?;
    action_legal(s, actor, marker, action)
}

pub(super) fn check_offer(
    s: &State,
    actor: Seat,
    to: Seat,
    give: &Bundle,
    receive: &Bundle,
) -> Decided {
    ensure(s.trading_open(), "WR-038", || {
        "trading is closed now".into()
    })?;
    seat_or(s, to, "WR-037")?;
    ensure(to != actor, "WR-037", || {
        "a trade needs another player".into()
    })?;
    check_own_malt(s, actor, give.malt, "WR-005")?;
    // The recipient's side is checked on public figures only: his sealed choice is his own
    // business and is checked when he accepts (WR-156).
    ensure(receive.malt <= s.supply[to.index()], "WR-037", || {
        format!("{to} has not that much malt in supply")
    })?;
    check_bundle_markers(s, actor, give)?;
    check_bundle_markers(s, to, receive)
}

/// The actor gives `malt` in a trade (offering or accepting). Every refusal here is about the
/// actor's own malt and goes to the actor only.
pub(super) fn check_own_malt(s: &State, actor: Seat, malt: u32, rule: &'static str) -> Decided {
    let supply = s.supply[actor.index()];
    ensure(malt <= supply, rule, || {
        "you can give malt from your supply only".into()
    })?;
    ensure(
        malt <= supply.saturating_sub(s.committed_malt(actor)),
        "WR-158",
        || "the malt of your declared holy-place purchase cannot be traded".into(),
    )?;
    let tradeable = s.tradeable_malt(actor);
    ensure(malt <= tradeable, "WR-156", || {
        format!(
            "your sealed malt choice and your pending offers leave you {tradeable} malt to trade"
        )
    })
}

pub(super) fn check_bundle_markers(s: &State, owner: Seat, b: &Bundle) -> Decided {
    for (i, m) in b.markers.iter().enumerate() {
        ensure(!b.markers[..i].contains(m), "WR-037", || {
            format!("{m} is listed twice")
        })?;
        ensure(m.is_whisky() || m.kind().is_checkpoint(), "WR-035", || {
            "only whiskies and checkpoints are traded".into()
        })?;
        ensure(s.holds(owner, *m), "WR-035", || {
            format!("{owner} does not hold {m}")
        })?;
        ensure(!s.locked(*m), "WR-040", || {
            format!("{m} is named in a pending declaration")
        })?;
        if let Some(taxed) = s.owed_on(*m) {
            return Err(violation(
                "WR-155",
                format!("{taxed} owes the customs tax on {m}: it cannot change hands until paid"),
            ));
        }
    }
    Ok(())
}

pub(super) fn check_accept(s: &State, actor: Seat, offer: u32) -> Decided {
    ensure(s.trading_open(), "WR-038", || {
        "trading is closed now".into()
    })?;
    let o = s
        .offers
        .iter()
        .find(|o| o.id == offer && o.to == actor)
        .ok_or_else(|| {
            violation(
                "WR-037",
                format!("no pending offer {offer} addressed to you"),
            )
        })?;
    // WR-037: re-validate ownership and amounts at acceptance, on public figures for the
    // offerer: a sealed offerer's pending offers always fit beside his sealed choice (WR-156,
    // `State::tradeable_malt`), so his secret never decides this answer.
    let from = o.from;
    ensure(o.give.malt <= s.supply[from.index()], "WR-037", || {
        "the offerer no longer has that malt".into()
    })?;
    ensure(
        o.give.malt <= s.supply[from.index()].saturating_sub(s.committed_malt(from)),
        "WR-158",
        || format!("{from}'s malt is committed to a declared holy-place purchase"),
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
