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

  // ---------------------------------------------------------------- the table drawing

  // The scene of one step (arena/games/drawing.py, Table.to_json) drawn as SVG with the layout of that module's
  // svg(): seats around an ellipse, seat 0 at the bottom; every text set as text, never markup.
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 760, SEAT_W = 220, SEAT_H = 112, CARD_W = 30, CARD_H = 42, MID_W = 40, MID_H = 56;
  const WON_W = 16, WON_H = 22, BACK = "#5b6b8c";

  function colour(value) {
    return /^#[0-9a-fA-F]{6}$/.test(String(value)) ? value : "#777777";
  }

  function shape(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const key in attributes) node.setAttribute(key, attributes[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function label(x, y, text, size, options) {
    const o = options || {};
    let shown = String(text);
    if (o.clip && shown.length > o.clip) shown = shown.slice(0, o.clip - 1) + "\u2026";
    return shape("text", { x: x.toFixed(1), y: y.toFixed(1), "font-size": size, "text-anchor": o.anchor || "start",
                           "font-weight": o.weight || "normal", fill: colour(o.fill || "#222222") }, shown);
  }

  function tableHeight(players) { return players <= 4 ? 470 : 560; }

  function seatCentres(players) {
    const height = tableHeight(players);
    const cx = WIDTH / 2, cy = height / 2 + 10, rx = WIDTH / 2 - SEAT_W / 2 - 6, ry = height / 2 - 70;
    const centres = [];
    for (let seat = 0; seat < players; seat++) {
      const angle = Math.PI / 2 + 2 * Math.PI * seat / players;
      centres.push([Math.round((cx + rx * Math.cos(angle)) * 10) / 10, Math.round((cy + ry * Math.sin(angle)) * 10) / 10]);
    }
    return centres;
  }

  function cardShape(card, faces, x, y, w, h, accent, small, faded) {
    const face = faces[card] || { t: card, s: "", c: "#333333", m: "", b: [] };
    const g = shape("g", { class: "card", "data-card": card });
    if (faded) g.setAttribute("opacity", "0.6");
    g.appendChild(shape("rect", { x: x.toFixed(1), y: y.toFixed(1), width: w, height: h, rx: 3, fill: "#ffffff",
                                  stroke: colour(face.c) }));
    if (small) {
      g.appendChild(label(x + w / 2, y + h / 2 + 4, face.t, 9, { anchor: "middle", fill: face.c }));
      return g;
    }
    g.appendChild(label(x + 3, y + 10, face.s, 8, { fill: face.c, clip: 8 }));
    let text = face.t, ink = face.c;
    if (accent !== null && accent >= 0 && accent < face.b.length) { ink = face.b[accent][0]; text = String(face.b[accent][1]); }
    g.appendChild(label(x + w / 2, y + h / 2 + 5, text, w >= MID_W ? 13 : 11, { anchor: "middle", weight: "bold", fill: ink }));
    if (face.b.length) {
      const width = (w - 4) / face.b.length;
      const top = Math.max.apply(null, face.b.map(function (bar) { return bar[1]; })) || 1;
      face.b.forEach(function ([c, value], index) {
        const bar = Math.max(1, 8 * value / top);
        const rect = shape("rect", { x: (x + 2 + index * width).toFixed(1), y: (y + h - 2 - bar).toFixed(1),
                                     width: width.toFixed(1), height: bar.toFixed(1), fill: colour(c) });
        if (index === accent) { rect.setAttribute("stroke", "#000000"); rect.setAttribute("stroke-width", "0.8"); }
        g.appendChild(rect);
      });
    }
    if (face.m) g.appendChild(label(x + w / 2, y + h - 3, face.m, 8, { anchor: "middle", fill: "#b00020", weight: "bold" }));
    return g;
  }

  // ``previous`` (the step before, or null): cards new in the middle arrive with a short animation.
  function drawTable(scene, names, faces, visible, previous) {
    const players = scene.s.length, height = tableHeight(players);
    const root = shape("svg", { viewBox: "0 0 " + WIDTH + " " + height, width: WIDTH, height: height,
                                "font-family": "sans-serif", class: "arena-table", role: "img" });
    root.appendChild(shape("rect", { width: WIDTH, height: height, fill: "#f4f1e8" }));
    root.appendChild(shape("ellipse", { cx: WIDTH / 2, cy: height / 2 + 10, rx: WIDTH / 2 - 150, ry: height / 2 - 120,
                                        fill: "#2f6f4f", stroke: "#24553c", "stroke-width": 4 }));
    scene.i.forEach(function (text, line) { root.appendChild(label(WIDTH - 8, 16 + 15 * line, text, 12, { anchor: "end" })); });
    const centres = seatCentres(players);
    scene.s.forEach(function ([hand, hidden, counts, won, note], seat) {
      const [x, y] = centres[seat], left = x - SEAT_W / 2, top = y - SEAT_H / 2, moving = seat === scene.t;
      const g = shape("g", { class: "seat" });
      g.appendChild(shape("rect", { x: left, y: top, width: SEAT_W, height: SEAT_H, rx: 8, fill: "#ffffff",
                                    stroke: moving ? "#d9822b" : "#999999", "stroke-width": moving ? 3 : 1 }));
      g.appendChild(label(left + 8, top + 15, (moving ? "\u25b6 " : "") + seatLabel(seat, names), 12, { weight: "bold", clip: 34 }));
      let facts = counts.map(function ([name, value]) { return name + " " + value; }).join(" \u00b7 ");
      if (note) facts = facts ? facts + " \u00b7 " + note : note;
      g.appendChild(label(left + 8, top + 29, facts, 11, { clip: 40 }));
      const faceUp = hand !== null && visible(seat);
      const count = hand !== null ? hand.length : hidden;
      const step = count ? Math.min(CARD_W + 2, (SEAT_W - 16 - CARD_W) / Math.max(1, count - 1)) : 0;
      for (let index = 0; index < count; index++) {
        const cx = left + 8 + index * step;
        g.appendChild(faceUp ? cardShape(hand[index], faces, cx, top + 36, CARD_W, CARD_H, scene.a)
          : shape("rect", { class: "card-back", x: cx.toFixed(1), y: (top + 36).toFixed(1), width: CARD_W,
                            height: CARD_H, rx: 3, fill: BACK, stroke: "#ffffff" }));
      }
      if (won.length) {
        const wonStep = Math.min(WON_W + 1, (SEAT_W - 16 - WON_W) / Math.max(1, won.length - 1));
        won.forEach(function (card, index) {
          g.appendChild(cardShape(card, faces, left + 8 + index * wonStep, top + 84, WON_W, WON_H, scene.a, true));
        });
      }
      root.appendChild(g);
    });
    const cx = WIDTH / 2, cy = height / 2 + 10;
    const before = new Set((previous ? previous.m : []).map(function (play) { return play[1]; }));
    scene.m.forEach(function ([seat, card]) {
      const [x, y] = seat >= 0 && seat < players ? centres[seat] : [cx, cy];
      const shown = cardShape(card, faces, cx + (x - cx) * 0.32 - MID_W / 2, cy + (y - cy) * 0.32 - MID_H / 2,
                              MID_W, MID_H, scene.a, false, scene.f);
      if (previous && !before.has(card)) shown.classList.add("arrived");
      root.appendChild(shown);
    });
    return root;
  }

  window.arenaDrawTable = drawTable;  // for tests: the same drawing, given a scene

  // ---------------------------------------------------------------- one match

  // A step's table is what changed since the step before (arena/site/chunks.py, scene_change): the first whole,
  // then only the keys that changed, with "p" the plays added to the middle, "r" the [seat, index] of a card that
  // left a seat's hand, and "d" the [seat, field, value] of every other field of a seat's view that changed.
  function applyScene(scene, change) {
    const next = Object.assign({}, scene || {}, change);
    if (change.p) next.m = next.m.concat(change.p);
    if (change.r || change.d) {
      next.s = next.s.slice();
      for (const [seat, index] of change.r || []) {
        const view = next.s[seat].slice();
        view[0] = view[0].slice(0, index).concat(view[0].slice(index + 1));
        next.s[seat] = view;
      }
      for (const [seat, field, value] of change.d || []) {
        const view = next.s[seat].slice();
        view[field] = value;
        next.s[seat] = view;
      }
    }
    delete next.p;
    delete next.r;
    delete next.d;
    return next;
  }

  function matchPage() {
    const chunkSize = settings.chunk_size;
    const log = document.getElementById("match-log");
    const current = document.getElementById("current-step");
    const status = document.getElementById("step-status");
    const handsBody = document.querySelector("#hands tbody");
    const showHands = document.getElementById("show-hands");
    const drawing = document.getElementById("table-drawing");
    let match = null;
    let step = 0;
    let snapshots = [];
    let scenes = [];
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
      scenes = [];
      let hands = names.map(function () { return null; });
      let scene = null;
      for (const s of match.steps) {
        hands = hands.slice();
        for (const [seat, line] of s[7]) hands[seat] = line;
        snapshots.push(hands);
        if (s[8]) scene = applyScene(scene, s[8]);  // a step without a table (faults after the last move) shows the last one
        scenes.push(scene);
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
          drawScene();
        });
        head.appendChild(toggle);
        tr.appendChild(head);
        const visible = opened.has(seat) || showHands.checked;
        tr.appendChild(visible ? element("td", hands[seat] || "no cards") : element("td", "hidden", "hidden-hand"));
        return tr;
      }));
    }

    function draw(forward) {
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
      drawScene(forward);
      status.textContent = "step " + step + " of " + (steps.length - 1);
      document.getElementById("step-prev").disabled = step === 0;
      document.getElementById("step-first").disabled = step === 0;
      document.getElementById("step-next").disabled = step === steps.length - 1;
      document.getElementById("step-last").disabled = step === steps.length - 1;
      document.getElementById("settlement").hidden = step !== steps.length - 1;
      drawHands();
    }

    function drawScene(animate) {
      const scene = scenes[step];
      if (!scene || !settings.faces) { drawing.replaceChildren(); drawing.hidden = true; return; }
      drawing.hidden = false;
      drawing.replaceChildren(drawTable(scene, match.names, settings.faces, function (seat) {
        return showHands.checked || opened.has(seat);
      }, animate ? scenes[step - 1] : null));
    }

    function move(to) {
      if (!match || !match.steps) return;
      const from = step;
      step = Math.max(0, Math.min(match.steps.length - 1, to));
      draw(step === from + 1);
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
    showHands.addEventListener("change", function () { if (match && match.steps) { drawHands(); drawScene(); } });
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
