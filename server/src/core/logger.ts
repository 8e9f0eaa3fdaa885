// Structured logs (docs/operations.md, "Logs"): pino, one JSON object per line in production and a
// readable line in development. Every line names its process and instance, and the request, socket
// event or job it belongs to: those ids live in an AsyncLocalStorage scope opened where the work
// starts (http/request-context.ts, realtime/io.ts, worker/src/worker.ts), so code deep down logs
// them without passing them on. Secrets are taken out before a line is written.
import { AsyncLocalStorage } from 'node:async_hooks';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import pino from 'pino';

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const satisfies readonly Level[];
/** `json`: one object per line (production); `pretty`: a readable line (development, pino-pretty). */
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS = ['json', 'pretty'] as const satisfies readonly LogFormat[];

/**
 * `extra` is an Error (logged as `err`: type, message, stack, cause), a plain object (its fields
 * join the line) or anything else (logged as `data`); secrets in it are redacted.
 */
export interface Logger {
  debug(message: string, extra?: unknown): void;
  info(message: string, extra?: unknown): void;
  warn(message: string, extra?: unknown): void;
  error(message: string, extra?: unknown): void;
}

/** The ids a line carries from the scope it was written in. */
export interface LogFields {
  /** The HTTP request (also its X-Request-Id response header). */
  requestId?: string;
  /** Who is acting, once authenticated (a request's bearer token, a socket's login). */
  userId?: number;
  socketId?: string;
  /** One event received on a socket. */
  eventId?: string;
  event?: string;
  /** BullMQ's id of the job (a video project's id for video jobs) and its name. */
  jobId?: string;
  job?: string;
}

/**
 * This process among every server and worker: its host (a container's id under Docker) and pid.
 * Two starts of one container keep the host name, hence the start time too.
 */
export const INSTANCE = `${os.hostname()}:${process.pid}:${Date.now().toString(36)}`;

type Secrets = () => (string | undefined)[];

interface LogScope {
  fields: LogFields;
  /**
   * Where the exact values that never appear in this scope's lines come from (the request's token,
   * cookies, password): read when a line is written, so a request costs nothing for them when it
   * writes none, and its body counts once parsed.
   */
  secrets: Secrets[];
}

const scopes = new AsyncLocalStorage<LogScope>();

/** Runs `run` in a scope whose lines carry `fields` (added to those of the scope it is in). */
export function withLogFields<T>(fields: LogFields, run: () => T, secrets?: Secrets): T {
  const outer = scopes.getStore();
  const scope: LogScope = { fields: { ...outer?.fields, ...fields }, secrets: [...(outer?.secrets ?? [])] };
  if (secrets) scope.secrets.push(secrets);
  return scopes.run(scope, run);
}

/** Adds fields to the current scope, for the rest of it (the user id once a token is checked). */
export function addLogFields(fields: LogFields): void {
  const scope = scopes.getStore();
  if (scope) Object.assign(scope.fields, fields);
}

/** Values never to be written in the current scope's lines, wherever they turn up (a message, an error). */
export function redactInLogs(...values: (string | undefined)[]): void {
  scopes.getStore()?.secrets.push(() => values);
}

/** `fn`, run later (an event listener), in the scope it was made in, with that scope's later fields. */
export function inLogScope<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const scope = scopes.getStore();
  // Not AsyncLocalStorage.bind: an AsyncResource per request costs more than this.
  return scope ? (...args) => scopes.run(scope, fn, ...args) : fn;
}

/** Shorter values are left to the patterns below: replacing them everywhere would mangle lines. */
const MIN_SECRET_LENGTH = 6;

/**
 * The current scope's secrets as they may appear on a line: as they are, and as JSON writes them
 * once or twice (a password with a quote or a backslash, quoted in an error message that is itself
 * written as JSON); longest first.
 */
function secretsNow(): string[] {
  const scope = scopes.getStore();
  if (!scope || scope.secrets.length === 0) return [];
  const forms = new Set<string>();
  for (const source of scope.secrets) {
    for (const value of source()) {
      if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) continue;
      const once = JSON.stringify(value).slice(1, -1);
      forms.add(value).add(once).add(JSON.stringify(once).slice(1, -1));
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** LOG_FORMAT unset: JSON in production, readable elsewhere; pino-pretty is a development dependency. */
export function logFormatFor(format: LogFormat | undefined, isProduction: boolean): LogFormat {
  if (format === 'pretty' && isProduction) {
    throw new Error(
      'Invalid configuration:\n  LOG_FORMAT: pretty is for development (pino-pretty is a development dependency); production logs are JSON',
    );
  }
  return format ?? (isProduction ? 'json' : 'pretty');
}

export interface LoggerOptions {
  /** Default: LOG_FORMAT, else JSON when NODE_ENV is production (or unset) and readable otherwise. */
  format?: LogFormat;
  /** Where every line goes (tests); default stdout, with warn and error on stderr. */
  destination?: { write(line: string): unknown };
}

export function createLogger(name: string, level: Level = 'info', options: LoggerOptions = {}): Logger {
  if (level === 'silent') return silentLogger;
  const format =
    options.format ??
    logFormatFor(
      LOG_FORMATS.find((f) => f === process.env.LOG_FORMAT),
      (process.env.NODE_ENV ?? 'production') === 'production',
    );
  const line = format === 'pretty' ? prettyLines() : (text: string) => text;
  const stream = options.destination
    ? { write: (text: string) => options.destination?.write(line(text)) }
    : // Errors and warnings apart, as before: a supervisor or a test may watch stderr alone.
      pino.multistream(
        [
          { level: 'debug', stream: outputTo(1, format, line) },
          { level: 'warn', stream: outputTo(2, format, line) },
        ],
        { dedupe: true },
      );
  const log = pino(
    {
      level,
      base: { name, instance: INSTANCE },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Errors are serialized (and redacted) by fieldsOf below, not again by pino.
      serializers: { err: (err: unknown) => err },
      mixin: () => ({ ...scopes.getStore()?.fields }),
      // The last guard, on the finished line: this scope's exact secrets and the known shapes of one.
      hooks: { streamWrite: (text) => scrubText(text, secrets) },
    },
    stream,
  );
  // The current line's secrets: pino writes synchronously, within the call below.
  let secrets: string[] = [];
  const write = (at: Exclude<Level, 'silent'>) => (message: string, extra?: unknown) => {
    if (!log.isLevelEnabled(at)) return;
    // Scrubbed before serializing too: a secret quoted inside a quoted string is escaped twice on the line.
    secrets = secretsNow();
    if (extra === undefined) log[at](scrubText(message, secrets));
    else log[at](fieldsOf(extra, secrets), scrubText(message, secrets));
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** JSON lines straight to the file descriptor (synchronous: nothing lost when the process dies). */
function outputTo(fd: 1 | 2, format: LogFormat, line: (text: string) => string) {
  if (format === 'json') return pino.destination({ dest: fd, sync: true });
  const out = fd === 1 ? process.stdout : process.stderr;
  return { write: (text: string) => out.write(line(text)) };
}

/**
 * pino-pretty's formatter, loaded only here, never in production (it is a development dependency),
 * and used synchronously: a line is printed when it is logged, not later by a transport.
 */
function prettyLines(): (text: string) => string {
  const require = createRequire(import.meta.url);
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  // A request's line says its method, path, status and duration in its message already.
  const ignore = 'instance,method,path,status,durationMs';
  return prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore, singleLine: true });
}

// ---------------------------------------------------------------- redaction

/** Field names whose values are secret wherever they are (headers, bodies, errors, options). */
const SECRET_KEY =
  /authorization|cookie|passw(or)?d|secret|token|credential|api[-_]?key|private[-_]?key|^jwks?$|dpop|code[-_]?verifier|ticket/i;
/** Query parameters and body fields that carry one-time secrets (OAuth codes and states, sign-in tickets). */
const SECRET_PARAM = /^(code|state|ticket|token|access_token|refresh_token|id_token|password|client_secret)$/i;
const SECRET_TEXT: [RegExp, string][] = [
  // An authorization header's value quoted in a message.
  [/\b(Bearer|DPoP)(\s+)[A-Za-z0-9._~+/=-]{6,}/g, '$1$2[redacted]'],
  // A URL's query parameter (also inside JSON, where & may be written \u0026).
  [
    /([?&;]|\\u0026)(code|state|ticket|token|access_token|refresh_token|id_token|password|client_secret)=[^&#\s"'\\]*/gi,
    '$1$2=[redacted]',
  ],
  // key: value / key=value / "key":"value" in text (an error quoting a body or a form).
  [
    /\b([a-z_]*(?:passw(?:or)?d|secret|token)|authorization|cookie)(\\?["']?\s*[:=]\s*\\?["']?)(?!\[redacted\])[^"'\\&\s,;}]+/gi,
    '$1$2[redacted]',
  ],
];
const REDACTED = '[redacted]';
const MAX_DEPTH = 6;
const MAX_KEYS = 50;

/** Text (a line, a message, a field) without the given secrets (secretsNow) and without anything shaped like one. */
export function scrubText(text: string, secrets: string[] = []): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, REDACTED);
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/** What a logged value becomes on the line: `err` for an Error, its fields for a plain object. */
function fieldsOf(extra: unknown, secrets: string[]): Record<string, unknown> {
  if (extra instanceof Error) return { err: scrub(extra, secrets) };
  if (isPlainObject(extra)) {
    const fields = scrub(extra, secrets) as Record<string, unknown>;
    // pino's own keys stay pino's.
    if (['level', 'time', 'msg', 'name', 'instance'].some((key) => key in fields)) return { data: fields };
    return fields;
  }
  return { data: scrub(extra, secrets) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A copy safe to write: secrets replaced, requests reduced to what is not secret, bounded. */
export function scrub(value: unknown, secrets: string[] = [], depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubText(value, secrets);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[…]';
  seen.add(value);
  const inner = (item: unknown) => scrub(item, secrets, depth + 1, seen);
  if (value instanceof Error) return scrub(pino.stdSerializers.errWithCause(value), secrets, depth);
  if (value instanceof IncomingMessage) {
    return { method: value.method, url: scrubText(value.url ?? '', secrets), headers: inner(value.headers) };
  }
  if (value instanceof ServerResponse) return { statusCode: value.statusCode };
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof URL) return scrubText(value.href, secrets);
  if (value instanceof Map) return scrub(Object.fromEntries(value), secrets, depth, seen);
  if (Array.isArray(value) || value instanceof Set) return [...value].slice(0, MAX_KEYS).map(inner);
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (keys++ >= MAX_KEYS) {
      out['…'] = 'more fields';
      break;
    }
    const item = (value as Record<string, unknown>)[key];
    out[key] = SECRET_KEY.test(key) && item !== null && item !== undefined ? REDACTED : inner(item);
  }
  return out;
}

/**
 * The secret values one request brings (its bearer token, cookies, secret query parameters, and
 * secret fields of its body once parsed), to be replaced wherever they turn up in its lines.
 */
export function secretsOf(request: {
  headers?: Record<string, string | string[] | undefined>;
  query?: unknown;
  body?: unknown;
}): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (typeof value !== 'string' || !SECRET_KEY.test(name)) continue;
    found.push(value);
    // The credentials without their scheme (Bearer), and each cookie's value, raw and decoded.
    if (name === 'authorization') found.push(value.replace(/^\S+\s+/, ''));
    if (name === 'cookie') {
      for (const part of value.split(';')) {
        const cookie = part.slice(part.indexOf('=') + 1).trim();
        found.push(cookie);
        try {
          found.push(decodeURIComponent(cookie));
        } catch {
          // not URI-encoded: the raw value is enough
        }
      }
    }
  }
  if (request.query && typeof request.query === 'object') {
    for (const [key, value] of Object.entries(request.query)) {
      if (SECRET_PARAM.test(key) && typeof value === 'string') found.push(value);
    }
  }
  collectSecretFields(request.body, found, 0);
  return found;
}

function collectSecretFields(value: unknown, found: string[], depth: number): void {
  if (value === null || typeof value !== 'object' || depth > 3) return;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' && (SECRET_KEY.test(key) || SECRET_PARAM.test(key))) found.push(item);
    else collectSecretFields(item, found, depth + 1);
  }
}
