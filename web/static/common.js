// Shared by every page: JSON from the API, element building, cards, and the live-change stream.
"use strict";

async function api(path) {
  const r = await fetch(path);
  if (!r.ok) {
    let msg = r.status + " " + r.statusText;
    try { msg = (await r.json()).detail || msg; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  return r.json();
}

// el("td", {class: "x", title: "..."}, "text", child, ...)
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  return fill(e, ...children);
}

// Replace ``e``'s children: nodes, text, nested arrays of them; null and undefined are skipped.
function fill(e, ...children) {
  e.replaceChildren();
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function num(x, digits = 1) { return x === null || x === undefined ? "-" : Number(x).toFixed(digits); }

const SUITS = {S: "♠", H: "♥", D: "♦", C: "♣"};

// A card ("10H", "JS", "AD"...) as a span with its suit symbol; red suits in red.
function card(text) {
  const suit = text.slice(-1), rank = text.slice(0, -1);
  const sym = SUITS[suit];
  return el("span", {class: "card" + (suit === "H" || suit === "D" ? " red" : ""), "data-card": text},
            sym ? rank + sym : text);
}

// One notation on every page (the server's lines use the same, web/replay.py): suit symbols for cards and strains,
// a contract's strain apart from its bid ("6 ♦" is a contract, "10♦" a card).
const CARD_TEXT = /^(10|[2-9JQKA])[SHDC]$/;
function cardText(c) { return c.slice(0, -1) + (SUITS[c.slice(-1)] ?? c.slice(-1)); }
function strainText(s) { return SUITS[s] ?? s; }
function contractText(c) { return c.bid + (c.trump ? " " + strainText(c.trump) : "") + (c.alone ? " alone" : ""); }
// An action as a button says it: "trump ♠", "bid 4 ♥", "give J♥", "play Q♣".
function actionText(a) { return a.split(" ").map((w) => (CARD_TEXT.test(w) ? cardText(w) : strainText(w))).join(" "); }
// A bid as it reads after the bidder's name: "bids 2", "bids pepper ♠", "passes".
function bidText(a) { return a === "pass" ? "passes" : a.startsWith("bid ") ? "bids " + actionText(a.slice(4)) : actionText(a); }

function showError(where, err) {
  where.replaceChildren(el("p", {class: "error"}, String(err.message || err)));
}

// ``load`` wrapped so that one run is in flight at a time: a call while one runs asks for one more run after it
// (however many calls came meanwhile), so live reloads never pile up and the newest state is the one shown.
function oneAtATime(load) {
  let running = null, again = false;
  const loop = async () => { do { again = false; await load(); } while (again); };
  return () => {
    if (running) { again = true; return running; }
    running = loop().finally(() => { running = null; });
    return running;
  };
}

// Calls onChange() whenever the store gains a game (server-sent events from /api/events).
function followChanges(onChange) {
  const live = document.getElementById("live");
  const src = new EventSource("/api/events");
  let first = true;
  src.addEventListener("change", (ev) => {
    if (live) { live.classList.add("on"); live.dataset.game = JSON.parse(ev.data).game; }
    if (first) { first = false; return; }   // the first event says where the store stands: already shown
    onChange(JSON.parse(ev.data));
  });
  src.onerror = () => { if (live) live.classList.remove("on"); };
  return src;
}
