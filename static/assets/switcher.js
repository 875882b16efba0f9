// Version switcher: a frozen release lists the releases that existed when it
// was made; releases.js at the site root (not frozen) lists all of them, so
// newer ones and the preview are added here without changing frozen pages.
(function () {
  "use strict";
  var nav = document.getElementById("version-switcher");
  var all = window.MATTOOLS_RELEASES;
  if (!nav || !all) return;
  var list = nav.querySelector("ul.version-list");
  var root = nav.getAttribute("data-site-root");
  var have = {};
  nav.querySelectorAll("a.version-link").forEach(function (a) { have[a.getAttribute("data-version")] = true; });
  var first = list.firstChild;
  all.forEach(function (r) {
    if (have[r.version]) return;
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.className = "version-link";
    a.setAttribute("data-version", r.version);
    a.href = root + r.path + "/";
    a.textContent = r.version + (r.date ? " (" + r.date + ")" : "");
    li.appendChild(a);
    list.insertBefore(li, first);
  });
})();
