import { type ApiError, refusals } from './errors.js';

export const roles = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof roles)[number];

/** The caller of a request; anonymous callers have no user. */
export interface User {
  id: number;
  name: string;
  role: Role;
}

/** What a record looks like to the permission rules. */
export interface Owned {
  author: number;
  status: string;
}

const rank: Record<Role, number> = { administrator: 4, editor: 3, author: 2, contributor: 1, subscriber: 0 };

/** Editors and administrators: every record, every status, the terms. */
export const isEditor = (user: User | undefined) => user !== undefined && rank[user.role] >= rank.editor;

/**
 * WordPress's `unfiltered_html`: editors and administrators store markup as sent; every other
 * role's HTML is filtered on write (safe-fields.ts).
 */
export const hasUnfilteredHtml = isEditor;

/** Authors and up publish their own posts (WordPress's publish_posts). */
export const canPublish = (user: User | undefined) => user !== undefined && rank[user.role] >= rank.author;

/** Contributors and up may write posts (events, venues, organizers). */
export const canWritePosts = (user: User | undefined) =>
  user !== undefined && rank[user.role] >= rank.contributor;

/**
 * The term routes' rights, as TEC 6.17.2 maps them: Term_Single_Base::can_create, can_edit and
 * can_delete are one check, the event post type's edit_posts (edit_tribe_events: contributors
 * and up) and the taxonomy's manage_terms. Tribe__Events__Main registers the category taxonomy
 * with manage_terms = publish_tribe_events (authors and up); post_tag is WordPress's, whose
 * manage_terms is manage_categories (editors and up). So authors create, edit and delete
 * categories; contributors and subscribers manage no terms.
 */
export function canManageTerms(user: User | undefined, kind: 'categories' | 'tags'): boolean {
  if (!canWritePosts(user)) return false;
  return kind === 'categories' ? canPublish(user) : isEditor(user);
}

/** May `user` edit (or delete) `record`, as WordPress's edit_post/delete_post capabilities. */
export function canEdit(user: User | undefined, record: Owned): boolean {
  if (!user) return false;
  if (isEditor(user)) return true;
  if (record.author !== user.id) return false;
  if (user.role === 'author') return true;
  return user.role === 'contributor' && !['publish', 'future', 'private'].includes(record.status);
}

/**
 * canRead as data, for queries that filter many records at once: besides published records,
 * every record but trashed ones (`all`), or those of `author` except `hiddenStatuses`.
 * Trashed records are never embedded or listed by this scope.
 */
export interface ReadScope {
  all: boolean;
  author?: number;
  hiddenStatuses: string[];
}

export function readScope(user: User | undefined): ReadScope {
  if (isEditor(user)) return { all: true, hiddenStatuses: ['trash'] };
  if (user?.role === 'author') return { all: false, author: user.id, hiddenStatuses: ['trash'] };
  if (user?.role === 'contributor') {
    return { all: false, author: user.id, hiddenStatuses: ['publish', 'future', 'private', 'trash'] };
  }
  return { all: false, hiddenStatuses: [] };
}

/**
 * What one caller sees of many records at once: linked records embedded in events (canRead),
 * and which password-protected events a search may match (only those the caller may edit:
 * matching their hidden text would let anyone rebuild it word by word).
 */
export interface Viewer {
  scope: ReadScope;
  protectedSearch: { all: boolean; author?: number };
}

export function viewerOf(user: User | undefined): Viewer {
  const protectedSearch = isEditor(user)
    ? { all: true }
    : canWritePosts(user)
      ? { all: false, author: user!.id }
      : { all: false };
  return { scope: readScope(user), protectedSearch };
}

/** May `user` see a record that is not published (drafts, pending, private...). */
export const canRead = (user: User | undefined, record: Owned) =>
  record.status === 'publish' || canEdit(user, record) || (user !== undefined && isEditor(user));

/** 401 for anonymous callers, 403 for a role that lacks the right. */
export function forbidden(
  user: User | undefined,
  message = 'Sorry, you are not allowed to do that.',
): ApiError {
  return refusals.forbidden(user !== undefined, message);
}

/**
 * The status a new or updated post gets: contributors may only draft or submit for review
 * (asking publish/future gives `pending`, nothing gives `draft`); others default to `publish`.
 */
export function statusOnWrite(user: User, asked: string | undefined, current?: string): string {
  if (user.role === 'contributor') {
    if (asked === undefined) return current ?? 'draft';
    return ['publish', 'future', 'private'].includes(asked) ? 'pending' : asked;
  }
  return asked ?? current ?? 'publish';
}

export const postStatuses = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;

/** Every status but `trash`: what WordPress's `any` means. */
const anyStatus = postStatuses.filter((status) => status !== 'trash');

/**
 * The statuses a list shows `user` when it asks for `asked` (undefined: the default), and
 * whose author the non-published ones must have; undefined when the caller may not ask that.
 * Anonymous callers and subscribers see published records only. Roles that may edit see every
 * status by default, as The Events Calendar lists `any` for them: editors every record,
 * authors and contributors the published ones and their own.
 */
export function listedStatuses(
  user: User | undefined,
  asked: string[] | undefined,
): { statuses: string[]; ownAuthor?: number } | undefined {
  const onlyPublished = asked?.every((status) => status === 'publish') === true;
  if (onlyPublished || (asked === undefined && !canWritePosts(user))) return { statuses: ['publish'] };
  if (!user || !canWritePosts(user)) return undefined;
  const statuses = asked === undefined ? anyStatus : [...new Set(asked)];
  return isEditor(user) ? { statuses } : { statuses, ownAuthor: user.id };
}
