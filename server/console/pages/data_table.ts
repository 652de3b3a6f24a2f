import { type Html, html, type HtmlValue } from "../html.ts";

/** One column of a {@linkcode dataTable}. */
export interface Column {
  /** The header text (`hidden` keeps it for screen readers only). */
  readonly label: string;
  readonly numeric?: boolean;
  readonly hidden?: boolean;
}

/**
 * The console's table: column headers with `scope`, one row per entry (cells as given),
 * `empty` in a full-width row when there is none, wrapped so a wide table scrolls on its own
 * on a phone instead of widening the page.
 *
 * @param columns the headers
 * @param rows the cells of each row, in column order
 * @param empty what to say when there is no row
 * @param caption a caption, if any
 */
export function dataTable(
  columns: readonly Column[],
  rows: readonly (readonly HtmlValue[])[],
  empty: string,
  caption?: string,
): Html {
  const cls = (c: Column | undefined) => (c?.numeric ? "num" : undefined);
  return html`
    <div class="scroll">
      <table>
    ${caption && html`<caption>${caption}</caption>`}
    <thead><tr>${columns.map((c) =>
      html`<th scope="col" class="${cls(c)}">${
        c.hidden ? html`<span class="sr">${c.label}</span>` : c.label
      }</th>`
    )}</tr></thead>
    <tbody>
    ${rows.length === 0
      ? html`
        <tr>
          <td colspan="${columns.length}">${empty}</td>
        </tr>
      `
      : rows.map((cells) =>
        html`<tr>${cells.map((v, i) => html`<td class="${cls(columns[i])}">${v}</td>`)}</tr>`
      )}
    </tbody></table>
    </div>
  `;
}
