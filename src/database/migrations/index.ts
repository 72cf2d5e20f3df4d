import { Foundation1763874000000 } from './1763874000000-foundation.js';

/** Listed explicitly (not globbed) so the same list works from `src` under Jest and from `dist`. */
export const MIGRATIONS = [Foundation1763874000000];
