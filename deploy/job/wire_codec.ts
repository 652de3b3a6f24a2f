/**
 * The small description language the build job crosses the MicroVM boundary in. One
 * description per field gives the field's TypeScript type ({@linkcode Infer}), its check when a
 * job is read back from JSON ({@linkcode Codec.decode}) and its row in the docs table
 * ({@linkcode describeFields}), so the job in memory, on the wire and in the docs cannot drift
 * apart (as `config/field.ts` does for the configuration).
 *
 * The wire form is the job's own JSON: no renaming, `undefined` leaves the key out.
 *
 * @module
 */

/** A value read back from JSON, checked; `decode` throws {@linkcode WireIssue} when it is not. */
export interface Codec<T> {
  /** The wire type in words (docs table): `string`, `integer ≥ 1`, `{app, dist}`. */
  readonly type: string;
  /** What the field holds (docs table). */
  readonly doc: string;
  /** Absent from the object is allowed (the key is optional in the type). */
  readonly optional?: true;
  /** Absent from the object means `undefined` (the key is required, `T | undefined`). */
  readonly absentIsUndefined?: true;
  /**
   * Checks a parsed JSON value.
   *
   * @param value the value
   * @param path its dotted path, for the issue
   * @returns the value, typed
   * @throws WireIssue when the value does not fit
   */
  decode(value: unknown, path: string): T;
}

/** Why a value does not fit its description: the path and the rule it breaks. */
export class WireIssue extends Error {
  /**
   * @param path dotted path of the value
   * @param rule what it must be, read after "must"
   */
  constructor(readonly path: string, readonly rule: string) {
    super(`${path || "the job"} must ${rule}`);
    this.name = "WireIssue";
  }
}

/** The type a codec decodes to. */
export type TypeOf<C> = C extends Codec<infer T> ? T : never;

/** The fields of an object description. */
export type Fields = Readonly<Record<string, Codec<unknown>>>;

type Flat<T> = { [K in keyof T]: T[K] } & unknown;

/** The object type an object description decodes to (optional fields are optional keys). */
export type Infer<F extends Fields> = Flat<
  & { readonly [K in keyof F as F[K] extends { optional: true } ? never : K]: TypeOf<F[K]> }
  & { readonly [K in keyof F as F[K] extends { optional: true } ? K : never]?: TypeOf<F[K]> }
>;

/** A string; `pattern` (with its rule in words) restricts it. */
export function text(doc: string, pattern?: { regex: RegExp; rule: string }): Codec<string> {
  return {
    type: pattern ? `string (\`${pattern.regex.source}\`)` : "string",
    doc,
    decode(value, path) {
      if (typeof value !== "string") throw new WireIssue(path, "be a string");
      if (pattern && !pattern.regex.test(value)) throw new WireIssue(path, pattern.rule);
      return value;
    },
  };
}

/** An ISO 8601 time, as a string. */
export function instant(doc: string): Codec<string> {
  return {
    type: "string (ISO 8601)",
    doc,
    decode(value, path) {
      if (typeof value !== "string" || !Number.isFinite(Date.parse(value))) {
        throw new WireIssue(path, "be an ISO 8601 time");
      }
      return value;
    },
  };
}

/** A whole number of at least `minimum`. */
export function count(doc: string, minimum: number): Codec<number> {
  return {
    type: `integer ≥ ${minimum}`,
    doc,
    decode(value, path) {
      if (!Number.isInteger(value) || (value as number) < minimum) {
        throw new WireIssue(path, `be an integer of at least ${minimum}`);
      }
      return value as number;
    },
  };
}

/** `true` or `false`. */
export function flag(doc: string): Codec<boolean> {
  return {
    type: "boolean",
    doc,
    decode(value, path) {
      if (typeof value !== "boolean") throw new WireIssue(path, "be true or false");
      return value;
    },
  };
}

/** An object of strings by any key (object tags). */
export function stringMap(doc: string): Codec<Readonly<Record<string, string>>> {
  return {
    type: "{string: string}",
    doc,
    decode(value, path) {
      if (!isObject(value)) throw new WireIssue(path, "be an object");
      for (const [k, v] of Object.entries(value)) {
        if (typeof v !== "string") throw new WireIssue(`${path}.${k}`, "be a string");
      }
      return value as Record<string, string>;
    },
  };
}

/**
 * A value of a type described elsewhere (a config section, a stored manifest), checked by
 * `check` (returns the rule it breaks, or undefined).
 */
export function checked<T>(
  type: string,
  doc: string,
  check: (value: unknown) => string | undefined,
): Codec<T> {
  return {
    type,
    doc,
    decode(value, path) {
      const rule = check(value);
      if (rule !== undefined) throw new WireIssue(path, rule);
      return value as T;
    },
  };
}

/** An object with exactly these fields (unknown keys are refused: both sides are one build). */
export function object<F extends Fields>(doc: string, fields: F): Codec<Infer<F>> & { fields: F } {
  return {
    type: `{${Object.keys(fields).join(", ")}}`,
    doc,
    fields,
    decode(value, path) {
      if (!isObject(value)) throw new WireIssue(path, "be an object");
      const at = (k: string) => path ? `${path}.${k}` : k;
      for (const k of Object.keys(value)) {
        if (!(k in fields)) throw new WireIssue(at(k), "not be there (unknown field)");
      }
      const out: Record<string, unknown> = {};
      for (const [k, codec] of Object.entries(fields)) {
        if (value[k] === undefined) {
          if (codec.absentIsUndefined) out[k] = undefined;
          else if (!codec.optional) throw new WireIssue(at(k), "be present");
          continue;
        }
        out[k] = codec.decode(value[k], at(k));
      }
      return out as Infer<F>;
    },
  };
}

/** The field may be left out (an optional key). */
export function optional<T>(codec: Codec<T>): Codec<T> & { optional: true } {
  return { ...codec, optional: true };
}

/** The key is always there in memory, `undefined` when unknown; on the wire it is left out. */
export function orUndefined<T>(codec: Codec<T>): Codec<T | undefined> {
  return { ...codec, absentIsUndefined: true };
}

/** One of several shapes, tried in order (the first that fits wins). */
export function oneOf<C extends readonly Codec<unknown>[]>(
  doc: string,
  ...codecs: C
): Codec<TypeOf<C[number]>> {
  return {
    type: codecs.map((c) => c.type).join(" | "),
    doc,
    decode(value, path) {
      for (const codec of codecs) {
        try {
          return codec.decode(value, path) as TypeOf<C[number]>;
        } catch (err) {
          if (!(err instanceof WireIssue)) throw err;
        }
      }
      throw new WireIssue(path, `be one of ${codecs.map((c) => c.type).join(", ")}`);
    },
  };
}

/** One row of the docs table: dotted path, wire type, required or not, meaning. */
export interface FieldRow {
  /** Dotted path (`target.bucket`). */
  readonly path: string;
  /** The wire type in words. */
  readonly type: string;
  /** Whether the key must be there. */
  readonly required: boolean;
  /** What it holds. */
  readonly doc: string;
}

/**
 * The rows of an object description, nested objects expanded (pure): the docs table.
 *
 * @param fields the description
 * @param prefix path of the enclosing object
 * @returns one row per field, in description order
 */
export function describeFields(fields: Fields, prefix = ""): FieldRow[] {
  return Object.entries(fields).flatMap(([k, codec]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    const row = {
      path,
      type: codec.type,
      required: !codec.optional && !codec.absentIsUndefined,
      doc: codec.doc,
    };
    const nested = (codec as Partial<{ fields: Fields }>).fields;
    return nested ? [row, ...describeFields(nested, path)] : [row];
  });
}

/**
 * True for a plain JSON object (not null, not an array).
 *
 * @param value any value
 * @returns whether it is one
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
