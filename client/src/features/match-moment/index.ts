// The moment of a new mutual match (docs/matches.md, "The match moment").
export {
  announceMatch,
  MatchMomentHost,
  pendingMatchMoments,
  resetAnnouncedMatches,
  useMatchMoment,
} from './match-moment';
