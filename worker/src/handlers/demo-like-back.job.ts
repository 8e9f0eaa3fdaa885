import { answerLike } from '@server/core/matches/demo-replies';
import type { JobHandler } from './handler';

/**
 * A demo person answers a like, after the delay it was enqueued with (docs/matches.md, "Demo
 * people"): likes back or not, by the same rules as a person's like, and announces a mutual match.
 */
export const demoLikeBack: JobHandler<'demoLikeBack'> = async (payload, ctx) => {
  const answer = await answerLike(ctx.em, ctx.publisher, ctx.artwork, payload);
  ctx.logger.info(
    `demo.likeBack: ${payload.demoId} -> ${payload.likerId} (${payload.intent}): ${answer.likedBack ? 'liked back' : 'no'}`,
  );
  return answer;
};
