// Builds the site's search index with Pagefind (pinned in package.json):
//
//	node tools/pagefind/index.mjs SITE_DIR
//
// Every page of every edition (v1.0, …, preview) and the root's pages are
// indexed into SITE_DIR/pagefind/ (pagefind.js, pagefind-ui.js/.css, the
// index and fragment files), which the site's /search/ page loads; a static
// host serves it as it is. /latest/ (redirects to the newest release, whose
// pages are indexed under their own version) and the root's 404.html are
// left out. Each page is tagged with its edition as a Pagefind filter
// ("edition"), from its path. The site's header, footer, edition banner and
// version switcher, the same on every page, are not indexed.
// It prints the pages indexed per edition and exits 1 on any Pagefind error.
import * as pagefind from "pagefind";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

const site = process.argv[2];
if (!site || process.argv.length > 3) {
  console.error("usage: node tools/pagefind/index.mjs SITE_DIR");
  process.exit(2);
}
const edition = /^(v[0-9]+(\.[0-9]+)*|preview)$/;
const skipTop = new Set(["pagefind", "latest", "search"]);

// walk returns the .html files under dir, relative to the site root, sorted.
async function walk(dir, rel) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!rel && skipTop.has(e.name)) continue;
      out.push(...(await walk(path.join(dir, e.name), r)));
    } else if (e.name.endsWith(".html") && !(!rel && e.name === "404.html")) {
      out.push(r);
    }
  }
  return out.sort();
}

const fail = (what, errors) => {
  if (errors && errors.length) {
    console.error(`pagefind: ${what}: ${errors.join("; ")}`);
    process.exit(1);
  }
};

const { index, errors } = await pagefind.createIndex({
  excludeSelectors: ["header.site", "footer.site", ".edition-banner", "#version-switcher"],
  forceLanguage: "en",
});
fail("createIndex", errors);
const counts = {};
for (const rel of await walk(site, "")) {
  const top = rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : "";
  const ed = edition.test(top) ? top : "site";
  const html = await readFile(path.join(site, rel), "utf8");
  // The edition filter goes on <body>: an attribute, so no text is added to the page's content.
  const tagged = html.replace(/<body\b/i, `<body data-pagefind-filter="edition:${ed}"`);
  const url = "/" + rel.replace(/(^|\/)index\.html$/, "$1");
  const res = await index.addHTMLFile({ url, content: tagged });
  fail(rel, res.errors);
  counts[ed] = (counts[ed] || 0) + 1;
}
const w = await index.writeFiles({ outputPath: path.join(site, "pagefind") });
fail("writeFiles", w.errors);
await pagefind.close();
const total = Object.values(counts).reduce((a, b) => a + b, 0);
console.log(`pagefind: indexed ${total} pages (${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}) into ${w.outputPath}`);
