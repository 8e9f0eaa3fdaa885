import { NEW_TOKEN_HEADER } from '@shared/constants';
import { ApiError } from './http';
import { readStoredToken, replaceToken } from './session';

export interface UploadOptions {
  /** The form field the file goes in. */
  field: string;
  /** Called with the percentage sent so far (0-100) as the browser reports upload progress. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

/**
 * POSTs one file as multipart/form-data with real upload progress (fetch cannot report it, so this
 * uses XMLHttpRequest). Sends the bearer token and cookies, adopts a rotated token (X-New-Token)
 * like apiFetch does, and rejects a non-OK answer with the same ApiError. Resolves to the parsed
 * JSON body.
 */
export function uploadWithProgress(url: string, file: Blob, options: UploadOptions): Promise<unknown> {
  const { field, onProgress, signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DOMException('The upload was aborted.', 'AbortError'));
      return;
    }
    const form = new FormData();
    form.append(field, file);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = true;
    const token = readStoredToken();
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);

    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(Math.round((event.loaded / event.total) * 100));
    };
    xhr.onload = () => {
      const newToken = xhr.getResponseHeader(NEW_TOKEN_HEADER);
      if (newToken) replaceToken(newToken);
      const text = xhr.responseText;
      let body: unknown; // the parsed JSON, undefined for an empty or non-JSON body
      try {
        body = JSON.parse(text);
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(100);
        resolve(body);
      } else reject(new ApiError(xhr.status, xhr.statusText, text, body));
    };
    xhr.onerror = () => reject(new TypeError('Network error: the upload did not reach the server.'));
    xhr.onabort = () => reject(new DOMException('The upload was aborted.', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
