import { z } from 'zod';
import { type JobKey, type JobName, type Jobs, jobs } from './jobs';
import { type JobState, JobStateSchema } from './schemas/jobs';

/**
 * Why a job can fail, per job name, with the text the user reads for each code. The client shows
 * these texts and never parses error messages; a job missing here does not compile.
 */
export const JOB_ERROR_TEXTS = {
  'avatar.generate': {
    unknown: 'Your avatar could not be generated. Please try again.',
  },
  'podcasts.sync': {
    /** Spotify refused the refresh token or the access was revoked: only a new connection helps. */
    spotify_reconnect: 'Spotify access has expired or was revoked. Reconnect Spotify.',
    spotify_unavailable: 'Spotify could not be reached. Please try again later.',
    feed_unreachable:
      'Some feeds could not be read. The podcasts stay in your library; their details may be incomplete.',
    unknown: 'Your podcasts could not be refreshed. Please try again.',
  },
  'matches.recompute': {
    unknown: 'Your matches could not be updated. Please try again later.',
  },
  'video.render': {
    /** The profile has no visible podcast (SPEC section 5). */
    profile_not_ready: 'User profile not available. Please try again later.',
    provider_unavailable: 'Video service unavailable',
    unknown: 'Video generation failed',
  },
  'media.transcode': {
    unreadable: 'This video could not be read: the file is damaged or incomplete.',
    too_long: 'Video must be 30 seconds or less',
    unknown: 'Your video could not be processed. Please try again or choose another file.',
  },
  // Nobody is told about it (no notifyUser): a demo person's answer to a like.
  'demo.likeBack': {
    unknown: 'A demo person could not answer your like.',
  },
  // Nobody is told about it either: a demo person's answer to a message (it arrives as the message).
  'demo.chatReply': {
    unknown: 'A demo person could not answer your message.',
  },
  // Nobody is told about it either: the report retention sweep.
  'reports.expire': {
    unknown: 'Expired reports could not be deleted.',
  },
  // Nobody is told: a push that could not be delivered is the push service's or the device's.
  'push.send': {
    unknown: 'A notification could not be sent.',
  },
} as const satisfies { [N in JobName]: { unknown: string } & Record<string, string> };

/** The failure codes of job `N` (every job has 'unknown'). */
export type JobErrorCode<N extends JobName = JobName> = N extends JobName ? keyof (typeof JOB_ERROR_TEXTS)[N] : never;

/** The shape of every 'job:status' event of job `name`: error codes are the ones of that job. */
function jobStatusSchema<N extends JobName>(name: N) {
  const codes = Object.keys(JOB_ERROR_TEXTS[name]) as [JobErrorCode<N>, ...JobErrorCode<N>[]];
  return z.object({
    jobId: z.string().min(1),
    name: z.literal(name),
    state: JobStateSchema,
    /** Percent done, 0-100. */
    progress: z.number().min(0).max(100),
    /** Only on state 'failed'. `message` is for logs and devtools; users read JOB_ERROR_TEXTS[name][code]. */
    error: z.object({ code: z.enum(codes), message: z.string().max(1000) }).optional(),
  });
}

export type JobStatusSchemas = { [N in JobName]: ReturnType<typeof jobStatusSchema<N>> };

/** One schema per job name, e.g. jobStatusSchemas['podcasts.sync']. */
export const jobStatusSchemas = Object.fromEntries(
  Object.values(jobs).map((job) => [job.name, jobStatusSchema(job.name)]),
) as unknown as JobStatusSchemas;

/** 'job:status': a union discriminated by the job name. */
export const JobStatusEventSchema = z.discriminatedUnion(
  'name',
  Object.values(jobStatusSchemas) as [JobStatusSchemas[JobName], ...JobStatusSchemas[JobName][]],
);

/** A 'job:status' event; `JobStatusEvent<'podcasts.sync'>` is the event of that job only. */
export type JobStatusEvent<N extends JobName = JobName> = Extract<z.output<typeof JobStatusEventSchema>, { name: N }>;

/** Narrows an event to one job: `if (isJobStatus(event, 'podcasts.sync')) event.error?.code`. */
export function isJobStatus<N extends JobName>(event: JobStatusEvent, name: N): event is JobStatusEvent<N> {
  return event.name === name;
}

export function isJobFinished(event: { state: JobState }): boolean {
  return event.state === 'completed' || event.state === 'failed';
}

/**
 * The text to show for a failed job: its code's text ('unknown' when the event has no error).
 * `overrides` replaces the text of some codes, e.g. a screen's own wording for 'unknown'.
 */
export function jobErrorText<N extends JobName>(
  event: JobStatusEvent<N>,
  overrides: Partial<Record<JobErrorCode<N>, string>> = {},
): string {
  const code = (event.error?.code ?? 'unknown') as JobErrorCode<N>;
  const texts = JOB_ERROR_TEXTS[event.name as N] as Record<JobErrorCode<N>, string>;
  return overrides[code] ?? texts[code];
}

/** The text of `code` in the job that has it ('unknown' is in every job, so it has a neutral one). */
function defaultText(code: JobErrorCode): string {
  if (code === 'unknown') return 'The job failed.';
  for (const texts of Object.values(JOB_ERROR_TEXTS) as Record<string, string>[]) {
    const text = texts[code];
    if (text) return text;
  }
  return code;
}

/**
 * Thrown by a job handler to fail with a known code, e.g. `throw new JobError('spotify_reconnect',
 * undefined, { final: true })`. `final`: retrying cannot help (the worker should not retry).
 */
export class JobError extends Error {
  readonly code: JobErrorCode;
  readonly final: boolean;

  constructor(code: JobErrorCode, message?: string, options: { final?: boolean; cause?: unknown } = {}) {
    super(message ?? defaultText(code), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JobError';
    this.code = code;
    this.final = options.final ?? false;
  }
}

/** A JobError, also when wrapped as the `cause` of another error (e.g. BullMQ's UnrecoverableError). */
function findJobError(error: unknown): JobError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof JobError || (e.name === 'JobError' && typeof (e as JobError).code === 'string')) {
      return e as JobError;
    }
  }
  return undefined;
}

/**
 * What a 'failed' event says about a thrown error: the JobError's code when that job has it, else
 * 'unknown'. Only a JobError's own message is passed on; other messages may hold internals.
 */
export function jobFailure<N extends JobName>(name: N, error: unknown): { code: JobErrorCode<N>; message: string } {
  const texts = JOB_ERROR_TEXTS[name] as Record<string, string>;
  const known = findJobError(error);
  if (known && known.code in texts) {
    return { code: known.code as JobErrorCode<N>, message: known.message.slice(0, 1000) };
  }
  return { code: 'unknown' as JobErrorCode<N>, message: texts.unknown ?? 'unknown' };
}

type NameOf<K extends JobKey> = Jobs[K]['name'];

/**
 * The worker's 'job:status' event for job `key`: the name comes from the job definition, a thrown
 * `error` (state 'failed') becomes {code, message} through jobFailure, progress is kept in 0-100.
 */
export function jobStatusEvent<K extends JobKey>(
  key: K,
  status: { jobId: string; state: JobState; progress: number; error?: unknown },
): JobStatusEvent<NameOf<K>> {
  const name = jobs[key].name as NameOf<K>;
  const progress = Math.min(100, Math.max(0, Number.isFinite(status.progress) ? status.progress : 0));
  const error = status.error === undefined ? {} : { error: jobFailure(name, status.error) };
  // The generic name cannot pick its union member; jobFailure(name, ...) keeps code and name together.
  return { jobId: status.jobId, name, state: status.state, progress, ...error } as unknown as JobStatusEvent<NameOf<K>>;
}
