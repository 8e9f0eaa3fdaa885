import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { usePushDevice } from './device-storage';
import {
  NoServiceWorker,
  notificationSettingsQuery,
  PermissionDenied,
  turnOnPush,
  updateSettings,
} from './notifications-requests';
import { pushSupport } from './push-support';

const OFFERED_PREFIX = 'podmatch.notificationsOffered.';

function alreadyOffered(userId: number): boolean {
  try {
    return localStorage.getItem(`${OFFERED_PREFIX}${userId}`) !== null;
  } catch {
    return true;
  }
}

function markOffered(userId: number): void {
  try {
    localStorage.setItem(`${OFFERED_PREFIX}${userId}`, new Date().toISOString());
  } catch {
    // storage unavailable: it may be offered again, which is harmless
  }
}

type Step = 'offer' | 'busy' | 'on' | 'blocked' | 'dismissed';

/**
 * In the match moment (docs/notifications.md, "Opting in"), once per account on this browser: "Want
 * to know when <name> writes back?" Only where it could work (push available here and on the
 * server, not blocked, not already on); never on a first load, only after a tap brought a match.
 */
export default function NotificationsPrompt({ userId, name }: { userId: number; name: string }) {
  const queryClient = useQueryClient();
  // Decided once when the moment opens: being shown marks it offered, which must not hide it at once.
  const [eligible] = useState(() => {
    const support = pushSupport();
    return (support === 'default' || support === 'granted') && !alreadyOffered(userId);
  });
  const settings = useQuery({ ...notificationSettingsQuery(userId), enabled: eligible }).data;
  const thisDevice = usePushDevice(userId);
  const [step, setStep] = useState<Step>('offer');
  const [problem, setProblem] = useState<string | null>(null);
  const onHere = thisDevice !== null && settings?.devices.some((device) => device.id === thisDevice);
  const show = eligible && settings?.vapidPublicKey && (!onHere || step === 'on') && step !== 'dismissed';

  useEffect(() => {
    if (show) markOffered(userId);
  }, [show, userId]);

  if (!show || !settings.vapidPublicKey) return null;
  const key = settings.vapidPublicKey;

  const turnOn = async () => {
    setStep('busy');
    setProblem(null);
    try {
      const device = await turnOnPush(userId, key);
      updateSettings(queryClient, userId, (current) => ({
        ...current,
        devices: [...current.devices.filter((d) => d.id !== device.id), device],
      }));
      setStep('on');
    } catch (error) {
      if (error instanceof PermissionDenied) {
        setStep('blocked');
        return;
      }
      setStep('offer');
      setProblem(
        error instanceof NoServiceWorker
          ? 'This browser could not start notifications. You can try again from your profile.'
          : errorMessage(error, 'Notifications could not be turned on. You can try again from your profile.'),
      );
    }
  };

  return (
    <section
      aria-label="Notifications"
      data-testid="notifications-prompt"
      className="grid w-full gap-3 rounded-2xl border border-white/10 bg-white/[0.05] p-4 text-left"
    >
      {step === 'on' ? (
        <p role="status" className="flex items-start gap-2 text-sm text-zinc-100">
          <Bell aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-intent-soft" />
          <span>Notifications are on. We'll tell you when {name} writes back.</span>
        </p>
      ) : step === 'blocked' ? (
        <p role="status" className="text-sm text-zinc-200">
          Notifications are blocked for PodMatch in this browser. You can allow them in the site settings, next to the
          address.
        </p>
      ) : (
        <>
          <p className="flex items-start gap-2 text-sm text-zinc-100">
            <Bell aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-intent-soft" />
            <span>
              Want to know when <strong className="break-words">{name}</strong> writes back?
            </span>
          </p>
          <div className="flex flex-wrap gap-2">
            <Button size="sm" variant="outline" disabled={step === 'busy'} onClick={() => void turnOn()}>
              {step === 'busy' ? <Spinner /> : null}
              Turn on notifications
            </Button>
            <Button size="sm" variant="ghost" disabled={step === 'busy'} onClick={() => setStep('dismissed')}>
              Not now
            </Button>
          </div>
          <p role="alert" className="text-xs text-red-300 empty:hidden">
            {problem}
          </p>
        </>
      )}
    </section>
  );
}
