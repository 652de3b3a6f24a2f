/**
 * What the preview commands add to opening the site: the preview stack's configuration rules
 * (`domain` and `githubRepo` required) and where one preview is published.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import type { LoadedSite } from "../config/load.ts";
import type { SiteConfig } from "../config/site_config.ts";
import { DeployError } from "../errors.ts";
import { previewSitePrefix } from "../state/bucket_layout.ts";
import { normalizeDomain, previewObjectTags, previewUrl } from "../config/names.ts";

/**
 * The keys the preview stack needs that other environments may leave out (pure).
 *
 * @param config the resolved configuration (`--domain` applied)
 * @returns one issue per missing key
 */
export function previewConfigIssues(config: SiteConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (config.domain === undefined) {
    issues.push({
      path: "domain",
      message: "required for previews: the preview base domain, e.g. preview.example.com " +
        "(or pass --domain)",
    });
  }
  if (config.githubRepo === undefined) {
    issues.push({
      path: "githubRepo",
      message: "required for previews: preview bootstrap creates the role preview-<siteName>-gh " +
        "trusted by this owner/repo",
    });
  }
  return issues;
}

/**
 * The preview base domain of a loaded site, after checking the keys previews need.
 *
 * @param site the loaded site (environment `preview`)
 * @returns the normalised base domain
 * @throws {DeployError} `config_invalid` naming every missing key
 */
export function requirePreviewConfig(site: Pick<LoadedSite, "config" | "file">): string {
  const issues = previewConfigIssues(site.config);
  if (issues.length > 0) {
    throw new DeployError("config_invalid", `invalid configuration for previews in ${site.file}`, {
      issues,
      hint: "set the keys listed above in config/preview.jsonc (docs/previews.md)",
    });
  }
  return normalizeDomain(site.config.domain!);
}

/** Where one preview is published and how it presents itself. */
export interface PreviewTarget {
  /** `previews/<id>/site/`. */
  readonly prefix: string;
  /** `app` and `environment=preview-<id>`. */
  readonly tags: Readonly<Record<string, string>>;
  /** `https://<id>.<domain>` (the sitemap's origin). */
  readonly origin: string;
}

/**
 * Where preview `id` is published (pure but for the config check).
 *
 * @param site the opened site (environment `preview`)
 * @param id the preview id (already checked)
 * @returns prefix, tags and origin
 * @throws {DeployError} `config_invalid` when `domain` or `githubRepo` is missing
 */
export function previewTarget(site: { readonly site: LoadedSite }, id: string): PreviewTarget {
  const domain = requirePreviewConfig(site.site);
  return {
    prefix: previewSitePrefix(id),
    tags: previewObjectTags(site.site.config.app, id),
    origin: previewUrl(id, domain),
  };
}
