/**
 * HTML built by a tagged template that escapes every interpolated value unless it is already
 * {@linkcode Html}: the console's pages show data users and providers chose (names, emails,
 * metadata), so nothing reaches the page unescaped by accident.
 *
 * @module
 */

/** Markup that is safe as is (built by {@linkcode html}). */
export class Html {
  /** @param text the markup */
  constructor(readonly text: string) {}
  /** The markup. */
  toString(): string {
    return this.text;
  }
}

/** What may be interpolated: text (escaped), markup, lists of either, or nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/**
 * Escapes `&`, `<`, `>`, `"` and `'`, so text is safe in element content and quoted attributes.
 *
 * @param text any text
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Builds markup: strings and numbers are escaped, {@linkcode Html} is kept, arrays are
 * joined, `null`/`undefined`/`false` render nothing.
 *
 * @example
 * ```ts
 * const user = { email: "eve<script>@example.com" };
 * html`<td>${user.email}</td>`; // "<td>eve&#60;script&#62;…</td>" for a hostile email
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

function render(v: HtmlValue): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join("");
  if (v === null || v === undefined || v === false) return "";
  return escapeHtml(String(v));
}
