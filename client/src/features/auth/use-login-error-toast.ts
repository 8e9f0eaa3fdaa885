import { GENERIC_LOGIN_ERROR, LOGIN_ERRORS, TIMING } from '@shared/constants';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router-dom';
import { toast } from '@/lib/toast';

/** The toast for a `/login?error=` value: a known key gets its own text, anything else the generic one. */
export function loginErrorToast(code: string) {
  const info = Object.hasOwn(LOGIN_ERRORS, code) ? LOGIN_ERRORS[code] : undefined;
  return info ?? GENERIC_LOGIN_ERROR;
}

/**
 * Reads `?error=` once per value, shows its destructive toast for 5 s, then drops the parameter
 * from the URL (replace, so Back does not bring it back).
 */
export function useLoginErrorToast(): void {
  const [searchParams, setSearchParams] = useSearchParams();
  const code = searchParams.get('error');
  const shown = useRef<string | null>(null);

  useEffect(() => {
    if (!code) return;
    // Guards against the doubled effect of StrictMode showing the same toast twice.
    if (shown.current !== code) {
      shown.current = code;
      toast({ variant: 'destructive', duration: TIMING.loginErrorToastMs, ...loginErrorToast(code) });
    }
    const timer = window.setTimeout(() => {
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.delete('error');
          return next;
        },
        { replace: true },
      );
    }, TIMING.loginErrorToastMs);
    return () => window.clearTimeout(timer);
  }, [code, setSearchParams]);
}
