// Worker thread of the full recompute: runs pass 1 or pass 2 (score-people.ts) on the ranges of
// people the main thread hands out. The people data is shared memory, not a copy; pass 2 sends
// back COPY text.
import { parentPort, workerData } from 'node:worker_threads';
import { type PeopleData, PeopleScorer } from './score-people';

const scorer = new PeopleScorer(workerData as PeopleData);
parentPort?.on('message', (range: { pass: 1 | 2; from: number; to: number }) => {
  if (range.pass === 1) {
    scorer.findCandidates(range.from, range.to);
    parentPort?.postMessage({ ...range, rows: 0, chunk: new Uint8Array(0) });
    return;
  }
  const { text, rows } = scorer.scoreRange(range.from, range.to);
  const bytes = Buffer.from(text);
  const chunk = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice();
  parentPort?.postMessage({ ...range, rows, chunk }, [chunk.buffer]);
});
