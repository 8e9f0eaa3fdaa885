import type { z } from 'zod';

// What a person reads when a request fails validation. Schemas in shared/ may word their own
// messages, either as a sentence ("Usernames can be at most 40 characters.") or as what is wrong with
// the field ("must be a number", "hidden must be true or false"); a check without one gets a sentence
// from `describeIssue`. `humanMessage` then makes every message a sentence that names the field in
// words: never "Invalid body.username: ..." or zod's own wording. The failing field's path stays
// machine-readable in the issue's `path`.

/** A field's name for people: the last named segment of its path, "matchId" -> "match id". */
export function fieldLabel(path: readonly PropertyKey[]): string {
  const name = [...path].reverse().find((segment): segment is string => typeof segment === 'string');
  if (!name) return 'request';
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A sentence for an issue whose schema gave no message of its own (passed to zod as the parse's error map). */
export function describeIssue(issue: z.core.$ZodRawIssue): string {
  const label = fieldLabel(issue.path ?? []);
  const Label = capitalize(label);
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `${Label} is required.` : `That is not a valid ${label}.`;
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `${Label} can be at most ${max} characters.`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${Label} can have at most ${max} items.`;
      return issue.inclusive === false ? `${Label} must be less than ${max}.` : `${Label} can be at most ${max}.`;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') {
        return min <= 1 ? `${Label} is required.` : `${Label} must be at least ${min} characters.`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') return `${Label} needs at least ${min} items.`;
      return issue.inclusive === false ? `${Label} must be more than ${min}.` : `${Label} must be at least ${min}.`;
    }
    case 'invalid_value':
      return `Choose a valid ${label}: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys':
      return `This request has ${issue.keys.length === 1 ? 'a field' : 'fields'} we do not accept: ${issue.keys.join(', ')}.`;
    default:
      return `That is not a valid ${label}.`;
  }
}

/**
 * The message of an issue as a sentence: a schema's sentence as written (with a full stop), a
 * fragment about the field ("must be a number") after the field's name ("Match id must be a number.").
 */
export function humanMessage(issue: z.core.$ZodIssue): string {
  const message = issue.message.trim();
  let sentence = message;
  if (/^[a-z]/.test(message)) {
    const label = fieldLabel(issue.path);
    const key = [...issue.path].reverse().find((segment) => typeof segment === 'string');
    const subject = typeof key === 'string' && message.startsWith(`${key} `) ? message.slice(key.length + 1) : message;
    sentence = `${capitalize(label)} ${subject}`;
  }
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
