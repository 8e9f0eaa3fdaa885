import type { EntityManager } from '@mikro-orm/postgresql';
import { api } from '@shared/index';
import { type Request, Router } from 'express';
import multer from 'multer';
import type { AppDeps } from '../../app-deps';
import { stageJob } from '../../core/jobs/outbox';
import { type LibraryRow, toPodcastSummary, toUserPodcastEntry } from '../../core/presenters/podcast.presenter';
import { badRequest, conflict, HttpError, notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { OPML_LIMITS, OpmlError, parseOpml } from './opml';
import {
  addToLibrary,
  importFeeds,
  LibraryFullError,
  listLibrary,
  removeEntry,
  searchCatalog,
  setHidden,
} from './podcast.service';

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: OPML_LIMITS.maxBytes, files: 1, fields: 5, parts: 10 },
}).single('opml');

export function podcastsRoutes(deps: AppDeps): Router {
  const router = Router();
  /**
   * A library change and the recompute of who matches this person (matching depends on libraries),
   * committed together (the job outbox), then relayed to the queue.
   */
  const changeLibrary = async <T>(req: Request, userId: number, change: (tx: EntityManager) => Promise<T>) => {
    const result = await req.effects.transactional(req.em, async (tx) => {
      const changed = await change(tx);
      if (changed) await stageJob(tx, 'matchesRecompute', { scope: 'user', userId });
      return changed;
    });
    req.effects.relayOutbox();
    return result;
  };
  const present = (row: LibraryRow) => toUserPodcastEntry(row, deps.artwork);

  // Access rules: shared/src/api/podcasts.ts. Others see someone's podcasts only through what
  // matching shows them (shared podcasts), and never the hidden ones.
  mount(router, api.listUserPodcasts, async ({ params, query, req }) =>
    (await listLibrary(req.em, params.userId, query)).map(present),
  );

  mount(router, api.addUserPodcast, async ({ params, body, req }) => {
    let entry: Awaited<ReturnType<typeof addToLibrary>>;
    try {
      entry = await changeLibrary(req, params.userId, (tx) => addToLibrary(tx, params.userId, body.podcastId));
    } catch (error) {
      if (error instanceof LibraryFullError) throw conflict(error.message);
      throw error;
    }
    if (!entry) throw notFound('Podcast not found.');
    return present(entry);
  });

  // The file is parsed and stored at once; feeds are read by the worker afterwards. The upload is
  // read only after the access rule passed.
  mount(
    router,
    api.importOpml,
    async ({ params, req }) => {
      if (!req.file) throw badRequest('Attach the OPML file in the form field "opml".');
      let parsed: ReturnType<typeof parseOpml>;
      try {
        // Feeds on other ports than 80/443 are skipped, unless the development allow-list is set.
        parsed = parseOpml(req.file.buffer.toString('utf8'), { anyPort: deps.config.feedFetchAllowedIps.length > 0 });
      } catch (error) {
        if (error instanceof OpmlError) throw badRequest(error.message);
        throw error;
      }
      // The feed reads and the recompute commit with the entries (the job outbox).
      const result = await importFeeds(req.em, params.userId, parsed.feeds);
      req.effects.relayOutbox();
      return {
        feeds: parsed.feeds.length,
        added: result.added,
        alreadyInLibrary: result.alreadyInLibrary,
        skipped: parsed.skipped,
        notAdded: result.notAdded,
        limitNote: result.limitNote,
        jobIds: result.jobIds,
      };
    },
    [
      (req, res, next) =>
        upload(req, res, (error: unknown) => {
          if (!error) return next();
          if (error instanceof multer.MulterError) {
            const message =
              error.code === 'LIMIT_FILE_SIZE'
                ? 'The OPML file is larger than 1 MB.'
                : `Upload refused: ${error.message}.`;
            return next(new HttpError(error.code === 'LIMIT_FILE_SIZE' ? 413 : 400, 'bad_upload', message));
          }
          next(badRequest('Send the OPML file as multipart/form-data.'));
        }),
    ],
  );

  // Someone else's entry answers 404 (access rule), so hidden entries do not leak.
  mount(router, api.updateUserPodcast, async ({ entry, body, auth, req }) => {
    const updated = await changeLibrary(req, auth.userId, (tx) => setHidden(tx, entry.id, auth.userId, body.hidden));
    if (!updated) throw notFound('Podcast entry not found.');
    return present(updated);
  });

  mount(router, api.removeUserPodcast, async ({ entry, auth, req }) => {
    const removed = await changeLibrary(req, auth.userId, (tx) => removeEntry(tx, entry.id, auth.userId));
    if (!removed) throw notFound('Podcast entry not found.');
    return { ok: true as const };
  });

  mount(router, api.searchPodcasts, async ({ query, req, auth }) =>
    (await searchCatalog(req.em, query.q, query.limit, auth.userId)).map((row) => toPodcastSummary(row, deps.artwork)),
  );

  return router;
}
