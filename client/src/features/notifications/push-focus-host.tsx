import { lazy, Suspense } from 'react';
import { usePushDevice } from './device-storage';

const PushFocusReporter = lazy(() => import('./push-focus-reporter'));

/**
 * Mounted with the realtime bridge: while this browser is one of the account's push devices, its
 * focus is reported to the server (focus-reporter.ts); otherwise nothing is loaded or sent.
 */
export function PushFocusHost({ userId }: { userId: number }) {
  const deviceId = usePushDevice(userId);
  return deviceId === null ? null : (
    <Suspense fallback={null}>
      <PushFocusReporter userId={userId} deviceId={deviceId} />
    </Suspense>
  );
}
