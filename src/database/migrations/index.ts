import { Foundation1763874000000 } from './1763874000000-foundation.js';
import { TripsAppointments1763877600000 } from './1763877600000-trips-appointments.js';
import { TicketsFeedCheckins1763881200000 } from './1763881200000-tickets-feed-checkins.js';
import { Settings1763884800000 } from './1763884800000-settings.js';
import { PartnerScopedDrivers1763888400000 } from './1763888400000-partner-scoped-drivers.js';
import { CheckinInstances1763892000000 } from './1763892000000-checkin-instances.js';
import { IdempotencyKeys1763895600000 } from './1763895600000-idempotency-keys.js';
import { RecordListing1763899200000 } from './1763899200000-record-listing.js';
import { NoShows1763902800000 } from './1763902800000-no-shows.js';
import { AccountEvents1763906400000 } from './1763906400000-account-events.js';
import { Webhooks1763910000000 } from './1763910000000-webhooks.js';
import { KeptAnswersWithoutSecrets1763913600000 } from './1763913600000-kept-answers-without-secrets.js';
import { DriverSignInCodes1763914500000 } from './1763914500000-driver-sign-in-codes.js';
import { WebhookLanes1763915000000 } from './1763915000000-webhook-lanes.js';
import { EventWriters1763916000000 } from './1763916000000-event-writers.js';
import { AccountEventSeqs1763916600000 } from './1763916600000-account-event-seqs.js';
import { Capacity1763917000000 } from './1763917000000-capacity.js';
import { BookableByIndex1763917500000 } from './1763917500000-bookable-by-index.js';
import { People1763920000000 } from './1763920000000-people.js';
import { Gate1763930000000 } from './1763930000000-gate.js';
import { LogData1763935000000 } from './1763935000000-log-data.js';
import { Audit1763940000000 } from './1763940000000-audit.js';
import { GatePlateFold1763945000000 } from './1763945000000-gate-plate-fold.js';
import { Reports1763950000000 } from './1763950000000-reports.js';
import { ReportsDaily1763955000000 } from './1763955000000-reports-daily.js';
import { WebhookAttemptsKeepEvent1763960000000 } from './1763960000000-webhook-attempts-keep-event.js';
import { ReportsWaitsWhenAccepted1763962000000 } from './1763962000000-reports-waits-when-accepted.js';
import { AuditNamedColumns1763965000000 } from './1763965000000-audit-named-columns.js';
import { CheckinRefusals1763967000000 } from './1763967000000-checkin-refusals.js';
import { ReportsDailyRunning1763968000000 } from './1763968000000-reports-daily-running.js';
import { GateStartUnmarked1763969000000 } from './1763969000000-gate-start-unmarked.js';
import { GatePlateColumns1763971000000 } from './1763971000000-gate-plate-columns.js';
import { AuditSkipsEmptyStatements1763972000000 } from './1763972000000-audit-skips-empty-statements.js';
import { WebhookRowsKeyedOnce1763973000000 } from './1763973000000-webhook-rows-keyed-once.js';

/** Listed explicitly (not globbed) so the same list works from `src` under Jest and from `dist`. */
export const MIGRATIONS = [
  Foundation1763874000000,
  TripsAppointments1763877600000,
  TicketsFeedCheckins1763881200000,
  Settings1763884800000,
  PartnerScopedDrivers1763888400000,
  CheckinInstances1763892000000,
  IdempotencyKeys1763895600000,
  RecordListing1763899200000,
  NoShows1763902800000,
  AccountEvents1763906400000,
  Webhooks1763910000000,
  KeptAnswersWithoutSecrets1763913600000,
  DriverSignInCodes1763914500000,
  WebhookLanes1763915000000,
  EventWriters1763916000000,
  AccountEventSeqs1763916600000,
  Capacity1763917000000,
  BookableByIndex1763917500000,
  People1763920000000,
  Gate1763930000000,
  LogData1763935000000,
  Audit1763940000000,
  GatePlateFold1763945000000,
  Reports1763950000000,
  ReportsDaily1763955000000,
  WebhookAttemptsKeepEvent1763960000000,
  ReportsWaitsWhenAccepted1763962000000,
  AuditNamedColumns1763965000000,
  CheckinRefusals1763967000000,
  ReportsDailyRunning1763968000000,
  GateStartUnmarked1763969000000,
  GatePlateColumns1763971000000,
  AuditSkipsEmptyStatements1763972000000,
  WebhookRowsKeyedOnce1763973000000,
];
