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
    type: AuditActorView,
    nullable: true,
    description:
      'Who made the entry, as the audit trail names them ([actors](/guide/audit.md#actors)); null for entries older than the trail',
  })
  actor: AuditActorView | null;
}
