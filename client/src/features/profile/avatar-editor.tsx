import type { SelfUser } from '@shared/schemas/user';
import { Camera } from 'lucide-react';
import { useState } from 'react';
import { PersonPicture } from '@/components/person-picture';
import { PictureUpload } from '@/components/picture-upload';
import { Button } from '@/components/ui/button';
import { ProfileDialog } from './profile-dialog';

/** The own avatar with an edit button that opens the picture upload dialog. */
export function AvatarEditor({ user }: { user: SelfUser }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="relative shrink-0">
      <PersonPicture
        name={user.displayName}
        picture={user.profilePicture}
        className="size-20 rounded-full border-2 border-intent bg-zinc-800 object-cover shadow-lg shadow-intent/30"
      />
      <Button
        size="icon"
        variant="primary"
        aria-label="Change profile picture"
        className="absolute -right-2 -bottom-2 border-2 border-zinc-950"
        onClick={() => setOpen(true)}
      >
        <Camera aria-hidden="true" className="size-5" />
      </Button>
      {open ? (
        <ProfileDialog
          title="Profile picture"
          description="Pick a clear photo of yourself. We remove its metadata (location included) before anyone sees it."
          testId="picture-dialog"
          onClose={() => setOpen(false)}
        >
          <PictureUpload />
          <Button variant="ghost" className="mt-2 w-full" onClick={() => setOpen(false)}>
            Done
          </Button>
        </ProfileDialog>
      ) : null}
    </div>
  );
}
