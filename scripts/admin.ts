// Moderation roles from the command line (docs/moderation.md, "Roles"):
//   npm run admin -- grant <username> moderator|admin
//   npm run admin -- revoke <username>
//   npm run admin -- list
// Against DATABASE_URL, or else the database `npm start` runs (its URL in .data/run/database-url).
import type { EntityManager } from '@mikro-orm/postgresql';
import { initOrm } from '@server/core/db/orm';
import { grantRole, isRole, listRoles, revokeRole } from '@server/features/moderation/roles';
import { databaseUrlOrExit } from './lib/running-instance';

const USAGE = 'Usage: npm run admin -- grant <username> moderator|admin | revoke <username> | list';

const [command, username, role] = process.argv.slice(2);
if (!command || (command !== 'list' && !username) || (command === 'grant' && !(role && isRole(role)))) {
  console.error(USAGE);
  process.exit(2);
}
const orm = await initOrm(databaseUrlOrExit());
const em = orm.em.fork() as EntityManager;
let code = 0;
try {
  if (command === 'grant' && username && role && isRole(role)) {
    const done = await grantRole(em, username, role);
    console.log(
      done ? `${username} is now ${role === 'admin' ? 'an admin' : 'a moderator'}.` : `No account named ${username}.`,
    );
    code = done ? 0 : 1;
  } else if (command === 'revoke' && username) {
    const done = await revokeRole(em, username);
    console.log(done ? `${username} has no moderation role now.` : `No account named ${username}.`);
    code = done ? 0 : 1;
  } else if (command === 'list') {
    const people = await listRoles(em);
    console.log(
      people.length ? people.map((p) => `${p.role}\t${p.username}`).join('\n') : 'Nobody has a moderation role.',
    );
  } else {
    console.error(USAGE);
    code = 2;
  }
} finally {
  await orm.close();
}
process.exit(code);
