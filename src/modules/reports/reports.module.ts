import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { CapacityModule } from '../capacity/capacity.module.js';
import { CarrierReportsController, GateReportsController } from './reports.controller.js';
import { ReportsCompaction } from './reports-compaction.js';
import { ReportsRepository } from './reports.repository.js';
import { ReportsService } from './reports.service.js';

/** Reports (docs/reports.md): the gate's figures for terminals, scorecards for carriers, their rebuild and the
 * compaction of their daily rollups. */
@Module({
  imports: [CapacityModule, AccountsModule],
  controllers: [GateReportsController, CarrierReportsController],
  providers: [ReportsRepository, ReportsService, ReportsCompaction],
  exports: [ReportsService, ReportsCompaction],
})
export class ReportsModule {}
