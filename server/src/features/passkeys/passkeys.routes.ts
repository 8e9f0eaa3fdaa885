import { Router } from 'express';
import type { AppDeps } from '../../app-deps';

export function passkeysRoutes(_deps: AppDeps): Router {
  const router = Router();
  return router;
}
