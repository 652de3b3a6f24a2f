/**
 * A real headless browser for end-to-end tests of web pages (CORS from a page, the analytics
 * dashboard, an admin console): Debian's `chromium` driven by `playwright-core`. Playwright's
 * own browser download cannot run on our machines, so the browser is the system one at
 * {@linkcode CHROMIUM_PATH}; CI installs it (`.ci/run`). On a machine without it, browser tests
 * are skipped with one printed line naming the package, never silently.
 *
 * @example
 * ```ts
 * if (!chromiumMissing()) {
 *   await using browser = await launchChromium();
 *   const page = await browser.context.newPage();
 *   await page.setContent("<p>signed in</p>");
 * }
 * ```
 *
 * @module
 */
import { statSync } from "node:fs";
import { type BrowserContext, chromium } from "playwright-core";

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Flags for a quiet, self-contained headless run: no sandbox (CI runs as root in a
 * container), no GPU, no QUIC, and nothing that phones home (updates, sync, background
 * fetches), so a test contacts only the loopback addresses it opens.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let reported = false;

/**
 * Whether browser tests must be skipped because {@linkcode CHROMIUM_PATH} is missing; the
 * first call that finds it missing prints one line saying which package to install. Use it as
 * `Deno.test`'s `ignore`.
 *
 * @returns true when Chromium is not installed
 */
export function chromiumMissing(): boolean {
  try {
    statSync(CHROMIUM_PATH);
    return false;
  } catch {
    if (!reported) {
      reported = true;
      // deno-lint-ignore no-console -- the one line that says why browser tests did not run
      console.log(
        `browser tests skipped: ${CHROMIUM_PATH} not found; install Debian's "chromium" package ` +
          "(apt-get install chromium)",
      );
    }
    return true;
  }
}

/** A running headless Chromium with one fresh profile. */
export interface BrowserFixture extends AsyncDisposable {
  /** The browser context (one profile); open pages with `context.newPage()`. */
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Launches {@linkcode CHROMIUM_PATH} headless with {@linkcode CHROMIUM_ARGS} and a fresh
 * profile (`--user-data-dir` in a new temp dir, so no state leaks between tests).
 *
 * @param extraArgs more Chromium flags (a peer's host mapping, the one certificate to trust)
 * @returns the browser; `await using` closes it
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<BrowserFixture> {
  const profile = await Deno.makeTempDir({ prefix: "chromium-profile-" });
  let context: BrowserContext;
  try {
    // Playwright takes the profile directory as this argument (it refuses it among `args`).
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
    });
  } catch (err) {
    await Deno.remove(profile, { recursive: true });
    throw err;
  }
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      try {
        await context.close();
      } finally {
        await Deno.remove(profile, { recursive: true });
      }
    })();
  return { context, close, [Symbol.asyncDispose]: close };
}
