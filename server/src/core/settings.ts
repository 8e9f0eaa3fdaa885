import type { z } from 'zod';

/**
 * Reads settings from the environment with `schema`; a bad one stops the process with a message
 * naming every wrong setting (never its value: keys and passwords must not reach a log). An empty
 * setting counts as unset.
 */
export function parseSettings<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  // An empty value is an unset one (docker compose's `${NAME:-}` passes empty strings).
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(set);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
}
