// Question-page filter, no dependencies: show only the sections (one per
// configuration) of a model and a system, and only the rounds with a given
// verdict (data-verdict of each details.run: the verdict under the section's
// first protocol, mattools-v1 where MatTools' code was re-executed). Without
// JavaScript the form stays hidden and every section is shown.
(function () {
  "use strict";
  var form = document.querySelector("form.question-filter");
  if (!form) return;
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.identity"));
  var count = form.querySelector(".filter-count");
  function apply() {
    var model = form.elements.model.value, system = form.elements.system.value, verdict = form.elements.verdict.value;
    var shown = 0, rounds = 0, total = 0;
    sections.forEach(function (s) {
      var entries = Array.prototype.slice.call(s.querySelectorAll("details.run"));
      total += entries.length;
      var match = (!model || s.getAttribute("data-model") === model) && (!system || s.getAttribute("data-system") === system);
      var visible = 0;
      entries.forEach(function (e) {
        var ok = match && (!verdict || e.getAttribute("data-verdict") === verdict);
        e.hidden = !ok;
        if (ok) visible++;
      });
      s.hidden = visible === 0;
      if (visible > 0) shown++;
      rounds += visible;
    });
    if (count) count.textContent = "showing " + rounds + " of " + total + " rounds in " + shown + " of " + sections.length + " configurations";
  }
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  form.hidden = false;
  apply();
})();

// Rounds' bodies, loaded on demand: each details.run holds a
// div.run-body[data-load] whose link leads to its entry (#entry-<n>) on the
// configuration's code page; when the round is first opened, the page is
// fetched (once per page) and the entry's div.run-body replaces the link.
// Without JavaScript, or when the fetch fails, the link stays and leads there.
(function () {
  "use strict";
  var pages = {};
  function load(body) {
    var src = body.querySelector("a[href]").getAttribute("href");
    var hash = src.indexOf("#");
    var url = hash < 0 ? src : src.slice(0, hash), id = hash < 0 ? "" : src.slice(hash + 1);
    if (!pages[url]) {
      pages[url] = fetch(url).then(function (r) {
        if (!r.ok) throw new Error(url + ": " + r.status);
        return r.text();
      }).then(function (text) { return new DOMParser().parseFromString(text, "text/html"); });
    }
    body.setAttribute("aria-busy", "true");
    pages[url].then(function (doc) {
      var entry = id && doc.getElementById(id);
      var got = entry && entry.querySelector(".run-body");
      if (!got) throw new Error(src + ": no such entry");
      body.replaceChildren.apply(body, Array.prototype.map.call(got.childNodes, function (n) { return document.importNode(n, true); }));
      body.removeAttribute("data-load");
      body.removeAttribute("aria-busy");
    }).catch(function () {
      delete pages[url];
      body.removeAttribute("aria-busy");
    });
  }
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (!d.open || !d.matches || !d.matches("details.run")) return;
    var body = d.querySelector(":scope > .run-body[data-load]");
    if (body && !body.hasAttribute("aria-busy")) load(body);
  }, true);
})();
