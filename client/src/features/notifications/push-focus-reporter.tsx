import { useEffect } from 'react';
import { startFocusReports } from './focus-reporter';

/** Reports this device's focus while mounted (see startFocusReports). Renders nothing. */
export default function PushFocusReporter({ userId, deviceId }: { userId: number; deviceId: number }) {
  useEffect(() => startFocusReports(userId, deviceId), [userId, deviceId]);
  return null;
}
