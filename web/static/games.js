// The games page: /api/games with the filters in the address (so a filtered list can be linked), live.
"use strict";

const form = document.getElementById("filters");
const tbody = document.querySelector("#games tbody");
const more = document.getElementById("more");

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

// The reader's place: how many of the newest games the list shows (50, and 50 more for each "older games"). A live
// reload shows as many again, from the newest: the rows the reader paged to stay.
const PAGE = 50, MAX_LIMIT = 500;
let wanted = PAGE;

async function load() {
  const q = filters();
  history.replaceState(null, "", "?" + q);
  try {
    let games = [], page, before = null;
    do {   // the API gives at most 500 a request
      q.set("limit", Math.min(MAX_LIMIT, wanted - games.length));
      if (before !== null) q.set("before", before);
      page = await api("/api/games?" + q);
      games = games.concat(page.games);
      before = page.next_before;
    } while (games.length < wanted && before !== null);
    tbody.replaceChildren(...games.map(row));
    document.getElementById("count").textContent = `${page.total} games match, newest first`;
    more.hidden = before === null;
    const runSel = form.elements.run;
    if (runSel.options.length === 1) {
      runSel.append(...page.runs.map((r) => el("option", {value: r.id}, `${r.id} (${r.games} games${r.finished_at ? "" : ", running"})`)));
      runSel.value = new URLSearchParams(location.search).get("run") || "";
    }
  } catch (e) { showError(document.getElementById("count"), e); }
}

// Every load (a filter changed, "older games", a change in the store) goes through one queue: one at a time.
const reload = oneAtATime(load);

// The pool and bot menus, rebuilt from the API (a pool or bot a running tournament adds appears live), keeping
// what the reader chose.
const menus = oneAtATime(async () => {
  try {
    const [pools, bots] = await Promise.all([api("/api/pools"), api("/api/bots")]);
    for (const [sel, items] of [[form.elements.pool, pools.map((p) => [p.key, p.label])],
                                [form.elements.bot, bots.map((b) => [b.name, b.name])]]) {
      const chosen = sel.value;
      sel.replaceChildren(el("option", {value: ""}, "any"), ...items.map(([v, text]) => el("option", {value: v}, text)));
      sel.value = chosen;
    }
  } catch (e) { showError(document.getElementById("count"), e); }
});

async function init() {
  await menus();
  const given = new URLSearchParams(location.search);
  for (const [k, v] of given) if (form.elements[k] && k !== "run") form.elements[k].value = v;
  await reload();
}

form.addEventListener("change", () => { wanted = PAGE; reload(); });
form.addEventListener("submit", (e) => { e.preventDefault(); wanted = PAGE; reload(); });
more.addEventListener("click", () => { wanted = tbody.rows.length + PAGE; reload(); });
init();
followChanges(() => { menus(); reload(); });
