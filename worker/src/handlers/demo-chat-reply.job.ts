import { answerChat } from '@server/core/matches/demo-chat';
import type { JobHandler } from './handler';

/**
 * A demo person answers a message in a match with them, after the pause it was staged with
 * (docs/matches.md, "Demo people"): typing first, then a scripted line; a goodbye after a few.
 */
export const demoChatReply: JobHandler<'demoChatReply'> = async (payload, ctx) => {
  const answer = await answerChat(ctx.em, ctx.publisher, payload);
  ctx.logger.info(`demo.chatReply: match ${payload.matchId}: ${answer.replied ? 'answered' : 'nothing to answer'}`);
  return answer;
};
