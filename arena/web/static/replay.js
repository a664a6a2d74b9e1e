// The match replay viewer. The frames come from /api/matches/{id}/frames?view=…, computed by
// the arena's engine for that view: this script only draws them (it never works out what a
// seat may see; a seat's view has no data about the opponent's cards to hide).
(function () {
  "use strict";
  const root = document.getElementById("viewer");
  if (!root) return;
  const matchId = root.dataset.match;
  const view = root.dataset.view;
  const players = root.dataset.players.split("|");
  const RANKS = "23456789TJQKA";
  const SUITS = "cdhs";
  const $ = (id) => document.getElementById(id);
  let frames = [];
  let handStarts = {};
  let step = 0;
  let timer = null;
  // The double-dummy analysis (/api/matches/{id}/analysis), by decision index: plays[i] is the
  // analysis of decision i when it was a card played. Loaded after the frames; optional.
  let plays = {};
  let analysisState = "loading";
  const CLASS_TEXT = { best: "best", inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder" };

  const cardName = (c) => RANKS[c % 13] + SUITS[Math.floor(c / 13)];
  function cardSvg(c, cls = "") {
    const rank = RANKS[c % 13] === "T" ? "10" : RANKS[c % 13];
    const s = SUITS[Math.floor(c / 13)];
    return `<svg class="card suit-${s} ${cls}" viewBox="0 0 50 70" data-card="${cardName(c)}" role="img" aria-label="${cardName(c)}"><rect class="face" x="1" y="1" width="48" height="68" rx="5"/><text class="rank" x="5" y="17">${rank}</text><use href="#suit-${s}" x="4" y="20" width="12" height="12"/><use href="#suit-${s}" x="17" y="32" width="28" height="28"/></svg>`;
  }
  function backSvg(cls = "") {
    return `<svg class="card back ${cls}" viewBox="0 0 50 70" data-card="hidden" role="img" aria-label="hidden card"><rect class="face" x="1" y="1" width="48" height="68" rx="5"/></svg>`;
  }
  const esc = (t) => String(t).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
  const ms = (us) => (us / 1000).toFixed(us < 10000 ? 2 : 1) + " ms";

  function bidText(p) {
    if (p.double_nil) return "Double Nil";
    if (p.bid === null || p.bid === undefined) return "—";
    return p.bid === 0 ? "Nil" : String(p.bid);
  }

  function seatHtml(f, s) {
    const p = f.seats[s];
    const roles = [];
    if (f.first_drawer === s) roles.push("first drawer");
    const facts = [
      `bid <b class="bid">${bidText(p)}</b>`,
      `tricks <b class="won">${p.won}</b>`,
      `score <b class="score">${p.score}</b>`,
      `bags <b class="bags">${p.bags}</b>`,
    ];
    if (p.exchanged !== null && p.exchanged !== undefined) facts.push(`exchanged ${p.exchanged}`);
    let hand = "";
    if (p.hand) {
      hand = p.hand.map((c) => cardSvg(c)).join("");
      if (p.looking_at !== null && p.looking_at !== undefined) {
        hand += `<span class="sub">&nbsp;looking at</span>${cardSvg(p.looking_at, "looking")}`;
      }
    } else {
      hand = Array.from({ length: p.hand_count }, () => backSvg()).join("");
      if (p.looking) hand += `<span class="sub">&nbsp;looking at</span>${backSvg("looking")}`;
    }
    let discards = "";
    if (p.discards) {
      discards = p.discards.map((c) => cardSvg(c, "small")).join("");
    } else if (p.discard_count) {
      discards = Array.from({ length: p.discard_count }, () => backSvg("small")).join("");
    }
    let aside = "";
    if (p.aside && p.aside.length) aside = p.aside.map((c) => cardSvg(c, "small")).join("");
    return `<div class="who"><span class="name">Seat ${s}: ${esc(players[s])}</span>` +
      `<span class="role">${roles.join(", ")}</span>${view === "seat" + s ? '<span class="role">(this view)</span>' : ""}</div>` +
      `<div class="facts">${facts.join(" ")}</div>` +
      `<div class="cards hand" id="hand-${s}" data-seat="${s}">${hand}</div>` +
      `<div class="sub">discarded: <span class="cards discards" id="discards-${s}">${discards || "none"}</span></div>` +
      (aside ? `<div class="sub">put aside (Double Nil): <span class="cards aside" id="aside-${s}">${aside}</span></div>` : "");
  }

  function currentTrick(f) {
    const t = f.tricks[f.tricks.length - 1];
    if (!t) return null;
    if (t.winner === null) return t;
    return f.last && f.last.kind === "play" ? t : null;
  }

  function render() {
    const f = frames[step];
    for (const s of [0, 1]) {
      const el = $(`seat-${s}`);
      el.innerHTML = seatHtml(f, s);
      el.classList.toggle("to-act", f.to_act === s && !f.scored);
    }
    const t = currentTrick(f);
    $("trick").innerHTML = t
      ? t.cards.map((c, i) => {
          const seat = i === 0 ? t.leader : 1 - t.leader;
          const won = t.winner === seat ? " won" : "";
          return `<div class="played${won}" data-seat="${seat}">${cardSvg(c)}<span>seat ${seat}${i === 0 ? " led" : ""}${won ? " won" : ""}</span></div>`;
        }).join("")
      : '<span class="sub">no card on the table</span>';
    const asked = f.over ? "the match is over" : f.scored ? "hand scored" :
      `seat ${f.to_act} to ${{ double_nil: "say whether to declare Double Nil", draw: "draw", exchange: "exchange", bid: "bid", play: f.tricks.length && f.tricks[f.tricks.length - 1].winner === null ? "answer" : "lead" }[f.decision] || f.decision}`;
    $("status").innerHTML = `Hand <b id="hand-no">${f.hand}</b> · stock ${f.stock} · spades ${f.broken ? "broken" : "not broken"} · ${asked}`;
    let last = "";
    if (f.last) {
      last = `<b>${esc(players[f.last.seat])}</b> ${esc(f.last.text)}`;
      if (f.last.us !== undefined) last += ` <span class="time">(${ms(f.last.us)})</span>`;
      if (f.last.fault) last += ` <span class="fault">fault: ${esc(f.last.fault.replace(/_/g, " "))}, action substituted</span>`;
    } else {
      last = "The match begins.";
    }
    if (f.scored) {
      const sc = f.scored;
      last += `<div class="scored" id="scored">Hand ${f.hand} scored: seat 0 ${sc.points[0] >= 0 ? "+" : ""}${sc.points[0]}${sc.bag_penalties[0] ? ` (sandbag ${sc.bag_penalties[0]})` : ""}, seat 1 ${sc.points[1] >= 0 ? "+" : ""}${sc.points[1]}${sc.bag_penalties[1] ? ` (sandbag ${sc.bag_penalties[1]})` : ""} → scores ${sc.scores[0]} : ${sc.scores[1]}, bags ${sc.bags[0]} / ${sc.bags[1]}</div>`;
    }
    $("last-action").innerHTML = last;
    renderAnalysis(f);
    $("trick-list").innerHTML = f.tricks.filter((x) => x.winner !== null).map((x) =>
      `<li>seat ${x.leader} led ${x.cards.map((c) => cardSvg(c, "small")).join("")} <span class="win">→ seat ${x.winner}</span></li>`).join("");
    $("step-text").textContent = `step ${step} of ${frames.length - 1} · hand ${f.hand}`;
    $("scrub").value = String(step);
    $("hand-select").value = String(f.hand);
    const url = `?view=${view}&step=${step}`;
    $("permalink").href = url;
    history.replaceState(null, "", url);
    root.dataset.rendered = String(step);
  }

  // In a seat's view the analysis uses the other hand's cards: shown only once the hand is over.
  function analysisShown(f, play) {
    if (!view.startsWith("seat")) return true;
    return f.hand > play.hand_number || f.over || (f.hand === play.hand_number && f.scored);
  }
  const signed = (v) => (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v);
  function renderAnalysis(f) {
    const box = $("analysis");
    const on = $("show-analysis").checked;
    box.hidden = !on;
    root.dataset.analysis = on ? analysisState : "off";
    if (!on) return;
    if (analysisState !== "ready") {
      box.innerHTML = `<span class="sub">analysis ${esc(analysisState)}</span>`;
      return;
    }
    const lines = [];
    const done = plays[step - 1];
    if (done && analysisShown(f, done)) {
      const best = done.best.join(" ");
      lines.push(`<div class="mark ${done.class}" id="mark" data-class="${done.class}" data-step="${step - 1}">` +
        `seat ${done.seat} played ${esc(done.card)}: <b>${CLASS_TEXT[done.class]}</b>` +
        (done.loss ? ` (par loss ${done.loss}; best ${esc(best)})` : "") + "</div>");
      const played = document.querySelector(`#trick .played [data-card="${done.card}"]`);
      if (played) played.closest(".played").classList.add("mark-" + done.class);
    }
    const next = plays[step];
    if (next && analysisShown(f, next)) {
      const other = 1 - next.seat;
      lines.push(`<div class="par" id="par">par: seat ${next.seat} ${signed(next.par)}, seat ${other} ${signed(-next.par)}` +
        ` · best for seat ${next.seat}: ${esc(next.best.join(" "))}</div>`);
    }
    const held = (done && !analysisShown(f, done)) || (next && !analysisShown(f, next));
    if (held && !lines.length) lines.push('<span class="sub" id="analysis-held">analysis shown after the hand in a seat view</span>');
    box.innerHTML = lines.join("");
  }

  function loadAnalysis() {
    fetch(`/api/matches/${encodeURIComponent(matchId)}/analysis`)
      .then((r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); return r.json(); })
      .then((data) => {
        plays = {};
        for (const h of data.hands) for (const p of h.plays) plays[p.step] = { ...p, hand_number: h.hand_number };
        analysisState = "ready";
        render();
      })
      .catch((err) => { analysisState = `unavailable (${err.message})`; render(); });
  }

  function go(n) {
    step = Math.max(0, Math.min(frames.length - 1, n));
    render();
  }
  function handOffset(delta) {
    const f = frames[step];
    const target = f.hand + delta;
    if (handStarts[target] !== undefined) go(handStarts[target]);
    else if (delta < 0) go(handStarts[f.hand] ?? 0);
    else go(frames.length - 1);
  }
  function togglePlay() {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "play"; return; }
    $("play").textContent = "pause";
    timer = setInterval(() => {
      if (step >= frames.length - 1) { togglePlay(); return; }
      go(step + 1);
    }, Number($("speed").value));
  }

  function init(data) {
    frames = data.frames;
    handStarts = data.hand_starts;
    $("scrub").max = String(frames.length - 1);
    $("hand-select").innerHTML = Object.keys(handStarts).map((h) => `<option value="${h}">${h}</option>`).join("");
    const params = new URLSearchParams(location.search);
    let start = Number(root.dataset.step || 0);
    if (params.get("hand") && handStarts[params.get("hand")] !== undefined && !params.get("step")) {
      start = handStarts[params.get("hand")];
    }
    $("first").onclick = () => go(0);
    $("last").onclick = () => go(frames.length - 1);
    $("back").onclick = () => go(step - 1);
    $("fwd").onclick = () => go(step + 1);
    $("prev-hand").onclick = () => handOffset(-1);
    $("next-hand").onclick = () => handOffset(1);
    $("play").onclick = togglePlay;
    $("scrub").oninput = (e) => go(Number(e.target.value));
    $("hand-select").onchange = (e) => go(handStarts[e.target.value]);
    $("speed").onchange = () => { if (timer) { togglePlay(); togglePlay(); } };
    document.addEventListener("keydown", (e) => {
      if (e.target.closest && e.target.closest("input, select, textarea")) return;
      const keys = {
        ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1),
        " ": togglePlay, Home: () => go(0), End: () => go(frames.length - 1),
        PageDown: () => handOffset(1), PageUp: () => handOffset(-1),
        "0": () => { location.search = `?view=spectator&step=${step}`; },
        "1": () => { location.search = `?view=seat0&step=${step}`; },
        "2": () => { location.search = `?view=seat1&step=${step}`; },
      };
      const action = keys[e.key];
      if (action) { e.preventDefault(); action(); }
    });
    for (const a of document.querySelectorAll("a.jump")) {
      a.addEventListener("click", (e) => {
        e.preventDefault();
        go(handStarts[a.dataset.hand] ?? 0);
        root.scrollIntoView({ behavior: "smooth" });
      });
    }
    for (const a of document.querySelectorAll("nav.views a")) {
      a.addEventListener("click", (e) => {
        e.preventDefault();
        location.search = `?view=${a.dataset.view}&step=${step}`;
      });
    }
    $("show-analysis").onchange = () => render();
    go(start);
    loadAnalysis();
  }

  fetch(`/api/matches/${encodeURIComponent(matchId)}/frames?view=${view}`)
    .then((r) => { if (!r.ok) throw new Error(`frames: HTTP ${r.status}`); return r.json(); })
    .then(init)
    .catch((err) => { $("step-text").textContent = `could not load the replay: ${err.message}`; });
})();
