// The development mailbox at /dev/mail (docs/auth.md, "The development mailbox"): what the app
// would have mailed, for a developer running `npm start` without a mail server. Mounted only when
// the mailer writes there (outside production, no SMTP_URL); everywhere else /dev/* is a 404.
import { api, type DevMailMessage } from '@shared/index';
import { type Response, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1b1b1f}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}
.code{font:bold 1.15rem monospace;letter-spacing:.12em}pre{white-space:pre-wrap;background:#f5f5f7;padding:1rem;border-radius:6px}
.muted{color:#5a5a66}`;

function sendPage(res: Response, title: string, body: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`,
    );
}

const when = (message: DevMailMessage) => new Date(message.sentAt).toLocaleString('en-GB', { timeZone: 'UTC' });

export function devMailRoutes(deps: AppDeps): Router {
  const router = Router();
  const mailbox = deps.mail?.devMailbox;
  if (!mailbox) return router;

  mount(router, api.devMailbox, async ({ res }) => {
    const messages = await mailbox.list();
    const rows = messages
      .map(
        (m) =>
          `<tr><td class="muted">${escapeHtml(when(m))} UTC</td><td>${escapeHtml(m.to)}</td><td><a href="/dev/mail/${escapeHtml(m.id)}">${escapeHtml(m.subject)}</a></td><td class="code">${escapeHtml(m.code ?? '')}</td></tr>`,
      )
      .join('');
    sendPage(
      res,
      'Development mailbox',
      `<h1>Development mailbox</h1>
<p class="muted">What PodMatch would have emailed (no SMTP_URL is set). Newest first; the messages are <code>.eml</code> files in <code>${escapeHtml(mailbox.dir)}</code>.</p>
${
  messages.length
    ? `<table><thead><tr><th scope="col">Sent</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Code</th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p>No messages yet. Ask for a sign-in code on the login screen and it lands here.</p>'
}`,
    );
  });

  mount(router, api.devMailMessage, async ({ params, query, res }) => {
    if (query.format === 'eml') {
      const raw = await mailbox.raw(params.id);
      if (!raw) throw notFound('No such message.');
      res.setHeader('Cache-Control', 'no-store');
      res.type('message/rfc822').attachment(`${params.id}.eml`).send(raw);
      return;
    }
    const m = await mailbox.get(params.id);
    if (!m) throw notFound('No such message.');
    sendPage(
      res,
      m.subject,
      `<p><a href="/dev/mail">&larr; All messages</a></p>
<h1>${escapeHtml(m.subject)}</h1>
<p><span class="muted">From</span> ${escapeHtml(m.from)}<br><span class="muted">To</span> ${escapeHtml(m.to)}<br><span class="muted">Sent</span> ${escapeHtml(when(m))} UTC</p>
${m.code ? `<p>Code: <span class="code">${escapeHtml(m.code)}</span></p>` : ''}
<pre>${escapeHtml(m.text)}</pre>
<p><a href="/dev/mail/${escapeHtml(m.id)}?format=eml">Download the .eml</a> to open it in a mail program.</p>`,
    );
  });

  mount(router, api.devMailLatest, async ({ query }) => {
    const [latest] = await mailbox.list({ to: query.to, limit: 1 });
    if (!latest) throw notFound('No message to that address yet.');
    return latest;
  });

  return router;
}
