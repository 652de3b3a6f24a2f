/**
 * Where commands write: human lines, machine-readable JSON, warnings, with colour only on a
 * terminal (never with `NO_COLOR`, `--plain` or `--json`).
 *
 * @module
 */

/** How output is rendered. */
export type OutputMode = "tty" | "plain" | "json";

/** Wraps text in a style when colour is on, returns it unchanged otherwise. */
export type Paint = (text: string) => string;

/** The writer every command gets as `ctx.out`. */
export interface Output {
  /** `json` with `--json`; `tty` on a terminal; `plain` when piped or with `--plain`. */
  readonly mode: OutputMode;
  /** Whether ANSI colour is used. */
  readonly color: boolean;
  /** A human-readable line on stdout (on stderr in `json` mode, keeping stdout pure JSON). */
  line(text?: string): void;
  /** A progress/step line; shown on a terminal or with `--plain`, dropped in `json` mode. */
  step(text: string): void;
  /** A value as pretty JSON on stdout. */
  data(value: unknown): void;
  /** A warning on stderr. */
  warn(text: string): void;
  /** An error line on stderr (used by the CLI runner). */
  error(text: string): void;
  /**
   * Redraws one transient status line (a progress bar) on stderr, in place. Only on a colour
   * terminal: piped, `--plain`, `--json` and `NO_COLOR` output get no escape codes, so this
   * does nothing there. `progress("")` clears the line (call it before printing anything else).
   */
  progress(text: string): void;
  /** Styles; identity functions when colour is off. */
  readonly paint: {
    readonly bold: Paint;
    readonly dim: Paint;
    readonly red: Paint;
    readonly green: Paint;
    readonly yellow: Paint;
    readonly cyan: Paint;
  };
}

/** What {@linkcode createOutput} needs. */
export interface OutputOptions {
  /** Writes text to standard output (text includes its newline). */
  stdout: (text: string) => void;
  /** Writes text to standard error (text includes its newline). */
  stderr: (text: string) => void;
  /** Whether standard output is a terminal. */
  isTty: boolean;
  /** `NO_COLOR` is set (any non-empty value, per no-color.org). */
  noColor: boolean;
  json: boolean;
  plain: boolean;
}

/**
 * Builds the output writer for one CLI run.
 *
 * @param options streams, terminal detection and the `--json`/`--plain` flags
 * @returns the writer
 */
export function createOutput(options: OutputOptions): Output {
  const mode: OutputMode = options.json
    ? "json"
    : options.plain || !options.isTty
    ? "plain"
    : "tty";
  const color = mode === "tty" && !options.noColor;
  const style = (open: number, close: number): Paint => (text) =>
    color ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  const paint = {
    bold: style(1, 22),
    dim: style(2, 22),
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
  };
  return {
    mode,
    color,
    paint,
    line: (text = "") => (mode === "json" ? options.stderr : options.stdout)(text + "\n"),
    step: (text) => {
      if (mode !== "json") options.stderr(`${paint.cyan("›")} ${text}\n`);
    },
    data: (value) => options.stdout(JSON.stringify(value, null, 2) + "\n"),
    warn: (text) => options.stderr(`${paint.yellow("warning:")} ${text}\n`),
    error: (text) => options.stderr(text + "\n"),
    progress: (text) => {
      // \r returns to column 0, ESC[2K erases the line: the bar redraws instead of scrolling.
      if (color) options.stderr(`\r\x1b[2K${text}`);
    },
  };
}
