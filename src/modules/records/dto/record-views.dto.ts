import { AuditActorView } from '../../audit/dto/audit.dto.js';
import { ApiProperty } from '@nestjs/swagger';

export class CreatedRecordsView {
  @ApiProperty({ type: [String], description: 'Refs in the order sent' }) created_refs: string[];
  @ApiProperty({ type: [String], format: 'uuid', description: 'Ids in the order sent' }) created_ids: string[];
  @ApiProperty({ enum: ['created'] }) status: 'created';
}

export class UpdatedRecordsView {
  @ApiProperty({ type: [String] }) updated_refs: string[];
  @ApiProperty({ enum: ['updated'] }) status: 'updated';
}

export class DeletedRecordsView {
  @ApiProperty({ type: [String] }) deleted_refs: string[];
  @ApiProperty({ enum: ['deleted'] }) status: 'deleted';
}

export class LogItemView {
  @ApiProperty({ example: 'created' }) event: string;
  @ApiProperty({ example: 'Trip created' }) message: string;
  @ApiProperty({ example: '2026-11-22T04:48:54.123456', description: 'UTC with microseconds, no zone designator' }) created_at: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { from: 'PLANNED', to: 'IN_TRANSIT', via: 'put' },
    description:
      "The entry's facts, by event (docs/statuses.md#history-entries): `created` {layout_ref}; `updated` {fields}; a status " +
      'move (its event is the new status in lower case) {from, to, via, checkin_id?, outcome?, stage?, read_id?, lane?, plate?}; ' +
      '`checkin_requested` {checkin_id, source, read_id?, resumed?}; `checkin_rejected` and `checkin_failed` {checkin_id, ' +
      'outcome, reason}; `checkin_joined` {checkin_id, joined_checkin_id}; `arrived`, `entered`, `departed` {stage, read_id, ' +
      'lane, plate}; `no_show` {admissible_until}; `ticket_created`, `ticket_updated`, `ticket_deleted` {ticket_id, layout_ref}. ' +
      'Null on entries written before it existed. Unlike `message`, it holds no English sentence: readers draw the entry from ' +
      '`event` and `data` in their own language.',
  })
  data: Record<string, unknown> | null;
  @ApiProperty({
    type: AuditActorView,
    nullable: true,
    description:
      'Who made the entry, as the audit trail names them ([actors](/guide/audit.md#actors)); null for entries older than the trail',
  })
  actor: AuditActorView | null;
}
