import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import type { PartnerPrincipal, Principal } from '../auth/principal.js';
import type { DeletedLayoutView, LayoutPreviewDto, LayoutView } from './dto/layout.dto.js';
import type { LayoutDraft } from './layout-input.pipe.js';
import { checkLayoutRef, LAYOUT_SET_OWNER, LAYOUT_SETS, type LayoutBody, type LayoutLanguage, type LayoutSet } from './layout-schema.js';
import { LayoutUsage } from './layout-usage.js';
import type { Layout } from './layout.entity.js';
import { LayoutsRepository } from './layouts.repository.js';
import { isPlainObject } from '../../common/validation/json-input.js';
import { recordContext, renderLayout, type RenderedLayout, ticketContext } from './render.js';

function toView(layout: Layout): LayoutView {
  return {
    layout_ref: layout.ref,
    set: layout.set,
    name: layout.name,
    ...layout.definition,
    created_at: layout.createdAt.toISOString(),
    updated_at: layout.updatedAt.toISOString(),
  };
}

/** A saved layout replaced: driver apps that draw it redraw (`layout.changed` on /driver). */
export interface LayoutChange {
  ownerId: string;
  set: LayoutSet;
  ref: string;
}

@Injectable()
export class LayoutsService {
  /** Layouts replaced by this instance, once saved. */
  readonly changed$ = new Subject<LayoutChange>();

  constructor(
    private readonly layouts: LayoutsRepository,
    private readonly usage: LayoutUsage,
    private readonly db: DataSource,
  ) {}

  /** Creates or replaces a layout; `body` comes checked by PutLayoutPipe. */
  async put(
    principal: PartnerPrincipal,
    setName: string,
    ref: string,
    body: LayoutBody,
  ): Promise<{ layout: LayoutView; created: boolean }> {
    const { ownerId, set } = this.access(principal, setName, ref);
    const { layout, created } = await this.layouts.upsert(ownerId, set, ref, body.name ?? null, body.definition);
    if (!created) this.changed$.next({ ownerId, set, ref });
    return { layout: toView(layout), created };
  }

  async list(principal: PartnerPrincipal, setName: string): Promise<LayoutView[]> {
    const { ownerId, set } = this.access(principal, setName);
    return (await this.layouts.list(ownerId, set)).map(toView);
  }

  async get(principal: PartnerPrincipal, setName: string, ref: string): Promise<LayoutView> {
    const { ownerId, set } = this.access(principal, setName, ref);
    const layout = await this.layouts.findOne(ownerId, set, ref);
    if (!layout) throw AppError.notFound('Layout', { set, layout_ref: ref });
    return toView(layout);
  }

  /**
   * Renders a saved layout against sample data (`{data: {...}}`: a record as the driver app would see it,
   * with `driver`, `custom_data`, and for tickets `content` and `appointment`), so the panel shows what
   * drivers will see.
   */
  async preview(
    principal: PartnerPrincipal,
    setName: string,
    ref: string,
    { data }: LayoutPreviewDto,
    language: LayoutLanguage | null = null,
  ): Promise<RenderedLayout> {
    const { ownerId, set } = this.access(principal, setName, ref);
    const layout = await this.layouts.findOne(ownerId, set, ref);
    if (!layout) throw AppError.notFound('Layout', { set, layout_ref: ref });
    return renderLayout(layout, previewContext(set, data), language);
  }

  /**
   * Renders an unsaved layout (checked by DraftLayoutPipe, its problems at the paths PUT names them) against
   * sample data: the answer of `preview` for that layout once saved, `layout_ref` the draft's.
   */
  previewDraft(
    principal: PartnerPrincipal,
    setName: string,
    { layout, data, layout_ref }: LayoutDraft,
    language: LayoutLanguage | null = null,
  ): Omit<RenderedLayout, 'layout_ref'> & { layout_ref: string | null } {
    const { set } = this.access(principal, setName);
    const draft = { ref: layout_ref ?? '', name: layout.name ?? null, definition: layout.definition };
    return { ...renderLayout(draft, previewContext(set, data), language), layout_ref };
  }

  async delete(principal: PartnerPrincipal, setName: string, ref: string): Promise<DeletedLayoutView> {
    const { ownerId, set } = this.access(principal, setName, ref);
    await this.db.transaction(async (manager) => {
      if (!(await this.layouts.lockForDelete(manager, ownerId, set, ref))) throw AppError.notFound('Layout', { set, layout_ref: ref });
      const usedBy = await this.usage.usedBy(manager, set, ownerId, ref);
      if (usedBy.length > 0) {
        throw new AppError('LAYOUT_IN_USE', `Layout ${ref} is used by live ${usedBy.join(', ')}`, { layout_refs: [ref], used_by: usedBy });
      }
      await this.layouts.delete(manager, ownerId, set, ref);
    });
    return { deleted_refs: [ref], status: 'deleted' };
  }

  /** The refs and names of the layouts of this set of every one of these owners (capacity's bookable layouts). */
  refsOf(ownerIds: string[], set: LayoutSet): Promise<{ owner_id: string; ref: string; name: string | null }[]> {
    return this.layouts.refsOf(ownerIds, set);
  }

  /**
   * Of `refs`, those with no layout of this owner and set; the found ones share-locked until `manager`'s
   * transaction ends (requireLayouts, for the records, tickets and rules that name layouts).
   */
  findMissingRefs(manager: EntityManager, ownerId: string, set: LayoutSet, refs: string[]): Promise<string[]> {
    return this.layouts.findMissingRefs(manager, ownerId, set, refs);
  }

  /** Checks the set exists, belongs to the caller's kind, and the ref is well formed. */
  private access(principal: PartnerPrincipal, setName: string, ref?: string): { ownerId: string; set: LayoutSet } {
    const set = checkLayoutSetAccess(principal, setName);
    if (ref !== undefined) checkLayoutRef(ref);
    return { ownerId: principal.accountId, set };
  }
}

/** What a preview's paths can reach in its sample data, as the driver app's records and tickets are drawn. */
function previewContext(set: LayoutSet, data: Record<string, unknown>): Record<string, unknown> {
  const nested = (key: string) => (isPlainObject(data[key]) ? data[key] : null);
  return set === 'ticket' ? ticketContext(data, nested('appointment'), nested('driver')) : recordContext(set, data, nested('driver') ?? {});
}

/** The set exists (404) and the caller's kind owns it (403). Also run by LayoutSetGuard, before the body is looked at. */
export function checkLayoutSetAccess(principal: Principal, setName: string): LayoutSet {
  if (!LAYOUT_SETS.includes(setName as LayoutSet)) {
    throw new AppError('NOT_FOUND', `No layout set "${setName}"; the sets are ${LAYOUT_SETS.join(', ')}`);
  }
  const set = setName as LayoutSet;
  if (LAYOUT_SET_OWNER[set] !== principal.kind) {
    throw new AppError('FORBIDDEN', `${set} layouts belong to ${LAYOUT_SET_OWNER[set]} accounts`);
  }
  return set;
}
