import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { ShutdownState } from './shutdown-state.js';

/** Liveness and readiness; ShutdownState is what main.ts flips when the process starts to stop. */
@Module({ controllers: [HealthController], providers: [ShutdownState], exports: [ShutdownState] })
export class HealthModule {}
