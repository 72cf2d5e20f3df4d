import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import {
  type CreateWebhookDto,
  DELIVERIES_LIMIT,
  type DeliveriesPageView,
  type DeliveryAttemptView,
  type ReplayWebhookDto,
  type UpdateWebhookDto,
  type WebhookReplayView,
  type WebhookTestView,
  type WebhookView,
  type WebhookWithSecretView,
} from './dto/webhook.dto.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { toWebhookView } from './webhook-view.js';
import { checkDestination, RefusedAddressError, urlFormIssue } from './webhook-url.js';
import { type AttemptRow, type WebhookRow, WebhooksRepository } from './webhooks.repository.js';

/** After a rotation, deliveries are signed with the previous secret too for this long. */
export const ROTATION_GRACE_HOURS = 24;
/** Most events one replay queues; the answer says whether more follow. */
export const REPLAY_MAX = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const toAttempt = (row: AttemptRow): DeliveryAttemptView => ({
  id: row.id,
  event_id: row.event_id,
  seq: row.event_seq === null ? null : Number(row.event_seq),
  type: row.event_type,
  attempt: row.attempt,
  status: row.status,
  response_status: row.response_status,
  duration_ms: row.duration_ms,
  error: row.error,
  next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

/** Each event type and prefix once, in the order given; null (every type) stays null. */
const distinct = (events: string[] | null | undefined) => (events ? [...new Set(events)] : events);

/**
 * Webhook subscriptions of the calling account (docs/webhooks.md): created and changed with their URL checked,
 * secrets made and rotated, test events and replays queued, the delivery log read. Another account's webhook
 * is WEBHOOK_NOT_FOUND, as one that does not exist.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly deliveries: WebhookDeliveries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(principal: PartnerPrincipal, body: CreateWebhookDto): Promise<WebhookWithSecretView> {
    await this.checkUrl(body.url);
    const secret = newSecret();
    const row = await this.repository.create(principal.accountId, {
      url: body.url,
      events: distinct(body.events) ?? null,
      description: body.description ?? null,
      secret,
    });
    this.deliveries.watch(principal.accountId);
    return { ...toWebhookView(row), secret };
  }

  async list(principal: PartnerPrincipal): Promise<WebhookView[]> {
    return (await this.repository.list(principal.accountId)).map(toWebhookView);
  }

  async get(principal: PartnerPrincipal, id: string): Promise<WebhookView> {
    return toWebhookView(await this.find(principal, id));
  }

  async update(principal: PartnerPrincipal, id: string, body: UpdateWebhookDto): Promise<WebhookView> {
    if (body.url !== undefined) await this.checkUrl(body.url);
    if (!UUID.test(id)) throw this.notFound(id);
    const row = await this.repository.update(principal.accountId, id, { ...body, events: distinct(body.events) });
    if (!row) throw this.notFound(id);
    // Nothing claimed ahead for it is sent as it was (paused, or to its old URL); resumed: what waited goes now.
    this.deliveries.changed(id);
    if (body.enabled) void this.deliveries.wake();
    return toWebhookView(row);
  }

  async delete(principal: PartnerPrincipal, id: string): Promise<{ id: string; status: 'deleted' }> {
    if (!UUID.test(id) || !(await this.repository.delete(principal.accountId, id))) throw this.notFound(id);
    this.deliveries.changed(id);
    return { id, status: 'deleted' };
  }

  async rotateSecret(principal: PartnerPrincipal, id: string): Promise<WebhookWithSecretView> {
    if (!UUID.test(id)) throw this.notFound(id);
    const secret = newSecret();
    const row = await this.repository.rotate(principal.accountId, id, secret, ROTATION_GRACE_HOURS);
    if (!row) throw this.notFound(id);
    // Signed with the new secret too from now on.
    this.deliveries.changed(id);
    return { ...toWebhookView(row), secret };
  }

  async sendTest(principal: PartnerPrincipal, id: string): Promise<WebhookTestView> {
    const webhook = await this.find(principal, id);
    const eventId = randomUUID();
    await this.repository.queueTest(webhook.id, eventId, {
      webhook_id: webhook.id,
      message: 'A test event: your endpoint receives and verifies deliveries',
    });
    this.deliveries.send();
    return { event_id: eventId, type: 'webhook.test' };
  }

  async replay(principal: PartnerPrincipal, id: string, body: ReplayWebhookDto): Promise<WebhookReplayView> {
    const webhook = await this.find(principal, id);
    const seqs = await this.repository.replay(webhook, String(body.after_seq), REPLAY_MAX);
    this.deliveries.send();
    return { queued: seqs.length, last_seq: seqs.length ? Math.max(...seqs.map(Number)) : null, more: seqs.length === REPLAY_MAX };
  }

  async attempts(principal: PartnerPrincipal, id: string, query: { cursor?: string; limit?: string }): Promise<DeliveriesPageView> {
    const webhook = await this.find(principal, id);
    const before = query.cursor === undefined ? null : decodeAttemptCursor(query.cursor);
    const limit = query.limit === undefined ? DELIVERIES_LIMIT.default : Number(query.limit);
    const rows = await this.repository.attempts(webhook.id, before, limit);
    return {
      items: rows.map(toAttempt),
      next_cursor: rows.length === limit ? Buffer.from(rows.at(-1)!.id).toString('base64url') : null,
    };
  }

  private async find(principal: PartnerPrincipal, id: string): Promise<WebhookRow> {
    const row = UUID.test(id) ? await this.repository.find(principal.accountId, id) : null;
    if (!row) throw this.notFound(id);
    return row;
  }

  private notFound(id: string): AppError {
    return new AppError('WEBHOOK_NOT_FOUND', 'No webhook with this id belongs to the calling account', { id });
  }

  /** The URL's form (VALIDATION_ERROR), then, unless private destinations are allowed, where it resolves to. */
  private async checkUrl(url: string): Promise<void> {
    const issue = urlFormIssue(url);
    if (issue) throw AppError.validation([{ path: 'url', message: `url ${issue}` }]);
    if (this.config.webhookAllowPrivate) return;
    try {
      await checkDestination(url);
    } catch (error) {
      if (!(error instanceof RefusedAddressError)) throw error;
      throw new AppError('WEBHOOK_URL_NOT_ALLOWED', `Webhook URL refused: ${error.message}`, {
        url,
        host: error.host,
        reason: error.reason,
      });
    }
  }
}

/** An attempts page cursor back into the attempt id it stands for; anything else is VALIDATION_ERROR. */
function decodeAttemptCursor(cursor: string): string {
  const id = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (/^[1-9]\d{0,17}$/.test(id) && Buffer.from(id).toString('base64url') === cursor) return id;
  throw AppError.validation([{ path: 'cursor', message: 'cursor must be a next_cursor of this list, as it was given' }]);
}
