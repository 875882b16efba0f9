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
