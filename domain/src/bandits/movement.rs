//! Path rules (§3.6, §3.11, §3.12, §3.15): validating a given path with the rule ID of the
//! first broken rule, and enumerating legal paths (for `legal`, the bots and the "is there a
//! legal move" checks that open or skip decisions).

use super::board::{EdgeType, Node, Zone, board};
use super::state::{Pawn, State, SupportKind};
use crate::decider::{Says, says};
use crate::engine::RuleViolation;

/// Ticket state of a moving pawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tk {
    None,
    Single,
    Day,
}

impl Tk {
    pub fn of(kind: SupportKind) -> Tk {
        match kind {
            SupportKind::TicketSingle => Tk::Single,
            SupportKind::TicketDay => Tk::Day,
            _ => Tk::None,
        }
    }
}

/// How the final node is occupied (BD-085).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Empty,
    /// Opponents only: a fight, or a Sur le dos.
    Opponent,
    /// Holds an own pawn: only with a Sur le dos.
    Own,
}

/// The cards a move names (kinds only; the caller checks ids and usability).
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveCards {
    pub ticket: Option<SupportKind>,
    pub jetpacks: usize,
    pub piggy: bool,
}

/// What a validated path needs / does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathInfo {
    pub end: End,
    /// Occupied village properties flown over (BD-250).
    pub jetpacks: usize,
    /// Entered Huntington with the named ticket.
    pub entered: bool,
    /// Opponent pawns on the path (rampage captures), in path order.
    pub captured: Vec<Pawn>,
}

fn rv(rule: &'static str, msg: Says) -> RuleViolation {
    RuleViolation::said(rule, msg)
}

/// One step's edge rule (BD-082, BD-190–BD-193, BD-210). Returns the new ticket state.
/// BD-509: a bottom carrying riders steps like any pawn (BD-389 is gone).
pub fn step_rule(
    pawn: Pawn,
    from: Node,
    to: Node,
    tk: Tk,
    played: Tk,
) -> Result<Tk, RuleViolation> {
    let b = board();
    let Some((ty, colour)) = b.step(from, to) else {
        return Err(rv(
            "BD-082",
            says("from_to_not_step_board")
                .arg("from", from.name())
                .arg("to", to.name()),
        ));
    };
    match ty {
        EdgeType::Ring => Ok(tk),
        EdgeType::HuntEntry => {
            if tk == Tk::None && played != Tk::None {
                Ok(played)
            } else if tk != Tk::None {
                Err(rv("BD-257", says("pawn_has_most_one_ticket")))
            } else {
                Err(rv(
                    "BD-190",
                    says("entering_huntington_needs_usable_ticket"),
                ))
            }
        }
        EdgeType::Tram if tk != Tk::None => Ok(tk),
        EdgeType::Tram => Err(rv("BD-190", says("riding_tram_line_needs_ticket"))),
        EdgeType::TramBack if tk == Tk::Day => Ok(tk),
        EdgeType::TramBack => Err(rv("BD-192", says("only_day_ticket_rides_line_backwards"))),
        EdgeType::Yellow if tk == Tk::Day => Ok(tk),
        EdgeType::Yellow => Err(rv("BD-192", says("only_day_ticket_changes_lines"))),
        EdgeType::HuntExit => Ok(Tk::None),
        EdgeType::VillageEntry | EdgeType::Lane | EdgeType::Village => {
            if colour != Some(pawn.colour()) {
                Err(rv(
                    "BD-210",
                    says("only_colour_pawns_enter_village")
                        .arg("colour", colour.map_or("?", |c| c.name())),
                ))
            } else {
                Ok(tk)
            }
        }
        EdgeType::Release | EdgeType::Pile => {
            Err(rv("BD-082", says("release_pile_links_not_used_moves")))
        }
    }
}

/// Classifies the final node for the mover's owner, ignoring `ignore` (rampage captures).
fn end_kind(st: &State, pawn: Pawn, node: Node, ignore_opponents: bool) -> End {
    let owner = st.owner(pawn);
    let mut own = false;
    let mut opp = false;
    for &p in st.at(node) {
        if p == pawn {
            continue;
        }
        if st.owner(p) == owner {
            own = true;
        } else {
            opp = true;
        }
    }
    if own {
        End::Own
    } else if opp && !ignore_opponents {
        End::Opponent
    } else {
        End::Empty
    }
}

/// Checks the final node against BD-085, BD-215, BD-380, and BD-518 (BD-381 in games begun
/// before it).
pub fn check_end(st: &State, end: End, node: Node, piggy: bool) -> Result<(), RuleViolation> {
    let zone = board().info(node).zone;
    match end {
        End::Empty if piggy => Err(rv("BD-380", says("sur_le_dos_needs_occupied_final"))),
        End::Empty => Ok(()),
        // BD-518: a Sur le dos makes any occupied end legal (ring, Huntington, lane, property);
        // without one, an own pawn there makes it illegal. (Only the village's own colour ever
        // stands on its lane and properties, so their pawns are always own pawns.)
        _ if st.piggyback_anywhere => match (end, piggy) {
            (End::Own, false) if zone == Zone::Village => {
                Err(rv("BD-215", says("final_node_holds_own_pawn_only")))
            }
            (End::Own, false) => Err(rv("BD-085", says("final_node_holds_own_pawn_only"))),
            _ => Ok(()),
        },
        _ if zone == Zone::Village => Err(rv("BD-215", says("move_may_not_end_occupied_property"))),
        _ if piggy && zone != Zone::Ring => Err(rv("BD-381", says("sur_le_dos_played_ring_nodes"))),
        End::Own if !piggy => Err(rv("BD-085", says("final_node_holds_own_pawn_only"))),
        _ => Ok(()),
    }
}

/// A path walked step by step: the ticket state, whether the named ticket entered
/// Huntington, the occupied properties flown over, where the pawn is.
struct Stepper {
    tk: Tk,
    played: Tk,
    entered: bool,
    jets: usize,
    cur: Node,
}

impl Stepper {
    /// From the pawn's node with the ticket it holds in Huntington and the one it plays.
    fn start(st: &State, pawn: Pawn, cards: MoveCards) -> Stepper {
        let active = st
            .active_ticket(pawn)
            .map(|t| Tk::of(t.card.kind()))
            .unwrap_or(Tk::None);
        Stepper {
            tk: if st.in_huntington(pawn) {
                active
            } else {
                Tk::None
            },
            played: cards.ticket.map(Tk::of).unwrap_or(Tk::None),
            entered: false,
            jets: 0,
            cur: st.pos(pawn),
        }
    }

    /// Step `i` of `path`, onto `to`: never twice on a node (BD-083), along a step its ticket
    /// allows (BD-082, BD-190–BD-193, BD-210); an occupied property before the end needs a
    /// Jet-pack (BD-215, BD-250).
    fn step(
        &mut self,
        st: &State,
        pawn: Pawn,
        path: &[Node],
        i: usize,
        to: Node,
    ) -> Result<(), RuleViolation> {
        if to == st.pos(pawn) || path[..i].contains(&to) {
            return Err(rv(
                "BD-083",
                says("to_entered_twice_start").arg("to", to.name()),
            ));
        }
        let before = self.tk;
        self.tk = step_rule(pawn, self.cur, to, self.tk, self.played)?;
        if before == Tk::None && self.tk != Tk::None {
            self.entered = true;
        }
        if i + 1 < path.len() && board().info(to).zone == Zone::Village && !st.at(to).is_empty() {
            self.jets += 1;
        }
        self.cur = to;
        Ok(())
    }

    /// BD-257: a named ticket is played only by the move that enters Huntington.
    fn check_ticket(&self, cards: MoveCards) -> Result<(), RuleViolation> {
        if cards.ticket.is_some() && !self.entered {
            return Err(rv(
                "BD-257",
                says("ticket_played_only_move_enters_huntington"),
            ));
        }
        Ok(())
    }
}

/// Validates a path move of `pawn` for a roll of `value` (BD-080–BD-087, BD-213–BD-215,
/// BD-250). `exact_only`: no up-to rule (never used: colour bonuses cannot reach a village).
pub fn check_path(
    st: &State,
    pawn: Pawn,
    path: &[Node],
    value: u8,
    cards: MoveCards,
) -> Result<PathInfo, RuleViolation> {
    if path.is_empty() {
        return Err(rv("BD-081", says("move_has_least_one_step")));
    }
    if path.len() > 200 {
        return Err(rv("BD-081", says("path_too_long")));
    }
    let mut walk = Stepper::start(st, pawn, cards);
    for (i, &to) in path.iter().enumerate() {
        walk.step(st, pawn, path, i, to)?;
    }
    walk.check_ticket(cards)?;
    let last = walk.cur;
    check_length(
        path.len(),
        value,
        board().is_property_of(last, pawn.colour()),
    )?;
    let jets = walk.jets;
    if jets > cards.jetpacks {
        return Err(rv(
            "BD-215",
            says("jets_occupied_properties_need_jets_jet").arg("jets", jets),
        ));
    }
    if jets < cards.jetpacks {
        return Err(rv("BD-251", says("jet_packs_needed_only_over_occupied")));
    }
    let end = end_kind(st, pawn, last, false);
    check_end(st, end, last, cards.piggy)?;
    Ok(PathInfo {
        end,
        jetpacks: jets,
        entered: walk.entered,
        captured: Vec::new(),
    })
}

/// BD-081: a move is exactly as long as the roll, except that it may stop short on an own
/// property (BD-213: up to the value).
fn check_length(len: usize, value: u8, own_property: bool) -> Result<(), RuleViolation> {
    if own_property {
        // BD-213: up to the value when ending on an own property.
        if len > usize::from(value) {
            return Err(rv("BD-213", says("most_value_steps").arg("value", value)));
        }
    } else if len != usize::from(value) {
        return Err(rv(
            "BD-081",
            says("path_has_len_steps_value_required")
                .arg("len", len)
                .arg("value", value),
        ));
    }
    Ok(())
}

/// Validates a rampage path (BD-340) for total `total`.
pub fn check_rampage(
    st: &State,
    pawn: Pawn,
    path: &[Node],
    total: u8,
    cards: MoveCards,
) -> Result<PathInfo, RuleViolation> {
    if path.is_empty() || path.len() > 200 {
        return Err(rv("BD-340", says("rampage_path_empty_too_long")));
    }
    let mut walk = Stepper::start(st, pawn, cards);
    let mut budget = i32::from(total);
    let mut captured = Vec::new();
    let owner = st.owner(pawn);
    for (i, &to) in path.iter().enumerate() {
        if budget <= 0 {
            return Err(rv("BD-340", says("pawn_stops_moment_steps_run_out")));
        }
        walk.step(st, pawn, path, i, to)?;
        budget -= 1;
        // BD-340: every opponent met is captured and gives 3 more steps.
        for &p in st.at(to) {
            if st.owner(p) != owner {
                captured.push(p);
                budget += 3;
            }
        }
    }
    walk.check_ticket(cards)?;
    let cur = walk.cur;
    let own_property = board().is_property_of(cur, pawn.colour());
    // BD-512: the total must be used; the 3 extra steps per capture may be (the pawn may
    // stop earlier). The up-to rule of the own village still applies (BD-213).
    if path.len() < usize::from(total) && !own_property {
        return Err(rv(
            "BD-512",
            says("rolled_total_must_used").arg("total", total),
        ));
    }
    if walk.jets != cards.jetpacks {
        return Err(rv("BD-250", says("one_jet_pack_per_occupied_property")));
    }
    let end = end_kind(st, pawn, cur, true);
    check_end(st, end, cur, cards.piggy)?;
    Ok(PathInfo {
        end,
        jetpacks: walk.jets,
        entered: walk.entered,
        captured,
    })
}

/// A legal path found by enumeration, with the cards it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub path: Vec<Node>,
    /// Ticket kind played to enter Huntington, if any.
    pub ticket: Option<SupportKind>,
    pub jetpacks: usize,
    pub end: End,
}

impl Candidate {
    /// Needs no card at all.
    pub fn card_free(&self) -> bool {
        self.ticket.is_none() && self.jetpacks == 0 && self.end != End::Own
    }
}

/// Length rule for enumeration.
#[derive(Clone, Copy, Debug)]
pub enum Len {
    /// Exactly `v` (or up to `v` into the own village).
    Exact(u8),
    /// Any length 1..=v (distribute shares).
    UpTo(u8),
    /// Rampage with total T.
    Rampage(u8),
}

/// Caps enumeration work (documented in the docs: `legal` lists at most this many paths per
/// pawn and ticket choice).
pub const MAX_PATHS: usize = 400;

/// Enumerates legal paths of `pawn` (tickets: none, single, day when `tickets`), ignoring
/// which card ids the player holds.
pub fn candidates(st: &State, pawn: Pawn, len: Len, tickets: bool) -> Vec<Candidate> {
    candidates_up_to(st, pawn, len, tickets, MAX_PATHS)
}

/// [`candidates`] with at most `cap` paths per ticket kind (`usize::MAX`: every path, as the
/// exact `choices` need).
pub fn candidates_up_to(
    st: &State,
    pawn: Pawn,
    len: Len,
    tickets: bool,
    cap: usize,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    let start = st.pos(pawn);
    let active = st
        .active_ticket(pawn)
        .map(|t| Tk::of(t.card.kind()))
        .unwrap_or(Tk::None);
    let tk = if st.in_huntington(pawn) {
        active
    } else {
        Tk::None
    };
    let mut choices = vec![Tk::None];
    if tickets && tk == Tk::None {
        choices.push(Tk::Single);
        choices.push(Tk::Day);
    }
    for played in choices {
        let mut path = Vec::new();
        let budget = match len {
            Len::Exact(v) | Len::UpTo(v) | Len::Rampage(v) => i32::from(v),
        };
        let mut w = Walk {
            st,
            pawn,
            start,
            len,
            played,
            out: &mut out,
            found: 0,
            cap,
        };
        w.dfs(start, tk, &mut path, budget, 0);
    }
    out
}

struct Walk<'a> {
    st: &'a State,
    pawn: Pawn,
    start: Node,
    len: Len,
    played: Tk,
    out: &'a mut Vec<Candidate>,
    found: usize,
    cap: usize,
}

impl Walk<'_> {
    fn dfs(&mut self, cur: Node, tk: Tk, path: &mut Vec<Node>, budget: i32, jets: usize) {
        if budget <= 0 || self.found >= self.cap {
            return;
        }
        let b = board();
        for &(to, _, _) in &b.out[cur.idx()] {
            if to == self.start || path.contains(&to) {
                continue;
            }
            let Ok(ntk) = step_rule(self.pawn, cur, to, tk, self.played) else {
                continue;
            };
            path.push(to);
            let mut nb = budget - 1;
            if let Len::Rampage(_) = self.len {
                let owner = self.st.owner(self.pawn);
                nb += 3 * self
                    .st
                    .at(to)
                    .iter()
                    .filter(|&&p| self.st.owner(p) != owner)
                    .count() as i32;
            }
            let info = b.info(to);
            let own_property = b.is_property_of(to, self.pawn.colour());
            let occupied = !self.st.at(to).is_empty();
            // Does this prefix qualify as a whole path?
            let length_ok = match self.len {
                Len::Exact(_) => nb == 0 || (own_property && nb >= 0),
                Len::UpTo(_) => nb >= 0,
                // BD-512: at least the total, at most the total plus 3 per capture.
                Len::Rampage(t) => nb >= 0 && (path.len() >= usize::from(t) || own_property),
            };
            let used_ticket = self.played == Tk::None || ticket_used(path, self.start);
            if length_ok && used_ticket {
                let end = end_kind(self.st, self.pawn, to, matches!(self.len, Len::Rampage(_)));
                if check_end(self.st, end, to, end == End::Own).is_ok() {
                    self.found += 1;
                    self.out.push(Candidate {
                        path: path.clone(),
                        ticket: match self.played {
                            Tk::Single => Some(SupportKind::TicketSingle),
                            Tk::Day => Some(SupportKind::TicketDay),
                            Tk::None => None,
                        },
                        jetpacks: jets,
                        end,
                    });
                }
            }
            let njets = jets + usize::from(info.zone == super::board::Zone::Village && occupied);
            self.dfs(to, ntk, path, nb, njets);
            path.pop();
        }
    }
}

/// Whether the path took a `hunt_entry` step (so a played ticket was used).
fn ticket_used(path: &[Node], start: Node) -> bool {
    let b = board();
    let mut cur = start;
    for &n in path {
        if matches!(b.step(cur, n), Some((EdgeType::HuntEntry, _))) {
            return true;
        }
        cur = n;
    }
    false
}
