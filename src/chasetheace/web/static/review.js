// The review of a finished game at a web table: GET /api/review/{table}/{game} (docs/review.md).
// Every piece of text from the server goes into the page with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };

function cardText(card) {
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}

function pct(x) { return x === null ? "?" : (100 * x).toFixed(1) + "%"; }

function show(data) {
  const body = $("summary").querySelector("tbody");
  body.replaceChildren();
  for (const s of data.summary) {
    const row = document.createElement("tr");
    for (const text of [s.name, s.decisions, s.mistakes, s.lives_given_away.toFixed(3), s.accuracy.toFixed(1) + "%"]) cell(row, String(text));
    body.appendChild(row);
  }
  const list = $("decisions");
  list.replaceChildren();
  let hand = null;
  for (const d of data.decisions) {
    if (d.hand !== hand) {
      hand = d.hand;
      const head = document.createElement("li");
      head.className = "hand";
      head.textContent = "Hand " + hand;
      list.appendChild(head);
    }
    const li = document.createElement("li");
    const swap = d.position === "dealer" ? "draw" : "swap";
    const verdict = d.mistake ? `mistake: gives away ${d.cost.toFixed(3)} lives` : (d.call === "either" ? "fine (close call)" : "best");
    li.textContent = `${d.name}, ${d.position} of ${d.players} holding ${cardText(d.card)} (${d.knew}): ` +
      `${d.action === "swap" ? swap : "keep"}. Keep loses ${pct(d.lose_if_keep)}, ${swap} ${pct(d.lose_if_swap)}; ` +
      `solver: ${d.call === "swap" ? swap : d.call}. `;
    const mark = document.createElement("span");
    mark.textContent = verdict;
    if (d.mistake) mark.className = "mistake";
    li.appendChild(mark);
    list.appendChild(li);
  }
  $("solutions").textContent = data.solutions.map((s) => `${s.players} players: ${s.exact ? "exact" : "approximate"} solution, NashConv ${s.nash_conv.toExponential(1)} lives`).join(" · ");
  $("review-status").textContent = data.complete ? "" : "The record stops before the end of the game.";
  $("review-status").hidden = data.complete;
  $("review").hidden = false;
}

async function load() {
  const parts = location.pathname.split("/");  // /t/{table}/review/{game}
  const table = parts[2], game = parts[4];
  $("back").href = "/t/" + table;
  $("record").href = `/api/record/${table}/${game}`;
  const response = await fetch(`/api/review/${table}/${game}`);
  const data = await response.json();
  if (response.status === 503 && data.retry) {
    $("review-status").textContent = data.error;
    setTimeout(load, 2000);
    return;
  }
  if (!response.ok) { $("review-status").textContent = data.error; return; }
  show(data);
}

document.addEventListener("DOMContentLoaded", () => {
  load().catch(() => { $("review-status").textContent = "The review could not be loaded."; });
});
