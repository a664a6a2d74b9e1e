// The tournament page, live: server-sent events from /tournaments/{id}/events replace the
// progress, the standings, the head-to-head matrix and each newly finished match's row. When
// the server refuses the stream (429: too many open from this address, or in all) the page
// polls /api/tournaments/{id}/update instead, which answers the same update.
(function () {
  "use strict";
  const me = document.currentScript;
  const id = me.dataset.tournament;
  const POLL_MS = 2000;
  if (["finished", "cancelled"].includes(me.dataset.state)) return;
  const live = document.getElementById("live");
  let over = false;

  function apply(u) {
    const progress = document.getElementById("progress");
    progress.max = u.games_total;
    progress.value = u.games_done;
    document.getElementById("progress-text").textContent =
      `${u.games_done} of ${u.games_total} matches played`;
    const state = document.getElementById("state");
    state.textContent = u.state;
    state.className = `state ${u.state}`;
    document.getElementById("standings-box").innerHTML = u.standings_html;
    document.getElementById("matrix-box").innerHTML = u.matrix_html;
    for (const [ordinal, html] of Object.entries(u.rows)) {
      const old = document.getElementById(`game-${ordinal}`);
      const tmp = document.createElement("tbody");
      tmp.innerHTML = html.trim();
      const row = tmp.firstElementChild;
      row.classList.add("fresh");
      const body = document.querySelector("#games tbody");
      // A game not shown is on another page; the last page takes new ones.
      if (old) old.replaceWith(row); else if ("appends" in body.dataset) body.append(row);
    }
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    over = ["finished", "cancelled"].includes(u.state);
    if (over) live.hidden = true;
  }

  let after = null;
  function poll() {
    const query = after === null ? "" : `?after=${after}`;
    fetch(`/api/tournaments/${id}/update${query}`, { headers: { accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((u) => {
        live.hidden = false;
        apply(u);
        after = u.sequence;
        if (!over) setTimeout(poll, POLL_MS);
      })
      .catch(() => {
        live.hidden = true;
        setTimeout(poll, POLL_MS * 2);
      });
  }

  function startPolling() {
    document.body.dataset.polling = "true";
    live.title = `updated every ${POLL_MS / 1000} s`;
    poll();
  }

  if (!window.EventSource) { startPolling(); return; }
  const source = new EventSource(`/tournaments/${id}/events`);
  source.addEventListener("open", () => { live.hidden = false; });
  source.addEventListener("error", () => {
    live.hidden = true;
    // CONNECTING: the browser reconnects by itself. CLOSED: it gave up (a refusal such as the
    // server's 429, which EventSource never retries): poll instead.
    if (source.readyState === EventSource.CLOSED && !over) startPolling();
  });
  source.addEventListener("update", (event) => {
    apply(JSON.parse(event.data));
    if (over) source.close();
  });
})();
