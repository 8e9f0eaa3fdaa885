// Entry of a scoring thread: registers the TypeScript loader (worker threads do not inherit
// `--import tsx` reliably), then runs the thread code.
import { register } from 'tsx/esm/api';

register();
await import('./score-people.thread.ts');
