// A comparison's page, live: the tournament's server-sent events (/tournaments/{id}/events)
// say when a match is recorded; each time the page reads /api/compare/{id} and moves the LLR
// between its bounds and the Elo interval. When the server refuses the stream (429: too many
// open) the page polls /api/compare/{id} instead.
(function () {
  "use strict";
  const me = document.currentScript;
  const id = me.dataset.tournament;
  const POLL_MS = 2000;
  const live = document.getElementById("live");
  let over = ["finished", "cancelled", "interrupted"].includes(me.dataset.state);
  let source = null;

  const W = 300;
  const clamp = (x) => Math.max(0, Math.min(W, x));
  const signed = (v, d) => (v === null ? "?" : (v >= 0 ? "+" : "-") + Math.abs(v).toFixed(d));

  function drawLlr(s) {
    if (!s) return;
    const span = s.upper - s.lower;
    const at = (v) => clamp(((v - s.lower) / span) * W);
    document.getElementById("llr-mark").setAttribute("x", String(at(s.llr) - 1.5));
    const zero = document.getElementById("llr-zero");
    zero.setAttribute("x1", String(at(0)));
    zero.setAttribute("x2", String(at(0)));
    document.getElementById("llr-text").textContent =
      `LLR ${signed(s.llr, 2)} between ${signed(s.lower, 2)} (H0) and ${signed(s.upper, 2)} (H1)`;
  }

  function drawElo(c) {
    const bounds = c.sprt ? [c.sprt.elo0, c.sprt.elo1] : [];
    const finite = [c.elo, c.elo_low, c.elo_high, ...bounds].filter((v) => v !== null);
    const reach = Math.max(50, ...finite.map((v) => Math.abs(v) * 1.15));
    const at = (v) => (v === null ? null : clamp(((v + reach) / (2 * reach)) * W));
    const low = c.elo_low === null ? 0 : at(c.elo_low);
    const high = c.elo_high === null ? W : at(c.elo_high);
    const band = document.getElementById("elo-interval");
    band.setAttribute("x", String(low));
    band.setAttribute("width", String(Math.max(0, high - low)));
    const mark = at(c.elo);
    document.getElementById("elo-mark").setAttribute("x", String((mark === null ? W : mark) - 1.5));
    for (const [key, v] of [["elo-zero", 0], ["elo-elo0", bounds[0]], ["elo-elo1", bounds[1]]]) {
      const line = document.getElementById(key);
      if (v === undefined) { line.setAttribute("hidden", ""); continue; }
      line.setAttribute("x1", String(at(v)));
      line.setAttribute("x2", String(at(v)));
    }
    document.getElementById("elo-min").textContent = signed(-reach, 0);
    document.getElementById("elo-max").textContent = signed(reach, 0);
    const inf = (v, side) => (v === null ? (side > 0 ? "+inf" : "-inf") : signed(v, 1));
    document.getElementById("elo-text").textContent = c.pairs === 0
      ? "no pair counted yet"
      : `Elo ${inf(c.elo, c.raw_score >= 0.5 ? 1 : -1)} [${inf(c.elo_low, -1)}, ${inf(c.elo_high, 1)}] (95 %)`;
  }

  function apply(c) {
    drawLlr(c.sprt);
    drawElo(c);
    document.getElementById("pairs-text").textContent =
      `${c.pairs} of ${c.max_pairs} pairs counted`;
    document.getElementById("penta").textContent = `[${c.pentanomial.join(" ")}]`;
    document.getElementById("wdl").textContent = `${c.wins}-${c.draws}-${c.losses}`;
    const state = document.getElementById("state");
    state.textContent = c.status;
    state.className = `state ${c.status}`;
    const verdict = document.getElementById("verdict");
    verdict.textContent = c.verdict || "";
    verdict.hidden = !c.verdict;
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    over = !c.running;
    if (over) {
      live.hidden = true;
      if (source) source.close();
      const cancel = document.getElementById("cancel-compare");
      if (cancel) cancel.hidden = true;
    }
  }

  function read() {
    return fetch(`/api/compare/${id}`, { headers: { accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then(apply);
  }

  function poll() {
    read()
      .then(() => { live.hidden = over; if (!over) setTimeout(poll, POLL_MS); })
      .catch(() => { live.hidden = true; setTimeout(poll, POLL_MS * 2); });
  }

  read().catch(() => {});
  if (over) return;
  if (!window.EventSource) { poll(); return; }
  source = new EventSource(`/tournaments/${id}/events`);
  source.addEventListener("open", () => { live.hidden = false; });
  source.addEventListener("error", () => {
    live.hidden = true;
    if (source.readyState === EventSource.CLOSED && !over) {
      document.body.dataset.polling = "true";
      poll();
    }
  });
  source.addEventListener("update", () => { read().catch(() => {}); });
  // The state's last change (decided, cancelled) may come after the last match's event.
  (function again() {
    if (over) return;
    setTimeout(() => { read().catch(() => {}).finally(again); }, POLL_MS * 2);
  })();
})();
