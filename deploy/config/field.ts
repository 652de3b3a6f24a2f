/**
 * The small schema language the deploy configuration is written in. One definition per key
 * drives three things: validation with defaults (`check.ts`), the published JSON Schema
 * (`json_schema.ts`) and the reference docs, so they cannot drift apart.
 *
 * @module
 */

/** A regular expression a string must match, and the rule as users read it. */
export interface Pattern {
  /**
   * ECMAScript regular expression source, compiled with the `u` flag (so `\p{L}` works; JSON
   * Schema `pattern` is Unicode-aware too).
   */
  readonly regex: string;
  /** The rule in words, used in error messages: `must ${rule}`. */
  readonly rule: string;
}

interface Described {
  /** One sentence for the JSON Schema `description` and editor hovers. */
  readonly description: string;
  /** When the default is computed from other values, how (documentation only). */
  readonly derivedDefault?: string;
}

/** A string value. */
export interface StringField extends Described {
  readonly kind: "string";
  readonly default?: string;
  /** Rejects `""` and whitespace-only strings. */
  readonly nonBlank?: boolean;
  readonly pattern?: Pattern;
  /** A regular expression the string must NOT match; its `rule` reads after "must". */
  readonly notPattern?: Pattern;
  /** Must parse as a URL with the `https:` scheme. */
  readonly httpsUrl?: boolean;
  /** With `httpsUrl`: plain `http:` is also accepted on a loopback host (tests, development). */
  readonly loopbackHttp?: boolean;
  /** The most user-perceived characters (extended grapheme clusters, `Intl.Segmenter`). */
  readonly maxGraphemes?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /**
   * Errors never quote the value, only its length: the key may hold a password written there
   * by mistake, which must not reach a terminal or a CI log.
   */
  readonly redact?: boolean;
}

/** A number value. */
export interface NumberField extends Described {
  readonly kind: "number";
  readonly default?: number;
  readonly integer?: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  /** The only values allowed. */
  readonly oneOf?: readonly number[];
}

/** A boolean value. */
export interface BooleanField extends Described {
  readonly kind: "boolean";
  readonly default?: boolean;
}

/** One string out of a fixed set. */
export interface EnumField extends Described {
  readonly kind: "enum";
  readonly values: readonly string[];
  readonly default?: string;
}

/** An array of strings or of objects; a user's array replaces the default outright. */
export interface ListField extends Described {
  readonly kind: "list";
  readonly items: StringField | ObjectField;
  readonly default: readonly unknown[];
  /** The most items allowed. */
  readonly maxItems?: number;
}

/** An object whose keys are chosen by the user (header names), every value one kind. */
export interface MapField extends Described {
  readonly kind: "map";
  /** The rule every key follows. */
  readonly keys: StringField;
  readonly values: StringField;
}

/** A nested object; merged key by key with its defaults. Unknown keys are rejected. */
export interface ObjectField extends Described {
  readonly kind: "object";
  readonly fields: Readonly<Record<string, Field>>;
  readonly required?: readonly string[];
  /**
   * When true the object is optional and absent stays absent; when false (the default) an
   * absent object resolves to all its defaults.
   */
  readonly optional?: boolean;
}

/**
 * An optional section validated only when the commands that use it run (`pds`,
 * `analytics`): at load time its value is carried through unchecked, so a broken section
 * never blocks unrelated commands.
 */
export interface DeferredField extends Described {
  readonly kind: "deferred";
  readonly schema: ObjectField;
}

/** Any field definition. */
export type Field =
  | StringField
  | NumberField
  | BooleanField
  | EnumField
  | ListField
  | MapField
  | ObjectField
  | DeferredField;
