// The replay viewer: /api/games/{id} for the seats, /api/games/{id}/replay[?seat=N] for the frames.
// Frame k is the table after k actions; in one seat's view the server sends that seat's cards only.
"use strict";

const root = document.getElementById("replay");
const gameId = root.dataset.game;
const slider = document.getElementById("slider");
const viewSel = document.getElementById("view");
const playBtn = document.getElementById("play");
let game = null, rep = null, step = 0, timer = null;

function seatName(s, r = rep) { return seatTag(r, s); }
// A scoring side by name: a team as the referee names it, a seat alone as its bot and seat.
function sideName(t, r = rep) { return r.sides.length === r.players ? seatTag(r, t) : r.sides[t]; }
function facts(r) { return {...r, bottom: r.seat ?? 0}; }   // the table's fixed facts, as table.js draws them

function drawSide(f) {
  const c = f.contract;
  fill(document.getElementById("contract"), c ? el("span", {}, `${seatName(c.bidder)}: ${contractText(c)}`) : "-",
    f.partner_card ? el("div", {}, "partner card ", card(f.partner_card)) : null);
  document.getElementById("target").textContent = `to ${rep.target_score}`;
  const scores = document.getElementById("scores");
  scores.replaceChildren(...rep.sides.map((name, t) => el("tr", {class: `team-${t % 8}`},
    el("th", {}, sideName(t)), el("td", {class: "num score", dataset: {team: t}}, f.scores[t]))));
  document.getElementById("auction").replaceChildren(el("ol", {}, f.bids.map(([s, b]) => el("li", {}, `${seatName(s)} ${bidText(b)}`))));
  const timing = f.actor === undefined ? [] : [el("li", {class: "timing"}, f.ms == null
    ? `${seatName(f.actor)}: played by the referee (forced, or a fallback)` : `${seatName(f.actor)} took ${f.ms} ms`)];
  document.getElementById("lines").replaceChildren(...f.lines.map((t) => el("li", {}, t)), ...timing,
    ...(f.faults || []).map((t) => el("li", {class: "fault"}, "fault: " + t)));
  drawSheet();
}

// The score sheet: one row per deal ended by this step (a row jumps to the step that ended it).
function drawSheet() {
  const done = rep.deals.filter((d) => d.step <= step);
  fill(document.getElementById("score-sheet"), done.length ? null : el("caption", {class: "muted"}, "no deal has ended yet"),
    el("thead", {}, el("tr", {}, el("th", {title: "deal"}, "#"), el("th", {}, "contract"),
       rep.sides.map((name, t) => el("th", {class: `team-${t % 8}`, title: sideName(t)}, name.replace(/ \(.*\)$/, ""))))),
    el("tbody", {}, done.map((d) => el("tr", {dataset: {deal: d.number, step: d.step}, title: "go to the end of this deal",
                                         onclick: () => { pause(); show(d.step); }},
      el("td", {class: "num"}, d.number), el("td", {}, dealResultText(rep, d)),
      d.points.map((p, t) => el("td", {class: "num"}, `${p > 0 ? "+" : ""}${p} `, el("small", {}, `(${d.scores[t]})`)))))));
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
  drawTable(document.getElementById("table"), facts(rep), f);
  drawSide(f);
  drawTwin(f);
}

// The duplicate twin beside it: the same cards with the seats rotated, at the same deal, trick and card.
let twin = null;
const progress = (f) => [f.deal, f.phase === "play" || f.phase === "game-over" ? 1 : 0, f.trick_number, f.trick.length];
function before(a, b) { for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i]; return true; }

function drawTwin(f) {
  const box = document.getElementById("twin");
  box.hidden = !twin;
  box.parentElement.classList.toggle("with-twin", Boolean(twin));
  if (!twin) return;
  const at = progress(f);
  let j = 0;
  while (j + 1 < twin.frames.length && before(progress(twin.frames[j + 1]), at)) j++;
  const g = twin.frames[j];
  box.dataset.step = j;
  document.getElementById("twin-title").textContent =
    `twin: game ${twin.game}, step ${j}` + (g.contract ? `; ${seatName(g.contract.bidder, twin)} ${contractText(g.contract)}` : "") +
    "; score " + sideFigures(twin, g.scores);
  drawTable(document.getElementById("twin-table"), facts(twin), g);
}

async function loadTwin() {
  const id = document.getElementById("twin-select").value;
  twin = id ? await api(`/api/games/${id}/replay` + (viewSel.value === "" ? "" : "?seat=" + viewSel.value)) : null;
  show(step);
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
  document.getElementById("winner-rule").textContent = rep.winner_rule ? `How it is won: ${rep.winner_rule}` : "";
  root.dataset.view = seat === "" ? "all" : seat;
  slider.max = rep.frames.length - 1;
  show(seat === "" ? rep.frames.length - 1 : Math.min(step, rep.frames.length - 1));
}

async function init() {
  try {
    game = await api(`/api/games/${gameId}`);
    document.getElementById("game-info").textContent =
      `${game.pool_label}, ${game.seed_withheld ? "seed withheld" : `seed ${game.seed}`}, ${game.status}, ` +
      `final scores by seat ${game.scores.join(" ")}`;
    fill(document.getElementById("twins"), game.twins.length ? ["duplicate twins (same cards, seats rotated): ",
      game.twins.map((t) => [el("a", {href: "/games/" + t, class: "twin"}, t), " "]),
      el("label", {}, " beside it: ", el("select", {id: "twin-select", onchange: () => loadTwin().catch((e) =>
        showError(document.getElementById("twin-table"), e))}, el("option", {value: ""}, "none"),
        game.twins.map((t) => el("option", {value: t}, `game ${t}`))))] : null);
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
  load(viewSel.value).then(() => (twin ? loadTwin() : null)).catch((e) => showError(document.getElementById("table"), e));
};
document.addEventListener("keydown", (e) => {
  if (!rep || e.target.closest("input, select")) return;
  const keys = {ArrowLeft: () => show(step - 1), ArrowRight: () => show(step + 1), Home: () => show(0),
                End: () => show(rep.frames.length - 1)};
  if (e.key === " ") { e.preventDefault(); timer ? pause() : play(); }
  else if (keys[e.key]) { e.preventDefault(); pause(); keys[e.key](); }
});
init();
