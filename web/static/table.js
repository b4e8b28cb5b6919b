// The card table, as the replay viewer and the play page both draw it: the seats around a felt, the viewed seat at
// the bottom, the trick (or the last one, with its winner) in the middle. Needs common.js (el, fill, card, notation).
//
// drawTable(box, t, f, opts)
//   t: the table's fixed facts {players, names, team_of, sides, bottom}: bot names and teams by seat, the scoring
//      sides' names, the seat drawn at the bottom (the viewer's, or 0);
//   f: one moment of a deal {deal, dealer, phase, to_act, hands: {seat: cards}, hand_sizes: [n by seat],
//      private: {seat: {...}}, contract, partner, sitting_out, leader, trick, last_trick, trick_number, tricks_won}:
//      a replay frame as /api/games/ID/replay sends it, or the play page's view made into one. A hand that is not
//      in ``hands`` is drawn as card backs, as many as ``hand_sizes`` says;
//   opts: {you: seat (labelled "you"), handId: the id of the bottom seat's hand, legal: Map card -> action (raised
//      and clickable in the bottom hand), onPlay(action)}.
"use strict";

// "heuristic (seat 2)": partners of the same bot are told apart by their seat.
function seatTag(t, s, you = null) { return s === you ? `you (seat ${s})` : `${t.names[s]} (seat ${s})`; }

// A team's colour class: each scoring side its own (seats alone: each seat its own).
function teamClass(t, s) { return `team-${t.team_of[s] % 8}`; }

// The suit a trick's first card leads: a left bower (the jack of trump's colour) leads trump.
function ledSuit(c, trump) {
  const suit = c.slice(-1), rank = c.slice(0, -1);
  const pair = {S: "C", C: "S", H: "D", D: "H"};
  return rank === "J" && trump && pair[trump] === suit ? trump : suit;
}

function cardBacks(n) {
  if (!n) return null;
  return el("span", {class: "hidden-hand", title: `${n} cards, hidden`},
    Array.from({length: n}, () => el("span", {class: "card back"})), el("span", {class: "count"}, `${n}`));
}

function drawTrick(center, t, f, you) {
  const current = f.trick.length > 0;
  const shown = current ? f.trick : (f.last_trick ? f.last_trick.plays : []);
  const winner = !current && f.last_trick ? f.last_trick.winner : null;
  const trump = f.contract ? f.contract.trump : null;
  const led = shown.length ? ledSuit(shown[0][1], trump) : null;
  const title = current ? `trick ${f.trick_number}` :
    f.last_trick ? `trick ${f.trick_number - 1} to ${seatTag(t, winner, you)}` : `deal ${f.deal}`;
  fill(center,
    el("div", {class: "trick-title"}, title, led ? el("span", {class: "led"}, ` · ${strainText(led)} led`) : null),
    el("div", {class: "trick"}, shown.map(([s, c], i) =>
      el("div", {class: `played ${teamClass(t, s)}` + (i === 0 ? " leader" : "") + (s === winner ? " winner" : ""),
                 dataset: {seat: s}},
         el("small", {}, seatTag(t, s, you)), card(c),
         i === 0 ? el("small", {class: "mark"}, "led") : s === winner ? el("small", {class: "mark"}, "won") : null))));
}

function drawTable(box, t, f, opts = {}) {
  const n = t.players, bottom = t.bottom ?? 0, you = opts.you ?? null;
  box.querySelectorAll(".seat").forEach((e) => e.remove());
  drawTrick(box.querySelector(".center"), t, f, you);
  for (let s = 0; s < n; s++) {
    const a = Math.PI / 2 + (2 * Math.PI * (s - bottom)) / n;   // the bottom seat, then on round the table
    const x = 50 + 38 * Math.cos(a), y = 50 + 33 * Math.sin(a);
    const hand = f.hands[String(s)], priv = (f.private || {})[String(s)];
    const out = f.sitting_out.includes(s);
    const roles = [t.sides.length < n ? t.sides[t.team_of[s]] : null, s === f.dealer ? "dealer" : null,
                   f.contract && f.contract.bidder === s ? "bidder" : null, f.partner === s ? "partner" : null,
                   out ? "sits out" : null].filter(Boolean);
    let cards;
    if (hand !== undefined) {
      cards = hand.map((c) => {
        const e = card(c), action = s === bottom && opts.legal ? opts.legal.get(c) : undefined;
        if (action) { e.classList.add("legal"); e.title = actionText(action); e.onclick = () => opts.onPlay(action); }
        return e;
      });
    } else cards = cardBacks(f.hand_sizes ? f.hand_sizes[s] : 0);
    box.append(el("div", {class: `seat ${teamClass(t, s)}` + (f.to_act === s ? " to-act" : "") +
                             (s === f.dealer ? " dealer" : "") + (out ? " out" : "") + (s === bottom ? " bottom" : ""),
                          style: `left:${x}%;top:${y}%`, dataset: {seat: s, team: t.team_of[s]}},
      el("div", {class: "name"}, s === you ? "you" : t.names[s], el("small", {}, ` seat ${s}`),
         f.to_act === s ? el("span", {class: "turn"}, s === you ? "your turn" : "to act") : null),
      roles.length ? el("div", {class: "roles"}, roles.join(" · ")) : null,
      el("div", {class: "tricks-won"}, `tricks ${f.tricks_won[s] ?? 0}`),
      el("div", {class: "hand", id: s === bottom && opts.handId ? opts.handId : null}, cards),
      priv ? el("div", {class: "private"}, Object.entries(priv).map(([k, v]) =>
        el("div", {}, k.replaceAll("_", " ") + ": ", Array.isArray(v) ? v.map(card) : String(v)))) : null));
  }
}

// A deal's result in words: "heuristic (seat 1) 6 ♦: made", "thrown in", with the points per side.
function dealResultText(t, d, you = null) {
  if (!d.contract) return "thrown in: everyone passed";
  const bidderSide = t.team_of[d.contract.bidder];
  const made = d.made ?? (d.ceded || d.points[bidderSide] > 0);
  return `${seatTag(t, d.contract.bidder, you)} ${contractText(d.contract)}: ` +
    (d.ceded ? "ceded by the defenders" : made ? "made" : "set");
}

// Points and scores per side, labelled: "team 0 +6 (12), team 1 -4 (3)".
function sideFigures(t, values, signed = false) {
  return t.sides.map((name, i) => `${name} ${signed && values[i] > 0 ? "+" : ""}${values[i]}`).join(", ");
}
