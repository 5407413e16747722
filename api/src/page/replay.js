// The replay and audit page (issue 30). It draws nothing itself: the server draws each
// position for this reader (board.svg) and tells the moves in words (replay). Sign-in: the
// app opens this page with #ticket=T (a stream ticket), traded once for an access token that
// stays in this tab only. A finished game needs no sign-in.
"use strict";
(function () {
  const game = document.body.dataset.game;
  const words = JSON.parse(document.getElementById("words").textContent);
  const $ = (id) => document.getElementById(id);
  const say = (key, args) =>
    (words[key] || key).replace(/\{(\w+)\}/g, (m, name) => (args && name in args ? String(args[name]) : m));
  const params = new URLSearchParams(location.hash.slice(1));
  const tokenKey = "homestretch-page-token";
  let token = sessionStorage.getItem(tokenKey);
  let record = null;
  let at = 0;
  const pictures = new Map();

  function message(text) {
    $("message").textContent = text;
  }

  async function api(path, options) {
    const init = Object.assign({ headers: {} }, options || {});
    if (token) init.headers.authorization = "Bearer " + token;
    const answer = await fetch(path, init);
    if (!answer.ok) {
      let detail = answer.status + "";
      try {
        const problem = await answer.json();
        detail = problem.detail || problem.title || detail;
      } catch (_) {
        // not problem+json: the status says it
      }
      const error = new Error(detail);
      error.status = answer.status;
      throw error;
    }
    return answer;
  }

  async function signIn() {
    const ticket = params.get("ticket");
    if (!ticket) return;
    // The ticket is single use: take it out of the address bar and the history at once.
    params.delete("ticket");
    history.replaceState(null, "", location.pathname + (params.toString() ? "#" + params : ""));
    const answer = await api("/v1/page-sessions?ticket=" + encodeURIComponent(ticket), { method: "POST" });
    token = (await answer.json()).access_token;
    sessionStorage.setItem(tokenKey, token);
  }

  async function picture(url) {
    if (!pictures.has(url)) {
      pictures.set(url, api(url).then((a) => a.text()));
    }
    return pictures.get(url);
  }

  function moveAt(version) {
    return record.moves.find((m) => m.first_seq <= version && version <= m.last_seq);
  }

  async function show(version) {
    at = Math.max(0, Math.min(record.version, version));
    $("slider").value = String(at);
    const move = moveAt(at);
    $("position").textContent =
      say("version", { at: at, head: record.version }) + (move && at > 0 ? " — " + move.words.join(" ") : "");
    for (const li of document.querySelectorAll("#moves li")) {
      li.classList.toggle("current", Number(li.dataset.last) === at);
    }
    const wanted = at;
    try {
      const svg = await picture("/v1/games/" + game + "/board.svg?at=" + wanted);
      if (wanted === at) $("board").innerHTML = svg;
    } catch (error) {
      message(say("error") + ": " + error.message);
    }
  }

  function dice(values) {
    const span = document.createElement("span");
    for (const value of values) {
      const die = document.createElement("span");
      die.className = "die";
      die.textContent = String(value);
      span.append(die);
    }
    return span;
  }

  function checksList(list, checks) {
    list.replaceChildren();
    for (const check of checks) {
      const li = document.createElement("li");
      li.className = check.passed ? "passed" : "failed";
      li.textContent = (check.passed ? "✓ " : "✗ ") + check.name + ": " + check.detail;
      list.append(li);
    }
  }

  function seatName(seat) {
    const found = record.seats.find((s) => s.seat === seat);
    const name = found ? found.name : "#" + seat;
    return seat === record.your_seat ? name + " (" + say("you") + ")" : name;
  }

  function moveItem(move) {
    const li = document.createElement("li");
    li.dataset.first = String(move.first_seq);
    li.dataset.last = String(move.last_seq);
    li.value = move.first_seq;
    const who = document.createElement("strong");
    who.textContent = moveSender(move);
    li.append(who);
    if (move.dice.length) {
      li.append(" " + say("dice") + " ", dice(move.dice));
    }
    const verdict = document.createElement("a");
    verdict.className = "verdict " + move.verdict;
    verdict.textContent = say(move.verdict);
    verdict.href = "/v1/games/" + game + "/audit/" + move.last_seq;
    verdict.title = say("audit") + " " + move.last_seq;
    const checks = document.createElement("ul");
    checks.className = "checks";
    verdict.addEventListener("click", async (event) => {
      event.preventDefault();
      event.stopPropagation();
      try {
        const audit = await (await api(verdict.getAttribute("href"))).json();
        checksList(checks, audit.checks);
      } catch (error) {
        message(say("error") + ": " + error.message);
      }
    });
    li.append(verdict);
    if (record.your_seat && move.seat !== null) {
      const open = document.createElement("button");
      open.type = "button";
      open.className = "open-dispute";
      open.textContent = say("dispute");
      open.addEventListener("click", (event) => {
        event.stopPropagation();
        disputeForm(li, move);
      });
      li.append(" ", open);
    }
    const list = document.createElement("ul");
    list.className = "words";
    for (const text of move.words) {
      const item = document.createElement("li");
      item.textContent = text;
      list.append(item);
    }
    li.append(list, checks);
    li.addEventListener("click", () => show(move.last_seq));
    return li;
  }

  function disputeForm(li, move) {
    if (li.querySelector("form")) return;
    const form = document.createElement("form");
    const reason = document.createElement("textarea");
    reason.setAttribute("aria-label", say("reason"));
    reason.placeholder = say("reason");
    const send = document.createElement("button");
    send.type = "submit";
    send.textContent = say("send");
    form.append(reason, send);
    form.addEventListener("click", (event) => event.stopPropagation());
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await api("/v1/games/" + game + "/disputes", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ seq: move.last_seq, reason: reason.value }),
        });
        const dispute = await answer.json();
        const link = document.createElement("a");
        link.href = "/games/" + game + "#dispute=" + dispute.id;
        link.textContent = dispute.id;
        form.replaceChildren(say("opened") + " ", link);
      } catch (error) {
        message(say("error") + ": " + error.message);
      }
    });
    li.append(form);
    reason.focus();
  }

  function summary() {
    const seats = record.seats.map((s) => seatName(s.seat)).join(", ");
    $("summary").textContent = record.kind + " · " + record.status + " · " + seats + " · " +
      (record.fair ? say("fair") : say("not_fair")) + " · " + record.rules_version;
    const seed = $("seed");
    seed.replaceChildren();
    const add = (term, value) => {
      const dt = document.createElement("dt");
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = value;
      seed.append(dt, dd);
    };
    add(say("seed_commitment"), record.seed_commitment);
    add(say("seed"), record.server_seed || say("seed_hidden"));
    $("audit-title").textContent = say("whole_audit") + ": " + say(record.sound ? "sound" : "unsound");
    checksList($("checks"), record.checks);
  }

  function moveSender(move) {
    let who = move.seat ? seatName(move.seat) : move.sent_by || say("server");
    // A seat's move sent by another (its bot once handed over, the clock): say who sent it.
    const holder = move.seat && record.seats.find((s) => s.seat === move.seat);
    if (holder && move.sent_by && move.sent_by !== holder.name) who += " · " + move.sent_by;
    return who;
  }

  function disputeHeading(dispute) {
    $("dispute-title").textContent =
      say("dispute_title", { seq: dispute.seq }) + " — " + say("status_" + dispute.status);
    $("dispute-reason").textContent = dispute.reason + (dispute.note ? " — " + dispute.note : "");
  }

  // An arbiter (who reads the dispute without a seat in the game) resolves an open dispute here.
  function resolutionForm(id, dispute) {
    const form = $("resolution");
    form.hidden = dispute.status !== "open" || record.your_seat !== null;
    if (form.hidden) return;
    $("resolution-note").placeholder = say("note");
    $("resolution-note").setAttribute("aria-label", say("note"));
    $("uphold").textContent = say("uphold");
    $("reject").textContent = say("reject");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await api("/v1/disputes/" + encodeURIComponent(id) + "/resolution", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ verdict: event.submitter.value, note: $("resolution-note").value }),
        });
        const resolved = await answer.json();
        disputeHeading(resolved);
        form.hidden = true;
      } catch (error) {
        message(say("error") + ": " + error.message);
      }
    });
  }

  async function disputeView(id) {
    const answer = await api("/v1/disputes/" + encodeURIComponent(id));
    const dispute = await answer.json();
    $("dispute").hidden = false;
    disputeHeading(dispute);
    const move = moveAt(dispute.seq);
    if (move) $("dispute-move").textContent = moveSender(move) + ": " + move.words.join(" ");
    $("before-caption").textContent = say("before");
    $("after-caption").textContent = say("after");
    const base = "/v1/disputes/" + encodeURIComponent(id) + "/board.svg?side=";
    $("before").innerHTML = await picture(base + "before");
    $("after").innerHTML = await picture(base + "after");
    checksList($("dispute-checks"), dispute.audit.checks || []);
    resolutionForm(id, dispute);
  }

  async function main() {
    $("previous").textContent = say("previous");
    $("next").textContent = say("next");
    $("moves-title").textContent = say("moves");
    message(say("loading"));
    try {
      await signIn();
      record = await (await api("/v1/games/" + game + "/replay")).json();
    } catch (error) {
      if (error.status === 401) {
        sessionStorage.removeItem(tokenKey);
        message(say("sign_in"));
      } else {
        message(say("error") + ": " + error.message);
      }
      return;
    }
    message("");
    summary();
    $("moves").replaceChildren(...record.moves.map(moveItem));
    const slider = $("slider");
    slider.max = String(record.version);
    slider.addEventListener("input", () => show(Number(slider.value)));
    $("previous").addEventListener("click", () => show(at - 1));
    $("next").addEventListener("click", () => show(at + 1));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "TEXTAREA") return;
      if (event.key === "ArrowLeft") show(at - 1);
      if (event.key === "ArrowRight") show(at + 1);
    });
    const start = params.has("at") ? Number(params.get("at")) : record.version;
    await show(Number.isFinite(start) ? start : record.version);
    if (params.get("dispute")) {
      try {
        await disputeView(params.get("dispute"));
      } catch (error) {
        message(say("error") + ": " + error.message);
      }
    }
  }

  main();
})();
