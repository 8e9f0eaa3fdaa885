import { useQueryClient } from '@tanstack/react-query';
import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { clearAllStorage, endSession, readStoredToken } from '@/lib/session';
import { toast } from '@/lib/toast';

/** Recovery hatch for a stuck session: revoke it (best effort), wipe both storages, reset state. */
export function ClearStorageButton() {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);

  const clear = async () => {
    setPending(true);
    if (readStoredToken()) await (await import('./auth-requests')).revokeServerSession();
    clearAllStorage();
    endSession();
    queryClient.clear();
    setPending(false);
    toast({ title: 'Logged out', description: 'Local storage was cleared and you are signed out on this device.' });
  };

  return (
    <Button variant="outline" className="w-full" onClick={clear} disabled={pending}>
      {pending ? <Spinner /> : <Trash2 aria-hidden="true" className="size-4" />}
      Clear Local Storage &amp; Log Out
    </Button>
  );
}
