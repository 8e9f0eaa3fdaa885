// Which VideoProvider renders generated intros (docs/videos-provider.md): the local ffmpeg renderer,
// or an external AI video service over HTTP. Read from the environment once, at worker start.

import { parseSettings } from '@server/core/settings';
import { z } from 'zod';
import { HttpVideoProvider } from './http-provider';
import { LocalVideoProvider } from './local-renderer';
import type { VideoProvider } from './video-provider';

// An empty value (`VIDEO_PROVIDER_URL=` in a .env file) means unset, not "the empty string".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema);

const EnvSchema = z
  .object({
    VIDEO_PROVIDER: optional(z.enum(['local', 'http']).default('local')),
    VIDEO_PROVIDER_URL: optional(
      z
        .string()
        .trim()
        .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL')
        .optional(),
    ),
    VIDEO_PROVIDER_API_KEY: optional(z.string().trim().optional()),
    VIDEO_PROVIDER_POLL_MS: optional(z.coerce.number().int().min(100).max(60_000).default(2000)),
    VIDEO_PROVIDER_TIMEOUT_SECONDS: optional(z.coerce.number().int().min(10).max(3600).default(300)),
  })
  .superRefine((e, ctx) => {
    if (e.VIDEO_PROVIDER !== 'http') return;
    if (!e.VIDEO_PROVIDER_URL) {
      ctx.addIssue({ code: 'custom', path: ['VIDEO_PROVIDER_URL'], message: 'required when VIDEO_PROVIDER=http' });
    }
    if (!e.VIDEO_PROVIDER_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['VIDEO_PROVIDER_API_KEY'], message: 'required when VIDEO_PROVIDER=http' });
    }
  });

export type VideoProviderConfig =
  | { kind: 'local' }
  | { kind: 'http'; baseUrl: string; apiKey: string; pollMs: number; timeoutMs: number };

export function loadVideoProviderConfig(env: NodeJS.ProcessEnv = process.env): VideoProviderConfig {
  const e = parseSettings(EnvSchema, env);
  if (e.VIDEO_PROVIDER === 'local') return { kind: 'local' };
  return {
    kind: 'http',
    baseUrl: e.VIDEO_PROVIDER_URL!,
    apiKey: e.VIDEO_PROVIDER_API_KEY!,
    pollMs: e.VIDEO_PROVIDER_POLL_MS,
    timeoutMs: e.VIDEO_PROVIDER_TIMEOUT_SECONDS * 1000,
  };
}

export function createVideoProvider(config: VideoProviderConfig): VideoProvider {
  switch (config.kind) {
    case 'local':
      return new LocalVideoProvider();
    case 'http':
      return new HttpVideoProvider({
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        pollMs: config.pollMs,
        timeoutMs: config.timeoutMs,
      });
  }
}
