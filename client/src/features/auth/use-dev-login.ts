import { useMutation } from '@tanstack/react-query';
import { ApiError, InvalidResponseError } from '@/lib/http';
import { isSuspendedSignIn } from '@/lib/suspension';
import { type ToastInput, toast } from '@/lib/toast';
import { useCompleteSignIn } from './use-complete-sign-in';

const LOGIN_FAILED = 'Unable to login. Please try again.';

/** Loads the typed auth calls ahead of a click (on hover/focus of the form). */
export const preloadAuthRequests = () => import('./auth-requests');

/**
 * Tells of a failed sign-in with a toast; a suspended account's refusal is shown by the login
 * screen's statement of reasons instead (lib/suspension.ts).
 */
export function toastLoginFailure(error: unknown): void {
  if (!isSuspendedSignIn(error)) toast(loginFailureToast(error));
}

/** The toast for a failed development login (SPEC sections 5 and 8). */
export function loginFailureToast(error: unknown): ToastInput {
  if (error instanceof InvalidResponseError) {
    return { variant: 'destructive', title: 'Login failed', description: 'Invalid response from server' };
  }
  const serverMessage = error instanceof ApiError ? error.serverMessage : undefined;
  return {
    variant: 'destructive',
    title: 'Login failed',
    description: serverMessage ? `${LOGIN_FAILED} ${serverMessage}` : LOGIN_FAILED,
  };
}

/**
 * Why the server refused this username, in its own words for people ("Usernames can be at most 40
 * characters."): a validation error (400) or an account that signs in another way (403). Undefined
 * for anything else (offline, server errors), which the toast alone reports.
 */
export function loginRejection(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 403)) return undefined;
  return error.serverMessage;
}

/** POST /api/auth/dev-login, then the app like every way in (use-complete-sign-in.ts). */
export function useDevLogin() {
  const complete = useCompleteSignIn();
  return useMutation({
    mutationFn: async (username: string) => (await preloadAuthRequests()).requestDevLogin(username),
    onSuccess: complete,
    onError: toastLoginFailure,
  });
}
