// An author's page: the key is asked once and kept in localStorage; every request carries it in the
// Authorization header, never in a URL.
"use strict";

const KEY = "pepper-ladder-key";

async function authed(path, options = {}, text = false) {
  // A JSON body by default; an upload sends the file's bytes as they are.
  const type = typeof options.body === "string" ? {"Content-Type": "application/json"} : {};
  const r = await fetch(path, {...options, headers: {...(options.headers || {}), ...type,
    "Authorization": "Bearer " + localStorage.getItem(KEY)}});
  if (r.ok && text) return r.text();
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(body.detail || r.status + " " + r.statusText), {status: r.status});
  return body;
}

let following = null;   // the upload being built or checked, followed until it is done

function uploadRows(uploads) {
  return uploads.map((u) => el("tr", {"data-upload": u.upload, "data-status": u.status},
    el("td", {}, "#" + u.upload), el("td", {}, u.bot), el("td", {class: "status"}, u.status), el("td", {}, u.detail),
    el("td", {}, u.report ? el("details", {}, el("summary", {}, "checker's report"), el("pre", {}, u.report)) : "")));
}

async function showLog(bot) {
  try {
    const text = await authed(`/api/ladder/me/bots/${encodeURIComponent(bot)}/log`, {}, true);
    fill(document.getElementById("log-bot"), bot);
    fill(document.getElementById("log-text"), text || "(nothing yet)");
    document.getElementById("log").hidden = false;
  } catch (e) { say(e.message, true); }
}

function say(text, error = false) {
  fill(document.getElementById("message"), text ? el("p", {class: error ? "error" : "note"}, text) : null);
}

async function recentGames(bot) {
  const got = await api("/api/games?limit=5&bot=" + encodeURIComponent(bot));
  return got.games.map((g) => el("a", {href: "/games/" + g.id, class: "game-link"}, "#" + g.id + " "));
}

async function showMe() {
  const signIn = document.getElementById("sign-in"), signedIn = document.getElementById("signed-in");
  if (!localStorage.getItem(KEY)) {
    signIn.hidden = false;
    signedIn.hidden = true;
    return;
  }
  try {
    const me = await authed("/api/ladder/me");
    fill(document.getElementById("author"), me.author);
    const rows = [];
    for (const b of me.bots) {
      const retire = b.status === "retired" ? null : el("button", {type: "button", class: "retire",
        onclick: () => retireBot(b.bot)}, "Retire");
      const log = b.kind === "uploaded" ? el("button", {type: "button", class: "show-log",
        onclick: () => showLog(b.bot)}, "Log") : null;
      rows.push(el("tr", {"data-bot": b.bot},
        el("td", {}, el("a", {href: "/bots/" + encodeURIComponent(b.bot)}, b.bot)), el("td", {}, b.status),
        el("td", {}, b.versions.join(", ")), el("td", {}, await recentGames(b.bot)), el("td", {}, log, retire)));
    }
    fill(document.querySelector("#my-bots tbody"), rows);
    fill(document.querySelector("#my-uploads tbody"), uploadRows(me.uploads));
    const refused = document.getElementById("uploads-refused");
    fill(refused, me.uploads_refused);
    refused.hidden = !me.uploads_refused;
    const busy = me.uploads.find((u) => u.status !== "entered" && u.status !== "failed");
    clearTimeout(following);
    following = busy ? setTimeout(showMe, 1000) : null;
    signIn.hidden = true;
    signedIn.hidden = false;
  } catch (e) {
    if (e.status === 401) localStorage.removeItem(KEY);
    signIn.hidden = false;
    signedIn.hidden = true;
    say(e.message, true);
  }
}

async function retireBot(bot) {
  if (!confirm(`Retire ${bot} for good?`)) return;
  try {
    await authed(`/api/ladder/bots/${encodeURIComponent(bot)}/retire`, {method: "POST"});
    say(`${bot} is retired.`);
  } catch (e) { say(e.message, true); }
  showMe();
}

document.getElementById("sign-in").addEventListener("submit", (ev) => {
  ev.preventDefault();
  localStorage.setItem(KEY, document.getElementById("key").value.trim());
  document.getElementById("key").value = "";
  say("");
  showMe();
});

document.getElementById("sign-out").addEventListener("click", () => {
  localStorage.removeItem(KEY);
  fill(document.querySelector("#my-bots tbody"));
  document.getElementById("token").hidden = true;
  showMe();
});

document.getElementById("enter-remote").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = document.getElementById("bot-name").value.trim();
  try {
    const got = await authed("/api/ladder/bots", {method: "POST", body: JSON.stringify({name, kind: "remote"})});
    fill(document.getElementById("token-bot"), `${got.bot} version ${got.version}`);
    fill(document.getElementById("token-value"), got.token);
    document.getElementById("token").hidden = false;
    say("");
  } catch (e) { say(e.message, true); }
  showMe();
});

document.getElementById("upload").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = document.getElementById("upload-name").value.trim();
  const file = document.getElementById("upload-file").files[0];
  try {
    const got = await authed(`/api/ladder/bots/${encodeURIComponent(name)}/uploads`,
      {method: "POST", body: file, headers: {"Content-Type": "application/octet-stream"}});
    say(`Upload #${got.upload} of ${got.bot} taken: it is built and checked now.`);
  } catch (e) { say(e.message, true); }
  showMe();
});

showMe();
