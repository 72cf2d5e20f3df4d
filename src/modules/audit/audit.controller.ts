import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { guideUrl } from '../../common/docs/guide.js';
import { AppError } from '../../common/errors/app-error.js';
import { decodeStrings, encodeStrings } from '../../common/http/cursor.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPrincipal } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import type { AuditEntryView } from './audit-chain.js';
import type { AuditFilter } from './audit.repository.js';
import { AuditService, type AuditVerification } from './audit.service.js';
import { AUDIT_LIMIT, AuditExportQuery, AuditPageQuery, AuditPageView, AuditRangeQuery, AuditVerificationView } from './dto/audit.dto.js';

const EXAMPLE_ENTRY: AuditEntryView = {
  id: '3d9c1f7e-2b4a-4e58-9c61-0f8e7d6c5b4a',
  seq: 1042,
  at: '2026-11-29T13:05:12.345Z',
  account_id: '5b0e1c2d-3f4a-4b6c-8d9e-0a1b2c3d4e5f',
  actor: { type: 'user', id: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d', name: 'Ana Souza', email: 'ana@terminal.example' },
  action: 'appointment.updated',
  target: { type: 'appointment', id: '7c6b5a49-3827-4615-a4b3-c2d1e0f9a8b7', ref: 'APPT-0001' },
  changes: { window_start: ['2026-11-29T14:00:00+00:00', '2026-11-29T15:00:00+00:00'] },
  request_id: 'f2e1d0c9-b8a7-4965-8473-625140f3e2d1',
  ip: '203.0.113.7',
  user_agent: 'Mozilla/5.0',
  hash: 'b5f1c6a0e2d4…',
};

/** A page's cursor: the seq it ends at. */
const encodeCursor = (seq: number) => encodeStrings([String(seq)]);

/** A page's cursor back into the seq it ends at: anything but what `encodeCursor` writes is VALIDATION_ERROR. */
function decodeCursor(cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const values = decodeStrings(cursor, [1], ([seq]) => /^[1-9]\d{0,15}$/.test(seq));
  if (!values) throw AppError.validation([{ path: 'cursor', message: 'cursor must be a next_cursor this endpoint gave' }]);
  return Number(values[0]);
}

@ApiTags('audit')
@Auth('terminal', 'carrier', 'admin')
@AccessTo('audit')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({
    summary: "Who did what: the account's audit trail, newest first",
    description: `Every change the service makes and every sign-in, with its actor, request and changes. Admin keys read any account with \`account_id\`. [The audit trail](${guideUrl('audit')}).`,
  })
  @ApiEnvelope(200, AuditPageView, { items: [EXAMPLE_ENTRY], next_cursor: encodeCursor(1042) })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: AuditPageQuery): Promise<Envelope<AuditPageView>> {
    const limit = query.limit === undefined ? AUDIT_LIMIT.default : Number(query.limit);
    const items = await this.audit.page(accountOf(principal, query), filterOf(query), decodeCursor(query.cursor), limit);
    return ok({ items, next_cursor: items.length === limit ? encodeCursor(items[items.length - 1].seq) : null });
  }

  @Get('export')
  @ApiOperation({
    summary: 'Every entry of a range, streamed in seq order, as NDJSON or CSV',
    description: `Memory stays flat however long the range. Each NDJSON line is an entry as the trail answers it, with its hash: [verify it offline](${guideUrl('audit', 'verifying')}).`,
  })
  @ApiProduces('application/x-ndjson', 'text/csv')
  @ApiResponse({ status: 200, description: 'The entries, one per line (NDJSON) or per row after a header (CSV)' })
  @ApiErrors('VALIDATION_ERROR')
  async export(@CurrentPrincipal() principal: Principal, @Query() query: AuditExportQuery, @Res() response: Response): Promise<void> {
    const format = query.format ?? 'ndjson';
    response.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
    response.setHeader('Content-Disposition', `attachment; filename="audit.${format}"`);
    try {
      await this.audit.export(accountOf(principal, query), filterOf(query), format, response);
    } catch (error) {
      // Before the first byte the error is answered as any other; after it, the response fails rather than end
      // looking complete (a reader gone, the service stopping).
      if (!response.headersSent) throw error;
      response.destroy();
    }
  }

  @Get('verify')
  @ApiOperation({
    summary: "Recomputes the account's hash chain over a range",
    description: `An entry edited or deleted in the database breaks it there. [Tamper evidence](${guideUrl('audit', 'verifying')}).`,
  })
  @ApiEnvelope(200, AuditVerificationView, { ok: true, checked: 1042 })
  @ApiErrors('VALIDATION_ERROR')
  async verify(@CurrentPrincipal() principal: Principal, @Query() query: AuditRangeQuery): Promise<Envelope<AuditVerification>> {
    return ok(await this.audit.verify(accountOf(principal, query), filterOf(query)));
  }
}

/** The trail a caller reads: its own account's; an admin's, the account it names (none: the entries of no account). */
function accountOf(principal: Principal, query: AuditRangeQuery): string | null {
  if (principal.kind === 'admin') return query.account_id ?? null;
  if (query.account_id !== undefined && query.account_id !== principal.accountId) {
    throw new AppError('FORBIDDEN', 'Only an admin key reads the trail of another account', { required: 'accounts:read' });
  }
  return principal.accountId;
}

function filterOf(query: Partial<AuditPageQuery>): AuditFilter {
  return {
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
    actorId: query.actor_id,
    action: query.action,
    targetRef: query.target_ref,
  };
}
