import { Global, Module } from '@nestjs/common';
import { DriverFeed } from './driver-feed.js';

@Global()
@Module({ providers: [DriverFeed], exports: [DriverFeed] })
export class FeedModule {}
