import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsDefined, IsObject, IsOptional, IsString, Length } from 'class-validator';
import { guideUrl } from '../../../common/docs/guide.js';
import { IsJsonObject, REF_MAX } from '../../../common/validation/validators.js';
import {
  ALERT_COLORS,
  CARD_ELEMENT_TYPES,
  LAYOUT_SETS,
  TICKET_ELEMENT_TYPES,
  type LayoutElement,
  type LayoutSet,
} from '../layout-schema.js';

/**
 * The two forms of a text drivers read (label, title, text, each of steps, a tag's text, a grid item's label), said
 * in each element schema's description.
 */
const TEXTS =
  "Each text drivers read (`label`, `title`, `text`, each of `steps`, a tag's `text`, an item's `label`) is a non-empty string, " +
  'shown as written to every driver, or the text in several languages, `{"pt-BR": "Placa", "es": "Placa", "en": "Plate"}`: ' +
  "at least one of pt-BR, es and en, only those, each a non-empty string; the driver routes draw it in the language of the request's " +
  `Accept-Language, else en, else pt-BR, else es ([layouts](${guideUrl('layouts', 'texts-in-several-languages')})).`;

const cardElement = {
  type: 'object',
  required: ['type'],
  description:
    'One of: `{type: "section", title}`, `{type: "field", label, path}`, `{type: "alert", color, text, icon?}` ' +
    `(color: ${ALERT_COLORS.join(', ')}), \`{type: "qrcode", path}\`. \`path\` is a dot path such as driver.tax_id, ` +
    'custom_data.container.number or appointment.license_plate. ' +
    TEXTS,
  properties: { type: { type: 'string', enum: CARD_ELEMENT_TYPES } },
  additionalProperties: true,
  example: { type: 'field', label: 'Driver', path: 'driver.tax_id' },
};

const ticketElement = {
  type: 'object',
  required: ['type'],
  description:
    'One of: `{type: "field", label, path}`, `{type: "section", title}`, `{type: "divider"}`, ' +
    '`{type: "tag_container", tags: [{text, color}]}`, `{type: "attention", text, icon?}`, `{type: "instruction", steps: [string]}`, ' +
    '`{type: "text", text}`, `{type: "highlight", label, path}`, `{type: "highlight_grid", items: [{label, path}]}`. ' +
    '`path` is a dot path such as content.gate. ' +
    TEXTS,
  properties: { type: { type: 'string', enum: TICKET_ELEMENT_TYPES } },
  additionalProperties: true,
  example: { type: 'highlight', label: 'Gate', path: 'content.gate' },
};

/** Body of PUT /layouts/{set}/{ref}: card and modal for trip and appointment sets, elements for tickets. */
export class PutLayoutDto {
  @ApiPropertyOptional({ type: String, maxLength: 255, nullable: true, example: 'Container pickup' })
  name?: string | null;

  @ApiPropertyOptional({ type: 'array', items: cardElement, description: 'trip and appointment sets: the card in the list' })
  card_layout?: LayoutElement[];

  @ApiPropertyOptional({ type: 'array', items: cardElement, description: 'trip and appointment sets: the detail modal' })
  modal_layout?: LayoutElement[];

  @ApiPropertyOptional({ type: 'array', items: ticketElement, description: 'ticket set: the ticket, top to bottom' })
  elements?: LayoutElement[];
}

export class LayoutView {
  @ApiProperty({ example: 'pickup-v1' }) layout_ref: string;
  @ApiProperty({ enum: LAYOUT_SETS }) set: LayoutSet;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiPropertyOptional({ type: 'array', items: cardElement }) card_layout?: LayoutElement[];
  @ApiPropertyOptional({ type: 'array', items: cardElement }) modal_layout?: LayoutElement[];
  @ApiPropertyOptional({ type: 'array', items: ticketElement }) elements?: LayoutElement[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class DeletedLayoutView {
  @ApiProperty({ type: [String] }) deleted_refs: string[];
  @ApiProperty({ enum: ['deleted'] }) status: 'deleted';
}

const SAMPLE_DATA = {
  type: 'object',
  additionalProperties: true,
  description:
    'The sample record, up to 64 KB: a trip or appointment with `driver` and `custom_data`; for tickets `content`, `appointment`, `driver`',
} as const;

/** Body of the preview route: a sample record as the driver app would see it. */
export class LayoutPreviewDto {
  @ApiProperty(SAMPLE_DATA)
  @IsDefined()
  @IsJsonObject(64 * 1024)
  data: Record<string, unknown>;
}

/** Body of the preview of an unsaved layout: the layout as PUT would take it, and a sample record. */
export class LayoutDraftPreviewDto {
  @ApiProperty({
    allOf: [{ $ref: getSchemaPath(PutLayoutDto) }],
    description: 'The layout, exactly the body PUT /api/v1/layouts/{set}/{layout_ref} takes, validated the same way',
  })
  @IsDefined()
  @IsObject({ message: '$property must be a JSON object: the body of PUT /api/v1/layouts/{set}/{layout_ref}' })
  layout: Record<string, unknown>;

  @ApiProperty(SAMPLE_DATA)
  @IsDefined()
  @IsJsonObject(64 * 1024)
  data: Record<string, unknown>;

  @ApiPropertyOptional({
    maxLength: REF_MAX,
    example: 'pickup-v1',
    description: "The ref the layout will be saved under, echoed as the answer's layout_ref; absent: layout_ref is null",
  })
  @IsOptional()
  @IsString()
  @Length(1, REF_MAX)
  layout_ref?: string;
}

/** `layout.changed` on /driver: a layout the driver's records (or their tickets) are drawn with was replaced. */
export class LayoutChangedView {
  @ApiProperty({ enum: LAYOUT_SETS }) set: LayoutSet;
  @ApiProperty({ example: 'demo-ticket' }) layout_ref: string;
}
