import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import { FileVideo, Upload } from 'lucide-react';
import { type ChangeEvent, useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage, uploadRequest } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { toast } from '@/lib/toast';
import { checkVideoDuration, checkVideoFile, readVideoDuration } from './video-file';

type Selection =
  | { kind: 'none' }
  | { kind: 'checking'; file: File }
  | { kind: 'ready'; file: File; seconds: number | null }
  | { kind: 'refused'; file: File; message: string };

interface VideoUploadFormProps {
  userId: number;
  intent: Intent;
  /** The transcode of an upload is being followed (the card shows its progress). */
  busy: boolean;
  /** The 202 of the upload: the card follows the project from here. */
  onUploaded: (projectId: string) => void;
}

const UPLOAD_FAILED = 'Upload Failed';

/**
 * The upload tab: choose a video, checked before sending (type, 50 MB, 30 s read from the file's
 * metadata: SPEC section 5), then Save sends it with real upload progress.
 */
export function VideoUploadForm({ userId, intent, busy, onUploaded }: VideoUploadFormProps) {
  const input = useRef<HTMLInputElement>(null);
  const [selection, setSelection] = useState<Selection>({ kind: 'none' });
  const [percent, setPercent] = useState<number | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const statusId = useId();
  // Only the newest choice may set the result of its (asynchronous) duration check.
  const choice = useRef(0);
  const uploading = percent !== null;

  const choose = async (file: File) => {
    const mine = ++choice.current;
    setUploadError(null);
    const refusal = checkVideoFile(file);
    if (refusal) {
      setSelection({ kind: 'refused', file, message: refusal });
      return;
    }
    setSelection({ kind: 'checking', file });
    const seconds = await readVideoDuration(file);
    if (mine !== choice.current) return;
    const tooLong = checkVideoDuration(seconds);
    setSelection(tooLong ? { kind: 'refused', file, message: tooLong } : { kind: 'ready', file, seconds });
  };

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Cleared so choosing the same file again fires another change.
    event.target.value = '';
    if (file) void choose(file);
  };

  const save = async () => {
    if (selection.kind !== 'ready') return;
    setUploadError(null);
    setPercent(0);
    try {
      const { projectId } = await uploadRequest(
        api.uploadVideo,
        { params: { userId }, query: { intent } },
        selection.file,
        {
          onProgress: setPercent,
        },
      );
      setSelection({ kind: 'none' });
      onUploaded(projectId);
    } catch (error) {
      const message = errorMessage(error, 'Your video could not be uploaded. Please try again.');
      setUploadError(message);
      toast({ variant: 'destructive', title: UPLOAD_FAILED, description: message });
    } finally {
      setPercent(null);
    }
  };

  const problem = selection.kind === 'refused' ? selection.message : uploadError;
  const file = selection.kind === 'none' ? null : selection.file;

  return (
    <div className="grid gap-3" data-testid="video-upload-form">
      <input
        ref={input}
        type="file"
        accept="video/*"
        className="hidden"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="video-file-input"
        onChange={onChange}
      />
      <p className="text-sm text-zinc-300">
        A video of yourself, up to 30 seconds and 50MB. It plays muted on your card.
      </p>
      {file ? (
        <p className="flex min-w-0 items-center gap-2 text-sm text-zinc-200" data-testid="video-file-name">
          <FileVideo aria-hidden="true" className="size-4 shrink-0 text-intent-soft" />
          <span className="truncate">{file.name}</span>
          {selection.kind === 'ready' && selection.seconds !== null ? (
            <span className="shrink-0 text-zinc-300">{Math.round(selection.seconds)} s</span>
          ) : null}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button
          variant="outline"
          onClick={() => input.current?.click()}
          disabled={uploading || busy}
          aria-describedby={statusId}
        >
          <FileVideo aria-hidden="true" className="size-4" />
          {file ? 'Choose another video' : 'Choose a video'}
        </Button>
        <Button onClick={() => void save()} disabled={selection.kind !== 'ready' || uploading || busy}>
          {uploading ? <Spinner /> : <Upload aria-hidden="true" className="size-4" />}
          Save video
        </Button>
      </div>
      {uploading ? <ProgressBar value={percent} label="Upload progress" /> : null}
      <p
        id={statusId}
        aria-live="polite"
        role={problem ? 'alert' : undefined}
        className={cn('min-h-5 text-sm', problem ? 'text-red-300' : 'text-zinc-300')}
        data-testid="video-upload-status"
      >
        {uploading
          ? `Uploading… ${percent}%`
          : problem
            ? problem
            : selection.kind === 'checking'
              ? 'Checking the video…'
              : selection.kind === 'ready'
                ? 'Ready to save.'
                : ''}
      </p>
    </div>
  );
}
