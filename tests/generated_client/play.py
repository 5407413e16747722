#!/usr/bin/env python3
"""Plays a whole game through a client GENERATED from openapi/openapi.json (openapi-python-client):
no hand-written request. Usage: play.py CLIENT_DIR URL KIND SEATS OPTIONS_JSON SEED

The bots send only legal commands taken from `prompts`; they prefer game moves over trade chatter
so games end in a reasonable number of commands. Prints the final summary as JSON.
"""
import json
import random
import sys
import uuid

client_dir, url, kind, seats, options, seed = sys.argv[1:7]
sys.path.insert(0, client_dir)

from hs_client import AuthenticatedClient, Client  # noqa: E402
from hs_client.api.auth import guest  # noqa: E402
from hs_client.api.games import create_game, get_game, join_game, prompts, send_command, start_game  # noqa: E402
from hs_client.models import (  # noqa: E402
    CommandBody,
    CreateGameRequest,
    GameDetail,
    GameKind,
    GuestRequest,
    JoinRequest,
    PromptsResponse,
    Status,
)

rng = random.Random(int(seed))
anonymous = Client(base_url=url, raise_on_unexpected_status=True)
players = []
for i in range(int(seats)):
    token = guest.sync(client=anonymous, body=GuestRequest(name=f"gen{i}"))
    assert token is not None and token.token_type == "Bearer"
    players.append(AuthenticatedClient(base_url=url, token=token.access_token, raise_on_unexpected_status=True))

summary = create_game.sync(
    client=players[0],
    # from_dict: the generated models build nested ones (the options object) themselves.
    body=CreateGameRequest.from_dict({"kind": GameKind(kind).value, "seats": int(seats), "options": json.loads(options)}),
)
game_id = summary.id
for p in players[1:]:
    joined = join_game.sync(game_id, client=p, body=JoinRequest())
    assert joined is not None
started = start_game.sync(game_id, client=players[0])
assert started is not None and started.version >= 1, started

CHATTER = {"offer_trade", "accept_trade", "decline_trade", "withdraw_trade"}
commands = 0
for _ in range(200_000):
    overview = prompts.sync(game_id, client=players[0])
    assert isinstance(overview, PromptsResponse), overview
    waiting = sorted({p.seat for p in overview.prompts if set(p.kinds) - CHATTER})
    if not overview.prompts:
        break
    if not waiting:
        waiting = sorted({p.seat for p in overview.prompts})
    seat = rng.choice(waiting)
    mine = prompts.sync(game_id, client=players[seat - 1])
    legal = [item.to_dict() for item in mine.legal]
    assert legal, f"seat {seat} is prompted but has no legal command"
    moves = [c for c in legal if c.get("type") not in CHATTER] or legal
    command = rng.choice(moves)
    answer = send_command.sync_detailed(
        game_id,
        client=players[seat - 1],
        body=CommandBody.from_dict({"command": command, "command_id": str(uuid.uuid4())}),
    )
    assert answer.status_code == 200, (command, answer.content)
    commands += 1

final = get_game.sync(game_id, client=players[0])
assert isinstance(final, GameDetail), final
assert final.status == Status.FINISHED, final.status
winners = [w for w in final.outcome.winners]
assert winners, "a finished game has winners"
print(json.dumps({"kind": kind, "seats": int(seats), "commands": commands, "version": final.version, "winners": winners}))
