#!/usr/bin/env python3
"""Plays a whole game through a client GENERATED from openapi/openapi.json (openapi-python-client):
no hand-written request. Usage: HS_HOST_TOKEN=<an admin's token> play.py CLIENT_DIR URL KIND SEATS
OPTIONS_JSON SEED DICE (SEED: the bot's; DICE: the server's `rng_seed`).

Moves are picked from `choices` (issue 15): each prompted seat's families, one JSON Schema per
command kind; the bot samples an instance of a family. It steers towards command kinds it has not
sent yet (so a game uses every kind it can), otherwise prefers game moves over optional chatter so
the game ends. Prints the final summary as JSON, with the command kinds sent.
"""
import json
import os
import random
import sys
import uuid

client_dir, url, kind, seats, options, seed, dice = sys.argv[1:8]
sys.path.insert(0, client_dir)

from hs_client import AuthenticatedClient, Client  # noqa: E402
from hs_client.api.auth import guest  # noqa: E402
from hs_client.api.games import check_command, create_game, get_game, join_game, prompts, send_command, start_game  # noqa: E402
from hs_client.models import (  # noqa: E402
    BanditsOptions,
    CheckBody,
    CommandBody,
    CreateGameRequest,
    GameKind,
    GuestRequest,
    JoinRequest,
    MushOptions,
    PromptsResponse,
    Status,
    WhiskyRaceOptions,
)

rng = random.Random(int(seed))


def sample(schema, thrifty=False):
    """An instance of a family's schema (the vocabulary of domain::choices::schema). A thrifty
    instance spends little: integers (bids, modifiers) at their minimum, optional fields left out,
    and of the branches the one needing the fewest fields (a move without cards)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if schema.get("type") == "array" and ("anyOf" in schema or "prefixItems" in schema):
        return walk_paths(schema)
    for key in ("oneOf", "anyOf"):
        if key in schema:
            branches = schema[key]
            if thrifty:
                least = min(len(b.get("required", [])) for b in branches)
                branches = [b for b in branches if len(b.get("required", [])) == least]
            return sample(rng.choice(branches), thrifty)
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum", 0), schema.get("maximum", schema.get("minimum", 0) + 100)
        if thrifty:
            return low
        return rng.choice([low, high, rng.randint(low, high)])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "object":
        required = set(schema.get("required", []))
        return {
            name: sample(sub, thrifty)
            for name, sub in schema.get("properties", {}).items()
            if name in required or (not thrifty and rng.random() < 0.5)
        }
    if kind == "array":
        low, high = schema.get("minItems", 0), schema.get("maxItems", schema.get("minItems", 0) + 4)
        items = schema.get("items", {})
        if schema.get("uniqueItems") and "enum" in items:
            pool = list(items["enum"])
            rng.shuffle(pool)
            return pool[: rng.randint(low, min(high, len(pool)))]
        out = []
        for _ in range(rng.randint(low, high)):
            item = sample(items)
            if not (schema.get("uniqueItems") and item in out):
                out.append(item)
        return out
    raise ValueError(f"schema outside the choices vocabulary: {schema}")


def walk_paths(node, items=None, low=0):
    """One path of a prefix tree (domain::choices::schema::prefix_tree): each node pins the
    items of its chain with `prefixItems` and either ends (`maxItems`: any length from the
    enclosing `minItems` up to it) or goes on through one of its `anyOf` children."""
    items = list(items or [])
    for i, sub in enumerate(node.get("prefixItems", [])):
        if i >= len(items):
            items.append(sample(sub))
    low = max(low, node.get("minItems", 0))
    if "anyOf" in node:
        return walk_paths(rng.choice(node["anyOf"]), items, low)
    high = node.get("maxItems", len(items))
    return items[: rng.randint(low, max(low, high))]


anonymous = Client(base_url=url, raise_on_unexpected_status=True)
# The host is an admin (from the environment: only an admin may fix the server's dice with
# `rng_seed`, so a rare window opens on every run); the other seats are guests.
players = [AuthenticatedClient(base_url=url, token=os.environ["HS_HOST_TOKEN"], raise_on_unexpected_status=True)]
for i in range(1, int(seats)):
    token = guest.sync(client=anonymous, body=GuestRequest(name=f"gen{i}"))
    assert token is not None and token.token_type == "Bearer"
    players.append(AuthenticatedClient(base_url=url, token=token.access_token, raise_on_unexpected_status=True))

# The options through the game's own model: `CreateGameRequest.from_dict` would try the options
# union's branches in order and keep the first that parses (WhiskyRaceOptions, which parses any
# object and drops the fields it does not know: a Bandits or Mush game would get its defaults).
OPTIONS = {"whisky_race": WhiskyRaceOptions, "bandits": BanditsOptions, "mush": MushOptions}
wanted = json.loads(options)
created = create_game.sync_detailed(
    client=players[0],
    body=CreateGameRequest(
        kind=GameKind(kind), seats=int(seats), options=OPTIONS[kind].from_dict(wanted), rng_seed=dice
    ),
)
assert created.status_code == 201, created.content
summary = json.loads(created.content)
# The server got every option asked for (read raw: the summary's options union has the same trap).
assert all(summary["options"].get(k) == v for k, v in wanted.items()), (wanted, summary["options"])
assert summary["fair"] is False, summary  # fixed dice are marked as such
game_id = summary["id"]
for p in players[1:]:
    joined = join_game.sync(game_id, client=p, body=JoinRequest())
    assert joined is not None
started = start_game.sync(game_id, client=players[0])
assert started is not None and started.version >= 1, started

CHATTER = {"offer_trade", "accept_trade", "decline_trade", "withdraw_trade"}
# Steering: a kind that opens others (an offer opens its answers) stays fresh until they are used.
OPENS = {"offer_trade": {"accept_trade", "decline_trade", "withdraw_trade"}, "use_whisky": {"veto", "pass_veto"},
         "place_avalanche": {"move_avalanche", "remove_avalanche"}}
# Rare kinds: sent as soon as they are offered (a veto window passed keeps the Banff for a later
# one; a hunter moved or a hand trimmed is rarely offered twice).
RARE = {"pass_veto", "move_hunter", "discard_cards", "place_avalanche", "move_avalanche", "remove_avalanche"}
# Thrift: while a kind of `goal` is unsent, families of `spend` are avoided (unless nothing else is
# offered) and every instance is thrifty, so tokens (Mush: 5 per avalanche action) or cards (Bandits:
# a hand over the limit) pile up.
THRIFT = {
    "mush": ({"move_avalanche", "remove_avalanche"}, {"buy_reroll", "buy_overtake", "reduce_dice"}),
    "bandits": ({"discard_cards"}, {"play_card"}),
}
used = set()
offered_kinds = {}  # kind -> how many times a family of it was offered (diagnostics)


def fresh_kind(kind):
    return kind not in used or bool(OPENS.get(kind, set()) - used)


checked = 0
commands = 0
for _ in range(200_000):
    overview = prompts.sync(game_id, client=players[0])
    assert isinstance(overview, PromptsResponse), overview
    if not overview.prompts:
        break
    offers = []  # (seat, family) pairs the bot may pick from
    for prompt in overview.prompts:
        mine = prompts.sync(game_id, client=players[prompt.seat - 1])
        families = [f.to_dict() for f in mine.choices]
        assert families, f"seat {prompt.seat} is prompted but has no choices"
        # The prompt's kinds never omit a family that `choices` contains (issue 15).
        kinds = {f["kind"] for f in families}
        assert kinds <= set(prompt.kinds), (prompt.kinds, kinds)
        for family in families:
            offered_kinds[family["kind"]] = offered_kinds.get(family["kind"], 0) + 1
            if prompt.must or fresh_kind(family["kind"]):
                offers.append((prompt.seat, family))
    goal, spend = THRIFT.get(kind, (set(), set()))
    thrifty = bool(goal - used)
    rare = [o for o in offers if o[1]["kind"] in RARE and o[1]["kind"] not in used]
    if kind == "whisky_race" and "pass_veto" not in used:
        # A veto window needs a Banff in someone's hands: buy one whenever it is for sale.
        rare += [o for o in offers if o[1]["kind"] == "activate" and "banff" in json.dumps(o[1]["schema"])]
    fresh = [o for o in offers if fresh_kind(o[1]["kind"])]
    moves = [o for o in offers if o[1]["kind"] not in CHATTER]
    if thrifty:
        moves = [o for o in moves if o[1]["kind"] not in spend] or moves
    seat, family = rng.choice(rare or fresh or moves or offers)
    command = sample(family["schema"], thrifty and family["kind"] not in goal)
    if rng.random() < 0.1:
        # A UI checks a composed move before sending it: every instance of a family is accepted.
        check = check_command.sync_detailed(
            game_id, client=players[seat - 1], body=CheckBody.from_dict({"command": command})
        )
        assert check.status_code == 200, (command, check.content)
        checked += 1
    answer = send_command.sync_detailed(
        game_id,
        client=players[seat - 1],
        body=CommandBody.from_dict({"command": command, "command_id": str(uuid.uuid4())}),
    )
    assert answer.status_code == 200, (command, answer.content)
    used.add(command["type"])
    commands += 1

final = get_game.sync(game_id, client=players[0])
assert final.kind == kind, final
assert final.status == Status.FINISHED, final.status
winners = [w for w in final.outcome.winners]
assert winners, "a finished game has winners"
print(json.dumps({
    "kind": kind,
    "seats": int(seats),
    "commands": commands,
    "checked": checked,
    "version": final.version,
    "winners": winners,
    "kinds_used": sorted(used),
    "kinds_offered": offered_kinds,
}))
