import {
  DevMailIdParams,
  DevMailLatestQuerySchema,
  DevMailMessageQuerySchema,
  DevMailMessageSchema,
} from '../schemas/dev-mail';
import { BinarySchema, defineEndpoint } from './endpoint';

/**
 * The development mailbox (docs/auth.md): mounted only outside production and only when no SMTP
 * server is configured; a 404 everywhere else. Public like the development login: a development
 * server listens on this machine only unless HOST says otherwise.
 */
export const devMailApi = {
  /** The page listing the messages, newest first (HTML). */
  devMailbox: defineEndpoint({
    method: 'GET',
    path: '/dev/mail',
    access: 'public',
    kind: 'binary',
    response: BinarySchema,
  }),
  /** One message as a page, or (`?format=eml`) as the raw message a mail program opens. */
  devMailMessage: defineEndpoint({
    method: 'GET',
    path: '/dev/mail/:id',
    access: 'public',
    kind: 'binary',
    params: DevMailIdParams,
    query: DevMailMessageQuerySchema,
    response: BinarySchema,
  }),
  /** The newest message to an address (browser tests read their code here); 404 while there is none. */
  devMailLatest: defineEndpoint({
    method: 'GET',
    path: '/api/dev/mail/latest',
    access: 'public',
    query: DevMailLatestQuerySchema,
    response: DevMailMessageSchema,
  }),
} as const;
