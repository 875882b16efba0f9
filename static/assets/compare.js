// The comparison page (compare/): two configurations of one group of
// downloads/compare.json side by side, question by question, with wins,
// losses, ties and the exact two-sided sign test (methodology #compare),
// and the paired difference in task success rate with its 95 % interval
// over questions (methodology #uncertainty).
// The choice is kept in the URL (?group=…&a=…&b=…). No dependencies.
(function () {
  "use strict";
  var form = document.getElementById("compare-form");
  if (!form) return;
  var selG = document.getElementById("compare-group"), selA = document.getElementById("compare-a"), selB = document.getElementById("compare-b");
  var out = document.getElementById("compare-result"), paired = document.getElementById("compare-paired"), table = document.getElementById("compare-table");
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

  // pairedDifference returns the task success rate of A minus B in
  // percentage points, paired by question, with its interval: the
  // clustered standard error over questions of the per-question
  // differences of the round means ya − yb, weighted by the properties m
  // (results/stats ClusteredDifference, aggregate.PairedDifference):
  // R = Σd/Σm, SE = √(G/(G−1) · Σ(d − R·m)²) / Σm, R ± t·SE, with
  // t = t(0.975; G − 1) from the data (t_quantile). null when either has
  // no per-question means or fewer than two questions exist.
  function pairedDifference(ya, yb, m, t) {
    var g = m.length;
    if (!ya || !yb || g < 2) return null;
    var d = [], sd = 0, sm = 0, i;
    for (i = 0; i < g; i++) { d.push(ya[i] - yb[i]); sd += d[i]; sm += m[i]; }
    if (sm === 0) return null;
    var r = sd / sm, ss = 0;
    for (i = 0; i < g; i++) { var e = d[i] - r * m[i]; ss += e * e; }
    var se = Math.sqrt(g / (g - 1) * ss) / sm, half = t * se;
    return { mean: r * 100, lo: (r - half) * 100, hi: (r + half) * 100, questions: g };
  }
  window.MATTOOLS_PAIRED_DIFFERENCE = pairedDifference;

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
    renderPaired(g, A, B);
  }
  function fmt(x) { return (x > 0 ? "+" : x < 0 ? "−" : "") + Math.abs(x).toFixed(2); }
  function renderPaired(g, A, B) {
    if (!paired) return;
    var d = pairedDifference(A.question_means, B.question_means, g.questions.map(function (q) { return q.properties; }), g.t_quantile);
    ["data-diff", "data-lo", "data-hi", "data-tied"].forEach(function (k) { paired.removeAttribute(k); });
    if (d === null) {
      paired.textContent = "Paired difference in task success rate: none, " + (g.questions.length < 2 ? "fewer than two questions." :
        (A.question_means ? B.label : A.label) + " has no per-question outcomes that add up to its score (its page says why).");
      return;
    }
    var tied = !(d.lo > 0 || d.hi < 0);
    paired.setAttribute("data-diff", d.mean.toPrecision(15)); paired.setAttribute("data-lo", d.lo.toPrecision(15));
    paired.setAttribute("data-hi", d.hi.toPrecision(15)); paired.setAttribute("data-tied", tied ? "true" : "false");
    paired.textContent = "Task success rate, A − B, paired by question: " + fmt(d.mean) + " pp, 95 % interval over questions and rounds [" +
      fmt(d.lo) + ", " + fmt(d.hi) + "] (" + d.questions + " questions, each averaged over its rounds; clustered by question). " +
      (A.slug === B.slug ? "The same configuration twice." : tied ? "A ≈ B: the interval includes 0, so neither is significantly above the other." :
        (d.lo > 0 ? "A" : "B") + " is significantly above " + (d.lo > 0 ? "B" : "A") + ": the interval excludes 0.");
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
