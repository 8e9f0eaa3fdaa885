// An account's ways to sign in (docs/auth.md): passkeys, the email address, Bluesky, Spotify.
export { SignInWaysCard } from './sign-in-ways-card';
