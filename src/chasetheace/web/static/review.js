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

// A chance, never claiming a certainty the figures do not hold (as chance_text in the solver's
// advice): 0% and 100% only when exactly so and sure (an exact solution's own figure).
function pct(x, sure = true) {
  if (x === null) return "?";
  if (x <= 0) return sure ? "0%" : "about 0%";
  if (x >= 1) return sure ? "100%" : "about 100%";
  if (x < 0.0005) return "under 0.1%";
  if (x >= 0.9995) return "over 99.9%";
  return (100 * x).toFixed(1) + "%";
}

function heading(list, text) {
  const head = document.createElement("li");
  head.className = "hand";
  head.textContent = text;
  list.appendChild(head);
}

function verdictLine(li, text, verdict, mistake) {
  li.textContent = text;
  const mark = document.createElement("span");
  mark.textContent = verdict;
  if (mistake) mark.className = "mistake";
  li.appendChild(mark);
}

// An Ace Chasing game: bets against the knockout odds, keeps and swaps by the chance of being
// knocked out either way (docs/review.md, "Ace Chasing records").
function aceDecision(d) {
  const held = d.card ? ` holding ${cardText(d.card)}` : "";
  if (d.role === "exchanger") {
    const verdict = d.mistake ? `mistake: ${d.best} was better, gives away ${d.cost.toFixed(3)} of a knockout`
      : (d.call === "either" ? "fine (close call)" : "best");
    return [`${d.name}${held}: ${d.action}. Knocked out ${pct(d.out_if_keep)} if kept, ` +
      `${pct(d.out_if_swap)} if swapped: `, verdict, d.mistake];
  }
  const odds = `matador knocked out ${pct(d.knockout_chance)}`;
  if (d.role === "bettor") {
    if (d.amount === 0) return [`${d.name}${held}: no bet (${odds}). `, "not judged", false];
    const verdict = d.against_the_odds ? (d.cost > 0 ? `against the odds: gives away ${d.cost.toFixed(2)} on average`
      : "against the odds (declined: nothing lost)") : "fine";
    return [`${d.name}${held} offers ${d.amount} (${odds}). `, verdict, d.mistake];
  }
  const verdict = d.action === "decline" ? "not judged"
    : (d.against_the_odds ? `against the odds: gives away ${d.cost.toFixed(2)} on average` : "fine");
  return [`${d.name} (matador${held}) ${d.action}s ${d.amount} (${odds}). `, verdict, d.mistake];
}

function showAce(data) {
  $("review-lead").textContent = "Each decision against the odds the player could know: a bet by the " +
    "chance that the matador is knocked out, a keep or swap by the player's own chance of being " +
    "knocked out this round either way.";
  const head = $("summary-head").querySelector("tr");
  head.replaceChildren();
  // soft hyphens (\u00ad): the six columns fit a phone's width
  for (const text of ["Player", "Mis\u00adtakes", "Bets against the odds", "Money given away",
    "Ex\u00adchange mis\u00adtakes", "Knock\u00adouts given away"]) {
    const th = document.createElement("th");
    th.textContent = text;
    head.appendChild(th);
  }
  const body = $("summary").querySelector("tbody");
  body.replaceChildren();
  for (const s of data.summary) {
    const row = document.createElement("tr");
    for (const text of [s.name, `${s.mistakes} of ${s.decisions}`, `${s.against_the_odds} of ${s.bets_judged}`,
      s.money_given_away.toFixed(2), `${s.exchange_mistakes} of ${s.exchanges_judged}`,
      s.knockouts_given_away.toFixed(3)]) cell(row, String(text));
    body.appendChild(row);
  }
  const list = $("decisions");
  list.replaceChildren();
  let round = null;
  for (const d of data.decisions) {
    if (d.round !== round) {
      round = d.round;
      heading(list, "Round " + round);
    }
    const li = document.createElement("li");
    const [text, verdict, mistake] = aceDecision(d);
    verdictLine(li, text, verdict, mistake);
    list.appendChild(li);
  }
  $("solutions").textContent = (data.assumes || `Cards a player had not seen are taken as a random ` +
    `draw; the players still to act are taken to keep a card of rank ${data.exchange_threshold} or ` +
    `more and swap a lower one.`) + ` A mistake gives away more than ${data.mistake_threshold}.`;
}

function show(data) {
  if (data.game === "ace-chasing") showAce(data);
  else showSolved(data);
  $("review-status").textContent = data.complete ? "" : "The record stops before the end of the game.";
  $("review-status").hidden = data.complete;
  $("review").hidden = false;
}

function showSolved(data) {
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
  const exact = new Set(data.solutions.filter((s) => s.nash_conv_kind === "exact").map((s) => s.players));
  for (const d of data.decisions) {
    if (d.hand !== hand) {
      hand = d.hand;
      heading(list, "Hand " + hand);
    }
    const li = document.createElement("li");
    const swap = d.position === "dealer" ? "draw" : "swap";
    const sure = exact.has(d.players) && !d.generalised;
    const verdict = d.mistake ? `mistake: gives away ${d.cost.toFixed(3)} lives` : (d.call === "either" ? "fine (close call)" : "best");
    verdictLine(li, `${d.name}, ${d.position} of ${d.players} holding ${cardText(d.card)} (${d.knew}): ` +
      `${d.action === "swap" ? swap : "keep"}. Keep loses ${pct(d.lose_if_keep, sure)}, ${swap} ${pct(d.lose_if_swap, sure)}; ` +
      `solver: ${d.call === "swap" ? swap : d.call}. `, verdict, d.mistake);
    list.appendChild(li);
  }
  $("solutions").textContent = data.solutions.map((s) => `${s.players} players: ${s.exact ? "exact" : "approximate"} solution, ${s.closeness}`).join(" · ");
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
