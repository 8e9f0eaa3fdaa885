// Every route comes from the shared contract (http/route.ts): an app with a route mounted by hand,
// beside the contract's, does not start, so no route can escape the authorization matrix.
import { api } from '@shared/index';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { assertRoutesInContract, mount } from './route';

const stackOf = (app: express.Express) => (app as unknown as { router: { stack: [] } }).router.stack;

describe('routes outside the contract', () => {
  it('an app whose routes all come from mount() passes', () => {
    const app = express();
    const router = express.Router();
    mount(router, api.health, async () => ({ ok: true }) as never);
    app.use(router);
    expect(() => assertRoutesInContract(stackOf(app))).not.toThrow();
  });

  it('a route added by hand, even in a nested router, stops the app', () => {
    const app = express();
    const router = express.Router();
    mount(router, api.health, async () => ({ ok: true }) as never);
    const nested = express.Router();
    nested.post('/users/:id/secret', (_req, res) => res.json({}));
    router.use('/api', nested);
    app.use(router);
    expect(() => assertRoutesInContract(stackOf(app))).toThrow(
      'POST /users/:id/secret is mounted outside the contract: define it in shared/src/api and mount() it',
    );
  });
});
