import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsOptional,
  IsString,
  Length,
  registerDecorator,
  ValidateIf,
} from 'class-validator';
import { NULL_WHEN_REPLAYED } from '../../../common/secrets/carries-secret.js';
import { IsIntegerText } from '../../../common/validation/validators.js';
import { ACCOUNT_EVENT_TYPES } from '../../events/account-events.js';
import { WEBHOOK_URL_MAX } from '../webhook-url.js';
import { DISABLED_REASONS, type DisabledReason } from '../webhooks.repository.js';

/** What `events` may list: every event type, and each type's family as a prefix (`appointment.*`). */
export const EVENT_FILTERS: readonly string[] = [
  ...ACCOUNT_EVENT_TYPES,
  ...[...new Set(ACCOUNT_EVENT_TYPES.map((type) => `${type.split('.')[0]}.*`))],
];
export const EVENTS_MAX = EVENT_FILTERS.length;
export const DESCRIPTION_MAX = 255;

function IsEventFilter() {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isEventFilter',
      target: target.constructor,
      propertyName: property,
      options: {
        each: true,
        message: `each of $property must be an event type or a prefix such as appointment.*: ${EVENT_FILTERS.join(', ')}`,
      },
      validator: { validate: (value: unknown) => typeof value === 'string' && EVENT_FILTERS.includes(value) },
    });
}

const URL_PROPERTY = {
  description: `Where deliveries are POSTed: http:// or https://, at most ${WEBHOOK_URL_MAX} characters. Its host must resolve to public addresses only (unless WEBHOOK_ALLOW_PRIVATE)`,
  example: 'https://partner.example.com/hooks/gate',
  maxLength: WEBHOOK_URL_MAX,
};
const EVENTS_PROPERTY = {
  enum: [...EVENT_FILTERS],
  isArray: true,
  nullable: true,
  minItems: 1,
  maxItems: EVENTS_MAX,
  description: 'Event types, or prefixes such as `appointment.*`; absent or null: every type',
  example: ['appointment.*', 'ticket.created'],
};
const DESCRIPTION_PROPERTY = { type: String, nullable: true, maxLength: DESCRIPTION_MAX, example: 'Gate events for our TMS' };

export class CreateWebhookDto {
  @ApiProperty(URL_PROPERTY)
  @IsDefined()
  @IsString()
  @Length(1, WEBHOOK_URL_MAX)
  url: string;

  @ApiPropertyOptional(EVENTS_PROPERTY)
  @ValidateIf((object: { events?: unknown }) => object.events !== undefined && object.events !== null)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENTS_MAX)
  @IsString({ each: true })
  @IsEventFilter()
  events?: string[] | null;

  @ApiPropertyOptional(DESCRIPTION_PROPERTY)
  @ValidateIf((object: { description?: unknown }) => object.description !== undefined && object.description !== null)
  @IsString()
  @Length(0, DESCRIPTION_MAX)
  description?: string | null;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional(URL_PROPERTY)
  @ValidateIf((object: { url?: unknown }) => object.url !== undefined)
  @IsString()
  @Length(1, WEBHOOK_URL_MAX)
  url?: string;

  @ApiPropertyOptional({ ...EVENTS_PROPERTY, description: 'null: every type from now on' })
  @ValidateIf((object: { events?: unknown }) => object.events !== undefined && object.events !== null)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENTS_MAX)
  @IsString({ each: true })
  @IsEventFilter()
  events?: string[] | null;

  @ApiPropertyOptional({ ...DESCRIPTION_PROPERTY, description: 'null clears it' })
  @ValidateIf((object: { description?: unknown }) => object.description !== undefined && object.description !== null)
  @IsString()
  @Length(0, DESCRIPTION_MAX)
  description?: string | null;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'false pauses it: nothing is sent, events keep their place. true resumes it: the events of the pause follow, nothing skipped',
  })
  @ValidateIf((object: { enabled?: unknown }) => object.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;
}

export class ReplayWebhookDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 1041,
    description: 'Send again the events with a seq above this one (0: every event kept), of the types the webhook takes',
  })
  @IsDefined()
  @IsIntegerSeq()
  after_seq: number;
}

function IsIntegerSeq() {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isIntegerSeq',
      target: target.constructor,
      propertyName: property,
      options: { message: '$property must be a whole number of 0 or more' },
      validator: { validate: (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 },
    });
}

export const DELIVERIES_LIMIT = { default: 50, max: 200 } as const;

export class DeliveriesQuery {
  @ApiPropertyOptional({ description: "The previous page's next_cursor; absent: the newest attempts" })
  @IsOptional()
  @IsString()
  @Length(1, 40)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: DELIVERIES_LIMIT.max, default: DELIVERIES_LIMIT.default })
  @IsOptional()
  @IsIntegerText(1, DELIVERIES_LIMIT.max)
  limit?: string;
}

export class WebhookView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'https://partner.example.com/hooks/gate' }) url: string;
  @ApiProperty({ type: [String], nullable: true, description: 'Types and prefixes it takes; null: every type' }) events: string[] | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'false: paused, nothing is sent to it (by its partner, or by the service: disabled_reason)' })
  enabled: boolean;
  @ApiProperty({
    type: String,
    enum: [...DISABLED_REASONS, null],
    nullable: true,
    description: `Why the service paused it: deliveries_failed, every attempt failed for WEBHOOK_DISABLE_AFTER_H hours (72 by default). null when enabled or paused by its partner`,
  })
  disabled_reason: DisabledReason | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Since when every attempt has failed (it is sent one delivery at a time meanwhile); null once one is delivered',
  })
  failing_since: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until then deliveries are signed with the secret before the last rotation too; null when they are not',
  })
  previous_secret_expires_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class WebhookWithSecretView extends WebhookView {
  @ApiProperty({
    type: String,
    nullable: true,
    description: `The signing secret (\`whsec_\` + base64 of 32 random bytes): shown only here, store it now; ${NULL_WHEN_REPLAYED}`,
    example: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD3wHEAfyMCiA=',
  })
  secret: string;
}

export class WebhookTestView {
  @ApiProperty({ format: 'uuid', description: 'The `webhook-id` of the test delivery' }) event_id: string;
  @ApiProperty({ enum: ['webhook.test'] }) type: string;
}

export class WebhookReplayView {
  @ApiProperty({ type: 'integer', description: 'Events queued to be sent again' }) queued: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The highest seq queued; null when none was' }) last_seq: number | null;
  @ApiProperty({ description: `More events follow: replay again with after_seq = last_seq` }) more: boolean;
}

export class DeletedWebhookView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['deleted'] }) status: 'deleted';
}

export class DeliveryAttemptView {
  @ApiProperty({ type: 'string', description: 'The attempt; newest first' }) id: string;
  @ApiProperty({ format: 'uuid', description: 'The event id, sent as `webhook-id`' }) event_id: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The event seq; null for a test event' }) seq: number | null;
  @ApiProperty({ example: 'appointment.created' }) type: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: "This attempt's number for this event, 1 to WEBHOOK_MAX_ATTEMPTS" })
  attempt: number;
  @ApiProperty({
    enum: ['delivered', 'retrying', 'failed'],
    description:
      'delivered: a 2xx; retrying: failed, tried again at next_attempt_at; failed: the last attempt failed (replay sends it again)',
  })
  status: string;
  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status; null when none came" }) response_status:
    number | null;
  @ApiProperty({ type: 'integer', description: 'From the request to the answer (or the failure)' }) duration_ms: number;
  @ApiProperty({ type: String, nullable: true, example: 'answered 503', description: 'Why it failed' }) error: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class DeliveriesPageView {
  @ApiProperty({ type: [DeliveryAttemptView] }) items: DeliveryAttemptView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for older attempts; null on the last page' })
  next_cursor: string | null;
}
