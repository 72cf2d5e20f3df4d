import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsIn, IsNumber, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { AppError, type ValidationIssue } from '../../../common/errors/app-error.js';
import { IsIntegerText, IsIsoTimestamp, Nested, NestedList, REF_MAX } from '../../../common/validation/validators.js';
import { AppointmentItemView } from '../../appointments/dto/appointment.dto.js';
import { GATE_STAGES, REFERRAL_REASONS } from '../matching.js';

/** Largest image a read may carry, decoded. */
export const MAX_IMAGE_BYTES = 256 * 1024;
/** Its base64 text: 4 characters per 3 bytes, padded. */
const MAX_IMAGE_BASE64 = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;
/** Alternative readings a read may carry. */
export const MAX_READ_CANDIDATES = 20;
export const IMAGE_TYPES = ['image/jpeg', 'image/png'] as const;
/** A read_id: it names the read in a URL (its image), so it keeps to characters that need no escaping. */
export const READ_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const READ_ID_MESSAGE = { message: '$property must be 1 to 100 letters, digits or . _ : -' };
/** A plate must have something to compare once spaces, dots and dashes are removed. */
const PLATE_MESSAGE = { message: '$property must contain a letter or a digit' };

export const REFERRAL_STATUSES = ['open', 'resolved', 'expired'] as const;
export const REFERRALS_LIMIT = { default: 100, max: 500 } as const;

export class PlateReadingDto {
  @ApiProperty({ example: 'ABC1C34', minLength: 1, maxLength: 16 })
  @IsString()
  @Length(1, 16)
  @Matches(/[A-Za-z0-9]/, PLATE_MESSAGE)
  plate: string;

  @ApiProperty({ minimum: 0, maximum: 1, example: 0.62 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  confidence: number;
}

export class ReadImageDto {
  @ApiProperty({ enum: IMAGE_TYPES })
  @IsIn(IMAGE_TYPES)
  content_type: (typeof IMAGE_TYPES)[number];

  @ApiProperty({ description: `The image, base64 (at most ${MAX_IMAGE_BYTES / 1024} KiB decoded)`, maxLength: MAX_IMAGE_BASE64 })
  @IsString()
  @Length(4, MAX_IMAGE_BASE64)
  data: string;
}

/** One plate read, as a gate camera (or the gate's software) sends it (docs/gate.md#reads). */
export class GateReadDto {
  @ApiProperty({
    example: 'cam-3-20261129-081502-0042',
    description: 'The camera’s id of the read: sent again (a retry, a re-read of the passage), it updates the read and never acts twice',
  })
  @IsString()
  @Matches(READ_ID, READ_ID_MESSAGE)
  read_id: string;

  @ApiProperty({ example: 'in-2', minLength: 1, maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  lane: string;

  @ApiProperty({ enum: GATE_STAGES })
  @IsIn(GATE_STAGES)
  stage: (typeof GATE_STAGES)[number];

  @ApiProperty({ example: 'ABC1C34', minLength: 1, maxLength: 16, description: 'Spaces, dots, dashes and case do not matter' })
  @IsString()
  @Length(1, 16)
  @Matches(/[A-Za-z0-9]/, PLATE_MESSAGE)
  plate: string;

  @ApiProperty({ minimum: 0, maximum: 1, example: 0.97 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  confidence: number;

  @ApiPropertyOptional({ type: [PlateReadingDto], maxItems: MAX_READ_CANDIDATES, description: 'The camera’s alternative readings' })
  @NestedList(() => PlateReadingDto, MAX_READ_CANDIDATES, { optional: true })
  candidates?: PlateReadingDto[];

  @ApiProperty({ format: 'date-time', example: '2026-11-29T08:15:02-03:00', description: 'When the camera read it: ISO 8601 with a zone' })
  @IsIsoTimestamp()
  read_at: string;

  @ApiPropertyOptional({ type: ReadImageDto })
  @Nested(() => ReadImageDto, { optional: true })
  image?: ReadImageDto;
}

/** The first bytes of each image type: the data must be what its content_type says. */
const SIGNATURES: Record<(typeof IMAGE_TYPES)[number], number[]> = {
  'image/jpeg': [0xff, 0xd8, 0xff],
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
};

/** A read's image decoded, or the issue with it (base64, size, content), found at `path`. */
export function decodeImage(image: ReadImageDto, path = 'image.data'): { bytes?: Buffer; issue?: ValidationIssue } {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(image.data) || image.data.length % 4 !== 0)
    return { issue: { path, message: 'data must be base64 (RFC 4648, padded)' } };
  const bytes = Buffer.from(image.data, 'base64');
  if (bytes.length > MAX_IMAGE_BYTES) return { issue: { path, message: `data must be at most ${MAX_IMAGE_BYTES} bytes decoded` } };
  const signature = SIGNATURES[image.content_type];
  if (bytes.length < signature.length || signature.some((byte, i) => bytes[i] !== byte))
    return { issue: { path, message: `data is not a ${image.content_type === 'image/png' ? 'PNG' : 'JPEG'} image` } };
  return { bytes };
}

/**
 * What a read's class cannot check, over every read sent together (by `POST` or on the socket), before any is stored:
 * each image, and a read_id given twice. `path(i, field)` is where a field of the i-th sits in what was sent
 * (`[2].read_id`, or `read_id` alone: the batch's own).
 */
export function checkReads(reads: GateReadDto[], path: (index: number, within: string) => string): GateReadDto[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  reads.forEach((read, i) => {
    if (read.image) {
      const { issue } = decodeImage(read.image, path(i, 'image.data'));
      if (issue) issues.push(issue);
    }
    if (seen.has(read.read_id)) issues.push({ path: path(i, 'read_id'), message: 'read_id repeats within the batch' });
    seen.add(read.read_id);
  });
  if (issues.length) throw AppError.validation(issues);
  return reads;
}

/** `POST /api/v1/gate/referrals/{id}/resolve`: the appointment the read was, or its rejection. */
export class ResolveReferralDto {
  @ApiPropertyOptional({
    example: 'APPT-0001',
    minLength: 1,
    maxLength: REF_MAX,
    description: 'The appointment the read was: acts as a match',
  })
  @ValidateIf((o: ResolveReferralDto) => o.appointment_ref !== undefined || o.reject === undefined)
  @IsString()
  @Length(1, REF_MAX)
  appointment_ref?: string;

  @ApiPropertyOptional({ enum: [true], description: 'Close it without a match (a truck with no appointment, a bad read)' })
  @ValidateIf((o: ResolveReferralDto) => o.reject !== undefined || o.appointment_ref === undefined)
  @Equals(true, { message: 'reject must be true (or send appointment_ref instead)' })
  reject?: true;

  @ApiPropertyOptional({ maxLength: 1000, description: 'Why, with `reject`' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  note?: string;
}

export class ListReferralsQuery {
  @ApiPropertyOptional({ enum: REFERRAL_STATUSES, default: 'open', description: 'open (the default), resolved, or expired' })
  @IsOptional()
  @IsIn(REFERRAL_STATUSES)
  status?: (typeof REFERRAL_STATUSES)[number];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: REFERRALS_LIMIT.max, default: REFERRALS_LIMIT.default })
  @IsOptional()
  @IsIntegerText(1, REFERRALS_LIMIT.max)
  limit?: string;

  @ApiPropertyOptional({ description: "The previous page's next_cursor, as it was given" })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  cursor?: string;
}

/** What a read did, in the answer of `POST /api/v1/gate/reads`. */
export class ReadOutcomeView {
  @ApiProperty() read_id: string;
  @ApiProperty({
    enum: ['matched', 'referred', 'pending'],
    description: '`pending`: the same read_id is still being acted on by another request; send it again for its outcome',
  })
  outcome: 'matched' | 'referred' | 'pending';
  @ApiPropertyOptional({ description: 'The appointment it matched' }) appointment_ref?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Its referral, for a clerk' }) referral_id?: string;
}

export class ReadImageView {
  @ApiProperty({ enum: IMAGE_TYPES }) content_type: string;
  @ApiProperty({ example: '/api/v1/gate/reads/cam-3-20261129-081502-0042/image' }) url: string;
}

/** A read as the API shows it (in referrals and `gate.read` events). */
export class GateReadView {
  @ApiProperty() read_id: string;
  @ApiProperty() lane: string;
  @ApiProperty({ enum: GATE_STAGES }) stage: string;
  @ApiProperty() plate: string;
  @ApiProperty() confidence: number;
  @ApiProperty({ type: [PlateReadingDto] }) candidates: PlateReadingDto[];
  @ApiProperty({ format: 'date-time' }) read_at: string;
  @ApiProperty({ enum: ['matched', 'referred'], nullable: true, type: String }) outcome: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The appointment it matched, or that resolved its referral' })
  appointment_ref: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) referral_id: string | null;
  @ApiProperty({ type: ReadImageView, nullable: true, description: 'null when none was sent or it is past its retention' })
  image: ReadImageView | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ReferralResolutionView {
  @ApiProperty({ enum: ['matched', 'rejected'] }) outcome: string;
  @ApiProperty({ nullable: true, type: String }) appointment_ref: string | null;
  @ApiProperty({ nullable: true, type: String }) note: string | null;
}

/** A read referred to a clerk (docs/gate.md#referrals). */
export class ReferralView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: REFERRAL_STATUSES }) status: string;
  @ApiProperty({ enum: REFERRAL_REASONS }) reason: string;
  @ApiProperty({ nullable: true, type: String, description: 'For terminal_rejected: the check-in’s error and the terminal’s reason' })
  detail: string | null;
  @ApiProperty({ type: GateReadView }) read: GateReadView;
  @ApiProperty({ type: [AppointmentItemView], description: 'The appointments that nearly matched, as they were when it was referred' })
  candidates: AppointmentItemView[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time', description: '24 hours after it was opened' }) expires_at: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) resolved_at: string | null;
  @ApiProperty({ type: ReferralResolutionView, nullable: true }) resolution: ReferralResolutionView | null;
}

export class ReferralsPageView {
  @ApiProperty({ type: [ReferralView] }) items: ReferralView[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}
