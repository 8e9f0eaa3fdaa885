import { z } from 'zod';
import { IdSchema } from '../schemas/common';

export const UserIdParams = z.strictObject({ userId: IdSchema });
export const EntryIdParams = z.strictObject({ id: IdSchema });
