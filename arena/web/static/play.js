// A person's seat at /play/{table}. The referee's open request comes from a long poll of
// /api/play/{table}; the answer goes back as a form POST with the page's CSRF token, and its
// response is the state after it (the next request, when it came within a second). The
// server is the judge: every click is sent, and an answer it refuses (stale, duplicate, or
// against the rules) comes back with its reason, shown here, and is never applied.
(function () {
  "use strict";
  const root = document.getElementById("table");
  if (!root) return;
  const tableId = root.dataset.table;
  const csrf = root.dataset.csrf;
  const $ = (id) => document.getElementById(id);
  const SUITS = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
  let state = null;
  let version = -1;
  let skew = 0; // server clock - local clock, ms
  let picked = new Set(); // cards picked for an exchange
  let sending = false;
  let bidTyped = "";

  function cardSvg(name, cls = "") {
    const rank = name[0] === "T" ? "10" : name[0];
    const s = name[1];
    return `<svg class="card suit-${s} ${cls}" viewBox="0 0 50 70" data-card="${name}" role="img" aria-label="${name}"><rect class="face" x="1" y="1" width="48" height="68" rx="5"/><text class="rank" x="5" y="17">${rank}</text><use href="#suit-${s}" x="4" y="20" width="12" height="12"/><use href="#suit-${s}" x="17" y="32" width="28" height="28"/></svg>`;
  }
  const esc = (t) => String(t).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
  const bidText = (s) => (s.double_nil ? "Double Nil" : s.bid === null ? "—" : s.bid === 0 ? "Nil" : String(s.bid));

  let pollAbort = null; // the long poll waiting now, stopped while an answer is out
  let resume = null; // wakes the poll loop once the answer's response is in

  function take(s) {
    if (s.version < version) return; // an older state than the one shown
    skew = s.now_ms - Date.now();
    version = s.version;
    state = s;
    render();
  }

  async function poll() {
    for (;;) {
      if (state && (state.recorded || state.error)) return;
      if (sending) { await new Promise((ok) => { resume = ok; }); continue; }
      const ctrl = new AbortController();
      pollAbort = ctrl;
      try {
        const r = await fetch(`/api/play/${tableId}?since=${version}`, { headers: { accept: "application/json" }, signal: ctrl.signal });
        if (r.status === 404) { $("status").textContent = "This table is gone (the server restarted, or it never was)."; return; }
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        take(await r.json());
      } catch (e) {
        if (ctrl.signal.aborted) continue; // an answer went out: its response brings the state
        $("status").textContent = `Connection lost (${e.message}); retrying…`;
        await new Promise((ok) => setTimeout(ok, 1000));
      } finally {
        pollAbort = null;
      }
    }
  }

  async function send(value) {
    const req = state && state.request;
    if (!req || sending) return;
    sending = true;
    if (pollAbort) pollAbort.abort(); // the answer's response is the next state: one request, not two
    const body = new URLSearchParams({ csrf, seq: String(req.seq), answer: JSON.stringify(value) });
    try {
      const r = await fetch(`/api/play/${tableId}/answer`, { method: "POST", body, headers: { accept: "application/json" } });
      const out = await r.json();
      if (r.ok) {
        $("refusal").hidden = true; root.dataset.refused = "";
        // The state after the answer: the next request when it came in time, else none open
        // until the poll brings it.
        take(out);
      }
      else showRefusal(out.error || `HTTP ${r.status}`);
    } catch (e) {
      showRefusal(`the answer was not sent (${e.message}); try again`);
    } finally {
      sending = false;
      if (resume) { const wake = resume; resume = null; wake(); }
    }
  }

  function showRefusal(text) {
    const box = $("refusal");
    box.textContent = `Refused: ${text}`;
    box.hidden = false;
    root.dataset.refused = text;
  }

  function seatsRow(id, s) {
    const row = $(id);
    row.querySelector(".bid").textContent = bidText(s);
    row.querySelector(".won").textContent = s.tricks_won;
    row.querySelector(".score").textContent = s.score;
    row.querySelector(".bags").textContent = s.bags;
  }

  function trickHtml(trick, me) {
    if (!trick) return "";
    return trick.cards.map((c, i) => {
      const who = (trick.leader + i) % 2 === me ? "you" : "bot";
      return `<figure>${cardSvg(c)}<figcaption>${who}</figcaption></figure>`;
    }).join("");
  }

  function render() {
    const s = state;
    const me = s.person_seat;
    const req = s.request;
    root.dataset.kind = req ? req.kind : "";
    root.dataset.seq = req ? String(req.seq) : "";
    for (const id of ["draw", "double-nil", "exchange", "bid"]) $(id).hidden = true;
    if (req) {
      seatsRow("row-you", req.seats[me]);
      seatsRow("row-them", req.seats[1 - me]);
      const tricks = req.tricks;
      const open = tricks.length && tricks[tricks.length - 1].winner === null ? tricks[tricks.length - 1] : null;
      const done = tricks.filter((t) => t.winner !== null);
      $("trick").innerHTML = trickHtml(open, me);
      $("last-trick").innerHTML = done.length ? trickHtml(done[done.length - 1], me) + `<span>${done[done.length - 1].winner === me ? "you" : "the bot"} won it</span>` : "no trick yet";
      const gone = [];
      if (req.own_discards.length) gone.push(`Your discards this hand (both cards of each turn pass through your hands, R-2.2): ${req.own_discards.join(" ")}`);
      if (req.own_put_aside.length) gone.push(`Put aside in your exchange (R-3.4): ${req.own_put_aside.join(" ")}`);
      $("discards").textContent = gone.join(" · ");
      $("status").textContent = statusText(req);
      if (req.kind === "draw") { $("draw").hidden = false; $("offered").innerHTML = cardSvg(req.looking_at, "looking"); }
      if (req.kind === "double_nil") $("double-nil").hidden = false;
      if (req.kind === "exchange") { $("exchange").hidden = false; $("exchange-max").textContent = req.max_cards; }
      if (req.kind === "bid") { $("bid").hidden = false; renderBids(req); }
      if (req.kind !== "exchange") picked = new Set();
      renderHand(req);
    } else if (!s.end) {
      $("status").textContent = `${s.opponent || "The bot"} is thinking…`;
      for (const b of $("hand").querySelectorAll("button")) b.setAttribute("aria-disabled", "true");
    } else {
      $("trick").innerHTML = "";
      $("hand").innerHTML = "";
      $("discards").textContent = "";
    }
    renderHands(s);
    if (s.recorded || s.error || s.end) renderEnd(s);
  }

  function statusText(req) {
    const n = req.hand_number;
    switch (req.kind) {
      case "draw": return `Hand ${n}: the draw (${req.stock_size} cards left in the stock). Keep or reject?`;
      case "double_nil": return `Hand ${n}: Double Nil before your first card?`;
      case "exchange": return `Hand ${n}: exchange up to ${req.max_cards} cards.`;
      case "bid": return `Hand ${n}: your bid.`;
      default: {
        const t = req.tricks.length && req.tricks[req.tricks.length - 1].winner === null ? "answer the trick" : "lead";
        return `Hand ${n}, trick ${req.tricks.filter((x) => x.winner !== null).length + 1}: your turn to ${t}${req.spades_broken ? " (spades broken)" : ""}.`;
      }
    }
  }

  function renderBids(req) {
    $("bids").innerHTML = req.legal_bids.map((b) => `<button type="button" data-bid="${b}">${b === 0 ? "Nil" : b}</button>`).join("");
  }

  function renderHand(req) {
    const legal = new Set(req.legal_cards || []);
    const why = req.why_not || {};
    $("hand").innerHTML = req.hand.map((c) => {
      let attrs = "";
      if (req.kind === "play") {
        if (legal.has(c)) attrs = ` class="card-button legal" title="play ${c}"`;
        else attrs = ` class="card-button" aria-disabled="true" title="${esc(why[c] || "not now")}"`;
      } else if (req.kind === "exchange") {
        attrs = ` class="card-button" aria-pressed="${picked.has(c)}" title="put ${c} aside"`;
      } else {
        attrs = ` class="card-button" aria-disabled="true" title="not your play yet"`;
      }
      return `<button type="button" data-card="${c}"${attrs}>${cardSvg(c)}</button>`;
    }).join("");
    if (req.kind === "play" && !$("hand").contains(document.activeElement)) {
      const first = $("hand").querySelector("button.legal");
      if (first) first.focus({ preventScroll: true });
    }
  }

  function renderHands(s) {
    const me = s.person_seat;
    $("hands").querySelector("tbody").innerHTML = s.hands.map((h) => {
      const pair = (a) => `${a[me]} / ${a[1 - me]}`;
      const bids = [0, 1].map((i) => (h.double_nil[i] ? "DN" : h.bids[i] === 0 ? "Nil" : h.bids[i]));
      let ref = "";
      if (s.reference) {
        const r = s.reference.hands.find((x) => x.hand === h.hand);
        ref = r ? `<td class="ref">${r.points} (${signed(h.points[me] - r.points)})</td>` : "<td class=\"ref\">…</td>";
      }
      return `<tr><td>${h.hand}</td><td>${pair(bids)}</td><td>${pair(h.tricks_won)}</td><td>${pair(h.points)}</td><td>${pair(h.scores)}</td><td>${pair(h.bags)}</td>${ref}</tr>`;
    }).join("");
    renderVersus(s);
    if (s.hands.length && !s.request) {
      const h = s.hands[s.hands.length - 1];
      seatsRow("row-you", { bid: h.bids[me], double_nil: h.double_nil[me], tricks_won: h.tricks_won[me], score: h.scores[me], bags: h.bags[me] });
      seatsRow("row-them", { bid: h.bids[1 - me], double_nil: h.double_nil[1 - me], tricks_won: h.tricks_won[1 - me], score: h.scores[1 - me], bags: h.bags[1 - me] });
    }
  }

  const signed = (n) => (n > 0 ? `+${n}` : String(n));

  // Beat the bot: the person's points on each hand against the reference bot's on the same
  // deal in the same seat (the server sends a reference hand only once the person's is done).
  function renderVersus(s) {
    const ref = s.reference;
    const box = $("versus");
    if (!ref) return;
    if (ref.error) { box.hidden = false; box.textContent = ref.error; return; }
    const me = s.person_seat;
    let total = 0;
    let n = 0;
    let last = "";
    for (const h of s.hands) {
      const r = ref.hands.find((x) => x.hand === h.hand);
      if (!r) continue;
      const d = h.points[me] - r.points;
      total += d;
      n += 1;
      last = `${signed(d)} points against ${ref.bot} on hand ${h.hand}`;
    }
    if (!n) return;
    box.hidden = false;
    box.textContent = `${last}; ${signed(total)} over ${n} hand${n > 1 ? "s" : ""} on the same cards.`;
    root.dataset.versus = String(total);
  }

  function renderEnd(s) {
    if (!s.end && !s.error) return;
    const me = s.person_seat;
    $("over").hidden = false;
    $("decision").hidden = true;
    let text;
    if (s.error) text = s.error;
    else {
      const e = s.end;
      const verdict = e.winner === null ? "No winner" : e.winner === me ? "You won" : `${s.opponent || "The bot"} won`;
      text = `${verdict}: ${e.scores[me]} to ${e.scores[1 - me]} (${e.termination.replace(/_/g, " ")})${e.detail ? ". " + e.detail : ""}`;
    }
    $("result").textContent = text;
    $("replay-link").hidden = !s.recorded;
    $("status").textContent = s.recorded ? "The match is over and recorded." : "The match is over; recording it…";
    root.dataset.over = s.recorded ? "recorded" : "over";
    $("clock").textContent = "—";
  }

  function tick() {
    const req = state && state.request;
    const clock = $("clock");
    if (!req) { clock.textContent = "—"; clock.classList.remove("low"); return; }
    const left = Math.max(0, req.deadline_ms - (Date.now() + skew));
    const bank = req.clock && req.clock.bank_ms ? ` (bank ${Math.floor(req.clock.bank_ms / 1000)} s included)` : "";
    clock.textContent = `${(left / 1000).toFixed(0)} s left${bank}`;
    clock.classList.toggle("low", left < 10000);
  }

  document.addEventListener("click", (ev) => {
    const t = ev.target.closest("button");
    if (!t || !state || !state.request) return;
    const req = state.request;
    if (t.dataset.answer) send(t.dataset.answer);
    else if (t.dataset.bid !== undefined) send(Number(t.dataset.bid));
    else if (t.id === "exchange-send") send([...picked]);
    else if (t.dataset.card && req.kind === "play") send(t.dataset.card);
    else if (t.dataset.card && req.kind === "exchange") {
      const c = t.dataset.card;
      if (picked.has(c)) picked.delete(c); else picked.add(c);
      t.setAttribute("aria-pressed", String(picked.has(c)));
    }
  });
  $("last-trick-button").addEventListener("click", (ev) => {
    const box = $("last-trick");
    box.hidden = !box.hidden;
    ev.currentTarget.setAttribute("aria-expanded", String(!box.hidden));
  });

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.tagName === "INPUT") return;
    const req = state && state.request;
    const k = ev.key.toLowerCase();
    if (k === "l") { $("last-trick-button").click(); return; }
    if (!req) return;
    if (req.kind === "draw" && (k === "k" || k === "r")) send(k === "k" ? "keep" : "reject");
    else if (req.kind === "double_nil" && (k === "d" || k === "n")) send(k === "d" ? "declare" : "decline");
    else if (req.kind === "exchange" && k === "enter") send([...picked]);
    else if (req.kind === "bid") {
      if (k === "n") send(0);
      else if (/^[0-9]$/.test(k)) { bidTyped = (bidTyped + k).slice(-2); $("status").textContent = `Your bid: ${bidTyped} (Enter to bid)`; }
      else if (k === "enter" && bidTyped) { send(Number(bidTyped)); bidTyped = ""; ev.preventDefault(); }
    } else if (req.kind === "play" && (k === "arrowleft" || k === "arrowright")) {
      const cards = [...$("hand").querySelectorAll("button")];
      const i = cards.indexOf(document.activeElement);
      const next = cards[(i + (k === "arrowleft" ? -1 : 1) + cards.length) % cards.length];
      if (next) next.focus();
      ev.preventDefault();
    }
  });

  setInterval(tick, 250);
  poll();
})();
