// The order vitest starts test files in: the slowest first (by the last run's durations, or the
// largest first when there are none, as in a fresh clone), across projects. Vitest's own order runs
// one project's files before the next one's; when server and worker share one call (npm test), a
// long worker file started last would keep the cores waiting for it alone at the end.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (spec: TestSpecification) => `${spec.project.name}:${path.relative(config.root, spec.moduleId)}`;
    return [...files].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      const [aRun, bRun] = [cache.getFileTestResults(key(a)), cache.getFileTestResults(key(b))];
      if (aRun && bRun) {
        if (aRun.failed !== bRun.failed) return aRun.failed ? -1 : 1;
        return bRun.duration - aRun.duration;
      }
      // Unknown to the cache: never run, or run before a test was added to it; first, larger first.
      if (aRun || bRun) return aRun ? 1 : -1;
      return (cache.getFileStats(key(b))?.size ?? 0) - (cache.getFileStats(key(a))?.size ?? 0);
    });
  }
}
