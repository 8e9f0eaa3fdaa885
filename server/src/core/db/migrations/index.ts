import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122015653 } from './Migration20261122015653';
import { Migration20261122023714 } from './Migration20261122023714';
import { Migration20261122023926 } from './Migration20261122023926';
import { Migration20261122024101 } from './Migration20261122024101';
import { Migration20261122033824 } from './Migration20261122033824';
import { Migration20261123150000 } from './Migration20261123150000';
import { Migration20261123170000 } from './Migration20261123170000';
import { Migration20261123180000 } from './Migration20261123180000';
import { Migration20261123200000 } from './Migration20261123200000';
import { Migration20261123210000 } from './Migration20261123210000';
import { Migration20261123220000 } from './Migration20261123220000';
import { Migration20261123230000 } from './Migration20261123230000';
import { Migration20261124000000 } from './Migration20261124000000';
import { Migration20261124100000 } from './Migration20261124100000';
import { Migration20261124110000 } from './Migration20261124110000';
import { Migration20261124120000 } from './Migration20261124120000';
import { Migration20261124130000 } from './Migration20261124130000';
import { Migration20261124140000 } from './Migration20261124140000';
import { Migration20261126140000 } from './Migration20261126140000';
import { Migration20261126180000 } from './Migration20261126180000';
import { Migration20261126190000 } from './Migration20261126190000';

/** Every committed migration, oldest first. Add new ones here when you create them. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122015653', class: Migration20261122015653 },
  { name: 'Migration20261122023714', class: Migration20261122023714 },
  { name: 'Migration20261122023926', class: Migration20261122023926 },
  { name: 'Migration20261122024101', class: Migration20261122024101 },
  { name: 'Migration20261122033824', class: Migration20261122033824 },
  { name: 'Migration20261123150000', class: Migration20261123150000 },
  { name: 'Migration20261123170000', class: Migration20261123170000 },
  { name: 'Migration20261123180000', class: Migration20261123180000 },
  { name: 'Migration20261123200000', class: Migration20261123200000 },
  { name: 'Migration20261123210000', class: Migration20261123210000 },
  { name: 'Migration20261123220000', class: Migration20261123220000 },
  { name: 'Migration20261123230000', class: Migration20261123230000 },
  { name: 'Migration20261124000000', class: Migration20261124000000 },
  { name: 'Migration20261124100000', class: Migration20261124100000 },
  { name: 'Migration20261124110000', class: Migration20261124110000 },
  { name: 'Migration20261124120000', class: Migration20261124120000 },
  { name: 'Migration20261124130000', class: Migration20261124130000 },
  { name: 'Migration20261124140000', class: Migration20261124140000 },
  { name: 'Migration20261126140000', class: Migration20261126140000 },
  { name: 'Migration20261126180000', class: Migration20261126180000 },
  { name: 'Migration20261126190000', class: Migration20261126190000 },
];
