import { useLogout } from '@/features/auth/use-logout';
import { ProfilePlaceholder } from '@/features/profile/profile-placeholder';
import { useCurrentUser, useSaveIntent } from '@/features/user/user-queries';

/** Own profile (/profile): changing the intent here also saves it on the server. */
export default function ProfileRoute() {
  const user = useCurrentUser();
  const { intent, save, isSaving } = useSaveIntent();
  const { logout, isPending } = useLogout();
  return (
    <ProfilePlaceholder
      user={user}
      intent={intent}
      onIntentChange={save}
      intentSaving={isSaving}
      onLogout={() => void logout()}
      loggingOut={isPending}
    />
  );
}
