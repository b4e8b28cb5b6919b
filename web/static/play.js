// The play page: the seat's view from /api/seat (its own cards only), answered with POST /api/seat/answer.
// Legal cards are highlighted in the hand and clickable; other decisions (bids, exchanges) are buttons.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
// The page is rebuilt only when the seat's state has changed (the API's `changes` counter): a press whose
// button or card were replaced between its mouse-down and mouse-up would be no click at all.
let state = null, asked = 0, sending = false, shown = -1;

function seatLabel(v, s) { return s === v.seat ? `you (seat ${s})` : `seat ${s}`; }

function render() {
  const v = state.view;
  document.getElementById("status").textContent = state.pending ? `your move: game ${v.game_id}, seat ${v.seat}` :
    v ? "waiting for the other seats…" : "waiting for the referee to seat you in a game…";
  document.getElementById("play").dataset.pending = state.pending;
  document.getElementById("play").dataset.request = state.pending ? v.request_id : "";
  if (!v) return;
  const legal = state.pending ? v.legal_actions : [];
  const plays = new Map(legal.filter((a) => a.startsWith("play ")).map((a) => [a.slice(5), a]));
  fill(document.getElementById("hand"), v.hand.map((c) => {
    const e = card(c);
    if (plays.has(c)) { e.classList.add("legal"); e.onclick = () => send(plays.get(c), v.request_id); e.title = "play " + c; }
    return e;
  }));
  fill(document.getElementById("actions"), legal.filter((a) => !a.startsWith("play ")).map((a) =>
    el("button", {class: "action", onclick: () => send(a, v.request_id)}, a)),
    plays.size ? el("span", {class: "muted"}, " click a highlighted card to play it") : null);
  const last = v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
  fill(document.getElementById("play-table"),
    el("div", {}, `deal ${v.deal}, dealer seat ${v.dealer}, ${v.phase}` + (v.to_act !== null ? `, ${seatLabel(v, v.to_act)} to act` : "")),
    el("div", {class: "trick"}, "on the table: ", v.trick.length ? v.trick.map(([s, c]) => [seatLabel(v, s), " ", card(c), " "]) : "-"),
    last ? el("div", {}, "last trick: ", last[1].map(([s, c]) => [seatLabel(v, s), " ", card(c), " "]), ` to ${seatLabel(v, last[2])}`) : null,
    el("div", {}, "tricks won: " + v.tricks_won.map((n, s) => `${seatLabel(v, s)} ${n}`).join(", ")));
  const c = v.contract;
  document.getElementById("p-contract").textContent = c ? `${seatLabel(v, c.bidder)}: ${c.bid} in ${c.trump ?? "?"}` + (c.alone ? " alone" : "") : "-";
  document.getElementById("p-scores").textContent = v.scores.join(" : ");
  fill(document.getElementById("p-bids"), v.bids.map(([s, b]) => el("li", {}, `${seatLabel(v, s)}: ${b}`)));
}

function renderGames() {
  fill(document.getElementById("p-games"), state.games.map((g) => el("li", {class: "game", dataset: {done: Boolean(g.result)}},
    `${g.ruleset} ${g.players}p, seat ${g.seat}: ` + (g.result ? `${g.result.status}` + (g.result.outcome ? `, scores ${g.result.outcome.scores.join(" ")}` : "") : "playing"))));
}

async function send(action, requestId) {
  if (sending) return;
  sending = true;
  try {
    const r = await fetch("/api/seat/answer?token=" + encodeURIComponent(token), {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({action, request_id: requestId})});
    if (!r.ok) document.getElementById("status").textContent = (await r.json()).detail;
    await poll();
  } finally { sending = false; }
}

async function poll() {
  try {
    const next = await api("/api/seat?token=" + encodeURIComponent(token));
    if (next.changes === shown && state) return;   // nothing new: the table stays as it is, clicks included
    state = next;
    shown = next.changes;
    asked = Date.now();
    render();
    renderGames();
  } catch (e) { document.getElementById("status").textContent = String(e.message || e); }
}

// The clock: seconds left for the pending decision (its deadline and the seat's time bank), counted down here.
setInterval(() => {
  const clock = document.getElementById("clock");
  if (!state || !state.pending) { clock.textContent = ""; return; }
  const left = Math.max(0, state.seconds_left - (Date.now() - asked) / 1000);
  clock.textContent = `${left.toFixed(1)} s`;
  clock.classList.toggle("low", left < 5);
}, 100);
setInterval(poll, 300);
poll();
