// The leaderboard page: /api/pools, /api/leaderboard, the history charts; refreshed on every store change.
"use strict";

const poolSel = document.getElementById("pool");
const allVersions = document.getElementById("all-versions");
const params = new URLSearchParams(location.search);

async function loadPools() {
  const pools = await api("/api/pools");
  poolSel.replaceChildren(...pools.map((p) => el("option", {value: p.key}, p.label)));
  const wanted = params.get("pool");
  if (wanted && pools.some((p) => p.key === wanted || p.label === wanted)) {
    poolSel.value = pools.find((p) => p.key === wanted || p.label === wanted).key;
  } else if (pools.length) {  // the pool played last
    poolSel.value = pools.reduce((a, b) => (b.newest_game > a.newest_game ? b : a)).key;
  }
  return pools.length;
}

function faultCell(n, kind) { return el("td", {class: n ? "fault num" : "num", title: kind}, n); }

async function loadTable() {
  const tbody = document.querySelector("#leaderboard tbody");
  if (!poolSel.value) { tbody.replaceChildren(el("tr", {}, el("td", {colspan: 14}, "no rated pool yet"))); return; }
  const q = new URLSearchParams({pool: poolSel.value, all_versions: allVersions.checked});
  const board = await api("/api/leaderboard?" + q);
  document.getElementById("newest").textContent = "newest game " + board.newest_game;
  // Two rows whose intervals overlap are not told apart by the data yet: marked as a tie with the row above.
  tbody.replaceChildren(...board.rows.map((r, i) => {
    const tie = i > 0 && board.rows[i - 1].low <= r.high && r.low <= board.rows[i - 1].high;
    return el("tr", {dataset: {bot: r.bot, version: r.version, games: r.games}},
      el("td", {class: "num", title: tie ? "interval overlaps the row above: not yet told apart" : null},
         r.rank + (tie ? " =" : "")),
      el("td", {}, el("a", {href: "/bots/" + encodeURIComponent(r.bot)}, r.label)),
      el("td", {class: "num rating", title: `mu ${num(r.mu, 2)}, sigma ${num(r.sigma, 2)}`}, num(r.conservative, 2)),
      el("td", {class: "num"}, `${num(r.mu, 2)} ± ${num(3 * r.sigma, 2)}`),
      el("td", {class: "num games"}, r.games),
      el("td", {class: "num"}, num(r.win_pct)),
      el("td", {class: "num"}, num(r.avg_points)),
      el("td", {class: "num"}, num(r.contracts_made_pct)),
      faultCell(r.timeouts, "timeouts"), faultCell(r.illegal, "illegal or malformed"),
      faultCell(r.crashes, "crashes and lost connections"), faultCell(r.fallbacks, "strategy fallbacks"),
      el("td", {class: "num"}, num(r.latency_p50_ms, 2)),
      el("td", {class: "num"}, num(r.latency_p99_ms, 2)));
  }));
  drawIntervals(board.rows);
  const charts = document.getElementById("charts");
  charts.replaceChildren(...board.rows.map((r) => {
    const q = new URLSearchParams({pool: board.pool, bot: r.bot, version: r.version, t: board.newest_game});
    return el("figure", {}, el("figcaption", {}, r.label), el("img", {src: "/charts/history.svg?" + q, alt: "rating history of " + r.label}));
  }));
}

// Each row's interval mu ± 3 sigma on one axis, as inline SVG.
function drawIntervals(rows) {
  const box = document.getElementById("intervals");
  if (!rows.length) { box.replaceChildren(); return; }
  const lo = Math.min(...rows.map((r) => r.low)), hi = Math.max(...rows.map((r) => r.high));
  const W = 640, H = 22 * rows.length + 20, L = 140, R = 20;
  const x = (v) => L + (W - L - R) * (hi > lo ? (v - lo) / (hi - lo) : 0.5);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("class", "intervals");
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

async function refresh() {
  try { await loadTable(); } catch (e) { showError(document.getElementById("intervals"), e); }
}

poolSel.addEventListener("change", refresh);
allVersions.addEventListener("change", refresh);
loadPools().then(refresh).catch((e) => showError(document.getElementById("intervals"), e));
followChanges(async () => { if (!poolSel.value) await loadPools(); await refresh(); });
