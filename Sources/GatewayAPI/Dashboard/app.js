// BrokerGateway ops dashboard: polls GET /v1/status with the tenant's API key and draws it.
// Plain JavaScript, no framework, no build step. Every value from the server is set as text (textContent or an SVG
// attribute holding a number), never parsed as HTML. The key lives in sessionStorage (this tab only), never in a URL.
"use strict";

(() => {
  const KEY_STORAGE = "brokergateway.apiKey";
  const POLL_MS = 2000;
  const REQUEST_TIMEOUT_MS = 5000;
  // Each kind's name for people, from GET /v1/brokers (whatever brokers this gateway was built with); until it
  // answers, a card shows the kind itself.
  let brokerNames = {};
  let brokerNamesKey = null;
  let lastStatus = null;

  const $ = (id) => document.getElementById(id);
  const view = {
    freshness: $("freshness"), forget: $("forget-key"), banner: $("banner"),
    keyPanel: $("key-panel"), keyForm: $("key-form"), keyInput: $("api-key"), keyMessage: $("key-message"),
    dashboard: $("dashboard"), brokers: $("brokers"), noConnections: $("no-connections"),
    orders: $("orders"), ordersBody: $("orders-body"), ordersCount: $("orders-count"), noOrders: $("no-orders"),
  };

  let timer = null;
  let inFlight = null;
  let lastGoodAt = null;
  const openDetails = new Set();

  // ---- small helpers

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "class") node.className = value;
      else if (name.startsWith("data-")) node.setAttribute(name, String(value));
      else node.setAttribute(name, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function svg(tag, attributes) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    return node;
  }

  function time(text) {
    if (!text) return "—";
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? "—" : date.toLocaleTimeString();
  }

  function ago(text, now) {
    if (!text) return "";
    const seconds = Math.max(0, Math.round((now - new Date(text).getTime()) / 1000));
    if (seconds < 60) return `${seconds} s ago`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
    return `${Math.floor(seconds / 3600)} h ago`;
  }

  function percent(value) {
    if (typeof value !== "number" || !Number.isFinite(value)) return "—";
    return `${(value * 100).toFixed(value > 0 && value < 0.1 ? 1 : 0)}%`;
  }

  function ms(value) {
    return typeof value === "number" && Number.isFinite(value) ? `${value} ms` : "—";
  }

  function label(text) {
    return String(text || "").replace(/_/g, " ");
  }

  function brokerName(kind) {
    return Object.prototype.hasOwnProperty.call(brokerNames, kind) ? brokerNames[kind] : kind;
  }

  // Once per key: the gateway's broker kinds and their display names; the dashboard redraws when they arrive.
  async function loadBrokerNames(key) {
    brokerNamesKey = key;
    try {
      const response = await fetch("/v1/brokers", {
        headers: { "Authorization": `Bearer ${key}`, "Accept": "application/json" },
        cache: "no-store", credentials: "omit",
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const body = await response.json();
      const names = {};
      for (const broker of Array.isArray(body.data) ? body.data : []) {
        if (broker && typeof broker.kind === "string" && typeof broker.displayName === "string") {
          names[broker.kind] = broker.displayName;
        }
      }
      if (memoryKey !== key) return;
      brokerNames = names;
      if (lastStatus) render(lastStatus);
    } catch {
      if (brokerNamesKey === key) brokerNamesKey = null; // asked again after the next status
    }
  }

  // ---- the key

  function storedKey() {
    try { return sessionStorage.getItem(KEY_STORAGE); } catch { return null; }
  }

  function storeKey(key) {
    try { sessionStorage.setItem(KEY_STORAGE, key); } catch { /* private mode: kept in memory only */ }
    memoryKey = key;
  }

  function forgetKey() {
    try { sessionStorage.removeItem(KEY_STORAGE); } catch { /* nothing stored */ }
    memoryKey = null;
  }

  let memoryKey = storedKey();

  function askForKey(message) {
    stopPolling();
    view.keyPanel.hidden = false;
    view.forget.hidden = true;
    view.keyMessage.textContent = message || "";
    view.keyInput.value = "";
    view.keyInput.focus();
    setFreshness("idle", "Not connected");
  }

  view.keyForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = view.keyInput.value.trim();
    if (!key) { view.keyMessage.textContent = "Enter an API key."; return; }
    storeKey(key);
    view.keyInput.value = "";
    view.keyPanel.hidden = true;
    view.forget.hidden = false;
    view.keyMessage.textContent = "";
    poll();
  });

  view.forget.addEventListener("click", () => {
    forgetKey();
    askForKey("");
  });

  // ---- polling

  function stopPolling() {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    if (inFlight) { inFlight.abort(); inFlight = null; }
  }

  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(poll, POLL_MS);
  }

  async function poll() {
    timer = null;
    const key = memoryKey;
    if (!key) { askForKey(""); return; }
    const controller = new AbortController();
    inFlight = controller;
    const timeout = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    let response;
    try {
      response = await fetch("/v1/status", {
        headers: { "Authorization": `Bearer ${key}`, "Accept": "application/json" },
        cache: "no-store", credentials: "omit", signal: controller.signal,
      });
    } catch (error) {
      clearTimeout(timeout);
      if (inFlight !== controller) return; // stopped meanwhile
      inFlight = null;
      unreachable("The gateway did not answer");
      schedule();
      return;
    }
    clearTimeout(timeout);
    if (inFlight !== controller) return;
    inFlight = null;
    if (response.status === 401) {
      forgetKey();
      markStale(false);
      view.dashboard.hidden = true;
      askForKey("The gateway refused this API key (401). Enter a valid key.");
      return;
    }
    if (!response.ok) {
      let message = `The gateway answered ${response.status}`;
      try {
        const body = await response.json();
        if (body && body.error && body.error.message) message += `: ${body.error.message}`;
      } catch { /* not JSON */ }
      unreachable(message);
      schedule();
      return;
    }
    let status;
    try {
      status = await response.json();
    } catch {
      unreachable("The gateway's answer was not JSON");
      schedule();
      return;
    }
    lastGoodAt = new Date();
    markStale(false);
    view.keyPanel.hidden = true;
    view.forget.hidden = false;
    lastStatus = status;
    render(status);
    if (brokerNamesKey !== key) loadBrokerNames(key);
    setFreshness("live", `Live · updated ${lastGoodAt.toLocaleTimeString()}`);
    schedule();
  }

  function unreachable(reason) {
    const since = lastGoodAt ? ` Showing data from ${lastGoodAt.toLocaleTimeString()}.` : "";
    view.banner.textContent = `${reason}. Retrying every ${POLL_MS / 1000} s.${since}`;
    view.banner.hidden = false;
    markStale(true);
    setFreshness("stale", lastGoodAt ? `Stale · last update ${lastGoodAt.toLocaleTimeString()}` : "Gateway unreachable");
  }

  function markStale(stale) {
    document.body.dataset.stale = stale ? "true" : "false";
    if (!stale) view.banner.hidden = true;
  }

  function setFreshness(state, text) {
    view.freshness.dataset.state = state;
    view.freshness.textContent = text;
  }

  // ---- rendering

  function render(status) {
    view.dashboard.hidden = false;
    rememberOpenDetails();
    const now = new Date(status.asOf || Date.now()).getTime();
    const connections = Array.isArray(status.connections) ? status.connections : [];
    const cards = (Array.isArray(status.brokers) ? status.brokers : []).map((broker) =>
      brokerCard(broker, connections.filter((c) => c.broker === broker.broker), now));
    view.brokers.replaceChildren(...cards);
    view.noConnections.hidden = cards.length > 0;
    renderOrders(Array.isArray(status.unknownOrders) ? status.unknownOrders : [], connections, now);
    restoreOpenDetails();
  }

  function brokerCard(broker, connections, now) {
    const state = broker.state || "healthy";
    const counts = [`${broker.connections} connection${broker.connections === 1 ? "" : "s"}`];
    if (broker.failing) counts.push(`${broker.failing} failing`);
    if (broker.degraded) counts.push(`${broker.degraded} degraded`);
    return el("article", { class: `broker state-${state}`, "data-broker": broker.broker, "data-state": state },
      el("header", { class: "broker-head" },
        el("h3", {}, brokerName(broker.broker)),
        el("span", { class: `badge state-${state}`, "data-role": "broker-state" }, state)),
      el("p", { class: "muted small" }, counts.join(" · ")),
      ...connections.map((connection) => connectionBlock(connection, now)));
  }

  function connectionBlock(connection, now) {
    const health = connection.health || {};
    const state = connection.state || "healthy";
    const breaker = health.breaker || "closed";
    const facts = el("dl", { class: "facts" },
      fact("Link", label(connection.link), connection.link === "active" ? "" : connection.link === "relink_required" ? "bad" : "warn"),
      fact("Breaker", `${label(breaker)}${health.breakerSince ? ` · since ${time(health.breakerSince)}` : ""}`,
        breaker === "closed" ? "" : breaker === "open" ? "bad" : "warn", "breaker"),
      fact("Error rate (5 min)", `${percent(health.errorRate)} · ${health.errors || 0}/${health.calls || 0} calls`,
        health.errorRate >= 0.2 ? "bad" : health.errorRate > 0 ? "warn" : "", "error-rate"),
      fact("Latency p50 / p99", `${ms(health.p50Ms)} / ${ms(health.p99Ms)}`),
      fact("Rate-limit headroom", percent(health.rateLimitHeadroom),
        typeof health.rateLimitHeadroom === "number" && health.rateLimitHeadroom < 0.2 ? "warn" : ""),
      fact("Last success", health.lastSuccessAt ? `${time(health.lastSuccessAt)} (${ago(health.lastSuccessAt, now)})` : "—"));
    const block = el("section", {
      class: `connection state-${state}`, "data-connection": connection.connectionId, "data-state": state,
      "data-breaker": breaker,
    },
      el("header", { class: "connection-head" },
        el("span", { class: `dot state-${state}`, "aria-hidden": "true" }),
        el("span", { class: "connection-label" }, connection.label || connection.connectionId),
        el("span", { class: "muted small mono" }, connection.connectionId)),
      sparkline(Array.isArray(health.slices) ? health.slices : []),
      facts);
    if (health.lastError) {
      const error = health.lastError;
      block.append(el("p", { class: "last-error", "data-role": "last-error" },
        el("span", { class: "code" }, error.code), " ",
        el("span", {}, error.message), " ",
        el("span", { class: "muted small" }, `${error.call ? `${error.call} · ` : ""}${time(error.at)}`)));
    }
    const recent = Array.isArray(health.recentErrors) ? health.recentErrors : [];
    if (recent.length > 0) {
      const list = el("ol", { class: "recent-errors" }, ...recent.map((error) =>
        el("li", {}, el("span", { class: "muted small" }, time(error.at)), " ",
          el("span", { class: "code" }, error.code), " ", error.message,
          error.call ? el("span", { class: "muted small" }, ` · ${error.call}`) : null)));
      block.append(el("details", { "data-details": `recent-${connection.connectionId}` },
        el("summary", {}, `Recent errors (${recent.length})`), list));
    }
    return block;
  }

  function fact(name, value, tone, role) {
    return el("div", { class: `fact ${tone || ""}`.trim(), "data-role": role },
      el("dt", {}, name), el("dd", {}, value));
  }

  // Median latency per ten-second slice as a line (gaps where there were no calls), errors as red bars below.
  function sparkline(slices) {
    const width = 300, height = 44, bottom = 34;
    const box = svg("svg", {
      viewBox: `0 0 ${width} ${height}`, class: "sparkline", role: "img", preserveAspectRatio: "none",
      "aria-label": "Latency (median per 10 s) and errors over the last five minutes",
    });
    box.append(svg("line", { x1: 0, y1: bottom + 0.5, x2: width, y2: bottom + 0.5, class: "axis" }));
    if (slices.length === 0) return box;
    const step = slices.length > 1 ? width / (slices.length - 1) : width;
    const latencies = slices.map((s) => (typeof s.p50Ms === "number" ? s.p50Ms : null));
    const max = Math.max(1, ...latencies.filter((v) => v !== null));
    let segment = [];
    const flush = () => {
      if (segment.length === 1) {
        const [x, y] = segment[0];
        box.append(svg("circle", { cx: x, cy: y, r: 1.8, class: "latency-dot" }));
      } else if (segment.length > 1) {
        box.append(svg("polyline", { points: segment.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "), class: "latency" }));
      }
      segment = [];
    };
    slices.forEach((slice, index) => {
      const x = index * step;
      const latency = latencies[index];
      if (latency === null) flush();
      else segment.push([x, bottom - 2 - (latency / max) * (bottom - 6)]);
      if (slice.errors > 0 && slice.calls > 0) {
        const share = Math.min(1, slice.errors / slice.calls);
        box.append(svg("rect", {
          x: Math.max(0, x - 2), y: bottom + 1, width: 4, height: Math.max(1.5, share * (height - bottom - 1)),
          class: "error-bar",
        }));
      }
    });
    flush();
    const title = svg("title", {});
    title.textContent = `max median ${max} ms`;
    box.prepend(title);
    return box;
  }

  function renderOrders(orders, connections, now) {
    view.ordersCount.textContent = String(orders.length);
    view.noOrders.hidden = orders.length > 0;
    view.orders.hidden = orders.length === 0;
    const labels = new Map(connections.map((c) => [c.connectionId, c.label]));
    view.ordersBody.replaceChildren(...orders.map((order) =>
      el("tr", { "data-order": order.orderId },
        el("td", { class: "mono", "data-label": "Order" }, order.orderId),
        el("td", { "data-label": "Broker" }, order.broker ? brokerName(order.broker) : "—"),
        el("td", { "data-label": "Connection" }, labels.get(order.connectionId) || order.connectionId),
        el("td", { "data-label": "Instrument" }, `${order.side} ${order.quantity ?? `notional ${order.notional}`} ${order.symbol}`),
        el("td", { "data-label": "State" }, label(order.state)),
        el("td", { "data-label": "Since" }, `${time(order.since)} (${ago(order.since, now)})`),
        el("td", { "data-label": "Attempts" },
          `${order.attempts}${order.lastAttemptAt ? ` · last ${time(order.lastAttemptAt)}` : ""}`))));
  }

  function rememberOpenDetails() {
    openDetails.clear();
    for (const details of view.brokers.querySelectorAll("details[open]")) openDetails.add(details.dataset.details);
  }

  function restoreOpenDetails() {
    for (const details of view.brokers.querySelectorAll("details")) {
      if (openDetails.has(details.dataset.details)) details.open = true;
    }
  }

  // ---- start

  if (memoryKey) {
    view.forget.hidden = false;
    poll();
  } else {
    askForKey("");
  }
})();
