// What other features use of Matches: the options dialog (unmatch, block, report) and the report
// request, so the chat can report the person it is with (docs/chat.md, "The safety nudge").
export { MatchOptionsDialog } from './match-options-dialog';
export { useReportUser } from './match-queries';
