import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { IsIntegerText } from '../../../common/validation/validators.js';
import { ACCOUNT_EVENT_TYPES } from '../account-events.js';

/** Events per page: `limit` (docs/events.md). */
export const EVENTS_LIMIT = { default: 100, max: 500 } as const;

export class EventsQuery {
  @ApiPropertyOptional({ description: "The previous page's next_cursor, as it was given; absent: from the oldest event kept" })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: EVENTS_LIMIT.max, default: EVENTS_LIMIT.default })
  @IsOptional()
  @IsIntegerText(1, EVENTS_LIMIT.max)
  limit?: string;
}

export class EventView {
  @ApiProperty({ format: 'uuid', description: 'Unique per event; the `webhook-id` of its deliveries' }) id: string;
  @ApiProperty({
    type: 'integer',
    description:
      "The account's own number (it says nothing of other accounts): unique in the account's feed and increasing; a later change to the same record has a higher seq. Use it to order and deduplicate",
  })
  seq: number;
  @ApiProperty({ enum: ACCOUNT_EVENT_TYPES }) type: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      '`{trip|appointment, driver}` as the logs query shows the record (check-in events add `checkin`), or the ticket as the tickets query shows it',
  })
  data: Record<string, unknown>;
}

export class EventsPageView {
  @ApiProperty({ type: [EventView], description: 'In feed order, which never changes once read' }) items: EventView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Pass as `after` next time; the same cursor comes back while nothing new has committed (null while no event was ever read)',
  })
  next_cursor: string | null;
}

/** An event pushed on the /panel socket: the feed's event and the cursor after it (`sync` from there after a reconnect). */
export class PanelEventView extends EventView {
  @ApiProperty({ description: 'The place after this event: pass it as `after` to `sync` after a reconnect' }) cursor: string;
}

/** The payload of `sync` on /panel: the last cursor the panel has (absent: from now on). */
export class PanelSyncDto {
  @ApiPropertyOptional({ description: 'The cursor of the last event the panel applied, as it was given; absent: from now on' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  after?: string;
}
