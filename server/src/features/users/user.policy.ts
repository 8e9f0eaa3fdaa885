import type { AuthContext } from '../../http/request-context';

/** Users act only on themselves (SPEC section 6); everyone signed in sees public fields. */
export const userPolicy = {
  isOwner: (auth: AuthContext, userId: number) => auth.userId === userId,
};
