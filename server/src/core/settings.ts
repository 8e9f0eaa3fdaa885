import type { z } from 'zod';

/**
 * Reads settings from the environment with `schema`; a bad one stops the process with a message
 * naming every wrong setting (never its value: keys and passwords must not reach a log).
 */
export function parseSettings<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
}
