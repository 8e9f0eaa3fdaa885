import { z } from 'zod';
import { INTENTS, LIMITS } from '../constants';
import { IntentSchema } from './common';

/**
 * A video intro project (docs/videos.md): a generated intro (`video.render`) or an uploaded file
 * being transcoded (`media.transcode`). Its id is the `projectId` of SPEC section 3, and also the
 * `jobId` of its 'job:status' events.
 */
export const VIDEO_STATUSES = ['queued', 'preparing', 'submitting', 'processing', 'completed', 'failed'] as const;
export const VideoStatusValueSchema = z.enum(VIDEO_STATUSES);
export type VideoStatusValue = z.infer<typeof VideoStatusValueSchema>;

export const VIDEO_SOURCES = ['generated', 'upload'] as const;
export const VideoSourceSchema = z.enum(VIDEO_SOURCES);
export type VideoSource = z.infer<typeof VideoSourceSchema>;

/** Progress of each stage (SPEC section 9: 10 preparing, 25 submitting, 50 processing, then up to 90, 100 done). */
export const VIDEO_PROGRESS = {
  preparing: 10,
  submitting: 25,
  processing: 50,
  processingMax: 90,
  completed: 100,
} as const;

/** The AI video's match percentage is fixed (SPEC section 9). */
export const AI_VIDEO_MATCH_PERCENTAGE = 95;
/** The AI video uses at most this many non-hidden podcasts, by times listened (SPEC section 9). */
export const AI_VIDEO_PODCASTS = 5;
/** Output of both the renderer and the transcoder: vertical H.264 MP4. */
export const VIDEO_FRAME = { width: 720, height: 1280 } as const;

/** Polling readings of SPEC sections 4 and 9 (only when the socket is not connected). */
export const VIDEO_POLLING = {
  profile: { intervalMs: 5000, maxAttempts: 12, stillWorkingAttempt: 3, troubleAfterAttempts: 3 },
  setup: { intervalMs: 12_000, maxAttempts: 15, progressStep: 3 },
} as const;

/** GET /api/video-status/:projectId (SPEC: status, url, error) plus what the cards show. */
export const VideoProjectSchema = z.object({
  projectId: z.string(),
  intent: IntentSchema,
  source: VideoSourceSchema,
  status: VideoStatusValueSchema,
  progress: z.number().int().min(0).max(100),
  /** The playable MP4 once completed, else null. */
  url: z.string().nullable(),
  posterUrl: z.string().nullable(),
  /** What the user reads when the project failed, else null. */
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type VideoProject = z.infer<typeof VideoProjectSchema>;

export const VideoProjectParamsSchema = z.strictObject({ projectId: z.uuid('Unknown video project.') });

export const GenerateVideoBodySchema = z.strictObject({
  intent: IntentSchema,
  /** Shown in the intro; the AI video's is fixed at 95 (SPEC section 9), which is the default. */
  matchPercentage: z.number().int().min(0).max(100).default(AI_VIDEO_MATCH_PERCENTAGE),
});
export type GenerateVideoBody = z.input<typeof GenerateVideoBodySchema>;

export const VideoProjectAcceptedSchema = z.object({ projectId: z.string() });
export type VideoProjectAccepted = z.infer<typeof VideoProjectAcceptedSchema>;

export const VideoServiceStatusSchema = z.object({ available: z.boolean(), message: z.string() });
export type VideoServiceStatus = z.infer<typeof VideoServiceStatusSchema>;

/** The intent an uploaded video is for (query of the upload). */
export const VideoUploadQuerySchema = z.object({ intent: IntentSchema });

/** One intent's current video of the owner, and the newest project for it (to resume after a reload). */
export const IntentVideoSchema = z.object({
  url: z.string().nullable(),
  posterUrl: z.string().nullable(),
  latest: VideoProjectSchema.nullable(),
});
export type IntentVideo = z.infer<typeof IntentVideoSchema>;

/** GET /api/users/:userId/video-intros: the owner's video per intent. */
export const VideoIntrosResponseSchema = z.object(
  Object.fromEntries(INTENTS.map((intent) => [intent, IntentVideoSchema])) as Record<
    (typeof INTENTS)[number],
    typeof IntentVideoSchema
  >,
);
export type VideoIntrosResponse = z.infer<typeof VideoIntrosResponseSchema>;

/** Texts of SPEC sections 5 and 8 for videos; the server's refusals use the same words. */
export const VIDEO_TEXTS = {
  // Upload (section 5).
  missing: 'Attach the video in the form field "video".',
  tooLarge: 'File size exceeds 50MB limit',
  notAVideo: 'Please select a video file',
  tooLong: 'Video must be 30 seconds or less',
  unreadable: 'This video could not be read: the file is damaged or incomplete.',
  noVideoStream: 'This file has no video picture: please select a video file.',
  // Generation refusals (section 5 / 8).
  profileNotReady: 'User profile not available. Please try again later.',
  serviceUnavailable: 'Video service unavailable',
  serviceReady: 'Video service is ready',
  noWorker: 'Video service unavailable: no video worker is running. Please try again later.',
  redisDown: 'Video service unavailable: the job queue cannot be reached. Please try again later.',
  notFound: 'Unknown video project.',
  rateLimited: 'You have made a lot of videos in the last hour. Please wait a while before making another.',
  // Profile card reading (section 8).
  profile: {
    unavailableTitle: 'AI Video Service Unavailable',
    generationUnavailable: 'Video Generation Unavailable',
    couldNotGenerate: 'Could not generate video',
    timeout: 'Video generation timeout',
    failed: 'Video generation failed',
    troubleChecking: 'Having trouble checking video status',
    stillWorking: 'Still working on your video',
  },
  // Setup card reading (section 8).
  setup: {
    checkFailed: 'Video service is currently unavailable',
    unavailable: 'Video service unavailable',
    startFailed: (status: number) => `Failed to start video generation (${status})`,
    noProjectId: 'No project ID returned from video generation service',
    prepareFailed: 'Could not prepare data for video generation',
    timedOut: 'Video generation timed out. Please try again later.',
    unknownFailure: 'Video generation failed for unknown reasons',
    failedToast: 'Video Generation Failed',
    successToast: 'Video Generated Successfully',
    successToastText: 'Your profile video is ready to view!',
  },
  playbackFailed: 'Failed to load video. Please try again later.',
} as const;

/** Accepted upload size (section 9). */
export const VIDEO_UPLOAD_MAX_BYTES = LIMITS.videoMaxBytes;
