//! Test helpers: a fixture builder that sets up a position directly (pawns, cards, decks,
//! whose turn), then plays commands with scripted dice (`ScriptedRng::dice`).

use crate::bandits::board::Node;
use crate::bandits::decide::awaiting;
use crate::bandits::state::*;
use crate::bandits::*;
pub use crate::decider::spec::Spec;
use crate::engine::*;

pub fn n(id: &str) -> Node {
    Node::parse(id).unwrap_or_else(|| panic!("no node {id}"))
}
pub fn p(id: &str) -> Pawn {
    Pawn::parse(id).unwrap_or_else(|| panic!("no pawn {id}"))
}
pub fn c(id: &str) -> Card {
    serde_json::from_value(serde_json::json!(id)).unwrap()
}
pub fn d(id: &str) -> Destiny {
    serde_json::from_value(serde_json::json!(id)).unwrap()
}
pub fn path(ids: &[&str]) -> Vec<Node> {
    ids.iter().map(|i| n(i)).collect()
}
/// Ring path `R<a+1>`..=`R<b>` (clockwise, wrapping).
pub fn ring(from: u8, to: u8) -> Vec<Node> {
    let mut v = Vec::new();
    let mut i = from;
    while i != to {
        i = (i + 1) % 72;
        v.push(n(&format!("R{i:02}")));
    }
    v
}
pub fn mv(pawn: &str, ids: &[&str]) -> Command {
    Command::mv(p(pawn), path(ids))
}
pub fn mv_ring(pawn: &str, from: u8, to: u8) -> Command {
    Command::mv(p(pawn), ring(from, to))
}
pub fn with_piggy(cmd: Command, card: &str) -> Command {
    match cmd {
        Command::MovePawn {
            pawn,
            path,
            ticket_card,
            jetpack_cards,
            ..
        } => Command::MovePawn {
            pawn,
            path,
            ticket_card,
            jetpack_cards,
            piggyback_card: Some(c(card)),
        },
        other => other,
    }
}
pub fn with_ticket(cmd: Command, card: &str) -> Command {
    match cmd {
        Command::MovePawn {
            pawn,
            path,
            jetpack_cards,
            piggyback_card,
            ..
        } => Command::MovePawn {
            pawn,
            path,
            ticket_card: Some(c(card)),
            jetpack_cards,
            piggyback_card,
        },
        other => other,
    }
}
pub fn with_jets(cmd: Command, cards: &[&str]) -> Command {
    match cmd {
        Command::MovePawn {
            pawn,
            path,
            ticket_card,
            piggyback_card,
            ..
        } => Command::MovePawn {
            pawn,
            path,
            ticket_card,
            jetpack_cards: cards.iter().map(|x| c(x)).collect(),
            piggyback_card,
        },
        other => other,
    }
}
pub fn play(card: &str) -> Command {
    Command::PlayCard {
        card: c(card),
        pawn: None,
        piggyback_card: None,
    }
}
pub fn watch(card: &str, pawn: &str) -> Command {
    Command::PlayCard {
        card: c(card),
        pawn: Some(p(pawn)),
        piggyback_card: None,
    }
}
pub fn resolve(f: impl FnOnce(&mut Command)) -> Command {
    let mut cmd = Command::resolve();
    f(&mut cmd);
    cmd
}
pub fn opt(o: DestinyOption) -> Command {
    resolve(|c| {
        if let Command::ResolveDestiny { option, .. } = c {
            *option = Some(o)
        }
    })
}
pub fn target(t: &str) -> Command {
    resolve(|c| {
        if let Command::ResolveDestiny { target_pawn, .. } = c {
            *target_pawn = Some(p(t))
        }
    })
}

pub struct Fx {
    /// Skip the invariant check (positions built to reach states the invariants exclude).
    pub unchecked: bool,
    pub st: State,
    pub rng: ScriptedRng,
    pub log: Vec<Event>,
}

impl Fx {
    /// The spec §7 common setting: black, red, green, orange (seats 1–4), no hunter, every
    /// pawn in prison, empty hands, decks in id order; black's turn 5, waiting for its roll.
    pub fn new() -> Fx {
        Fx::with(Options::default(), 4)
    }

    pub fn with(options: Options, seats: u8) -> Fx {
        let mut rng = ScriptedRng::new([]);
        let options = Options {
            first_player: Some(Seat::from_index(0)),
            ..options
        };
        let evs = setup_with(
            &options,
            seats,
            Some(Card::all().collect()),
            Some(Destiny::all().collect()),
            &mut rng,
        )
        .expect("setup");
        let st = replay_events(&evs);
        let mut fx = Fx {
            unchecked: false,
            st,
            rng,
            log: evs,
        };
        // Empty hands: tests give exactly the cards they need.
        for h in fx.st.hands.iter_mut() {
            h.clear();
        }
        fx.st.support_deck = Card::all().collect();
        fx.turn("black", 5);
        fx
    }

    pub fn seat(&self, colour: &str) -> Seat {
        self.st
            .colours
            .iter()
            .position(|c| c.name() == colour)
            .map(Seat::from_index)
            .expect("colour in play")
    }

    /// Makes `colour` the active player of turn `turn`, waiting for the turn roll.
    pub fn turn(&mut self, colour: &str, turn: u32) -> &mut Self {
        let seat = self.seat(colour);
        self.st.turn = turn;
        self.st.active = Some(seat);
        self.st.ctl = Control {
            phase: Phase::TurnRoll,
            ..Control::default()
        };
        self
    }

    /// Puts a pawn on a node (on top of whatever is there).
    pub fn put(&mut self, pawn: &str, node: &str) -> &mut Self {
        let (pw, to) = (p(pawn), n(node));
        let from = self.st.pos[pw.idx()];
        self.st.occ[from.idx()].retain(|&x| x != pw);
        self.st.occ[to.idx()].push(pw);
        self.st.pos[pw.idx()] = to;
        self
    }

    /// Gives `card` to `colour`'s hand, received in turn `received`.
    pub fn give_at(&mut self, colour: &str, card: &str, received: u32) -> &mut Self {
        let cd = c(card);
        let seat = self.seat(colour);
        self.st.support_deck.retain(|&x| x != cd);
        self.st.hands[seat.index()].push(HandCard { card: cd, received });
        self
    }
    pub fn give(&mut self, colour: &str, card: &str) -> &mut Self {
        self.give_at(colour, card, 0)
    }
    /// An active ticket on `pawn`.
    pub fn ticket(&mut self, colour: &str, card: &str, pawn: &str) -> &mut Self {
        let cd = c(card);
        self.st.support_deck.retain(|&x| x != cd);
        let owner = self.seat(colour);
        self.st.tickets.push(Ticket {
            card: cd,
            owner,
            pawn: p(pawn),
            spent: false,
        });
        self
    }
    /// Moves support cards to the top of the deck, in order.
    pub fn support_top(&mut self, cards: &[&str]) -> &mut Self {
        for x in cards.iter().rev() {
            let cd = c(x);
            self.st.support_deck.retain(|&y| y != cd);
            self.st.support_deck.push_front(cd);
        }
        self
    }
    pub fn destiny_top(&mut self, cards: &[&str]) -> &mut Self {
        for x in cards.iter().rev() {
            let cd = d(x);
            self.st.destiny_deck.retain(|&y| y != cd);
            self.st.destiny_deck.push_front(cd);
        }
        self
    }
    pub fn dice(&mut self, faces: &[u32]) -> &mut Self {
        for f in faces {
            self.rng.push(f - 1);
        }
        self
    }

    pub fn try_cmd(&mut self, colour: &str, cmd: Command) -> Result<Vec<Event>, RuleViolation> {
        let seat = self.seat(colour);
        let before = serde_json::to_string(&self.st).unwrap();
        let r = Bandits::decide(&self.st, seat, &cmd, &mut self.rng);
        match &r {
            Ok(evs) => {
                for e in evs {
                    Bandits::evolve(&mut self.st, e);
                }
                self.log.extend(evs.iter().cloned());
                if !self.unchecked {
                    check_invariants(&self.st).unwrap_or_else(|e| panic!("invariant: {e}"));
                }
            }
            Err(_) => assert_eq!(before, serde_json::to_string(&self.st).unwrap()),
        }
        r
    }
    /// `cmd` accepted; a whole move is sent as the protocol wants it (in segments where
    /// BD-515 / BD-517 apply, [`Fx::try_segments`]). The events of all.
    #[track_caller]
    pub fn ok(&mut self, colour: &str, cmd: Command) -> Vec<Event> {
        let shown = format!("{cmd:?}");
        self.try_segments(colour, cmd)
            .unwrap_or_else(|e| panic!("{colour} {shown} refused: {e}"))
    }
    /// `cmd` exactly as given (one command, never split).
    #[track_caller]
    pub fn ok_one(&mut self, colour: &str, cmd: Command) -> Vec<Event> {
        let shown = format!("{cmd:?}");
        self.try_cmd(colour, cmd)
            .unwrap_or_else(|e| panic!("{colour} {shown} refused: {e}"))
    }
    /// BD-515 / BD-517: a whole move sent as segments where the pending move goes so:
    /// `move_segment`s of `SEGMENT` steps while more than that is left, then the `move_pawn`
    /// of the rest (with the cards). The events of all. Other commands, and moves where no
    /// segments apply, are sent as they are.
    pub fn try_segments(
        &mut self,
        colour: &str,
        cmd: Command,
    ) -> Result<Vec<Event>, RuleViolation> {
        use crate::bandits::evolve::control::{SEGMENT, pending};
        let Command::MovePawn { pawn, path, .. } = &cmd else {
            return self.try_cmd(colour, cmd);
        };
        if pending(&self.st).is_none() {
            return self.try_cmd(colour, cmd);
        }
        let (pawn, whole) = (*pawn, path.clone());
        let mut events = Vec::new();
        let mut done = 0;
        while whole.len() - done > SEGMENT {
            let path = whole[done..done + SEGMENT].to_vec();
            events.extend(self.try_cmd(colour, Command::MoveSegment { pawn, path })?);
            done += SEGMENT;
        }
        let rest = match cmd {
            Command::MovePawn {
                pawn,
                ticket_card,
                jetpack_cards,
                piggyback_card,
                ..
            } => Command::MovePawn {
                pawn,
                path: whole[done..].to_vec(),
                ticket_card,
                jetpack_cards,
                piggyback_card,
            },
            other => other,
        };
        events.extend(self.try_cmd(colour, rest)?);
        Ok(events)
    }
    #[track_caller]
    pub fn ok_segments(&mut self, colour: &str, cmd: Command) -> Vec<Event> {
        let shown = format!("{cmd:?}");
        self.try_segments(colour, cmd)
            .unwrap_or_else(|e| panic!("{colour} {shown} refused: {e}"))
    }
    /// BD-516: a whole hunter move sent in pieces, each the next [`piece_len`] steps of it
    /// (the rest when fewer are left: a stuck hunter); stops at the first refusal. The events
    /// of all.
    ///
    /// [`piece_len`]: crate::bandits::hunter::piece_len
    pub fn try_hunter(
        &mut self,
        colour: &str,
        whole: &[Node],
    ) -> Result<Vec<Event>, RuleViolation> {
        use crate::bandits::hunter::{hunt_so_far, piece_len};
        let mut events = Vec::new();
        let mut done = 0;
        loop {
            let h = match self.st.ctl.phase {
                Phase::HunterMove { hunter, .. } => hunter,
                _ => 0,
            };
            let end = (done + piece_len(&hunt_so_far(&self.st, h))).min(whole.len());
            let path = whole[done..end].to_vec();
            events.extend(self.try_cmd(colour, Command::MoveHunter { path })?);
            done = end;
            if done == whole.len() {
                return Ok(events);
            }
        }
    }
    #[track_caller]
    pub fn ok_hunter(&mut self, colour: &str, whole: &[Node]) -> Vec<Event> {
        self.try_hunter(colour, whole)
            .unwrap_or_else(|e| panic!("{colour} hunter {whole:?} refused: {e}"))
    }
    /// Asserts that the move in segments is refused with `rule` (at its segment or its end);
    /// the position is left as it was.
    #[track_caller]
    pub fn rejects_segments(&mut self, colour: &str, cmd: Command, rule: &str) -> RuleViolation {
        let (st, logged) = (self.st.clone(), self.log.len());
        let shown = format!("{cmd:?}");
        let r = self.try_segments(colour, cmd);
        self.st = st;
        self.log.truncate(logged);
        match r {
            Ok(evs) => panic!("{colour} {shown} accepted: {evs:?}"),
            Err(e) => {
                assert_eq!(e.rule, rule, "{shown}: {e}");
                e
            }
        }
    }
    /// Asserts a rejection with `rule`. A whole move longer than a segment where BD-517 sends
    /// it in segments, refused by another rule than BD-517: that rule is judged on the whole
    /// path, as a game begun before event schema 5 takes it in one command (the same check
    /// ends a move sent in segments), and the move is refused in segments too (at a segment
    /// no legal move continues, or at its end).
    #[track_caller]
    pub fn rejects(&mut self, colour: &str, cmd: Command, rule: &str) -> RuleViolation {
        use crate::bandits::evolve::control::{SEGMENT, pending};
        let long = matches!(&cmd, Command::MovePawn { path, .. } if path.len() > SEGMENT);
        if long && rule != "BD-517" && pending(&self.st).is_some_and(|pm| pm.rule == "BD-517") {
            let (st, logged) = (self.st.clone(), self.log.len());
            let r = self.try_segments(colour, cmd.clone());
            self.st = st;
            self.log.truncate(logged);
            assert!(r.is_err(), "{colour} {cmd:?} accepted in segments");
            let mut whole = self.st.clone();
            whole.all_moves_in_segments = false;
            return Spec::<Bandits>::at(whole)
                .when(self.seat(colour), cmd)
                .then_violation(rule);
        }
        // Through the one harness ([`Spec`]): a refusal is decided on a copy of the position.
        Spec::<Bandits>::at(self.st.clone())
            .when(self.seat(colour), cmd)
            .then_violation(rule)
    }
    pub fn roll(&mut self, colour: &str) -> Vec<Event> {
        self.ok(colour, Command::RollDie {})
    }

    /// (decision name, colour of the actor)
    pub fn pending(&self) -> (String, String) {
        match awaiting(&self.st) {
            Some(w) => (
                w.decision.to_string(),
                self.st.colours[w.seat.index()].name().to_string(),
            ),
            None => ("none".into(), String::new()),
        }
    }
    #[track_caller]
    pub fn expect(&self, decision: &str, colour: &str) {
        assert_eq!(self.pending(), (decision.to_string(), colour.to_string()));
    }
    pub fn at(&self, pawn: &str) -> String {
        self.st.pos(p(pawn)).name().to_string()
    }
    pub fn on(&self, node: &str) -> Vec<String> {
        self.st.at(n(node)).iter().map(|x| x.to_string()).collect()
    }
    pub fn hand(&self, colour: &str) -> Vec<String> {
        self.st.hands[self.seat(colour).index()]
            .iter()
            .map(|h| h.card.to_string())
            .collect()
    }
    pub fn legal(&self, colour: &str) -> Vec<Command> {
        Bandits::legal(&self.st, self.seat(colour))
    }
    pub fn deck_bottom(&self) -> Option<String> {
        self.st.support_deck.back().map(|x| x.to_string())
    }
}

pub fn replay_events(evs: &[Event]) -> State {
    let mut st = State::default();
    for e in evs {
        Bandits::evolve(&mut st, e);
    }
    st
}

pub fn has<F: Fn(&Event) -> bool>(evs: &[Event], f: F) -> bool {
    evs.iter().any(f)
}

impl Fx {
    /// Starts executing destiny `card` for the active player (as if just drawn), during the
    /// resolution of a turn action for `value` 3.
    pub fn run_destiny(&mut self, card: &str, subject: Option<&str>) {
        self.run_destinies(&[card], subject)
    }
    pub fn run_destinies(&mut self, cards: &[&str], subject: Option<&str>) {
        let queue: Vec<Destiny> = cards.iter().map(|x| d(x)).collect();
        self.st.destiny_deck.retain(|x| !queue.contains(x));
        self.st.ctl.phase = Phase::Resolving { value: 3 };
        self.st.ctl.stack.push(Frame::Destiny(DestinyQueue {
            queue,
            subject: subject.map(p),
            exec: None,
        }));
        let mut st = self.st.clone();
        crate::bandits::evolve::control::settle(&mut st);
        let mut cx = crate::bandits::decide::Cx::new(st, &mut self.rng);
        cx.run();
        let (st, events) = cx.into_parts();
        self.log.extend(events.iter().cloned());
        self.st = st;
    }
}

/// Moves `pawn` to `to` in `st` directly (no rule applies): for the bound tests' board search.
pub fn place(st: &mut State, pawn: &str, to: Node) {
    let pw = p(pawn);
    let from = st.pos[pw.idx()];
    st.occ[from.idx()].retain(|&x| x != pw);
    st.occ[to.idx()].push(pw);
    st.pos[pw.idx()] = to;
}

/// Puts an opponent (`red-1`) two steps on from `node`, where it can be taken (Sur le dos
/// optional).
pub fn prey(st: &mut State, node: Node) {
    let b = crate::bandits::board::board();
    if let Some(&(next, _, _)) = b.out[node.idx()].first()
        && let Some(&(two, _, _)) = b.out[next.idx()].first()
    {
        place(st, "red-1", two);
    }
}
