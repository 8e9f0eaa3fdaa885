import {
  DEFAULT_NOTIFICATION_PREFERENCES,
  type NotificationPreferences,
  type PushDevice,
} from '@shared/schemas/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell, BellOff, Smartphone } from 'lucide-react';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { relativeTime } from '@/lib/relative-time';
import { usePushDevice } from './device-storage';
import {
  NoServiceWorker,
  notificationSettingsQuery,
  PermissionDenied,
  removeDevice,
  savePreferences,
  turnOnPush,
  updateSettings,
} from './notifications-requests';
import { type PushSupport, pushSupport } from './push-support';

const KIND_SWITCHES: { key: 'matches' | 'messages' | 'videos'; label: string; hint: string }[] = [
  { key: 'matches', label: 'New matches', hint: 'When someone you liked likes you back.' },
  { key: 'messages', label: 'New messages', hint: 'One notification per conversation.' },
  { key: 'videos', label: 'Video intro ready', hint: 'When your video has been made.' },
];

const DEFAULT_QUIET = { start: '22:00', end: '07:00' };

/** The browser's time zone, for new quiet hours. */
export function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Every time zone the browser knows, the current one included, for the quiet hours' picker. */
function timeZones(current: string): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  return zones.includes(current) ? zones : [current, ...zones];
}

/** Why this browser cannot be turned on, in words; null when it can. */
const SUPPORT_PROBLEMS: Partial<Record<PushSupport, { title: string; body: string }>> = {
  unsupported: {
    title: 'Not available in this browser',
    body: 'This browser cannot show notifications from PodMatch. Your other devices can still get them.',
  },
  'ios-install-first': {
    title: 'Add PodMatch to your Home Screen first',
    body: 'On iPhone and iPad, notifications work in the installed app: tap Share, then "Add to Home Screen", and turn them on there.',
  },
  denied: {
    title: 'Notifications are blocked',
    body: 'You blocked notifications for PodMatch in this browser. To allow them, open the site settings (the icon next to the address), set Notifications to Allow, then reload this page.',
  },
};

/** A checkbox that looks and reads as a switch (role="switch": screen readers say on or off). */
function Switch({
  label,
  hint,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="flex items-center gap-3 py-1.5">
      <div className="min-w-0 flex-1">
        <label htmlFor={id} className="block text-sm text-zinc-100">
          {label}
        </label>
        {hint ? (
          <p id={`${id}-hint`} className="text-xs text-zinc-400">
            {hint}
          </p>
        ) : null}
      </div>
      <span className="relative inline-flex h-11 w-14 shrink-0 items-center justify-center">
        <input
          id={id}
          type="checkbox"
          role="switch"
          aria-checked={checked}
          aria-describedby={hint ? `${id}-hint` : undefined}
          checked={checked}
          disabled={disabled}
          onChange={(event) => onChange(event.target.checked)}
          className="peer absolute inset-0 z-10 cursor-pointer opacity-0 disabled:cursor-not-allowed"
        />
        <span
          aria-hidden="true"
          className="h-7 w-12 rounded-full bg-zinc-700 transition peer-checked:bg-intent peer-focus-visible:ring-2 peer-focus-visible:ring-white peer-disabled:opacity-50"
        />
        <span
          aria-hidden="true"
          className="pointer-events-none absolute left-2 size-5 rounded-full bg-white shadow transition peer-checked:translate-x-5"
        />
      </span>
    </div>
  );
}

function Notice({ tone, title, children }: { tone: 'info' | 'warn'; title: string; children: ReactNode }) {
  return (
    <div
      data-testid="notifications-notice"
      className={
        tone === 'warn'
          ? 'rounded-2xl border border-amber-400/30 bg-amber-400/[0.07] p-3 text-sm text-amber-50'
          : 'rounded-2xl border border-white/10 bg-white/[0.03] p-3 text-sm text-zinc-200'
      }
    >
      <p className="font-semibold">{title}</p>
      <p className="mt-1 text-xs leading-relaxed opacity-90">{children}</p>
    </div>
  );
}

function deviceDetail(device: PushDevice): string {
  const added = `added ${relativeTime(device.createdAt)}`;
  return device.lastUsedAt ? `${added} · last used ${relativeTime(device.lastUsedAt)}` : added;
}

type SaveState = 'idle' | 'saving' | 'saved';

/**
 * "Notifications" on the profile (docs/notifications.md, "Opting in"): turn them on for this
 * browser, the account's devices (each removable), what is sent (kinds, message text, pause) and
 * quiet hours. Says plainly when this browser cannot, when the person blocked it, and when this
 * server sends no pushes at all.
 */
export function NotificationsCard({ userId }: { userId: number }) {
  const id = useId();
  const queryClient = useQueryClient();
  const query = useQuery(notificationSettingsQuery(userId));
  const settings = query.data;
  const thisDevice = usePushDevice(userId);
  const [support, setSupport] = useState<PushSupport>(() => pushSupport());
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [draft, setDraft] = useState<NotificationPreferences | null>(null);
  const [saveState, setSaveState] = useState<SaveState>('idle');

  const devices = settings?.devices ?? [];

  const saved = settings?.preferences ?? DEFAULT_NOTIFICATION_PREFERENCES;
  const preferences = draft ?? saved;
  const dirty = draft !== null && JSON.stringify(draft) !== JSON.stringify(saved);
  const change = (next: Partial<NotificationPreferences>) => {
    setDraft({ ...preferences, ...next });
    setSaveState('idle');
    setProblem(null);
  };

  const turnOn = async () => {
    if (!settings?.vapidPublicKey) return;
    setBusy('turn-on');
    setProblem(null);
    try {
      const device = await turnOnPush(userId, settings.vapidPublicKey);
      updateSettings(queryClient, userId, (current) => ({
        ...current,
        devices: [...current.devices.filter((d) => d.id !== device.id), device],
      }));
    } catch (error) {
      if (error instanceof PermissionDenied) setSupport(pushSupport());
      else if (error instanceof NoServiceWorker)
        setProblem('PodMatch could not start its background helper in this browser. Reload the page and try again.');
      else setProblem(errorMessage(error, 'Notifications could not be turned on. Please try again.'));
    } finally {
      setBusy(null);
    }
  };

  const remove = async (device: PushDevice) => {
    setBusy(`remove-${device.id}`);
    setProblem(null);
    try {
      await removeDevice(userId, device.id);
      updateSettings(queryClient, userId, (current) => ({
        ...current,
        devices: current.devices.filter((d) => d.id !== device.id),
      }));
    } catch (error) {
      setProblem(errorMessage(error, 'That device could not be removed. Please try again.'));
    } finally {
      setBusy(null);
    }
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!draft) return;
    if (draft.quietHours && draft.quietHours.start === draft.quietHours.end) {
      setProblem('Quiet hours need different start and end times.');
      return;
    }
    setSaveState('saving');
    setProblem(null);
    try {
      const next = await savePreferences(userId, draft);
      updateSettings(queryClient, userId, (current) => ({ ...current, preferences: next }));
      setDraft(null);
      setSaveState('saved');
    } catch (error) {
      setSaveState('idle');
      setProblem(errorMessage(error, 'Your settings were not saved. Please try again.'));
    }
  };

  const onHere = thisDevice !== null && devices.some((device) => device.id === thisDevice);
  const supportProblem = SUPPORT_PROBLEMS[support];
  const quiet = preferences.quietHours;

  let state = 'Loading...';
  if (query.isError) state = 'Could not be loaded';
  else if (settings && !settings.vapidPublicKey) state = 'Not available on this server';
  else if (settings) state = onHere ? 'On for this device' : 'Off for this device';

  return (
    <section
      aria-labelledby={`${id}-title`}
      data-testid="notifications-card"
      className="min-w-0 rounded-3xl border border-white/10 bg-white/[0.03] p-5 shadow-xl shadow-black/20"
    >
      <div className="mb-4 flex items-center gap-3">
        <span className="grid size-9 shrink-0 place-items-center rounded-xl bg-intent/15 text-intent-soft">
          {onHere ? <Bell aria-hidden="true" className="size-5" /> : <BellOff aria-hidden="true" className="size-5" />}
        </span>
        <div className="min-w-0 flex-1">
          <h2 id={`${id}-title`} className="text-base font-semibold text-white">
            Notifications
          </h2>
          <p data-testid="notifications-state" className="text-xs text-zinc-400">
            {state}
          </p>
        </div>
      </div>

      {query.isPending ? (
        <div role="status" aria-label="Loading notification settings" className="grid place-items-center py-4">
          <Spinner className="size-5 text-zinc-300" />
        </div>
      ) : query.isError ? (
        <p role="alert" className="text-sm text-red-300">
          Your notification settings could not be loaded. Please try again later.
        </p>
      ) : !settings?.vapidPublicKey ? (
        <Notice tone="info" title="Push notifications are off on this server">
          This PodMatch server is not set up to send notifications. You still see new matches and messages while the app
          is open.
        </Notice>
      ) : (
        <>
          <p className="text-xs text-zinc-400">
            When the app is closed, PodMatch can tell you about new matches and messages on this device.
          </p>

          <div className="mt-3 grid gap-3">
            {onHere ? null : supportProblem ? (
              <Notice tone="warn" title={supportProblem.title}>
                {supportProblem.body}
              </Notice>
            ) : (
              <Button className="w-full" disabled={busy !== null} onClick={() => void turnOn()}>
                {busy === 'turn-on' ? <Spinner /> : <Bell aria-hidden="true" className="size-4" />}
                Turn on notifications on this device
              </Button>
            )}
          </div>

          {devices.length > 0 ? (
            <ul className="mt-4 grid gap-2" aria-label="Devices that get notifications">
              {devices.map((device) => (
                <li
                  key={device.id}
                  data-testid="push-device"
                  className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 rounded-2xl bg-white/[0.03] px-3 py-2"
                >
                  <span className="grid size-8 shrink-0 place-items-center rounded-xl bg-white/[0.06] text-zinc-200">
                    <Smartphone aria-hidden="true" className="size-4" />
                  </span>
                  <div className="min-w-[9rem] flex-1">
                    <p className="truncate text-sm font-medium text-zinc-100" title={device.deviceLabel}>
                      {device.deviceLabel}
                      {device.id === thisDevice ? <span className="text-zinc-400"> · this device</span> : null}
                    </p>
                    <p className="truncate text-xs text-zinc-400">{deviceDetail(device)}</p>
                  </div>
                  <Button
                    variant="ghost"
                    size="sm"
                    className="ml-auto"
                    aria-label={`Remove ${device.deviceLabel}${device.id === thisDevice ? ' (this device)' : ''}`}
                    disabled={busy !== null}
                    onClick={() => void remove(device)}
                  >
                    {busy === `remove-${device.id}` ? <Spinner /> : null}
                    Remove
                  </Button>
                </li>
              ))}
            </ul>
          ) : null}

          <form className="mt-5 grid gap-1" onSubmit={(event) => void save(event)} aria-label="What to send">
            <h3 className="text-xs font-semibold tracking-wide text-zinc-400 uppercase">What to send</h3>
            {KIND_SWITCHES.map(({ key, label, hint }) => (
              <Switch
                key={key}
                label={label}
                hint={hint}
                checked={preferences[key]}
                onChange={(checked) => change({ [key]: checked })}
              />
            ))}
            <Switch
              label="Show message text in notifications"
              hint="Off: only who wrote, never what."
              checked={preferences.previews}
              onChange={(previews) => change({ previews })}
            />
            <Switch
              label="Pause all"
              hint="Nothing is sent while paused."
              checked={preferences.paused}
              onChange={(paused) => change({ paused })}
            />

            <h3 className="mt-4 text-xs font-semibold tracking-wide text-zinc-400 uppercase">Quiet hours</h3>
            <Switch
              label="Quiet hours"
              hint="No notifications between these times."
              checked={quiet !== null}
              onChange={(on) => change({ quietHours: on ? { ...DEFAULT_QUIET, timeZone: localTimeZone() } : null })}
            />
            {quiet ? (
              <div className="grid gap-3 pt-1">
                <div className="grid grid-cols-2 gap-3">
                  <label htmlFor={`${id}-from`} className="grid gap-1 text-xs text-zinc-300">
                    From
                    <Input
                      id={`${id}-from`}
                      type="time"
                      required
                      value={quiet.start}
                      onChange={(event) => change({ quietHours: { ...quiet, start: event.target.value } })}
                    />
                  </label>
                  <label htmlFor={`${id}-to`} className="grid gap-1 text-xs text-zinc-300">
                    To
                    <Input
                      id={`${id}-to`}
                      type="time"
                      required
                      value={quiet.end}
                      onChange={(event) => change({ quietHours: { ...quiet, end: event.target.value } })}
                    />
                  </label>
                </div>
                <label htmlFor={`${id}-zone`} className="grid gap-1 text-xs text-zinc-300">
                  Time zone
                  <select
                    id={`${id}-zone`}
                    value={quiet.timeZone}
                    onChange={(event) => change({ quietHours: { ...quiet, timeZone: event.target.value } })}
                    className="h-11 w-full min-w-0 rounded-2xl border border-white/10 bg-ink-raised px-3 text-sm text-zinc-100 focus:border-intent-soft/70 focus:outline-none"
                  >
                    {timeZones(quiet.timeZone).map((zone) => (
                      <option key={zone} value={zone}>
                        {zone.replaceAll('_', ' ')}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
            ) : null}

            <div className="mt-4 flex flex-wrap items-center gap-3">
              <Button type="submit" size="sm" disabled={!dirty || saveState === 'saving'}>
                {saveState === 'saving' ? <Spinner /> : null}
                Save
              </Button>
              <p role="status" data-testid="notifications-save-state" className="text-xs text-zinc-400">
                {saveState === 'saving' ? 'Saving...' : saveState === 'saved' ? 'Saved' : dirty ? 'Not saved yet' : ''}
              </p>
            </div>
          </form>
        </>
      )}

      <p role="alert" data-testid="notifications-problem" className="mt-3 text-xs text-red-300 empty:hidden">
        {problem}
      </p>
    </section>
  );
}

export default NotificationsCard;
