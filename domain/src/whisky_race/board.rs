//! Board data: the track, the marker kinds and their instances, parsed once from `board.json`
//! (the `whisky-race/board@1` document of the spec, §2.1) into types that cannot be illegal.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

/// The board document, embedded at compile time.
pub const BOARD_JSON: &str = include_str!("board.json");

/// The kinds of markers (spec §1.2). The order is the order of `marker_kinds` in the board data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Banff,
    Benromach,
    Brora,
    Coleraine,
    Convalmore,
    GlenMhor,
    Kinclaith,
    Glenlochy,
    MaltSource2,
    MaltSource3,
    MaltSource4,
    MaltSource5,
    Checkpoint1,
    Checkpoint2,
    Checkpoint3,
    Pub,
    StCulabansFeast,
    EnglishmanMarker,
    HolyPlace,
}

/// Marker families: whiskies (green), brown location markers, blue location markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Whisky,
    Brown,
    Blue,
}

impl Kind {
    pub const ALL: [Kind; 19] = [
        Kind::Banff,
        Kind::Benromach,
        Kind::Brora,
        Kind::Coleraine,
        Kind::Convalmore,
        Kind::GlenMhor,
        Kind::Kinclaith,
        Kind::Glenlochy,
        Kind::MaltSource2,
        Kind::MaltSource3,
        Kind::MaltSource4,
        Kind::MaltSource5,
        Kind::Checkpoint1,
        Kind::Checkpoint2,
        Kind::Checkpoint3,
        Kind::Pub,
        Kind::StCulabansFeast,
        Kind::EnglishmanMarker,
        Kind::HolyPlace,
    ];

    /// The `kind` id of the board data.
    pub fn id(self) -> &'static str {
        match self {
            Kind::Banff => "banff",
            Kind::Benromach => "benromach",
            Kind::Brora => "brora",
            Kind::Coleraine => "coleraine",
            Kind::Convalmore => "convalmore",
            Kind::GlenMhor => "glen_mhor",
            Kind::Kinclaith => "kinclaith",
            Kind::Glenlochy => "glenlochy",
            Kind::MaltSource2 => "malt_source_2",
            Kind::MaltSource3 => "malt_source_3",
            Kind::MaltSource4 => "malt_source_4",
            Kind::MaltSource5 => "malt_source_5",
            Kind::Checkpoint1 => "checkpoint_1",
            Kind::Checkpoint2 => "checkpoint_2",
            Kind::Checkpoint3 => "checkpoint_3",
            Kind::Pub => "pub",
            Kind::StCulabansFeast => "st_culabans_feast",
            Kind::EnglishmanMarker => "englishman_marker",
            Kind::HolyPlace => "holy_place",
        }
    }

    pub fn from_id(id: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.id() == id)
    }

    pub fn family(self) -> Family {
        match self {
            Kind::Banff
            | Kind::Benromach
            | Kind::Brora
            | Kind::Coleraine
            | Kind::Convalmore
            | Kind::GlenMhor
            | Kind::Kinclaith
            | Kind::Glenlochy => Family::Whisky,
            Kind::MaltSource2
            | Kind::MaltSource3
            | Kind::MaltSource4
            | Kind::MaltSource5
            | Kind::Checkpoint1
            | Kind::Checkpoint2
            | Kind::Checkpoint3 => Family::Brown,
            Kind::Pub | Kind::StCulabansFeast | Kind::EnglishmanMarker | Kind::HolyPlace => {
                Family::Blue
            }
        }
    }

    /// Continuous whiskies never become used (WR-006).
    pub fn is_continuous(self) -> bool {
        matches!(self, Kind::Brora | Kind::Convalmore)
    }

    /// Malt-source value (WR-071) or checkpoint VP (WR-072).
    pub fn value(self) -> u32 {
        match self {
            Kind::MaltSource2 | Kind::Checkpoint2 => 2,
            Kind::MaltSource3 | Kind::Checkpoint3 => 3,
            Kind::MaltSource4 => 4,
            Kind::MaltSource5 => 5,
            Kind::Checkpoint1 => 1,
            _ => 0,
        }
    }

    pub fn is_checkpoint(self) -> bool {
        matches!(
            self,
            Kind::Checkpoint1 | Kind::Checkpoint2 | Kind::Checkpoint3
        )
    }
    pub fn is_malt_source(self) -> bool {
        matches!(
            self,
            Kind::MaltSource2 | Kind::MaltSource3 | Kind::MaltSource4 | Kind::MaltSource5
        )
    }
}

/// One marker instance (`<kind>#<n>`), as an index into [`Board::markers`]. Only
/// [`MarkerId::parse`] and the board build them, so every value names a real instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, utoipa::ToSchema)]
#[schema(value_type = String, example = "pub#1")]
pub struct MarkerId(u8);

impl MarkerId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    pub fn from_index(i: usize) -> MarkerId {
        MarkerId(i as u8)
    }
    pub fn kind(self) -> Kind {
        board().markers[self.index()].kind
    }
    pub fn number(self) -> u8 {
        board().markers[self.index()].n
    }
    pub fn family(self) -> Family {
        self.kind().family()
    }
    pub fn is_whisky(self) -> bool {
        self.family() == Family::Whisky
    }
    /// Parses `"pub#3"`.
    pub fn parse(text: &str) -> Result<MarkerId, String> {
        let (kind, n) = text
            .split_once('#')
            .ok_or_else(|| format!("`{text}` is not `<kind>#<n>`"))?;
        let kind = Kind::from_id(kind).ok_or_else(|| format!("unknown marker kind `{kind}`"))?;
        let n: u8 = n
            .parse()
            .map_err(|_| format!("bad instance number in `{text}`"))?;
        board()
            .find(kind, n)
            .ok_or_else(|| format!("no marker `{text}`"))
    }
    /// Parses an id, panicking on a typo: for tests and static data only.
    pub fn of(text: &str) -> MarkerId {
        MarkerId::parse(text).expect("marker id")
    }
}

impl fmt::Display for MarkerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.kind().id(), self.number())
    }
}

impl Serialize for MarkerId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MarkerId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        MarkerId::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug)]
pub struct MarkerInfo {
    pub kind: Kind,
    pub n: u8,
    pub in_play: bool,
}

/// Rule constants of the board data (`constants`).
#[derive(Clone, Debug, Deserialize)]
pub struct Constants {
    pub min_players: u8,
    pub max_players: u8,
    pub starting_malt: u32,
    pub round_income: u32,
    pub brora_income_bonus: u32,
    pub whisky_marker_price: u32,
    pub holy_place_whisky_price: u32,
    pub pub_vp: i64,
    pub pub_malt: u32,
    pub englishman_round_steps: u8,
    pub englishman_marker_max_steps: u8,
    pub kinclaith_steps: u8,
    pub tax_per_whisky: u32,
    pub race_vp_scot_first: [i64; 3],
    pub race_vp_englishman_first: [i64; 3],
    pub unsold_whisky_vp: i64,
    pub malt_majority_vp: i64,
    pub malt_majority_shared_vp: i64,
    pub variant_groups_size: usize,
    pub variant_englishman_offer_size: usize,
}

/// The checked board.
#[derive(Clone, Debug)]
pub struct Board {
    pub board_id: String,
    pub c: Constants,
    pub spaces: u8,
    pub start: u8,
    pub finish: u8,
    pub englishman_start: u8,
    pub circled: Vec<u8>,
    /// Every marker instance, grouped by kind in board order.
    pub markers: Vec<MarkerInfo>,
    /// Standard setup (WR-014): (space, marker).
    pub standard_setup: Vec<(u8, MarkerId)>,
    /// Starting whisky kinds (WR-012).
    pub starting_kinds: Vec<Kind>,
}

impl Board {
    pub fn find(&self, kind: Kind, n: u8) -> Option<MarkerId> {
        self.markers
            .iter()
            .position(|m| m.kind == kind && m.n == n)
            .map(MarkerId::from_index)
    }
    pub fn all_markers(&self) -> impl Iterator<Item = MarkerId> + '_ {
        (0..self.markers.len()).map(MarkerId::from_index)
    }
    /// The starting whiskies of `seat` (WR-012): `<kind>#<seat>`.
    pub fn starting_whiskies(&self, seat: u8) -> Vec<MarkerId> {
        self.starting_kinds
            .iter()
            .filter_map(|k| self.find(*k, seat))
            .collect()
    }
    pub fn is_circled(&self, space: u8) -> bool {
        self.circled.contains(&space)
    }
}

#[derive(Deserialize)]
struct RawBoard {
    schema: String,
    board_id: String,
    constants: Constants,
    track: RawTrack,
    marker_kinds: Vec<RawKind>,
    starting_whiskies: RawStarting,
    standard_setup: Vec<RawPlacement>,
}
#[derive(Deserialize)]
struct RawTrack {
    spaces: u8,
    start: u8,
    finish: u8,
    englishman_start: u8,
    circled: Vec<u8>,
}
#[derive(Deserialize)]
struct RawKind {
    kind: String,
    family: String,
    count: u8,
    #[serde(default = "yes")]
    in_play: bool,
    #[serde(default)]
    value: Option<u32>,
}
fn yes() -> bool {
    true
}
#[derive(Deserialize)]
struct RawStarting {
    kinds: Vec<String>,
}
#[derive(Deserialize)]
struct RawPlacement {
    space: u8,
    marker: String,
}

/// Parses and checks a board document.
pub fn parse_board(json: &str) -> Result<Board, String> {
    let raw: RawBoard = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if raw.schema != "whisky-race/board@1" {
        return Err(format!("unknown schema {}", raw.schema));
    }
    let mut markers = Vec::new();
    for k in &raw.marker_kinds {
        let kind = Kind::from_id(&k.kind).ok_or_else(|| format!("unknown kind {}", k.kind))?;
        let family = match k.family.as_str() {
            "whisky" => Family::Whisky,
            "brown" => Family::Brown,
            "blue" => Family::Blue,
            other => return Err(format!("unknown family {other}")),
        };
        if family != kind.family() {
            return Err(format!("family of {} disagrees with the engine", k.kind));
        }
        if let Some(v) = k.value
            && v != kind.value()
        {
            return Err(format!("value of {} disagrees with the engine", k.kind));
        }
        for n in 1..=k.count {
            markers.push(MarkerInfo {
                kind,
                n,
                in_play: k.in_play,
            });
        }
    }
    if markers.len() > usize::from(u8::MAX) {
        return Err("too many markers".into());
    }
    let t = &raw.track;
    if t.start != 0 || t.finish + 1 != t.spaces || t.englishman_start >= t.finish {
        return Err("track ends are inconsistent".into());
    }
    if t.circled.windows(2).any(|w| w[0] >= w[1])
        || t.circled.iter().any(|c| *c <= t.start || *c >= t.finish)
    {
        return Err("circled spaces must be ascending and inside the track".into());
    }
    let mut board = Board {
        board_id: raw.board_id,
        c: raw.constants,
        spaces: t.spaces,
        start: t.start,
        finish: t.finish,
        englishman_start: t.englishman_start,
        circled: t.circled.clone(),
        markers,
        standard_setup: Vec::new(),
        starting_kinds: Vec::new(),
    };
    for k in &raw.starting_whiskies.kinds {
        board
            .starting_kinds
            .push(Kind::from_id(k).ok_or_else(|| format!("unknown starting kind {k}"))?);
    }
    for p in &raw.standard_setup {
        let (kind, n) = p.marker.split_once('#').ok_or("bad marker id")?;
        let kind = Kind::from_id(kind).ok_or("bad kind")?;
        let id = board
            .find(kind, n.parse().map_err(|_| "bad n")?)
            .ok_or("no such marker")?;
        if !board.is_circled(p.space) {
            return Err(format!("standard setup space {} is not circled", p.space));
        }
        board.standard_setup.push((p.space, id));
    }
    Ok(board)
}

/// The standard board, parsed once.
pub fn board() -> &'static Board {
    static BOARD: OnceLock<Board> = OnceLock::new();
    BOARD.get_or_init(|| parse_board(BOARD_JSON).expect("embedded board.json is valid"))
}
