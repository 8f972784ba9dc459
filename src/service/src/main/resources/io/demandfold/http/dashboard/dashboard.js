// The demandfold dashboard: polls /api/v1/summary, /api/v1/demand/top and, for the selected
// target, /api/v1/demand, and renders them; the chart starts from the server's last hour
// (/api/v1/history) and adds a point per poll. No dependencies; every value from the API is
// written with textContent. Elements carry the raw numbers in data-* attributes.
"use strict";
(function () {
  const params = new URLSearchParams(location.search);
  const REFRESH_MS = Math.max(250, Number(params.get("refresh")) || 2000);
  const HISTORY_MS = 60 * 60 * 1000;
  const DRILL_SHARDS = 200; // shards of the drilled target fetched per refresh
  const history = []; // [serverTimeMs, totalPending], oldest first
  let historyLoaded = false;
  const $ = (id) => document.getElementById(id);

  function state() {
    const h = new URLSearchParams(location.hash.slice(1));
    return { by: h.get("by") || "pending", target: h.get("target") };
  }
  function setState(change) {
    const h = new URLSearchParams(location.hash.slice(1));
    for (const [k, v] of Object.entries(change)) { if (v == null) h.delete(k); else h.set(k, v); }
    location.hash = h.toString();
  }

  const nf = new Intl.NumberFormat("en-US");
  function bytes(n) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let i = 0, v = n;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? String(v) : v.toFixed(v < 10 ? 2 : 1)) + " " + units[i];
  }
  function duration(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + "s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + "m " + (s % 60) + "s";
    const h = Math.floor(m / 60);
    if (h < 24) return h + "h " + (m % 60) + "m";
    return Math.floor(h / 24) + "d " + (h % 24) + "h";
  }

  function cell(tr, cls, text, data) {
    const td = document.createElement("td");
    td.className = cls;
    td.textContent = text;
    for (const [k, v] of Object.entries(data || {})) td.dataset[k] = v == null ? "" : String(v);
    tr.appendChild(td);
    return td;
  }
  function ageCell(tr, oldestMs, bound, nowMs) {
    const text = oldestMs == null ? "–" : (bound === "upper" ? "≥ " : "") + duration(nowMs - oldestMs);
    const td = cell(tr, "num c-age", text, { oldestMs: oldestMs, bound: bound });
    if (oldestMs != null) td.title = "oldest pending flush at " + new Date(oldestMs).toISOString();
    const b = cell(tr, "c-bound", "");
    if (bound) {
      const span = document.createElement("span");
      span.className = "bound";
      span.dataset.bound = bound;
      span.textContent = bound === "exact" ? "exact" : "upper";
      span.title = bound === "exact" ? "exact flush time of the oldest pending generation"
        : "upper bound: the oldest pending generation is at least this old";
      b.appendChild(span);
    }
  }
  function setValue(id, value, text) {
    const el = $(id);
    el.dataset.value = value == null ? "" : String(value);
    el.textContent = text;
  }

  async function get(path) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), 8000);
    try {
      const r = await fetch(path, { signal: ctl.signal, headers: { Accept: "application/json" } });
      const body = await r.json().catch(() => ({ message: r.statusText }));
      if (!r.ok) throw new Error(r.status + ": " + (body.message || r.statusText));
      return body;
    } finally {
      clearTimeout(timer);
    }
  }

  function renderSummary(s) {
    setValue("total-pending", s.pending_generations, nf.format(s.pending_generations));
    setValue("total-bytes", s.pending_bytes, bytes(s.pending_bytes));
    $("total-bytes").title = nf.format(s.pending_bytes) + " bytes";
    setValue("targets-pending", s.targets_pending, nf.format(s.targets_pending));
    $("targets-total").textContent = "of " + nf.format(s.targets) + " targets";
    setValue("dlq-total", s.dlq_total, nf.format(s.dlq_total));
    const lag = Math.max(s.mirror.lag_seconds.shard, s.mirror.lag_seconds.table);
    setValue("mirror-lag", lag, lag < 1 ? lag.toFixed(2) + " s" : duration(lag * 1000));
    const dirty = s.mirror.dirty_keys.shard + s.mirror.dirty_keys.table;
    setValue("dirty-keys", dirty, nf.format(dirty) + " keys waiting for etcd");
    const n = s.instances.length, missing = s.unavailable.length;
    $("instances").textContent = n + " instance" + (n === 1 ? "" : "s")
      + (missing ? " · " + missing + " not answering: " + s.unavailable.join(", ") : "");
    if (!history.length || history[history.length - 1][0] < s.now_ms) {
      history.push([s.now_ms, s.pending_generations]);
    }
    while (history.length && history[0][0] < s.now_ms - HISTORY_MS) history.shift();
    renderChart(s.now_ms);
  }

  // The server's samples of the last hour (5 s steps) before the points this page polled itself.
  function loadHistory(h) {
    const from = history.length ? history[0][0] : Infinity;
    const older = h.points.filter((p) => p.t_ms < from).map((p) => [p.t_ms, p.pending_generations]);
    history.unshift(...older);
    historyLoaded = true;
  }

  function renderChart(nowMs) {
    const svg = $("pending-chart");
    const W = 1000, H = 140, PAD = 6;
    const from = Math.min(history.length ? history[0][0] : nowMs, nowMs - 60 * 1000);
    const max = Math.max(1, ...history.map((p) => p[1]));
    const x = (t) => ((t - from) / Math.max(1, nowMs - from)) * W;
    const y = (v) => H - PAD - (v / max) * (H - 2 * PAD);
    const pts = history.map((p) => x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1));
    const ns = "http://www.w3.org/2000/svg";
    svg.replaceChildren();
    for (const f of [0.25, 0.5, 0.75]) {
      const l = document.createElementNS(ns, "line");
      l.setAttribute("x1", 0); l.setAttribute("x2", W);
      l.setAttribute("y1", y(max * f)); l.setAttribute("y2", y(max * f));
      l.setAttribute("stroke", "#e2e5ea"); l.setAttribute("vector-effect", "non-scaling-stroke");
      svg.appendChild(l);
    }
    if (pts.length) {
      const area = document.createElementNS(ns, "polygon");
      area.setAttribute("points", x(history[0][0]).toFixed(1) + "," + (H - PAD) + " " + pts.join(" ")
        + " " + x(history[history.length - 1][0]).toFixed(1) + "," + (H - PAD));
      area.setAttribute("fill", "rgba(47,111,219,0.12)");
      svg.appendChild(area);
      const line = document.createElementNS(ns, "polyline");
      line.setAttribute("points", pts.join(" "));
      line.setAttribute("fill", "none");
      line.setAttribute("stroke", "#2f6fdb");
      line.setAttribute("stroke-width", "2");
      line.setAttribute("vector-effect", "non-scaling-stroke");
      svg.appendChild(line);
    }
    svg.dataset.points = String(history.length);
    $("chart-from").textContent = "−" + duration(nowMs - from);
    $("chart-max").textContent = "max " + nf.format(max);
    $("chart-span").textContent = "(last hour: the server's 5 s samples, then every refresh)";
  }

  function renderTop(top, selected) {
    const body = $("top-body");
    body.replaceChildren();
    for (const t of top.targets) {
      const tr = document.createElement("tr");
      tr.dataset.target = t.target;
      if (t.target === selected) tr.className = "selected";
      cell(tr, "c-target", t.target).title = t.target;
      cell(tr, "num c-pending", nf.format(t.pending_generations), { value: t.pending_generations });
      cell(tr, "num c-bytes", bytes(t.pending_bytes), { value: t.pending_bytes });
      ageCell(tr, t.oldest_pending_ms, t.oldest_pending_bound, top.now_ms);
      cell(tr, "num c-shards", nf.format(t.shards), { value: t.shards });
      tr.addEventListener("click", () => setState({ target: t.target }));
      body.appendChild(tr);
    }
    $("top-empty").hidden = top.targets.length > 0;
    for (const b of document.querySelectorAll(".by button")) {
      b.setAttribute("aria-pressed", String(b.dataset.by === top.by));
    }
  }

  function renderDrill(d) {
    $("drill").dataset.target = d.target;
    $("drill-target").textContent = d.target;
    $("drill-target").title = d.target;
    $("drill-target").className = "";
    const t = d.table;
    const shown = d.next == null ? "" : " (the first " + nf.format(d.shards.length) + " shown)";
    $("drill-summary").textContent = (t == null
      ? "table view not computed yet"
      : nf.format(t.pending_generations) + " pending generations, " + bytes(t.pending_bytes)
        + " pending, " + nf.format(t.shards) + " shards") + shown + " · served by " + d.instance;
    const body = $("drill-body");
    body.replaceChildren();
    for (const s of d.shards) {
      const tr = document.createElement("tr");
      tr.dataset.shard = s.shard;
      cell(tr, "c-shard", s.shard).title = s.shard;
      cell(tr, "num c-pending", nf.format(s.pending_generations), { value: s.pending_generations });
      ageCell(tr, s.oldest_pending_ms, s.oldest_pending_bound, d.now_ms);
      cell(tr, "num c-sealed", nf.format(s.record.sealed_through), { value: s.record.sealed_through });
      const merged = s.record.merged_through;
      cell(tr, "num c-merged", merged == null ? "–" : nf.format(merged), { value: merged });
      cell(tr, "num c-sealed-bytes", bytes(s.record.sealed_bytes_through), { value: s.record.sealed_bytes_through });
      cell(tr, "c-source", s.record.source);
      body.appendChild(tr);
    }
  }

  function clearDrill(message) {
    $("drill").dataset.target = "";
    $("drill-target").textContent = message;
    $("drill-target").title = message;
    $("drill-target").className = "muted";
    $("drill-summary").textContent = "";
    $("drill-body").replaceChildren();
  }

  function setStatus(kind, text) {
    $("status").dataset.state = kind;
    $("status-text").textContent = text;
  }

  let busy = false;
  async function refresh() {
    if (busy) return;
    busy = true;
    const st = state();
    try {
      const [summary, top, past] = await Promise.all([
        get("api/v1/summary"),
        get("api/v1/demand/top?n=20&by=" + encodeURIComponent(st.by)),
        historyLoaded ? null : get("api/v1/history").catch(() => null),
      ]);
      if (past) loadHistory(past);
      let target = st.target;
      if (!target && top.targets.length) target = top.targets[0].target;
      let drill = null;
      if (target) {
        drill = await get("api/v1/demand?limit=" + DRILL_SHARDS + "&target=" + encodeURIComponent(target)).catch((e) => e);
      }
      renderSummary(summary);
      renderTop(top, target);
      if (drill instanceof Error) clearDrill(target + " (" + drill.message + ")");
      else if (drill) renderDrill(drill);
      else clearDrill("(click a target)");
      document.body.dataset.updates = String(Number(document.body.dataset.updates) + 1);
      document.body.dataset.updatedAt = String(summary.now_ms);
      setStatus("live", "live · updated " + new Date(summary.now_ms).toLocaleTimeString());
    } catch (e) {
      setStatus("stale", "not updating: " + e.message);
    } finally {
      busy = false;
    }
  }

  for (const b of document.querySelectorAll(".by button")) {
    b.addEventListener("click", () => setState({ by: b.dataset.by }));
  }
  window.addEventListener("hashchange", refresh);
  refresh();
  setInterval(refresh, REFRESH_MS);
})();
