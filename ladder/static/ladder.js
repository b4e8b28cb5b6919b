// The ladder's public page: every bot, who entered it, its standing and whether it can play now (live).
"use strict";

async function showLadder() {
  try {
    const s = await api("/api/ladder/status");
    fill(document.getElementById("ladder-summary"),
         `${s.paused ? "Paused" : "Running"}: ${s.games} games stored by this service, ${s.in_flight} in flight, `
         + `${s.connected} bots connected.`);
    fill(document.querySelector("#ladder-bots tbody"), s.bots.map((b) => el("tr", {},
      el("td", {}, el("a", {href: "/bots/" + encodeURIComponent(b.bot)}, b.bot)),
      el("td", {}, el("a", {href: "/ladder/authors/" + encodeURIComponent(b.author)}, b.author)), el("td", {}, b.status), el("td", {}, b.available ? "available" : "-"))));
  } catch (e) {
    showError(document.getElementById("ladder-summary"), e);
  }
}

showLadder();
setInterval(showLadder, 2000);
