// The comparison page (compare/): two configurations of one group of
// downloads/compare.json side by side, question by question, with wins,
// losses, ties and the exact two-sided sign test (methodology #compare).
// The choice is kept in the URL (?group=…&a=…&b=…). No dependencies.
(function () {
  "use strict";
  var form = document.getElementById("compare-form");
  if (!form) return;
  var selG = document.getElementById("compare-group"), selA = document.getElementById("compare-a"), selB = document.getElementById("compare-b");
  var out = document.getElementById("compare-result"), table = document.getElementById("compare-table");
  var root = form.getAttribute("data-root") || "";
  var data = null;

  // logFact(n) = ln n!, summed (n is at most the number of questions).
  function logFact(n) { var s = 0; for (var i = 2; i <= n; i++) s += Math.log(i); return s; }
  // signTest returns min(1, 2·P(X ≤ min(w, l))) for X ~ Binomial(w + l, 1/2):
  // the exact two-sided sign test (results/stats SignTest computes the same).
  function signTest(w, l) {
    var n = w + l, k = Math.min(w, l);
    if (n === 0) return 1;
    var p = 0, lfn = logFact(n);
    for (var i = 0; i <= k; i++) p += Math.exp(lfn - logFact(i) - logFact(n - i) - n * Math.LN2);
    return Math.min(1, 2 * p);
  }
  window.MATTOOLS_SIGN_TEST = signTest;

  function option(sel, value, text) {
    var o = document.createElement("option");
    o.value = value; o.textContent = text; sel.appendChild(o);
  }
  function group() { return data.groups.filter(function (g) { return g.id === selG.value; })[0]; }
  function conf(g, slug) { return g.configurations.filter(function (c) { return c.slug === slug; })[0]; }
  function mean(xs) {
    var s = 0, n = 0;
    xs.forEach(function (x) { if (x !== null) { s += x; n++; } });
    return n ? s / n : null;
  }
  function fillConfs(a, b) {
    var g = group();
    [selA, selB].forEach(function (s) { s.innerHTML = ""; });
    g.configurations.forEach(function (c) { option(selA, c.slug, c.label); option(selB, c.slug, c.label); });
    selA.value = a && conf(g, a) ? a : g.configurations[0].slug;
    selB.value = b && conf(g, b) ? b : g.configurations[Math.min(1, g.configurations.length - 1)].slug;
  }
  function cell(tr, text, cls, href) {
    var td = document.createElement(tr.cells.length === 1 ? "th" : "td");
    if (tr.cells.length === 1) td.scope = "row";
    if (cls) td.className = cls;
    if (href) { var a = document.createElement("a"); a.href = root + href; a.textContent = text; td.appendChild(a); } else td.textContent = text;
    tr.appendChild(td);
  }
  function render() {
    var g = group(), A = conf(g, selA.value), B = conf(g, selB.value);
    var params = new URLSearchParams(location.search);
    params.set("group", g.id); params.set("a", A.slug); params.set("b", B.slug);
    history.replaceState(null, "", location.pathname + "?" + params.toString() + location.hash);
    var tbody = table.tBodies[0];
    tbody.innerHTML = "";
    var wins = 0, losses = 0, ties = 0, skipped = 0;
    g.questions.forEach(function (q, i) {
      var ma = mean(A.passed[i]), mb = mean(B.passed[i]), res;
      if (ma === null || mb === null) { res = "no outcome"; skipped++; }
      else if (ma > mb) { res = "A wins"; wins++; }
      else if (ma < mb) { res = "B wins"; losses++; }
      else { res = "tie"; ties++; }
      var tr = document.createElement("tr");
      tr.setAttribute("data-question", q.id);
      tr.setAttribute("data-outcome", res === "A wins" ? "win" : res === "B wins" ? "loss" : res === "tie" ? "tie" : "none");
      cell(tr, String(i + 1), "num");
      cell(tr, q.id, "", q.href);
      cell(tr, String(q.properties), "num");
      cell(tr, A.passed[i].map(function (x) { return x === null ? "–" : x; }).join(" / "), "num");
      cell(tr, ma === null ? "–" : ma.toFixed(2), "num");
      cell(tr, B.passed[i].map(function (x) { return x === null ? "–" : x; }).join(" / "), "num");
      cell(tr, mb === null ? "–" : mb.toFixed(2), "num");
      cell(tr, res, "outcome");
      tbody.appendChild(tr);
    });
    document.getElementById("compare-head-a").textContent = "A per round (" + A.rounds.map(function (r) { return "r" + r; }).join(" / ") + ")";
    document.getElementById("compare-head-b").textContent = "B per round (" + B.rounds.map(function (r) { return "r" + r; }).join(" / ") + ")";
    table.hidden = false;
    var p = signTest(wins, losses);
    out.setAttribute("data-wins", wins); out.setAttribute("data-losses", losses); out.setAttribute("data-ties", ties);
    out.setAttribute("data-p", p.toPrecision(12));
    out.textContent = "A = " + A.label + "; B = " + B.label + ". Over " + g.questions.length + " questions: A wins " + wins + ", B wins " + losses +
      ", ties " + ties + (skipped ? ", no outcome " + skipped : "") + ". Exact two-sided sign test over the " + (wins + losses) +
      " questions that are not ties: p = " + (p < 0.0001 ? p.toExponential(2) : p.toFixed(4)) +
      (A.slug === B.slug ? " (the same configuration twice)." : p < 0.05 ? ": the difference is significant at the 5 % level." : ": no significant difference at the 5 % level.");
  }
  fetch(form.getAttribute("data-src")).then(function (r) { return r.json(); }).then(function (d) {
    data = d;
    if (!d.groups.length) return;
    d.groups.forEach(function (g) { option(selG, g.id, g.title + " (" + g.configurations.length + " configurations)"); });
    var params = new URLSearchParams(location.search), a = params.get("a"), b = params.get("b"), gid = params.get("group");
    // A configuration named in the URL picks its group.
    if (!d.groups.some(function (g) { return g.id === gid; })) {
      gid = (d.groups.filter(function (g) { return conf(g, a); })[0] || d.groups[0]).id;
    }
    selG.value = gid;
    fillConfs(a, b);
    render();
    selG.addEventListener("change", function () { fillConfs(); render(); });
    selA.addEventListener("change", render);
    selB.addEventListener("change", render);
  }).catch(function (e) { out.textContent = "Could not read the comparison data: " + e; });
})();
