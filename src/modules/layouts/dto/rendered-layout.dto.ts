import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const RENDERED_ELEMENT = {
  type: 'object',
  required: ['type'],
  additionalProperties: true,
  description:
    'The layout element as configured, plus `value` resolved from its `path` (null when the data has none); highlight_grid items each get a `value`; a qrcode `value` is the text to encode. ' +
    "Every text (label, title, text, steps, tags' text, items' label) is a string: one written in several languages comes in the language of the request's Accept-Language (else en, else pt-BR, else es)",
  example: { type: 'field', label: 'Container', path: 'custom_data.container.number', value: 'MSCU1234567' },
};

export class RenderedLayoutView {
  @ApiProperty() layout_ref: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiPropertyOptional({ type: 'array', items: RENDERED_ELEMENT }) card_layout?: unknown[];
  @ApiPropertyOptional({ type: 'array', items: RENDERED_ELEMENT }) modal_layout?: unknown[];
  @ApiPropertyOptional({ type: 'array', items: RENDERED_ELEMENT, description: 'Ticket layouts' }) elements?: unknown[];
}

export class RenderedDraftLayoutView extends RenderedLayoutView {
  @ApiProperty({ type: String, nullable: true, description: 'The layout_ref of the body; null when it gave none' })
  declare layout_ref: string;
}
