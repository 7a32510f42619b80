/* The replay viewer: loads replays/<game>.js (a script, so it works from file://),
   then steps through the game decision by decision, from the god view or from one
   seat. A seat's steps are its own decisions; each shows exactly the observation
   its bot received (view, events, legal actions) and the action it chose, and
   draws nothing but that observation. Decisions are numbered from 1 for people (the
   page and its address: #view=god&d=8 is decision 8); frames keep the record's
   0-based index. */
(function () {
  "use strict";
  var C = window.ArenaCards, el = C.el;
  var params = new URLSearchParams(location.search);
  var game = params.get("game");
  var data = null, mode = "god", pos = 0, steps = [], timer = null;

  function $(id) { return document.getElementById(id); }

  function message(text, isError) {
    var m = $("message");
    m.textContent = text;
    m.className = "message" + (isError ? " error" : "");
  }

  function load() {
    if (game === null || !/^\d+$/.test(game)) {
      message("No game chosen: open a replay from the standings page, or add ?game=N to the address.", true);
      return;
    }
    message("Loading game " + game + " …");
    var s = document.createElement("script");
    s.src = "replays/" + game + ".js";
    s.onload = function () {
      var d = (window.ARENA_REPLAYS || {})[game];
      if (!d) { message("replays/" + game + ".js did not define game " + game + ".", true); return; }
      if (d.error) { message("No replay for game " + game + ": " + d.error, true); return; }
      start(d);
    };
    s.onerror = function () {
      message("There is no replay file for game " + game + " in this site (only a sample of games gets one: " +
              "`arena publish --replays N` chooses how many; `arena serve RESULTS_DIR` shows any game).", true);
    };
    document.body.appendChild(s);
  }

  function readHash() {
    var h = new URLSearchParams(location.hash.replace(/^#/, ""));
    var d = h.get("d");
    return { view: h.get("view"), d: d === null || d === "end" ? d : Math.max(0, Number(d) - 1) };
  }

  function start(d) {
    data = d;
    C.setFaces(d.ruleset.faces);
    C.setLayout(d.ruleset.view);
    message("");
    $("title").textContent = "Game " + d.game + " · " + d.ruleset.title + " (ruleset " + d.ruleset.id + ", version " + d.ruleset.version + ")";
    $("subtitle").textContent = d.names.map(function (n, i) { return "seat " + i + ": " + n; }).join(" · ") +
      " · deal seed " + d.deal_seed + " · " + d.frames.length + " decisions";
    var buttons = $("view-buttons");
    buttons.appendChild(viewButton("god", "god view"));
    d.names.forEach(function (n, i) { buttons.appendChild(viewButton(String(i), "seat " + i + " · " + n)); });
    $("controls").hidden = false;
    $("stage").hidden = false;
    $("first").onclick = function () { go(0); };
    $("prev").onclick = function () { go(pos - 1); };
    $("next").onclick = function () { go(pos + 1); };
    $("last").onclick = function () { go(steps.length - 1); };
    $("play").onclick = function () { playing() ? stop() : play(); };
    $("speed").onchange = function () { if (playing()) { stop(); play(); } };
    document.addEventListener("keydown", onKey);
    faultLinks();
    var h = readHash();
    setMode(h.view && (h.view === "god" || Number(h.view) < d.players) ? h.view : "god",
            h.d === null ? 0 : h.d === "end" ? "end" : Number(h.d));
  }

  function viewButton(value, text) {
    var b = el("button", "view-button", text);
    b.setAttribute("data-view", value);
    b.onclick = function () { setMode(value, currentDecision()); };
    return b;
  }

  function onKey(e) {
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA")) return;
    if (e.key === "ArrowRight") { go(pos + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(pos - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(steps.length - 1); e.preventDefault(); }
    else if (e.key === " ") { playing() ? stop() : play(); e.preventDefault(); }
    else if (e.key === "g") setMode("god", currentDecision());
    else if (/^[0-9]$/.test(e.key) && Number(e.key) < data.players) setMode(e.key, currentDecision());
  }

  /* Autoplay: one step every `speed` ms until the end (of this view's steps) or a pause. */
  function playing() { return timer !== null; }

  function play() {
    if (pos === steps.length - 1) go(0);
    timer = setInterval(function () {
      if (pos >= steps.length - 1) { stop(); return; }
      go(pos + 1);
    }, Number($("speed").value));
    $("play").textContent = "❚❚ pause";
    $("play").setAttribute("aria-pressed", "true");
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").textContent = "▶ play";
    $("play").setAttribute("aria-pressed", "false");
  }

  /* Steps: decision numbers (frame indices), then "end". */
  function currentDecision() { return steps.length ? steps[pos] : 0; }

  function setMode(value, decision) {
    mode = value;
    var frames = data.frames;
    steps = [];
    for (var i = 0; i < frames.length; i++) if (mode === "god" || frames[i].seat === Number(mode)) steps.push(i);
    steps.push("end");
    var target = decision === "end" ? steps.length - 1 : 0;
    if (decision !== "end") {
      while (target < steps.length - 1 && steps[target] < decision) target++;
    }
    document.querySelectorAll(".view-button").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-view") === mode ? "true" : "false");
    });
    logs();
    go(target);
  }

  function go(i) {
    pos = Math.max(0, Math.min(steps.length - 1, i));
    render();
    history.replaceState(null, "", "#view=" + mode + "&d=" + (steps[pos] === "end" ? "end" : steps[pos] + 1));
  }

  function list(id, items, chosen, labels) {
    // labels: the items in words, as the terminal shows them (the raw item after, dimmed)
    var ol = $(id);
    ol.textContent = "";
    items.forEach(function (t, i) {
      var label = labels && labels[i] && labels[i] !== t ? labels[i] : null;
      var li = el("li", t === chosen ? "chosen" : "", label || t);
      if (label) li.appendChild(el("span", "raw-action", " (" + t + ")"));
      ol.appendChild(li);
    });
    if (!items.length) ol.appendChild(el("li", "muted none", "(none)"));
  }

  function render() {
    var step = steps[pos], seat = mode === "god" ? null : Number(mode);
    var n = data.frames.length;
    $("prev").disabled = pos === 0;
    $("first").disabled = pos === 0;
    $("next").disabled = pos === steps.length - 1;
    $("last").disabled = pos === steps.length - 1;
    $("position").textContent = step === "end"
      ? "the end (" + (pos + 1) + " / " + steps.length + ")"
      : "decision " + (step + 1) + " of " + n + (seat === null ? "" : " · this seat's " + (pos + 1) + " of " + (steps.length - 1));
    var note = $("note"), table = $("table"), decision = $("decision");
    note.textContent = ""; table.textContent = ""; decision.textContent = "";
    var ctx = { names: data.names, players: data.players, viewer: seat };
    var raw;
    if (step === "end") {
      var fin = seat === null ? data.final.god : data.final.seats[seat];
      $("view-title").textContent = seat === null ? "The end · god view" : "The end · as seat " + seat + " (" + data.names[seat] + ") sees it";
      ctx.viewerOrActor = seat === null ? 0 : seat;
      ctx.over = true;
      table.appendChild(C.view(fin.view, ctx));
      drawCounts(table, fin.view);
      decision.appendChild(outcome());
      $("events-title").textContent = seat === null ? "What happened (god log)" : "What happened since its last decision";
      list("events", seat === null ? fin.log : fin.event_text);
      list("legal", []);
      raw = seat === null ? fin : { view: fin.view, events: fin.events };
    } else {
      var f = data.frames[step];
      ctx.viewerOrActor = f.seat;
      var who = "seat " + f.seat + " (" + data.names[f.seat] + ")";
      if (seat === null) {
        $("view-title").textContent = "God view · decision " + (step + 1) + ": " + who + " to act";
        table.appendChild(C.view(f.god.view, ctx));
        drawCounts(table, f.god.view);
        $("events-title").textContent = "What happened (god log)";
        list("events", f.god.log);
        list("legal", f.legal, f.action, f.legal_text);
        raw = { god_view: f.god.view, god_log: f.god.log, legal_actions: f.legal, action: f.action };
      } else if (f.obs) {
        $("view-title").textContent = "Seat " + seat + " (" + data.names[seat] + ") · its observation at decision " + (step + 1);
        table.appendChild(C.view(f.obs.view, ctx));
        drawCounts(table, f.obs.view);
        $("events-title").textContent = "Events it received (since its last observation)";
        list("events", f.obs.event_text);
        list("legal", f.obs.legal_actions, f.action, f.legal_text);
        // The observation as play_game built it (same keys, same order).
        raw = { ruleset: data.ruleset.id, version: data.ruleset.version, options: data.ruleset.options,
                seat: seat, players: data.players, view: f.obs.view, events: f.obs.events,
                legal_actions: f.obs.legal_actions };
      } else {
        $("view-title").textContent = "Seat " + seat + " (" + data.names[seat] + ") · decision " + (step + 1);
        note.textContent = "Its bot was not asked here (" + f.why + "), so it received no observation; " +
          "its events reach it with its next observation.";
        $("events-title").textContent = "Events it received";
        list("events", []);
        list("legal", f.legal, f.action, f.legal_text);
        raw = { asked: false, legal_actions: f.legal, action: f.action };
      }
      var d = el("div", "chosen-action");
      d.appendChild(el("div", "muted", (seat === null ? who : "it") + (f.asked && !f.note ? " chose" : " played") +
                                        (f.note ? " (a replacement action)" : "")));
      d.appendChild(el("div", "action-text", f.action_text && (seat === null || seat === f.seat) ? f.action_text : f.action));
      d.appendChild(el("code", "", f.action));
      if (!f.asked && seat === null) d.appendChild(el("div", "muted", "(" + f.why + ")"));
      if (f.note) d.appendChild(el("div", f.fault ? "fault" : "replacement", f.note));
      decision.appendChild(d);
      $("position").className = "position" + (f.fault ? " at-fault" : f.note ? " at-replacement" : "");
    }
    if (step === "end") $("position").className = "position";
    $("raw-title").textContent = seat === null ? "raw data (god view)" : "raw observation (exactly as the bot received it)";
    $("raw").textContent = JSON.stringify(raw, null, 1);
  }

  /* Buttons that jump to each decision with a fault (in the current view). */
  function faultLinks() {
    var box = $("fault-links");
    box.textContent = "";
    var faulted = data.frames.filter(function (f) { return f.fault; });
    if (!faulted.length) { box.hidden = true; return; }
    box.hidden = false;
    box.appendChild(el("span", "muted", "faults at: "));
    faulted.forEach(function (f) {
      var b = el("button", "fault-link", "decision " + (f.n + 1) + " · seat " + f.seat + " " + f.fault.kind);
      b.onclick = function () { setMode(mode === "god" || Number(mode) === f.seat ? mode : "god", f.n); };
      box.appendChild(b);
    });
  }

  /* The bots' stderr, per seat (the record keeps it per game, not per decision). */
  function logs() {
    var box = $("logs"), seat = mode === "god" ? null : Number(mode);
    box.textContent = "";
    var shown = (data.logs || []).filter(function (l) { return seat === null || l.seat === seat; });
    $("logs-title").textContent = "bot logs (" + (shown.length ? shown.map(function (l) { return "seat " + l.seat; }).join(", ") : "none") + ")";
    shown.forEach(function (l) {
      box.appendChild(el("h4", "", "seat " + l.seat + " · " + data.names[l.seat]));
      box.appendChild(el("pre", "log", l.text));
    });
    if (!shown.length) box.appendChild(el("p", "muted", seat === null ? "No bot wrote to stderr in this game." : "This seat's bot wrote nothing to stderr."));
    box.appendChild(el("p", "muted", data.log_note || ""));
  }

  /* The piles a game declares counted (site_view.counted: view key -> title, the pile a
     {face: count}) as cards with a count, instead of the generic key: value text. */
  function drawCounts(table, view) {
    var fields = (data.ruleset.view || {}).counted || {};
    Object.keys(fields).forEach(function (key) {
      var block = table.querySelector(".block-" + key), counts = view[key];
      if (!block || !counts || typeof counts !== "object" || Array.isArray(counts)) return;
      block.textContent = "";
      var total = Object.keys(counts).reduce(function (t, k) { return t + counts[k]; }, 0);
      block.appendChild(el("h4", "", fields[key] + " · " + total + " card" + (total === 1 ? "" : "s")));
      var row = el("div", "cards counted");
      Object.keys(counts).forEach(function (face) {
        var card = C.oneSided(face), n = counts[face];
        card.appendChild(el("span", "count", "×" + n));
        card.setAttribute("aria-label", n + " × card " + C.label(face));
        card.title = n + " × " + C.label(face);
        row.appendChild(card);
      });
      if (!total) row.appendChild(el("span", "muted", "(none)"));
      block.appendChild(row);
    });
  }

  function outcome() {
    var o = data.outcome, box = el("div", "outcome");
    box.appendChild(el("div", "muted", "game over: " + o.reason));
    var t = el("table", "small");
    var head = el("tr");
    ["position", "seat", "bot", "score"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    t.appendChild(head);
    var order = o.standing.map(function (s, i) { return i; }).sort(function (a, b) { return o.standing[a] - o.standing[b] || a - b; });
    order.forEach(function (i) {
      var tr = el("tr");
      [o.standing[i], i, data.names[i], o.scores[i]].forEach(function (v) { tr.appendChild(el("td", "", String(v))); });
      t.appendChild(tr);
    });
    box.appendChild(t);
    return box;
  }

  load();
})();
