// The games page: /api/games with the filters in the address (so a filtered list can be linked), live.
"use strict";

const form = document.getElementById("filters");
const tbody = document.querySelector("#games tbody");
const more = document.getElementById("more");
let nextBefore = null;

function filters() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
  return q;
}

function row(g) {
  const winners = [...new Set(g.winners.map((s) => g.labels[s]))].join(", ") || "-";
  return el("tr", {dataset: {game: g.id}},
    el("td", {class: "num"}, el("a", {href: "/games/" + g.id}, g.id)),
    el("td", {class: "num"}, g.run_id ?? "-"),
    el("td", {}, g.pool_label),
    el("td", {}, g.labels.map((b, s) => [s ? ", " : "", el("a", {href: "/bots/" + encodeURIComponent(g.seats[s])}, b)])),
    el("td", {class: g.status === "completed" ? "" : "fault"}, g.status),
    el("td", {}, g.scores.join(" ")),
    el("td", {}, winners),
    el("td", {class: "num"}, num(g.duration, 2)),
    el("td", {class: "twins"}, g.twins.map((t, i) => [i ? " " : "", el("a", {href: "/games/" + t}, t)])));
}

async function load(append) {
  const q = filters();
  history.replaceState(null, "", "?" + q);
  q.set("limit", "50");
  if (append && nextBefore) q.set("before", nextBefore);
  try {
    const page = await api("/api/games?" + q);
    const rows = page.games.map(row);
    if (append) tbody.append(...rows); else tbody.replaceChildren(...rows);
    document.getElementById("count").textContent = `${page.total} games match, newest first`;
    nextBefore = page.next_before;
    more.hidden = nextBefore === null;
    const runSel = form.elements.run;
    if (runSel.options.length === 1) {
      runSel.append(...page.runs.map((r) => el("option", {value: r.id}, `${r.id} (${r.games} games${r.finished_at ? "" : ", running"})`)));
      runSel.value = new URLSearchParams(location.search).get("run") || "";
    }
  } catch (e) { showError(document.getElementById("count"), e); }
}

async function init() {
  const given = new URLSearchParams(location.search);
  const [pools, bots] = await Promise.all([api("/api/pools"), api("/api/bots")]);
  form.elements.pool.append(...pools.map((p) => el("option", {value: p.key}, p.label)));
  form.elements.bot.append(...bots.map((b) => el("option", {value: b.name}, b.name)));
  for (const [k, v] of given) if (form.elements[k] && k !== "run") form.elements[k].value = v;
  await load(false);
}

form.addEventListener("change", () => load(false));
form.addEventListener("submit", (e) => { e.preventDefault(); load(false); });
more.addEventListener("click", () => load(true));
init();
followChanges(() => load(false));
