import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router-dom';

/**
 * The outcome of an OAuth round trip arrives as query parameters (`?x_connect=<code>`,
 * `?x_error=<reason>`): hands the pair to `onReturn` once per distinct value, then drops both from
 * the URL, so a reload or a back navigation does not act twice.
 */
export function useReturnParams(
  codeParam: string,
  errorParam: string,
  onReturn: (outcome: { code: string | null; error: string | null }) => void,
): void {
  const [params, setParams] = useSearchParams();
  const code = params.get(codeParam);
  const error = params.get(errorParam);
  const handled = useRef<string | null>(null);
  const latest = useRef(onReturn);
  latest.current = onReturn;
  useEffect(() => {
    if (!code && !error) return;
    const key = `${code}|${error}`;
    if (handled.current !== key) {
      handled.current = key;
      latest.current({ code, error });
    }
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(codeParam);
        next.delete(errorParam);
        return next;
      },
      { replace: true },
    );
  }, [code, error, codeParam, errorParam, setParams]);
}
