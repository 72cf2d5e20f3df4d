import type { WebhookView } from './dto/webhook.dto.js';
import type { WebhookRow } from './webhooks.repository.js';

/** A webhook as the API shows it (without its secret): in answers, and in its `webhook.disabled` event. */
export const toWebhookView = (row: WebhookRow): WebhookView => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  enabled: row.enabled,
  disabled_reason: row.disabled_reason,
  failing_since: row.failing_since?.toISOString() ?? null,
  previous_secret_expires_at: row.previous_secret_until?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
