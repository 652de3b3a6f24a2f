/**
 * The console's stylesheet and script, served by the service itself from
 * `/admin/assets/…` (no CDN, nothing fetched at run time). They live in the program as text,
 * so the compiled binary and the published package carry them without file permissions.
 *
 * The script is progressive: every page works without it (forms post and the server
 * validates everything); it only checks the claims editor's JSON as the operator types.
 *
 * @module
 */

/** One static asset. */
export interface Asset {
  readonly contentType: string;
  readonly body: string;
}

const CSS = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;
--accent:#0969da;--danger:#cf222e;--ok:#1a7f37;--card:#f6f8fa;font-family:system-ui,sans-serif;line-height:1.45}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;
--accent:#4493f8;--danger:#f85149;--ok:#3fb950;--card:#161b22}}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
.brand{font-weight:600}
nav{display:flex;gap:1rem;flex-wrap:wrap}
.logout{margin-left:auto;display:flex;gap:.5rem;align-items:center}
.who{color:var(--muted);font-size:.9rem}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-100vw}.skip:focus{position:static}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
button,.button{font:inherit;padding:.45rem .9rem;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg);cursor:pointer;text-decoration:none;display:inline-block}
button.danger,.button.danger{border-color:var(--danger);color:var(--danger)}
button:disabled{opacity:.5;cursor:not-allowed}
input,textarea{font:inherit;width:100%;padding:.45rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
textarea{font-family:ui-monospace,monospace;font-size:.9rem}
label{display:block;font-weight:500}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem}
.card>*+*{margin-top:.75rem}
fieldset{border:0;padding:0;margin:0}legend{font-weight:600;margin-bottom:.5rem}
.lookup .fields{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:.75rem;margin-bottom:.75rem}
.hint{color:var(--muted);font-size:.9rem}
.notice{padding:.6rem .9rem;border-radius:6px;border:1px solid}
.notice.ok{border-color:var(--ok);color:var(--ok)}.notice.error{border-color:var(--danger);color:var(--danger)}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:.75rem}
.tile{display:flex;flex-direction:column;padding:1rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--fg);text-decoration:none}
.tile .value{font-size:1.8rem;font-weight:600}.tile .label{color:var(--muted)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
caption{text-align:left;color:var(--muted);padding:.25rem 0}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
td code{overflow-wrap:anywhere}
.num{text-align:right}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}
dl.fields dt{color:var(--muted)}dl.fields dd{margin:0;overflow-wrap:anywhere}
button+a{margin-left:.75rem}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
.status{padding:.05rem .45rem;border-radius:999px;border:1px solid var(--line);font-size:.85rem}
.status.active,.status.delivered{border-color:var(--ok);color:var(--ok)}.status.suspended,.status.Deleted,.status.failed{border-color:var(--danger);color:var(--danger)}
ol.attempts{margin:0;padding-left:1.2rem}.actor{color:var(--muted);font-size:.85rem}
td .nowrap,td code.nowrap{white-space:nowrap;overflow-wrap:normal}ul.details{margin:0;padding:0;list-style:none;min-width:14rem}td a.id{overflow-wrap:anywhere}
ul.details li{overflow-wrap:anywhere}ul.details .k{color:var(--muted)}
pre.json{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.75rem;overflow-x:auto;font-size:.9rem}
#claims-msg.error{color:var(--danger)}
@media (max-width:40rem){main{padding:.75rem}dl.fields{grid-template-columns:1fr}dl.fields dd{margin-bottom:.4rem}.logout{margin-left:0}}
`;

const JS = `"use strict";
// Checks the claims editor as the operator types: a JSON object, or the save button stays off.
// The server validates again (names, reserved claims, size) whatever this says.
for (const area of document.querySelectorAll("textarea[data-json-object]")) {
  const form = area.form;
  const button = form.querySelector("button[type=submit]");
  const msg = document.getElementById(area.getAttribute("aria-describedby"));
  const check = () => {
    let problem = "";
    try {
      const v = JSON.parse(area.value);
      if (typeof v !== "object" || v === null || Array.isArray(v)) problem = "The claims must be a JSON object.";
    } catch (e) {
      problem = "Not valid JSON: " + e.message;
    }
    button.disabled = problem !== "";
    area.setAttribute("aria-invalid", problem === "" ? "false" : "true");
    msg.textContent = problem === "" ? "Valid JSON object." : problem;
    msg.className = problem === "" ? "hint" : "hint error";
    return problem === "";
  };
  area.addEventListener("input", check);
  form.addEventListener("submit", (e) => { if (!check()) e.preventDefault(); });
  check();
}
`;

// Declared by every page, so the browser never asks the listener for /favicon.ico: that request
// would carry no credential and count as a failed operator authentication toward the lockout.
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">` +
  `<rect width="16" height="16" rx="3" fill="#0969da"/>` +
  `<path d="M4 5h8M8 5v7" stroke="#fff" stroke-width="2" fill="none"/></svg>`;

/** The assets by path under `/admin/assets/`. */
export const CONSOLE_ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["console.css", { contentType: "text/css; charset=utf-8", body: CSS }],
  ["console.js", { contentType: "text/javascript; charset=utf-8", body: JS }],
  ["icon.svg", { contentType: "image/svg+xml", body: ICON }],
]);
