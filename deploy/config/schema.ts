/**
 * The deploy configuration's schema: every key, its type, default and rule, in one place.
 * The validator, the published `deploy/config.schema.json` and the docs all come from here.
 *
 * @module
 */
import type { Field, ObjectField, Pattern, StringField } from "./field.ts";
import { MAX_TAG_VALUE, TAG_VALUE_CHARS } from "./names.ts";
import { FIRST_PARTY_SECTIONS } from "./plugin_section.ts";
import {
  HEADER_NAME_REGEX,
  HEADER_VALUE_REGEX,
  MAX_RULE_TEXT,
  MAX_RULES,
  PATH_PATTERN_REGEX,
  PATH_PATTERN_RULE,
  REDIRECT_STATUSES,
  TARGET_REGEX,
} from "./route_rules.ts";

/** `siteName`: a slug used in every derived resource name. */
export const SITE_NAME_PATTERN: Pattern = {
  regex: "^[a-z0-9-]+$",
  rule: "match ^[a-z0-9-]+$ (lowercase letters, digits and dashes)",
};

/** Paths inside the repository: no leading `/`, no `..` segment. */
export const REPO_RELATIVE_PATTERN: Pattern = {
  regex: "^(?![/\\\\])(?!(.*[/\\\\])?\\.\\.([/\\\\]|$)).+$",
  rule: "be a repo-relative path (no leading /, no .. segment)",
};

/** The `app` tag value: what AWS accepts in a tag value. */
export const APP_TAG_PATTERN: Pattern = {
  regex: `^[${TAG_VALUE_CHARS}]{1,${MAX_TAG_VALUE}}$`,
  rule: `be at most ${MAX_TAG_VALUE} letters, digits, spaces or _ . : / = + - @ (an AWS tag value)`,
};

/** `paths.dist` may not be the repository root: the whole repository would be published. */
export const REPO_ROOT_PATTERN: Pattern = {
  regex: "^(?:\\.(?:/+|$))+$",
  rule: "not be the repository root (it would publish the whole repository, config included)",
};

/** Secret names: the characters AWS Secrets Manager accepts. */
export const SECRET_NAME_PATTERN: Pattern = {
  regex: "^[\\w/+=.@-]+$",
  rule: "use only the characters A-Z a-z 0-9 _ / + = . @ -",
};

/** A name a build step reads from its environment (`build.env`, `build.secrets` keys). */
export const BUILD_ENV_NAME_PATTERN: Pattern = {
  regex: "^[A-Za-z_][A-Za-z0-9_]*$",
  rule: "be an environment variable name (letters, digits and _, not starting with a digit)",
};

/** `previews.password`: a Secrets Manager secret's name, or `${VAR}` naming an environment variable. */
export const PREVIEW_PASSWORD_PATTERN: Pattern = {
  regex: "^(?:[\\w/+=.@-]{1,512}|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})$",
  rule: "be a Secrets Manager secret name (A-Z a-z 0-9 _ / + = . @ -) or ${VAR}",
};

/** Default `pds.handleResolver`: a public resolver that answers `resolveHandle`. */
export const DEFAULT_HANDLE_RESOLVER = "https://public.api.bsky.app";

/** Default `pds.appview`: Bluesky's public AppView, which answers `getPostThread`. */
export const DEFAULT_APPVIEW = "https://public.api.bsky.app";

/** Default `pds.announce.template`. */
export const DEFAULT_ANNOUNCE_TEMPLATE = "{title}\n\n{description}\n\n{url}";

/** Bluesky's limit on a post's text (`app.bsky.feed.post` `text.maxGraphemes`). */
export const POST_MAX_GRAPHEMES = 300;

const repoPath = (description: string, fallback: string): StringField => ({
  kind: "string",
  description,
  default: fallback,
  nonBlank: true,
  pattern: REPO_RELATIVE_PATTERN,
});

/** One `redirects` item (also checks each `_redirects` rule). */
export const REDIRECT_RULE_FIELD: ObjectField = {
  kind: "object",
  description: "One rule.",
  required: ["from", "to"],
  fields: {
    from: {
      kind: "string",
      pattern: { regex: PATH_PATTERN_REGEX, rule: PATH_PATTERN_RULE },
      maxLength: MAX_RULE_TEXT,
      description: "Path matched; :name captures a segment, a trailing * the rest.",
    },
    to: {
      kind: "string",
      pattern: {
        regex: TARGET_REGEX,
        rule: "be a path or an http(s) URL without spaces or control characters",
      },
      maxLength: MAX_RULE_TEXT,
      description: "Target path or URL; may use the :name and :splat that from captures.",
    },
    status: {
      kind: "number",
      oneOf: REDIRECT_STATUSES,
      default: 301,
      description: "301/302/307/308 redirect, 200 rewrite (URL unchanged), 404 not-found.",
    },
    force: {
      kind: "boolean",
      default: false,
      description: "Apply the rule even when a file exists at from.",
    },
  },
};

/** One `headers` item (also checks each `_headers` rule). */
export const HEADER_RULE_FIELD: ObjectField = {
  kind: "object",
  description: "Headers for one path pattern.",
  required: ["for", "values"],
  fields: {
    for: {
      kind: "string",
      pattern: { regex: PATH_PATTERN_REGEX, rule: PATH_PATTERN_RULE },
      maxLength: MAX_RULE_TEXT,
      description: "Path pattern; :name matches a segment, a trailing * the rest.",
    },
    values: {
      kind: "map",
      description: "Header names to values.",
      keys: {
        kind: "string",
        description: "A header name.",
        pattern: { regex: HEADER_NAME_REGEX, rule: "be an HTTP header name (a token)" },
      },
      values: {
        kind: "string",
        description: "The header value.",
        pattern: { regex: HEADER_VALUE_REGEX, rule: "contain no control characters" },
        maxLength: MAX_RULE_TEXT,
      },
    },
  },
};

/** The `pds` section: publishing to an AT Protocol PDS. Checked when a `pds` command runs. */
export const PDS_SCHEMA: ObjectField = {
  kind: "object",
  optional: true,
  description:
    "Publishing to a decentralized publishing protocol (AT Protocol); absent means publishing is inert.",
  required: ["name"],
  fields: {
    name: { kind: "string", nonBlank: true, description: "Publication display name." },
    description: { kind: "string", description: "Publication description." },
    handleResolver: {
      kind: "string",
      default: DEFAULT_HANDLE_RESOLVER,
      httpsUrl: true,
      description: "https: URL used by login to turn a handle into a DID; unused with a bare DID.",
    },
    secretName: {
      kind: "string",
      pattern: SECRET_NAME_PATTERN,
      derivedDefault: "<siteName>/atproto",
      description: "Name of the secret holding the OAuth client key and session.",
    },
    announce: {
      kind: "object",
      description: "Announcing each new post on Bluesky when sync creates its record.",
      fields: {
        enabled: {
          kind: "boolean",
          default: false,
          description: "Create an app.bsky.feed.post with a link card for each new post.",
        },
        template: {
          kind: "string",
          default: DEFAULT_ANNOUNCE_TEMPLATE,
          nonBlank: true,
          maxGraphemes: POST_MAX_GRAPHEMES,
          notPattern: {
            regex: "\\{(?!(?:title|description|url)\\})[^}]*\\}",
            rule: "use only the placeholders {title}, {description} and {url}",
          },
          description:
            "Post text; {title}, {description} and {url} are replaced, then the text is cut to 300 graphemes (description first, never the URL).",
        },
      },
    },
    comments: {
      kind: "boolean",
      default: false,
      description:
        "Production deploys also refresh paths.commentsJson from the announcements' Bluesky replies (warnings only).",
    },
    appview: {
      kind: "string",
      default: DEFAULT_APPVIEW,
      httpsUrl: true,
      loopbackHttp: true,
      description:
        "https: URL of the AppView that answers app.bsky.feed.getPostThread (plain http only on loopback).",
    },
  },
};

/** The whole site configuration file (`config/<env>.jsonc` or `ops.config.jsonc`). */
export const SITE_SCHEMA: ObjectField = {
  kind: "object",
  description: "Deploy configuration for one environment of a static site.",
  required: ["siteName"],
  fields: {
    siteName: {
      kind: "string",
      pattern: SITE_NAME_PATTERN,
      description:
        "Slug used in every derived resource name; the bucket is <env>-<siteName>-<accountId> (at most 63 characters).",
    },
    region: {
      kind: "string",
      default: "us-east-1",
      nonBlank: true,
      description:
        "Primary region for object storage, builder and logs (certificates and CDN resources are always in us-east-1).",
    },
    domain: {
      kind: "string",
      nonBlank: true,
      pattern: {
        regex: "^[^\\s/:]+$",
        rule: "be a host name like example.com (no scheme, port or path)",
      },
      description:
        "Custom domain; when set, bootstrap requests a certificate. --domain overrides it.",
    },
    app: {
      kind: "string",
      nonBlank: true,
      pattern: APP_TAG_PATTERN,
      derivedDefault:
        "domain, else the repository directory name (characters AWS rejects in a tag become -)",
      description: "Value of the app tag on every created resource and site file.",
    },
    githubRepo: {
      kind: "string",
      pattern: { regex: "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", rule: "be owner/repo" },
      description:
        "GitHub owner/repo trusted by the deploy roles <env>-<siteName>-gh and preview-<siteName>-gh.",
    },
    build: {
      kind: "object",
      description: "Where the site is built, and what its install and build steps see.",
      fields: {
        builder: {
          kind: "enum",
          values: ["microvm", "local"],
          default: "microvm",
          description:
            "microvm: in a Lambda MicroVM (bootstrap creates its image, role and log group); local: on the machine that runs deploy (no MicroVM resources); --builder overrides it per run.",
        },
        env: {
          kind: "map",
          description:
            "Plain environment variables for install and build; ${VAR} is read from the deploying machine's environment at deploy time.",
          keys: {
            kind: "string",
            description: "The variable's name.",
            pattern: BUILD_ENV_NAME_PATTERN,
          },
          values: {
            kind: "string",
            description: "Its value; ${VAR} placeholders are filled from the deploying machine.",
            maxLength: 32_768,
          },
        },
        secrets: {
          kind: "map",
          description:
            "Variables whose values are Secrets Manager secrets, read by the builder at build time, never stored or logged, masked in the build's output.",
          keys: {
            kind: "string",
            description: "The variable's name.",
            pattern: BUILD_ENV_NAME_PATTERN,
          },
          values: {
            kind: "string",
            description: "The secret's name in the site's region.",
            pattern: SECRET_NAME_PATTERN,
            minLength: 1,
            maxLength: 512,
          },
        },
      },
    },
    microvm: {
      kind: "object",
      description: "The MicroVM builder.",
      fields: {
        memory: {
          kind: "number",
          oneOf: [0.5, 1, 2, 4, 8],
          default: 4,
          description: "Builder memory in GB.",
        },
        maxDurationSeconds: {
          kind: "number",
          integer: true,
          minimum: 1,
          maximum: 28800,
          default: 1800,
          description: "Maximum build duration; the tool waits this plus 60 seconds from launch.",
        },
        idle: {
          kind: "object",
          description: "Idle policy passed unchanged to each builder launch.",
          fields: {
            autoResumeEnabled: {
              kind: "boolean",
              default: false,
              description: "Whether a suspended MicroVM may resume automatically.",
            },
            maxIdleDurationSeconds: {
              kind: "number",
              integer: true,
              minimum: 0,
              default: 300,
              description: "Idle time allowed, in seconds.",
            },
            suspendedDurationSeconds: {
              kind: "number",
              integer: true,
              minimum: 0,
              default: 120,
              description: "Time a MicroVM stays suspended, in seconds.",
            },
          },
        },
      },
    },
    retention: {
      kind: "object",
      description: "Retention periods in days.",
      fields: {
        microvmDays: {
          kind: "number",
          integer: true,
          minimum: 1,
          default: 365,
          description: "Retention of the builder log group.",
        },
        cloudfrontDays: {
          kind: "number",
          integer: true,
          minimum: 1,
          default: 90,
          description: "Retention of the CDN access-log group /<siteName>/<env>/cloudfront.",
        },
        previousDays: {
          kind: "number",
          integer: true,
          minimum: 0,
          default: 7,
          description:
            "Days a file the new build no longer has stays live for open tabs (HTML pages, " +
            "robots.txt and sitemap.xml follow the build at once); 0 deletes at once.",
        },
        buildsDays: {
          kind: "number",
          integer: true,
          minimum: 1,
          default: 30,
          description:
            "How long a deployed build stays restorable by `rollback` without rebuilding (its output manifest and content-addressed objects under outputs/).",
        },
      },
    },
    sourceIgnore: {
      kind: "list",
      items: { kind: "string", nonBlank: true, description: "A path prefix." },
      default: [".jj/", ".git/", "node_modules/", "dist/", ".astro/"],
      description: "Path prefixes excluded from the source zip; replaces the default list.",
    },
    sourceInclude: {
      kind: "list",
      items: {
        kind: "string",
        description: "A repo-relative path.",
        nonBlank: true,
        pattern: REPO_RELATIVE_PATTERN,
      },
      default: [],
      description: "Paths zipped even if ignored; each must exist and be non-empty at deploy time.",
    },
    invalidationMaxPaths: {
      kind: "number",
      integer: true,
      minimum: 1,
      default: 1000,
      description: "Above this many changed paths a deploy invalidates /* instead.",
    },
    defaultRootObject: {
      kind: "string",
      default: "index.html",
      nonBlank: true,
      pattern: { regex: "^[^/]", rule: "not start with /" },
      description: "Object served for the bare root.",
    },
    spa: {
      kind: "boolean",
      default: false,
      description:
        "Single-page mode: extension-less paths get the app shell (/index.html) with 200; a missing file with an extension is a 404 (main distribution).",
    },
    redirects: {
      kind: "list",
      default: [],
      maxItems: MAX_RULES,
      description:
        "Redirect and rewrite rules, first match wins; they run before _redirects' rules.",
      items: REDIRECT_RULE_FIELD,
    },
    headers: {
      kind: "list",
      default: [],
      maxItems: MAX_RULES,
      description: "Response headers by path; every matching rule adds its values.",
      items: HEADER_RULE_FIELD,
    },
    previews: {
      kind: "object",
      description: "Pull-request previews (environment preview).",
      fields: {
        password: {
          kind: "string",
          pattern: PREVIEW_PASSWORD_PATTERN,
          redact: true,
          description:
            "HTTP Basic password on every preview: a Secrets Manager secret's name, or ${VAR} for an environment variable; the router keeps only a hash.",
        },
      },
    },
    seo: {
      kind: "object",
      description: "Search-engine policy.",
      fields: {
        robots: {
          kind: "enum",
          values: ["auto", "index", "noindex", "off"],
          default: "auto",
          description:
            "robots.txt policy; auto indexes production only; off leaves the file unmanaged.",
        },
        robotsContent: {
          kind: "string",
          description: "Explicit robots.txt body, published verbatim unless seo.robots is off.",
        },
        sitemap: {
          kind: "enum",
          values: ["auto", "on", "off"],
          default: "auto",
          description: "sitemap.xml from the site's HTML pages; auto is on in production only.",
        },
      },
    },
    paths: {
      kind: "object",
      description: "Site layout, repo-relative.",
      fields: {
        app: repoPath("Directory where install and build run.", "."),
        dist: {
          ...repoPath("Built output directory, relative to the repo root.", "dist"),
          notPattern: REPO_ROOT_PATTERN,
        },
        publicDir: repoPath("Static-asset directory served at the site root.", "public"),
        content: repoPath(
          "Content directory enumerated for posts by publish-sync.",
          "src/content/blog",
        ),
        atprotoJson: repoPath(
          "JSON file the site imports to render document link tags.",
          "src/data/atproto.json",
        ),
        commentsJson: repoPath(
          "JSON file `deploy pds comments` writes: each announced post's Bluesky replies.",
          "src/data/comments.json",
        ),
      },
    },
    pds: { kind: "deferred", schema: PDS_SCHEMA, description: PDS_SCHEMA.description },
    // The first-party plugins' sections, carried unchecked until their commands run.
    ...Object.fromEntries(
      FIRST_PARTY_SECTIONS.map((s): [string, Field] => [
        s.configKey,
        { kind: "deferred", schema: s.schema, description: s.schema.description },
      ]),
    ),
  },
};
