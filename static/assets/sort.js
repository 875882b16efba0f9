// Sortable tables, no dependencies: click a heading of a table.sortable to
// sort its rows by that column (numbers by data-sort, text otherwise); click
// again to reverse. Rows are sorted within each <tbody>, so grouped tables
// (the QA table's model groups) keep their groups; group header rows stay first.
(function () {
  "use strict";
  function key(cell, numeric) {
    if (!cell) return numeric ? -Infinity : "";
    var v = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (!numeric) return v.toLowerCase();
    var x = parseFloat(v);
    return isNaN(x) ? -Infinity : x;
  }
  function sortBy(table, th) {
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-sort-type") === "num";
    // First click: numbers descending (best first), text ascending, unless
    // data-sort-first="asc" (a rank column); then toggle.
    var dir = th.getAttribute("aria-sort");
    var desc = dir ? dir === "ascending" : numeric && th.getAttribute("data-sort-first") !== "asc";
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", desc ? "descending" : "ascending");
    Array.prototype.forEach.call(table.tBodies, function (tbody) {
      var rows = Array.prototype.filter.call(tbody.rows, function (r) { return !r.classList.contains("group-header"); });
      rows.sort(function (a, b) {
        var ka = key(a.cells[col], numeric), kb = key(b.cells[col], numeric);
        var c = ka < kb ? -1 : ka > kb ? 1 : 0;
        return desc ? -c : c;
      });
      rows.forEach(function (r) { tbody.appendChild(r); });
    });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.tabIndex = 0;
      // A link inside a heading (a footnote mark) follows the link, never sorts.
      function onLink(e) { return e.target.closest && e.target.closest("a") !== null; }
      th.addEventListener("click", function (e) { if (!onLink(e)) sortBy(table, th); });
      th.addEventListener("keydown", function (e) { if (!onLink(e) && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); sortBy(table, th); } });
    });
  });
})();
