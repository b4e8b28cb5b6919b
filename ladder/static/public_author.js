// An author's public page: their bots, each linked to its versions and ratings (/bots/NAME).
"use strict";

(async function showAuthor() {
  const author = document.getElementById("author-name").dataset.author;
  try {
    const a = await api("/api/ladder/authors/" + encodeURIComponent(author));
    fill(document.querySelector("#author-bots tbody"), a.bots.map((b) => el("tr", {"data-bot": b.bot},
      el("td", {}, el("a", {href: "/bots/" + encodeURIComponent(b.bot)}, b.bot)), el("td", {}, b.status),
      el("td", {}, b.versions.join(", ")))));
  } catch (e) {
    showError(document.getElementById("message"), e);
  }
})();
