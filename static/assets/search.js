// The search page (/search/, layouts/search.html): loads Pagefind's UI from the index that scripts/publish.sh writes
// to the site root's pagefind/ (tools/pagefind/index.mjs), from a path relative to this page, so that it works on
// any static host and under any base path. ?q=TEXT starts a search, ?edition=v1.3 (or preview) selects that edition,
// the newest release (data-newest) by default, ?edition=all every edition.
(function () {
  "use strict";
  var box = document.getElementById("search");
  if (!box) return;
  var bundle = new URL(box.getAttribute("data-bundle"), window.location.href).pathname;
  var css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = bundle + "pagefind-ui.css";
  document.head.appendChild(css);
  var s = document.createElement("script");
  s.src = bundle + "pagefind-ui.js";
  s.onerror = function () {
    document.getElementById("search-missing").hidden = false;
  };
  s.onload = function () {
    var ui = new window.PagefindUI({
      element: "#search",
      bundlePath: bundle,
      showImages: false,
      showSubResults: true,
      resetStyles: false,
      autofocus: true,
      ranking: { pageLength: 0, termFrequency: 0 },
      // Each result names its edition: the same page exists in every release.
      processResult: function (r) {
        var ed = r.filters && r.filters.edition && r.filters.edition[0];
        if (ed && ed !== "site") r.meta.title = (r.meta.title || r.url) + " · " + ed;
        return r;
      }
    });
    var q = new URLSearchParams(window.location.search);
    // Without ?edition=, the newest release: the same page exists in every release, and a reader wants the newest.
    var ed = q.get("edition") || box.getAttribute("data-newest");
    if (ed && ed !== "all") ui.triggerFilters({ edition: [ed] });
    if (q.get("q")) ui.triggerSearch(q.get("q"));
  };
  document.body.appendChild(s);
})();
