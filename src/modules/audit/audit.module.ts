import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';

/**
 * The audit trail (docs/audit.md): written by the audited tables' triggers in each change's own statement (and
 * `AuditTrail.record` for sign-ins), sealed into a hash chain per account just after commit, read with
 * GET /api/v1/audit, exported and verified.
 */
@Module({
  controllers: [AuditController],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
