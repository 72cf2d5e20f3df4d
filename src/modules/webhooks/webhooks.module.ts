import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { FeedModule } from '../feed/feed.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks (docs/webhooks.md): subscriptions managed with the account's key, and the deliveries of the account
 * event feed to them, signed per the Standard Webhooks specification, retried, logged and replayable.
 */
@Module({
  imports: [EventsModule, FeedModule, MetricsModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDeliveries],
  exports: [WebhookDeliveries],
})
export class WebhooksModule {}
