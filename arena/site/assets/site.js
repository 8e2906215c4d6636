// The tournament site's script (arena.site): switches rating methods on the front page, pages through the
// match list and steps through a match. Data comes from scripts in data/ that call arenaChunk(kind, number,
// data), because a page opened from file:// may not fetch() files. Text from the data is only ever set as
// textContent (agent names and fault messages come from plugins), never parsed as HTML.
"use strict";

(function () {
  const settingsElement = document.getElementById("site-settings");
  const settings = settingsElement ? JSON.parse(settingsElement.textContent) : {};
  const chunks = new Map(); // "kind:number" -> Promise of the chunk's data
  const arrived = new Map(); // "kind:number" -> function receiving the data

  window.arenaChunk = function (kind, number, data) {
    const done = arrived.get(kind + ":" + number);
    if (done) done(data);
  };

  function pad(number) {
    return String(number).padStart(5, "0");
  }

  function loadChunk(kind, number) {
    const key = kind + ":" + number;
    if (!chunks.has(key)) {
      chunks.set(key, new Promise(function (resolve, reject) {
        arrived.set(key, resolve);
        const script = document.createElement("script");
        script.src = "data/" + kind + pad(number) + ".js";
        script.onerror = function () { reject(new Error("missing data file " + script.src)); };
        document.head.appendChild(script);
      }));
    }
    return chunks.get(key);
  }

  async function inflate(text) {
    const bytes = Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); });
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function hashParameters() {
    const found = {};
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      const at = part.indexOf("=");
      if (at > 0) found[decodeURIComponent(part.slice(0, at))] = decodeURIComponent(part.slice(at + 1));
    }
    return found;
  }

  function seatLabel(seat, names) {
    return names && names[seat] ? "seat " + seat + " (" + names[seat] + ")" : "seat " + seat;
  }

  function seconds(value) {
    if (value === null || value === undefined) return "";
    if (value < 0.001) return Math.round(value * 1e6) + " µs";
    return value < 1 ? (value * 1000).toFixed(1) + " ms" : value.toFixed(2) + " s";
  }

  // ---------------------------------------------------------------- front page: the method switch

  function frontPage() {
    const buttons = document.querySelectorAll(".method-button");
    function show(method) {
      for (const button of buttons) button.setAttribute("aria-pressed", String(button.dataset.method === method));
      for (const section of document.querySelectorAll("section.method")) {
        section.hidden = section.dataset.method !== method;
      }
    }
    for (const button of buttons) {
      button.addEventListener("click", function () { show(button.dataset.method); });
    }
  }

  // ---------------------------------------------------------------- the match list

  function matchesPage() {
    const agents = settings.agents;
    const listChunks = settings.chunks;
    const size = settings.page_size;
    const select = document.getElementById("agent-filter");
    const body = document.querySelector("#matches-table tbody");
    const status = document.getElementById("list-status");
    const previous = document.getElementById("list-prev");
    const next = document.getElementById("list-next");
    agents.forEach(function (name, index) {
      const option = element("option", name);
      option.value = String(index);
      select.appendChild(option);
    });

    function state() {
      const found = hashParameters();
      const agent = agents.indexOf(found.agent);
      return { agent: agent, page: Math.max(0, parseInt(found.page || "0", 10) || 0) };
    }

    function go(agent, page) {
      const parts = [];
      if (agent >= 0) parts.push("agent=" + encodeURIComponent(agents[agent]));
      if (page > 0) parts.push("page=" + page);
      location.hash = parts.join("&");
    }

    function counted(agent) {
      return listChunks.map(function (chunk) {
        return agent < 0 ? chunk.rows : (chunk.agents[String(agent)] || 0);
      });
    }

    function row(data) {
      const [idx, id, table, block, rotation, seats, scores, ranks, faults] = data;
      const tr = document.createElement("tr");
      tr.dataset.idx = idx;
      const cell = element("td");
      const link = element("a", id);
      link.href = "match.html#" + idx;
      cell.appendChild(link);
      tr.appendChild(cell);
      for (const value of [table, block, rotation]) tr.appendChild(element("td", value, "num"));
      tr.appendChild(element("td", seats.map(function (agent, seat) {
        return seat + ": " + agents[agent] + " (" + scores[seat] + ", " + ranks[seat] + ")";
      }).join("; ")));
      tr.appendChild(element("td", faults.map(function (fault) {
        return "seat " + fault[0] + " " + fault[1] + (fault[3] === "startup" ? " at start-up" : " at move " + fault[2]);
      }).join("; "), faults.length ? "fault" : ""));
      return tr;
    }

    async function render() {
      const { agent, page } = state();
      select.value = agent < 0 ? "" : String(agent);
      const counts = counted(agent);
      const total = counts.reduce(function (a, b) { return a + b; }, 0);
      const pages = Math.max(1, Math.ceil(total / size));
      const first = Math.min(page, pages - 1) * size;
      const wanted = [];
      let before = 0;
      counts.forEach(function (count, number) {
        if (count && before + count > first && before < first + size) wanted.push([number, before]);
        before += count;
      });
      status.textContent = "loading...";
      const rows = [];
      for (const [number, start] of wanted) {
        const data = await loadChunk("l", number);
        const kept = agent < 0 ? data : data.filter(function (r) { return r[5].indexOf(agent) >= 0; });
        kept.forEach(function (r, offset) {
          const position = start + offset;
          if (position >= first && position < first + size) rows.push(r);
        });
      }
      body.replaceChildren.apply(body, rows.map(row));
      const shown = Math.min(page, pages - 1);
      status.textContent = total ? "matches " + (first + 1) + "-" + (first + rows.length) + " of " + total +
        " (page " + (shown + 1) + " of " + pages + ")" : "no matches";
      previous.disabled = shown === 0;
      next.disabled = shown >= pages - 1;
    }

    select.addEventListener("change", function () { go(select.value === "" ? -1 : Number(select.value), 0); });
    previous.addEventListener("click", function () { const s = state(); go(s.agent, s.page - 1); });
    next.addEventListener("click", function () { const s = state(); go(s.agent, s.page + 1); });
    window.addEventListener("hashchange", render);
    render().catch(function (error) { status.textContent = String(error); });
  }

  // ---------------------------------------------------------------- one match

  function matchPage() {
    const chunkSize = settings.chunk_size;
    const log = document.getElementById("match-log");
    const current = document.getElementById("current-step");
    const status = document.getElementById("step-status");
    const handsBody = document.querySelector("#hands tbody");
    const showHands = document.getElementById("show-hands");
    let match = null;
    let step = 0;
    let snapshots = [];
    let items = [];
    const opened = new Set();
    let recordUrl = null;

    function decisionLine(s, names) {
      return "Move " + s[0] + ": " + seatLabel(s[1], names) + (s[3] ? " decides (unseen by the others): " : ": ") +
        s[2] + (s[4] === null ? " (substitute)" : " · " + seconds(s[4]));
    }

    function build() {
      const names = match.names;
      snapshots = [];
      let hands = names.map(function () { return null; });
      for (const s of match.steps) {
        hands = hands.slice();
        for (const [seat, line] of s[7]) hands[seat] = line;
        snapshots.push(hands);
      }
      const lines = [];
      (match.header || []).forEach(function (text) { lines.push([0, text, ""]); });
      match.steps.forEach(function (s, index) {
        for (const text of s[5]) lines.push([index, text, "fault"]);
        if (s[0] !== null) lines.push([index, decisionLine(s, names), "decision"]);
        for (const text of s[6]) lines.push([index, text, ""]);
      });
      items = lines.map(function ([index, text, kind]) {
        const li = element("li", text, kind);
        li.dataset.step = index;
        return li;
      });
      log.replaceChildren.apply(log, items);
    }

    function drawHands() {
      const names = match.names;
      const hands = snapshots[step] || [];
      handsBody.replaceChildren.apply(handsBody, names.map(function (name, seat) {
        const tr = element("tr");
        const head = element("th");
        const toggle = element("button", seatLabel(seat, names));
        toggle.type = "button";
        toggle.setAttribute("aria-pressed", String(opened.has(seat) || showHands.checked));
        toggle.addEventListener("click", function () {
          if (opened.has(seat)) opened.delete(seat); else opened.add(seat);
          drawHands();
        });
        head.appendChild(toggle);
        tr.appendChild(head);
        const visible = opened.has(seat) || showHands.checked;
        tr.appendChild(visible ? element("td", hands[seat] || "no cards") : element("td", "hidden", "hidden-hand"));
        return tr;
      }));
    }

    function draw() {
      const steps = match.steps;
      const s = steps[step];
      for (const li of items) {
        const at = Number(li.dataset.step);
        li.classList.toggle("future", at > step);
        li.classList.toggle("current", at === step);
      }
      const mark = items.find(function (li) { return Number(li.dataset.step) === step; });
      if (mark) mark.scrollIntoView({ block: "nearest" });
      const parts = [];
      for (const text of s[5]) parts.push(element("p", text, "fault"));
      parts.push(element("p", s[0] === null ? (step === 0 ? "Before the first decision" : "After the last decision")
        : decisionLine(s, match.names), "decision"));
      for (const text of s[6]) parts.push(element("p", text));
      current.replaceChildren.apply(current, parts);
      status.textContent = "step " + step + " of " + (steps.length - 1);
      document.getElementById("step-prev").disabled = step === 0;
      document.getElementById("step-first").disabled = step === 0;
      document.getElementById("step-next").disabled = step === steps.length - 1;
      document.getElementById("step-last").disabled = step === steps.length - 1;
      document.getElementById("settlement").hidden = step !== steps.length - 1;
      drawHands();
    }

    function move(to) {
      if (!match || !match.steps) return;
      step = Math.max(0, Math.min(match.steps.length - 1, to));
      draw();
    }

    function drawResult() {
      const result = match.result;
      const tbody = document.querySelector("#result-table tbody");
      if (!result) return;
      const order = result.ranks.map(function (rank, seat) { return [rank, seat]; })
        .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      tbody.replaceChildren.apply(tbody, order.map(function ([rank, seat]) {
        const tr = element("tr");
        tr.appendChild(element("td", rank, "num"));
        tr.appendChild(element("td", seatLabel(seat, match.names)));
        tr.appendChild(element("td", result.scores[seat], "num"));
        return tr;
      }));
    }

    async function open() {
      const idx = parseInt(location.hash.replace(/^#/, ""), 10);
      const title = document.getElementById("match-title");
      if (!(idx >= 0)) {
        title.textContent = "No match chosen: pick one from the match list";
        return;
      }
      const data = await inflate(await loadChunk("m", Math.floor(idx / chunkSize)));
      match = data[String(idx)];
      const previous = document.getElementById("match-prev");
      const next = document.getElementById("match-next");
      previous.href = "#" + (idx - 1);
      next.href = "#" + (idx + 1);
      previous.hidden = idx <= settings.first;
      next.hidden = idx >= settings.last;
      if (!match) {
        title.textContent = "Match " + idx + " is not stored";
        return;
      }
      title.textContent = "Match " + match.id;
      const seats = match.names.map(function (name, seat) { return seatLabel(seat, match.names); }).join(", ");
      document.getElementById("match-meta").textContent = "schedule position " + idx + "; " + seats;
      if (recordUrl) URL.revokeObjectURL(recordUrl);
      recordUrl = URL.createObjectURL(new Blob([JSON.stringify(match.record, null, 1)], { type: "application/json" }));
      const raw = document.getElementById("raw-record");
      raw.href = recordUrl;
      raw.download = (match.id || "match-" + idx) + ".json";
      drawResult();
      if (!match.steps) {
        current.replaceChildren(element("p", match.error, "fault"));
        document.getElementById("settlement").hidden = false;
        return;
      }
      build();
      move(0);
    }

    document.getElementById("step-first").addEventListener("click", function () { move(0); });
    document.getElementById("step-prev").addEventListener("click", function () { move(step - 1); });
    document.getElementById("step-next").addEventListener("click", function () { move(step + 1); });
    document.getElementById("step-last").addEventListener("click", function () { move(Infinity); });
    showHands.addEventListener("change", function () { if (match && match.steps) drawHands(); });
    document.addEventListener("keydown", function (event) {
      if (event.target.closest && event.target.closest("input, select, textarea")) return;
      const keys = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: Infinity };
      if (event.key in keys) {
        event.preventDefault();
        move(keys[event.key]);
      }
    });
    window.addEventListener("hashchange", function () {
      step = 0;
      open().catch(reportError);
    });
    function reportError(error) {
      document.getElementById("match-title").textContent = "Cannot show this match: " + error.message;
    }
    open().catch(reportError);
  }

  const pages = { front: frontPage, matches: matchesPage, match: matchPage };
  const run = pages[document.body.dataset.page];
  if (run) run();
})();
