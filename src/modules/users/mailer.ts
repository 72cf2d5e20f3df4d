import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';

/** A message the service writes to a person: plain text and HTML. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * The service's mail (docs/users.md#invitations), through the SMTP server of `SMTP_URL`, from `SMTP_FROM`. Without
 * `SMTP_URL` nothing is sent. A mail that cannot be sent is logged and answered false, never thrown: what it carries
 * (an invitation's link) is answered to the person who asked for it as well.
 */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly transport: Transporter | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.transport = config.smtpUrl
      ? // The URL's own query may set the rest (smtps://user:pass@host:465); these bound how long an invitation waits.
        createTransport({ url: config.smtpUrl, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 } as never)
      : null;
  }

  get enabled(): boolean {
    return this.transport !== null;
  }

  /** Sends the mail; true when the SMTP server took it. */
  async send(mail: Mail): Promise<boolean> {
    if (!this.transport) return false;
    try {
      await this.transport.sendMail({ from: this.config.smtpFrom, ...mail });
      return true;
    } catch (error) {
      this.logger.warn({ err: error, subject: mail.subject }, 'mail not sent');
      return false;
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
