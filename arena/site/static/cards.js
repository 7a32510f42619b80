/* Drawing cards and views as HTML: a pure function of the data it is given (a seat's
   view, or the god view), so a seat's page can show no more than that seat saw.
   Colors: the Okabe-Ito palette (readable with the common color-vision
   deficiencies), and every card also carries its face as text plus a shape. */
(function () {
  "use strict";

  var COLORS = {
    red: ["#D55E00", "#fff", "●"], yellow: ["#F0E442", "#000", "▲"], green: ["#009E73", "#fff", "■"],
    blue: ["#0072B2", "#fff", "◆"], orange: ["#E69F00", "#000", "★"], teal: ["#56B4E9", "#000", "✚"],
    pink: ["#CC79A7", "#000", "♥"], purple: ["#6A3D9A", "#fff", "♠"], white: ["#FFFFFF", "#000", "○"],
    black: ["#222222", "#fff", "◼"], wild: ["#444444", "#fff", "✱"], flip: ["#7a7a7a", "#fff", "⟲"]
  };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  /* The ruleset's face -> [colour, label] table (Ruleset.card_faces), set by the viewer;
     a face it does not list is drawn from its text. */
  var FACES = {};
  function setFaces(table) { FACES = table || {}; }

  /* The ruleset's layout declaration (Ruleset.site_view: one_sided, seat_rows, counted),
     set by the viewer; a game that declares nothing is drawn generically. */
  var LAYOUT = {};
  function setLayout(declared) { LAYOUT = declared || {}; }
  function declared(part, key) {
    var table = LAYOUT[part] || {};
    return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : null;
  }

  function colorOf(face) {
    if (face === null || face === undefined) return null;
    var s = String(face);
    if (Object.prototype.hasOwnProperty.call(FACES, s)) return COLORS[FACES[s][0]] || null;
    if (COLORS[s]) return COLORS[s];
    var first = s.split("-")[0];
    if (COLORS[first]) return COLORS[first];
    if (s.indexOf("wild") === 0) return COLORS.wild;
    return null;
  }

  function label(face) {
    var s = String(face);
    return Object.prototype.hasOwnProperty.call(FACES, s) ? String(FACES[s][1]) : s.replace(/-/g, " ");
  }

  /* One side of a card: a colored patch with its text label and shape, or "?". */
  function side(face, cls) {
    var part = el("div", "side " + cls);
    if (face === null || face === undefined) {
      part.classList.add("unseen");
      part.appendChild(el("span", "label", "?"));
      part.title = "not seen";
      return part;
    }
    var c = colorOf(face);
    if (c) { part.style.background = c[0]; part.style.color = c[1]; part.appendChild(el("span", "glyph", c[2])); }
    part.appendChild(el("span", "label", label(face)));
    return part;
  }

  /* A two-faced card: {face, back} held (face toward the holder) or {up, down} on a pile. */
  function card(value, opts) {
    opts = opts || {};
    var held = "face" in value;
    var main = held ? value.face : value.up, other = held ? value.back : value.down;
    var box = el("div", "card two" + (opts.cls ? " " + opts.cls : ""));
    box.appendChild(side(main, "main"));
    var band = side(other, "band");
    band.insertBefore(el("span", "which", held ? "back:" : "under:"), band.firstChild);
    box.appendChild(band);
    var text = (held ? "face " : "up ") + (main === null ? "unseen" : label(main)) + ", " +
               (held ? "back " : "down ") + (other === null ? "unseen" : label(other));
    box.setAttribute("aria-label", text);
    box.title = (opts.title ? opts.title + ": " : "") + text;
    if (opts.position !== undefined) box.appendChild(el("span", "pos", String(opts.position)));
    return box;
  }

  /* A one-sided card given as a plain face string, of the kind the game declares
     (one_sided: [kind, colour, glyph]; not listed: a "number"). site.css styles
     one-sided cards as .card.f7 (after the first game that had them). */
  function oneSided(value) {
    var s = String(value), box = el("div", "card f7");
    var kind = declared("one_sided", s) || ["number"];
    var c = kind[1] ? COLORS[kind[1]] : null;
    if (c) { box.style.background = c[0]; box.style.color = c[1]; box.appendChild(el("span", "glyph", kind[2] || c[2])); }
    box.classList.add(kind[0]);
    box.appendChild(el("span", "label", label(s)));
    box.setAttribute("aria-label", "card " + label(s));
    return box;
  }

  function isCard(v) {
    if (!v || typeof v !== "object" || Array.isArray(v)) return false;
    var k = Object.keys(v).sort().join(",");
    return k === "back,face" || k === "down,up";
  }

  function cardRow(list, title) {
    var row = el("div", "cards");
    list.forEach(function (c, i) {
      row.appendChild(isCard(c) ? card(c, { position: i, title: title }) : oneSided(c));
    });
    if (!list.length) row.appendChild(el("span", "muted", "(none)"));
    return row;
  }

  function scalarText(v) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "object") return JSON.stringify(v);
    return String(v);
  }

  /* key: value for anything, recursively; cards drawn as cards. */
  function generic(key, value, ctx) {
    var box = el("div", "field");
    box.appendChild(el("span", "key", key.replace(/_/g, " ")));
    var body = el("div", "value");
    if (isCard(value)) body.appendChild(card(value, { title: key }));
    else if (Array.isArray(value) && value.length && value.every(isCard)) body.appendChild(cardRow(value, key));
    else if (Array.isArray(value) && value.length && value.every(function (x) { return Array.isArray(x) && x.every(isCard); }))
      body.appendChild(seatRows(value, ctx, function (hand) { return cardRow(hand, key); }));
    else if (value && typeof value === "object" && !Array.isArray(value) && isPile(value)) body.appendChild(pile(value));
    else if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length &&
             Object.keys(value).some(function (k) { return value[k] && typeof value[k] === "object"; })) {
      Object.keys(value).forEach(function (k) { body.appendChild(generic(k, value[k], ctx)); });
    } else body.appendChild(el("code", "scalar", scalarText(value)));
    box.appendChild(body);
    return box;
  }

  function isPile(v) { return "size" in v && "top" in v && (v.top === null || isCard(v.top)); }

  function pile(v) {
    var box = el("div", "pile");
    if (v.top) box.appendChild(card(v.top, { title: "top" })); else box.appendChild(el("div", "card empty", "empty"));
    box.appendChild(el("span", "size", v.size + " card" + (v.size === 1 ? "" : "s")));
    return box;
  }

  function seatName(ctx, i) {
    var n = (ctx.names && ctx.names[i] !== undefined) ? ctx.names[i] : "?";
    return "seat " + i + " · " + n + (ctx.viewer === i ? " (this view)" : "");
  }

  function seatRows(list, ctx, draw) {
    var box = el("div", "seats");
    list.forEach(function (item, i) {
      var row = el("div", "seat-row" + (ctx.turn === i ? " to-act" : "") + (ctx.viewer === i ? " viewer" : ""));
      row.setAttribute("data-seat", String(i));
      var head = el("div", "seat-name", seatName(ctx, i));
      if (ctx.turn === i) head.appendChild(el("span", "tag", "to act"));
      row.appendChild(head);
      row.appendChild(draw(item, i));
      box.appendChild(row);
    });
    return box;
  }

  /* Declared seat rows (seat_rows: view key -> the row keys holding cards): one row per
     seat, its cards in one row in the declared order, its other keys as facts. */
  function cardSeatRows(rows, ctx, cardKeys) {
    return seatRows(rows, ctx, function (r) {
      var box = el("div", "f7row");
      box.appendChild(cardRow([].concat.apply([], cardKeys.map(function (k) { return r[k] || []; }))));
      var facts = el("div", "facts");
      Object.keys(r).forEach(function (k) {
        if (cardKeys.indexOf(k) >= 0) return;
        facts.appendChild(el("span", "fact", k.replace(/_/g, " ") + ": " + scalarText(r[k])));
      });
      box.appendChild(facts);
      return box;
    });
  }

  function factions(list, ctx) {
    return seatRows(list, ctx, function (f) {
      var box = el("div", "cards");
      Object.keys(f).forEach(function (k) {
        var s = side(f[k], "chip");
        s.insertBefore(el("span", "which", k + ":"), s.firstChild);
        box.appendChild(s);
      });
      return box;
    });
  }

  var SCALARS_FIRST = ["turn", "to_act", "active", "turn_seat", "decision", "phase", "step", "awaiting", "round",
                       "turn_number", "side", "color", "direction"];

  /* The whole view: scalars in a grid, then seats' hands / rows, piles, the rest. */
  function view(v, ctx) {
    ctx = Object.assign({}, ctx);
    var turn = ["turn", "to_act", "active", "turn_seat"].map(function (k) { return v[k]; })
                  .filter(function (x) { return typeof x === "number"; })[0];
    ctx.turn = ctx.over ? undefined : turn;  // at game over nobody is to act, whatever the view still holds
    var root = el("div", "view");
    var grid = el("div", "facts-grid"), rest = el("div", "blocks");
    var keys = Object.keys(v);
    keys.sort(function (a, b) {
      var ia = SCALARS_FIRST.indexOf(a), ib = SCALARS_FIRST.indexOf(b);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    });
    var TURN_KEYS = ["turn", "to_act", "active", "turn_seat"];
    keys.forEach(function (k) {
      var x = v[k];
      if (ctx.over && TURN_KEYS.indexOf(k) >= 0 && (x === null || typeof x === "number")) return;  // nobody acts after the end
      if (x === null || typeof x !== "object") {
        var f = el("div", "fact");
        f.appendChild(el("span", "key", k.replace(/_/g, " ")));
        f.appendChild(el("code", "scalar", scalarText(x)));
        grid.appendChild(f);
        return;
      }
      var block = el("div", "block block-" + k);
      if (k === "hands" && Array.isArray(x)) {
        block.appendChild(el("h4", "", "hands (face toward the holder on top; the back, which the others see, below)"));
        block.appendChild(seatRows(x, ctx, function (hand, i) { return cardRow(hand, "seat " + i); }));
      } else if (declared("seat_rows", k) && Array.isArray(x) && x.length && x[0] && typeof x[0] === "object") {
        block.appendChild(el("h4", "", k.replace(/_/g, " ")));
        block.appendChild(cardSeatRows(x, ctx, declared("seat_rows", k)));
      } else if (k === "factions" && Array.isArray(x)) {
        block.appendChild(el("h4", "", "factions"));
        block.appendChild(factions(x, ctx));
      } else if (k === "hand" && Array.isArray(x)) {
        block.appendChild(el("h4", "", "hand of seat " + ctx.viewerOrActor));
        block.appendChild(cardRow(x, "hand"));
      } else if (!Array.isArray(x) && isPile(x)) {
        block.appendChild(el("h4", "", k.replace(/_/g, " ")));
        block.appendChild(pile(x));
      } else if (Array.isArray(x) && x.length === ctx.players && x.every(function (y) { return y === null || typeof y !== "object"; })) {
        block.classList.add("per-seat");
        block.appendChild(el("h4", "", k.replace(/_/g, " ") + " by seat"));
        var line = el("div", "per-seat-values");
        x.forEach(function (y, i) { line.appendChild(el("span", "fact", i + ": " + scalarText(y))); });
        block.appendChild(line);
      } else {
        block.appendChild(generic(k, x, ctx));
      }
      rest.appendChild(block);
    });
    root.appendChild(grid);
    root.appendChild(rest);
    return root;
  }

  window.ArenaCards = { card: card, oneSided: oneSided, view: view, isCard: isCard, el: el, label: label,
                        setFaces: setFaces, setLayout: setLayout, declared: declared };
})();
