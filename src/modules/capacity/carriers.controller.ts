import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { type QueryList, QueryListPipe } from '../../common/validation/query-list.pipe.js';
import { AccessTo, Auth } from '../auth/auth.decorators.js';
import { CapacityService } from './capacity.service.js';
import { CARRIER_IDS_MAX, CarrierNameView } from './dto/directory.dto.js';

/** `?ids=`: 1 to CARRIER_IDS_MAX values of up to a UUID's length (whether each is a UUID is the service's check). */
const CARRIER_IDS = new QueryListPipe(CARRIER_IDS_MAX, 36);

/** Carrier accounts as a terminal names them in bookable_by: their names, by the ids the carriers give it. */
@ApiTags('capacity')
@Auth('terminal')
@AccessTo('capacity')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/carriers')
export class CarriersController {
  constructor(private readonly capacity: CapacityService) {}

  @Get()
  @ApiOperation({
    summary: 'The names of carrier accounts, by id: which carriers the ids of a bookable_by are',
    description:
      'Each id that is a carrier account, once, in the order asked; other ids are left out. A carrier gives a terminal its id; ' +
      `no route lists carriers. [Carrier booking](${guideUrl('capacity', 'carrier-booking')}).`,
  })
  @ApiQuery({
    name: 'ids',
    required: true,
    description: `Repeat per id: ?ids=A&ids=B (1 to ${CARRIER_IDS_MAX})`,
    schema: { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: CARRIER_IDS_MAX },
    style: 'form',
    explode: true,
  })
  @ApiEnvelope(200, CarrierNameView, [{ id: EXAMPLE.carrierId, name: 'Fast Freight' }], { isArray: true })
  @ApiErrors('VALIDATION_ERROR')
  async names(@Query('ids', CARRIER_IDS) ids: QueryList): Promise<Envelope<CarrierNameView[]>> {
    return ok(await this.capacity.carrierNames(ids));
  }
}
