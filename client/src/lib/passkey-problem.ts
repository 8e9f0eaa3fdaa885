import { errorMessage } from './http';

/**
 * What to tell a person when a passkey ceremony (sign-in, sign-up, adding one, confirming it is
 * them) failed: the browser's WebAuthn errors by name, then the server's sentence.
 */
export function passkeyProblem(error: unknown, fallback = 'The passkey did not work. Please try again.'): string {
  const name = (error as { name?: string } | null)?.name;
  // The person closed the browser's dialog, or it timed out: nothing to scold.
  if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey request was cancelled or timed out.';
  if (name === 'InvalidStateError') return 'This device already holds a passkey for this account.';
  if (name === 'NotSupportedError' || name === 'SecurityError') {
    return 'This browser cannot use passkeys here. Use an email code instead.';
  }
  return errorMessage(error, fallback);
}
