// The dashboard page's script, served by `deploy analytics dashboard` from the CLI itself.
// It reads only this origin's JSON API and draws time series with uPlot (global `uPlot`).
"use strict";
(() => {
  const DAY_MS = 86400000;
  const CHARTS = {
    views: { label: "Page views", key: "views", x: "bucket", wide: true },
    unique_visitors: { label: "Visitors", key: "visitors", x: "day" },
    cache_hit_ratio: { label: "Hit ratio", key: "ratio", x: "day", percent: true },
  };
  const TABLES = {
    top_paths: ["path", "views"],
    referrers: ["referrer", "views"],
    countries: ["country", "views"],
    status_codes: ["status", "requests"],
    channels: ["channel", "views"],
    entry_pages: ["path", "entries"],
    devices: ["device", "views"],
    browsers: ["browser", "views"],
    os: ["os", "views"],
    campaigns: ["utm_source", "utm_medium", "utm_campaign", "views"],
    not_found: ["path", "referrer", "requests"],
    bots: ["category", "name", "requests"],
  };
  // The totals at the top, by the query whose total they show.
  const TOTALS = { views: "views", unique_visitors: "visitors", row_count: "rows" };
  const numberFormat = new Intl.NumberFormat();
  const percentFormat = new Intl.NumberFormat(undefined, {
    style: "percent",
    maximumFractionDigits: 1,
    signDisplay: "exceptZero",
  });
  const $ = (id) => document.getElementById(id);
  const state = { from: "", to: "", bots: false, days: 7, today: "", queries: [] };
  const plots = new Map();
  let controller = null;

  const addDays = (day, n) =>
    new Date(Date.parse(day + "T00:00:00Z") + n * DAY_MS)
      .toISOString().slice(0, 10);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c);
    return node;
  }

  function setStatus(text, isError) {
    const s = $("status");
    s.textContent = text;
    s.classList.toggle("error", Boolean(isError));
  }

  // One banner for what stops every panel (the query engine cannot run here): the message and
  // the fix on lines of their own, instead of the same paragraph repeated in each panel.
  function showBanner(message, hint) {
    $("banner-message").textContent = message;
    $("banner-hint").textContent = hint;
    $("banner-hint").hidden = hint === "";
    $("banner").hidden = message === "";
  }

  // Key cells may hold paths and URLs: each "/"-ended segment is one box (dashboard.css), so a
  // long path wraps between its segments, not at a hyphen or mid-word inside one.
  function keyCell(text) {
    const parts = text.split("/");
    const cell = el("td", { class: "key" });
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (part !== "" || !last) cell.append(el("span", { class: "seg" }, last ? part : part + "/"));
      if (!last) cell.append(el("wbr", {}));
    });
    return cell;
  }

  function buildPanels() {
    const panels = $("panels");
    for (const q of state.queries) {
      if (q.name === "row_count") continue;
      const chart = CHARTS[q.name];
      // A table of two or more key columns needs the row's width: in a third of it, its paths
      // and campaign names would wrap every few characters.
      const columns = TABLES[q.name] || q.columns || [];
      const wide = chart ? chart.wide : columns.length > 2;
      const panel = el("section", {
        class: "panel" + (wide ? " wide" : ""),
        id: "panel-" + q.name,
        "aria-labelledby": "h-" + q.name,
        "aria-busy": "true",
      });
      panel.append(
        el(
          "div",
          { class: "panel-head" },
          el("h2", { id: "h-" + q.name }, q.title),
          el("a", {
            class: "export",
            href: exportUrl(q.name),
            download: "",
            "aria-label": "Export " + q.title + " as CSV",
          }, "Export CSV"),
        ),
        el("p", { class: "about" }, q.description),
        el("p", { class: "panel-total", hidden: "" }),
        el("p", { class: "state", role: "status" }, "Loading…"),
        el("div", { class: "body" }),
      );
      panels.append(panel);
    }
  }

  function params() {
    return new URLSearchParams({
      from: state.from,
      to: state.to,
      bots: state.bots ? "include" : "exclude",
    });
  }

  function exportUrl(name) {
    return "/api/queries/" + name + ".csv?" + params();
  }

  // "+25% vs 2026-02-22 to 2026-02-28 (120)", or why there is no ratio; data-change says
  // which way.
  function showDelta(node, result) {
    const p = result.previous;
    let text;
    let way;
    if (!p) {
      text = "";
      way = "none";
    } else if (result.change === null) {
      text = p.total === 0 && result.total === 0
        ? "none in the previous range either"
        : "none in the previous range (" + p.from + " to " + p.to + ")";
      way = "none";
    } else {
      text = percentFormat.format(result.change) + " vs " + p.from + " to " + p.to + " (" +
        numberFormat.format(p.total) + ")";
      way = result.change > 0 ? "up" : result.change < 0 ? "down" : "flat";
    }
    node.textContent = text;
    node.dataset.change = way;
  }

  function clearDelta(node) {
    node.textContent = "";
    node.dataset.change = "none";
  }

  function showState(panel, text, isError) {
    const s = panel.querySelector(".state");
    s.textContent = text;
    s.hidden = text === "";
    s.classList.toggle("error", Boolean(isError));
  }

  function renderTable(body, columns, rows) {
    const head = el(
      "tr",
      {},
      ...columns.map((c, i) =>
        el("th", { scope: "col", class: i === columns.length - 1 ? "num" : "" }, c)
      ),
    );
    const lines = rows.map((r) =>
      el(
        "tr",
        {},
        ...columns.map((c, i) => {
          const v = r[c];
          if (i === columns.length - 1) return el("td", { class: "num" }, numberFormat.format(v));
          return keyCell(v === null ? "–" : String(v));
        }),
      )
    );
    body.replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...lines)));
  }

  function renderChart(name, body, spec, result) {
    const xs = result.rows.map((r) => {
      const x = String(r[spec.x]);
      return Date.parse(x.length === 10 ? x + "T00:00:00Z" : x.replace("Z", ":00Z")) / 1000;
    });
    const ys = result.rows.map((r) =>
      r[spec.key] === null ? null : Number(r[spec.key]) * (spec.percent ? 100 : 1)
    );
    const old = plots.get(name);
    if (old) old.destroy();
    body.replaceChildren();
    const holder = el("div", {
      class: "chart",
      role: "img",
      "aria-label": spec.label + " over time",
    });
    body.append(holder);
    const width = Math.max(280, body.clientWidth || 600);
    const plot = new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        scales: {
          y: spec.percent
            ? { range: [0, 100] }
            : { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        series: [
          { label: result.unit === "hour" ? "Hour (UTC)" : "Day (UTC)" },
          {
            label: spec.label,
            stroke:
              getComputedStyle(document.documentElement).getPropertyValue("--accent").trim() ||
              "#2563eb",
            width: 2,
            points: { show: xs.length <= 90 },
            value: (_u, v) =>
              v === null ? "–" : spec.percent ? v.toFixed(1) + " %" : numberFormat.format(v),
          },
        ],
        axes: [{}, {
          values: (_u, vals) => vals.map((v) => spec.percent ? v + " %" : numberFormat.format(v)),
        }],
      },
      [xs, ys],
      holder,
    );
    plots.set(name, plot);
  }

  function isEmpty(name, result) {
    if (name === "cache_hit_ratio") return result.rows.every((r) => r.ratio === null);
    if (CHARTS[name]) return result.total === 0;
    return result.rows.length === 0;
  }

  async function fetchQuery(name, signal) {
    const res = await fetch("/api/queries/" + name + "?" + params(), { signal });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const error = body && body.error ? body.error : { message: res.statusText };
      const err = new Error(error.message + " (HTTP " + res.status + ")");
      // 503: the query engine cannot run here (DuckDB, an extension, credentials, the table).
      err.engine = res.status === 503;
      err.hint = error.hint || "";
      throw err;
    }
    return body;
  }

  function showTotal(name, result) {
    const id = TOTALS[name];
    if (!id) return;
    $("total-" + id).value = numberFormat.format(result.total);
    showDelta($("delta-" + id), result);
  }

  function clearTotal(name, text) {
    const id = TOTALS[name];
    if (!id) return;
    $("total-" + id).value = text;
    clearDelta($("delta-" + id));
  }

  async function loadPanel(q, signal) {
    if (q.name === "row_count") {
      try {
        showTotal(q.name, await fetchQuery(q.name, signal));
      } catch (err) {
        if (!signal.aborted) clearTotal(q.name, "–");
        throw err;
      }
      return;
    }
    const panel = $("panel-" + q.name);
    const body = panel.querySelector(".body");
    const total = panel.querySelector(".panel-total");
    panel.querySelector("a.export").href = exportUrl(q.name);
    panel.setAttribute("aria-busy", "true");
    total.hidden = true;
    showState(panel, "Loading…");
    try {
      const result = await fetchQuery(q.name, signal);
      showTotal(q.name, result);
      if (typeof result.total === "number") {
        total.replaceChildren(
          "Total ",
          el("strong", {}, numberFormat.format(result.total)),
          " ",
          el("span", { class: "delta" }),
        );
        showDelta(total.querySelector(".delta"), result);
        total.hidden = false;
      }
      if ((q.name === "bots" || q.name === "ai_crawler_pages") && !state.bots) {
        body.replaceChildren();
        showState(panel, "Bots are excluded: tick “Include bots” to list them.");
      } else if (isEmpty(q.name, result)) {
        body.replaceChildren();
        showState(panel, "No data in this range.");
      } else {
        showState(panel, "");
        if (CHARTS[q.name]) renderChart(q.name, body, CHARTS[q.name], result);
        else renderTable(body, TABLES[q.name] || q.columns, result.rows);
      }
    } catch (err) {
      if (signal.aborted) return;
      body.replaceChildren();
      clearTotal(q.name, "–");
      // The engine's failure is every panel's: the banner says it once, the panels stay empty.
      if (err.engine) showState(panel, "");
      else {
        showState(
          panel,
          "Could not load " + q.title + ": " + err.message + (err.hint ? " " + err.hint : ""),
          true,
        );
      }
      throw err;
    } finally {
      panel.setAttribute("aria-busy", "false");
    }
  }

  async function load() {
    if (controller) controller.abort();
    controller = new AbortController();
    const signal = controller.signal;
    document.body.dataset.state = "loading";
    for (const name of Object.keys(TOTALS)) clearTotal(name, "…");
    setStatus("Loading " + state.from + " to " + state.to + "…");
    const results = await Promise.allSettled(state.queries.map((q) => loadPanel(q, signal)));
    if (signal.aborted) return;
    const failures = results.filter((r) => r.status === "rejected").map((r) => r.reason);
    const engine = failures.find((err) => err.engine);
    showBanner(engine ? "The queries cannot run here: " + engine.message : "", engine?.hint || "");
    setStatus(
      engine
        ? ""
        : failures.length > 0
        ? failures.length + " of " + results.length + " queries failed; see the panels below."
        : "Showing " + state.from + " to " + state.to + " (UTC), bots " +
          (state.bots ? "included" : "excluded") + ".",
      failures.length > 0,
    );
    document.body.dataset.state = failures.length > 0 ? "error" : "ready";
  }

  function pickDays(days) {
    state.days = days;
    state.to = state.today;
    state.from = addDays(state.today, 1 - days);
    $("from").value = state.from;
    $("to").value = state.to;
    for (const b of document.querySelectorAll("button[data-days]")) {
      b.setAttribute("aria-pressed", String(Number(b.dataset.days) === days));
    }
    load();
  }

  async function start() {
    let meta;
    try {
      const res = await fetch("/api/queries");
      if (!res.ok) throw new Error("HTTP " + res.status);
      meta = await res.json();
    } catch (err) {
      setStatus("Could not reach the dashboard's API: " + err.message, true);
      document.body.dataset.state = "error";
      return;
    }
    state.today = meta.today;
    state.queries = meta.queries;
    state.bots = meta.bots === "include";
    $("bots").checked = state.bots;
    const title = "Analytics: " + meta.site.siteName + " (" + meta.site.env + ")";
    $("title").textContent = title;
    document.title = title;
    $("to").max = meta.today;
    $("from").max = meta.today;
    buildPanels();
    for (const b of document.querySelectorAll("button[data-days]")) {
      b.addEventListener("click", () => pickDays(Number(b.dataset.days)));
    }
    $("controls").addEventListener("submit", (e) => {
      e.preventDefault();
      const from = $("from").value;
      const to = $("to").value;
      if (!from || !to || from > to) {
        setStatus("Choose a start day on or before the end day.", true);
        return;
      }
      state.days = 0;
      state.from = from;
      state.to = to;
      for (const b of document.querySelectorAll("button[data-days]")) {
        b.setAttribute("aria-pressed", "false");
      }
      load();
    });
    $("bots").addEventListener("change", () => {
      state.bots = $("bots").checked;
      load();
    });
    let resizeTimer = 0;
    addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        for (const [name, plot] of plots) {
          const body = $("panel-" + name).querySelector(".body");
          plot.setSize({ width: Math.max(280, body.clientWidth), height: 220 });
        }
      }, 150);
    });
    pickDays(7);
  }

  start();
})();
