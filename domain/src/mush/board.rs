//! The board as data: `board.json` (a verbatim copy of the spec's `mush-board.json`) parsed
//! once into a global space table, and one movement graph per legal layout (MU-010, §2.3).
//!
//! Spaces are addressed by [`SpaceId`], a `u16` index into the global table that serializes
//! as the spec's string id (`"anc_b3"`), so commands are parsed, not validated, and `evolve`
//! never looks strings up.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// The board JSON, normative (spec §2.8).
pub const BOARD_JSON: &str = include_str!("board.json");

/// One of the five geomorphic board segments (spec §1.1), by its spec id.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SegmentId {
    Anchorage,
    PingerLake,
    OphirAnvik,
    Koyuk,
    Nome,
}

impl SegmentId {
    pub const ALL: [SegmentId; 5] = [
        SegmentId::Anchorage,
        SegmentId::PingerLake,
        SegmentId::OphirAnvik,
        SegmentId::Koyuk,
        SegmentId::Nome,
    ];
    pub const MIDDLE: [SegmentId; 3] = [
        SegmentId::PingerLake,
        SegmentId::OphirAnvik,
        SegmentId::Koyuk,
    ];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn as_str(self) -> &'static str {
        match self {
            SegmentId::Anchorage => "anchorage",
            SegmentId::PingerLake => "pinger_lake",
            SegmentId::OphirAnvik => "ophir_anvik",
            SegmentId::Koyuk => "koyuk",
            SegmentId::Nome => "nome",
        }
    }
}

/// The kind of a space (spec §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpaceKind {
    Village,
    Wilderness,
    Difficult,
}

/// Which rest table a space uses (MU-122).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestClass {
    Anchorage,
    Minor,
    Standard,
    Finish,
    Wilderness,
    Difficult,
}

/// Latitude band of a segment: picks its weather table (MU-055).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    South,
    Central,
    North,
}

/// One space of the global table.
#[derive(Clone, Debug)]
pub struct SpaceInfo {
    pub id: String,
    pub segment: SegmentId,
    pub kind: SpaceKind,
    /// 0 = A, 1 = B, 2 = C; `None` for ANCHORAGE and NOME.
    pub lane: Option<u8>,
    pub col: u8,
    pub name: Option<String>,
    pub rest_class: RestClass,
}

/// A space of the board, serialized as its spec id (e.g. `"anc_b3"`, `"NOME"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, utoipa::ToSchema)]
#[schema(value_type = String, example = "anc_b3")]
pub struct SpaceId(pub u16);

impl SpaceId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    pub fn info(self) -> &'static SpaceInfo {
        &data().spaces[self.index()]
    }
    pub fn name(self) -> &'static str {
        &self.info().id
    }
    /// Parses a spec id; `None` if no segment has that space.
    pub fn parse(id: &str) -> Option<SpaceId> {
        data().by_name.get(id).copied()
    }
    /// Parses a spec id known to exist (board constants, tests). Panics on a typo.
    pub fn of(id: &str) -> SpaceId {
        SpaceId::parse(id).unwrap_or_else(|| panic!("no space {id}"))
    }
    pub fn is_difficult(self) -> bool {
        self.info().kind == SpaceKind::Difficult
    }
    pub fn is_village(self) -> bool {
        self.info().kind == SpaceKind::Village
    }
}

impl fmt::Display for SpaceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for SpaceId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for SpaceId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        SpaceId::parse(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown space id {id:?}")))
    }
}

/// A directed link between two spaces, serialized as the spec's link id `"from>to"` (§2.3).
/// Whether it is live depends on the layout (MU-013, MU-014).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LinkId {
    pub from: SpaceId,
    pub to: SpaceId,
}

impl LinkId {
    pub fn new(from: SpaceId, to: SpaceId) -> Self {
        LinkId { from, to }
    }
    /// Parses `"from>to"` (tests, constants). Panics on a typo.
    pub fn of(id: &str) -> LinkId {
        LinkId::parse(id).unwrap_or_else(|| panic!("bad link {id}"))
    }
    pub fn parse(id: &str) -> Option<LinkId> {
        let (a, b) = id.split_once('>')?;
        Some(LinkId {
            from: SpaceId::parse(a)?,
            to: SpaceId::parse(b)?,
        })
    }
    /// MU-106: neither end of an avalanche link may be difficult terrain.
    pub fn touches_difficult(self) -> bool {
        self.from.is_difficult() || self.to.is_difficult()
    }
}

impl utoipa::PartialSchema for LinkId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("A link id `from>to`, e.g. `anc_b3>anc_b4`"))
            .into()
    }
}

impl utoipa::ToSchema for LinkId {}

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}>{}", self.from, self.to)
    }
}

impl Serialize for LinkId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LinkId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        LinkId::parse(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown link id {id:?}")))
    }
}

// ---------------------------------------------------------------------------------------------
// Raw JSON
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct RawBoard {
    weather_tables: HashMap<Band, HashMap<String, Weather>>,
    rest_options: HashMap<String, Vec<RawRestOption>>,
    base_layout: Vec<SegmentId>,
    first_game_layout: Vec<SegmentId>,
    segments: Vec<RawSegment>,
}

/// A rest option as printed in the JSON.
#[derive(Deserialize)]
pub struct RawRestOption {
    pub id: String,
    pub remove_fatigue: u8,
    pub draw_actions: u8,
}

#[derive(Deserialize)]
struct RawSegment {
    id: SegmentId,
    band: Band,
    spaces: Vec<RawSpace>,
    tracks: HashMap<String, Vec<String>>,
    connectors: Vec<[String; 2]>,
    entry: Option<HashMap<String, String>>,
    exit: Option<HashMap<String, String>>,
    west_stubs: Vec<RawStub>,
    east_stubs: Vec<RawStub>,
}

#[derive(Deserialize)]
struct RawSpace {
    id: String,
    kind: SpaceKind,
    lane: Option<String>,
    col: u8,
    name: Option<String>,
    rest_class: Option<String>,
    // The JSON's village `sign`s are not read: MU-163 (errata) drops the invented sign caps.
}

#[derive(Deserialize)]
struct RawStub {
    id: String,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    from: Option<String>,
}

/// Everything the board JSON says, in engine form.
pub struct BoardData {
    pub spaces: Vec<SpaceInfo>,
    pub by_name: HashMap<String, SpaceId>,
    pub bands: [Band; 5],
    /// `weather[band][w-1]`.
    pub weather: [[Weather; 6]; 3],
    pub base_layout: Vec<SegmentId>,
    pub first_game_layout: Vec<SegmentId>,
    /// Per segment: its internal links (tracks then connectors).
    internal: [Vec<(SpaceId, SpaceId)>; 5],
    entry: [Option<[SpaceId; 3]>; 5],
    exit: [Option<[SpaceId; 3]>; 5],
    west_stubs: [Vec<(String, SpaceId)>; 5],
    east_stubs: [Vec<(String, SpaceId)>; 5],
    /// Rest options per class as printed in the JSON (checked against the engine's table).
    pub rest_options: HashMap<String, Vec<RawRestOption>>,
    /// Every legal layout (§2.2) with its graph; index = `State::layout_index`.
    pub layouts: Vec<Graph>,
}

/// The movement graph of one layout (§2.3).
pub struct Graph {
    pub segments: Vec<SegmentId>,
    /// Out-links per global space index (empty for spaces not in the layout).
    pub out: Vec<Vec<SpaceId>>,
    pub in_layout: Vec<bool>,
    /// Every live link, sorted.
    pub links: Vec<LinkId>,
    /// Fewest steps to NOME per global space (u16::MAX if not in the layout).
    pub dist_to_nome: Vec<u16>,
    pub start: SpaceId,
    pub finish: SpaceId,
}

impl Graph {
    /// MU-013/MU-014: only links of this layout exist.
    pub fn is_live(&self, link: LinkId) -> bool {
        self.out
            .get(link.from.index())
            .is_some_and(|out| out.contains(&link.to))
    }
    pub fn successors(&self, space: SpaceId) -> &[SpaceId] {
        self.out
            .get(space.index())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    pub fn segment_of(&self, space: SpaceId) -> SegmentId {
        space.info().segment
    }
}

fn lane_index(lane: &str) -> Option<usize> {
    ["A", "B", "C"].iter().position(|l| *l == lane)
}

/// The spaces of every segment (their rest class, MU-163), the space names, the segments' bands.
fn parse_spaces(raw: &RawBoard) -> (Vec<SpaceInfo>, HashMap<String, SpaceId>, [Band; 5]) {
    let mut spaces = Vec::new();
    let mut by_name = HashMap::new();
    let mut bands = [Band::South; 5];
    for seg in &raw.segments {
        bands[seg.id.index()] = seg.band;
        for s in &seg.spaces {
            let rest_class = match (s.kind, s.rest_class.as_deref()) {
                (SpaceKind::Wilderness, _) => RestClass::Wilderness,
                (SpaceKind::Difficult, _) => RestClass::Difficult,
                (SpaceKind::Village, Some("anchorage")) => RestClass::Anchorage,
                (SpaceKind::Village, Some("minor")) => RestClass::Minor,
                (SpaceKind::Village, Some("finish")) => RestClass::Finish,
                (SpaceKind::Village, _) => RestClass::Standard,
            };
            let id = SpaceId(spaces.len() as u16);
            by_name.insert(s.id.clone(), id);
            spaces.push(SpaceInfo {
                id: s.id.clone(),
                segment: seg.id,
                kind: s.kind,
                lane: s.lane.as_deref().and_then(lane_index).map(|l| l as u8),
                col: s.col,
                name: s.name.clone(),
                rest_class,
            });
        }
    }
    (spaces, by_name, bands)
}

fn parse() -> BoardData {
    let raw: RawBoard = serde_json::from_str(BOARD_JSON).expect("board.json parses");
    let (spaces, by_name, bands) = parse_spaces(&raw);
    let sid = |name: &str| {
        *by_name
            .get(name)
            .unwrap_or_else(|| panic!("board.json names unknown space {name}"))
    };
    let mut internal: [Vec<(SpaceId, SpaceId)>; 5] = Default::default();
    let mut entry: [Option<[SpaceId; 3]>; 5] = [None; 5];
    let mut exit: [Option<[SpaceId; 3]>; 5] = [None; 5];
    let mut west_stubs: [Vec<(String, SpaceId)>; 5] = Default::default();
    let mut east_stubs: [Vec<(String, SpaceId)>; 5] = Default::default();
    let ports = |m: &Option<HashMap<String, String>>| {
        m.as_ref().map(|m| ["A", "B", "C"].map(|l| sid(&m[l])))
    };
    for seg in &raw.segments {
        let i = seg.id.index();
        for lane in ["A", "B", "C"] {
            for pair in seg.tracks[lane].windows(2) {
                internal[i].push((sid(&pair[0]), sid(&pair[1])));
            }
        }
        for [a, b] in &seg.connectors {
            internal[i].push((sid(a), sid(b)));
        }
        entry[i] = ports(&seg.entry);
        exit[i] = ports(&seg.exit);
        for stub in &seg.west_stubs {
            west_stubs[i].push((
                stub.id.clone(),
                sid(stub.to.as_deref().expect("west stub has to")),
            ));
        }
        for stub in &seg.east_stubs {
            east_stubs[i].push((
                stub.id.clone(),
                sid(stub.from.as_deref().expect("east stub has from")),
            ));
        }
    }
    let mut weather = [[Weather::Hot; 6]; 3];
    for (band, table) in &raw.weather_tables {
        for face in 1..=6 {
            weather[*band as usize][face - 1] = table[&face.to_string()];
        }
    }
    let mut data = BoardData {
        spaces,
        by_name,
        bands,
        weather,
        base_layout: raw.base_layout,
        first_game_layout: raw.first_game_layout,
        internal,
        entry,
        exit,
        west_stubs,
        east_stubs,
        rest_options: raw.rest_options,
        layouts: Vec::new(),
    };
    data.layouts = all_layouts()
        .into_iter()
        .map(|l| build_graph(&data, l))
        .collect();
    data
}

/// The global board data, parsed once.
pub fn data() -> &'static BoardData {
    static DATA: OnceLock<BoardData> = OnceLock::new();
    DATA.get_or_init(parse)
}

/// §2.2 as amended by MU-168: the 16 legal layouts — anchorage, 0 to 3 distinct middle
/// segments in any order, nome. The two-segment layout `[anchorage, nome]` comes last so the
/// indices of the other 15 (stored in states as `layout_index`) did not change.
pub fn all_layouts() -> Vec<Vec<SegmentId>> {
    let mut out = Vec::new();
    let m = SegmentId::MIDDLE;
    let mut middles: Vec<Vec<SegmentId>> = Vec::new();
    for a in m {
        middles.push(vec![a]);
        for b in m.into_iter().filter(|b| *b != a) {
            middles.push(vec![a, b]);
            for c in m.into_iter().filter(|c| *c != a && *c != b) {
                middles.push(vec![a, b, c]);
            }
        }
    }
    // MU-168: two or more segments; the seed sets no minimum.
    middles.push(Vec::new());
    for mid in middles {
        let mut l = vec![SegmentId::Anchorage];
        l.extend(mid);
        l.push(SegmentId::Nome);
        out.push(l);
    }
    out
}

/// MU-011 / MU-168: the index of a legal layout, or `None` for any other list.
pub fn layout_index(layout: &[SegmentId]) -> Option<usize> {
    data().layouts.iter().position(|g| g.segments == layout)
}

/// The graph of a layout index (out-of-range indices fall back to the first layout, so a
/// default state never panics).
pub fn graph(index: u8) -> &'static Graph {
    let layouts = &data().layouts;
    layouts.get(usize::from(index)).unwrap_or(&layouts[0])
}

fn build_graph(data: &BoardData, segments: Vec<SegmentId>) -> Graph {
    let n = data.spaces.len();
    let mut out: Vec<Vec<SpaceId>> = vec![Vec::new(); n];
    let mut in_layout = vec![false; n];
    for (i, s) in data.spaces.iter().enumerate() {
        in_layout[i] = segments.contains(&s.segment);
    }
    for seg in &segments {
        for (a, b) in &data.internal[seg.index()] {
            out[a.index()].push(*b);
        }
    }
    for pair in segments.windows(2) {
        let (s, t) = (pair[0].index(), pair[1].index());
        // Port joins: the three tracks are never cut (§2.3 step 4).
        if let (Some(exit), Some(entry)) = (data.exit[s], data.entry[t]) {
            for lane in 0..3 {
                out[exit[lane].index()].push(entry[lane]);
            }
        }
        // Seam paths: live only when the stub ids meet (§2.3 step 5, MU-014).
        for (eid, from) in &data.east_stubs[s] {
            for (wid, to) in &data.west_stubs[t] {
                if eid == wid {
                    out[from.index()].push(*to);
                }
            }
        }
    }
    let mut links = Vec::new();
    for (i, tos) in out.iter_mut().enumerate() {
        tos.sort();
        tos.dedup();
        for to in tos.iter() {
            links.push(LinkId::new(SpaceId(i as u16), *to));
        }
    }
    links.sort();
    let start = *data.by_name.get("ANCHORAGE").expect("ANCHORAGE");
    let finish = *data.by_name.get("NOME").expect("NOME");
    // Reverse BFS from NOME for the heuristic and the stuck-sled invariant.
    let mut dist = vec![u16::MAX; n];
    dist[finish.index()] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for (i, tos) in out.iter().enumerate() {
            let best = tos
                .iter()
                .map(|t| dist[t.index()])
                .min()
                .unwrap_or(u16::MAX);
            if best != u16::MAX && best + 1 < dist[i] {
                dist[i] = best + 1;
                changed = true;
            }
        }
    }
    Graph {
        segments,
        out,
        in_layout,
        links,
        dist_to_nome: dist,
        start,
        finish,
    }
}

/// MU-055: the weather at a space for the round's weather roll `w` (1..=6).
pub fn weather_at(space: SpaceId, w: u8) -> Weather {
    let d = data();
    let band = d.bands[space.info().segment.index()];
    d.weather[band as usize][usize::from(w.clamp(1, 6) - 1)]
}

/// MU-056: how a training relates to a weather.
pub fn relation(training: Training, weather: Weather) -> Relation {
    if training as u8 == weather as u8 {
        Relation::Same
    } else if matches!(
        (training, weather),
        (Training::Hot, Weather::Cold) | (Training::Cold, Weather::Hot)
    ) {
        Relation::Opposite
    } else {
        Relation::Adjacent
    }
}

/// A team's training (MU-022).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Training {
    Hot,
    Mixed,
    Cold,
}

impl Training {
    pub const ALL: [Training; 3] = [Training::Hot, Training::Mixed, Training::Cold];
}

/// A weather type (same three values as training, spec §2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Weather {
    Hot,
    Mixed,
    Cold,
}

/// MU-056: training vs weather.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    Same,
    Adjacent,
    Opposite,
}
