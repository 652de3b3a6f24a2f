/**
 * A small npm site for build-cache tests: one dependency that is a folder of its own (`dep`,
 * installed offline as a link, so no registry is asked), a lockfile, and the build script the
 * test gives. `npm ci` and `npm install` both work on it without a network.
 *
 * @module
 */

/** What differs between the tests' npm sites. */
export interface NpmSiteOptions {
  /** The `build` script (a `node -e …` line that writes `dist/`). */
  readonly build: string;
  /** A `preinstall` script, if any. */
  readonly preinstall?: string;
  /** What `require("dep")` returns (default `"dep"`). */
  readonly depValue?: string;
}

/**
 * The files of such a site, by path, for a fixture writer.
 *
 * @param options the build script, an optional preinstall script and the dependency's value
 * @returns `package.json`, `package-lock.json` and the dependency's two files
 *
 * @example
 * ```ts
 * const files = npmSiteFiles({ build: "node -e \"\"" });
 * console.assert("package-lock.json" in files);
 * ```
 */
export function npmSiteFiles(options: NpmSiteOptions): Record<string, string> {
  const deps = { dep: "file:./vendor/dep" };
  return {
    "package.json": JSON.stringify({
      name: "t",
      version: "1.0.0",
      private: true,
      scripts: {
        build: options.build,
        ...(options.preinstall ? { preinstall: options.preinstall } : {}),
      },
      dependencies: deps,
    }),
    "package-lock.json": JSON.stringify({
      name: "t",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": { name: "t", version: "1.0.0", dependencies: deps },
        "node_modules/dep": { resolved: "vendor/dep", link: true },
        "vendor/dep": { version: "1.0.0" },
      },
    }),
    "vendor/dep/package.json": '{"name":"dep","version":"1.0.0","main":"index.js"}',
    "vendor/dep/index.js": `module.exports = ${JSON.stringify(options.depValue ?? "dep")};`,
  };
}
