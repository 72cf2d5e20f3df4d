import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrors } from '../../common/docs/api-responses.js';
import { AppError } from '../../common/errors/app-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { Public } from '../auth/auth.decorators.js';
import { bearerToken } from '../auth/auth.guard.js';
import { MetricsService } from './metrics.service.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

@ApiTags('operations')
@Public()
@Controller('metrics')
export class MetricsController {
  /** The digest of METRICS_TOKEN: digests are compared, so the comparison takes the same time whatever is sent. */
  private readonly token: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    private readonly failures: AuthFailures,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.token = config.metricsToken ? digest(config.metricsToken) : null;
  }

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'With `METRICS_TOKEN` set, only for `Authorization: Bearer <METRICS_TOKEN>` (a wrong token counts as a failed authentication ' +
      'of the address); unset, open to whoever reaches the port: then expose it only to your scraper.',
  })
  @ApiOkResponse({ description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiErrors('UNAUTHORIZED', 'RATE_LIMITED')
  async scrape(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<string> {
    if (this.token && !(await this.failures.attempt(request, () => Promise.resolve(this.bearerMatches(request) || null)))) {
      throw new AppError('UNAUTHORIZED', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    // Set here, not with @Header, which would type an error envelope as text too.
    response.type('text/plain; version=0.0.4; charset=utf-8');
    return this.metrics.registry.metrics();
  }

  private bearerMatches(request: Request): boolean {
    const given = bearerToken(request);
    return given !== undefined && timingSafeEqual(digest(given), this.token!);
  }
}
