// The replay viewer: /api/games/{id} for the seats, /api/games/{id}/replay[?seat=N] for the frames.
// Frame k is the table after k actions; in one seat's view the server sends that seat's cards only.
"use strict";

const root = document.getElementById("replay");
const gameId = root.dataset.game;
const slider = document.getElementById("slider");
const viewSel = document.getElementById("view");
const playBtn = document.getElementById("play");
let game = null, rep = null, step = 0, timer = null;

function seatName(s) { return `${rep.names[s]} (seat ${s})`; }

function drawTable(f) {
  const table = document.getElementById("table");
  const n = rep.players, bottom = rep.seat ?? 0;
  table.querySelectorAll(".seat").forEach((e) => e.remove());
  const center = document.getElementById("center");
  const onTable = new Map(f.trick.map(([s, c]) => [s, c]));
  const shown = f.trick.length ? f.trick : (f.last_trick ? f.last_trick.plays : []);
  center.replaceChildren(
    el("div", {class: "trick-title"}, f.trick.length ? `trick ${f.trick_number}` :
       f.last_trick ? `trick ${f.trick_number - 1} to ${seatName(f.last_trick.winner)}` : `deal ${f.deal}`),
    el("div", {class: "trick", id: "trick"}, shown.map(([s, c]) =>
      el("div", {class: "played" + (!f.trick.length && f.last_trick && s === f.last_trick.winner ? " winner" : "")},
         el("small", {}, rep.names[s]), card(c)))));
  for (let s = 0; s < n; s++) {
    const a = Math.PI / 2 + (2 * Math.PI * (s - bottom)) / n;   // the viewed seat at the bottom, then clockwise
    const x = 50 + 38 * Math.cos(a), y = 50 + 33 * Math.sin(a);
    const hand = f.hands[String(s)];
    const priv = f.private[String(s)];
    const box = el("div", {class: "seat" + (f.to_act === s ? " to-act" : "") + (s === f.dealer ? " dealer" : "") +
                             (f.sitting_out.includes(s) ? " out" : ""),
                           style: `left:${x}%;top:${y}%`, dataset: {seat: s}},
      el("div", {class: "name"}, rep.names[s], el("small", {}, ` seat ${s}` + (rep.sides.length < n ? `, team ${rep.team_of[s]}` : "") +
         (s === f.dealer ? ", dealer" : "") + (f.contract && f.contract.bidder === s ? ", bidder" : "") +
         (f.partner === s ? ", partner" : ""))),
      el("div", {class: "tricks-won"}, `tricks ${f.tricks_won[s] ?? 0}` + (onTable.has(s) ? "" : "")),
      el("div", {class: "hand"}, hand === undefined ? el("span", {class: "hidden-hand"}, "hidden") : hand.map(card)),
      priv ? el("div", {class: "private"}, Object.entries(priv).map(([k, v]) =>
        el("div", {}, k.replaceAll("_", " ") + ": ", Array.isArray(v) ? v.map(card) : String(v)))) : null);
    table.append(box);
  }
}

function drawSide(f) {
  const c = f.contract;
  fill(document.getElementById("contract"), c ? el("span", {},
    `${seatName(c.bidder)}: ${c.bid} in ${c.trump ?? "?"}` + (c.alone ? " alone" : "")) : "-",
    f.partner_card ? el("div", {}, "partner card ", card(f.partner_card)) : null);
  const scores = document.getElementById("scores");
  scores.replaceChildren(...rep.sides.map((name, t) => el("tr", {},
    el("th", {}, name), el("td", {class: "num score", dataset: {team: t}}, f.scores[t]))));
  document.getElementById("auction").replaceChildren(el("ol", {}, f.bids.map(([s, b]) => el("li", {}, `${rep.names[s]}: ${b}`))));
  document.getElementById("lines").replaceChildren(...f.lines.map((t) => el("li", {}, t)));
}

function show(k) {
  step = Math.max(0, Math.min(k, rep.frames.length - 1));
  const f = rep.frames[step];
  slider.value = step;
  const end = step === rep.frames.length - 1;
  document.getElementById("step-label").textContent =
    `step ${step} / ${rep.frames.length - 1}, deal ${f.deal}, ${f.phase}` + (end && rep.outcome ? " (final)" : "");
  root.dataset.step = step;
  root.dataset.atEnd = end;
  drawTable(f);
  drawSide(f);
}

function pause() { clearInterval(timer); timer = null; playBtn.textContent = "play"; }
function play() {
  if (step >= rep.frames.length - 1) show(0);
  playBtn.textContent = "pause";
  timer = setInterval(() => {
    show(step + 1);
    if (step >= rep.frames.length - 1) pause();   // stops on the last step, not a tick after it
  }, Number(document.getElementById("speed").value));
}

async function load(seat) {
  pause();
  const q = seat === "" ? "" : "?seat=" + seat;
  rep = await api(`/api/games/${gameId}/replay${q}`);
  root.dataset.view = seat === "" ? "all" : seat;
  slider.max = rep.frames.length - 1;
  show(seat === "" ? rep.frames.length - 1 : Math.min(step, rep.frames.length - 1));
}

async function init() {
  try {
    game = await api(`/api/games/${gameId}`);
    document.getElementById("game-info").textContent =
      `${game.pool_label}, seed ${game.seed}, ${game.status}, final scores by seat ${game.scores.join(" ")}`;
    fill(document.getElementById("twins"), game.twins.length ? ["duplicate twins (same cards, seats rotated): ",
      game.twins.map((t) => [el("a", {href: "/games/" + t, class: "twin"}, t), " "])] : null);
    viewSel.append(...game.labels.map((b, s) => el("option", {value: s}, `seat ${s}: ${b}`)));
    document.querySelector("#seats tbody").replaceChildren(...game.seat_details.map((s) => el("tr", {},
      el("td", {class: "num"}, s.seat), el("td", {}, game.labels[s.seat]), el("td", {}, s.status),
      el("td", {class: Object.values(s.faults).some(Boolean) ? "fault" : ""},
         Object.entries(s.faults).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(", ") || "-"),
      el("td", {class: "num"}, s.fallbacks), el("td", {class: "num"}, s.decisions),
      el("td", {class: "num"}, num(s.latency_p50_ms, 2)), el("td", {class: "num"}, num(s.latency_p99_ms, 2)),
      el("td", {class: "num"}, s.score))));
    const seat = new URLSearchParams(location.search).get("seat") ?? "";
    viewSel.value = seat;
    await load(seat);
  } catch (e) { showError(document.getElementById("table"), e); }
}

document.getElementById("first").onclick = () => { pause(); show(0); };
document.getElementById("prev").onclick = () => { pause(); show(step - 1); };
document.getElementById("next").onclick = () => { pause(); show(step + 1); };
document.getElementById("last").onclick = () => { pause(); show(rep.frames.length - 1); };
playBtn.onclick = () => (timer ? pause() : play());
slider.oninput = () => { pause(); show(Number(slider.value)); };
document.getElementById("speed").onchange = () => { if (timer) { pause(); play(); } };
viewSel.onchange = () => {
  const q = new URLSearchParams(location.search);
  if (viewSel.value === "") q.delete("seat"); else q.set("seat", viewSel.value);
  history.replaceState(null, "", "?" + q);
  load(viewSel.value).catch((e) => showError(document.getElementById("table"), e));
};
document.addEventListener("keydown", (e) => {
  if (!rep || e.target.closest("input, select")) return;
  const keys = {ArrowLeft: () => show(step - 1), ArrowRight: () => show(step + 1), Home: () => show(0),
                End: () => show(rep.frames.length - 1)};
  if (e.key === " ") { e.preventDefault(); timer ? pause() : play(); }
  else if (keys[e.key]) { e.preventDefault(); pause(); keys[e.key](); }
});
init();
