import { Module } from '@nestjs/common';
import { AuthModule } from '../modules/auth/auth.module.js';
import { RevocationsModule } from '../modules/auth/revocations.js';
import { CheckinModule } from '../modules/checkin/checkin.module.js';
import { FeedModule } from '../modules/feed/feed.module.js';
import { GateModule } from '../modules/gate/gate.module.js';
import { MetricsModule } from '../modules/metrics/metrics.module.js';
import { EventsModule } from '../modules/events/events.module.js';
import { PanelGateway } from './panel.gateway.js';
import { LayoutChangesListener } from './layout-changes.listener.js';
import { LayoutsModule } from '../modules/layouts/layouts.module.js';
import { DriverFeedListener } from './driver-feed.listener.js';
import { DriverGateway } from './driver.gateway.js';
import { TerminalChannel } from './terminal-channel.js';
import { TerminalGateway } from './terminal.gateway.js';
import { GateGateway } from './gate.gateway.js';

/** The check-in module, with the TerminalLink this layer implements: one, shared with the gate. */
const CHECKIN = CheckinModule.withTerminalLink(TerminalChannel);

/**
 * The Socket.IO namespaces (docs/checkin.md). The check-in module gets its TerminalLink from here, as the
 * TerminalChannel this module hands it (CheckinModule.withTerminalLink): realtime depends on the feature
 * modules, never the other way round. The gate (docs/gate.md) checks in through that same module.
 */
@Module({
  imports: [
    CHECKIN,
    GateModule.withCheckin(CHECKIN),
    AuthModule,
    RevocationsModule,
    FeedModule,
    MetricsModule,
    EventsModule,
    LayoutsModule,
  ],
  providers: [DriverFeedListener, LayoutChangesListener, TerminalGateway, GateGateway, DriverGateway, PanelGateway],
})
export class RealtimeModule {}
