import { type DynamicModule, Module } from '@nestjs/common';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { FeedModule } from '../feed/feed.module.js';
import { GateController } from './gate.controller.js';
import { GateRepository } from './gate.repository.js';
import { GateService } from './gate.service.js';

/**
 * The gate without a phone (docs/gate.md). A matched read checks in through the check-in module's handshake; that
 * module is built by the real-time layer with its TerminalLink (CheckinModule.withTerminalLink), which hands the
 * same one here, so there is one CheckinService.
 */
@Module({})
export class GateModule {
  static withCheckin(checkin: DynamicModule): DynamicModule {
    return {
      module: GateModule,
      imports: [AppointmentsModule, FeedModule, checkin],
      controllers: [GateController],
      providers: [GateRepository, GateService],
      exports: [GateService],
    };
  }
}
