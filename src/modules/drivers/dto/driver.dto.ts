import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

/** The `driver` object of a create request (interface: Driver). */
export class DriverDto {
  @ApiProperty({ example: '12345678901', description: 'Tax number, digits only', maxLength: 255 })
  @IsString()
  @Length(1, 255)
  @Matches(/^\d+$/, { message: '$property must contain digits only' })
  tax_id: string;

  @ApiProperty({ example: 'SP-998877', maxLength: 255 })
  @IsString()
  @Length(1, 255)
  driver_license_number: string;

  @ApiProperty({ example: 'E', description: 'Licence category, e.g. C, D, E', maxLength: 255 })
  @IsString()
  @Length(1, 255)
  license_category: string;
}

/** The driver as query responses show it. */
export class DriverView {
  @ApiProperty() tax_id: string;
  @ApiProperty() driver_license_number: string;
  @ApiProperty() driver_license_category: string;
}
