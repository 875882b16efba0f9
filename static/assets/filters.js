// Table filters, no dependencies (issue 18): every table whose rows carry
// data-system, data-group, data-weights, data-source or data-provenance gets a filter bar
// with one menu per dimension that has two or more values in that table.
// The choice is kept in the URL (?system=llm-rag&source=4&group=…&weights=open&provenance=…),
// shared by every table of the page, so a filtered view can be linked and
// survives a reload. A row matches when, for every dimension its table
// offers, the chosen value is "" (all) or one of the row's values
// (data-provenance may list several, separated by "|").
(function () {
  "use strict";
  var dims = [
    {key: "system", title: "System", labels: {"single-llm": "Single LLM", "llm-rag": "LLM-RAG", "agentic-rag": "Agentic RAG",
      "graph-rag": "GraphRAG (LightRAG)", "self-reflection-rag": "Self-reflection LLM-doc RAG"}},
    {key: "group", title: "Model group", labels: {"closed-source": "Closed-source LLMs", "open-source": "Open-source LLMs",
      "materials-chemistry": "Materials-chemistry LLMs", "": "Other LLMs"}},
    {key: "weights", title: "Weights", labels: {"open": "open weights", "closed": "closed weights", "": "not known"}},
    {key: "source", title: "Retrieval source", labels: {"0": "none", "1": "1: pymatgen code", "2": "2: official docs",
      "3": "3: LLM docs (chunked)", "4": "4: LLM docs (per object)"}},
    {key: "provenance", title: "Provenance", labels: {}}
  ];
  function values(row, key) {
    var v = row.getAttribute("data-" + key);
    if (v === null) return null;
    return key === "provenance" ? v.split("|").filter(function (x) { return x !== ""; }) : [v];
  }
  function rowsOf(table) {
    var out = [];
    Array.prototype.forEach.call(table.tBodies, function (tb) {
      Array.prototype.forEach.call(tb.rows, function (r) { if (!r.classList.contains("group-header")) out.push(r); });
    });
    return out;
  }
  var params = new URLSearchParams(location.search);
  var state = {};
  dims.forEach(function (d) { state[d.key] = params.get(d.key) || ""; });
  var tables = [];
  Array.prototype.forEach.call(document.querySelectorAll("main table"), function (table) {
    var rows = rowsOf(table);
    var offered = dims.filter(function (d) {
      var seen = {};
      rows.forEach(function (r) { (values(r, d.key) || []).forEach(function (v) { seen[v] = true; }); });
      d.seen = Object.keys(seen);
      return rows.some(function (r) { return values(r, d.key) !== null; }) && d.seen.length > 1;
    }).map(function (d) { return {key: d.key, title: d.title, labels: d.labels, seen: d.seen.slice().sort()}; });
    if (!offered.length) return;
    var bar = document.createElement("div");
    bar.className = "table-filters";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", "Filter the table below");
    var entry = {table: table, rows: rows, offered: offered, selects: {}, count: null};
    offered.forEach(function (d) {
      var label = document.createElement("label");
      label.textContent = d.title + " ";
      var sel = document.createElement("select");
      sel.setAttribute("data-filter", d.key);
      var all = document.createElement("option");
      all.value = ""; all.textContent = "all"; sel.appendChild(all);
      d.seen.forEach(function (v) {
        var o = document.createElement("option");
        o.value = v; o.textContent = d.labels[v] !== undefined ? d.labels[v] : v; sel.appendChild(o);
      });
      sel.addEventListener("change", function () { state[d.key] = sel.value; apply(true); });
      label.appendChild(sel);
      bar.appendChild(label);
      entry.selects[d.key] = sel;
    });
    entry.count = document.createElement("span");
    entry.count.className = "filter-count";
    bar.appendChild(entry.count);
    var anchor = table.closest(".scroll") || table;
    anchor.parentNode.insertBefore(bar, anchor);
    tables.push(entry);
  });
  function apply(push) {
    tables.forEach(function (e) {
      var shown = 0;
      e.rows.forEach(function (r) {
        var ok = e.offered.every(function (d) {
          var want = state[d.key];
          if (!want) return true;
          var vs = values(r, d.key);
          return vs !== null && vs.indexOf(want) >= 0;
        });
        r.hidden = !ok;
        if (ok) shown++;
      });
      Array.prototype.forEach.call(e.table.tBodies, function (tb) {
        var head = Array.prototype.filter.call(tb.rows, function (r) { return r.classList.contains("group-header"); });
        var any = Array.prototype.some.call(tb.rows, function (r) { return !r.classList.contains("group-header") && !r.hidden; });
        head.forEach(function (h) { h.hidden = !any; });
      });
      e.offered.forEach(function (d) {
        var sel = e.selects[d.key];
        if (Array.prototype.some.call(sel.options, function (o) { return o.value === state[d.key]; })) sel.value = state[d.key];
      });
      e.count.textContent = shown === e.rows.length ? e.rows.length + " rows" : shown + " of " + e.rows.length + " rows shown";
      e.table.setAttribute("data-rows-shown", shown);
    });
    if (push) {
      var p = new URLSearchParams(location.search);
      dims.forEach(function (d) { if (state[d.key]) p.set(d.key, state[d.key]); else p.delete(d.key); });
      var q = p.toString();
      history.replaceState(null, "", location.pathname + (q ? "?" + q : "") + location.hash);
    }
  }
  if (tables.length) apply(false);
})();
