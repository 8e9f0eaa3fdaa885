// A browser tab for passkey tests: a page at an origin with its own cookie jar (by name and path,
// as a browser keeps them) and a software authenticator, calling the server as the client does
// (fetch on the same origin: its cookies go along, and the Origin header names the page).
import type { LoginResponse, SignInWays } from '@shared/index';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { SoftAuthenticator } from './soft-authenticator';

interface Cookie {
  name: string;
  value: string;
  path: string;
  expires: number;
}

export interface PageAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  json: any;
  text: string;
  headers: Headers;
}

const pathMatches = (requestPath: string, cookiePath: string) =>
  requestPath === cookiePath || requestPath.startsWith(cookiePath.endsWith('/') ? cookiePath : `${cookiePath}/`);

export class PasskeyBrowser {
  cookies: Cookie[] = [];
  /** The origin the page is at (what the Origin header and the authenticator's client data say). */
  origin: string;

  constructor(
    readonly url: string,
    readonly authenticator: SoftAuthenticator = new SoftAuthenticator(),
    options: { origin?: string; userAgent?: string } = {},
  ) {
    this.origin = options.origin ?? new URL(url).origin;
    this.userAgent = options.userAgent;
  }

  private readonly userAgent: string | undefined;

  /** A request from the page, with the cookies of the jar its path matches. */
  async call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<PageAnswer> {
    const now = Date.now();
    this.cookies = this.cookies.filter((c) => c.expires > now);
    const headers: Record<string, string> = { origin: this.origin, ...options.headers };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const sent = this.cookies.filter((c) => pathMatches(path.split('?')[0] ?? '', c.path));
    if (sent.length) headers.cookie = sent.map((c) => `${c.name}=${c.value}`).join('; ');
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.url}${path}`, { method, headers, body, redirect: 'manual' });
    this.keepCookies(res.headers.getSetCookie());
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text, headers: res.headers };
  }

  private keepCookies(lines: string[]): void {
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair.slice(0, eq), value: pair.slice(eq + 1), path: '/', expires: Infinity };
      for (const attribute of attributes) {
        const [key = '', value = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') cookie.path = value;
        if (key.toLowerCase() === 'max-age') cookie.expires = Date.now() + Number(value) * 1000;
        if (key.toLowerCase() === 'expires') cookie.expires = Math.min(cookie.expires, Date.parse(value));
      }
      this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.path === cookie.path));
      if (cookie.value !== '' && cookie.expires > Date.now()) this.cookies.push(cookie);
    }
  }

  /** The cookie this page holds for a ceremony's path, if any. */
  cookieFor(path: string): Cookie | undefined {
    return this.cookies.find((c) => pathMatches(path, c.path));
  }

  // --- Ceremonies, each in two steps as the client does them ---

  async signUpOptions(): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const res = await this.call('POST', '/api/auth/passkey/register/options', { body: {} });
    if (res.status !== 200) throw new Error(`sign-up options: ${res.status} ${res.text}`);
    return res.json.options;
  }

  async signUp(): Promise<LoginResponse> {
    const options = await this.signUpOptions();
    const res = await this.call('POST', '/api/auth/passkey/register/verify', {
      body: { response: this.authenticator.register(options, this.origin) },
    });
    if (res.status !== 200) throw new Error(`sign-up: ${res.status} ${res.text}`);
    return res.json;
  }

  async signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const res = await this.call('POST', '/api/auth/passkey/login/options');
    if (res.status !== 200) throw new Error(`sign-in options: ${res.status} ${res.text}`);
    return res.json.options;
  }

  /** Signs in with `credentialId` (else the authenticator's first passkey of this site); answers the raw answer. */
  async signIn(credentialId?: string): Promise<PageAnswer> {
    const options = await this.signInOptions();
    return this.call('POST', '/api/auth/passkey/login/verify', {
      body: { response: this.authenticator.authenticate(options, this.origin, { credentialId }) },
    });
  }

  async addOptions(login: LoginResponse): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const res = await this.call('POST', `/api/users/${login.user.id}/passkeys/options`, { token: login.token });
    if (res.status !== 200) throw new Error(`add options: ${res.status} ${res.text}`);
    return res.json.options;
  }

  /** Adds a passkey of this page's authenticator to the account; answers its ways in. */
  async addPasskey(login: LoginResponse, name?: string): Promise<SignInWays> {
    const options = await this.addOptions(login);
    const res = await this.call('POST', `/api/users/${login.user.id}/passkeys`, {
      token: login.token,
      body: { response: this.authenticator.register(options, this.origin), ...(name ? { name } : {}) },
    });
    if (res.status !== 200) throw new Error(`add: ${res.status} ${res.text}`);
    return res.json;
  }

  async reauthOptions(login: LoginResponse): Promise<PageAnswer> {
    return this.call('POST', '/api/auth/reauth/passkey/options', { token: login.token });
  }

  /** Confirms it is the account's owner with `credentialId` (else the first passkey the options allow). */
  async reauth(login: LoginResponse, credentialId?: string): Promise<PageAnswer> {
    const options = await this.reauthOptions(login);
    if (options.status !== 200) return options;
    return this.call('POST', '/api/auth/reauth/passkey/verify', {
      token: login.token,
      body: { response: this.authenticator.authenticate(options.json.options, this.origin, { credentialId }) },
    });
  }

  async ways(login: LoginResponse): Promise<SignInWays> {
    const res = await this.call('GET', `/api/users/${login.user.id}/sign-in-ways`, { token: login.token });
    if (res.status !== 200) throw new Error(`ways: ${res.status} ${res.text}`);
    return res.json;
  }

  removeWay(login: LoginResponse, wayId: number): Promise<PageAnswer> {
    return this.call('DELETE', `/api/users/${login.user.id}/sign-in-ways/${wayId}`, { token: login.token });
  }
}
