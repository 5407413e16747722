// Plays a whole game through a TypeScript client generated from openapi/openapi.json
// (openapi-typescript types + openapi-fetch): no hand-written request type, no cast, no `any`.
// Compiled with `tsc --strict` by the e2e suite (tests/tests/e2e/ts_client.rs).
// Usage: node dist/play.js URL KIND SEATS SEED  → prints a JSON summary.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Command = Schemas["CommandBody"]["command"];
type GameKind = Schemas["GameKind"];
type Options = Schemas["CreateGameRequest"]["options"];

const [url = "", kindArg = "", seatsArg = "3", seedArg = "1"] = process.argv.slice(2);
const kinds: GameKind[] = ["whisky_race", "bandits", "mush"];
const kind = kinds.find((k) => k === kindArg);
if (kind === undefined) throw new Error(`unknown kind ${kindArg}`);
const seats = Number(seatsArg);

// A small seeded RNG (mulberry32): the game is reproducible for a given seed.
let state = Number(seedArg) >>> 0;
function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function pick<T>(items: T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

// The options are typed by the spec: a misspelt option fails tsc.
function options(kind: GameKind): Options {
  switch (kind) {
    case "whisky_race":
      return { random_setup: true, group_bidding: true, englishman_offer: true };
    case "bandits":
      return { pawns_per_player: 1, bounty_hunter: false, colours: [] };
    case "mush":
      return { layout: "first_game" };
  }
}

const anonymous = createClient<paths>({ baseUrl: url });
const players: Client<paths>[] = [];
for (let i = 0; i < seats; i++) {
  const { data, error } = await anonymous.POST("/v1/auth/guest", { body: { name: `ts${i}` } });
  if (data === undefined) throw new Error(`guest: ${JSON.stringify(error)}`);
  players.push(
    createClient<paths>({ baseUrl: url, headers: { Authorization: `Bearer ${data.access_token}` } }),
  );
}
function player(seat: number) {
  const client = players[seat - 1];
  if (client === undefined) throw new Error(`no player for seat ${seat}`);
  return client;
}

const created = await player(1).POST("/v1/games", {
  body: { kind, seats, options: options(kind) },
});
if (created.data === undefined) throw new Error(`create: ${JSON.stringify(created.error)}`);
const id = created.data.id;
const path = { params: { path: { id } } };
for (let seat = 2; seat <= seats; seat++) {
  const joined = await player(seat).POST("/v1/games/{id}/seats", path);
  if (joined.data === undefined) throw new Error(`join: ${JSON.stringify(joined.error)}`);
}
const started = await player(1).POST("/v1/games/{id}/start", path);
if (started.data === undefined) throw new Error(`start: ${JSON.stringify(started.error)}`);

// Optional chatter is sent once per kind at most, so the game moves on.
const chatter = new Set(["offer_trade", "accept_trade", "decline_trade", "withdraw_trade"]);
const used = new Set<string>();
let commands = 0;
for (let step = 0; step < 100000; step++) {
  const overview = await player(1).GET("/v1/games/{id}/prompts", path);
  if (overview.data === undefined) throw new Error(`prompts: ${JSON.stringify(overview.error)}`);
  if (overview.data.prompts.length === 0) break;
  // Every prompted seat's legal commands (typed: a union of the games' commands).
  const options: { seat: number; command: Command }[] = [];
  for (const prompt of overview.data.prompts) {
    const mine = await player(prompt.seat).GET("/v1/games/{id}/prompts", path);
    if (mine.data === undefined) throw new Error(`prompts: ${JSON.stringify(mine.error)}`);
    // `choices` describes the same commands as JSON Schema families, one per kind.
    const families = new Set(mine.data.choices.map((f) => f.kind));
    for (const command of mine.data.legal) {
      if (!families.has(command.type)) throw new Error(`${command.type} is not in choices`);
      if (prompt.must || !used.has(command.type)) options.push({ seat: prompt.seat, command });
    }
  }
  const fresh = options.filter((o) => !used.has(o.command.type));
  const moves = options.filter((o) => !chatter.has(o.command.type));
  const choice = pick(fresh.length > 0 ? fresh : moves.length > 0 ? moves : options);
  const sent = await player(choice.seat).POST("/v1/games/{id}/commands", {
    ...path,
    body: { command: choice.command, command_id: crypto.randomUUID() },
  });
  if (sent.data === undefined) {
    throw new Error(`${JSON.stringify(choice.command)}: ${JSON.stringify(sent.error)}`);
  }
  used.add(choice.command.type);
  commands++;
}

const final = await player(1).GET("/v1/games/{id}", path);
if (final.data === undefined) throw new Error(`game: ${JSON.stringify(final.error)}`);
const game = final.data;
if (game.status !== "finished" || !game.outcome) throw new Error(`not finished: ${game.status}`);
// The game resource is polymorphic on `kind`: its view narrows with it.
let detail = "";
switch (game.kind) {
  case "whisky_race":
    detail = `${game.view?.players.length ?? 0} distilleries`;
    break;
  case "bandits":
    detail = `${game.view?.scores.length ?? 0} bandits`;
    break;
  case "mush":
    detail = `${game.view?.players.length ?? 0} mushers`;
    break;
}
console.log(
  JSON.stringify({
    kind: game.kind,
    commands,
    version: game.version,
    winners: game.outcome.winners,
    kinds_used: [...used].sort(),
    detail,
  }),
);
