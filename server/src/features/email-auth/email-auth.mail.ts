// The messages of email sign-in (docs/auth.md): short, the code first, what it is for, when it
// ends, and what to do if the person did not ask. Plain text, with a simple HTML twin.
import { EMAIL_CODE_TTL_MINUTES } from '@shared/index';
import type { EmailCodePurpose } from '../../core/db/entities';
import type { OutgoingMail } from '../../core/mail/mailer';

const FOR: Record<EmailCodePurpose, string> = {
  signIn: 'to sign in to PodMatch',
  link: 'to add this address to your PodMatch account',
  reauth: 'to confirm it is you before you change how you sign in to PodMatch',
};

const IF_NOT_YOU: Record<EmailCodePurpose, string> = {
  signIn: 'If you did not ask for it, you can ignore this email: nobody can sign in without the code.',
  link: 'If you did not ask for it, you can ignore this email: the address is not added without the code.',
  reauth:
    'If you did not ask for it, you can ignore this email, but someone may be signed in to your account: sign out everywhere from your profile.',
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function codeMail(to: string, purpose: EmailCodePurpose, code: string): OutgoingMail {
  const lines = [
    `Your PodMatch code is ${code}`,
    `Enter it ${FOR[purpose]}. It expires in ${EMAIL_CODE_TTL_MINUTES} minutes and works once.`,
    IF_NOT_YOU[purpose],
  ];
  return {
    to,
    subject: `${code} is your PodMatch code`,
    text: `Your PodMatch code is:\n\n    ${code}\n\n${lines[1]}\n\n${lines[2]}\n`,
    html: `<p>Your PodMatch code is:</p>
<p style="font-size:32px;font-weight:bold;letter-spacing:6px;font-family:monospace">${code}</p>
<p>${escapeHtml(lines[1] ?? '')}</p>
<p style="color:#555">${escapeHtml(lines[2] ?? '')}</p>`,
  };
}

/** To the address an account no longer signs in with, so a takeover by a new address is noticed. */
export function addressChangedMail(to: string, newAddress: string): OutgoingMail {
  const text = [
    `Your PodMatch account now signs in with ${newAddress} instead of this address.`,
    'If you did this, there is nothing to do.',
    'If you did not, someone else may be using your account: sign in another way (a passkey, Bluesky or Spotify) and sign out everywhere from your profile.',
  ];
  return {
    to,
    subject: 'Your PodMatch sign-in address was changed',
    text: `${text.join('\n\n')}\n`,
    html: text.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n'),
  };
}
