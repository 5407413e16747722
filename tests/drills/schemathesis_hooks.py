"""Schemathesis hooks for Homestretch's spec fuzzing (tests/tests/e2e/fuzz.rs, tests/drills/fuzz.sh).

Random UUIDs in `/v1/games/{id}/...` only ever reach the 404 path. With HOMESTRETCH_FUZZ_GAMES
set (comma-separated game ids: games of every kind and option sample, played across several
snapshots), most generated ids are replaced by one of those games, so fuzzed commands, replays,
audits, exports and disputes run against real game state; the rest stay random.
"""

import os

import schemathesis
from hypothesis import strategies as st

GAMES = [g for g in os.environ.get("HOMESTRETCH_FUZZ_GAMES", "").split(",") if g]


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    operation = getattr(context, "operation", None)
    path = getattr(operation, "path", "") or ""
    if not GAMES or not path.startswith("/v1/games/{id}") or "id" not in (path_parameters or {}):
        return st.just(path_parameters)
    played = st.sampled_from(GAMES).map(lambda game: {**path_parameters, "id": game})
    return st.one_of(played, played, played, st.just(path_parameters))
