// The tournament page, live: server-sent events from /tournaments/{id}/events replace the
// progress, the standings, the head-to-head matrix and each newly finished match's row.
(function () {
  "use strict";
  const me = document.currentScript;
  const id = me.dataset.tournament;
  if (!window.EventSource || ["finished", "cancelled"].includes(me.dataset.state)) return;
  const live = document.getElementById("live");
  const source = new EventSource(`/tournaments/${id}/events`);
  source.addEventListener("open", () => { live.hidden = false; });
  source.addEventListener("error", () => { live.hidden = true; });
  source.addEventListener("update", (event) => {
    const u = JSON.parse(event.data);
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
      if (old) old.replaceWith(row); else document.querySelector("#games tbody").append(row);
    }
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    if (["finished", "cancelled"].includes(u.state)) { source.close(); live.hidden = true; }
  });
})();
