import { api } from '@shared/api';
import { DELETE_ACCOUNT_CONFIRMATION } from '@shared/schemas/account';
import type { SelfUser } from '@shared/schemas/user';
import { Download, LogOut, ShieldCheck, Trash2 } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { apiFetch, apiRequest, endpointUrl, errorMessage } from '@/lib/api-client';
import { endSession } from '@/lib/session';
import { toast } from '@/lib/toast';
import { ProfileCard } from './profile-card';
import { ProfileDialog } from './profile-dialog';

/** The export as a file name: podmatch-data-<username>-<yyyy-mm-dd>.json. */
export function exportFileName(username: string, now = new Date()): string {
  const safe = username.replace(/[^\w.-]+/g, '_') || 'account';
  return `podmatch-data-${safe}-${now.toISOString().slice(0, 10)}.json`;
}

/** Saves text as a download through a Blob and a temporary object URL. */
function saveFile(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked a little later: some browsers start reading the URL only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function DeleteAccountDialog({ user, onClose }: { user: SelfUser; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const id = useId();
  const confirmed = typed.trim() === DELETE_ACCOUNT_CONFIRMATION;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!confirmed) {
      setProblem(`Type ${DELETE_ACCOUNT_CONFIRMATION} to confirm.`);
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await apiRequest(api.deleteAccount, {
        params: { userId: user.id },
        body: { confirm: DELETE_ACCOUNT_CONFIRMATION },
      });
    } catch (error) {
      setBusy(false);
      const message = errorMessage(error, 'Your account was not deleted. Please try again.');
      setProblem(message);
      toast({ variant: 'destructive', title: 'Could not delete account', description: message });
      return;
    }
    endSession();
    navigate('/login', { replace: true });
    toast({ title: 'Account deleted', description: 'Your account and everything stored about you are gone.' });
  };

  return (
    <ProfileDialog
      title="Delete your account?"
      testId="delete-account-dialog"
      onClose={busy ? () => {} : onClose}
      description={
        <>
          This removes your profile, pictures, library, matches and messages for good. Your matches disappear for the
          people you matched with. It cannot be undone.
        </>
      }
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-3">
        <label htmlFor={`${id}-confirm`} className="text-sm font-medium text-zinc-200">
          Type {DELETE_ACCOUNT_CONFIRMATION} to confirm
        </label>
        <Input
          id={`${id}-confirm`}
          value={typed}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => setTyped(event.target.value)}
        />
        {problem ? (
          <p id={`${id}-problem`} role="alert" className="text-sm text-red-300">
            {problem}
          </p>
        ) : null}
        <div className="mt-2 flex flex-wrap justify-end gap-2">
          <Button variant="ghost" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="destructive" disabled={busy || !confirmed}>
            {busy ? <Spinner /> : <Trash2 aria-hidden="true" className="size-4" />}
            Delete account
          </Button>
        </div>
      </form>
    </ProfileDialog>
  );
}

/** 'Your data': download everything stored about you as JSON, or delete the account. */
export function YourDataCard({ user }: { user: SelfUser }) {
  const navigate = useNavigate();
  const [endingAll, setEndingAll] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const [downloadProblem, setDownloadProblem] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [confirmingLogout, setConfirmingLogout] = useState(false);

  const download = async () => {
    setDownloading(true);
    setDownloadProblem(null);
    try {
      const data = await apiFetch(endpointUrl(api.exportAccount, { params: { userId: user.id } }));
      saveFile(JSON.stringify(data, null, 2), exportFileName(user.username));
    } catch (error) {
      const message = errorMessage(error, 'Your data could not be downloaded. Please try again.');
      setDownloadProblem(message);
      toast({ variant: 'destructive', title: 'Download failed', description: message });
    } finally {
      setDownloading(false);
    }
  };

  // Every login on every device ends (a lost phone, a shared computer); this tab goes to the login.
  const logOutEverywhere = async () => {
    setEndingAll(true);
    try {
      await apiRequest(api.logoutEverywhere, {});
      endSession();
      navigate('/login', { replace: true });
    } catch (error) {
      toast({
        variant: 'destructive',
        title: 'Could not log out everywhere',
        description: errorMessage(error, 'Please try again.'),
      });
      setEndingAll(false);
    }
  };

  return (
    <ProfileCard icon={ShieldCheck} title="Your data" testId="your-data-card">
      <p className="mb-4 text-sm text-zinc-300">
        Get a copy of everything we store about you, or delete your account and all of it.
      </p>
      <div className="grid gap-2">
        <Button variant="outline" onClick={() => void download()} disabled={downloading}>
          {downloading ? <Spinner /> : <Download aria-hidden="true" className="size-4" />}
          Download my data
        </Button>
        {downloadProblem ? (
          <p role="alert" className="text-sm text-red-300">
            {downloadProblem}
          </p>
        ) : null}
        <Button
          variant="outline"
          aria-expanded={confirmingLogout}
          onClick={() => setConfirmingLogout((open) => !open)}
          disabled={endingAll}
        >
          <LogOut aria-hidden="true" className="size-4" />
          Log out everywhere
        </Button>
        {confirmingLogout ? (
          // Every device, this one too: asked once more, since it cannot be undone from here.
          <fieldset
            aria-label="Confirm logging out everywhere"
            className="grid gap-2 rounded-2xl border border-white/10 bg-white/[0.04] p-3 text-sm text-zinc-200"
          >
            <p>You will be logged out on every phone and computer, this one included.</p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="ghost" size="sm" onClick={() => setConfirmingLogout(false)} disabled={endingAll}>
                Cancel
              </Button>
              <Button size="sm" onClick={() => void logOutEverywhere()} disabled={endingAll}>
                {endingAll ? <Spinner /> : null}
                Log out on all devices
              </Button>
            </div>
          </fieldset>
        ) : null}
        <Button variant="destructive" onClick={() => setDeleting(true)}>
          <Trash2 aria-hidden="true" className="size-4" />
          Delete account
        </Button>
      </div>
      {deleting ? <DeleteAccountDialog user={user} onClose={() => setDeleting(false)} /> : null}
    </ProfileCard>
  );
}
