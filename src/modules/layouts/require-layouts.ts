import type { EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import type { LayoutSet } from './layout-schema.js';
import type { LayoutsService } from './layouts.service.js';

/**
 * INVALID_LAYOUT_REF unless every ref names a layout of this owner and set. The layouts found stay
 * share-locked until `manager`'s transaction ends, so they cannot be deleted under the records that use them.
 */
export async function requireLayouts(
  layouts: LayoutsService,
  manager: EntityManager,
  ownerId: string,
  set: LayoutSet,
  refs: string[],
): Promise<void> {
  const missing = await layouts.findMissingRefs(manager, ownerId, set, refs);
  if (missing.length) {
    throw new AppError('INVALID_LAYOUT_REF', `No ${set} layout with these refs for this account: ${missing.join(', ')}`, {
      layout_refs: missing,
    });
  }
}
