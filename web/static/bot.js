// A bot's page: /api/bots/{name}: versions, ratings per pool with their history, faults, decision times.
"use strict";

const name = document.getElementById("bot-name").dataset.name;

function latencyLine(ms) {
  if (!ms.length) return "no timed decisions";
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  return `per-game median decision time over ${ms.length} seats: min ${num(ms[0], 2)}, p25 ${num(q(0.25), 2)}, ` +
         `median ${num(q(0.5), 2)}, p75 ${num(q(0.75), 2)}, max ${num(ms[ms.length - 1], 2)} ms`;
}

// The per-game median decision times as a histogram (inline SVG, 24 bins between the fastest and the slowest).
function histogram(ms) {
  const ns = "http://www.w3.org/2000/svg", W = 440, H = 90, B = 24;   // labels 14 units: 11 px even at 350 px wide
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H + 20}`); svg.setAttribute("class", "histogram");
  if (!ms.length) return svg;
  const lo = ms[0], hi = ms[ms.length - 1], width = (hi - lo) / B || 1;
  const bins = new Array(B).fill(0);
  for (const x of ms) bins[Math.min(B - 1, Math.floor((x - lo) / width))]++;
  const top = Math.max(...bins);
  bins.forEach((n, i) => {
    const r = document.createElementNS(ns, "rect");
    const h = (H * n) / top;
    Object.entries({x: (i * W) / B + 1, y: H - h, width: W / B - 2, height: h}).forEach(([k, v]) => r.setAttribute(k, v));
    const t = document.createElementNS(ns, "title");
    t.textContent = `${num(lo + i * width, 2)}-${num(lo + (i + 1) * width, 2)} ms: ${n} seats`;
    r.append(t); svg.append(r);
  });
  for (const [x, text, anchor] of [[0, num(lo, 2) + " ms", "start"], [W, num(hi, 2) + " ms", "end"]]) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", H + 15); t.setAttribute("font-size", 14); t.setAttribute("text-anchor", anchor); t.textContent = text;
    svg.append(t);
  }
  return svg;
}

async function load() {
  const box = document.getElementById("versions");
  try {
    const b = await api("/api/bots/" + encodeURIComponent(name));
    box.replaceChildren(...b.versions.slice().reverse().map((v) => el("section", {class: "version", dataset: {version: v.version}},
      el("h2", {}, `version ${v.version}`),
      el("p", {class: "muted"}, `registered ${new Date(v.created_at * 1000).toLocaleString()}; ${v.kind}`,
         v.command ? [": ", el("code", {}, v.command)] : "", v.digest ? ` digest ${v.digest.slice(0, 12)}` : "",
         v.deadline_ms ? `; ${v.deadline_ms} ms a decision` : ""),
      el("p", {}, el("a", {href: `/games?bot=${encodeURIComponent(name)}&version=${v.version}`}, "games of this version")),
      v.pools.map((p) => el("div", {class: "pool"},
        el("h3", {}, p.label),
        el("p", {}, `${p.games} rated games; rating ${num(p.conservative, 2)} (mu ${num(p.mu, 2)} ± ${num(3 * p.sigma, 2)})`),
        p.faults ? el("p", {}, `faults: ${p.faults.timeouts} timeouts, ${p.faults.illegal} illegal or malformed, ` +
                                `${p.faults.crashes} crashes or lost connections, ${p.faults.fallbacks} strategy fallbacks`) : null,
        el("p", {}, latencyLine(p.latency_ms)), histogram(p.latency_ms),
        el("div", {class: "history", dataset: {pool: p.pool, version: v.version}}))),
      v.fault_examples.length ? [el("h3", {}, "games with faults"), el("ul", {}, v.fault_examples.map((f) =>
        el("li", {}, el("a", {href: "/games/" + f.game}, "game " + f.game), ` seat ${f.seat} (${f.status}): ` +
          ["illegal", "malformed", "timeout", "disconnect"].filter((k) => f[k]).map((k) => `${k} ${f[k]}`).join(", "))))] : null)));
    for (const chart of box.querySelectorAll("div.history")) await drawHistory(chart);
  } catch (e) { showError(box, e); }
}

// A version's rating history in a pool: an SVG the server draws at the box's width (so its text keeps its size).
async function drawHistory(box) {
  const width = Math.max(280, Math.min(1000, Math.floor(box.clientWidth / 10) * 10));
  const q = new URLSearchParams({pool: box.dataset.pool, bot: name, version: box.dataset.version, width});
  const r = await fetch("/charts/history.svg?" + q);
  if (!r.ok) throw new Error(`${r.status} ${r.statusText}: the rating history chart`);
  box.innerHTML = await r.text();   // drawn by this server: labels escaped, no script
}
load();
