import { Account } from './modules/accounts/account.entity.js';
import { ApiKey } from './modules/accounts/api-key.entity.js';
import { Appointment, AppointmentLog } from './modules/appointments/appointment.entity.js';
import { Driver } from './modules/drivers/driver.entity.js';
import { Layout } from './modules/layouts/layout.entity.js';
import { Checkin } from './modules/checkin/checkin.entity.js';
import { DriverEvent, DriverFeedHead } from './modules/feed/driver-event.entity.js';
import { DriverTokenGrant } from './modules/auth/driver-token-grant.entity.js';
import { DriverSignInCode } from './modules/driver-tokens/sign-in-code.entity.js';
import { Ticket } from './modules/tickets/ticket.entity.js';
import { Trip, TripLog } from './modules/trips/trip.entity.js';
import { Setting } from './database/setting.entity.js';
import { IdempotencyKey } from './modules/idempotency/idempotency-key.entity.js';
import { AccountEvent } from './modules/events/account-event.entity.js';
import { Webhook, WebhookAttempt, WebhookDelivery } from './modules/webhooks/webhook.entity.js';
import { CapacityRule, CapacityUsage } from './modules/capacity/capacity-rule.entity.js';
import { Invitation, Session, User } from './modules/accounts/user.entity.js';
import { AccountSso, SsoLogin } from './modules/accounts/sso.entity.js';
import { GateRead, GateReferral } from './modules/gate/gate.entity.js';

export const ENTITIES = [
  Account,
  ApiKey,
  Layout,
  Driver,
  Trip,
  TripLog,
  Appointment,
  AppointmentLog,
  Ticket,
  DriverEvent,
  DriverFeedHead,
  DriverTokenGrant,
  DriverSignInCode,
  Checkin,
  Setting,
  IdempotencyKey,
  AccountEvent,
  Webhook,
  WebhookDelivery,
  WebhookAttempt,
  CapacityRule,
  CapacityUsage,
  User,
  Invitation,
  Session,
  AccountSso,
  SsoLogin,
  GateRead,
  GateReferral,
];
