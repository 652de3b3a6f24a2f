/**
 * A minimal second plugin for the tests (`@org/deploy-greeter`): its own config key, schema
 * (with a derived default) and error code, built only on `@org/deploy/plugin`, as a plugin
 * package would be. The core has no line about it.
 *
 * @module
 */
import { DeployError, type DeployPlugin, type ObjectField, pluginErrorCodes } from "./mod.ts";

/** The greeter's error codes. */
export const GREETER_ERROR_CODES = pluginErrorCodes({ refused: "greeting_refused" });

/** The greeter's resolved section. */
export interface GreeterConfig {
  greeting: string;
  audience: string;
}

const GREETER_SCHEMA: ObjectField = {
  kind: "object",
  optional: true,
  description: "Greeter plugin settings.",
  fields: {
    greeting: {
      kind: "string",
      default: "hello",
      pattern: { regex: "^[a-z ]+$", rule: "be lowercase letters and spaces" },
      description: "What it says.",
    },
    audience: {
      kind: "string",
      derivedDefault: "<siteName> in <env>",
      description: "Whom it greets.",
    },
  },
};

/** The plugin. */
const greeter: DeployPlugin<GreeterConfig> = {
  namespace: "greeter",
  summary: "greets the site",
  configKey: "greeter",
  schema: GREETER_SCHEMA,
  names: { audience: "audience" },
  errorCodes: Object.values(GREETER_ERROR_CODES),
  commands: [{
    name: "hello",
    summary: "greet, or refuse to",
    takesEnv: true,
    run(ctx, config) {
      if (config.greeting === "no") {
        throw new DeployError(GREETER_ERROR_CODES.refused, "the greeter will not greet", {
          hint: "set greeter.greeting to something friendlier",
        });
      }
      ctx.out.line(`${config.greeting}, ${config.audience}`);
      return Promise.resolve(0);
    },
  }],
  nodes: [],
};

export default greeter;
