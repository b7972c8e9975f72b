/**
 * Every refusal of the calendar API, with The Events Calendar's (or WordPress's) stable codes
 * and messages: routes and domain rules throw one of the constructors of {@link refusals} (or
 * the parameter helpers below); one error handler renders them. The codes are part of the API:
 * never change one, add another.
 */

/**
 * An error answered as WordPress does (`rest_convert_error_to_response`):
 * `{code, message, data: {status, params?, ...}, additional_data?}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    /** WordPress's `additional_data`: the earlier data of the same error code, oldest first. */
    readonly additionalData?: unknown[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON() {
    const body = { code: this.code, message: this.message, data: { status: this.status, ...this.extra } };
    return this.additionalData ? { ...body, additional_data: this.additionalData } : body;
  }
}

/**
 * 400 `rest_invalid_param` naming each bad parameter and why: `data.params` (name -> message)
 * and, as WordPress 5.5+, `data.details` (name -> the error of that parameter).
 */
export function invalidParams(params: Record<string, string>): ApiError {
  const details = Object.fromEntries(
    Object.entries(params).map(([name, message]) => [
      name,
      { code: 'rest_invalid_param', message, data: null },
    ]),
  );
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
    params,
    details,
  });
}

export const invalidParam = (name: string, why: string) => invalidParams({ [name]: why });

/**
 * WordPress's answer when an argument's `validate_callback` returns false (how The Events
 * Calendar checks a term id or a category parent, `is_event_category`): the parameter named with
 * WordPress's own `Invalid parameter.` and `details` empty (`[]`: a bare false carries none).
 */
export const invalidArgument = (name: string) =>
  new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${name}`, {
    params: { [name]: 'Invalid parameter.' },
    details: [],
  });

export function missingParams(names: string[]): ApiError {
  return new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, {
    params: names,
  });
}

export const noRoute = () =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

/** Seconds a client should wait before retrying while the database is unreachable. */
export const RETRY_AFTER_S = 5;

/**
 * 503 while PostgreSQL is unreachable or a statement ran past its time limit: the request may
 * succeed later (sent with `Retry-After`); the driver's own message never reaches the client.
 */
export const unavailable = () =>
  new ApiError(503, 'rest_service_unavailable', 'The calendar is temporarily unavailable; retry shortly.');

/** A post kind of the API: events, venues and organizers share their refusals. */
export type PostKind = 'event' | 'venue' | 'organizer';

const capitalized = (kind: PostKind) => `${kind[0]!.toUpperCase()}${kind.slice(1)}`;

/** The catalogue: one constructor per refusal, code and message fixed here only. */
export const refusals = {
  // Worded as TEC 6.17.2's Tribe__Events__REST__V1__Messages (no closing period where it has none).
  /** GET/update/delete of an id that does not exist: `rest-event-not-found`, sprintf'd with the id. */
  notFound: (kind: PostKind, id: number) =>
    new ApiError(404, `rest-${kind}-not-found`, `${capitalized(kind)} with ID ${id} does not exist.`),
  /** GET of a trashed record (`event-no-longer-available`). */
  noLongerAvailable: (kind: PostKind) =>
    new ApiError(403, `${kind}-no-longer-available`, `This ${kind} is no longer available`),
  /** GET of a record the caller may not read (someone else's draft). */
  notAccessible: (kind: PostKind) =>
    new ApiError(403, `${kind}-not-accessible`, `The requested ${kind} is not accessible`),
  /** GET of a protected event without its password. */
  passwordProtected: () =>
    new ApiError(403, 'event-password-protected', 'The requested event is not accessible without a password'),
  /** DELETE of a record already in the trash. */
  inTrash: (kind: PostKind) => new ApiError(410, `${kind}-is-in-trash`, `The ${kind} is already trashed`),
  /** A page past the last one of an event, venue or organizer list. */
  archivePageNotFound: (kind: PostKind) =>
    new ApiError(404, `${kind}-archive-page-not-found`, `The requested ${kind} archive page does not exist`),
  /**
   * A term id that does not exist (`/categories/{id}`, `/tags/{id}`, any method, a second delete
   * too): The Events Calendar validates the path's `id` before its handler runs (issue 36).
   */
  termInvalid: () => invalidArgument('id'),
  /** A category parent that does not exist: `parent` is validated as the id is. */
  parentTermInvalid: () => invalidArgument('parent'),
  /**
   * A term name already used (under the same parent for categories), worded as `wp_insert_term`
   * for a hierarchical taxonomy or not. WordPress's REST controller adds the existing id to the
   * error twice before its `{status, term_id}`, so its body also carries
   * `additional_data: [id, id]`.
   */
  termExists: (termId: number, hierarchical: boolean) =>
    new ApiError(
      400,
      'term_exists',
      hierarchical
        ? 'A term with the name provided already exists with this parent.'
        : 'A term with the name provided already exists in this taxonomy.',
      { term_id: termId },
      [termId, termId],
    ),
  /** A term slug already used. */
  duplicateTermSlug: (slug: string) =>
    new ApiError(400, 'duplicate_term_slug', `The slug "${slug}" is already in use by another term.`),
  /** No credentials (401) or a role without the right (403). */
  forbidden: (authenticated: boolean, message = 'Sorry, you are not allowed to do that.') =>
    authenticated
      ? new ApiError(403, 'rest_forbidden', message)
      : new ApiError(401, 'rest_forbidden', 'Sorry, you are not allowed to do that.'),
  /** A JSON body that does not parse. */
  invalidJson: () => new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.'),
  /** Anything unexpected: logged, never detailed to the client. */
  internal: () => new ApiError(500, 'rest_internal_error', 'Internal server error.'),
  noRoute,
  unavailable,
} as const;
