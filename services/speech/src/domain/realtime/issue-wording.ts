/**
 * Our words for what is wrong with a field of a client event, in place of zod's (its wording
 * changes between releases and speaks of schemas, not of the protocol). Messages a schema sets
 * itself (`{ message }`) win over these.
 */
import type { z } from 'zod';

const ARTICLE: Record<string, string> = { int: 'an integer', object: 'an object', array: 'an array' };
const quoted = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');

function bound(issue: { origin?: string; inclusive?: boolean }, limit: unknown, above: boolean): string {
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : '';
  if (issue.origin === 'string' || issue.origin === 'array') {
    return `must have ${above ? 'at most' : 'at least'} ${String(limit)}${unit}`;
  }
  if (issue.inclusive === false) return `must be ${above ? 'below' : 'above'} ${String(limit)}`;
  return `must be ${above ? 'at most' : 'at least'} ${String(limit)}`;
}

/** What is wrong with the value, as the end of "Invalid value for 'field': ...". */
export function issueWording(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${ARTICLE[issue.expected] ?? `a ${issue.expected}`}`;
    case 'too_big':
      return bound(issue, issue.maximum, true);
    case 'too_small':
      return bound(issue, issue.minimum, false);
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoted(issue.values)}`
        : `must be one of ${quoted(issue.values)}`;
    case 'invalid_union':
      return 'options' in issue && Array.isArray(issue.options)
        ? `must be one of ${quoted(issue.options)}`
        : 'is not one of the accepted forms';
    default:
      return 'is not valid';
  }
}
