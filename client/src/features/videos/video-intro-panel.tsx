import * as Tabs from '@radix-ui/react-tabs';
import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import { JOB_ERROR_TEXTS } from '@shared/events';
import { AI_VIDEO_MATCH_PERCENTAGE, VIDEO_POLLING, VIDEO_TEXTS } from '@shared/schemas/videos';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Clapperboard, Sparkles, Upload } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Spinner } from '@/components/ui/spinner';
import { VideoPlayer } from '@/components/video-player';
import { libraryQuery } from '@/features/podcasts';
import { apiRequest, errorMessage, isApiError } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { toast } from '@/lib/toast';
import {
  isUnfinished,
  jobOfSource,
  type SettledState,
  useVideoProject,
  type VideoFollowState,
  videoServiceStatusQuery,
} from './video-project';
import { VideoUploadForm } from './video-upload-form';

type Tab = 'ai' | 'upload';

const TEXTS = VIDEO_TEXTS.profile;
/** A new project's bar starts empty and follows the worker's stages (10, 25, 50..90). */
const QUEUED = { status: 'queued', progress: 0 } as const;

interface Notice {
  title: string;
  description: string;
}

/** What the AI tab says while a generated video is on its way (profile reading, SPEC section 8). */
function generatingText(state: Extract<VideoFollowState, { phase: 'running' }>): string {
  if (state.failedAttempts > VIDEO_POLLING.profile.troubleAfterAttempts) return TEXTS.troubleChecking;
  if (state.attempts >= VIDEO_POLLING.profile.stillWorkingAttempt) return TEXTS.stillWorking;
  switch (state.status) {
    case 'queued':
      return 'Waiting for a free video worker…';
    case 'preparing':
      return 'Gathering your profile and podcasts…';
    case 'submitting':
      return 'Writing your intro…';
    default:
      return 'Rendering your video…';
  }
}

/**
 * The own profile's video intro (SPEC section 2): the intent's current video, and two tabs, 'AI video'
 * (generate one from the profile) and 'Upload'. Any AI failure selects the Upload tab.
 */
export function VideoIntroPanel({ userId, intent }: { userId: number; intent: Intent }) {
  const queryClient = useQueryClient();
  const [tab, setTab] = useState<Tab>('ai');
  const [aiNotice, setAiNotice] = useState<Notice | null>(null);
  const [uploadNotice, setUploadNotice] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const service = useQuery({ ...videoServiceStatusQuery(), enabled: userId > 0 });
  const podcasts = useQuery({ ...libraryQuery(userId), enabled: userId > 0 });

  const failAi = (notice: Notice) => {
    setAiNotice(notice);
    toast({ variant: 'destructive', ...notice });
    setTab('upload');
  };

  const onSettled = (settled: SettledState) => {
    if (settled.job === 'video.render') {
      if (settled.phase === 'completed') {
        toast({ title: VIDEO_TEXTS.setup.successToast, description: VIDEO_TEXTS.setup.successToastText });
      } else if (settled.reason === 'timeout') {
        failAi({ title: TEXTS.timeout, description: 'You can upload a video of your own instead.' });
      } else {
        failAi({ title: TEXTS.failed, description: settled.message ?? JOB_ERROR_TEXTS['video.render'].unknown });
      }
      return;
    }
    if (settled.phase === 'completed') {
      toast({ title: 'Video intro saved', description: 'Your new video is on your profile.' });
    } else {
      const message =
        settled.reason === 'timeout'
          ? 'Your video is taking longer than expected. Please check back later.'
          : (settled.message ?? JOB_ERROR_TEXTS['media.transcode'].unknown);
      setUploadNotice(message);
      toast({ variant: 'destructive', title: 'Video processing failed', description: message });
    }
  };

  const { state, follow, reset, intros } = useVideoProject({
    userId,
    reading: VIDEO_POLLING.profile,
    onSettled,
  });

  // Another intent in view: stop following the old one, and resume this one's unfinished project
  // (after a reload too), on the tab it belongs to.
  const latest = intros?.[intent]?.latest;
  useEffect(() => {
    if (state.phase !== 'idle' && state.intent === intent) return;
    if (isUnfinished(latest)) {
      follow(latest.projectId, jobOfSource(latest.source), intent, latest);
      setTab(latest.source === 'generated' ? 'ai' : 'upload');
    } else if (state.phase !== 'idle') {
      reset();
    }
  }, [intent, latest, state, follow, reset]);

  // Notices belong to the intent they were about (reset while rendering, React's pattern for props).
  const [noticeIntent, setNoticeIntent] = useState(intent);
  if (noticeIntent !== intent) {
    setNoticeIntent(intent);
    setAiNotice(null);
    setUploadNotice(null);
  }

  const mine = state.phase !== 'idle' && state.intent === intent ? state : null;
  const rendering = mine?.phase === 'running' && mine.job === 'video.render' ? mine : null;
  const transcoding = mine?.phase === 'running' && mine.job === 'media.transcode' ? mine : null;
  const entry = intros?.[intent];
  // A polled completion has the url at once; a pushed one gets it from the refreshed video list.
  const done = mine?.phase === 'completed' && mine.url ? mine : null;
  const videoUrl = done?.url ?? entry?.url ?? null;
  const posterUrl = (done ? done.posterUrl : entry?.posterUrl) ?? undefined;

  const hasVisiblePodcast = podcasts.data?.some((p) => !p.hidden) ?? false;
  const profileReady = podcasts.isSuccess && hasVisiblePodcast;
  const serviceDown = service.data?.available === false || service.isError;
  const busy = starting || Boolean(mine?.phase === 'running');

  const generate = async () => {
    setAiNotice(null);
    setStarting(true);
    try {
      let available: boolean;
      let message: string;
      try {
        ({ available, message } = await queryClient.fetchQuery({ ...videoServiceStatusQuery(), staleTime: 0 }));
      } catch (error) {
        available = false;
        message = errorMessage(error, VIDEO_TEXTS.serviceUnavailable);
      }
      if (!available) {
        failAi({ title: TEXTS.unavailableTitle, description: message });
        return;
      }
      const { projectId } = await apiRequest(api.generateVideo, {
        params: { userId },
        body: { intent, matchPercentage: AI_VIDEO_MATCH_PERCENTAGE },
      });
      follow(projectId, 'video.render', intent, QUEUED);
    } catch (error) {
      failAi({
        title: isApiError(error, 503) ? TEXTS.generationUnavailable : TEXTS.couldNotGenerate,
        description: errorMessage(error, 'Please try again, or upload a video of your own.'),
      });
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="grid gap-4" data-testid="video-intro-panel">
      <div className="overflow-hidden rounded-2xl border border-white/10 bg-black/40">
        {videoUrl ? (
          <VideoPlayer
            src={videoUrl}
            poster={posterUrl}
            controls
            title="Your video intro"
            className="aspect-[9/16] max-h-96 w-full bg-black object-contain"
            data-testid="video-intro-player"
          />
        ) : (
          <div className="grid place-items-center gap-2 px-4 py-8 text-center" data-testid="video-intro-empty">
            <Clapperboard aria-hidden="true" className="size-8 text-intent-soft" />
            <p className="text-sm font-semibold text-white">No video intro yet</p>
            <p className="text-sm text-zinc-300">Generate one from your profile, or upload a clip of yourself.</p>
          </div>
        )}
      </div>

      {aiNotice ? (
        <div
          role="alert"
          className="flex gap-2 rounded-2xl border border-red-500/40 bg-red-500/10 p-3 text-sm"
          data-testid="video-ai-notice"
        >
          <AlertTriangle aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-red-300" />
          <div className="min-w-0">
            <p className="font-semibold text-red-100">{aiNotice.title}</p>
            <p className="break-words text-red-200">{aiNotice.description}</p>
          </div>
        </div>
      ) : null}

      <Tabs.Root value={tab} onValueChange={(value) => setTab(value as Tab)} className="grid gap-4">
        <Tabs.List aria-label="Video intro source" className="grid grid-cols-2 gap-1 rounded-full bg-white/[0.06] p-1">
          {(
            [
              ['ai', 'AI video', Sparkles],
              ['upload', 'Upload', Upload],
            ] as const
          ).map(([value, label, Icon]) => (
            <Tabs.Trigger
              key={value}
              value={value}
              className={cn(
                'flex h-11 items-center justify-center gap-2 rounded-full text-sm font-semibold text-zinc-300 transition-colors',
                'data-[state=active]:bg-intent data-[state=active]:text-white',
              )}
            >
              <Icon aria-hidden="true" className="size-4" />
              {label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>

        <Tabs.Content value="ai" className="grid gap-3" data-testid="video-ai-tab">
          {serviceDown ? (
            <div
              className="rounded-2xl border border-amber-400/40 bg-amber-400/10 p-3 text-sm"
              data-testid="video-service-down"
            >
              <p className="font-semibold text-amber-100">{TEXTS.unavailableTitle}</p>
              <p className="text-amber-100/90">
                {service.data?.message ?? errorMessage(service.error, VIDEO_TEXTS.serviceUnavailable)}
              </p>
            </div>
          ) : null}
          {!podcasts.isPending && !profileReady ? (
            <p className="text-sm text-amber-100" data-testid="video-profile-not-ready">
              {VIDEO_TEXTS.profileNotReady}
            </p>
          ) : null}
          {rendering ? (
            <div className="grid gap-2" data-testid="video-generating">
              <ProgressBar value={rendering.progress} label="Video generation progress" />
              <p role="status" aria-live="polite" className="text-sm text-zinc-200">
                {generatingText(rendering)}
              </p>
            </div>
          ) : (
            <p className="text-sm text-zinc-300">
              We make a short video from your photo, tagline and favourite podcasts, in your intent's colours.
            </p>
          )}
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => void generate()} disabled={busy || !profileReady || serviceDown}>
              {starting || rendering ? <Spinner /> : <Sparkles aria-hidden="true" className="size-4" />}
              {rendering ? 'Generating…' : videoUrl ? 'Generate a new AI video' : 'Generate AI video'}
            </Button>
            {serviceDown ? (
              <Button variant="outline" onClick={() => setTab('upload')}>
                Upload instead
              </Button>
            ) : null}
          </div>
        </Tabs.Content>

        <Tabs.Content value="upload" className="grid gap-3" data-testid="video-upload-tab">
          {transcoding ? (
            <div className="grid gap-2" data-testid="video-processing">
              <ProgressBar value={transcoding.progress} label="Processing progress" />
              <p role="status" aria-live="polite" className="text-sm text-zinc-200">
                Processing
                {transcoding.failedAttempts > VIDEO_POLLING.profile.troubleAfterAttempts
                  ? ` · ${TEXTS.troubleChecking}`
                  : '…'}
              </p>
            </div>
          ) : null}
          {uploadNotice && !transcoding ? (
            <p role="alert" className="text-sm text-red-300" data-testid="video-upload-notice">
              {uploadNotice}
            </p>
          ) : null}
          <VideoUploadForm
            userId={userId}
            intent={intent}
            busy={busy}
            onUploaded={(projectId) => {
              setUploadNotice(null);
              setAiNotice(null);
              follow(projectId, 'media.transcode', intent, QUEUED);
            }}
          />
        </Tabs.Content>
      </Tabs.Root>
    </div>
  );
}
