import { api } from '@shared/api';
import { LIMITS } from '@shared/constants';
import type { UserResponse } from '@shared/schemas/user';
import { useQueryClient } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { ImageUp } from 'lucide-react';
import { type ChangeEvent, useId, useRef, useState } from 'react';
import { PersonPicture } from '@/components/person-picture';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage, uploadRequest } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { sessionAtom } from '@/lib/session';
import { toast } from '@/lib/toast';
import { useCurrentUser, userQuery } from '@/lib/user-queries';

/** The picture types the server accepts (docs/media.md); anything else is refused before sending. */
export const PICTURE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'] as const;
const PICTURE_EXTENSIONS = /\.(jpe?g|png|webp|gif|avif)$/i;

/** The client-side refusals of a picture (SPEC section 5), as toast title and description. */
export const PICTURE_CHECK_TEXTS = {
  invalidType: { title: 'Invalid file type', description: 'Please select an image file (JPEG, PNG, etc.)' },
  tooLarge: { title: 'File too large', description: 'Please select an image smaller than 5MB' },
  noUser: { title: 'Upload Failed', description: 'User ID is not available. Please try logging in again.' },
} as const;

const UPLOAD_FAILED = { title: 'Upload Failed', description: 'Failed to upload profile picture' } as const;

/** Why a file cannot be sent, or null when it may be (type by MIME type, else by extension). */
export function checkPicture(file: File): keyof typeof PICTURE_CHECK_TEXTS | null {
  const typeOk = file.type
    ? (PICTURE_TYPES as readonly string[]).includes(file.type)
    : PICTURE_EXTENSIONS.test(file.name);
  if (!typeOk) return 'invalidType';
  if (file.size > LIMITS.pictureMaxBytes) return 'tooLarge';
  return null;
}

type State =
  | { kind: 'idle' }
  | { kind: 'uploading'; percent: number }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

interface PictureUploadProps {
  /** Called with the new picture's URL once the server stored it. */
  onUploaded?: (profilePicture: string) => void;
  className?: string;
}

/**
 * The signed-in person's picture with a 'Choose a photo' button: checks type and size first
 * (SPEC section 5), uploads with a real progress bar, shows the server's refusal, and on success
 * puts the new picture in the cached user. Used by the profile's avatar dialog and the setup wizard.
 */
export function PictureUpload({ onUploaded, className }: PictureUploadProps) {
  const session = useAtomValue(sessionAtom);
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<State>({ kind: 'idle' });
  const statusId = useId();
  const uploading = state.kind === 'uploading';

  const fail = (title: string, description: string) => {
    setState({ kind: 'error', message: `${title}: ${description}` });
    toast({ variant: 'destructive', title, description });
  };

  const upload = async (file: File) => {
    const refusal = checkPicture(file);
    if (refusal) {
      fail(PICTURE_CHECK_TEXTS[refusal].title, PICTURE_CHECK_TEXTS[refusal].description);
      return;
    }
    if (!session) {
      fail(PICTURE_CHECK_TEXTS.noUser.title, PICTURE_CHECK_TEXTS.noUser.description);
      return;
    }
    setState({ kind: 'uploading', percent: 0 });
    try {
      const { profilePicture } = await uploadRequest(
        api.uploadProfilePicture,
        { params: { userId: session.userId } },
        file,
        { onProgress: (percent) => setState({ kind: 'uploading', percent }) },
      );
      queryClient.setQueryData<UserResponse>(userQuery(session.userId).queryKey, (old) =>
        old ? { ...old, profilePicture } : old,
      );
      setState({ kind: 'done' });
      toast({ title: 'Profile Picture Updated', description: 'Your new photo is on your profile.' });
      onUploaded?.(profilePicture);
    } catch (error) {
      fail(UPLOAD_FAILED.title, errorMessage(error, UPLOAD_FAILED.description));
    }
  };

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Cleared so choosing the same file again fires another change.
    event.target.value = '';
    if (file) void upload(file);
  };

  const name = user?.displayName ?? '';
  const percent = state.kind === 'uploading' ? state.percent : state.kind === 'done' ? 100 : 0;

  return (
    <div className={cn('grid justify-items-center gap-4', className)} data-testid="picture-upload">
      <PersonPicture
        name={name}
        picture={user?.profilePicture ?? null}
        className="size-32 rounded-full border border-white/10 bg-zinc-800 object-cover shadow-lg shadow-black/30"
      />
      <input
        ref={input}
        type="file"
        accept={PICTURE_TYPES.join(',')}
        className="hidden"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="picture-file-input"
        onChange={onChange}
      />
      <Button variant="outline" onClick={() => input.current?.click()} disabled={uploading} aria-describedby={statusId}>
        {uploading ? <Spinner /> : <ImageUp aria-hidden="true" className="size-4" />}
        Choose a photo
      </Button>
      {state.kind === 'uploading' || state.kind === 'done' ? (
        <ProgressBar value={percent} label="Upload progress" className="max-w-xs" />
      ) : null}
      <p
        id={statusId}
        aria-live="polite"
        className={cn('min-h-5 text-center text-sm', state.kind === 'error' ? 'text-red-300' : 'text-zinc-300')}
      >
        {state.kind === 'uploading'
          ? `Uploading… ${state.percent}%`
          : state.kind === 'done'
            ? 'Upload complete'
            : state.kind === 'error'
              ? state.message
              : 'JPEG, PNG, WebP, GIF or AVIF, up to 5MB.'}
      </p>
    </div>
  );
}
