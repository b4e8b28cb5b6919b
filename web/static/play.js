// The play page: the seat's view from /api/seat (its own cards only), answered with POST /api/seat/answer.
// The person sits at the bottom of the table the replay viewer draws (table.js); legal cards are raised in the hand
// and clickable; other decisions (bids, trump, exchanges) are buttons. Each deal's result, with its final trick, is
// listed as it ends, and a finished game says how it ended and what comes next.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
// The page is rebuilt only when the seat's state has changed (the API's `changes` counter), and the table and the
// buttons only when the decision they answer has: a press whose button or card were replaced between its
// mouse-down and mouse-up would be no click at all.
let state = null, asked = 0, answering = null, shown = -1, drawn = null;

// The table's fixed facts (table.js) from the game's seating, as the referee announced it.
function tableOf(game) {
  const n = game.players, names = [], team_of = [];
  for (const t of game.table) { names[t.seat] = t.name; team_of[t.seat] = t.team; }
  const teams = Math.max(...team_of) + 1;
  const sides = Array.from({length: teams}, (_, i) => {
    const seats = team_of.flatMap((t, s) => (t === i ? [s] : []));
    const mine = seats.includes(game.seat);
    if (teams === n) return mine ? "you" : `${names[seats[0]]} (seat ${seats[0]})`;
    return (mine ? "your team" : `team ${i}`) + ` (seats ${seats.join(", ")})`;
  });
  return {players: n, names, team_of, sides, bottom: game.seat};
}

// The seat's view as a replay frame (table.js). Between the person's decisions the view is the one answered (with
// the person's move made) and the trick is followed from the game's events; once the view's deal is over, the table
// after its last trick. Other hands are backs: the hand dealt less the tricks played and the card on the table (a
// five-handed bidder holds the widow a moment longer: it shows as 9).
function frameOf(v, game, pending) {
  const done = game.deals.find((d) => d.number === v.deal);
  const live = !pending && !done;
  const trick = live ? game.trick : v.trick, tricks = live ? game.tricks_done : v.tricks.length;
  const inTrick = new Set(trick.map(([s]) => s));
  const last = live && game.last_trick ? game.last_trick :
    v.tricks.length ? {leader: v.tricks[v.tricks.length - 1][0], plays: v.tricks[v.tricks.length - 1][1],
                       winner: v.tricks[v.tricks.length - 1][2]} : null;
  const f = {
    deal: v.deal, dealer: v.dealer, phase: v.phase, to_act: pending ? v.to_act : null, contract: v.contract,
    partner: v.partner, sitting_out: v.sitting_out, leader: v.leader, trick, trick_number: tricks + 1, last_trick: last,
    tricks_won: v.tricks_won, scores: v.scores, hands: {[v.seat]: v.hand}, private: {[v.seat]: v.private},
    hand_sizes: Array.from({length: v.players}, (_, s) =>
      v.sitting_out.includes(s) ? 0 : Math.max(0, game.hand_size - tricks - (inTrick.has(s) ? 1 : 0))),
  };
  if (!done) return f;
  // The deal is over: the table after its last trick, and the score after it (the game's final one at its end).
  return {...f, trick: [], hands: {[v.seat]: []}, private: {}, hand_sizes: f.hand_sizes.map(() => 0),
          last_trick: done.last_trick, trick_number: done.tricks.reduce((a, b) => a + b, 0) + 1,
          tricks_won: done.tricks, contract: done.contract,
          scores: game.result && game.result.outcome ? game.result.outcome.scores : done.scores};
}

function outcomeText(game, t) {
  const r = game.result, o = r.outcome;
  if (!o) return `The game ended ${r.status}: ${r.reason || "no result"}.`;
  const mine = t.team_of[game.seat], score = `${o.scores[mine]} : ` + o.scores.filter((_, i) => i !== mine).join(" : ");
  const verdict = o.draw ? "Drawn" : o.winners.includes(mine) ? "You won" : "You lost";
  return `${verdict}, ${score} (${sideFigures(t, o.scores)}) after ${o.deals} deal${o.deals === 1 ? "" : "s"}` +
    (r.status === "completed" ? "." : `; the game was ${r.status}: ${r.reason}.`);
}

function trickCards(t, tr) {
  return tr ? el("span", {class: "final-trick"}, tr.plays.map(([s, c]) =>
    el("span", {class: "played-inline" + (s === tr.winner ? " winner" : ""), title: seatTag(t, s)}, card(c))),
    ` to ${seatTag(t, tr.winner, state.view.seat)}`) : null;
}

function renderDeals(game, t) {
  fill(document.getElementById("p-deals"), game.deals.map((d) => el("li", {class: "deal", dataset: {deal: d.number}},
    el("div", {}, `Deal ${d.number}: ${dealResultText(t, d, game.seat)}`),
    el("div", {class: "muted"}, `points ${sideFigures(t, d.points, true)}; score ${sideFigures(t, d.scores)}`),
    d.last_trick ? el("div", {}, "final trick: ", trickCards(t, d.last_trick)) : null)));
}

function render() {
  const v = state.view;
  const game = v ? state.games.find((g) => g.game_id === v.game_id) : null;
  const over = game && game.result && !state.pending;
  const status = document.getElementById("status");
  const ending = document.getElementById("p-end");
  document.getElementById("play").dataset.pending = state.pending;
  document.getElementById("play").dataset.request = state.pending ? v.request_id : "";
  document.getElementById("play").dataset.over = Boolean(over);
  status.textContent = state.pending ? `your move: game ${v.game_id}, seat ${v.seat}` :
    over ? `game ${v.game_id} is over` : state.session_over ? "the session is over" :
    game && game.deals.some((d) => d.number === v.deal) ? `deal ${v.deal} is over: waiting for the next deal…` :
    v ? "waiting for the other seats…" : "waiting for the referee to seat you in a game…";
  ending.hidden = !over && !state.session_over;
  if (!ending.hidden) {
    fill(ending, over ? el("p", {id: "p-outcome", class: "outcome"}, outcomeText(game, tableOf(game))) : null,
      el("p", {id: "p-next"}, state.session_over ? `The session is over: ${state.session_over}.` :
        "The next game starts when the arena seats you in it: this page follows."));
  }
  if (!v || !game) return;
  const t = tableOf(game);
  renderDeals(game, t);
  const c = v.contract;
  document.getElementById("p-contract").textContent = c ? `${seatTag(t, c.bidder, v.seat)}: ${contractText(c)}` : "-";
  document.getElementById("p-target").textContent = `to ${game.target_score}`;
  const f = frameOf(v, game, state.pending);
  fill(document.getElementById("p-scores"), t.sides.map((name, i) => el("tr", {class: `team-${i % 8}`},
    el("th", {}, name), el("td", {class: "num score", dataset: {side: i}}, f.scores[i]))));
  fill(document.getElementById("p-bids"), v.bids.map(([s, b]) => el("li", {}, `${seatTag(t, s, v.seat)} ${bidText(b)}`)));
  // The table and the buttons: redrawn only for another decision (or the game's end), never under a press.
  const key = `${v.game_id}/${v.request_id}/${state.pending}/${Boolean(over)}` +
    (state.pending ? "" : `/${game.deals.length}/${game.tricks_done}/${game.trick.length}`);
  if (key === drawn) return;
  drawn = key;
  const legal = state.pending ? v.legal_actions : [];
  const plays = new Map(legal.filter((a) => a.startsWith("play ")).map((a) => [a.slice(5), a]));
  drawTable(document.getElementById("play-table"), t, f,
            {you: v.seat, handId: "hand", legal: plays, onPlay: (a) => send(a, v.request_id)});
  fill(document.getElementById("actions"), legal.filter((a) => !a.startsWith("play ")).map((a) =>
    el("button", {class: "action", dataset: {action: a}, onclick: () => send(a, v.request_id)}, actionText(a))),
    plays.size ? el("span", {class: "muted"}, "click a raised card to play it") : null);
}

function renderGames() {
  fill(document.getElementById("p-games"), state.games.map((g) => el("li", {class: "game", dataset: {done: Boolean(g.result)}},
    `${g.ruleset} ${g.players}p, seat ${g.seat}: ` + (g.result ? `${g.result.status}` + (g.result.outcome ? `, scores ${g.result.outcome.scores.join(" : ")}` : "") : "playing"))));
}

// A decision is answered once: a second press on it is not sent again. (Only the same decision: the next one may be
// on the page before this answer's own request for the table has come back, and a press on it must go.)
async function send(action, requestId) {
  if (answering === requestId) return;
  answering = requestId;
  try {
    const r = await fetch("/api/seat/answer?token=" + encodeURIComponent(token), {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({action, request_id: requestId})});
    if (!r.ok) {
      answering = null;
      document.getElementById("status").textContent = (await r.json()).detail;
    }
  } catch (e) {
    answering = null;
    document.getElementById("status").textContent = String(e.message || e);
  }
  await poll();
}

async function poll() {
  try {
    const next = await api("/api/seat?token=" + encodeURIComponent(token));
    // Nothing new, or an answer overtaken by a newer one (the counter only grows): the table stays as it is.
    if (state && next.changes <= shown) return;
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
