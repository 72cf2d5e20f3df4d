import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { IsIntegerText, IsIsoTimestamp, NotBefore } from '../../../common/validation/validators.js';

/** Entries per page: `limit` (docs/audit.md#reading). */
export const AUDIT_LIMIT = { default: 100, max: 500 } as const;

/** The range of a read of the trail, and (for the admin) its account. */
export class AuditRangeQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'Only entries at or after this instant (ISO 8601 with a zone)' })
  @IsOptional()
  @IsIsoTimestamp()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only entries before this instant (ISO 8601 with a zone)' })
  @IsOptional()
  @IsIsoTimestamp()
  @NotBefore('from')
  to?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Admin keys only: the account whose trail to read; absent, the entries of no account (failed sign-ins of unknown emails)',
  })
  @IsOptional()
  @IsUUID()
  account_id?: string;
}

export class AuditPageQuery extends AuditRangeQuery {
  @ApiPropertyOptional({ description: 'Only entries of this actor (a user, key, driver tax id or terminal id)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  actor_id?: string;

  @ApiPropertyOptional({ example: 'appointment.updated', description: '`<resource>.<verb>`: only entries of this action' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_]+\.[a-z_]+$/, { message: '$property must be <resource>.<verb>, as appointment.updated' })
  action?: string;

  @ApiPropertyOptional({ description: "Only entries about the target of this ref (an appointment's or trip's ref, a user's email…)" })
  @IsOptional()
  @IsString()
  @Length(1, 320)
  target_ref?: string;

  @ApiPropertyOptional({ description: "The previous page's next_cursor, as it was given" })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: AUDIT_LIMIT.max, default: AUDIT_LIMIT.default })
  @IsOptional()
  @IsIntegerText(1, AUDIT_LIMIT.max)
  limit?: string;
}

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;

export class AuditExportQuery extends AuditRangeQuery {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'ndjson' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS)
  format?: (typeof EXPORT_FORMATS)[number];
}

export class AuditActorView {
  @ApiProperty({ enum: ['user', 'api_key', 'driver', 'terminal', 'system'] }) type: string;
  @ApiProperty({ type: String, nullable: true, description: "The user's, key's, driver's or terminal's id; null for the service itself" })
  id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The person's name, the key's label, the terminal's name, or the service's job",
  })
  name: string | null;
  @ApiPropertyOptional({ description: "A user's email" }) email?: string;
  @ApiPropertyOptional({ description: 'The key a user or account used' }) key_id?: string;
  @ApiPropertyOptional({ description: "A driver's tax id" }) tax_id?: string;
}

export class AuditTargetView {
  @ApiProperty({ example: 'appointment' }) type: string;
  @ApiProperty({ type: String, nullable: true }) id: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "The target's ref where it has one (a record's ref, a user's email, a key's label)",
  })
  ref?: string | null;
}

export class AuditEntryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer', description: "The entry's place in its account's chain: 1, 2, 3… with no gap" }) seq: number;
  @ApiProperty({ format: 'date-time', description: 'When the change was made (its transaction)' }) at: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) account_id: string | null;
  @ApiProperty({ type: AuditActorView }) actor: AuditActorView;
  @ApiProperty({ example: 'appointment.updated', description: '`<resource>.<verb>` ([actions](/guide/audit.md#actions))' }) action: string;
  @ApiProperty({ type: AuditTargetView }) target: AuditTargetView;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'array', minItems: 2, maxItems: 2, items: {} },
    description: 'For updates, `{field: [before, after]}`; a secret shows as "[withheld]"',
  })
  changes: Record<string, [unknown, unknown]> | null;
  @ApiProperty({ type: String, nullable: true }) request_id: string | null;
  @ApiProperty({ type: String, nullable: true }) ip: string | null;
  @ApiProperty({ type: String, nullable: true }) user_agent: string | null;
  @ApiProperty({
    description: "SHA-256 (hex) of the previous entry's hash and this entry's canonical JSON ([verifying](/guide/audit.md#verifying))",
  })
  hash: string;
}

export class AuditPageView {
  @ApiProperty({ type: [AuditEntryDto], description: 'Newest first' }) items: AuditEntryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next (older) page; null on the last page' })
  next_cursor: string | null;
}

export class AuditVerificationView {
  @ApiProperty() ok: boolean;
  @ApiProperty({ type: 'integer', description: 'Entries checked' }) checked: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Where the chain breaks: an entry edited, or the seq of one missing' })
  first_broken_seq?: number;
}
