// The leaderboard page: /api/pools, /api/leaderboard, the history charts; refreshed on every store change.
"use strict";

const poolSel = document.getElementById("pool");
const allVersions = document.getElementById("all-versions");
const params = new URLSearchParams(location.search);

// The pool menu, rebuilt from /api/pools on every reload (a pool a running tournament starts appears live), keeping
// the reader's choice; the first time, the pool of ?pool= or else the one played last.
async function loadPools() {
  const pools = await api("/api/pools");
  const chosen = poolSel.value;
  poolSel.replaceChildren(...pools.map((p) => el("option", {value: p.key}, p.label)));
  const wanted = params.get("pool");
  if (chosen && pools.some((p) => p.key === chosen)) {
    poolSel.value = chosen;
  } else if (wanted && pools.some((p) => p.key === wanted || p.label === wanted)) {
    poolSel.value = pools.find((p) => p.key === wanted || p.label === wanted).key;
  } else if (pools.length) {  // the pool played last
    poolSel.value = pools.reduce((a, b) => (b.newest_game > a.newest_game ? b : a)).key;
  }
  return pools.length;
}

function faultCell(n, kind) { return el("td", {class: n ? "fault num" : "num", title: kind}, n); }

async function loadTable() {
  const tbody = document.querySelector("#leaderboard tbody");
  if (!poolSel.value) { tbody.replaceChildren(el("tr", {}, el("td", {colspan: 16}, "no rated pool yet"))); return; }
  const q = new URLSearchParams({pool: poolSel.value, all_versions: allVersions.checked});
  const board = await api("/api/leaderboard?" + q);
  document.getElementById("newest").textContent = "newest game " + board.newest_game;
  // A row not significantly below the row above (arena.stats: their duplicate blocks, else TrueSkill) ranks ~N; one
  // that beats it head to head, though rated below, ^N.
  tbody.replaceChildren(...board.rows.map((r, i) => {
    const above = board.rows[i - 1];
    const why = above ? `P(${above.label} stronger) = ${num(100 * above.next_los, 1)}% from ` +
      (above.next_basis === "blocks" ? "their duplicate blocks" : "their TrueSkill ratings") : null;
    return el("tr", {dataset: {bot: r.bot, version: r.version, games: r.games, tied: r.tied_above}},
      el("td", {class: "num rank", title: r.beats_above ? "beats the row above head to head, though rated below: " + why :
                r.tied_above ? "not significantly below the row above: " + why : why},
         (r.beats_above ? "^" : r.tied_above ? "~" : "") + r.rank),
      el("td", {}, el("a", {href: "/bots/" + encodeURIComponent(r.bot)}, r.label)),
      el("td", {class: "num points"}, r.points === null ? "-" : (r.points >= 0 ? "+" : "") + num(r.points, 1)),
      el("td", {class: "num rating", title: `mu ${num(r.mu, 2)}, sigma ${num(r.sigma, 2)}`}, num(r.conservative, 2)),
      el("td", {class: "num"}, `${num(r.mu, 2)} ± ${num(3 * r.sigma, 2)}`),
      el("td", {class: "num games"}, r.games),
      el("td", {class: "num field", title: `against ${r.field_opponents} of the ${r.field_size} other bots`},
         r.field_pct === null ? "-" : num(r.field_pct) + (r.field_opponents < r.field_size ? "*" : "")),
      el("td", {class: "num win"}, num(r.win_pct)),
      el("td", {class: "num"}, num(r.avg_points)),
      el("td", {class: "num"}, num(r.contracts_made_pct)),
      faultCell(r.timeouts, "timeouts"), faultCell(r.illegal, "illegal or malformed"),
      faultCell(r.crashes, "crashes and lost connections"), faultCell(r.fallbacks, "strategy fallbacks"),
      el("td", {class: "num"}, num(r.latency_p50_ms, 2)),
      el("td", {class: "num"}, num(r.latency_p99_ms, 2)));
  }));
  drawIntervals(board.rows);
  drawCross(board);
  await drawHistory(board);
}

// Every bot's rating history on one scale: an SVG the server draws at the box's width (so its text keeps its size).
async function drawHistory(board) {
  const box = document.getElementById("charts");
  const width = Math.max(280, Math.min(1000, Math.floor(box.clientWidth / 10) * 10));
  const q = new URLSearchParams({pool: board.pool, all_versions: allVersions.checked, width});
  const r = await fetch("/charts/history.svg?" + q);
  if (!r.ok) throw new Error(`${r.status} ${r.statusText}: the rating history chart`);
  box.innerHTML = await r.text();   // drawn by this server: labels escaped, no script
}

// Each row's interval mu ± 3 sigma on one axis, as inline SVG drawn at the box's width (its text keeps its size).
function drawIntervals(rows) {
  const box = document.getElementById("intervals");
  if (!rows.length) { box.replaceChildren(); return; }
  const lo = Math.min(...rows.map((r) => r.low)), hi = Math.max(...rows.map((r) => r.high));
  const W = Math.max(280, Math.min(640, box.clientWidth)), H = 22 * rows.length + 20, L = Math.min(140, W / 3), R = 20;
  const x = (v) => L + (W - L - R) * (hi > lo ? (v - lo) / (hi - lo) : 0.5);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("width", W); svg.setAttribute("class", "intervals");
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e); return e;
  };
  rows.forEach((r, i) => {
    const y = 14 + 22 * i;
    add("text", {x: L - 8, y: y + 4, "text-anchor": "end"}, r.label);
    add("line", {x1: x(r.low), x2: x(r.high), y1: y, y2: y, class: "iv"});
    add("circle", {cx: x(r.mu), cy: y, r: 4, class: "mu"});
    add("line", {x1: x(r.conservative), x2: x(r.conservative), y1: y - 6, y2: y + 6, class: "cons"});
  });
  add("text", {x: L, y: H - 2}, num(lo, 1)); add("text", {x: W - R, y: H - 2, "text-anchor": "end"}, num(hi, 1));
  box.replaceChildren(svg);
}

// The cross-table: row bot against column bot over their duplicate blocks (mean score per game, Elo with its 95%
// interval, likelihood of superiority); each pair comes once from the API, the mirrored cell is its other side.
function drawCross(board) {
  const box = document.getElementById("cross-table");
  const pairs = board.cross_table ? board.cross_table.head_to_head : [];
  if (!pairs.length) {
    fill(box, "No complete duplicate blocks between these bots yet (a block: every game of one duplicate deal).");
    return;
  }
  const key = (bot, v) => bot + "@" + v;
  const cell = new Map();
  for (const p of pairs) {
    cell.set(key(p.bot, p.version) + "|" + key(p.opponent, p.opponent_version), {...p, side: 1});
    cell.set(key(p.opponent, p.opponent_version) + "|" + key(p.bot, p.version), {...p, side: -1});
  }
  const show = (c) => {
    if (!c) return el("td", {class: "muted"}, "-");
    const score = c.side > 0 ? c.score : 1 - c.score, los = c.los === null ? null : (c.side > 0 ? c.los : 1 - c.los);
    const elo = c.elo === null ? (score > 0.5 ? "Elo +∞" : score < 0.5 ? "Elo -∞" : "Elo -") : `Elo ${num(c.side * c.elo, 0)} [${num(c.side > 0 ? c.elo_low : -c.elo_high, 0)}, ` +
      `${num(c.side > 0 ? c.elo_high : -c.elo_low, 0)}]`;
    return el("td", {class: "cross" + (los !== null && (los > 0.975 || los < 0.025) ? " significant" : ""),
                     title: `${c.blocks} blocks, ${c.games} games; margin ${num(c.side * c.margin, 1)} points a game`},
              `${num(100 * score, 0)}%`, el("br"), el("small", {}, `${elo}; LOS ${los === null ? "-" : num(100 * los, 1) + "%"}`));
  };
  fill(box, el("div", {class: "wide"}, el("table", {class: "grid cross-table"},
    el("thead", {}, el("tr", {}, el("th", {}, "row against column"), board.rows.map((r) => el("th", {}, r.label)))),
    el("tbody", {}, board.rows.map((r) => el("tr", {}, el("th", {}, r.label), board.rows.map((o) =>
      r === o ? el("td", {class: "muted"}, "") : show(cell.get(key(r.bot, r.version) + "|" + key(o.bot, o.version))))))))),
    el("p", {class: "muted"}, "score: the row bot's mean score per game against the column bot over their complete " +
       "duplicate blocks; Elo with its 95% interval; LOS: the likelihood that the row bot is the stronger " +
       "(docs/statistics.md). Bold: significant at 95%."));
}

// Every reload (the first, a change of pool or of "every version", and each change in the store) goes through one
// queue: one at a time, the newest wins.
const refresh = oneAtATime(async () => {
  try {
    await loadPools();
    await loadTable();
  } catch (e) { showError(document.getElementById("intervals"), e); }
});

poolSel.addEventListener("change", refresh);
allVersions.addEventListener("change", refresh);
refresh();
followChanges(refresh);

// A turned phone or a resized window: the charts are drawn for their box's width, so draw them again.
let drawnFor = innerWidth;
addEventListener("resize", () => { if (Math.abs(innerWidth - drawnFor) >= 40) { drawnFor = innerWidth; refresh(); } });
