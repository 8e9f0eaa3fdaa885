// What the access rules (http/access.ts) look up, and the features with them. See lookups.ts.
export { findProject, type VideoProjectRow } from '../videos/video-projects';
export { feedContains, loadViewer, pendingConditions, type Viewer } from './feed-membership';
export {
  canSee,
  currentIntentOf,
  findOwnEntry,
  findVisibleMatch,
  hasComeAcross,
  liveMutualMatch,
  mayDecideOn,
  roleOf,
} from './lookups';
