import { ApiProperty } from '@nestjs/swagger';

/** The most ids `GET /api/v1/carriers` answers at once. */
export const CARRIER_IDS_MAX = 100;

/** A carrier account a terminal may name in bookable_by. */
export class CarrierNameView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
}

/** An appointment layout a carrier may book at a terminal. */
export class BookableLayoutView {
  @ApiProperty() layout_ref: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
}

/** A capacity rule of a terminal that lists the carrier, as far as booking under it goes. */
export class BookableRuleView {
  @ApiProperty() rule_ref: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'The appointment layouts it covers; null: all' })
  layout_refs: string[] | null;
  @ApiProperty({ description: 'IANA time zone of its slots' }) time_zone: string;
  @ApiProperty({ type: 'integer' }) slot_minutes: number;
  @ApiProperty({ type: 'integer', description: "Appointments per slot (an exception's capacity may replace it in some slots)" })
  capacity: number;
  @ApiProperty({ type: Number, nullable: true, description: "The share of each slot's capacity you may book; null: no limit" })
  carrier_quota: number | null;
}

/** A terminal that lets the carrier book: its rules that list the carrier, and the layouts those rules cover. */
export class BookableTerminalView {
  @ApiProperty({ format: 'uuid', description: 'The terminal_id of its availability and bookings routes' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({
    type: [BookableLayoutView],
    description: "The terminal's appointment layouts that its rules bookable by you cover: the layout_ref of a booking is one of these",
  })
  layouts: BookableLayoutView[];
  @ApiProperty({ type: [BookableRuleView] }) rules: BookableRuleView[];
}
