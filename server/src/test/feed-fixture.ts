// The feed fixture (scripts/lib/feed-fixture.ts) on the test file's database unless told another.
import * as fixture from '../../../scripts/lib/feed-fixture';
import { testDatabaseUrl } from './test-stack';

export { FIXTURE_SCORE } from '../../../scripts/lib/feed-fixture';

/** People in each other's feeds through a show they share (fixture.shareAShow). */
export const shareAShow = (
  pairs: [{ id: number }, { id: number }][],
  databaseUrl: string = testDatabaseUrl(),
  options: { markComputed?: boolean } = {},
) => fixture.shareAShow(databaseUrl, pairs, options);

/** Out of each other's candidate lists again (fixture.forgetCandidates). */
export const forgetCandidates = (pairs: [{ id: number }, { id: number }][], databaseUrl: string = testDatabaseUrl()) =>
  fixture.forgetCandidates(databaseUrl, pairs);
