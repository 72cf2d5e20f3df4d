import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { AppError } from '../../common/errors/app-error.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { REDIS } from '../../redis/redis.module.js';
import { Public } from '../auth/auth.decorators.js';
import { ShutdownState } from './shutdown-state.js';

const CHECK_TIMEOUT_MS = 2000;

type CheckResult = 'up' | 'down' | 'disabled';

class HealthChecksView {
  @ApiProperty({ enum: ['up', 'down'] }) database: CheckResult;
  @ApiProperty({ enum: ['up', 'down', 'disabled'], description: 'disabled when REDIS_URL is unset' }) redis: CheckResult;
}

class HealthView {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiPropertyOptional({ type: HealthChecksView, description: 'Readiness only: each dependency probed' }) checks?: HealthChecksView;
}

async function probe(run: () => Promise<unknown>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([run(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS)))]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

@ApiTags('operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiEnvelope(200, HealthView, { status: 'ok' })
  live(): Envelope<HealthView> {
    return ok({ status: 'ok' });
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the database (and Redis, when configured) answer, and no shutdown is under way' })
  @ApiEnvelope(200, HealthView, { status: 'ok', checks: { database: 'up', redis: 'disabled' } })
  @ApiErrors('SERVICE_UNAVAILABLE')
  async ready(): Promise<Envelope<HealthView>> {
    const [database, redis] = await Promise.all([
      probe(() => this.db.query('SELECT 1')),
      this.redis ? probe(() => this.redis!.ping()) : Promise.resolve<CheckResult>('disabled'),
    ]);
    const checks = { database, redis, shutdown: this.shutdown.draining ? 'draining' : 'no' };
    if (database === 'down' || redis === 'down' || this.shutdown.draining) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Not ready', { checks });
    }
    return ok({ status: 'ok', checks: { database, redis } });
  }
}
