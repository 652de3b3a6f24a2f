/**
 * The dashboard page and every script and style it loads, served by the CLI itself: nothing
 * comes from a CDN. uPlot (npm `uplot`, pinned in the lockfile) draws the time series; the
 * page's own script and style are files beside this one, imported as text at build time.
 *
 * @module
 */
import uplotScript from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotStyle from "uplot/dist/uPlot.min.css" with { type: "text" };
import pageHtml from "./page/index.html" with { type: "text" };
import pageScript from "./page/dashboard.js" with { type: "text" };
import pageStyle from "./page/dashboard.css" with { type: "text" };

/** One served file. */
export interface PageAsset {
  /** Its Content-Type. */
  readonly type: string;
  /** Its text. */
  readonly body: string;
}

/** The page's files by path. */
export const PAGE_ASSETS: Readonly<Record<string, PageAsset>> = {
  "/": { type: "text/html; charset=utf-8", body: pageHtml },
  "/assets/dashboard.js": { type: "text/javascript; charset=utf-8", body: pageScript },
  "/assets/dashboard.css": { type: "text/css; charset=utf-8", body: pageStyle },
  "/assets/uplot.min.js": { type: "text/javascript; charset=utf-8", body: uplotScript },
  "/assets/uplot.min.css": { type: "text/css; charset=utf-8", body: uplotStyle },
};
