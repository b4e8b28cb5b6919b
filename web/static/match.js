// The matches (`pepper arena match`): the list (/matches) and one match's SPRT trace (/matches/RUN), live.
"use strict";

const listBody = document.querySelector("#matches tbody");
const runId = document.getElementById("match-title")?.dataset.run;

function elo(h) {
  if (!h) return "-";
  // The API writes an infinite or undefined figure as null: the Elo of a score of 0 or 1 is infinite; an interval
  // with both ends null is unknown (every block alike: no spread), with one end null that end is infinite.
  const signed = (x, inf) => (x === null ? inf : (x > 0 ? "+" : "") + num(x, 0));
  const unknown = h.elo_low === null && h.elo_high === null;
  return `${signed(h.elo, h.score > 0.5 ? "+inf" : "-inf")} ` +
    `[${signed(h.elo_low, unknown ? "?" : "-inf")}, ${signed(h.elo_high, unknown ? "?" : "+inf")}]`;
}

function test(m) { return `elo0=${m.sprt.elo0} elo1=${m.sprt.elo1} alpha=${m.sprt.alpha} beta=${m.sprt.beta}`; }

// In words, as `pepper arena match` says it.
function verdict(m) {
  if (m.verdict === "H1") return `H1 accepted: ${m.a} is stronger than ${m.b} (elo1=${m.sprt.elo1})`;
  if (m.verdict === "H0") return `H0 accepted: ${m.a} is not stronger than ${m.b} by elo1=${m.sprt.elo1} (elo0=${m.sprt.elo0})`;
  if (m.state === "undecided") return `undecided: its ${m.max_games} games ran out before the test decided`;
  return "playing: the test has not decided yet";
}

async function loadList() {
  const all = await api("/api/matches");
  document.getElementById("count").textContent = all.length ? `${all.length} matches, newest first`
    : "No match yet: `pepper arena match A B` plays one.";
  listBody.replaceChildren(...all.map((m) => el("tr", {dataset: {run: m.run, verdict: m.state}},
    el("td", {class: "num"}, el("a", {href: "/matches/" + m.run}, m.run)),
    el("td", {}, el("a", {href: "/matches/" + m.run}, `${m.a} vs ${m.b}`)),
    el("td", {}, m.label ?? "-"),
    el("td", {}, test(m)),
    el("td", {class: "verdict"}, m.verdict ?? m.state),
    el("td", {class: "num"}, `${num(m.llr, 2)} [${num(m.sprt.lower, 2)}, ${num(m.sprt.upper, 2)}]`),
    el("td", {class: "num"}, `${m.blocks} (${m.games})`),
    el("td", {class: "num"}, elo(m.adjusted ?? m.estimate)))));
}

async function loadMatch() {
  const box = document.getElementById("match");
  const m = await api("/api/matches/" + runId);
  const h = m.estimate;
  box.dataset.verdict = m.state;
  fill(box,
    el("p", {}, el("strong", {}, `${m.a} vs ${m.b}`), ` in ${m.label ?? "-"}; the test: `, el("code", {}, test(m))),
    el("p", {class: "verdict"}, verdict(m)),
    el("p", {}, `LLR ${num(m.llr, 2)} [${num(m.sprt.lower, 2)}, ${num(m.sprt.upper, 2)}] after ${m.blocks} blocks ` +
       `(${m.games} games); ${m.played} games of the match stored`),
    m.adjusted ? el("p", {class: "adjusted"}, `Elo ${elo(m.adjusted)} (95%), adjusted for the test's stop ` +
                    "(the plain figures below overstate a difference the test stopped on)") : null,
    h ? el("p", {}, `${m.adjusted ? "plain: " : ""}Elo ${elo(h)} (95%), nElo ${num(h.nelo, 1)}, LOS ${num(100 * h.los, 1)}%, score ${num(100 * h.score, 1)}%, ` +
           `margin ${num(h.margin, 2)} points per game, over ${h.blocks} blocks (${h.games} games)`) : null);
  document.querySelector("#trace tbody").replaceChildren(...m.trace.map((t) => el("tr", {dataset: {block: t.block}},
    el("td", {class: "num"}, t.block), el("td", {class: "num"}, t.games), el("td", {class: "num"}, num(t.score, 3)),
    el("td", {class: "num llr"}, num(t.llr, 2)))));
  const chart = document.getElementById("sprt");
  const width = Math.max(280, Math.min(1000, Math.floor(chart.clientWidth / 10) * 10));
  const r = await fetch(`/charts/matches/${runId}/sprt.svg?width=${width}`);
  if (!r.ok) throw new Error(`${r.status} ${r.statusText}: the SPRT chart`);
  chart.innerHTML = await r.text();   // drawn by this server: labels escaped, no script
}

const reloadMatches = oneAtATime(async () => {
  try { await (runId ? loadMatch() : loadList()); }
  catch (e) { showError(document.getElementById(runId ? "match" : "count"), e); }
});
reloadMatches();
followChanges(reloadMatches);

// A turned phone or a resized window: the charts are drawn for their box's width, so draw them again.
let drawnFor = innerWidth;
addEventListener("resize", () => { if (Math.abs(innerWidth - drawnFor) >= 40) { drawnFor = innerWidth; reloadMatches(); } });
