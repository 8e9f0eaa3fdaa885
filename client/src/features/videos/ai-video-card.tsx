import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import { AI_VIDEO_MATCH_PERCENTAGE, VIDEO_POLLING, VIDEO_PROGRESS, VIDEO_TEXTS } from '@shared/schemas/videos';
import { INTRO_TAGLINE_LABELS, introTagline } from '@shared/videos';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Check, Clapperboard, EyeOff, Play, RotateCw, Sparkles, X } from 'lucide-react';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Spinner } from '@/components/ui/spinner';
import { VideoPlayer } from '@/components/video-player';
import { libraryQuery } from '@/features/podcasts';
import { apiFetch, endpointUrl, errorMessage, isApiError } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { toast } from '@/lib/toast';
import { type SettledState, useVideoProject, videoServiceStatusQuery } from './video-project';

const TEXTS = VIDEO_TEXTS.setup;

/** The card's badge states (SPEC section 2, "AI video card"). */
export const AI_VIDEO_BADGES = {
  idle: 'Ready to Generate',
  processing: 'Processing',
  ready: 'Video Ready',
  failed: 'Failed',
} as const;

interface AiVideoCardProps {
  userId: number;
  intent: Intent;
  /** The person uploaded a profile photo (a generated portrait does not count). */
  hasPhoto: boolean;
  /** The tagline of the intent being set up (the wizard's draft), and the generic one. */
  intentTagline: string | null;
  genericTagline: string | null;
  className?: string;
}

/** Before the project exists: checking the service (10 %), then asking for the video (25 %). */
type StartStage = 'preparing' | 'submitting' | null;

function ChecklistItem({ ok, children }: { ok: boolean; children: ReactNode }) {
  const Icon = ok ? Check : X;
  return (
    <li className="flex min-w-0 items-start gap-2 text-sm text-zinc-200">
      <Icon aria-hidden="true" className={cn('mt-0.5 size-4 shrink-0', ok ? 'text-emerald-300' : 'text-red-300')} />
      <span className="min-w-0 break-words">{children}</span>
    </li>
  );
}

/**
 * The setup wizard's AI video card (SPEC section 2; setup reading of sections 4 and 8): idle, preparing
 * 10, submitting 25, processing 50 and up (pushed progress, or +3 per poll while the socket is down, up
 * to 90), completed 100 or failed. Changing the intent while neither idle nor completed resets it.
 */
export function AiVideoCard({ userId, intent, hasPhoto, intentTagline, genericTagline, className }: AiVideoCardProps) {
  const queryClient = useQueryClient();
  const podcasts = useQuery({ ...libraryQuery(userId), enabled: userId > 0 });
  const [stage, setStage] = useState<StartStage>(null);
  const [startError, setStartError] = useState<string | null>(null);
  const [viewing, setViewing] = useState(false);
  // A start that the person overtook (a new intent, a new attempt) must not apply its answer.
  const run = useRef(0);

  const onSettled = (settled: SettledState) => {
    if (settled.phase === 'completed') {
      toast({ title: TEXTS.successToast, description: TEXTS.successToastText });
    } else {
      toast({
        variant: 'destructive',
        title: TEXTS.failedToast,
        description: settled.reason === 'timeout' ? TEXTS.timedOut : (settled.message ?? TEXTS.unknownFailure),
      });
    }
  };
  const { state, follow, reset } = useVideoProject({ userId, reading: VIDEO_POLLING.setup, onSettled });

  const fail = (message: string) => {
    setStage(null);
    setStartError(message);
    toast({ variant: 'destructive', title: TEXTS.failedToast, description: message });
  };

  // SPEC: a new intent while neither idle nor completed goes back to idle.
  const shownIntent = useRef(intent);
  useEffect(() => {
    if (shownIntent.current === intent) return;
    shownIntent.current = intent;
    if (state.phase === 'completed') return;
    run.current += 1;
    setStage(null);
    setStartError(null);
    reset();
  }, [intent, state.phase, reset]);

  const visible = (podcasts.data ?? [])
    .filter((entry) => !entry.hidden)
    .sort((a, b) => (b.timesListened ?? 0) - (a.timesListened ?? 0));
  const requirementsMet = podcasts.isSuccess && visible.length > 0;
  // A library that could not be loaded is reported on Generate ('Could not prepare data ...').
  const canStart = requirementsMet || podcasts.isError;
  const tagline = introTagline({
    intentTagline,
    genericTagline,
    podcastNames: visible.map((entry) => entry.podcast.name),
  });

  const generate = async () => {
    const mine = ++run.current;
    setStartError(null);
    reset();
    setStage('preparing');
    let status: { available: boolean; message: string };
    try {
      status = await queryClient.fetchQuery({ ...videoServiceStatusQuery(), staleTime: 0 });
    } catch (error) {
      if (mine === run.current) fail(errorMessage(error, TEXTS.checkFailed));
      return;
    }
    if (mine !== run.current) return;
    if (!status.available) {
      fail(TEXTS.unavailable);
      return;
    }
    if (podcasts.isError) {
      fail(TEXTS.prepareFailed);
      return;
    }
    setStage('submitting');
    let data: unknown;
    try {
      const body = { intent, matchPercentage: AI_VIDEO_MATCH_PERCENTAGE };
      // Raw fetch, not apiRequest: an answer without a projectId has its own text (SPEC section 8).
      data = await apiFetch(endpointUrl(api.generateVideo, { params: { userId }, body }), {
        method: 'POST',
        json: body,
      });
    } catch (error) {
      if (mine !== run.current) return;
      fail(isApiError(error) ? (error.serverMessage ?? TEXTS.startFailed(error.status)) : TEXTS.checkFailed);
      return;
    }
    if (mine !== run.current) return;
    const projectId = (data as { projectId?: unknown } | null)?.projectId;
    if (typeof projectId !== 'string' || !projectId) {
      fail(TEXTS.noProjectId);
      return;
    }
    setStage(null);
    follow(projectId, 'video.render', intent);
  };

  const running = state.phase === 'running' ? state : null;
  const completed = state.phase === 'completed' ? state : null;
  const failedMessage =
    startError ??
    (state.phase === 'failed'
      ? state.reason === 'timeout'
        ? TEXTS.timedOut
        : (state.message ?? TEXTS.unknownFailure)
      : null);

  const busy = stage !== null || running !== null;
  const badge = busy
    ? AI_VIDEO_BADGES.processing
    : completed
      ? AI_VIDEO_BADGES.ready
      : failedMessage
        ? AI_VIDEO_BADGES.failed
        : AI_VIDEO_BADGES.idle;
  const progress =
    stage === 'preparing'
      ? VIDEO_PROGRESS.preparing
      : stage === 'submitting'
        ? VIDEO_PROGRESS.submitting
        : running
          ? Math.max(VIDEO_PROGRESS.processing, running.progress)
          : completed
            ? VIDEO_PROGRESS.completed
            : 0;
  const statusText =
    stage === 'preparing'
      ? 'Checking the video service…'
      : stage === 'submitting'
        ? 'Sending your profile to the video service…'
        : running
          ? 'Creating your video…'
          : completed
            ? TEXTS.successToastText
            : '';

  return (
    <section
      aria-label="AI video intro"
      data-testid="setup-video-slot"
      className={cn('grid min-w-0 gap-4 rounded-2xl border border-white/10 bg-white/[0.03] p-4', className)}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="flex items-center gap-2 text-sm font-semibold text-white">
          <Clapperboard aria-hidden="true" className="size-4 text-intent-soft" />
          AI video intro
        </p>
        <span
          data-testid="ai-video-badge"
          className={cn(
            'rounded-full px-3 py-1 text-xs font-semibold',
            busy
              ? 'bg-intent/25 text-white'
              : completed
                ? 'bg-emerald-400/15 text-emerald-200'
                : failedMessage
                  ? 'bg-red-500/15 text-red-200'
                  : 'bg-white/10 text-zinc-200',
          )}
        >
          {badge}
        </span>
      </div>

      <ProgressBar value={progress} label="AI video progress" />
      <p aria-live="polite" className="min-h-5 text-sm text-zinc-300" data-testid="ai-video-status">
        {statusText}
      </p>

      <div className="grid gap-2">
        <p className="text-sm font-semibold text-white">Profile Data Ready</p>
        <ul className="grid gap-1.5" data-testid="ai-video-checklist">
          <ChecklistItem ok={hasPhoto}>Profile photo: {hasPhoto ? 'added' : 'not added'}</ChecklistItem>
          <ChecklistItem ok={visible.length > 0}>
            {podcasts.isPending
              ? 'Podcasts: loading…'
              : `Podcasts: ${visible.length} ${visible.length === 1 ? 'podcast' : 'podcasts'}`}
          </ChecklistItem>
          <ChecklistItem ok>
            Tagline ({INTRO_TAGLINE_LABELS[tagline.kind]}): {tagline.text}
          </ChecklistItem>
        </ul>
      </div>

      {podcasts.isSuccess && !requirementsMet ? (
        <div
          className="flex gap-2 rounded-2xl border border-amber-400/40 bg-amber-400/10 p-3 text-sm"
          data-testid="ai-video-requirements"
        >
          <AlertTriangle aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-amber-200" />
          <div className="min-w-0">
            <p className="font-semibold text-amber-100">Requirements Not Met</p>
            <p className="text-amber-100/90">
              Add at least one podcast (the Streaming connection step) so the video has something to talk about.
            </p>
          </div>
        </div>
      ) : null}

      {failedMessage ? (
        <p role="alert" className="text-sm break-words text-red-300" data-testid="ai-video-error">
          {failedMessage}
        </p>
      ) : null}

      {completed?.url && viewing ? (
        <VideoPlayer
          src={completed.url}
          autoPlay
          muted={false}
          loop={false}
          controls
          title="Your generated video intro"
          className="aspect-[9/16] max-h-[70vh] w-full rounded-2xl bg-black object-contain"
          data-testid="ai-video-inline"
        />
      ) : null}

      <div className="flex flex-wrap gap-2">
        {completed || failedMessage ? (
          <>
            {completed?.url ? (
              // Plays here, in the card: no new tab with the raw file.
              <Button
                variant="outline"
                aria-expanded={viewing}
                onClick={() => setViewing((open) => !open)}
                data-testid="ai-video-view"
              >
                {viewing ? (
                  <EyeOff aria-hidden="true" className="size-4" />
                ) : (
                  <Play aria-hidden="true" className="size-4" />
                )}
                {viewing ? 'Hide Video' : 'View Video'}
              </Button>
            ) : null}
            <Button variant="outline" onClick={() => void generate()} disabled={!canStart}>
              <RotateCw aria-hidden="true" className="size-4" />
              Regenerate
            </Button>
          </>
        ) : (
          <Button onClick={() => void generate()} disabled={busy || !canStart}>
            {busy ? <Spinner /> : <Sparkles aria-hidden="true" className="size-4" />}
            Generate AI Video
          </Button>
        )}
      </div>
    </section>
  );
}
