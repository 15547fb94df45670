// Chase the Ace web table: one WebSocket, protocol v1 (docs/protocol.md). No build step.
// Every piece of text from the server goes into the page with textContent, never as HTML.
"use strict";

const VERSION = 1;
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANK_WORDS = { 1: "an ace", 2: "a two" };
const $ = (id) => document.getElementById(id);

const ui = {
  ws: null, welcome: null, table: null, seat: null, role: null, state: null,
  history: [], base: 0, fresh: true, gameNo: 0, retry: 0, wanted: null, ticking: null, previewing: false,
  unanswered: null, rejoined: false, sent: null, wsTable: null, next: null, swallowed: null,
  online: false, myTurn: false, sound: false, token: null,
  linkToken: null, badLink: false, trying: null, tried: null, pendingLink: null, full: false,
};
const TITLE = document.title;

// --- small helpers ------------------------------------------------------------------------------

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function cardText(card) {
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

function cardNode(card, extra) {
  if (!card) return el("span", "card back" + (extra ? " " + extra : ""), "");
  const red = card[1] === "h" || card[1] === "d";
  return el("span", "card face" + (red ? " red" : "") + (extra ? " " + extra : ""), cardText(card));
}

function tokenKey(table) { return "cta-token-" + table; }
// this browser's other seat at the table, the one it left for a seat link's (with the person's
// yes): the page offers the way back to it ("Back to my seat as ...") while it holds a seat
function spareKey(table) { return "cta-spare-" + table; }
function spareNameKey(table) { return "cta-spare-name-" + table; }
// this tab lost its seat to another device: it watches, and a reload takes nothing back unasked
// (per tab: a new tab still takes the seat, the way it always did)
function awayKey(table) { return "cta-away-" + table; }
// the name of the seat this browser's token holds (for "Back to my seat as Ann")
function nameKey(table) { return "cta-name-" + table; }

// A message that stays until it is dismissed (a toast goes by too fast for what happened to a seat),
// with the choices it offers as buttons (each one also dismisses it).
function notice(text, choices) {
  $("notice-text").textContent = text;
  const box = $("notice-choices");
  box.replaceChildren();
  for (const [label, run, id] of choices || []) {
    const b = el("button", "choice", label);
    b.type = "button";
    if (id) b.id = id;
    b.addEventListener("click", () => { $("notice").hidden = true; run(); });
    box.append(b);
  }
  $("notice").hidden = false;
  say(text);
  if (choices && choices.length) box.firstChild.focus();
}

// The page's one live region: a screen reader hears here whose turn it is, what happened, the
// result, and every message the page shows (the same words again are still said again).
function say(text) {
  const region = $("announce");
  region.textContent = text === region.textContent ? text + "\u00a0" : text;
}

// A short message; it goes after 5 s, or at once when the page shows the recovery code (which it
// would cover on a phone: the code matters more).
function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  say(text);
  box.classList.toggle("low", !$("recovery").hidden && !$("table").hidden);
  if (box.classList.contains("low")) box.style.bottom = ($("controls").offsetHeight + 8) + "px";
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 5000);
}

function show(section) {
  const was = ["lobby", "join", "table"].find((id) => !$(id).hidden);
  for (const id of ["lobby", "join", "table"]) $(id).hidden = id !== section;
  if (was !== section) window.scrollTo(0, 0);  // a new view opens at its top, not at the last one's scroll
}

function send(message) {
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) ui.ws.send(JSON.stringify({ v: VERSION, ...message }));
  else toast("Not connected: trying again…");
}

function tableFromPath() {
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]{1,64})$/);
  return m ? m[1] : null;
}

// --- the connection -----------------------------------------------------------------------------

// The table, once known, rides on the socket's address (?table=): the server ignores it (the seat
// token is the authority), a proxy can hash on it to send all of a table's players to one process.
function socketUrl(table) {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  return scheme + location.host + "/ws" + (table ? "?table=" + encodeURIComponent(table) : "");
}

function connect() {
  const table = ui.table || tableFromPath();
  const ws = new WebSocket(socketUrl(table));
  ui.ws = ws;
  ui.wsTable = table;
  $("conn").textContent = "connecting…";
  ws.onopen = () => { ui.retry = 0; setOnline(true); };
  attach(ws);
}

function attach(ws) {
  ws.onmessage = (e) => fromOld(JSON.parse(e.data));
  ws.onclose = () => {
    if (ui.next) { ui.next.onclose = null; ui.next.close(); ui.next = null; }  // a move given up
    setOnline(false);
    ui.retry = Math.min(ui.retry + 1, 6);
    // refused for too many pages: try again now and then, not at once (the notice says why)
    setTimeout(connect, ui.full ? 5000 : 250 * 2 ** ui.retry);
  };
}

// A page that created a table, or joined one from the lobby, did it on a socket opened without the
// table (the proxy sent it anywhere): it opens another one on the table's address and resumes its
// seat there (or watches), and only once that socket has its seat does it let the first one go.
// Meanwhile the first one serves as before (a click is sent on it; one it could not deliver is sent
// again with its act_id on the new socket), so the person sees nothing of the move.
function moveSocket(table) {
  const token = ui.role === "player" ? localStorage.getItem(tokenKey(table)) : null;
  const ws = new WebSocket(socketUrl(table));
  ui.next = ws;
  ui.swallowed = null;
  const giveUp = () => {  // stays on the first socket; what it was told meanwhile counts again
    if (ui.next !== ws) return;
    ui.next = null;
    ws.onclose = null; ws.onmessage = null; ws.close();
    if (ui.swallowed) { const m = ui.swallowed; ui.swallowed = null; receive(m); }
  };
  ws.onmessage = (e) => {
    if (ui.next !== ws) return;
    const msg = JSON.parse(e.data);
    if (msg.type === "welcome") {
      ws.send(JSON.stringify({ v: VERSION, ...(token ? { type: "resume", table, token } : { type: "watch", table }) }));
    } else if (msg.type === "joined" && msg.table === table && msg.role === (token ? "player" : "spectator")) {
      const old = ui.ws;
      ui.next = null; ui.swallowed = null;
      old.onmessage = null; old.onclose = null; old.close();
      ui.ws = ws; ui.wsTable = table; ui.retry = 0;
      ui.fresh = true;  // the new socket's first state starts the log afresh, as after a reconnection
      ui.rejoined = ui.unanswered !== null;  // a click the first socket did not deliver goes again
      attach(ws);
    } else if (msg.type === "error") giveUp();
  };
  ws.onclose = giveUp;
}

// What the page's socket says; while it moves, the first socket losing the seat to the new one is
// the move itself, not news (kept, and told only if the move fails).
function fromOld(msg) {
  if (ui.next && msg.type === "error" && (msg.code === "replaced" || msg.code === "not_seated")) {
    if (msg.code === "replaced") ui.swallowed = msg;
    return;
  }
  receive(msg);
}

// While offline every action button is disabled: a click could not reach the table. So are the
// act buttons from a click until the table answers it: a second tap can't act twice.
function setOnline(on) {
  ui.online = on;
  $("conn").textContent = on ? "online" : "offline: reconnecting…";
  $("conn").className = on ? "conn on" : "conn off";
  for (const b of document.querySelectorAll("#start, #rematch, #create-button, #join-button")) b.disabled = !on;
  actButtons();
}

function marker() { return ui.gameNo + ":" + (ui.base + ui.history.length); }

function actButtons() {
  const waiting = ui.sent !== null && ui.sent === marker();
  for (const b of document.querySelectorAll("button.act, #amount")) b.disabled = !ui.online || waiting;
}

// The server closes a silent connection: a ping now and then keeps an open page at its table.
setInterval(() => { if (ui.ws && ui.ws.readyState === WebSocket.OPEN) ui.ws.send(JSON.stringify({ v: VERSION, type: "ping" })); }, 30000);

function receive(msg) {
  if (msg.type === "welcome") onWelcome(msg);
  else if (msg.type === "joined") onJoined(msg);
  else if (msg.type === "state") onState(msg);
  else if (msg.type === "error") onError(msg);
  else if (msg.type === "tables") onTables(msg);
  else if (msg.type === "hint") showHint(msg);
  else if (msg.type === "notice") toast(msg.message);
}

// The hint: its figures first, on their own line (always in view), then the reasoning in words.
function showHint(msg) {
  const box = $("hint-text");
  box.replaceChildren();
  const h = typeof msg === "string" ? null : msg.hint;
  if (h && typeof h.lose_if_keep === "number" && typeof h.lose_if_swap === "number") {
    // the chances as the solver words them (never 0% or 100% where its figures are not sure of it)
    const pc = (x, text) => (typeof text === "string" ? text : (100 * x).toFixed(1) + "%");
    const swap = h.position_name === "dealer" ? "draw" : "swap";
    box.append(el("strong", "figures", "Hint: " + (h.call === "either" ? "either" : h.call === "keep" ? "keep" : swap) +
      " · you lose this hand " + pc(h.lose_if_keep, h.lose_if_keep_text) + " if you keep, " +
      pc(h.lose_if_swap, h.lose_if_swap_text) + " if you " + swap));
    const why = el("span", "why", " " + msg.text);
    why.tabIndex = 0;  // it may scroll: the keyboard reaches it
    box.append(why);
  } else box.append(el("span", "why", "Hint: " + (typeof msg === "string" ? msg : msg.text)));
  box.hidden = false;
  ui.said = null;
  say(box.textContent);
  keepSeatInView();
}

// The panel at the bottom (prompt, buttons, hint) never covers your own seat and card: the page
// scrolls just enough to show it above the panel.
function keepSeatInView() {
  const mine = document.querySelector(".seat.me");
  if (!mine || $("table").hidden) return;
  const over = mine.getBoundingClientRect().bottom + 6 - $("controls").getBoundingClientRect().top;
  if (over > 0) window.scrollBy(0, over);
}

function onWelcome(msg) {
  if (ui.full) { ui.full = false; $("notice").hidden = true; }  // let in at last
  ui.welcome = msg;
  fillLobby(msg);
  const table = ui.table || tableFromPath();
  if (!table) { show("lobby"); send({ type: "list" }); return; }
  ui.wanted = table;
  if (!rejoin(table)) {
    if (ui.badLink) {
      ui.badLink = false;
      notice("The seat link you opened is not a whole seat link (it may have been cut short): it holds no seat. " +
        "If you have a seat here, take it back with your recovery code; otherwise take a free seat or watch.");
      $("recover-box").open = true;
    }
    showJoin(table);
  }
}

// The join page: watch quietly to show who invited you and to what, until you take a seat (or
// take yours back with its recovery code) or choose to watch.
function showJoin(table) {
  ui.previewing = true;
  $("join-about").textContent = "You have been invited to a game of Chase the Ace.";
  show("join");
  send({ type: "watch", table });
}

function preview(msg) {
  const t = msg.table;
  const people = t.seats.filter((s) => s.kind === "human").map((s) => s.name);
  const rules = t.options.preset + (t.options.bots ? ", bots fill empty seats" : ", people only");
  const text = people[0] + " invites you to Chase the Ace (" + rules + "): " + people.length + " of " +
    t.options.seats + " seats taken" + (people.length > 1 ? " by " + people.join(", ") : "") + ".";
  const open = t.status === "waiting" && people.length < t.options.seats;
  $("join-about").textContent = open ? text : text + " The game has " + (t.status === "waiting" ? "no free seat" : "started") + ": you can watch it.";
  $("join-button").hidden = !open;
}

// Back to our seat (or to watching) after a reload or a dropped connection; false if neither.
// A seat link never moves a browser that holds a seat here without asking: the browser's own
// token is tried and the link waits for the person's answer (askAboutLink). A browser with no seat
// here tries the link's token at once (that is what a seat link is for).
function rejoin(table) {
  const stored = localStorage.getItem(tokenKey(table));
  const away = stored !== null && sessionStorage.getItem(awayKey(table)) === stored;
  let token = null;
  if (ui.switching) {
    token = ui.switching;
    ui.trying = "switch";
  } else {
    if (ui.linkToken && ui.linkToken === stored && !away) ui.linkToken = null;  // this seat already
    if (ui.linkToken && stored) { ui.pendingLink = ui.linkToken; ui.linkToken = null; }
    if (ui.linkToken) { token = ui.linkToken; ui.trying = "link"; }
    else if (stored && !away) { token = stored; ui.trying = "stored"; }
    else ui.trying = null;
  }
  ui.tried = token;
  if (token) send({ type: "resume", table, token });
  else if (away || ui.role === "spectator" || ui.pendingLink) {
    ui.role = "spectator";
    send({ type: "watch", table });
    if (away && !ui.pendingLink) lostSeat(table);
  } else return false;
  return true;
}

// The person chose to play the seat of this token here (a seat link's, or this browser's other seat).
function switchTo(table, token) {
  ui.switching = token;
  ui.wanted = table;
  rejoin(table);
}

// A seat link for another seat, opened where this browser holds a seat: asked, never done unasked.
function askAboutLink() {
  const link = ui.pendingLink, table = ui.table;
  if (!link || !table) return;
  ui.pendingLink = null;
  const mine = ui.role === "player" ? seatName(ui.seat) : localStorage.getItem(nameKey(table));
  const text = "The seat link you opened is for another seat at this table" +
    (mine ? ": on this device you play as " + mine + "." : ".") +
    " Take the link's seat here? Whoever plays it now loses it" +
    (mine ? ", and yours waits for you (the page keeps the way back to it)." : ".");
  notice(text, [[mine ? "Stay as " + mine : "No, just watch", () => {}, "stay-seat"],
    ["Take the link's seat", () => switchTo(table, link), "switch-seat"]]);
}

// This tab's seat is played on another device now: it watches the table (never a frozen page),
// and offers the seat back, and this browser's other seat if it has one, without taking either.
function lostSeat(table) {
  const stored = localStorage.getItem(tokenKey(table));
  if (stored) sessionStorage.setItem(awayKey(table), stored);
  const name = localStorage.getItem(nameKey(table));
  const choices = [];
  if (stored) choices.push([name ? "Play as " + name + " here" : "Play my seat here", () => switchTo(table, stored), "play-here"]);
  const spare = localStorage.getItem(spareKey(table));
  if (spare) choices.push(["Back to my seat as " + (localStorage.getItem(spareNameKey(table)) || "before"), () => switchTo(table, spare), "back-seat"]);
  notice((name ? name + "'s seat" : "Your seat") + " is now played on another device (its seat link or recovery " +
    "code was used there). This page watches the table meanwhile: taking the seat back here signs the other device out.", choices);
}

function onJoined(msg) {
  if (msg.role === "spectator" && ui.previewing) return;
  ui.previewing = false;
  ui.rejoined = ui.unanswered !== null && ui.table === msg.table;
  const was = ui.table === msg.table && ui.role === "player" ? ui.seat : null;
  ui.table = msg.table;
  ui.seat = msg.seat;
  ui.role = msg.role;
  const token = msg.role === "player" ? msg.token || ui.tried : null;
  if (token) {
    const had = localStorage.getItem(tokenKey(msg.table));
    if (had && had !== token) {  // this browser's other seat: kept, and offered back
      localStorage.setItem(spareKey(msg.table), had);
      const name = localStorage.getItem(nameKey(msg.table));
      if (name) localStorage.setItem(spareNameKey(msg.table), name); else localStorage.removeItem(spareNameKey(msg.table));
      localStorage.removeItem(nameKey(msg.table));
    } else if (localStorage.getItem(spareKey(msg.table)) === token) {
      localStorage.removeItem(spareKey(msg.table)); localStorage.removeItem(spareNameKey(msg.table));
    }
    localStorage.setItem(tokenKey(msg.table), token);
    sessionStorage.removeItem(awayKey(msg.table));
  }
  if (ui.trying === "link" && msg.role === "player") toast("The seat link worked: this is your seat on this device.");
  if (ui.trying === "switch" && msg.role === "player" && was !== msg.seat) toast("You play this seat here now.");
  ui.linkToken = null; ui.trying = null; ui.tried = null; ui.switching = null;
  $("recovery").hidden = !msg.recovery;
  if (msg.recovery) {
    $("recovery-code").textContent = msg.recovery;
    $("copy-recovery").textContent = "Copy";
    say("Your seat's recovery code is shown at the top of the table, once: keep it somewhere safe.");
  }
  ui.fresh = true;  // the next state starts the page's log afresh
  ui.token = msg.role === "player" ? localStorage.getItem(tokenKey(msg.table)) : null;
  $("seat-link-box").hidden = !ui.token;
  if (ui.token) $("seat-link").value = location.origin + "/t/" + msg.table + "#seat=" + ui.token;
  if (location.pathname !== "/t/" + msg.table) history.replaceState(null, "", "/t/" + msg.table);
  $("invite").value = location.origin + "/t/" + msg.table;
  show("table");
  if (ui.wsTable !== msg.table && !ui.next) moveSocket(msg.table);  // to the table's process
}

function onError(msg) {
  if (msg.code === "too_many_connections") {  // before the welcome: the page is empty but for this
    ui.full = true;
    notice(msg.message);
    return;
  }
  ui.sent = null;  // the table answered: the act buttons work again
  actButtons();
  if (msg.code === "bad_token" && ui.wanted) { badToken(ui.wanted); return; }
  if (msg.code === "no_table" && ui.wanted) {
    history.replaceState(null, "", "/"); ui.table = null; ui.linkToken = null; show("lobby");
  }
  if ((msg.code === "bad_recovery" || msg.code === "too_many_guesses") && !$("join").hidden) {
    notice(msg.message);
    $("recover-box").open = true;
  }
  if (msg.code === "replaced") {
    ui.seat = null; ui.role = "spectator"; ui.token = null;
    $("seat-link-box").hidden = true;
    if (ui.table) { lostSeat(ui.table); send({ type: "watch", table: ui.table }); }
    return;
  }
  toast(msg.message);
}

// A token the server does not know. One the person chose (a seat link's, or this browser's other
// seat's): nothing changes, the page goes back to where it was. This browser's own: its seat was
// taken back with the recovery code somewhere else; the dead token goes, and the join page says how
// to take the seat back (or a seat link opened meanwhile is tried: there is no seat here to lose).
function badToken(table) {
  const own = localStorage.getItem(tokenKey(table));
  const tried = ui.tried;
  const chosen = (ui.trying === "switch" || ui.trying === "link") && tried !== own;
  ui.trying = null; ui.tried = null; ui.switching = null; ui.linkToken = null;
  if (chosen) {
    const spare = tried !== null && tried === localStorage.getItem(spareKey(table));
    if (spare) { localStorage.removeItem(spareKey(table)); localStorage.removeItem(spareNameKey(table)); }
    const what = spare ? "The key to your other seat here no longer works (it was taken back with its recovery code)."
      : "The seat link you opened does not hold a seat at this table (it may be old, cut short, or not yours).";
    if (ui.state && ui.table === table) {  // the server changed nothing: the page is where it was
      notice(what + (ui.role === "player" ? " Nothing changed: you are still at your own seat." : " Nothing changed."));
      return;
    }
    notice(what + " If you have a seat here, take it back with your recovery code; otherwise take a free seat or watch.");
  } else {
    if (own) {
      localStorage.removeItem(tokenKey(table)); localStorage.removeItem(nameKey(table));
      sessionStorage.removeItem(awayKey(table));
    }
    if (ui.pendingLink) {  // no seat here after all: the link is tried, as on any browser without one
      ui.linkToken = ui.pendingLink; ui.pendingLink = null;
      rejoin(table);
      return;
    }
    notice("This browser's key to your seat here no longer works: the seat was probably taken back with its " +
      "recovery code on another device. Enter your recovery code to take it back here.");
  }
  ui.role = null;
  $("recover-box").open = true;
  showJoin(table);
}

// --- the lobby ----------------------------------------------------------------------------------

function fillLobby(w) {
  const preset = $("preset");
  if (preset.options.length) return;
  for (const p of w.presets) preset.append(new Option(p.name, p.name));
  const bots = $("bots");
  bots.append(new Option("no bots: only people", ""));
  for (const [kind, help] of Object.entries(w.bots)) bots.append(new Option(kind + " (" + help + ")", kind));
  bots.value = "counting";
  const box = $("options");
  for (const o of w.options) {
    const label = el("label", "option");
    label.append(el("span", "key", o.key.replaceAll("_", " ")));
    let input;
    if (o.minimum !== null) {
      input = el("input");
      input.type = "number";
      input.min = String(o.minimum);
      input.max = "99";
    } else {
      input = el("select");
      for (const v of o.values) input.append(new Option(String(v), JSON.stringify(v)));
    }
    input.dataset.key = o.key;
    input.title = o.meaning;
    label.append(input, el("small", "hint", o.meaning));
    box.append(label);
  }
  preset.onchange = applyPreset;
  applyPreset();
  $("game").onchange = applyGame;
}

// Ace Chasing (RULES.md part B) has no presets, house rules or hints here, its own bots, 4 seats
// or more.
function applyGame() {
  const ace = $("game").value === "ace-chasing";
  $("preset-label").hidden = ace;
  $("preset-about").hidden = ace;
  $("house-rules").hidden = ace;
  $("hints-label").hidden = !ui.welcome.game_hints[$("game").value];
  const bots = $("bots");
  bots.replaceChildren(new Option("no bots: only people", ""));
  const kinds = ui.welcome.game_bots[$("game").value];
  for (const [kind, help] of Object.entries(kinds)) bots.append(new Option(kind + " (" + help + ")", kind));
  bots.value = ace ? "odds" : "counting";
  $("seats").min = ace ? "4" : "2";
  if (ace && Number($("seats").value) < 4) $("seats").value = "5";
}

function applyPreset() {
  const w = ui.welcome;
  const p = w.presets.find((x) => x.name === $("preset").value);
  $("preset-about").textContent = p.description;
  if (p.players) $("seats").value = String(p.players);
  for (const o of w.options) {
    const input = document.querySelector(`[data-key="${o.key}"]`);
    const value = o.key in p.options ? p.options[o.key] : o.default;
    input.value = o.minimum !== null ? String(value) : JSON.stringify(value);
  }
}

function createTable(event) {
  event.preventDefault();
  const w = ui.welcome;
  if ($("game").value === "ace-chasing") {
    const timer = $("timer").value;
    send({
      type: "create", game: "ace-chasing", name: $("create-name").value, seats: Number($("seats").value),
      bots: $("bots").value || null, timer: timer ? Number(timer) : null, on_timeout: $("on-timeout").value,
      public: $("public").checked,
    });
    return;
  }
  const p = w.presets.find((x) => x.name === $("preset").value);
  const options = {};
  for (const o of w.options) {
    const input = document.querySelector(`[data-key="${o.key}"]`);
    const value = o.minimum !== null ? Number(input.value) : JSON.parse(input.value);
    const base = o.key in p.options ? p.options[o.key] : o.default;
    if (value !== base) options[o.key] = value;
  }
  const timer = $("timer").value;
  send({
    type: "create", name: $("create-name").value, preset: p.name, options,
    seats: Number($("seats").value), bots: $("bots").value || null,
    timer: timer ? Number(timer) : null, on_timeout: $("on-timeout").value, public: $("public").checked,
    hints: $("hints").checked,
  });
}

// The public list of open tables (their creators chose to list them).
function onTables(msg) {
  const list = $("open-tables");
  list.replaceChildren();
  $("no-tables").hidden = msg.tables.length > 0;
  for (const t of msg.tables) {
    const item = el("li", "open-table");
    const link = el("a", null, t.host + "'s table");
    link.href = "/t/" + t.id;
    item.append(link, el("span", "hint", " · " + t.preset + " · " + t.taken + " of " + t.seats + " seats taken" + (t.bots ? " · bots fill the rest" : "")));
    list.append(item);
  }
}

// --- the table ----------------------------------------------------------------------------------

function onState(msg) {
  if (ui.previewing) { preview(msg); return; }
  if (ui.fresh || msg.table.game_no !== ui.gameNo || msg.events_from === 0) {
    // the server sends a (re)joining page only the latest events; the page keeps its own log after
    ui.history = []; ui.base = msg.events_from; ui.fresh = false; $("log").replaceChildren();
  }
  ui.gameNo = msg.table.game_no;
  if (msg.events_from !== ui.base + ui.history.length) { rejoin(ui.table); return; }
  ui.state = msg;
  ui.seat = msg.you.seat;
  for (const ev of msg.events) { ui.history.push(ev); logEvent(ev); }
  if (ui.sent !== null && ui.sent !== marker()) ui.sent = null;  // the table moved on
  retryAct(msg);
  if (ui.role === "player" && ui.seat !== null) localStorage.setItem(nameKey(ui.table), seatName(ui.seat));
  render(msg);
  announce(msg.events);
  if (ui.pendingLink) askAboutLink();
}

// Each act carries an id: if the connection drops before the table moves on, the page sends it
// again once back at its seat (on this server process or another), and the server applies it once.
function act(message) {
  const id = window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now();
  const m = { type: "act", ...message, act_id: id };
  ui.unanswered = { m, at: ui.base + ui.history.length, game: ui.gameNo };
  ui.sent = marker();
  actButtons();
  send(m);
}

function retryAct(msg) {
  const u = ui.unanswered;
  if (!u) return;
  if (msg.table.game_no !== u.game || ui.base + ui.history.length > u.at) { ui.unanswered = null; return; }
  if (ui.rejoined && msg.game && msg.game.to_act === msg.you.seat) {
    ui.rejoined = false;
    send(u.m);
  }
}

function seatName(seat) {
  const s = ui.state && ui.state.table.seats[seat];
  return s ? s.name : "Seat " + (seat + 1);
}

function nameOf(seat) {
  const s = ui.state && ui.state.table.seats[seat];
  const name = s ? s.name : "Seat " + (seat + 1);
  return seat === ui.seat ? name + " (you)" : name;
}

function render(msg) {
  const t = msg.table;
  const g = msg.game;
  const ace = t.options.game === "ace-chasing";
  const status = { waiting: "Waiting for players", playing: (ace ? "Round " + (g ? g.round : "") : "Hand " + (g ? g.hand : "")), over: "Game over" }[t.status];
  $("status").textContent = status + " · " + (ace ? "Ace Chasing" : t.options.preset) + (ui.role === "spectator" ? " · watching" : "");
  renderSeats(t, g);
  const taken = `${t.seats.filter((s) => s.kind === "human").length} of ${t.options.seats} seats taken`;
  $("pot").textContent = !g ? taken : ace ? aceLine(g) : `Pot ${g.pot} · Kitty ${g.kitty} · Stock ${g.stock_size}`;
  const mine = g && ui.seat !== null && g.to_act === ui.seat && g.legal.length > 0;
  const legal = mine ? g.legal : [];
  $("keep").hidden = !legal.includes("keep");
  $("swap").hidden = !legal.includes("swap");
  $("offer-box").hidden = !legal.includes("offer");
  $("accept").hidden = !legal.includes("accept");
  $("decline").hidden = !legal.includes("decline");
  if (legal.includes("accept")) $("accept").textContent = "Accept " + nameOf(g.offer.seat) + "'s bet of " + g.offer.amount;
  // a turn of yours starts: the table moved on since the last one (one state may hold both)
  const turnStarts = mine && ui.turnAt !== marker();
  ui.turnAt = mine ? marker() : null;
  alertTurn(mine);
  if (legal.includes("swap") && !ace) {
    // the neighbour's name on one line (cut with "…" if long: the prompt has it whole)
    const to = ui.seat === g.dealer ? "the stock" : seatName(nextLiving(g, ui.seat));
    $("swap").replaceChildren("Swap with ", el("span", "to", to));
  } else $("swap").textContent = "Swap";
  const creator = ui.seat === t.creator && ui.role === "player";
  $("start").hidden = !(creator && t.status === "waiting");
  $("rematch").hidden = !(creator && t.status === "over");
  $("hint").hidden = !(mine && t.options.hints);
  if (!mine) $("hint-text").hidden = true;
  // reviews are for the games the server can judge (a 12-seat game's would be refused)
  const reviewable = ace || (g && g.players <= ((ui.welcome && ui.welcome.limits.review_players) || 0));
  $("review-link").hidden = !(t.status === "over" && reviewable);
  if (t.status === "over") $("review-link").href = `/t/${encodeURIComponent(t.id)}/review/${t.game_no}`;
  const banner = $("banner");
  banner.hidden = !(g && g.over);
  if (g && g.over && ace) {
    banner.textContent = g.winners.map(nameOf).join(" and ") + " wins, the last one in!";
  } else if (g && g.over) {
    const won = wonPot();
    banner.textContent = g.winners.length
      ? g.winners.map(nameOf).join(" and ") + (g.winners.length > 1 ? " share the pot" : " wins the pot") + (won ? " of " + won + (won === 1 ? " chip" : " chips") : "") + "!"
      : "No winner: the pot of " + g.pot + " carries over";
  }
  $("prompt").textContent = prompt(t, g, mine);
  renderAway(t);
  renderOtherSeat();
  // the panel stays at the bottom of the screen only while it holds your choices: otherwise it
  // would hide the table's lower seats for nothing
  $("controls").classList.toggle("sticky", !!mine || !$("start").hidden || !$("rematch").hidden);
  actButtons();
  tick(t);
  if (mine) keepSeatInView();
  // your turn: the keyboard's focus goes to its first choice (unless you are typing elsewhere)
  if (turnStarts) {
    const first = ["keep", "amount", "accept"].map($).find((b) => !b.hidden && b.offsetParent !== null);
    const at = document.activeElement;
    if (first && (!at || at === document.body || at.offsetParent === null || at.closest("#controls"))) first.focus();
  }
}

// The creator may hand a seat whose person has gone to a bot (they take it back on return): one
// button per such seat, below the table (on the seat itself it covered the seat's card and note).
function renderAway(t) {
  const box = $("away-seats");
  box.replaceChildren();
  if (!(ui.seat === t.creator && ui.role === "player" && t.status === "playing")) { box.hidden = true; return; }
  t.seats.forEach((s, i) => {
    if (s.kind !== "human" || t.connected.includes(i) || i === ui.seat) return;
    const b = el("button", "replace", "Let a bot play for " + s.name);
    b.type = "button";
    b.title = "A bot plays " + s.name + "'s seat until they come back";
    b.addEventListener("click", () => send({ type: "replace", seat: i }));
    box.append(b);
  });
  box.hidden = box.children.length === 0;
}

// This browser's other seat at the table (left for a seat link's, with the person's yes): the way back.
function renderOtherSeat() {
  const spare = ui.table && localStorage.getItem(spareKey(ui.table));
  const b = $("other-seat");
  b.hidden = !spare || spare === ui.token;
  if (!b.hidden) b.textContent = "Back to my seat as " + (localStorage.getItem(spareNameKey(ui.table)) || "before");
}

// The one live region: what happened since the last state, then whose turn it is, or the result.
function announce(events) {
  const said = events.map(describe).filter(Boolean).slice(-3);
  const g = ui.state.game;
  let now = $("prompt").textContent;
  if (g && g.over) now = $("banner").textContent;
  else if (g && g.to_act !== null && g.to_act !== ui.seat) now = seatName(g.to_act) + "'s turn.";
  const text = [...said, now].filter(Boolean).join(" ");
  if (text && text !== ui.said) { say(text); ui.said = text; }
}

// The chips paid out at the end of the game, from the game_over event.
function wonPot() {
  for (let i = ui.history.length - 1; i >= 0; i--) {
    const ev = ui.history[i];
    if (ev.type === "game_over") return (ev.payouts || []).reduce((sum, [, n]) => sum + n, 0);
  }
  return 0;
}

// Your turn: the tab's title says so (seen from another tab), and a short tone if you asked for one.
function alertTurn(mine) {
  document.title = mine ? "● Your turn · " + TITLE : TITLE;
  if (mine && !ui.myTurn && ui.sound) beep();
  ui.myTurn = !!mine;
}

function beep() {
  try {
    const ctx = beep.ctx || (beep.ctx = new AudioContext());
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.3);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.3);
  } catch (e) { /* no sound here */ }
}

// The centre of an Ace Chasing table: the round, the matador, the bets that stand.
function aceLine(g) {
  if (g.over) return "";
  const bets = g.bets.map(([s, n]) => nameOf(s) + " " + n).join(", ");
  return "Matador: " + nameOf(g.matador) + " · " + (g.phase === "betting" ? "betting" : "exchanges") + (bets ? " · bets: " + bets : "");
}

function prompt(t, g, mine) {
  if (t.options.game === "ace-chasing" && g && !g.over && mine) {
    if (g.legal.includes("offer")) return "Your bet that " + nameOf(g.matador) + " (the matador) is knocked out this round: how much? (No bet: 0)";
    if (g.legal.includes("accept")) return nameOf(g.offer.seat) + " bets " + g.offer.amount + " that you are knocked out: accept or decline.";
    return "Your turn: keep your card, or swap it.";
  }
  if (t.status === "waiting") return ui.seat === t.creator ? "Send the invite link, then start when everyone is here" + (t.options.bots ? " (bots fill empty seats)." : ".") : "Waiting for the creator to start the game.";
  if (!g) return "";
  if (g.over) return ui.seat === t.creator ? "Play again with the same table?" : "Waiting for a rematch.";
  if (mine) return "Your turn: keep your card, or swap it with " + (ui.seat === g.dealer ? "the stock." : seatName(nextLiving(g, ui.seat)) + ".");
  if (ui.seat !== null && !g.in[ui.seat]) return "You are out. Watch the others chase the ace.";
  return g.to_act === null ? "" : nameOf(g.to_act) + " is thinking…";
}

function nextLiving(g, seat) {
  for (let i = 1; i <= g.players; i++) { const s = (seat + i) % g.players; if (g.in[s]) return s; }
  return seat;
}

function renderSeats(t, g) {
  const ring = $("seats-ring");
  ring.replaceChildren();
  const n = t.seats.length;
  const me = ui.seat === null ? 0 : ui.seat;
  const last = lastHand();
  const acts = thisHand();
  const announced = announcedThisHand();
  ring.dataset.seats = String(n);
  ring.classList.toggle("compact", n > 8 || window.innerWidth <= 640);
  const spots = seatSpots(n, ring.clientWidth || 4, ring.clientHeight || 3);
  t.seats.forEach((s, i) => {
    const box = el("div", "seat");
    if (s.kind === "empty") box.classList.add("empty");
    if (g && g.to_act === i) box.classList.add("turn");
    if (g && !g.in[i]) box.classList.add("out");
    if (i === ui.seat) box.classList.add("me");
    // seats round an ellipse, yours at the bottom, in the direction of play (clockwise), spaced
    // evenly along its edge (equal angles would crowd the seats where the ellipse is flattest)
    const [x, y] = spots[(i - me + n) % n];
    box.style.left = x.toFixed(2) + "%";
    box.style.top = y.toFixed(2) + "%";
    const head = el("div", "who");
    const label = s.kind === "empty" ? (s.bot ? "bot" : "empty seat") : s.name;
    const nameNode = el("span", "name", label);
    nameNode.title = label;
    head.append(nameNode);
    if (s.kind === "bot") head.append(el("span", "tag", "bot"));
    if (s.kind === "human" && !t.connected.includes(i) && i !== ui.seat) head.append(el("span", "tag away", "away"));
    if (g && g.dealer === i && g.dealer !== undefined) head.append(el("span", "dealer", "D"));
    if (g && g.matador === i) { const m = el("span", "matador", "M"); m.title = "the matador"; head.append(m); }
    box.append(head);
    if (s.kind === "empty" && s.bot) box.append(el("div", "done", s.bot));  // the kind of bot that will sit here
    if (g && g.money) {  // Ace Chasing: money won or lost, the card, the bet standing
      const m = g.money[i];
      box.append(el("div", "money" + (m > 0 ? " up" : m < 0 ? " down" : ""), (g.in[i] ? "" : "out · ") + (m > 0 ? "+" : m < 0 ? "−" : "") + Math.abs(m)));
      if (g.in[i] && g.cards) box.append(cardNode(i === ui.seat ? g.card : g.cards[i], i === ui.seat ? "mine" : ""));
      const bet = g.bets.find(([s]) => s === i);
      if (bet && !g.over) box.append(el("div", "done", "bets " + bet[1]));
      else if (acts[i] && !g.over) box.append(el("div", "done", acts[i]));
    } else if (g) {
      const lives = g.lives[i];
      box.append(el("div", "lives", g.in[i] ? (lives > 4 ? "♥ × " + lives : "♥".repeat(lives) || "on the bum") : "out"));
      if (g.in[i] && (g.cards[i] || g.order.includes(i))) {
        box.append(cardNode(i === ui.seat ? g.card : g.cards[i], i === ui.seat ? "mine" : ""));
      }
      if (acts[i] && !g.over) box.append(el("div", "done", acts[i]));
      if (announced[i] && !g.over) box.append(el("div", "announced", "announced " + announced[i]));
      const shown = last.cards[i];
      const paid = last.paid[i];
      if (shown || paid) {
        const line = el("div", "last" + (paid ? " lost" : ""));
        line.append(el("span", "label", "last hand: "));
        if (shown) line.append(cardNode(shown, "mini"));
        if (paid) line.append(" −" + paid + "♥");
        box.append(line);
      }
    }
    ring.append(box);
  });
}

// n places (in % of the ring) evenly spaced round a rounded oblong of radii 40% and 41% of a w x h ring,
// the first at the bottom, going clockwise on screen.
function seatSpots(n, w, h) {
  const rx = 0.40 * w, ry = 0.41 * h, steps = 720;
  // a superellipse (|x/rx|^3 + |y/ry|^3 = 1): rounder than a rectangle, roomier than an ellipse
  const bend = (v) => Math.sign(v) * Math.abs(v) ** (2 / 3);
  const point = (k) => { const t = Math.PI / 2 + (2 * Math.PI * k) / steps; return [rx * bend(Math.cos(t)), ry * bend(Math.sin(t))]; };
  const lengths = [0];
  let prev = point(0);
  for (let k = 1; k <= steps; k++) {
    const p = point(k);
    lengths.push(lengths[k - 1] + Math.hypot(p[0] - prev[0], p[1] - prev[1]));
    prev = p;
  }
  const spots = [];
  let k = 0;
  for (let i = 0; i < n; i++) {
    const want = (lengths[steps] * i) / n;
    while (lengths[k + 1] < want) k++;
    const [x, y] = point(k);
    spots.push([50 + (100 * x) / w, 50 + (100 * y) / h]);
  }
  return spots;
}

// The ranks announced at each seat this hand (a swap can make the neighbour announce an ace or a two).
function announcedThisHand() {
  const h = ui.history;
  const out = {};
  for (let i = h.length - 1; i >= 0 && h[i].type !== "hand_started"; i--) {
    const ev = h[i];
    if (ev.type === "swap" && ev.announced && !(ev.neighbour in out)) out[ev.neighbour] = RANK_WORDS[ev.announced] || String(ev.announced);
  }
  return out;
}

// What each seat did so far this hand, in the traditional words, from the history.
function thisHand() {
  const h = ui.history;
  const acts = {};
  let i = h.length - 1;
  while (i >= 0 && h[i].type !== "hand_started" && h[i].type !== "round_started") i--;
  for (i = Math.max(i, 0); i < h.length; i++) {
    const ev = h[i];
    if (ev.type === "keep") acts[ev.seat] = "“Stand!”";
    else if (ev.type === "swap") acts[ev.seat] = "“Change!” ⇄ " + (ui.state.table.seats[ev.neighbour] || {}).name;
    else if (ev.type === "blocked") { acts[ev.seat] = "“Change!” — blocked"; acts[ev.neighbour] = "“King!”"; }
    else if (ev.type === "show_blocker") acts[ev.seat] = "“King!”";
    else if (ev.type === "dealer_exchange") acts[ev.seat] = "took from the stock";
    else if (ev.type === "dealer_drew_blocker") acts[ev.seat] = "drew a king: " + ev.rule;
  }
  return acts;
}

// The last finished hand, from the history: the cards shown at its showdown and the lives paid.
function lastHand() {
  const h = ui.history;
  const out = { cards: {}, paid: {} };
  let i = h.length - 1;
  while (i >= 0 && h[i].type !== "lives_lost") i--;
  if (i < 0) return out;
  for (const [seat, n] of h[i].payments) out.paid[seat] = n;
  for (let j = i - 1; j >= 0 && h[j].type !== "hand_started"; j--) {
    if (h[j].type === "showdown") for (const [seat, card] of h[j].cards) out.cards[seat] = card;
  }
  return out;
}

function tick(t) {
  clearInterval(ui.ticking);
  if (t.turn_ms_left === null || t.turn_ms_left === undefined) return;
  const end = Date.now() + t.turn_ms_left;
  const base = $("prompt").textContent;
  const update = () => {
    const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    $("prompt").textContent = base + " (" + left + " s)";
  };
  update();
  ui.ticking = setInterval(update, 500);
}

// --- the log: what happened, in the traditional words ------------------------------------------

function describe(ev) {
  const who = (s) => nameOf(s);
  switch (ev.type) {
    case "shuffle": return "The pack is shuffled.";
    case "dealer_draw": return "Cards drawn for the deal: " + ev.draws.map(([s, c]) => who(s) + " " + cardText(c)).join(", ") + ".";
    case "dealer_chosen": return who(ev.dealer) + " deals first.";
    case "hand_started": return "Hand " + ev.hand + ": " + who(ev.dealer) + " deals.";
    case "dealt": return ev.cards.length ? "One card each. You get " + cardText(ev.cards[0][1]) + "." : "One card each.";
    case "king_jerk": return who(ev.seat) + " shows " + cardText(ev.card) + (ev.took ? " and takes a chip from the kitty." : ".");
    case "keep": return who(ev.seat) + ": “Stand!”";
    case "swap": {
      let text = who(ev.seat) + ": “Change!” and swaps with " + who(ev.neighbour) + ".";
      if (ev.given) text += " (" + cardText(ev.given) + " went to " + who(ev.neighbour) + ", " + cardText(ev.received) + " to " + who(ev.seat) + ")";
      if (ev.announced) text += " " + who(ev.neighbour) + " announces " + (RANK_WORDS[ev.announced] || ev.announced) + ".";
      return text;
    }
    case "blocked": return who(ev.seat) + ": “Change!” — " + who(ev.neighbour) + ": “King!” shows " + cardText(ev.card) + ": no swap.";
    case "show_blocker": return who(ev.seat) + ": “King!” shows " + cardText(ev.card) + ".";
    case "pick": return null;
    case "dealer_exchange": {
      let text = who(ev.seat) + " swaps with the stock" + (ev.position ? " (cut at card " + (ev.position + 1) + ")." : " (top card).");
      if (ev.drawn) text += " You give " + cardText(ev.given) + " and draw " + cardText(ev.drawn) + ".";
      return text;
    }
    case "dealer_drew_blocker": return who(ev.seat) + " drew " + cardText(ev.card) + ({ void: ": it goes back.", "dealer-loses": ": the dealer loses a life." }[ev.rule] || ".");
    case "dealer_same_rank": return who(ev.seat) + " drew the same rank (" + cardText(ev.given) + ", " + cardText(ev.drawn) + ").";
    case "showdown": return "Showdown: " + ev.cards.map(([s, c]) => who(s) + " " + cardText(c)).join(", ") + ". Lowest: " + ev.losers.map(who).join(", ") + ".";
    case "lives_lost": return ev.payments.map(([s, n]) => who(s) + (n === 1 ? " loses a life." : n ? " loses " + n + " lives." : " has no chip to pay.")).join(" ");
    case "final_tie": return "Everyone left lost their last life at once (" + ev.rule + ").";
    case "cut_draw": return "Cut for the pot: " + ev.draws.map(([s, c]) => who(s) + " " + cardText(c)).join(", ") + ".";
    case "eliminated": return ev.seats.map(who).join(", ") + (ev.seats.length > 1 ? " are" : " is") + " out.";
    case "collected": return null;
    case "round_started": return "Round " + ev.round + ": " + who(ev.matador) + " is the matador.";
    case "offered": return who(ev.seat) + (ev.amount ? " offers to bet " + ev.amount + " that the matador is knocked out." : " does not bet.");
    case "bet_accepted": return who(ev.seat) + "'s bet of " + ev.amount + " is accepted.";
    case "bet_declined": return who(ev.seat) + "'s bet of " + ev.amount + " is declined.";
    case "betting_closed": return ev.bets.length ? "Betting closed: " + ev.bets.map(([s, n]) => who(s) + " " + n).join(", ") + "." : "Betting closed: no bets.";
    case "shown": return "Shown: " + ev.cards.map(([s, c]) => who(s) + " " + cardText(c)).join(", ") + ".";
    case "settled": return who(ev.matador) + (ev.survived ? " survives the round" : " is knocked out") + (ev.payments.length ? ": " + ev.payments.filter(([, n]) => n).map(([s, n]) => who(s) + (n > 0 ? " +" : " −") + Math.abs(n)).join(", ") : "") + ".";
    case "game_over":
      if (ui.state && ui.state.table.options.game === "ace-chasing") return ev.winners.map(who).join(" and ") + " wins the game!";
      return ev.winners.length ? ev.winners.map(who).join(" and ") + (ev.winners.length > 1 ? " share" : " wins") + " the pot!" : "No winner: the pot carries over.";
    default: return null;
  }
}

function logEvent(ev) {
  const text = describe(ev);
  if (!text) return;
  const item = el("li", "ev " + ev.type, text);
  const log = $("log");
  log.prepend(item);
  while (log.children.length > 200) log.lastChild.remove();
}

// --- wiring -------------------------------------------------------------------------------------

// A seat link (/t/TABLE#seat=TOKEN) takes your seat on another device: the token is tried first,
// and stored only once it has worked (a link can never cost this browser the seat it has); it
// goes out of the address bar at once (a fragment is never sent to a server).
function takeSeatFromLink() {
  const table = tableFromPath();
  const m = location.hash.match(/^#seat=([A-Za-z0-9_-]{16,64})$/);
  if (table && m) ui.linkToken = m[1];
  else if (table && location.hash.startsWith("#seat=")) ui.badLink = true;
  if (location.hash) history.replaceState(null, "", location.pathname);
}

document.addEventListener("DOMContentLoaded", () => {
  takeSeatFromLink();
  $("refresh-tables").addEventListener("click", () => send({ type: "list" }));
  $("sound").addEventListener("change", () => { ui.sound = $("sound").checked; if (ui.sound) beep(); });
  $("copy-seat").addEventListener("click", () => {
    $("seat-link").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("seat-link").value).then(() => toast("Seat link copied: open it on your other device. Keep it to yourself."), () => {});
  });
  $("create-form").addEventListener("submit", createTable);
  $("notice-close").addEventListener("click", () => { $("notice").hidden = true; });
  $("recovery-done").addEventListener("click", () => { $("recovery").hidden = true; $("toast").hidden = true; });
  // said on the button itself: a toast would cover the code it is about
  $("copy-recovery").addEventListener("click", () => {
    if (navigator.clipboard) navigator.clipboard.writeText($("recovery-code").textContent).then(() => {
      $("copy-recovery").textContent = "Copied ✓"; say("Recovery code copied.");
    }, () => {});
  });
  $("toast").addEventListener("click", () => { $("toast").hidden = true; });
  $("other-seat").addEventListener("click", () => {
    const spare = ui.table && localStorage.getItem(spareKey(ui.table));
    if (spare) switchTo(ui.table, spare);
  });
  $("recover-form").addEventListener("submit", (e) => {
    e.preventDefault();
    send({ type: "recover", table: tableFromPath(), code: $("recover-code").value });
  });
  window.addEventListener("resize", () => { if (ui.myTurn) keepSeatInView(); });
  // a seat link opened in a tab already at the table: only the fragment changes
  window.addEventListener("hashchange", () => {
    takeSeatFromLink();
    const table = tableFromPath();
    if (ui.linkToken && ui.welcome && table) { ui.wanted = table; rejoin(table); }
    else if (ui.badLink) {
      ui.badLink = false;
      notice("The seat link you opened is not a whole seat link (it may have been cut short): it holds no seat. Nothing changed.");
    }
  });
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    send({ type: "join", table: tableFromPath(), name: $("join-name").value });
  });
  $("watch-button").addEventListener("click", () => {
    ui.role = "spectator";
    ui.previewing = false;
    send({ type: "watch", table: tableFromPath() });
  });
  $("keep").addEventListener("click", () => act({ action: "keep" }));
  $("offer").addEventListener("click", () => act({ action: "offer", amount: Math.max(0, Math.floor(Number($("amount").value) || 0)) }));
  $("no-bet").addEventListener("click", () => act({ action: "offer", amount: 0 }));
  $("accept").addEventListener("click", () => act({ action: "accept" }));
  $("decline").addEventListener("click", () => act({ action: "decline" }));
  $("swap").addEventListener("click", () => act({ action: "swap" }));
  $("start").addEventListener("click", () => send({ type: "start" }));
  $("rematch").addEventListener("click", () => send({ type: "rematch" }));
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  $("copy").addEventListener("click", () => {
    $("invite").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("invite").value).then(() => toast("Invite link copied."), () => {});
  });
  connect();
});
