/* Sortable tables: click a header to sort by its column (numbers by the cells'
   data-value), click again to reverse. No libraries, no network. */
(function () {
  "use strict";
  function value(row, col, numeric) {
    var cell = row.cells[col];
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
    if (!numeric) return raw.toLowerCase();
    var n = parseFloat(raw);
    return isNaN(n) ? -Infinity : n;
  }
  function sortBy(table, th) {
    var col = th.cellIndex, numeric = th.getAttribute("data-type") === "num";
    // Numbers sort high-to-low first (ratings), text a-z first; "#" and avg position low first.
    var lowFirst = ["rank", "avg_position"].indexOf(th.getAttribute("data-col")) >= 0;
    var current = th.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : (numeric && !lowFirst);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r._order = i; });
    rows.sort(function (a, b) {
      var x = value(a, col, numeric), y = value(b, col, numeric);
      var c = x < y ? -1 : x > y ? 1 : a._order - b._order;
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.removeAttribute("aria-sort"); h.classList.remove("sorted-asc", "sorted-desc");
    });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    th.classList.add(descending ? "sorted-desc" : "sorted-asc");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.tabIndex = 0;
      th.title = (th.title ? th.title + " · " : "") + "click to sort by " + th.textContent;
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); } });
    });
  });
})();

/* Tables filtered by bot: a <select data-table=ID> keeps the rows whose data-bots (a
   JSON list of names) holds the chosen bot; ?bot=NAME in the address chooses one. */
(function () {
  "use strict";
  document.querySelectorAll("select[data-table]").forEach(function (select) {
    var table = document.getElementById(select.getAttribute("data-table"));
    var count = document.getElementById(select.id.replace(/-bot$/, "-count"));
    if (!table) return;
    function apply() {
      var bot = select.value, shown = 0, rows = table.tBodies[0].rows;
      Array.prototype.forEach.call(rows, function (row) {
        var keep = !bot || JSON.parse(row.getAttribute("data-bots") || "[]").indexOf(bot) >= 0;
        row.hidden = !keep;
        if (keep) shown++;
      });
      if (count) count.textContent = bot ? shown + " of " + rows.length + " games" : rows.length + " games";
    }
    var wanted = new URLSearchParams(location.search).get("bot");
    if (wanted !== null && Array.prototype.some.call(select.options, function (o) { return o.value === wanted; })) {
      select.value = wanted;
    }
    select.addEventListener("change", apply);
    apply();
  });
})();

/* Game numbers without a replay file here become links when `arena serve` serves the page
   (it replays any game on demand; static/served.js says whether it does). */
(function () {
  "use strict";
  if (!window.ARENA_SERVED) return;
  document.querySelectorAll("span.served-link[data-href]").forEach(function (span) {
    var link = document.createElement("a");
    link.href = span.getAttribute("data-href");
    link.textContent = span.textContent;
    span.replaceWith(link);
  });
})();
