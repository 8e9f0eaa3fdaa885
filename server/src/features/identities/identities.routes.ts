import { Router } from 'express';
import type { AppDeps } from '../../app-deps';

export function identitiesRoutes(_deps: AppDeps): Router {
  const router = Router();
  return router;
}
