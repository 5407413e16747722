//! The board graph (spec §2), parsed once from `board.json` (a copy of the spec's
//! `bandits-board.json`, node ids unchanged) into a validated, index-based [`Board`].
//!
//! Nodes are addressed by [`Node`] (a `u8` index) on the hot paths; they serialize as the
//! spec's string ids (`"R07"`, `"H.red.3"`, `"V.black.1"`, `"P.green"`), so events and
//! commands read like the spec's examples.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The six colours, in clockwise sector order (spec §1.2, §2.2).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Black,
    Red,
    Blue,
    Green,
    Orange,
    White,
}

impl Colour {
    pub const ALL: [Colour; 6] = [
        Colour::Black,
        Colour::Red,
        Colour::Blue,
        Colour::Green,
        Colour::Orange,
        Colour::White,
    ];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn from_index(i: usize) -> Colour {
        Colour::ALL[i % 6]
    }
    pub fn name(self) -> &'static str {
        ["black", "red", "blue", "green", "orange", "white"][self.index()]
    }
    fn parse(s: &str) -> Option<Colour> {
        Colour::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// A node of the board (index into [`Board::nodes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Node(pub u8);

impl Node {
    pub fn idx(self) -> usize {
        usize::from(self.0)
    }
    pub fn name(self) -> &'static str {
        board()
            .nodes
            .get(self.idx())
            .map(|n| n.id.as_str())
            .unwrap_or("?")
    }
    /// Parses a spec node id (`"R07"`).
    pub fn parse(id: &str) -> Option<Node> {
        board().by_id.get(id).copied()
    }
}

impl std::fmt::Display for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
crate::engine::string_id!(
    Node,
    "node id",
    Node::parse,
    "A board node id of the spec, e.g. `R07`, `H.red.3`, `V.black.1`"
);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    Ring,
    Prison,
    Huntington,
    Pile,
    Lane,
    Village,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Probation,
    Lawyer,
    Support,
    Destiny,
    Colour,
    Express,
    Prison,
    Pile,
}

/// Edge types of the JSON (spec §2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeType {
    Ring,
    Release,
    HuntEntry,
    Tram,
    /// A tram edge taken against its direction (wagon i+1 → i): day ticket only.
    TramBack,
    Yellow,
    HuntExit,
    VillageEntry,
    Lane,
    Village,
    Pile,
}

#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub id: String,
    pub zone: Zone,
    pub kind: Kind,
    pub back: Option<Node>,
    pub lawyer_space: bool,
    pub colour: Option<Colour>,
    /// Ring position 0..72 (ring nodes only).
    pub ring: Option<u8>,
    /// Destiny cards drawn here (1 on the ring, 2 in Huntington).
    pub draw: u8,
    /// Express departure → its station.
    pub station: Option<Node>,
    /// Tram line and wagon number (wagons only).
    pub line: Option<Colour>,
    pub wagon: u8,
    /// Property number 1..6 (village nodes only).
    pub property: u8,
}

/// The validated board.
#[derive(Debug)]
pub struct Board {
    pub nodes: Vec<NodeInfo>,
    pub by_id: HashMap<String, Node>,
    /// Ring nodes in clockwise order.
    pub ring: Vec<Node>,
    /// Directed steps a pawn may consider from each node, with their type (undirected edges
    /// listed both ways; tram edges also backwards as [`EdgeType::TramBack`]).
    pub out: Vec<Vec<(Node, EdgeType, Option<Colour>)>>,
    /// The hunter's undirected neighbours (ring, hunt_entry, tram, yellow, hunt_exit, pile).
    pub hunter_adj: Vec<Vec<Node>>,
    pub prison: [Node; 6],
    pub probation: [Node; 6],
    pub village_fork: [Node; 6],
    pub properties: [[Node; 6]; 6],
    pub hunter_start: Node,
    /// The raw JSON (for the SVG renderer's coordinates-free drawing).
    pub rails: Vec<(Node, Node)>,
    pub tram_lines: Vec<(Colour, [Node; 6], Node, Node)>,
}

static BOARD_JSON: &str = include_str!("board.json");

static BOARD: LazyLock<Board> = LazyLock::new(|| {
    Board::parse(BOARD_JSON).unwrap_or_else(|e| panic!("invalid board.json: {e}"))
});

/// The board (parsed and validated on first use).
pub fn board() -> &'static Board {
    &BOARD
}

fn s<'a>(v: &'a serde_json::Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(|x| x.as_str())
        .ok_or_else(|| format!("missing string {key} in {v}"))
}

/// The board's node ids (§2.4 `nodes[].id`), each to its index.
type Ids = HashMap<String, Node>;

/// The node named `id`.
fn node_of(ids: &Ids, id: &str) -> Result<Node, String> {
    ids.get(id)
        .copied()
        .ok_or_else(|| format!("unknown node {id}"))
}

/// The node named by the string at `key` of `v`.
fn node_at(ids: &Ids, v: &serde_json::Value, key: &str) -> Result<Node, String> {
    node_of(ids, s(v, key)?)
}

/// §2.4 `nodes[].id`: unique, in the order of the array.
fn parse_ids(raw_nodes: &[serde_json::Value]) -> Result<Ids, String> {
    let mut by_id = HashMap::new();
    for (i, n) in raw_nodes.iter().enumerate() {
        let id = s(n, "id")?.to_string();
        let i = u8::try_from(i).map_err(|_| "too many nodes")?;
        if by_id.insert(id.clone(), Node(i)).is_some() {
            return Err(format!("duplicate id {id}"));
        }
    }
    Ok(by_id)
}

/// §2.4 one entry of `nodes` (its ring position is filled from `ring` afterwards).
fn parse_node(n: &serde_json::Value, ids: &Ids) -> Result<NodeInfo, String> {
    let zone = match s(n, "zone")? {
        "ring" => Zone::Ring,
        "prison" => Zone::Prison,
        "huntington" => Zone::Huntington,
        "pile" => Zone::Pile,
        "lane" => Zone::Lane,
        "village" => Zone::Village,
        z => return Err(format!("zone {z}")),
    };
    let kind = match s(n, "kind")? {
        "plain" => Kind::Plain,
        "probation" => Kind::Probation,
        "lawyer" => Kind::Lawyer,
        "support" => Kind::Support,
        "destiny" => Kind::Destiny,
        "colour" => Kind::Colour,
        "express" => Kind::Express,
        "prison" => Kind::Prison,
        "pile" => Kind::Pile,
        k => return Err(format!("kind {k}")),
    };
    let opt_node = |key: &str| -> Result<Option<Node>, String> {
        match n.get(key).and_then(|x| x.as_str()) {
            Some(id) => node_of(ids, id).map(Some),
            None => Ok(None),
        }
    };
    let opt_colour = |key: &str| n.get(key).and_then(|x| x.as_str()).and_then(Colour::parse);
    let small = |key: &str| n.get(key).and_then(|x| x.as_u64()).unwrap_or(0) as u8;
    Ok(NodeInfo {
        id: s(n, "id")?.to_string(),
        zone,
        kind,
        back: opt_node("back")?,
        lawyer_space: n["lawyer_space"].as_bool().unwrap_or(false),
        colour: opt_colour("colour"),
        ring: None,
        draw: small("draw"),
        station: opt_node("station")?,
        line: opt_colour("line"),
        wagon: small("wagon"),
        property: small("property"),
    })
}

/// The pawns' steps from each node and the hunter's neighbours (§2.4 `edges`, §2.6 direction).
type Edges = (Vec<Vec<(Node, EdgeType, Option<Colour>)>>, Vec<Vec<Node>>);

/// §2.4 `edges`: directed steps (undirected ones listed both ways, trams also backwards) and
/// the hunter's undirected graph (§3.17).
fn parse_edges(v: &serde_json::Value, ids: &Ids, count: usize) -> Result<Edges, String> {
    let mut out = vec![Vec::new(); count];
    let mut hunter_adj = vec![Vec::new(); count];
    for e in v["edges"].as_array().ok_or("edges")? {
        let (from, to) = (node_at(ids, e, "from")?, node_at(ids, e, "to")?);
        let colour = e
            .get("colour")
            .and_then(|x| x.as_str())
            .and_then(Colour::parse);
        let ty = match s(e, "type")? {
            "ring" => EdgeType::Ring,
            "release" => EdgeType::Release,
            "hunt_entry" => EdgeType::HuntEntry,
            "tram" => EdgeType::Tram,
            "yellow" => EdgeType::Yellow,
            "hunt_exit" => EdgeType::HuntExit,
            "village_entry" => EdgeType::VillageEntry,
            "lane" => EdgeType::Lane,
            "village" => EdgeType::Village,
            "pile" => EdgeType::Pile,
            t => return Err(format!("edge type {t}")),
        };
        out[from.idx()].push((to, ty, colour));
        match ty {
            EdgeType::Yellow | EdgeType::Village | EdgeType::Pile => {
                out[to.idx()].push((from, ty, colour))
            }
            EdgeType::Tram => out[to.idx()].push((from, EdgeType::TramBack, colour)),
            _ => {}
        }
        if matches!(
            ty,
            EdgeType::Ring
                | EdgeType::HuntEntry
                | EdgeType::Tram
                | EdgeType::Yellow
                | EdgeType::HuntExit
                | EdgeType::Pile
        ) {
            hunter_adj[from.idx()].push(to);
            hunter_adj[to.idx()].push(from);
        }
    }
    Ok((out, hunter_adj))
}

/// The up-to-six node ids of the array at `key` of `v`, in order.
fn six_nodes(ids: &Ids, v: &serde_json::Value, key: &str) -> Result<[Node; 6], String> {
    let mut six = [Node(0); 6];
    for (i, x) in v[key].as_array().ok_or(key)?.iter().enumerate().take(6) {
        six[i] = node_of(ids, x.as_str().ok_or_else(|| format!("{key} id"))?)?;
    }
    Ok(six)
}

/// The `colour` of a per-colour entry (`what` names the entry in the error).
fn colour_of(v: &serde_json::Value, what: &str) -> Result<Colour, String> {
    Colour::parse(s(v, "colour")?).ok_or_else(|| format!("{what} colour"))
}

impl Board {
    /// Parses `board.json` (§2.4) section by section, then checks a few invariants (§2.5).
    pub fn parse(json: &str) -> Result<Board, String> {
        let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let raw_nodes = v["nodes"].as_array().ok_or("nodes")?;
        let by_id = parse_ids(raw_nodes)?;
        let ids = &by_id;
        let mut nodes = raw_nodes
            .iter()
            .map(|n| parse_node(n, ids))
            .collect::<Result<Vec<_>, _>>()?;
        // §2.2 the main ring, clockwise.
        let mut ring = Vec::new();
        for (i, id) in v["ring"].as_array().ok_or("ring")?.iter().enumerate() {
            let r = node_of(ids, id.as_str().ok_or("ring id")?)?;
            nodes[r.idx()].ring = Some(i as u8);
            ring.push(r);
        }
        let (out, hunter_adj) = parse_edges(&v, ids, nodes.len())?;
        // §2.3 a prison and its probation officer per colour.
        let mut prison = [Node(0); 6];
        let mut probation = [Node(0); 6];
        for p in v["prisons"].as_array().ok_or("prisons")? {
            let c = colour_of(p, "prison")?;
            prison[c.index()] = node_at(ids, p, "prison")?;
            probation[c.index()] = node_at(ids, p, "probation_officer")?;
        }
        // §2.3 a village per colour: its fork and its six properties.
        let mut village_fork = [Node(0); 6];
        let mut properties = [[Node(0); 6]; 6];
        for vg in v["villages"].as_array().ok_or("villages")? {
            let c = colour_of(vg, "village")?;
            village_fork[c.index()] = node_at(ids, vg, "fork")?;
            properties[c.index()] = six_nodes(ids, vg, "properties")?;
        }
        // §3.10 express trains, §3.11 tram lines.
        let mut rails = Vec::new();
        for r in v["rails"].as_array().ok_or("rails")? {
            rails.push((node_at(ids, r, "departure")?, node_at(ids, r, "station")?));
        }
        let mut tram_lines = Vec::new();
        for t in v["tram_lines"].as_array().ok_or("tram_lines")? {
            let c = colour_of(t, "line")?;
            let wagons = six_nodes(ids, t, "wagons")?;
            tram_lines.push((
                c,
                wagons,
                node_at(ids, t, "entry_fork")?,
                node_at(ids, t, "exit_to")?,
            ));
        }
        let hunter_start = node_of(ids, v["hunter_start"].as_str().ok_or("hunter_start")?)?;
        let board = Board {
            nodes,
            by_id,
            ring,
            out,
            hunter_adj,
            prison,
            probation,
            village_fork,
            properties,
            hunter_start,
            rails,
            tram_lines,
        };
        board.validate()?;
        Ok(board)
    }

    /// A few of the spec's §2.5 invariants, so a corrupted copy fails loudly at first use.
    fn validate(&self) -> Result<(), String> {
        if self.nodes.len() != 163 {
            return Err(format!("163 nodes expected, got {}", self.nodes.len()));
        }
        if self.ring.len() != 72 {
            return Err("72 ring nodes expected".into());
        }
        for (i, r) in self.ring.iter().enumerate() {
            let next = self.ring[(i + 1) % 72];
            if !self.out[r.idx()]
                .iter()
                .any(|&(to, ty, _)| to == next && ty == EdgeType::Ring)
            {
                return Err(format!(
                    "ring edge {} → {} missing",
                    r.name_in(self),
                    next.name_in(self)
                ));
            }
        }
        for c in 0..6 {
            if !self.nodes[self.probation[c].idx()].lawyer_space {
                return Err("probation officer must be a lawyer space".into());
            }
        }
        Ok(())
    }

    pub fn info(&self, n: Node) -> &NodeInfo {
        &self.nodes[n.idx()]
    }

    /// The edge type of a directed step `from → to`, if any.
    pub fn step(&self, from: Node, to: Node) -> Option<(EdgeType, Option<Colour>)> {
        self.out
            .get(from.idx())?
            .iter()
            .find(|&&(t, _, _)| t == to)
            .map(|&(_, ty, c)| (ty, c))
    }

    /// Next ring node clockwise.
    pub fn ring_next(&self, n: Node) -> Option<Node> {
        let r = self.info(n).ring?;
        Some(self.ring[(usize::from(r) + 1) % 72])
    }

    pub fn is_property_of(&self, n: Node, c: Colour) -> bool {
        let i = self.info(n);
        i.zone == Zone::Village && i.colour == Some(c)
    }
}

impl Node {
    fn name_in(self, b: &Board) -> &str {
        &b.nodes[self.idx()].id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_parses_with_the_spec_counts() {
        let b = board();
        assert_eq!(b.nodes.len(), 163);
        assert_eq!(b.ring.len(), 72);
        assert_eq!(Node::parse("R00"), Some(b.probation[0]));
        assert_eq!(
            b.info(Node::parse("R07").unwrap()).station,
            Node::parse("R25")
        );
        assert_eq!(b.village_fork[0], Node::parse("R71").unwrap());
        let lawyers = b.nodes.iter().filter(|n| n.lawyer_space).count();
        assert_eq!(lawyers, 12);
    }
}
